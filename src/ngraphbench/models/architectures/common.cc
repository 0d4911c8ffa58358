#include "ngraphbench/models/architectures/common.h"

#include <numeric>

namespace ngraphbench::architectures {

std::string ImageInput(GraphBuilder& g, int64_t batch_size) {
  return g.Input("input", {batch_size, kImageChannels, kImageSize, kImageSize});
}

std::string Silu(GraphBuilder& g, const std::string& x) {
  return g.Binary("Mul", x, g.Unary("Sigmoid", x));
}

std::string GlobalAvgPool(GraphBuilder& g, const std::string& x) {
  const Shape& in = g.ShapeOf(x);
  std::string pooled = g.AddNode("GlobalAveragePool", {x}, {in[0], in[1], 1, 1});
  return g.Reshape(pooled, {in[0], in[1]});
}

std::string Slice(GraphBuilder& g, const std::string& x, int64_t axis, int64_t start, int64_t end) {
  Shape out = g.ShapeOf(x);
  out[static_cast<size_t>(axis)] = end - start;
  return g.AddNode("Slice",
                   {x, g.Int64Constant("starts", {start}), g.Int64Constant("ends", {end}),
                    g.Int64Constant("axes", {axis})},
                   out);
}

std::string Concat(GraphBuilder& g, const std::vector<std::string>& xs, int64_t axis) {
  Shape out = g.ShapeOf(xs.front());
  out[static_cast<size_t>(axis)] = 0;
  for (const auto& x : xs) out[static_cast<size_t>(axis)] += g.ShapeOf(x)[axis];
  return g.AddNode("Concat", xs, out, {{"axis", axis}});
}

std::string Select(GraphBuilder& g, const std::string& x, int64_t axis, int64_t index) {
  Shape kept = g.ShapeOf(x);
  kept[static_cast<size_t>(axis)] = 1;
  std::string one =
      g.AddNode("Gather", {x, g.Int64Constant("index", {index})}, kept, {{"axis", axis}});
  Shape out = kept;
  out.erase(out.begin() + axis);
  return g.Reshape(one, out);
}

std::string Roll(GraphBuilder& g, const std::string& x, int64_t shift, int64_t axis) {
  const int64_t n = g.ShapeOf(x)[static_cast<size_t>(axis)];
  // roll by s moves element i to (i + s) mod n: the last s elements come first.
  const int64_t split = ((n - shift) % n + n) % n;
  if (split == 0) return x;
  return Concat(g, {Slice(g, x, axis, split, n), Slice(g, x, axis, 0, split)}, axis);
}

std::string Mlp(GraphBuilder& g, const std::string& x, int64_t hidden, float out_gain) {
  const int64_t dim = g.ShapeOf(x).back();
  std::string h = g.Unary("Gelu", g.Linear(x, hidden));
  return g.Linear(h, dim, /*bias=*/true, out_gain);
}

std::string MultiHeadAttention(GraphBuilder& g, const std::string& x, int64_t heads,
                               const std::string& bias) {
  const Shape in = g.ShapeOf(x);  // [lead..., seq, dim]
  const int64_t rank = static_cast<int64_t>(in.size());
  const int64_t seq = in[rank - 2], dim = in[rank - 1], head_dim = dim / heads;
  const Shape lead(in.begin(), in.end() - 2);

  // Unit gain keeps the attention logits O(1) under random weights.
  std::string qkv = g.Linear(x, 3 * dim, /*bias=*/true, /*gain=*/1.0f);
  Shape split = lead;
  split.insert(split.end(), {seq, 3, heads, head_dim});
  qkv = g.Reshape(qkv, split);
  // [lead..., seq, 3, heads, hd] -> [3, lead..., heads, seq, hd]
  std::vector<int64_t> perm = {rank - 1};
  for (int64_t i = 0; i < rank - 2; ++i) perm.push_back(i);
  perm.insert(perm.end(), {rank, rank - 2, rank + 1});
  qkv = g.Transpose(qkv, perm);
  std::string q = Select(g, qkv, 0, 0), k = Select(g, qkv, 0, 1), v = Select(g, qkv, 0, 2);

  std::string out = g.Attention(q, k, v, bias);  // [lead..., heads, seq, hd]
  std::vector<int64_t> merge(static_cast<size_t>(rank - 2));
  std::iota(merge.begin(), merge.end(), 0);
  merge.insert(merge.end(), {rank - 1, rank - 2, rank});
  out = g.Reshape(g.Transpose(out, merge), in);
  return g.Linear(out, dim, /*bias=*/true, /*gain=*/1.0f);
}

std::string LayerNorm2d(GraphBuilder& g, const std::string& x, float eps) {
  std::string nhwc = g.Transpose(x, {0, 2, 3, 1});
  return g.Transpose(g.LayerNorm(nhwc, eps), {0, 3, 1, 2});
}

}  // namespace ngraphbench::architectures
