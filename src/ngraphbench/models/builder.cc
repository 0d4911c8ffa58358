#include "ngraphbench/models/builder.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

namespace ngraphbench {

Shape BroadcastShapes(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t da = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    int64_t db = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    if (da != db && da != 1 && db != 1) {
      throw std::invalid_argument("cannot broadcast " + ShapeToString(a) + " with " +
                                  ShapeToString(b));
    }
    out[i] = std::max(da, db);
  }
  return out;
}

namespace {
thread_local bool skip_weight_draws = false;
}  // namespace

SkipWeightDraws::SkipWeightDraws() : previous_(skip_weight_draws) { skip_weight_draws = true; }
SkipWeightDraws::~SkipWeightDraws() { skip_weight_draws = previous_; }

GraphBuilder::GraphBuilder(std::string model_name)
    : rng_(Fnv1a64(model_name) ^ 0x6e67726170686265ULL) {
  graph_.name = std::move(model_name);
}

std::string GraphBuilder::Fresh(const std::string& hint) {
  int n = counters_[hint]++;
  return n == 0 ? hint : hint + "_" + std::to_string(n);
}

std::string GraphBuilder::Input(const std::string& name, const Shape& shape) {
  counters_[name] = std::max(counters_[name], 1);  // no later value may take this name
  graph_.inputs.push_back({name, shape});
  graph_.value_shapes[name] = shape;
  return name;
}

void GraphBuilder::Output(const std::string& value) {
  graph_.outputs.push_back({value, ShapeOf(value)});
}

std::string GraphBuilder::Buffer(const std::string& hint, HostTensor tensor) {
  std::string name = Fresh(hint);
  graph_.value_shapes[name] = tensor.shape;
  graph_.initializers.push_back({name, std::move(tensor), false});
  return name;
}

std::string GraphBuilder::ParamNormal(const std::string& hint, const Shape& shape, float stddev) {
  HostTensor t{shape, std::vector<float>(static_cast<size_t>(NumElements(shape)))};
  if (!skip_weight_draws) {
    for (float& v : t.data) v = static_cast<float>(rng_.Normal() * stddev);
  }
  std::string name = Buffer(hint, std::move(t));
  graph_.initializers.back().is_parameter = true;
  return name;
}

std::string GraphBuilder::ParamFilled(const std::string& hint, const Shape& shape, float value) {
  HostTensor t{shape, std::vector<float>(static_cast<size_t>(NumElements(shape)), value)};
  std::string name = Buffer(hint, std::move(t));
  graph_.initializers.back().is_parameter = true;
  return name;
}

std::string GraphBuilder::ParamUniform(const std::string& hint, const Shape& shape, float lo,
                                       float hi) {
  HostTensor t{shape, std::vector<float>(static_cast<size_t>(NumElements(shape)))};
  if (!skip_weight_draws) {
    for (float& v : t.data) v = static_cast<float>(lo + (hi - lo) * rng_.Uniform());
  }
  std::string name = Buffer(hint, std::move(t));
  graph_.initializers.back().is_parameter = true;
  return name;
}

std::string GraphBuilder::Int64Constant(const std::string& hint,
                                        const std::vector<int64_t>& values, const Shape& shape) {
  HostTensor t{shape.empty() ? Shape{static_cast<int64_t>(values.size())} : shape, {}};
  if (NumElements(t.shape) != static_cast<int64_t>(values.size())) {
    throw std::invalid_argument("Int64Constant '" + hint + "': " + std::to_string(values.size()) +
                                " values for shape " + ShapeToString(t.shape));
  }
  std::string name = Buffer(hint, std::move(t));
  graph_.initializers.back().dtype = DType::kInt64;
  graph_.initializers.back().int64_data = values;
  return name;
}

std::string GraphBuilder::AddNode(const std::string& op_type,
                                  const std::vector<std::string>& inputs, const Shape& out_shape,
                                  std::map<std::string, AttrValue> attrs) {
  std::string out = Fresh(op_type == "Reshape" || op_type == "Transpose" ? "t" : "x");
  Node node{op_type, Fresh("n_" + op_type), inputs, {out}, std::move(attrs)};
  graph_.nodes.push_back(std::move(node));
  graph_.value_shapes[out] = out_shape;
  return out;
}

