// What the `onnxruntime` and `tensorrt` modules share: ONNX Runtime loaded from the wheel, its
// execution providers and the NVIDIA libraries they need, and one executable whose inputs and
// outputs are bound once, in host memory or (device cuda) in GPU memory.
#pragma once

#define ORT_API_MANUAL_INIT
#include <onnxruntime_cxx_api.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/compilers/onnxruntime/placement.h"

namespace ngraphbench::ort {

// Loads libonnxruntime ($NGRAPHBENCH_ORT_LIBRARY, else the one the module was configured with)
// once and initializes the C++ API. Throws CompileError when it cannot.
const OrtApiBase* Load();

// "1.32.0".
std::string VersionString();

// Why `provider` (e.g. "CUDAExecutionProvider") cannot run here: not in this build of ONNX
// Runtime (the CPU wheel has none of the GPU providers), or its library
// (libonnxruntime_providers_<library>.so beside libonnxruntime) does not load, naming the
// missing library; or no NVIDIA GPU. Empty when it can. Loads the CUDA, cuDNN and TensorRT
// libraries of the NVIDIA wheels in the same environment first (PreloadNvidiaWheels).
std::string ProviderUnavailable(const std::string& provider, const std::string& library);

// Loads, once, every library of the nvidia-* and tensorrt wheels installed beside the
// onnxruntime wheel (site-packages/nvidia/*/lib, site-packages/tensorrt_libs), so that the GPU
// providers find them without LD_LIBRARY_PATH. Does nothing where there are none.
void PreloadNvidiaWheels();

// Empty when an NVIDIA GPU's device node exists (/dev/nvidia<N>, or a Jetson's integrated GPU),
// else why not. `dev_root` is "/" except in tests.
std::string NoNvidiaGpu(const std::string& dev_root = "/");

// Appends the CUDA execution provider on device 0 with `options` (its string keys, e.g.
// {"cudnn_conv_algo_search", "EXHAUSTIVE"}).
void AppendCuda(Ort::SessionOptions& session, const std::map<std::string, std::string>& options);

// The process's environment. Its log reaches ngraphbench: warnings and errors go to stderr, and
// ORT's node placement lines to the PlacementLog alive while a session is created.
Ort::Env& Env();

struct SessionSetup {
  std::string compiler;  // for messages
  bool cuda = false;     // inputs and outputs in CUDA device memory (device 0)
  // Read ORT's node placement from its verbose session log (only while the session is created:
  // the runs log at warning level).
  bool log_placement = false;
  // Sets the session's options and appends its execution providers (the CPU provider is always
  // there, last). Called again by Profile(), after Compile() has returned, for a second session
  // set up the same: it holds copies of what it uses, not references to the compile's locals.
  std::function<void(Ort::SessionOptions&)> configure;
  // An inter-op pool is started too: its threads cannot be told from the intra-op pool's, so
  // the settings get no "threads" (the row keeps the configured count).
  bool inter_op_pool = false;
};

class OrtExecutable : public Executable {
 public:
  // Throws Ort::Exception from the SDK, CompileError for the rest. Profile() reads the model
  // again from `request.onnx` (kept by address, not copied: a copy would add the model's size to
  // every run's memory) or from `request.onnx_path` and its folder: they must stay until the
  // last Profile(), as the worker keeps them while the executable lives.
  OrtExecutable(const CompileRequest& request, const SessionSetup& setup);
  ~OrtExecutable() override;

  void SetInputs(const std::vector<HostTensor>& inputs) override;
  void Run() override;
  std::vector<HostTensor> GetOutputs() override;
  std::map<std::string, std::string> EffectiveSettings() const override { return settings_; }

  // ONNX Runtime profiles a session created with profiling on, from its creation to
  // EndProfiling(): this creates a second session from the same model and SessionSetup with
  // profiling on, binds it to the same buffers (the last SetInputs(); the outputs of the last
  // Run() are overwritten with the same values), runs it twice to warm up and `runs` times
  // more, and reads the trace ORT writes (ort_profile.h). The trace goes to a folder of its own
  // in the machine's temporary folder, removed on return, on an exception and on a signal.
  std::optional<KernelProfile> Profile(int runs) override;

  // Offline: serve `streams` execution contexts on the one session (CPU only), each Run() a
  // concurrent Session::Run with buffers of its own; ONNX Runtime's Run is thread-safe. The
  // session's intra-op pool, sized at compile time, is shared by the streams' runs: a run
  // computes on its calling thread and the pool's workers. Sets the settings "streams",
  // "threads_per_stream" (the pool's size as observed) and "threads" (every thread the streams
  // run on: one calling thread per stream and the pool's workers).
  void ServeStreams(int64_t streams);
  std::unique_ptr<RunContext> NewContext() override;
  int64_t Streams() const override { return streams_; }

  const Placement& placement() const { return placement_; }
  std::map<std::string, std::string>& settings() { return settings_; }
  // What the compiler found the build does less of than asked, added after construction (an
  // int8 model whose convolutions and matrix products all run in float).
  std::vector<std::string> Degraded() const override { return degraded_; }
  std::vector<std::string>& degraded() { return degraded_; }

 private:
  struct Binding {
    std::string name;
    Shape shape;
    std::vector<float> host;  // the buffer itself on the CPU; the staging copy with cuda
    void* device = nullptr;   // cuda only
    Ort::Value value{nullptr};
  };
  class Context;
  void Bind(const TensorSpec& spec, std::vector<Binding>& into);
  // A session of the model (onnx_ or onnx_path_) with `options`.
  std::unique_ptr<Ort::Session> CreateSession(const Ort::SessionOptions& options) const;
  // One run of `session`, bound by `binding` with cuda, else by the name and value lists.
  void RunSession(Ort::Session& session, Ort::IoBinding* binding);

  SessionSetup setup_;
  // The model for Profile(): its bytes, or its file when onnx_path_ is set (see the
  // constructor).
  const std::string* onnx_ = nullptr;
  std::string onnx_path_;
  std::unordered_set<std::string> graph_nodes_;  // the graph's node names, for Profile()
  std::unique_ptr<Ort::Session> session_;
  std::unique_ptr<Ort::IoBinding> io_binding_;  // cuda only
  Ort::RunOptions run_options_;
  std::vector<Binding> inputs_, outputs_;
  std::vector<const char*> input_names_, output_names_;
  std::vector<Ort::Value> input_values_, output_values_;
  std::map<std::string, std::string> settings_;
  std::vector<std::string> degraded_;
  Placement placement_;
  int64_t streams_ = 1;
  std::vector<TensorSpec> input_specs_, output_specs_;  // for the contexts' own buffers
};

// Runs `make` and turns the SDK's exceptions into CompileError naming the compiler.
std::unique_ptr<OrtExecutable> CreateExecutable(const CompileRequest& request,
                                                const SessionSetup& setup);

}  // namespace ngraphbench::ort
