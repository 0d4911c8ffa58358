#include "ngraphbench/compilers/onnxruntime/ort_common.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <optional>
#include <set>

#include "ngraphbench/compilers/onnxruntime/ort_profile.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/core/process.h"

namespace ngraphbench::ort {
namespace {

namespace fs = std::filesystem;

std::string LibraryPath() {
  const char* env = std::getenv("NGRAPHBENCH_ORT_LIBRARY");
  return env && *env ? env : NGB_ORT_LIBRARY;
}

// The ids of this process's threads, or nothing where /proc cannot be read.
std::optional<std::set<std::string>> ThreadIds() {
  std::error_code error;
  std::set<std::string> ids;
  for (fs::directory_iterator it("/proc/self/task", error), end; !error && it != end;
       it.increment(error)) {
    ids.insert(it->path().filename());
  }
  if (error) return std::nullopt;
  return ids;
}

// ORT's log: one sink for every session of the process.
std::mutex g_log_mutex;
Placement* g_placement = nullptr;  // set while a session that logs its placement is created

void LogSink(void*, OrtLoggingLevel severity, const char* category, const char*,
             const char* code_location, const char* message) {
  std::lock_guard<std::mutex> lock(g_log_mutex);
  if (g_placement && ParsePlacementMessage(message, *g_placement)) return;
  if (severity >= ORT_LOGGING_LEVEL_WARNING) {
    std::cerr << "onnxruntime [" << (severity >= ORT_LOGGING_LEVEL_ERROR ? "E" : "W") << ":"
              << category << ", " << code_location << "] " << message << "\n";
  }
}

// The CUDA runtime the GPU providers loaded (its soname differs by CUDA major version): device
// buffers and the copies between them and the host, outside the timed Run().
struct CudaRuntime {
  int (*malloc)(void**, size_t) = nullptr;
  int (*free)(void*) = nullptr;
  int (*memcpy)(void*, const void*, size_t, int) = nullptr;
  int (*synchronize)() = nullptr;
  const char* (*error_string)(int) = nullptr;
  static constexpr int kHostToDevice = 1;
  static constexpr int kDeviceToHost = 2;

