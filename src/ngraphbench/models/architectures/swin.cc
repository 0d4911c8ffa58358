// Swin-T/S/B (patch 4, window 7) as timm's swin_transformer.py builds them, channels-last
// throughout: patch embedding + LayerNorm, four stages (PatchMerging before stages 2-4) of
// window-attention blocks that alternate regular and shifted windows, and the relative
// position bias gathered from its parameter table on every forward, as timm does.
#include <stdexcept>

#include "ngraphbench/models/architectures/common.h"

namespace ngraphbench::architectures {

namespace {

constexpr int64_t kPatch = 4;
constexpr int64_t kWindow = 7;
constexpr int64_t kWindowArea = kWindow * kWindow;
constexpr int64_t kMlpRatio = 4;
constexpr float kEps = 1e-5f;
// timm's attention mask value for token pairs from different regions of a shifted window.
constexpr float kMaskedScore = -100.0f;

struct SwinConfig {
  int64_t embed_dim;
  std::vector<int64_t> depths;
  std::vector<int64_t> heads;
};

SwinConfig ConfigFor(const std::string& name) {
  if (name == "swin_tiny_patch4_window7_224") return {96, {2, 2, 6, 2}, {3, 6, 12, 24}};
  if (name == "swin_small_patch4_window7_224") return {96, {2, 2, 18, 2}, {3, 6, 12, 24}};
  if (name == "swin_base_patch4_window7_224") return {128, {2, 2, 18, 2}, {4, 8, 16, 32}};
  throw std::invalid_argument("not a Swin: " + name);
}

// timm's get_relative_position_index for a 7x7 window, flattened: [49 * 49] rows into the
// [(2*7-1)^2, heads] bias table.
std::vector<int64_t> RelativePositionIndex() {
  std::vector<int64_t> index;
  index.reserve(kWindowArea * kWindowArea);
  for (int64_t i = 0; i < kWindowArea; ++i) {
    for (int64_t j = 0; j < kWindowArea; ++j) {
      const int64_t dh = i / kWindow - j / kWindow + kWindow - 1;
      const int64_t dw = i % kWindow - j % kWindow + kWindow - 1;
      index.push_back(dh * (2 * kWindow - 1) + dw);
    }
  }
  return index;
}

// timm's SwinTransformerBlock.get_attn_mask for a res x res map shifted by `shift`: tokens of a
// window that came from different regions of the image must not attend to each other.
// Shape [windows, 1, 49, 49] so that it broadcasts over heads.
HostTensor ShiftedWindowMask(int64_t res, int64_t shift) {
  auto region = [&](int64_t p) { return p < res - kWindow ? 0 : p < res - shift ? 1 : 2; };
  const int64_t per_side = res / kWindow;
  HostTensor mask{{per_side * per_side, 1, kWindowArea, kWindowArea}, {}};
  mask.data.reserve(static_cast<size_t>(NumElements(mask.shape)));
  for (int64_t wh = 0; wh < per_side; ++wh) {
    for (int64_t ww = 0; ww < per_side; ++ww) {
      std::vector<int64_t> id(kWindowArea);
      for (int64_t t = 0; t < kWindowArea; ++t) {
        id[t] = 3 * region(wh * kWindow + t / kWindow) + region(ww * kWindow + t % kWindow);
      }
      for (int64_t i = 0; i < kWindowArea; ++i) {
        for (int64_t j = 0; j < kWindowArea; ++j) {
          mask.data.push_back(id[i] == id[j] ? 0.0f : kMaskedScore);
        }
      }
    }
  }
  return mask;
}

// [b, h, w, c] -> [b, windows, 49, c] (window_partition) and back (window_reverse).
std::string PartitionWindows(GraphBuilder& g, const std::string& x) {
  const Shape s = g.ShapeOf(x);
  const int64_t b = s[0], nh = s[1] / kWindow, nw = s[2] / kWindow, c = s[3];
  std::string t = g.Reshape(x, {b, nh, kWindow, nw, kWindow, c});
  t = g.Transpose(t, {0, 1, 3, 2, 4, 5});
  return g.Reshape(t, {b, nh * nw, kWindowArea, c});
}

std::string ReverseWindows(GraphBuilder& g, const std::string& x, const Shape& image) {
  const int64_t b = image[0], nh = image[1] / kWindow, nw = image[2] / kWindow, c = image[3];
  std::string t = g.Reshape(x, {b, nh, nw, kWindow, kWindow, c});
  t = g.Transpose(t, {0, 1, 3, 2, 4, 5});
  return g.Reshape(t, image);
}

std::string Block(GraphBuilder& g, const std::string& x, int64_t heads, bool shifted,
                  const std::string& position_index) {
  const Shape s = g.ShapeOf(x);  // [b, h, w, c]
  const int64_t res = s[1];
  // timm: a map no larger than the window is one window, never shifted (the 7x7 last stage).
  const int64_t shift = shifted && res > kWindow ? kWindow / 2 : 0;

  // Relative position bias: table[index] -> [49, 49, heads] -> [heads, 49, 49].
  std::string table = g.ParamNormal("relative_position_bias_table",
                                    {(2 * kWindow - 1) * (2 * kWindow - 1), heads}, 0.02f);
  std::string bias = g.AddNode("Gather", {table, position_index},
                               {kWindowArea * kWindowArea, heads}, {{"axis", int64_t{0}}});
  bias = g.Transpose(g.Reshape(bias, {kWindowArea, kWindowArea, heads}), {2, 0, 1});
  if (shift > 0) {
    bias = g.Binary("Add", bias, g.Buffer("attn_mask", ShiftedWindowMask(res, shift)));
  }

  std::string y = g.LayerNorm(x, kEps);
  if (shift > 0) y = Roll(g, Roll(g, y, -shift, 1), -shift, 2);
  y = MultiHeadAttention(g, PartitionWindows(g, y), heads, bias);
  y = ReverseWindows(g, y, s);
  if (shift > 0) y = Roll(g, Roll(g, y, shift, 1), shift, 2);
  std::string out = g.Binary("Add", x, y);
  // timm flattens to [b, h*w, c] around the MLP; Linear and LayerNorm act on the last axis, so
  // the flatten changes nothing and is left out.
  return g.Binary("Add", out, Mlp(g, g.LayerNorm(out, kEps), kMlpRatio * s[3], 1.0f));
}

// [b, h, w, c] -> [b, h/2, w/2, 2c]: 2x2 neighbours concatenated (timm's order), LayerNorm,
// Linear without bias.
std::string PatchMerging(GraphBuilder& g, const std::string& x, int64_t out_dim) {
  const Shape s = g.ShapeOf(x);
  const int64_t b = s[0], h = s[1] / 2, w = s[2] / 2, c = s[3];
  std::string t = g.Reshape(x, {b, h, 2, w, 2, c});
  t = g.Reshape(g.Transpose(t, {0, 1, 3, 4, 2, 5}), {b, h, w, 4 * c});
  return g.Linear(g.LayerNorm(t, kEps), out_dim, /*bias=*/false, /*gain=*/1.0f);
}

}  // namespace

Graph BuildSwin(const std::string& name, int64_t batch_size) {
  const SwinConfig config = ConfigFor(name);
  GraphBuilder g(name);
  std::string x = ImageInput(g, batch_size);
  x = g.Conv(x, config.embed_dim, kPatch, kPatch, 0, 1, /*bias=*/true, /*gain=*/1.0f);
  x = g.LayerNorm(g.Transpose(x, {0, 2, 3, 1}), kEps);  // PatchEmbed, output_fmt NHWC

  // One constant index buffer serves every block (timm keeps a copy per block; buffers are
  // not parameters either way).
  const std::string position_index =
      g.Int64Constant("relative_position_index", RelativePositionIndex());
  for (size_t stage = 0; stage < config.depths.size(); ++stage) {
    if (stage > 0) x = PatchMerging(g, x, 2 * g.ShapeOf(x).back());
    for (int64_t i = 0; i < config.depths[stage]; ++i) {
      x = Block(g, x, config.heads[stage], /*shifted=*/i % 2 == 1, position_index);
    }
  }
  x = g.LayerNorm(x, kEps);
  const Shape& s = g.ShapeOf(x);
  x = g.AddNode("ReduceMean", {x}, {s[0], s[3]},
                {{"axes", std::vector<int64_t>{1, 2}}, {"keepdims", int64_t{0}}});
  x = g.Linear(x, kNumClasses, /*bias=*/true, /*gain=*/1.0f);
  g.Output(x);
  return g.Finish();
}

}  // namespace ngraphbench::architectures
