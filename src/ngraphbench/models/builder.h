// GraphBuilder: builds IR graphs with static shapes and seeded, He-scaled weights.
//
// Every method appends nodes, records the output's shape and returns the output value's name.
// Weights are drawn from one generator seeded by the model name, in creation order, so the
// same model always gets the same weights, whatever the batch size.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ngraphbench/core/random.h"
#include "ngraphbench/graph/ir.h"

namespace ngraphbench {

class GraphBuilder {
 public:
  explicit GraphBuilder(std::string model_name);

  // Graph inputs and outputs.
  std::string Input(const std::string& name, const Shape& shape);
  void Output(const std::string& value);

  // Constants. Param* are trainable parameters (counted in params); Buffer is not.
  std::string ParamNormal(const std::string& hint, const Shape& shape, float stddev);
  std::string ParamFilled(const std::string& hint, const Shape& shape, float value);
  std::string ParamUniform(const std::string& hint, const Shape& shape, float lo, float hi);
  std::string Buffer(const std::string& hint, HostTensor tensor);
  // An int64 buffer (shapes, axes, indices); `shape` defaults to [values.size()].
  std::string Int64Constant(const std::string& hint, const std::vector<int64_t>& values,
                            const Shape& shape = {});

  // The generic form: appends one node whose single output has `out_shape`.
  std::string AddNode(const std::string& op_type, const std::vector<std::string>& inputs,
                      const Shape& out_shape, std::map<std::string, AttrValue> attrs = {});

  // Layers. Weight scale: He (std = gain/sqrt(fan_in)) with gain sqrt(2) by default.
  std::string Conv(const std::string& x, int64_t out_channels, int64_t kernel, int64_t stride,
                   int64_t pad, int64_t groups = 1, bool bias = true, float gain = 1.41421356f);
  std::string BatchNorm(const std::string& x, float eps = 1e-5f);
  std::string Linear(const std::string& x, int64_t out_features, bool bias = true,
                     float gain = 1.41421356f);
  std::string LayerNorm(const std::string& x, float eps = 1e-5f);
  // Q, K, V: [..., seq, head_dim]; `bias` (optional) is added to the scores.
  std::string Attention(const std::string& q, const std::string& k, const std::string& v,
                        const std::string& bias = "");

  // Elementwise and shape ops.
  std::string Unary(const std::string& op_type, const std::string& x);  // Relu, Gelu, Sigmoid, ...
  std::string Binary(const std::string& op_type, const std::string& a, const std::string& b);
  std::string Reshape(const std::string& x, const Shape& shape);
  std::string Transpose(const std::string& x, const std::vector<int64_t>& perm);

  const Shape& ShapeOf(const std::string& value) const { return graph_.ShapeOf(value); }
  PortableRng& rng() { return rng_; }
  Graph Finish();

 private:
  std::string Fresh(const std::string& hint);

  Graph graph_;
  PortableRng rng_;
  std::map<std::string, int> counters_;
};

// While one is alive on this thread, GraphBuilder's Param* methods leave their tensors zero
// instead of drawing them from the generator: the graph's structure without the time its weights
// take to draw (most of a build), for a caller that fills them in (models/weights_cache.h).
class SkipWeightDraws {
 public:
  SkipWeightDraws();
  ~SkipWeightDraws();
  SkipWeightDraws(const SkipWeightDraws&) = delete;
  SkipWeightDraws& operator=(const SkipWeightDraws&) = delete;

 private:
  bool previous_;
};

// NumPy-style broadcast of two shapes; throws std::invalid_argument if incompatible.
Shape BroadcastShapes(const Shape& a, const Shape& b);

}  // namespace ngraphbench
