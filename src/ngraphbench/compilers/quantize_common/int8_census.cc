#include "ngraphbench/compilers/quantize_common/int8_census.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

namespace ngraphbench {
namespace {

bool StartsWith(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// "its 12 convolutions and matrix products run in float (Conv:10 Gemm:2)".
std::string FloatPart(const Int8Census& census) {
  if (census.float_compute == 0) return "it has no convolution or matrix product at all";
  const std::string what = census.float_compute == 1
                               ? " convolution or matrix product runs"
                               : " convolutions and matrix products run";
  return "its " + std::to_string(census.float_compute) + what + " in float (" +
         FormatCounts(census.float_by_name) + ")";
}

}  // namespace

std::string FormatCounts(const std::map<std::string, int64_t>& counts) {
  std::string out;
  for (const auto& [name, count] : counts) {
    std::string safe = name;
    std::replace_if(
        safe.begin(), safe.end(),
        [](char c) { return c == ';' || c == '=' || c == ':' || c == ' ' || c == '\n'; }, '_');
    out += (out.empty() ? "" : " ") + safe + ":" + std::to_string(count);
  }
  return out;
}

std::string CensusError(std::string why) {
  std::replace(why.begin(), why.end(), ';', ',');
  std::replace(why.begin(), why.end(), '=', ':');
  std::replace(why.begin(), why.end(), '\n', ' ');
  return why.substr(0, 200);
}

Int8Census OrtInt8Census(const std::map<std::string, int64_t>& op_types,
                         const std::string& opt_level) {
  static const std::set<std::string> kIntegerCompute = {
      "QLinearConv", "QLinearConvTranspose", "ConvInteger", "QLinearMatMul", "MatMulInteger",
      "MatMulIntegerToFloat", "QGemm", "DynamicQuantizeMatMul", "QAttention", "QOrderedMatMul",
      "QOrderedAttention"};
  static const std::set<std::string> kIntegerOther = {"QEmbedLayerNormalization",
                                                      "ReduceSumInteger"};
  // The NCHWc layout's convolution keeps the op type Conv (in a domain of its own).
  static const std::set<std::string> kFloatCompute = {
      "Conv", "ConvTranspose", "MatMul", "Gemm", "FusedConv", "FusedMatMul", "FusedGemm",
      "NhwcConv", "NhwcFusedConv", "TransposeMatMul"};
  Int8Census census;
  for (const auto& [type, count] : op_types) {
    if (count <= 0) continue;
    if (kIntegerCompute.count(type) != 0) {
      census.int8_compute += count;
      census.int8_by_name[type] += count;
    } else if (kIntegerOther.count(type) != 0 || StartsWith(type, "QLinear") ||
               StartsWith(type, "QOrdered")) {
      census.int8_by_name[type] += count;
    } else if (kFloatCompute.count(type) != 0) {
      census.float_compute += count;
      census.float_by_name[type] += count;
    }
  }
  if (census.int8_compute == 0) {
    census.degraded = "onnxruntime: the int8 session's optimized graph (graph optimization level " +
                      opt_level + ") has no integer convolution or matrix product (QLinearConv, "
                      "MatMulInteger, QGemm, ...): " + FloatPart(census);
    if (opt_level == "disable" || opt_level == "basic") {
      census.degraded += "; ONNX Runtime fuses the QDQ pairs into integer kernels at opt_level "
                         "extended and all";
    }
  }
  return census;
}

Int8Census OpenVinoInt8Census(const std::vector<ExecutedLayer>& layers) {
  static const std::set<std::string> kCompute = {"Convolution", "GroupConvolution",
                                                 "Deconvolution", "FullyConnected", "MatMul"};
  Int8Census census;
  for (const ExecutedLayer& layer : layers) {
    if (kCompute.count(layer.type) == 0) continue;
    const std::string precision = Lower(layer.precision);
    const std::string name = layer.primitive.empty() ? layer.type + "/unknown" : layer.primitive;
    if (precision == "i8" || precision == "u8") {
      ++census.int8_compute;
      ++census.int8_by_name[name];
    } else {
      ++census.float_compute;
      ++census.float_by_name[name];
    }
  }
  if (census.int8_compute == 0) {
    census.degraded = "openvino: the int8 model's execution graph runs no convolution or matrix "
                      "product in integer (runtime precision i8/u8): " + FloatPart(census);
  }
  return census;
}

std::string Int8Isa(const std::string& cpu_words) {
  std::set<std::string> words;
  std::istringstream in(cpu_words);
  for (std::string word; in >> word;) words.insert(word);
  std::string picked;
  for (const char* isa : {"avx2", "avx512bw", "avx512_vnni", "avx_vnni", "amx_int8", "asimddp",
                          "i8mm", "svei8mm"}) {
    if (words.count(isa) != 0) picked += (picked.empty() ? "" : " ") + std::string(isa);
  }
  return picked.empty() ? "none" : picked;
}

}  // namespace ngraphbench
