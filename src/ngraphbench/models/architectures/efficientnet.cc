// EfficientNet-B0/B2/B4 as timm's efficientnet.py builds its (non-"tf_") variants: symmetric
// k//2 padding, SiLU, SE computed from the block input width, timm's round_channels and ceil
// depth scaling. The input stays 224x224 (the paper's Table IV), not each model's native size.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "ngraphbench/models/architectures/common.h"

namespace ngraphbench::architectures {

namespace {

constexpr float kBnEps = 1e-5f;
constexpr double kSeRatio = 0.25;

// One row of timm's arch_def for EfficientNet-B0, e.g. 'ir_r2_k3_s2_e6_c24_se0.25'.
struct StageDef {
  bool depthwise_separable;  // 'ds' (else 'ir', inverted residual)
  int64_t repeats;
  int64_t kernel;
  int64_t stride;
  int64_t expand;
  int64_t channels;
};

const std::vector<StageDef> kB0Stages = {
    {true, 1, 3, 1, 1, 16},   {false, 2, 3, 2, 6, 24},  {false, 2, 5, 2, 6, 40},
    {false, 3, 3, 2, 6, 80},  {false, 3, 5, 1, 6, 112}, {false, 4, 5, 2, 6, 192},
    {false, 1, 3, 1, 6, 320},
};

struct Multipliers {
  double width;
  double depth;
};

Multipliers MultipliersFor(const std::string& name) {
  if (name == "efficientnet_b0") return {1.0, 1.0};
  if (name == "efficientnet_b2") return {1.1, 1.2};
  if (name == "efficientnet_b4") return {1.4, 1.8};
  throw std::invalid_argument("not an EfficientNet: " + name);
}

// timm.layers.make_divisible with divisor 8 and round_limit 0.9.
int64_t MakeDivisible(double v, int64_t divisor = 8) {
  int64_t out =
      std::max<int64_t>(divisor, static_cast<int64_t>(v + divisor / 2.0) / divisor * divisor);
  if (out < 0.9 * v) out += divisor;
  return out;
}

// Python's round() rounds halves to even, as does nearbyint in the default rounding mode.
int64_t PyRound(double v) { return static_cast<int64_t>(std::nearbyint(v)); }

std::string ConvBnAct(GraphBuilder& g, const std::string& x, int64_t out, int64_t kernel,
                      int64_t stride, int64_t groups, bool act, float gain = 1.41421356f) {
  std::string y = g.BatchNorm(g.Conv(x, out, kernel, stride, kernel / 2, groups,
                                     /*bias=*/false, gain),
                              kBnEps);
  return act ? Silu(g, y) : y;
}

// SqueezeExcite: x.mean((2, 3), keepdim=True) -> 1x1 conv reduce -> SiLU -> 1x1 conv expand
// -> sigmoid gate.
std::string SqueezeExcite(GraphBuilder& g, const std::string& x, int64_t reduced) {
  const Shape& in = g.ShapeOf(x);
  std::string s = g.AddNode("ReduceMean", {x}, {in[0], in[1], 1, 1},
                            {{"axes", std::vector<int64_t>{2, 3}}, {"keepdims", int64_t{1}}});
  s = Silu(g, g.Conv(s, reduced, 1, 1, 0, 1, /*bias=*/true));
  s = g.Conv(s, in[1], 1, 1, 0, 1, /*bias=*/true, /*gain=*/1.0f);
  return g.Binary("Mul", x, g.Unary("Sigmoid", s));
}

std::string MbBlock(GraphBuilder& g, const std::string& x, const StageDef& def, int64_t out,
                    int64_t stride) {
  const int64_t in = g.ShapeOf(x)[1];
  std::string y = x;
  int64_t mid = in;
  if (!def.depthwise_separable) {
    mid = MakeDivisible(static_cast<double>(in * def.expand));
    y = ConvBnAct(g, y, mid, 1, 1, 1, /*act=*/true);
  }
  y = ConvBnAct(g, y, mid, def.kernel, stride, /*groups=*/mid, /*act=*/true);
  // timm builds SE on the expanded width with se_ratio / exp_ratio (se_from_exp=False).
  y = SqueezeExcite(g, y, PyRound(mid * (kSeRatio / static_cast<double>(def.expand))));
  const bool skip = stride == 1 && in == out;
  y = ConvBnAct(g, y, out, 1, 1, 1, /*act=*/false, skip ? 0.5f : 1.0f);
  return skip ? g.Binary("Add", y, x) : y;
}

}  // namespace

Graph BuildEfficientNet(const std::string& name, int64_t batch_size) {
  const Multipliers mult = MultipliersFor(name);
  auto round_channels = [&](int64_t c) { return MakeDivisible(c * mult.width); };
  GraphBuilder g(name);
  std::string x = ImageInput(g, batch_size);
  x = ConvBnAct(g, x, round_channels(32), 3, 2, 1, /*act=*/true);
  for (const StageDef& def : kB0Stages) {
    const auto repeats = static_cast<int64_t>(std::ceil(def.repeats * mult.depth));
    const int64_t out = round_channels(def.channels);
    for (int64_t i = 0; i < repeats; ++i) x = MbBlock(g, x, def, out, i == 0 ? def.stride : 1);
  }
  x = ConvBnAct(g, x, round_channels(1280), 1, 1, 1, /*act=*/true);
  x = g.Linear(GlobalAvgPool(g, x), kNumClasses, /*bias=*/true, /*gain=*/1.0f);
  g.Output(x);
  return g.Finish();
}

}  // namespace ngraphbench::architectures
