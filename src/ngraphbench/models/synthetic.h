// The synthetic models of Table V (stacked blocks) and the single layers.
#pragma once

#include <cstdint>

#include "ngraphbench/graph/ir.h"
#include "ngraphbench/models/zoo.h"

namespace ngraphbench {

// depth × [Conv 3×3 (width→width, pad 1, no bias) → BatchNorm → ReLU]; input [b, width, 56, 56].
Graph BuildConvBlocks(const ModelSpec& spec, int64_t batch_size);
// depth × [multi-head self-attention → ReLU]; input [b, 197, width], heads = max(1, width/64).
Graph BuildMhaBlocks(const ModelSpec& spec, int64_t batch_size);
// One 3×3 convolution with bias, width→width, pad 1; input [b, width, 56, 56].
Graph BuildConv2d(const ModelSpec& spec, int64_t batch_size);
// One linear layer, in = out = width; input [b, width].
Graph BuildFullyConnected(const ModelSpec& spec, int64_t batch_size);
// One multi-head self-attention layer; input [b, 197, width], heads = max(1, width/64).
Graph BuildSelfAttention(const ModelSpec& spec, int64_t batch_size);

constexpr int64_t kConvSpatial = 56;
constexpr int64_t kSequenceLength = 197;  // ViT-B/16 at 224: 196 patches + class token
constexpr int64_t kHeadDim = 64;

}  // namespace ngraphbench
