// The `onnxruntime` compiler: ONNX Runtime's CPU execution provider through its C/C++ API.
//
// The library comes from the onnxruntime wheel and is loaded with dlopen (no link-time
// dependency); the headers may be older than the library, which is fine because we ask for the
// API version of our headers (GetApi(ORT_API_VERSION)).
#define ORT_API_MANUAL_INIT
#include <dlfcn.h>
#include <onnxruntime_cxx_api.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/graph/ops.h"

namespace ngraphbench {
namespace {

const OrtApiBase* LoadOrt() {
  static const OrtApiBase* base = [] {
    const char* env = std::getenv("NGRAPHBENCH_ORT_LIBRARY");
    const std::string path = env && *env ? env : NGB_ORT_LIBRARY;
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      throw CompileError("onnxruntime: cannot load " + path + ": " + ::dlerror() +
                         " (run ./setup.sh, or set NGRAPHBENCH_ORT_LIBRARY)");
    }
    using GetBase = const OrtApiBase* (*)();
    auto get_base = reinterpret_cast<GetBase>(::dlsym(handle, "OrtGetApiBase"));
    if (!get_base) throw CompileError("onnxruntime: " + path + " lacks OrtGetApiBase");
    const OrtApiBase* b = get_base();
    const OrtApi* api = b->GetApi(ORT_API_VERSION);
    if (!api) {
      throw CompileError(std::string("onnxruntime: library ") + b->GetVersionString() +
                         " does not provide API version " + std::to_string(ORT_API_VERSION));
    }
    Ort::InitApi(api);
    return b;
  }();
  return base;
}

// The ids of this process's threads, or nothing where /proc cannot be read.
std::optional<std::set<std::string>> ThreadIds() {
  std::error_code error;
  std::set<std::string> ids;
  for (std::filesystem::directory_iterator it("/proc/self/task", error), end; !error && it != end;
       it.increment(error)) {
    ids.insert(it->path().filename());
  }
  if (error) return std::nullopt;
  return ids;
}

GraphOptimizationLevel OptLevel(const std::string& name) {
  if (name == "disable") return ORT_DISABLE_ALL;
  if (name == "basic") return ORT_ENABLE_BASIC;
  if (name == "extended") return ORT_ENABLE_EXTENDED;
  return ORT_ENABLE_ALL;
}

class OrtExecutable : public Executable {
 public:
  OrtExecutable(Ort::Env& env, const CompileRequest& request) {
    const CompilerConfig& config = request.config;
    Ort::SessionOptions options;
    options.SetIntraOpNumThreads(config.threads);
    options.SetInterOpNumThreads(static_cast<int>(config.options.Int("inter_op_threads")));
    options.SetGraphOptimizationLevel(OptLevel(config.opt_level));
    options.SetExecutionMode(config.options.String("execution_mode") == "parallel"
                                 ? ORT_PARALLEL
                                 : ORT_SEQUENTIAL);
    // ORT has no getter for its pool sizes, so they are observed: creating the session starts
    // the intra-op pool of N (N - 1 worker threads; the thread calling Run() is the N-th) and,
    // in parallel mode, the inter-op pool of M (M - 1 more). Nothing else in a worker starts
    // threads meanwhile.
    const auto before = ThreadIds();
    // A model given by path: ORT reads its external data relative to the model's folder (from
    // bytes it would have no folder to look in).
    session_ = request.onnx_path.empty()
                   ? std::make_unique<Ort::Session>(env, request.onnx.data(), request.onnx.size(),
                                                    options)
                   : std::make_unique<Ort::Session>(env, request.onnx_path.c_str(), options);
    const auto after = ThreadIds();
    settings_ = {{"inter_op_threads", config.options.String("inter_op_threads")},
                 {"graph_optimization_level", config.opt_level},
                 {"execution_mode", config.options.String("execution_mode")}};
    if (before && after) {
      const auto started = std::count_if(after->begin(), after->end(),
                                         [&](const auto& id) { return before->count(id) == 0; });
      settings_["threads_started"] = std::to_string(started);
      // With an inter-op pool too (inter_op_threads 0 = ORT picks its size), the new threads
      // cannot be told apart: no "threads" then, and the row keeps the configured value.
      const bool inter_op_pool = config.options.String("execution_mode") == "parallel" &&
                                 config.options.Int("inter_op_threads") != 1;
      if (!inter_op_pool) settings_["threads"] = std::to_string(started + 1);
    }

    // Inputs and outputs are bound once to buffers we own: Run() allocates nothing.
    auto memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
    for (const auto& spec : request.graph.inputs) Bind(spec, memory, inputs_);
    for (const auto& spec : request.graph.outputs) Bind(spec, memory, outputs_);
    for (const auto& b : inputs_) input_names_.push_back(b.name.c_str());
    for (const auto& b : outputs_) output_names_.push_back(b.name.c_str());
    for (auto& b : inputs_) input_values_.push_back(std::move(b.value));
    for (auto& b : outputs_) output_values_.push_back(std::move(b.value));
  }

