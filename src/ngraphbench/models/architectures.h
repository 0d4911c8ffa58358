// The architectures of Table IV: ResNet, EfficientNet, DeiT, Swin and ConvNeXt at three sizes
// each, built as IR graphs that match timm's definitions (pinned timm 1.0.31) layer for layer:
// the same parameter count, exactly, and the same multiply-accumulates within 1%.
//
// Every model takes one input "input" [batch, 3, 224, 224] and returns logits [batch, 1000].
// Weights come from the builder's generator seeded by the model name; they are not timm's
// trained weights (python/export_timm.py writes timm's own definitions to ONNX for that).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ngraphbench/graph/ir.h"
#include "ngraphbench/models/zoo.h"

namespace ngraphbench {

// The timm model names this family builds, in Table IV order.
const std::vector<std::string>& ArchitectureNames();

// Builds spec.variant (or spec.name when variant is empty), one of ArchitectureNames().
// Throws InputError naming the known models for any other name.
Graph BuildArchitecture(const ModelSpec& spec, int64_t batch_size);

}  // namespace ngraphbench
