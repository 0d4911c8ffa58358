// What an int8 build's convolutions and matrix products run as, by the SDK's own account: ONNX
// Runtime's optimized graph (the op types its session runs, counted by ort_quantize.py) and
// OpenVINO's execution graph (each layer's runtime precision and implementation). A "quantized"
// model whose compute layers all run in float is no int8 measurement: the census says why, and
// the compiler reports it as Degraded() (docs/compilers.md, Quantization). No SDK: the census is
// a function of what the SDK reported, tested on every build.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ngraphbench {

struct Int8Census {
  // Convolutions and matrix products (ONNX Runtime: op types such as QLinearConv, MatMulInteger,
  // QGemm; OpenVINO: Convolution, FullyConnected, MatMul layers) in integer and in float.
  int64_t int8_compute = 0;
  int64_t float_compute = 0;
  // What the settings list by name: ONNX Runtime's every integer op by type (QLinearAdd and the
  // like too) and its float compute ops by type; OpenVINO's compute layers' implementations
  // ("brgconv_avx512_amx_I8") by precision.
  std::map<std::string, int64_t> int8_by_name;
  std::map<std::string, int64_t> float_by_name;
  // Why the build is not an int8 one (no convolution or matrix product runs in integer), or
  // empty when at least one does.
  std::string degraded;
};

// "name:count name:count" in name order: a list as compiler_settings ("k=v;k=v") holds one, with
// any ';', '=', ':' or space of a name replaced by '_'. Empty for no entries.
std::string FormatCounts(const std::map<std::string, int64_t>& counts);

// Why a census could not be taken, as a compiler_settings value (`int8_census_error`): ';' and
// '=' become ',' and ':', newlines spaces, and at most 200 bytes are kept. A build without a
// census is not degraded for it: what it ran is unknown, not float.
std::string CensusError(std::string why);

// ONNX Runtime: the op types of the session's optimized graph with their counts, at the run's
// graph optimization level `opt_level` (named in the degraded reason). Integer ops: QLinear*,
// *Integer* (ConvInteger, MatMulInteger, MatMulIntegerToFloat), QGemm, QAttention, QOrdered*,
// DynamicQuantizeMatMul, QEmbedLayerNormalization; of those, the convolutions and matrix products
// count as compute. Float compute: Conv, ConvTranspose, MatMul, Gemm and the fused or re-laid-out
// forms ORT writes for them (FusedConv, FusedMatMul, FusedGemm, NhwcConv, NhwcFusedConv,
// TransposeMatMul). Quantize and dequantize ops are neither.
Int8Census OrtInt8Census(const std::map<std::string, int64_t>& op_types,
                         const std::string& opt_level);

// One layer of OpenVINO's execution graph (CompiledModel::get_runtime_model()), from its rt_info.
struct ExecutedLayer {
  std::string type;       // "layerType": "Convolution", "FullyConnected", "Eltwise", ...
  std::string precision;  // "runtimePrecision": "u8", "i8", "f32", ... (any case)
  std::string primitive;  // "primitiveType": "brgconv_avx512_amx_I8", "jit_avx512_FP32", ...
};

// OpenVINO: the compute layers (Convolution, GroupConvolution, Deconvolution, FullyConnected,
// MatMul) by runtime precision, i8/u8 as integer and the rest as float, listed by primitive.
Int8Census OpenVinoInt8Census(const std::vector<ExecutedLayer>& layers);

// The integer instruction sets among the whole words of `cpu_words` (the CPU's flags or
// Features line, as HostCpuIdentity gives it): x86's avx2, avx512bw, avx512_vnni, avx_vnni,
// amx_int8 and aarch64's asimddp, i8mm, svei8mm, in that order and space-separated, "none" when
// there is none. What the CPU offers the SDK's integer kernels, not which one they picked.
std::string Int8Isa(const std::string& cpu_words);

}  // namespace ngraphbench
