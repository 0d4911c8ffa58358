// IR <-> ONNX (opset 17) through Debian's libonnx. This header exposes IR types only, so that
// LibTorch translation units can include it without meeting ONNX's protobuf headers.
#pragma once

#include <cstdint>
#include <string>

#include "ngraphbench/graph/ir.h"

namespace ngraphbench {

constexpr int64_t kOnnxOpset = 17;

// Serialized ModelProto of `graph`, with the IR's single-kernel ops (Linear,
// ScaledDotProductAttention, Gelu) lowered to standard opset-17 ops. The result has passed the
// ONNX checker and strict shape inference; a failure there is a bug (std::logic_error).
std::string ExportOnnx(const Graph& graph);
void ExportOnnxFile(const Graph& graph, const std::string& path);

// Parses, checks and imports an ONNX model. `batch_size` > 0 sets the first dimension of every
// input. Every value must get a static shape. Throws InputError naming `source` and the problem
// (unparsable bytes, checker failure, unsupported data type, dynamic shape, ...).
Graph ImportOnnx(const std::string& bytes, const std::string& source, int64_t batch_size = 0);
Graph ImportOnnxFile(const std::string& path, int64_t batch_size = 0);

// The fixed batch size (first dimension of the first input) of an ONNX file, or 0 when that
// dimension is dynamic. Throws InputError like ImportOnnx for a file that is not ONNX.
int64_t OnnxFixedBatchSize(const std::string& path);

}  // namespace ngraphbench
