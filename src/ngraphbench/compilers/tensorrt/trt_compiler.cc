// The `tensorrt` compiler: NVIDIA TensorRT through ONNX Runtime's TensorRT execution provider.
// TensorRT's C++ headers are not published where this project gets its SDKs (PyPI, Debian), its
// libraries are (the tensorrt wheels): ONNX Runtime's provider parses the model with TensorRT's
// ONNX parser and builds one engine per subgraph TensorRT takes.
//
// The engine build is the compile step (compile_s). Engines are cached under
// <results>/.cache/tensorrt/<key>/, the key covering the model, the precision, the builder
// settings and the TensorRT and ONNX Runtime versions, like TVM's cache. Nodes TensorRT does not
// take run on the CUDA provider (or the CPU): the row's settings say how many, and such a run is
// marked invalid (Degraded), since it does not measure TensorRT alone.
//
// Precision int8 is TensorRT's explicit quantization: the model is quantized first, as the
// onnxruntime compiler quantizes it (ort_quantize_tool.h: static QDQ by ONNX Runtime's
// quantizer on the calibration set of core/tensor.h) but with symmetric int8 activations, the
// only Q/DQ TensorRT takes, cached in <cache>/onnxruntime-int8/<key>/; the provider then builds
// the engines from that model's Q/DQ scales. trt_int8_enable stays off: it is the implicit mode,
// which calibrates a float model from a calibration table.
#include <dlfcn.h>

#include <filesystem>
#include <optional>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/compilers/onnxruntime/ort_common.h"
#include "ngraphbench/compilers/onnxruntime/ort_quantize_tool.h"
#include "ngraphbench/compilers/quantize_common/quantize_common.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/core/random.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

constexpr const char* kProvider = "TensorrtExecutionProvider";

// TensorRT's version from the loaded libnvinfer ("10.13.3"), or empty where it is not loaded.
std::string TensorRtVersion() {
  using GetVersion = int32_t (*)();
  auto get = reinterpret_cast<GetVersion>(::dlsym(RTLD_DEFAULT, "getInferLibVersion"));
  if (!get) {
    for (const char* name : {"libnvinfer.so.10", "libnvinfer.so.8"}) {
      if (void* handle = ::dlopen(name, RTLD_LAZY | RTLD_NOLOAD)) {
        get = reinterpret_cast<GetVersion>(::dlsym(handle, "getInferLibVersion"));
        if (get) break;
      }
    }
  }
  if (!get) return {};
  const int32_t v = get();
  // TensorRT 10 encodes major * 10000 + minor * 100 + patch; TensorRT 8, major * 1000 + ...
  const int32_t major = v >= 10000 ? v / 10000 : v / 1000;
  const int32_t rest = v >= 10000 ? v % 10000 : v % 1000;
  return std::to_string(major) + "." + std::to_string(rest / 100) + "." +
         std::to_string(rest % 100);
}

class TrtExecutable : public Executable {
 public:
  explicit TrtExecutable(std::unique_ptr<ort::OrtExecutable> inner) : inner_(std::move(inner)) {}
  void SetInputs(const std::vector<HostTensor>& inputs) override { inner_->SetInputs(inputs); }
  void Run() override { inner_->Run(); }
  std::vector<HostTensor> GetOutputs() override { return inner_->GetOutputs(); }
  std::map<std::string, std::string> EffectiveSettings() const override {
    return inner_->EffectiveSettings();
  }
  // ONNX Runtime's profile, whose TensorRT engines are one kernel each (ort_profile.h).
  std::optional<KernelProfile> Profile(int runs) override { return inner_->Profile(runs); }
  std::vector<std::string> Degraded() const override {
    const ort::Placement& placement = inner_->placement();
    const int64_t outside = ort::NodesOutside(placement, kProvider);
    if (placement.empty()) {
      return {"tensorrt: ONNX Runtime did not log where the nodes run, so a fallback outside "
              "TensorRT cannot be ruled out"};
    }
    if (outside == 0) return {};
    return {"tensorrt: " + std::to_string(outside) +
            " node(s) fell back outside TensorRT (" + ort::FormatPlacement(placement) + ")"};
  }

 private:
  std::unique_ptr<ort::OrtExecutable> inner_;
};

class TrtCompiler : public Compiler {
 public:
  std::string Version() const override {
    ort::PreloadNvidiaWheels();
    const std::string trt = TensorRtVersion();
    return "TensorRT " + (trt.empty() ? std::string("(libraries not loaded)") : trt) +
           " via onnxruntime TensorRT EP (onnxruntime " + ort::VersionString() + ")";
  }

  std::string Unavailable(const CompilerConfig& config) const override {
    if (config.device != "cuda") return "tensorrt: device '" + config.device + "' is not cuda";
    return "tensorrt: " + ort::ProviderUnavailable(kProvider, "tensorrt");
  }

