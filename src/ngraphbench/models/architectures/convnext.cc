// ConvNeXt-T/S/B as timm's convnext.py builds them: 4x4 patchify stem + LayerNorm2d, four
// stages (LayerNorm2d + 2x2 stride-2 conv between them), blocks of 7x7 depthwise conv ->
// channels-last LayerNorm -> MLP -> layer scale, residual; head pool -> LayerNorm -> Linear.
#include <stdexcept>

#include "ngraphbench/models/architectures/common.h"

namespace ngraphbench::architectures {

namespace {

constexpr float kEps = 1e-6f;
constexpr int64_t kMlpRatio = 4;

struct ConvNextConfig {
  std::vector<int64_t> depths;
  std::vector<int64_t> dims;
};

ConvNextConfig ConfigFor(const std::string& name) {
  if (name == "convnext_tiny") return {{3, 3, 9, 3}, {96, 192, 384, 768}};
  if (name == "convnext_small") return {{3, 3, 27, 3}, {96, 192, 384, 768}};
  if (name == "convnext_base") return {{3, 3, 27, 3}, {128, 256, 512, 1024}};
  throw std::invalid_argument("not a ConvNeXt: " + name);
}

std::string Block(GraphBuilder& g, const std::string& x) {
  const int64_t c = g.ShapeOf(x)[1];
  std::string y = g.Conv(x, c, 7, 1, 3, /*groups=*/c, /*bias=*/true, /*gain=*/1.0f);
  y = g.Transpose(y, {0, 2, 3, 1});
  y = Mlp(g, g.LayerNorm(y, kEps), kMlpRatio * c, /*out_gain=*/1.0f);
  // Layer scale gamma [c]. timm applies it after permuting back, with gamma viewed as
  // [1, c, 1, 1]; multiplying channels-last first is the same product. timm initializes it
  // to 1e-6, which would make every block an identity under random weights.
  y = g.Binary("Mul", y, g.ParamUniform("ls_gamma", {c}, 0.1f, 0.3f));
  y = g.Transpose(y, {0, 3, 1, 2});
  return g.Binary("Add", y, x);
}

}  // namespace

Graph BuildConvNext(const std::string& name, int64_t batch_size) {
  const ConvNextConfig config = ConfigFor(name);
  GraphBuilder g(name);
  std::string x = ImageInput(g, batch_size);
  x = LayerNorm2d(g, g.Conv(x, config.dims[0], 4, 4, 0, 1, /*bias=*/true), kEps);
  for (size_t stage = 0; stage < config.depths.size(); ++stage) {
    if (stage > 0) {
      x = g.Conv(LayerNorm2d(g, x, kEps), config.dims[stage], 2, 2, 0, 1, /*bias=*/true);
    }
    for (int64_t i = 0; i < config.depths[stage]; ++i) x = Block(g, x);
  }
  // NormMlpClassifierHead: avg pool -> LayerNorm2d over [n, c, 1, 1] (= LayerNorm over c)
  // -> flatten -> fc.
  x = g.LayerNorm(GlobalAvgPool(g, x), kEps);
  x = g.Linear(x, kNumClasses, /*bias=*/true, /*gain=*/1.0f);
  g.Output(x);
  return g.Finish();
}

}  // namespace ngraphbench::architectures
