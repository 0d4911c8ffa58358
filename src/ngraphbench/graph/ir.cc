#include "ngraphbench/graph/ir.h"

#include <stdexcept>

namespace ngraphbench {

namespace {

template <typename T>
const T* Find(const std::map<std::string, AttrValue>& attrs, const std::string& key) {
  auto it = attrs.find(key);
  if (it == attrs.end()) return nullptr;
  return std::get_if<T>(&it->second);
}

}  // namespace

int64_t Node::IntAttr(const std::string& key, int64_t fallback) const {
  const auto* v = Find<int64_t>(attrs, key);
  return v ? *v : fallback;
}

float Node::FloatAttr(const std::string& key, float fallback) const {
  const auto* v = Find<float>(attrs, key);
  return v ? *v : fallback;
}

std::string Node::StringAttr(const std::string& key, const std::string& fallback) const {
  const auto* v = Find<std::string>(attrs, key);
  return v ? *v : fallback;
}

std::vector<int64_t> Node::IntsAttr(const std::string& key,
                                    const std::vector<int64_t>& fallback) const {
  const auto* v = Find<std::vector<int64_t>>(attrs, key);
  return v ? *v : fallback;
}

const Initializer* Graph::FindInitializer(const std::string& value) const {
  for (const auto& init : initializers) {
    if (init.name == value) return &init;
  }
  return nullptr;
}

const Shape& Graph::ShapeOf(const std::string& value) const {
  auto it = value_shapes.find(value);
  if (it == value_shapes.end()) {
    throw std::logic_error("graph '" + name + "' has no shape for value '" + value + "'");
  }
  return it->second;
}

int64_t Graph::ParameterCount() const {
  int64_t n = 0;
  for (const auto& init : initializers) {
    if (init.is_parameter) n += NumElements(init.tensor.shape);
  }
  return n;
}

int64_t CountMacs(const Graph& graph) {
  int64_t macs = 0;
  for (const auto& node : graph.nodes) {
    const std::string& op = node.op_type;
    if (op == "Conv") {
      const Shape& w = graph.ShapeOf(node.inputs[1]);  // [out, in/groups, kh, kw]
      int64_t per_output = 1;
      for (size_t i = 1; i < w.size(); ++i) per_output *= w[i];
      macs += NumElements(graph.ShapeOf(node.outputs[0])) * per_output;
    } else if (op == "Linear") {
      const Shape& w = graph.ShapeOf(node.inputs[1]);  // [out, in]
      macs += NumElements(graph.ShapeOf(node.outputs[0])) * w[1];
    } else if (op == "MatMul" || op == "Gemm") {
      const Shape& a = graph.ShapeOf(node.inputs[0]);
      int64_t k = op == "Gemm" && node.IntAttr("transA", 0) ? a.front() : a.back();
      macs += NumElements(graph.ShapeOf(node.outputs[0])) * k;
    } else if (op == "ScaledDotProductAttention") {
      const Shape& q = graph.ShapeOf(node.inputs[0]);  // [..., s_q, d]
      const Shape& k = graph.ShapeOf(node.inputs[1]);  // [..., s_k, d]
      const Shape& v = graph.ShapeOf(node.inputs[2]);  // [..., s_k, d_v]
      int64_t batch = NumElements(q) / (q[q.size() - 2] * q.back());
      int64_t s_q = q[q.size() - 2], s_k = k[k.size() - 2];
      macs += batch * s_q * s_k * (q.back() + v.back());
    } else if (op == "BatchNormalization" || op == "LayerNormalization" ||
               op == "GlobalAveragePool") {
      // fvcore's rules, which timm's published GMACs follow: inference BatchNorm with affine
      // 2 per element, LayerNorm with affine 5, adaptive average pooling 1 (EfficientNet-B0
      // is 3.5% short of timm's 0.40 G without them).
      const int64_t per_element = op == "BatchNormalization" ? 2 : op == "GlobalAveragePool" ? 1
                                                                                             : 5;
      macs += per_element * NumElements(graph.ShapeOf(node.inputs[0]));
    }
  }
  return macs;
}

}  // namespace ngraphbench