std::string GraphBuilder::Conv(const std::string& x, int64_t out_channels, int64_t kernel,
                               int64_t stride, int64_t pad, int64_t groups, bool bias,
                               float gain) {
  const Shape& in = ShapeOf(x);  // [n, c, h, w]
  int64_t fan_in = in[1] / groups * kernel * kernel;
  std::vector<std::string> inputs = {
      x, ParamNormal("conv_w", {out_channels, in[1] / groups, kernel, kernel},
                     gain / std::sqrt(static_cast<float>(fan_in)))};
  if (bias) inputs.push_back(ParamNormal("conv_b", {out_channels}, 0.01f));
  int64_t h = (in[2] + 2 * pad - kernel) / stride + 1;
  int64_t w = (in[3] + 2 * pad - kernel) / stride + 1;
  return AddNode("Conv", inputs, {in[0], out_channels, h, w},
                 {{"kernel_shape", std::vector<int64_t>{kernel, kernel}},
                  {"strides", std::vector<int64_t>{stride, stride}},
                  {"pads", std::vector<int64_t>{pad, pad, pad, pad}},
                  {"group", groups}});
}

std::string GraphBuilder::BatchNorm(const std::string& x, float eps) {
  int64_t c = ShapeOf(x)[1];
  std::string scale = ParamUniform("bn_scale", {c}, 0.9f, 1.1f);
  std::string shift = ParamNormal("bn_bias", {c}, 0.01f);
  // Running statistics are buffers. Small values keep the He scaling of the preceding layer.
  HostTensor mean{{c}, std::vector<float>(static_cast<size_t>(c))};
  HostTensor var{{c}, std::vector<float>(static_cast<size_t>(c))};
  auto noise = [](PortableRng& rng) { return static_cast<float>(0.01 * rng.Normal()); };
  for (auto& v : mean.data) v = noise(rng_);
  for (auto& v : var.data) v = 1.0f + std::fabs(noise(rng_));
  std::string m = Buffer("bn_mean", std::move(mean));
  std::string s = Buffer("bn_var", std::move(var));
  return AddNode("BatchNormalization", {x, scale, shift, m, s}, ShapeOf(x), {{"epsilon", eps}});
}

std::string GraphBuilder::Linear(const std::string& x, int64_t out_features, bool bias,
                                 float gain) {
  Shape out = ShapeOf(x);
  int64_t in_features = out.back();
  std::vector<std::string> inputs = {
      x, ParamNormal("fc_w", {out_features, in_features},
                     gain / std::sqrt(static_cast<float>(in_features)))};
  if (bias) inputs.push_back(ParamNormal("fc_b", {out_features}, 0.01f));
  out.back() = out_features;
  return AddNode("Linear", inputs, out);
}

std::string GraphBuilder::LayerNorm(const std::string& x, float eps) {
  int64_t c = ShapeOf(x).back();
  std::string scale = ParamUniform("ln_scale", {c}, 0.9f, 1.1f);
  std::string shift = ParamNormal("ln_bias", {c}, 0.01f);
  return AddNode("LayerNormalization", {x, scale, shift}, ShapeOf(x),
                 {{"axis", int64_t{-1}}, {"epsilon", eps}});
}

std::string GraphBuilder::Attention(const std::string& q, const std::string& k,
                                    const std::string& v, const std::string& bias) {
  Shape out = ShapeOf(q);
  out.back() = ShapeOf(v).back();
  std::vector<std::string> inputs = {q, k, v};
  if (!bias.empty()) inputs.push_back(bias);
  return AddNode("ScaledDotProductAttention", inputs, out);
}

std::string GraphBuilder::Unary(const std::string& op_type, const std::string& x) {
  return AddNode(op_type, {x}, ShapeOf(x));
}

std::string GraphBuilder::Binary(const std::string& op_type, const std::string& a,
                                 const std::string& b) {
  return AddNode(op_type, {a, b}, BroadcastShapes(ShapeOf(a), ShapeOf(b)));
}

std::string GraphBuilder::Reshape(const std::string& x, const Shape& shape) {
  if (NumElements(shape) != NumElements(ShapeOf(x))) {
    throw std::invalid_argument("Reshape " + ShapeToString(ShapeOf(x)) + " to " +
                                ShapeToString(shape) + " changes the element count");
  }
  return AddNode("Reshape", {x, Int64Constant("shape", shape)}, shape);
}

std::string GraphBuilder::Transpose(const std::string& x, const std::vector<int64_t>& perm) {
  const Shape& in = ShapeOf(x);
  Shape out;
  for (int64_t p : perm) out.push_back(in[static_cast<size_t>(p)]);
  return AddNode("Transpose", {x}, out, {{"perm", perm}});
}

Graph GraphBuilder::Finish() { return std::move(graph_); }

}  // namespace ngraphbench