  static const CudaRuntime& Get() {
    static const CudaRuntime runtime = [] {
      CudaRuntime r;
      void* handle = nullptr;
      for (int flags : {RTLD_NOW | RTLD_NOLOAD, RTLD_NOW}) {
        for (const char* name : {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"}) {
          if ((handle = ::dlopen(name, flags))) break;
        }
        if (handle) break;
      }
      if (!handle) {
        throw CompileError("onnxruntime: the CUDA runtime (libcudart.so.13/.12) is not loaded");
      }
      r.malloc = reinterpret_cast<decltype(r.malloc)>(::dlsym(handle, "cudaMalloc"));
      r.free = reinterpret_cast<decltype(r.free)>(::dlsym(handle, "cudaFree"));
      r.memcpy = reinterpret_cast<decltype(r.memcpy)>(::dlsym(handle, "cudaMemcpy"));
      r.synchronize =
          reinterpret_cast<decltype(r.synchronize)>(::dlsym(handle, "cudaDeviceSynchronize"));
      r.error_string =
          reinterpret_cast<decltype(r.error_string)>(::dlsym(handle, "cudaGetErrorString"));
      if (!r.malloc || !r.free || !r.memcpy || !r.synchronize || !r.error_string) {
        throw CompileError("onnxruntime: the loaded CUDA runtime lacks cudaMalloc/cudaMemcpy");
      }
      return r;
    }();
    return runtime;
  }

  void Check(int status, const char* what) const {
    if (status != 0) {
      throw CompileError(std::string("onnxruntime: ") + what + " failed: " + error_string(status));
    }
  }
};

// Profile()'s runs before the profiled ones: the first runs of a session allocate its arenas
// and, on the GPU, search cuDNN's algorithms.
constexpr int kProfileWarmupRuns = 2;

// A folder of this process's own for ORT's profile, which ORT names itself
// (<prefix>_<date and time>.json) and writes when profiling ends or the session goes: removed
// with what it holds when this goes, on a signal too (RemoveOnSignal). Named after this host
// and process (core/process.h) like the tool's other temporary folders.
class ProfileFolder {
 public:
  explicit ProfileFolder(const std::string& who) {
    std::error_code error;
    const fs::path tmp = fs::temp_directory_path(error);
    const std::string dir = error ? "/tmp" : tmp.string();
    try {
      path_ = TempNameTemplate(dir, "ngraphbench-ort-profile-", "");
    } catch (const EnvironmentError& e) {
      throw CompileError(who + ": no folder for ONNX Runtime's profile: " + e.what());
    }
    if (::mkdtemp(path_.data()) == nullptr) {
      const int error_number = errno;
      throw CompileError(who + ": cannot create a folder for ONNX Runtime's profile in " + dir +
                         ": " + std::strerror(error_number));
    }
    remove_on_signal_.emplace(path_);
  }
  ~ProfileFolder() {
    std::error_code error;
    fs::remove_all(path_, error);
  }
  ProfileFolder(const ProfileFolder&) = delete;
  ProfileFolder& operator=(const ProfileFolder&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::optional<RemoveOnSignal> remove_on_signal_;
};

}  // namespace

const OrtApiBase* Load() {
  static const OrtApiBase* base = [] {
    const std::string path = LibraryPath();
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      throw CompileError("onnxruntime: cannot load " + path + ": " + ::dlerror() +
                         " (run ./setup.sh, or set NGRAPHBENCH_ORT_LIBRARY)");
    }
    using GetBase = const OrtApiBase* (*)();
    auto get_base = reinterpret_cast<GetBase>(::dlsym(handle, "OrtGetApiBase"));
    if (!get_base) throw CompileError("onnxruntime: " + path + " lacks OrtGetApiBase");
    const OrtApiBase* b = get_base();
    // Our headers may be older than the library: we ask for their API version.
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

std::string VersionString() { return Load()->GetVersionString(); }

void PreloadNvidiaWheels() {
  static std::once_flag once;
  std::call_once(once, [] {
    // .../site-packages/onnxruntime/capi/libonnxruntime.so.N
    const fs::path site = fs::path(LibraryPath()).parent_path().parent_path().parent_path();
    std::vector<fs::path> libraries;
    std::error_code error;
    auto collect = [&](const fs::path& dir) {
      std::error_code failed;  // a folder that is not there holds nothing
      for (fs::directory_iterator it(dir, failed), end; !failed && it != end;
           it.increment(failed)) {
        const std::string name = it->path().filename().string();
        if (name.rfind("lib", 0) == 0 && name.find(".so") != std::string::npos) {
          libraries.push_back(it->path());
        }
      }
    };
    // nvidia/<package>/lib, and nvidia/<package>/<cuda major>/lib in newer wheels (nvidia/cu13).
    for (fs::directory_iterator it(site / "nvidia", error), end; !error && it != end;
         it.increment(error)) {
      collect(it->path() / "lib");
      std::error_code inner;
      for (fs::directory_iterator sub(it->path(), inner), last; !inner && sub != last;
           sub.increment(inner)) {
        if (sub->path().filename() != "lib") collect(sub->path() / "lib");
      }
    }
    error.clear();
    collect(site / "tensorrt_libs");
    std::sort(libraries.begin(), libraries.end());
    // A library loads once the libraries it needs are loaded: passes until none more does.
    for (bool progress = true; progress && !libraries.empty();) {
      progress = false;
      for (auto it = libraries.begin(); it != libraries.end();) {
        if (::dlopen(it->c_str(), RTLD_LAZY | RTLD_GLOBAL)) {
          it = libraries.erase(it);
          progress = true;
        } else {
          ++it;
        }
      }
    }
  });
}

std::string NoNvidiaGpu(const std::string& dev_root) {
  std::error_code error;
  const fs::path dev = fs::path(dev_root) / "dev";
  for (fs::directory_iterator it(dev, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.size() > 6 && name.rfind("nvidia", 0) == 0 &&
        std::all_of(name.begin() + 6, name.end(), ::isdigit)) {
      return {};
    }
  }
  // Jetson: the integrated GPU has no /dev/nvidia<N>.
  if (fs::exists(dev / "nvhost-ctrl-gpu", error) || fs::exists(dev / "nvgpu", error)) return {};
  return "no NVIDIA GPU found (no " + (dev / "nvidia<N>").string() + ", nor a Jetson's " +
         (dev / "nvhost-ctrl-gpu").string() + ")";
}

std::string ProviderUnavailable(const std::string& provider, const std::string& library) {
  Load();
  const std::vector<std::string> providers = Ort::GetAvailableProviders();
  if (std::find(providers.begin(), providers.end(), provider) == providers.end()) {
    std::string have;
    for (const auto& p : providers) have += (have.empty() ? "" : ", ") + p;
    return provider + " is not in this build of onnxruntime " + VersionString() + " (it has " +
           have + "); ./setup.sh --gpu installs onnxruntime-gpu";
  }
  PreloadNvidiaWheels();
  const fs::path path = fs::path(LibraryPath()).parent_path() /
                        ("libonnxruntime_providers_" + library + ".so");
  // The shared bridge first: the provider libraries resolve symbols from it.
  const fs::path shared = fs::path(LibraryPath()).parent_path() /
                          "libonnxruntime_providers_shared.so";
  ::dlopen(shared.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!::dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL)) {
    return provider + "'s library does not load: " + ::dlerror() +
           " (./setup.sh --gpu installs the CUDA and TensorRT libraries it needs)";
  }
  return NoNvidiaGpu();
}

void AppendCuda(Ort::SessionOptions& session, const std::map<std::string, std::string>& options) {
  const OrtApi& api = Ort::GetApi();
  OrtCUDAProviderOptionsV2* cuda = nullptr;
  Ort::ThrowOnError(api.CreateCUDAProviderOptions(&cuda));
  std::unique_ptr<OrtCUDAProviderOptionsV2, void (*)(OrtCUDAProviderOptionsV2*)> owned(
      cuda, api.ReleaseCUDAProviderOptions);
  std::map<std::string, std::string> all = options;
  all.emplace("device_id", "0");
  std::vector<const char*> keys, values;
  for (const auto& [k, v] : all) {
    keys.push_back(k.c_str());
    values.push_back(v.c_str());
  }
  Ort::ThrowOnError(api.UpdateCUDAProviderOptions(cuda, keys.data(), values.data(), keys.size()));
  session.AppendExecutionProvider_CUDA_V2(*cuda);
}

Ort::Env& Env() {
  Load();
  static Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "ngraphbench", LogSink, nullptr);
  return env;
}

OrtExecutable::OrtExecutable(const CompileRequest& request, const SessionSetup& setup)
    : setup_(setup), onnx_(&request.onnx), onnx_path_(request.onnx_path) {
  for (const Node& node : request.graph.nodes) graph_nodes_.insert(node.name);
  Ort::SessionOptions options;
  setup.configure(options);
  if (setup.log_placement) options.SetLogSeverityLevel(ORT_LOGGING_LEVEL_VERBOSE);
  // The runs log warnings only, whatever the session's level (a verbose log in the timed path
  // would be measured).
  run_options_.SetRunLogSeverityLevel(ORT_LOGGING_LEVEL_WARNING);
  // ORT has no getter for its pool sizes, so they are observed: creating the session starts
  // the intra-op pool of N (N - 1 worker threads; the thread calling Run() is the N-th) and,
  // in parallel mode, the inter-op pool of M (M - 1 more). Nothing else in a worker starts
  // threads meanwhile.
  const auto before = ThreadIds();
  {
    Placement placement;
    if (setup.log_placement) {
      std::lock_guard<std::mutex> lock(g_log_mutex);
      g_placement = &placement;
    }
    struct Reset {
      ~Reset() {
        std::lock_guard<std::mutex> lock(g_log_mutex);
        g_placement = nullptr;
      }
    } reset;
    session_ = CreateSession(options);
    std::lock_guard<std::mutex> lock(g_log_mutex);
    placement_ = placement;
  }
  const auto after = ThreadIds();
  if (before && after) {
    const auto started = std::count_if(after->begin(), after->end(),
                                       [&](const auto& id) { return before->count(id) == 0; });
    settings_["threads_started"] = std::to_string(started);
    if (!setup.inter_op_pool) settings_["threads"] = std::to_string(started + 1);
  }
  if (setup.log_placement) settings_["nodes"] = FormatPlacement(placement_);

  input_specs_ = request.graph.inputs;
  output_specs_ = request.graph.outputs;
  // Inputs and outputs are bound once to buffers we own: Run() allocates nothing.
  for (const auto& spec : request.graph.inputs) Bind(spec, inputs_);
  for (const auto& spec : request.graph.outputs) Bind(spec, outputs_);
  if (setup.cuda) {
    io_binding_ = std::make_unique<Ort::IoBinding>(*session_);
    for (const auto& b : inputs_) io_binding_->BindInput(b.name.c_str(), b.value);
    for (const auto& b : outputs_) io_binding_->BindOutput(b.name.c_str(), b.value);
  } else {
    for (const auto& b : inputs_) input_names_.push_back(b.name.c_str());
    for (const auto& b : outputs_) output_names_.push_back(b.name.c_str());
    for (auto& b : inputs_) input_values_.push_back(std::move(b.value));
    for (auto& b : outputs_) output_values_.push_back(std::move(b.value));
  }
}

std::unique_ptr<Ort::Session> OrtExecutable::CreateSession(
    const Ort::SessionOptions& options) const {
  // A model given by path: ORT reads its external data relative to the model's folder (from
  // bytes it would have no folder to look in).
  if (!onnx_path_.empty()) {
    return std::make_unique<Ort::Session>(Env(), onnx_path_.c_str(), options);
  }
  return std::make_unique<Ort::Session>(Env(), onnx_->data(), onnx_->size(), options);
}

OrtExecutable::~OrtExecutable() {
  io_binding_.reset();
  input_values_.clear();
  output_values_.clear();
  if (!setup_.cuda) return;
  for (auto* list : {&inputs_, &outputs_}) {
    for (Binding& b : *list) {
      b.value = Ort::Value(nullptr);
      if (b.device) CudaRuntime::Get().free(b.device);
    }
  }
}

void OrtExecutable::Bind(const TensorSpec& spec, std::vector<Binding>& into) {
  into.push_back({spec.name, spec.shape,
                  std::vector<float>(static_cast<size_t>(NumElements(spec.shape)))});
  Binding& b = into.back();
  if (!setup_.cuda) {
    const auto memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
    b.value = Ort::Value::CreateTensor<float>(memory, b.host.data(), b.host.size(),
                                              b.shape.data(), b.shape.size());
    return;
  }
  // Device buffers of our own, so that the copies happen in SetInputs/GetOutputs, outside the
  // `compute` boundary, and Run() moves nothing between host and device.
  const CudaRuntime& cuda = CudaRuntime::Get();
  cuda.Check(cuda.malloc(&b.device, std::max<size_t>(1, b.host.size() * sizeof(float))),
             "cudaMalloc");
  const Ort::MemoryInfo memory("Cuda", OrtDeviceAllocator, 0, OrtMemTypeDefault);
  b.value = Ort::Value::CreateTensor<float>(memory, static_cast<float*>(b.device),
                                            b.host.size(), b.shape.data(), b.shape.size());
}

void OrtExecutable::SetInputs(const std::vector<HostTensor>& inputs) {
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const std::vector<float>& data = inputs.at(i).data;
    if (setup_.cuda) {
      const CudaRuntime& cuda = CudaRuntime::Get();
      cuda.Check(cuda.memcpy(inputs_[i].device, data.data(), data.size() * sizeof(float),
                             CudaRuntime::kHostToDevice),
                 "copying an input to the GPU");
    } else {
      std::copy(data.begin(), data.end(), inputs_[i].host.begin());
    }
  }
}

void OrtExecutable::Run() { RunSession(*session_, io_binding_.get()); }

// A failure inside ORT's kernels (Ort::Exception) is the compiler refusing the model at run
// time: an `error` row naming it, not a crashed worker.
void OrtExecutable::RunSession(Ort::Session& session, Ort::IoBinding* binding) {
  try {
    if (setup_.cuda) {
      session.Run(run_options_, *binding);
      // Run() returns once the providers' streams are done; this makes it explicit for every
      // stream of the device.
      CudaRuntime::Get().Check(CudaRuntime::Get().synchronize(), "cudaDeviceSynchronize");
    } else {
      session.Run(run_options_, input_names_.data(), input_values_.data(), input_values_.size(),
                  output_names_.data(), output_values_.data(), output_values_.size());
    }
  } catch (const Ort::Exception& e) {
    throw CompileError(setup_.compiler + ": running the model failed: " + e.what());
  }
}

std::optional<KernelProfile> OrtExecutable::Profile(int runs) {
  if (runs < 1) {
    throw CompileError(setup_.compiler + ": profiling needs at least one run, not " +
                       std::to_string(runs));
  }
  // Before the session: the session writes its profile when it goes, if not before, and the
  // folder must outlive that.
  const ProfileFolder folder(setup_.compiler);
  std::string trace;
  try {
    Ort::SessionOptions options;
    setup_.configure(options);
    const std::string prefix = folder.path() + "/onnxruntime";
    options.EnableProfiling(prefix.c_str());
    const std::unique_ptr<Ort::Session> session = CreateSession(options);
    std::unique_ptr<Ort::IoBinding> binding;
    if (setup_.cuda) {
      binding = std::make_unique<Ort::IoBinding>(*session);
      for (const auto& b : inputs_) binding->BindInput(b.name.c_str(), b.value);
      for (const auto& b : outputs_) binding->BindOutput(b.name.c_str(), b.value);
    }
    for (int i = 0; i < kProfileWarmupRuns + runs; ++i) RunSession(*session, binding.get());
    Ort::AllocatorWithDefaultOptions allocator;
    const std::string path = session->EndProfilingAllocated(allocator).get();
    trace = ReadFileCapped(path, kMaxTraceBytes, "ONNX Runtime's profile");
  } catch (const Ort::Exception& e) {
    throw CompileError(setup_.compiler + ": profiling failed: " + e.what());
  } catch (const InputError& e) {  // the profile file could not be read
    throw CompileError(setup_.compiler + ": profiling failed: " + e.what());
  }
  return ParseSessionProfile(trace, kProfileWarmupRuns, runs, graph_nodes_, setup_.compiler);
}

std::vector<HostTensor> OrtExecutable::GetOutputs() {
  std::vector<HostTensor> out;
  for (Binding& b : outputs_) {
    if (setup_.cuda) {
      const CudaRuntime& cuda = CudaRuntime::Get();
      cuda.Check(cuda.memcpy(b.host.data(), b.device, b.host.size() * sizeof(float),
                             CudaRuntime::kDeviceToHost),
                 "copying an output from the GPU");
    }
    out.push_back({b.shape, b.host});
  }
  return out;
}

// An offline stream: the executable's session, run with buffers and run options of its own.
class OrtExecutable::Context final : public RunContext {
 public:
  explicit Context(OrtExecutable& executable) : executable_(executable) {
    run_options_.SetRunLogSeverityLevel(ORT_LOGGING_LEVEL_WARNING);
    for (const auto& spec : executable.input_specs_) executable.Bind(spec, inputs_);
    for (const auto& spec : executable.output_specs_) executable.Bind(spec, outputs_);
    for (auto& b : inputs_) {
      input_names_.push_back(b.name.c_str());
      input_values_.push_back(std::move(b.value));
    }
    for (auto& b : outputs_) {
      output_names_.push_back(b.name.c_str());
      output_values_.push_back(std::move(b.value));
    }
  }

