#include "ngraphbench/compilers/onnxruntime/ort_quantize_tool.h"

#include <dlfcn.h>
#include <onnxruntime_c_api.h>

#include <cstdlib>

#include "ngraphbench/compilers/compile_helper.h"
#include "ngraphbench/core/error.h"

namespace ngraphbench::ort {

std::string LibraryVersion(const std::string& who) {
  static const std::string version = [] {
    const char* env = std::getenv("NGRAPHBENCH_ORT_LIBRARY");
    const std::string path = env && *env ? env : NGB_ORT_LIBRARY;
    // Kept loaded: a library is not unloaded while a process may still call into it.
    void* handle = ::dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (!handle) return "error: cannot load " + path + ": " + ::dlerror();
    using GetBase = const OrtApiBase* (*)();
    auto get_base = reinterpret_cast<GetBase>(::dlsym(handle, "OrtGetApiBase"));
    if (!get_base) return "error: " + path + " has no OrtGetApiBase";
    return std::string(get_base()->GetVersionString());
  }();
  if (version.rfind("error: ", 0) == 0) {
    throw CompileError(who + ": ONNX Runtime's quantizer: " + version.substr(7) +
                       " (run ./setup.sh, or set NGRAPHBENCH_ORT_LIBRARY)");
  }
  return version;
}

QuantizeTool QdqTool(const std::string& ort_version, QdqActivations activations) {
  QuantizeTool tool;
  // The cache's folder is onnxruntime-int8 whoever quantizes: the entries are the same models.
  tool.who = "onnxruntime";
  tool.python = EnvOr("NGRAPHBENCH_ORT_PYTHON", NGB_ORT_PYTHON);
  tool.script = EnvOr("NGRAPHBENCH_ORT_QUANTIZE_SCRIPT", NGB_ORT_QUANTIZE_SCRIPT);
  tool.fix = "set NGRAPHBENCH_ORT_PYTHON to a python with the onnxruntime wheel "
             "(onnxruntime.quantization) and onnx";
  tool.sdk_version = ort_version;
  tool.outputs = {"quantized.onnx"};
  if (activations == QdqActivations::kInt8Symmetric) {
    tool.args = {"--activations", "int8_symmetric"};
  }
  return tool;
}

std::map<std::string, std::string> QdqSettings(const QuantizedModel& model) {
  const nlohmann::json& meta = model.meta;
  return {{"quantization", meta.value("scheme", "unknown")},
          {"calibration_batches", std::to_string(meta.value("calibration_batches", 0))},
          {"quantize_s", std::to_string(meta.value("quantize_s", 0.0))},
          {"qdq_nodes", std::to_string(meta.value("quantize_linear", 0) +
                                       meta.value("dequantize_linear", 0))},
          {"quantize_cache_hit", model.cache_hit ? "true" : "false"},
          {"quantize_key", model.key}};
}

}  // namespace ngraphbench::ort
