// Shared pieces of the Table IV architectures (see models/architectures.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ngraphbench/graph/ir.h"
#include "ngraphbench/models/builder.h"

namespace ngraphbench::architectures {

constexpr int64_t kImageSize = 224;
constexpr int64_t kImageChannels = 3;
constexpr int64_t kNumClasses = 1000;

// One builder per family; each accepts the timm names of its three sizes and throws
// std::invalid_argument for any other name.
Graph BuildResNet(const std::string& name, int64_t batch_size);
Graph BuildEfficientNet(const std::string& name, int64_t batch_size);
Graph BuildDeit(const std::string& name, int64_t batch_size);
Graph BuildSwin(const std::string& name, int64_t batch_size);
Graph BuildConvNext(const std::string& name, int64_t batch_size);

// The graph input "input" [batch, 3, 224, 224].
std::string ImageInput(GraphBuilder& g, int64_t batch_size);

// x · sigmoid(x), as ONNX spells torch.nn.SiLU.
std::string Silu(GraphBuilder& g, const std::string& x);

// [n, c, h, w] -> [n, c]: GlobalAveragePool, then the flatten timm's pooling head does.
std::string GlobalAvgPool(GraphBuilder& g, const std::string& x);

// x[start:end] along `axis` (non-negative indices).
std::string Slice(GraphBuilder& g, const std::string& x, int64_t axis, int64_t start, int64_t end);
std::string Concat(GraphBuilder& g, const std::vector<std::string>& xs, int64_t axis);

// x.select(axis, index): the slice at `index` with `axis` removed (torch's unbind / x[:, 0]).
std::string Select(GraphBuilder& g, const std::string& x, int64_t axis, int64_t index);

// torch.roll(x, shift, axis) for a static shape: ONNX has no Roll, so Slice + Concat.
std::string Roll(GraphBuilder& g, const std::string& x, int64_t shift, int64_t axis);

// timm's Mlp: Linear(dim -> hidden) -> GELU -> Linear(hidden -> dim), both with bias.
// `out_gain` scales the second layer, which writes into the residual stream.
std::string Mlp(GraphBuilder& g, const std::string& x, int64_t hidden, float out_gain);

// timm's Attention / WindowAttention on x [..., seq, dim]: qkv Linear (with bias), heads split
// as qkv.reshape(..., seq, 3, heads, head_dim).permute(...).unbind(0), one fused
// scaled-dot-product attention with the optional additive `bias` (broadcast against the scores
// [..., heads, seq, seq]), heads merged, output projection. Returns [..., seq, dim].
std::string MultiHeadAttention(GraphBuilder& g, const std::string& x, int64_t heads,
                               const std::string& bias = "");

// timm's LayerNorm2d on [n, c, h, w]: normalizes over c, done channels-last as
// permute -> LayerNorm -> permute back, which is what timm's LayerNorm2d computes.
std::string LayerNorm2d(GraphBuilder& g, const std::string& x, float eps);

}  // namespace ngraphbench::architectures