  void SetInputs(const std::vector<HostTensor>& inputs) override {
    for (size_t i = 0; i < inputs_.size(); ++i) {
      std::copy(inputs.at(i).data.begin(), inputs.at(i).data.end(), inputs_[i].buffer.begin());
    }
  }

  // A failure inside ORT's kernels (Ort::Exception) is the compiler refusing the model at run
  // time: an `error` row naming it, not a crashed worker.
  void Run() override {
    try {
      session_->Run(run_options_, input_names_.data(), input_values_.data(), input_values_.size(),
                    output_names_.data(), output_values_.data(), output_values_.size());
    } catch (const Ort::Exception& e) {
      throw CompileError(std::string("onnxruntime: running the model failed: ") + e.what());
    }
  }

  std::vector<HostTensor> GetOutputs() override {
    std::vector<HostTensor> out;
    for (const auto& b : outputs_) out.push_back({b.shape, b.buffer});
    return out;
  }

  std::map<std::string, std::string> EffectiveSettings() const override { return settings_; }

 private:
  struct Binding {
    std::string name;
    Shape shape;
    std::vector<float> buffer;
    Ort::Value value{nullptr};
  };

  static void Bind(const TensorSpec& spec, const Ort::MemoryInfo& memory,
                   std::vector<Binding>& into) {
    into.push_back({spec.name, spec.shape,
                    std::vector<float>(static_cast<size_t>(NumElements(spec.shape)))});
    Binding& b = into.back();
    b.value = Ort::Value::CreateTensor<float>(memory, b.buffer.data(), b.buffer.size(),
                                              b.shape.data(), b.shape.size());
  }

  std::unique_ptr<Ort::Session> session_;
  Ort::RunOptions run_options_;
  std::vector<Binding> inputs_, outputs_;
  std::vector<const char*> input_names_, output_names_;
  std::vector<Ort::Value> input_values_, output_values_;
  std::map<std::string, std::string> settings_;
};

class OrtCompiler : public Compiler {
 public:
  std::string Version() const override {
    return std::string("onnxruntime ") + LoadOrt()->GetVersionString();
  }

  std::unique_ptr<Executable> Compile(const CompileRequest& request) override {
    // Every operator ONNX Runtime does not run, named at once, before the SDK names the first.
    CheckCompilerSupports(request.graph, "onnxruntime");
    LoadOrt();
    if (request.config.precision != "fp32") {
      throw CompileError("onnxruntime: precision '" + request.config.precision +
                         "' is not supported; use fp32");
    }
    static Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "ngraphbench");
    try {
      return std::make_unique<OrtExecutable>(env, request);
    } catch (const Ort::Exception& e) {
      throw CompileError(std::string("onnxruntime: ") + e.what());
    }
  }
};

}  // namespace
}  // namespace ngraphbench

extern "C" ngraphbench::Compiler* NgraphbenchCreateCompiler() {
  return new ngraphbench::OrtCompiler();
}