  std::unique_ptr<Executable> Compile(const CompileRequest& request) override {
    // No operator-table check: tensorrt has no column there (it is not verified on CI, which has
    // no GPU). The provider decides per node, and what it leaves to CUDA is counted (Degraded).
    const CompilerConfig& config = request.config;
    // First: where TensorRT cannot run, nothing is quantized either.
    if (const std::string why = Unavailable(config); !why.empty()) throw UnavailableError(why);
    if (request.onnx.empty() && request.onnx_path.empty()) {
      throw CompileError("tensorrt: needs the model as ONNX bytes or an ONNX file");
    }
    const bool fp16 = config.precision == "fp16";
    std::optional<QuantizeTool> tool;
    if (config.precision == "int8") {
      tool = ort::QdqTool(ort::VersionString(), ort::QdqActivations::kInt8Symmetric);
    }
    const ModelToCompile compiled(request, tool, scratch_, "quantized.onnx");
    const CompileRequest& model = compiled.request();
    const std::string workspace =
        std::to_string(config.options.Int("workspace_mb") * 1024 * 1024);
    const std::string level = std::to_string(config.options.Int("builder_optimization_level"));
    const bool use_cache = config.options.Bool("engine_cache") && !request.cache_dir.empty();

    // The cache entry: everything the engines depend on. ORT names the engine files inside by
    // its own hash of the model and the GPU's compute capability.
    const std::string model_key = model.onnx_path.empty() ? Fnv1a64Hex(model.onnx)
                                                          : FileDigest(model.onnx_path);
    const std::string key = Fnv1a64Hex("ngraphbench-tensorrt-v1\n" + ort::VersionString() +
                                       "\n" + TensorRtVersion() + "\n" + config.precision +
                                       "\n" + workspace + "\n" + level + "\n" + model_key);
    const fs::path entry = fs::path(request.cache_dir) / "tensorrt" / key;
    bool hit = false;
    if (use_cache) {
      std::error_code error;
      fs::create_directories(entry, error);
      if (error) {
        throw EnvironmentError("tensorrt: cannot create the engine cache " + entry.string() +
                               ": " + error.message());
      }
      hit = !fs::is_empty(entry, error);
    }

    ort::SessionSetup setup;
    setup.compiler = "tensorrt";
    setup.cuda = true;
    setup.log_placement = true;
    // By value: Profile() configures a second session with it after Compile() has returned
    // (which then loads the engines from the cache, or builds them again without one).
    setup.configure = [threads = config.threads, fp16, workspace, level, use_cache,
                       entry](Ort::SessionOptions& options) {
      options.SetIntraOpNumThreads(threads);
      options.SetInterOpNumThreads(1);
      options.SetGraphOptimizationLevel(ORT_ENABLE_ALL);
      const OrtApi& api = Ort::GetApi();
      OrtTensorRTProviderOptionsV2* trt = nullptr;
      Ort::ThrowOnError(api.CreateTensorRTProviderOptions(&trt));
      std::unique_ptr<OrtTensorRTProviderOptionsV2, void (*)(OrtTensorRTProviderOptionsV2*)>
          owned(trt, api.ReleaseTensorRTProviderOptions);
      std::map<std::string, std::string> values = {
          {"device_id", "0"},
          {"trt_fp16_enable", fp16 ? "1" : "0"},
          {"trt_int8_enable", "0"},  // int8: explicit, from the model's Q/DQ nodes
          {"trt_max_workspace_size", workspace},
          {"trt_builder_optimization_level", level},
          {"trt_engine_cache_enable", use_cache ? "1" : "0"},
          {"trt_timing_cache_enable", use_cache ? "1" : "0"}};
      if (use_cache) {
        values["trt_engine_cache_path"] = entry.string();
        values["trt_timing_cache_path"] = entry.string();
      }
      std::vector<const char*> keys, vals;
      for (const auto& [k, v] : values) {
        keys.push_back(k.c_str());
        vals.push_back(v.c_str());
      }
      Ort::ThrowOnError(api.UpdateTensorRTProviderOptions(trt, keys.data(), vals.data(),
                                                          keys.size()));
      options.AppendExecutionProvider_TensorRT_V2(*trt);
      // Nodes TensorRT does not take: on the GPU rather than the CPU, and counted (Degraded).
      ort::AppendCuda(options, {});
    };
    auto inner = ort::CreateExecutable(model, setup);
    auto& settings = inner->settings();
    if (const QuantizedModel* quantized = compiled.quantized()) {
      for (const auto& [k, v] : ort::QdqSettings(*quantized)) settings[k] = v;
      settings["int8_mode"] = "explicit_qdq";
    }
    settings["workspace_mb"] = config.options.String("workspace_mb");
    settings["builder_optimization_level"] = level;
    settings["engine_cache"] = use_cache ? (hit ? "hit" : "miss") : "off";
    if (use_cache) settings["cache_key"] = key;
    settings["fallback_nodes"] =
        std::to_string(ort::NodesOutside(inner->placement(), kProvider));
    return std::make_unique<TrtExecutable>(std::move(inner));
  }

 private:
  QuantizeScratch scratch_;  // uncached quantized models, read while the executables live
};

}  // namespace
}  // namespace ngraphbench

extern "C" ngraphbench::Compiler* NgraphbenchCreateCompiler() {
  return new ngraphbench::TrtCompiler();
}
