// IR <-> ONNX (opset 17) through Debian's libonnx. This header exposes IR types only, so that
// LibTorch translation units can include it without meeting ONNX's protobuf headers.
#pragma once

#include <cstdint>
#include <string>

#include "ngraphbench/graph/ir.h"

namespace ngraphbench {

constexpr int64_t kOnnxOpset = 17;

// Initializer bytes (float32 as 4, int64 as 8, all together) above which a model is no longer
// handed over as one serialized ModelProto but as a file with its weights in external data:
// protobuf refuses to serialize or parse more than 2 GiB, and the margin leaves room for the
// nodes, the small constants and weights the export transposes (Linear on rank > 2 inputs).
constexpr uint64_t kOnnxInlineLimitBytes = uint64_t{3} << 29;  // 1.5 GiB

// Initializers at least this large go to the external data file; smaller ones (shape and axes
// constants among them, whose values shape inference reads) stay inside the .onnx file.
constexpr uint64_t kOnnxExternalMinBytes = 1024;

// Offsets of the tensors in the external data file are multiples of this, so that runtimes can
// map them from the file instead of copying them (a page, and ONNX Runtime's mmap granularity).
constexpr uint64_t kOnnxExternalAlignment = 4096;

// The bytes of `graph`'s initializers, as ExportOnnx would store them.
uint64_t InitializerBytes(const Graph& graph);
// Whether `graph` must be exported with external data (InitializerBytes over the limit).
inline bool OnnxNeedsExternalData(const Graph& graph) {
  return InitializerBytes(graph) > kOnnxInlineLimitBytes;
}

// Serialized ModelProto of `graph`, with the IR's single-kernel ops (Linear,
// ScaledDotProductAttention, Gelu) lowered to standard opset-17 ops. The result has passed the
// ONNX checker and strict shape inference; a failure there is a bug (std::logic_error), and so is
// a graph that OnnxNeedsExternalData (write it with ExportOnnxFile).
std::string ExportOnnx(const Graph& graph);

// Writes ExportOnnx's model to `path`. When OnnxNeedsExternalData(graph), or when
// `force_external_data` (tests), every initializer of at least kOnnxExternalMinBytes is stored
// as ONNX external data (data_location EXTERNAL; location, offset, length) in the side file
// OnnxDataPath(path), its offsets aligned to kOnnxExternalAlignment; the weights are written
// there straight from the IR, never gathered into one protobuf. The written file then passes the
// ONNX checker (which finds the side file from the model's folder, without reading it) and
// strict shape inference. Returns the side file's path, or "" when everything is inside `path`.
// Throws InputError when a file cannot be written.
std::string ExportOnnxFile(const Graph& graph, const std::string& path,
                           bool force_external_data = false);
// The external data file ExportOnnxFile writes beside `path`: `<path>.data`.
std::string OnnxDataPath(const std::string& path);

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
