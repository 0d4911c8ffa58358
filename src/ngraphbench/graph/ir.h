// The model IR: a static-shape float32 dataflow graph with ONNX operator semantics.
//
// Nodes use ONNX operator names and attributes (opset 17). Where PyTorch eager runs one kernel
// that ONNX opset 17 spells as several ops, the IR keeps the single op, so that the `identity`
// baseline can call that one kernel and the ONNX exporter lowers it:
//   Linear(X, W[out, in], B[out])          Y = X · Wᵀ + B over the last axis (torch.nn.Linear)
//   ScaledDotProductAttention(Q, K, V [, bias])
//                                          Q, K, V: [..., seq, head_dim];
//                                          Y = softmax(Q·Kᵀ·scale [+ bias]) · V;
//                                          attribute `scale` (default 1/sqrt(head_dim))
//   Gelu(X)                                exact (erf) GELU
// Every other op_type is a standard ONNX op.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "ngraphbench/core/tensor.h"

namespace ngraphbench {

using AttrValue =
    std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>>;

struct Node {
  std::string op_type;
  std::string name;
  std::vector<std::string> inputs;  // value names; "" marks an omitted optional input
  std::vector<std::string> outputs;
  std::map<std::string, AttrValue> attrs;

  bool HasAttr(const std::string& key) const { return attrs.count(key) > 0; }
  int64_t IntAttr(const std::string& key, int64_t fallback) const;
  float FloatAttr(const std::string& key, float fallback) const;
  std::string StringAttr(const std::string& key, const std::string& fallback) const;
  std::vector<int64_t> IntsAttr(const std::string& key,
                                const std::vector<int64_t>& fallback = {}) const;
};

// A constant tensor. Parameters are what timm counts as model parameters; buffers (BatchNorm
// running statistics, attention masks, position indices) are constants that are not.
enum class DType { kFloat32, kInt64 };

struct Initializer {
  std::string name;
  HostTensor tensor;  // shape always; data only for kFloat32
  bool is_parameter = true;
  DType dtype = DType::kFloat32;  // kInt64 for shapes, axes and indices
  std::vector<int64_t> int64_data;  // the values of a kInt64 constant
};

struct Graph {
  std::string name;
  std::vector<TensorSpec> inputs;   // graph inputs (not initializers), in order
  std::vector<TensorSpec> outputs;  // graph outputs, in order
  std::vector<Node> nodes;          // topologically sorted
  std::vector<Initializer> initializers;
  std::map<std::string, Shape> value_shapes;  // every value's static shape

  const Initializer* FindInitializer(const std::string& name) const;
  const Shape& ShapeOf(const std::string& value) const;  // throws if unknown
  int64_t ParameterCount() const;
};

// Multiply-accumulate operations of the whole graph (all of its batch), by fvcore's rules, which
// timm's published figures follow: Conv, Linear, MatMul, Gemm and the attention products, plus
// BatchNormalization (2 per element), LayerNormalization (5) and GlobalAveragePool (1).
int64_t CountMacs(const Graph& graph);

}  // namespace ngraphbench