  void SetInputs(const std::vector<HostTensor>& inputs) override {
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const std::vector<float>& data = inputs.at(i).data;
      std::copy(data.begin(), data.end(), inputs_[i].host.begin());
    }
  }

  void Run() override {
    try {
      executable_.session_->Run(run_options_, input_names_.data(), input_values_.data(),
                                input_values_.size(), output_names_.data(),
                                output_values_.data(), output_values_.size());
    } catch (const Ort::Exception& e) {
      throw CompileError(executable_.setup_.compiler + ": running the model failed: " +
                         e.what());
    }
  }

  std::vector<HostTensor> GetOutputs() override {
    std::vector<HostTensor> out;
    for (const Binding& b : outputs_) out.push_back({b.shape, b.host});
    return out;
  }

 private:
  OrtExecutable& executable_;
  Ort::RunOptions run_options_;
  std::vector<Binding> inputs_, outputs_;  // their host buffers, which the values view
  std::vector<const char*> input_names_, output_names_;
  std::vector<Ort::Value> input_values_, output_values_;
};

void OrtExecutable::ServeStreams(int64_t streams) {
  if (setup_.cuda) {
    throw CompileError(setup_.compiler + ": scenario offline on the GPU is not built yet (the "
                       "contexts' buffers are host memory); run it on the CPU, or with scenario "
                       "single_stream");
  }
  streams_ = streams;
  settings_["streams"] = std::to_string(streams);
  const auto pool = settings_.find("threads");
  if (pool != settings_.end()) {
    const int64_t per_stream = std::stoll(pool->second);
    settings_["threads_per_stream"] = std::to_string(per_stream);
    settings_["threads"] = std::to_string(streams + per_stream - 1);
  }
}

std::unique_ptr<RunContext> OrtExecutable::NewContext() {
  if (streams_ <= 1 && settings_.count("streams") == 0) return nullptr;  // not compiled for it
  // Each value views its binding's host buffer, which a vector's move never moves.
  return std::make_unique<Context>(*this);
}

std::unique_ptr<OrtExecutable> CreateExecutable(const CompileRequest& request,
                                                const SessionSetup& setup) {
  Env();
  try {
    return std::make_unique<OrtExecutable>(request, setup);
  } catch (const Ort::Exception& e) {
    throw CompileError(setup.compiler + ": " + e.what());
  }
}

}  // namespace ngraphbench::ort
