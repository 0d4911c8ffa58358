// DeiT (timm's VisionTransformer with the DeiT configs): 16x16 patch embedding, a class token
// and learned position embedding, 12 pre-norm blocks, class-token pooling. The non-distilled
// deit_*_patch16_224 models have no distillation token.
#include <stdexcept>

#include "ngraphbench/models/architectures/common.h"

namespace ngraphbench::architectures {

namespace {

constexpr int64_t kPatch = 16;
constexpr int64_t kDepth = 12;
constexpr int64_t kMlpRatio = 4;
constexpr float kEps = 1e-6f;

struct DeitConfig {
  int64_t dim;
  int64_t heads;
};

DeitConfig ConfigFor(const std::string& name) {
  if (name == "deit_tiny_patch16_224") return {192, 3};
  if (name == "deit_small_patch16_224") return {384, 6};
  if (name == "deit_base_patch16_224") return {768, 12};
  throw std::invalid_argument("not a DeiT: " + name);
}

}  // namespace

Graph BuildDeit(const std::string& name, int64_t batch_size) {
  const DeitConfig config = ConfigFor(name);
  const int64_t d = config.dim;
  const int64_t grid = kImageSize / kPatch;
  const int64_t tokens = grid * grid + 1;
  GraphBuilder g(name);
  std::string x = ImageInput(g, batch_size);

  // PatchEmbed: conv, flatten(2), transpose(1, 2).
  x = g.Conv(x, d, kPatch, kPatch, 0, 1, /*bias=*/true, /*gain=*/1.0f);
  x = g.Transpose(g.Reshape(x, {batch_size, d, grid * grid}), {0, 2, 1});

  // timm initializes both with trunc_normal(std=.02) (cls_token: 1e-6).
  std::string cls = g.ParamNormal("cls_token", {1, 1, d}, 0.02f);
  cls = g.AddNode("Expand", {cls, g.Int64Constant("cls_shape", {batch_size, 1, d})},
                  {batch_size, 1, d});
  x = Concat(g, {cls, x}, 1);
  x = g.Binary("Add", x, g.ParamNormal("pos_embed", {1, tokens, d}, 0.02f));

  for (int64_t i = 0; i < kDepth; ++i) {
    x = g.Binary("Add", x, MultiHeadAttention(g, g.LayerNorm(x, kEps), config.heads));
    x = g.Binary("Add", x, Mlp(g, g.LayerNorm(x, kEps), kMlpRatio * d, /*out_gain=*/1.0f));
  }
  x = g.LayerNorm(x, kEps);
  x = Select(g, x, 1, 0);  // class token
  x = g.Linear(x, kNumClasses, /*bias=*/true, /*gain=*/1.0f);
  g.Output(x);
  return g.Finish();
}

}  // namespace ngraphbench::architectures
