// The kernels a fusing compiler makes of a graph, as far as their number and identity go: what
// an auto-tuner that tunes each distinct fused kernel once (TVM's MetaSchedule over Relax's
// FuseOps, with its database keyed by the kernel's structure) has to tune.
//
// The grouping follows Relax's fusion patterns, simplified:
//   - an anchor (Conv, ConvTranspose, Linear, MatMul, Gemm) starts a kernel and takes the
//     elementwise ops after it (bias, activation, residual Add, Gelu);
//   - an inference BatchNormalization after an anchor joins it (decomposed into elementwise
//     ops) and closes it: the ops after it form a kernel of their own (conv + BN | ReLU);
//   - a reduction (Softmax, the normalizations, pooling, Reduce*) is a kernel, and takes the
//     elementwise ops after it;
//   - layout ops (Reshape, Transpose, Concat, Gather, Slice, ...) chain into one kernel, which
//     takes elementwise ops after it; after any other kernel they start a new one;
//   - ScaledDotProductAttention is three kernels (Q·Kᵀ·scale, softmax, ·V), its Kᵀ a layout op;
//   - an elementwise op whose input comes from no open kernel (a graph input, a closed kernel)
//     starts one; ops of constants only are folded away.
// Against the tasks TVM extracts from the models' ONNX exports at batch 1: resnet18 24 (24),
// resnet50 39 (39), deit_tiny and deit_small 18 (18), convnext_tiny 38 (38), the synthetic blocks
// exactly (conv2d 1, linear 1, Conv-BN-ReLU 2, self-attention 7, MHA 8); efficientnet_b0 86 (79)
// and swin_tiny 110 (82) are over-counted.
#pragma once

#include <cstdint>
#include <vector>

#include "ngraphbench/graph/ir.h"

namespace ngraphbench {

// One 64-bit key per distinct kernel of `graph` (its ops, their input shapes and attributes),
// sorted: two graphs with a kernel in common share its key.
std::vector<uint64_t> DistinctKernels(const Graph& graph);

}  // namespace ngraphbench
