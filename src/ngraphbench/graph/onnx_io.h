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
// input; computations on constants and static shapes are then folded (onnx_fold.h), so that
// every value gets a static shape. IR versions 9+ and opsets 18-28 are normalized to IR 8 /
// opset 17 (onnx_compat.h). Tensors stored outside the file (data_location EXTERNAL) are read
// from `model_dir`, the folder of the .onnx file, and only from inside it; with an empty
// `model_dir` they are refused. Throws InputError naming `source` and the problem (unparsable
// bytes, checker failure, unsupported data type, dynamic shape, a bad external location, ...).
Graph ImportOnnx(const std::string& bytes, const std::string& source, int64_t batch_size = 0,
                 const std::string& model_dir = "");
// Reads `path` (at most 2 GiB; larger models keep their weights in external data files, which
// may be of any size) and imports it with its own folder as `model_dir`.
Graph ImportOnnxFile(const std::string& path, int64_t batch_size = 0);

// The `notes` entry of a result row for an imported .onnx file: its `params` is the weight count
// of the file (ImportOnnx marks the file's float32 initializers that a kept node reads, each
// once, as parameters), not necessarily the framework's parameter count.
constexpr const char* kOnnxParamsNote =
    "params: the weight count of the ONNX file (its float32 initializers, each once), which may "
    "differ from the framework's count after export-time folding or weight sharing";

// The fixed batch size (first dimension of the first input) of an ONNX file, or 0 when that
// dimension is dynamic. Throws InputError like ImportOnnx for a file that is not ONNX.
int64_t OnnxFixedBatchSize(const std::string& path);

}  // namespace ngraphbench
