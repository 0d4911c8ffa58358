#include "ngraphbench/graph/kernels.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <variant>

#include <fmt/format.h>

#include "ngraphbench/core/random.h"

namespace ngraphbench {

namespace {

enum class Kind { kAnchor, kReduction, kLayout, kElementwise, kAttention, kPassThrough };

Kind KindOf(const std::string& op) {
  static const std::set<std::string> anchors = {"Conv", "ConvTranspose", "Linear", "MatMul",
                                                "Gemm"};
  static const std::set<std::string> reductions = {
      "Softmax",     "LogSoftmax",  "LayerNormalization", "GroupNormalization",
      "InstanceNormalization",      "LpNormalization",    "MaxPool",
      "AveragePool", "GlobalAveragePool",                 "GlobalMaxPool",
      "ReduceMean",  "ReduceSum",   "ReduceMax",          "ReduceMin",
      "ReduceProd",  "ReduceL2",    "ReduceL1",           "ReduceSumSquare",
      "ReduceLogSumExp",            "ArgMax",             "ArgMin",
      "TopK",        "CumSum",      "LRN"};
  static const std::set<std::string> layout = {
      "Reshape", "Transpose", "Concat", "Gather",      "GatherElements", "Slice",
      "Expand",  "Flatten",   "Squeeze", "Unsqueeze",  "Split",          "Pad",
      "Tile",    "Resize",    "Upsample", "DepthToSpace", "SpaceToDepth",  "ScatterND",
      "GatherND", "Trilu"};
  static const std::set<std::string> pass = {"Identity", "Dropout", "Shape", "Constant",
                                             "Size"};
  if (anchors.count(op)) return Kind::kAnchor;
  if (reductions.count(op)) return Kind::kReduction;
  if (layout.count(op)) return Kind::kLayout;
  if (op == "ScaledDotProductAttention") return Kind::kAttention;
  if (pass.count(op)) return Kind::kPassThrough;
  return Kind::kElementwise;
}

// What an open kernel still takes after it.
enum class Open { kClosed, kEpilogue, kLayout };

struct Kernel {
  std::string text;  // its ops, their input shapes and attributes
  Open open = Open::kEpilogue;
};

std::string AttrText(const AttrValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::vector<int64_t>> ||
                      std::is_same_v<T, std::vector<float>>) {
          return fmt::format("[{}]", fmt::join(v, ","));
        } else {
          return fmt::format("{}", v);
        }
      },
      value);
}

// The op with its input shapes (constants marked) and attributes.
std::string OpText(const Graph& graph, const Node& node) {
  std::string text = node.op_type + "(";
  for (const std::string& input : node.inputs) {
    if (input.empty()) {
      text += "-;";
      continue;
    }
    const auto shape = graph.value_shapes.find(input);
    text += graph.FindInitializer(input) ? "c" : "";
    text += shape == graph.value_shapes.end() ? "?" : fmt::format("{}", fmt::join(shape->second, "x"));
    text += ";";
  }
  text += ")";
  for (const auto& [key, value] : node.attrs) text += key + "=" + AttrText(value) + ",";
  return text + "\n";
}

}  // namespace

std::vector<uint64_t> DistinctKernels(const Graph& graph) {
  // How many ops read each value (a graph output counts as one more): a kernel takes an op
  // after it only where the op is the one reader of the kernel's last value.
  std::map<std::string, int> readers;
  for (const Node& node : graph.nodes) {
    for (const std::string& input : node.inputs) ++readers[input];
  }
  for (const TensorSpec& output : graph.outputs) ++readers[output.name];
  std::vector<Kernel> kernels;
  std::map<std::string, int> kernel_of;  // value -> the open kernel whose last value it is
  const auto new_kernel = [&](std::string text, Open open) {
    kernels.push_back({std::move(text), open});
    return static_cast<int>(kernels.size()) - 1;
  };
  for (const Node& node : graph.nodes) {
    // The most recent open kernel that ends in one of the node's inputs read by it alone.
    int from = -1;
    bool computed_input = false;
    for (const std::string& input : node.inputs) {
      if (input.empty() || graph.FindInitializer(input)) continue;
      computed_input = true;
      const auto it = kernel_of.find(input);
      if (it != kernel_of.end() && it->second >= 0 && readers[input] == 1) {
        from = std::max(from, it->second);
      }
    }
    const std::string op = OpText(graph, node);
    int kernel = -1;
    // An op of constants only is folded away (the cls token's Expand).
    const Kind kind = computed_input ? KindOf(node.op_type) : Kind::kPassThrough;
    switch (kind) {
      case Kind::kPassThrough:
        if (!node.inputs.empty() && kernel_of.count(node.inputs[0])) {
          kernel = kernel_of[node.inputs[0]];
        }
        break;
      case Kind::kAnchor:
      case Kind::kReduction:
        kernel = new_kernel(op, Open::kEpilogue);
        break;
      case Kind::kAttention:
        // Kᵀ, which the ONNX form computes with a Transpose: it joins the layout kernel that
        // computes K, or is one of its own.
        if (node.inputs.size() > 1) {
          const std::string transposed = "KT:" + OpText(graph, node);
          const auto k = kernel_of.find(node.inputs[1]);
          if (k != kernel_of.end() && k->second >= 0 && readers[node.inputs[1]] == 1 &&
              kernels[k->second].open == Open::kLayout) {
            kernels[k->second].text += transposed;
          } else {
            new_kernel(transposed, Open::kClosed);
          }
        }
        new_kernel("qk:" + op, Open::kClosed);
        new_kernel("softmax:" + op, Open::kClosed);
        kernel = new_kernel("v:" + op, Open::kEpilogue);
        break;
      case Kind::kLayout:
        if (from >= 0 && kernels[from].open == Open::kLayout) {
          kernel = from;
          kernels[kernel].text += op;
        } else {
          kernel = new_kernel(op, Open::kLayout);
        }
        // A gather (Relax's take) ends its kernel: what follows it is a kernel of its own.
        if (node.op_type.rfind("Gather", 0) == 0) kernels[kernel].open = Open::kClosed;
        break;
      case Kind::kElementwise:
        if (from >= 0 && kernels[from].open != Open::kClosed) {
          kernel = from;
          kernels[kernel].text += op;
          // Inference BatchNormalization closes an anchor's kernel.
          if (node.op_type == "BatchNormalization") kernels[kernel].open = Open::kClosed;
        } else {
          kernel = new_kernel(op, Open::kEpilogue);
        }
        break;
    }
    for (const std::string& output : node.outputs) kernel_of[output] = kernel;
  }
  std::vector<uint64_t> keys;
  keys.reserve(kernels.size());
  for (const Kernel& k : kernels) keys.push_back(Fnv1a64(k.text));
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

}  // namespace ngraphbench
