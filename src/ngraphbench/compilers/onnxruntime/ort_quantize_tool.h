// ort_quantize.py, static QDQ quantization by ONNX Runtime's quantizer (docs/compilers.md,
// Quantization), as a QuantizeTool (quantize_common.h). The onnxruntime compiler quantizes with
// it, and so do the compilers that run the same QDQ model with another SDK: tvm (the same tool,
// hence the same cache entries, <cache_dir>/onnxruntime-int8/<key>/) and tensorrt (symmetric int8
// activations, entries of their own). Needs no ONNX Runtime API beyond the library's version.
#pragma once

#include <map>
#include <string>

#include "ngraphbench/compilers/quantize_common/quantize_common.h"

namespace ngraphbench::ort {

// The activations' quantization; the weights are int8, symmetric, one scale per output channel
// in both.
enum class QdqActivations {
  kUint8Asymmetric,  // uint8 with a scale and zero point per tensor: onnxruntime's and tvm's
  kInt8Symmetric,    // int8 with a zero point of 0: TensorRT takes symmetric int8 Q/DQ only
};

// The tool, run with the python of the onnxruntime wheel (NGRAPHBENCH_ORT_PYTHON overrides it)
// on ort_quantize.py (NGRAPHBENCH_ORT_QUANTIZE_SCRIPT). `ort_version`, part of the cache key, is
// ONNX Runtime's version: VersionString() (ort_common.h) where the library is loaded, else
// LibraryVersion().
QuantizeTool QdqTool(const std::string& ort_version, QdqActivations activations);

// What a row's settings say of a model QdqTool quantized: quantization (the scheme),
// calibration_batches, quantize_s (what quantizing took, when it was done), qdq_nodes,
// quantize_cache_hit and quantize_key (the entry's folder name).
std::map<std::string, std::string> QdqSettings(const QuantizedModel& model);

// ONNX Runtime's version ("1.32.0") read from its library ($NGRAPHBENCH_ORT_LIBRARY, else the
// one the build was configured with) through its C entry point, without initializing the C++
// API: for a module that does not run ONNX Runtime. Throws CompileError (naming `who`, the
// compiler) when the library does not load.
std::string LibraryVersion(const std::string& who);

}  // namespace ngraphbench::ort
