#include "ngraphbench/models/synthetic.h"

#include <algorithm>
#include <cmath>

#include "ngraphbench/models/builder.h"

namespace ngraphbench {

namespace {

// Q, K, V and output projections, softmax(Q·Kᵀ/√d)·V per head, as torch.nn.MultiheadAttention.
std::string MultiHeadSelfAttention(GraphBuilder& g, const std::string& x, float out_gain) {
  const Shape& in = g.ShapeOf(x);  // [b, s, width]
  const int64_t b = in[0], s = in[1], width = in[2];
  const int64_t heads = std::max<int64_t>(1, width / kHeadDim);
  const int64_t d = width / heads;
  auto split_heads = [&](const std::string& t) {
    return g.Transpose(g.Reshape(t, {b, s, heads, d}), {0, 2, 1, 3});  // [b, h, s, d]
  };
  // Unit gain on Q and K keeps the attention logits O(1); V keeps the signal's variance.
  std::string q = split_heads(g.Linear(x, width, true, 1.0f));
  std::string k = split_heads(g.Linear(x, width, true, 1.0f));
  std::string v = split_heads(g.Linear(x, width, true, 1.0f));
  std::string heads_out = g.Attention(q, k, v);
  std::string merged = g.Reshape(g.Transpose(heads_out, {0, 2, 1, 3}), {b, s, width});
  return g.Linear(merged, width, true, out_gain);
}

}  // namespace

Graph BuildConvBlocks(const ModelSpec& spec, int64_t batch_size) {
  GraphBuilder g(spec.name);
  std::string x = g.Input("input", {batch_size, spec.width, kConvSpatial, kConvSpatial});
  for (int64_t i = 0; i < spec.depth; ++i) {
    x = g.Unary("Relu", g.BatchNorm(g.Conv(x, spec.width, 3, 1, 1, 1, /*bias=*/false)));
  }
  g.Output(x);
  return g.Finish();
}

Graph BuildMhaBlocks(const ModelSpec& spec, int64_t batch_size) {
  GraphBuilder g(spec.name);
  std::string x = g.Input("input", {batch_size, kSequenceLength, spec.width});
  for (int64_t i = 0; i < spec.depth; ++i) {
    // Attention averages over tokens, which shrinks the signal; the larger output gain
    // restores it so that depth 16 neither vanishes nor explodes.
    x = g.Unary("Relu", MultiHeadSelfAttention(g, x, /*out_gain=*/2.0f));
  }
  g.Output(x);
  return g.Finish();
}

Graph BuildConv2d(const ModelSpec& spec, int64_t batch_size) {
  GraphBuilder g(spec.name);
  std::string x = g.Input("input", {batch_size, spec.width, kConvSpatial, kConvSpatial});
  g.Output(g.Conv(x, spec.width, 3, 1, 1, 1, /*bias=*/true, /*gain=*/1.0f));
  return g.Finish();
}

Graph BuildFullyConnected(const ModelSpec& spec, int64_t batch_size) {
  GraphBuilder g(spec.name);
  std::string x = g.Input("input", {batch_size, spec.width});
  g.Output(g.Linear(x, spec.width, true, 1.0f));
  return g.Finish();
}

Graph BuildSelfAttention(const ModelSpec& spec, int64_t batch_size) {
  GraphBuilder g(spec.name);
  std::string x = g.Input("input", {batch_size, kSequenceLength, spec.width});
  g.Output(MultiHeadSelfAttention(g, x, 1.0f));
  return g.Finish();
}

}  // namespace ngraphbench
