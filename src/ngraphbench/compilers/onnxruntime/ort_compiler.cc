// The `onnxruntime` compiler: ONNX Runtime through its C/C++ API, with the CPU execution
// provider (device cpu) or the CUDA execution provider (device cuda, onnxruntime-gpu).
//
// The library comes from the onnxruntime wheel and is loaded with dlopen (ort_common.h).
//
// Precision int8: the model is quantized first (static post-training quantization, QDQ, by
// ort_quantize.py in a helper process, on the calibration set of core/tensor.h:
// quantize_common/quantize_common.h), cached in <cache>/onnxruntime-int8/<key>/quantized.onnx,
// and that model is what the session runs.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "ngraphbench/compilers/compile_helper.h"
#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/compilers/onnxruntime/ort_common.h"
#include "ngraphbench/compilers/onnxruntime/ort_quantize_tool.h"
#include "ngraphbench/compilers/quantize_common/int8_census.h"
#include "ngraphbench/compilers/quantize_common/quantize_common.h"
#include "ngraphbench/core/error.h"

namespace ngraphbench {
namespace {

GraphOptimizationLevel OptLevel(const std::string& name) {
  if (name == "disable") return ORT_DISABLE_ALL;
  if (name == "basic") return ORT_ENABLE_BASIC;
  if (name == "extended") return ORT_ENABLE_EXTENDED;
  return ORT_ENABLE_ALL;
}

// Precision int8: what the session runs of the QDQ model at `opt_level`, from ort_quantize.py's
// census of its optimized graph in the quantizer's meta.json (int8_census.h), into the settings
// (int8_kernels, float_kernels, int8_ops_by_type, float_ops_by_type), and Degraded() when no
// convolution or matrix product is an integer kernel. int8_isa: the CPU's integer instruction
// sets, by which MLAS picks its integer kernels: what the CPU offers, not a trace of the kernel.
void AddInt8Census(const nlohmann::json& meta, const std::string& opt_level,
                   ort::OrtExecutable& executable) {
  auto& settings = executable.settings();
  settings["int8_isa"] = Int8Isa(HostCpuIdentity());
  const auto census = meta.find("optimized_ops");
  if (census == meta.end() || !census->is_object() || !census->contains(opt_level) ||
      !census->at(opt_level).is_object()) {
    const auto error = meta.find("optimized_ops_error");
    settings["int8_census_error"] =
        CensusError(error != meta.end() && error->is_string()
                        ? error->get<std::string>()
                        : "the quantizer's meta.json has no census of opt_level " + opt_level);
    return;
  }
  std::map<std::string, int64_t> op_types;
  for (const auto& [type, count] : census->at(opt_level).items()) {
    if (count.is_number_integer()) op_types[type] = count.get<int64_t>();
  }
  const Int8Census c = OrtInt8Census(op_types, opt_level);
  int64_t integer_ops = 0;
  for (const auto& [type, count] : c.int8_by_name) integer_ops += count;
  settings["int8_kernels"] = std::to_string(integer_ops);
  settings["float_kernels"] = std::to_string(c.float_compute);
  if (!c.int8_by_name.empty()) settings["int8_ops_by_type"] = FormatCounts(c.int8_by_name);
  if (!c.float_by_name.empty()) settings["float_ops_by_type"] = FormatCounts(c.float_by_name);
  if (!c.degraded.empty()) executable.degraded().push_back(c.degraded);
}

class OrtCompiler : public Compiler {
 public:
  std::string Version() const override { return "onnxruntime " + ort::VersionString(); }

  std::string Unavailable(const CompilerConfig& config) const override {
    if (config.device != "cuda") return {};
    return "onnxruntime: " + ort::ProviderUnavailable("CUDAExecutionProvider", "cuda");
  }

  std::unique_ptr<Executable> Compile(const CompileRequest& request) override {
    ort::Load();
    const CompilerConfig& config = request.config;
    const bool int8 = config.precision == "int8";
    if (config.precision != "fp32" && !int8) {
      throw CompileError("onnxruntime: precision '" + config.precision +
                         "' is not supported; use fp32 or int8");
    }
    if (const std::string why = Unavailable(config); !why.empty()) throw UnavailableError(why);
    const bool cuda = config.device == "cuda";
    if (int8 && cuda) {
      throw CompileError("onnxruntime: precision int8 runs on device cpu only (the CUDA "
                         "provider's QDQ kernels are not measured here); use device cpu");
    }
    const bool parallel = config.options.String("execution_mode") == "parallel";
    ort::SessionSetup setup;
    setup.compiler = "onnxruntime";
    setup.cuda = cuda;
    // On the GPU, which nodes ORT leaves to the CPU is part of the result. On the CPU it is
    // asked for by NGRAPHBENCH_ORT_LOG_PLACEMENT=1 only (a diagnostic, used by the tests).
    const char* env = std::getenv("NGRAPHBENCH_ORT_LOG_PLACEMENT");
    setup.log_placement = cuda || (env && std::string(env) == "1");
    // With an inter-op pool too (inter_op_threads 0 = ORT picks its size), the new threads
    // cannot be told apart from the intra-op pool's.
    setup.inter_op_pool = parallel && config.options.Int("inter_op_threads") != 1;
    // Offline: the cores split between the streams, as the session's intra-op pool of
    // threads / streams; `auto` is one stream per thread (ONNX Runtime has no choice of its own).
    const int64_t streams = !request.offline       ? 1
                            : request.streams > 0  ? request.streams
                                                   : std::max(1, config.threads);
    const int intra_op_threads =
        static_cast<int>(std::max<int64_t>(1, config.threads / streams));
    if (request.offline && parallel) {
      throw CompileError("onnxruntime: execution_mode parallel starts an inter-op pool that the "
                         "offline streams would share unseen; use execution_mode sequential with "
                         "scenario offline");
    }
    // By value: Profile() configures a second session with it after Compile() has returned.
    setup.configure = [config, cuda, parallel, intra_op_threads](Ort::SessionOptions& options) {
      options.SetIntraOpNumThreads(intra_op_threads);
      options.SetInterOpNumThreads(static_cast<int>(config.options.Int("inter_op_threads")));
      options.SetGraphOptimizationLevel(OptLevel(config.opt_level));
      options.SetExecutionMode(parallel ? ORT_PARALLEL : ORT_SEQUENTIAL);
      if (cuda) {
        ort::AppendCuda(options, {});  // ORT's defaults (cuDNN's exhaustive algorithm search)
      }
    };
    std::optional<QuantizeTool> tool;
    if (int8) tool = ort::QdqTool(ort::VersionString(), ort::QdqActivations::kUint8Asymmetric);
    const ModelToCompile model(request, tool, scratch_, "quantized.onnx");
    auto executable = ort::CreateExecutable(model.request(), setup);
    auto& settings = executable->settings();
    if (const QuantizedModel* quantized = model.quantized()) {
      for (const auto& [key, value] : ort::QdqSettings(*quantized)) settings[key] = value;
      AddInt8Census(quantized->meta, config.opt_level, *executable);
    }
    settings["inter_op_threads"] = config.options.String("inter_op_threads");
    settings["graph_optimization_level"] = config.opt_level;
    settings["execution_mode"] = config.options.String("execution_mode");
    if (request.offline) executable->ServeStreams(streams);
    return executable;
  }

 private:
  QuantizeScratch scratch_;  // uncached quantized models, read while the executables live
};

}  // namespace
}  // namespace ngraphbench

extern "C" ngraphbench::Compiler* NgraphbenchCreateCompiler() {
  return new ngraphbench::OrtCompiler();
}
