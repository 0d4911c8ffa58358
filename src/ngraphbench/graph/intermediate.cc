#include "ngraphbench/graph/intermediate.h"

#include <deque>
#include <map>
#include <set>
#include <stdexcept>

namespace ngraphbench {

namespace {

// Operators whose every output may be another type than float32.
const std::set<std::string>& NonFloatOps() {
  static const std::set<std::string> ops = {
      "Shape", "Size",           "ArgMax",        "ArgMin",  "NonZero",        "CastLike",
      "Equal", "Less",           "LessOrEqual",   "Greater", "GreaterOrEqual", "And",
      "Or",    "Xor",            "Not",           "IsNaN",   "IsInf",          "OneHot"};
  return ops;
}

// Whether output `index` of `node` is float32 for certain: not an index or mask output (TopK's,
// MaxPool's, Dropout's second), not a Cast to another type (ONNX's FLOAT is 1).
bool FloatOutput(const Node& node, size_t index) {
  if (NonFloatOps().count(node.op_type)) return false;
  if (node.op_type == "Cast") return node.IntAttr("to", 0) == 1;
  return index == 0 || (node.op_type != "TopK" && node.op_type != "MaxPool" &&
                        node.op_type != "Dropout");
}

}  // namespace

std::vector<std::string> IntermediateCandidates(const Graph& graph, size_t max) {
  std::map<std::string, std::pair<const Node*, size_t>> producer;
  for (const Node& node : graph.nodes) {
    for (size_t i = 0; i < node.outputs.size(); ++i) producer[node.outputs[i]] = {&node, i};
  }
  std::set<std::string> seen, outputs;
  std::deque<std::string> queue;
  for (const TensorSpec& out : graph.outputs) {
    outputs.insert(out.name);
    if (seen.insert(out.name).second) queue.push_back(out.name);
  }
  std::vector<std::string> candidates;
  while (!queue.empty() && candidates.size() < max) {
    const std::string value = queue.front();
    queue.pop_front();
    const auto it = producer.find(value);
    if (it == producer.end()) continue;  // a graph input or an initializer
    const auto& [node, index] = it->second;
    if (!outputs.count(value) && FloatOutput(*node, index) && graph.value_shapes.count(value)) {
      candidates.push_back(value);
    }
    for (const std::string& in : node->inputs) {
      if (!in.empty() && seen.insert(in).second) queue.push_back(in);
    }
  }
  return candidates;
}

Graph WithOutputs(const Graph& graph, const std::vector<std::string>& values) {
  std::map<std::string, size_t> producer;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (const std::string& out : graph.nodes[n].outputs) producer[out] = n;
  }
  Graph cut;
  cut.name = graph.name;
  cut.inputs = graph.inputs;
  cut.value_shapes = graph.value_shapes;
  // The nodes the values need, found backwards; kept in the graph's (topological) order.
  std::vector<bool> needed(graph.nodes.size(), false);
  std::vector<std::string> stack;
  for (const std::string& value : values) {
    if (!producer.count(value)) {
      throw std::invalid_argument("graph '" + graph.name + "' has no node computing '" + value +
                                  "'");
    }
    cut.outputs.push_back({value, graph.ShapeOf(value)});
    stack.push_back(value);
  }
  std::set<std::string> used;
  while (!stack.empty()) {
    const std::string value = stack.back();
    stack.pop_back();
    if (!used.insert(value).second) continue;
    const auto it = producer.find(value);
    if (it == producer.end() || needed[it->second]) continue;
    needed[it->second] = true;
    for (const std::string& in : graph.nodes[it->second].inputs) {
      if (!in.empty()) stack.push_back(in);
    }
  }
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (needed[n]) cut.nodes.push_back(graph.nodes[n]);
  }
  for (const Initializer& init : graph.initializers) {
    if (used.count(init.name)) cut.initializers.push_back(init);
  }
  return cut;
}

}  // namespace ngraphbench
