// What `identity` and `torchscript` share around their forward function: resolving the
// config (device, precision, threads), moving inputs and outputs between host and device, and
// the synchronous Run() the harness times.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/compilers/torch_common/torch_profile.h"

namespace ngraphbench::torch_common {

struct TorchSettings {
  std::string compiler;  // for messages
  c10::Device device = c10::Device(c10::kCPU);
  c10::ScalarType dtype = c10::kFloat;
};

// Validates config.device and config.precision against this LibTorch build and applies
// config.threads (at::set_num_threads) when positive. Throws CompileError naming the setting,
// UnavailableError when this machine cannot run it (Unavailable()).
TorchSettings ApplyConfig(const CompilerConfig& config, const std::string& compiler);

// The offline scenario for a LibTorch module: the streams `request` asks for (0 for single
// stream; auto is one per thread, LibTorch having no choice of its own), with `config`'s
// threads set to each stream's share (LibTorch's intra-op threads are per calling thread:
// at::set_num_threads' count for each stream's team). Throws CompileError for a device other
// than the CPU, where the streams would share one device's synchronization.
int64_t OfflineStreams(const CompileRequest& request, CompilerConfig& config,
                       const std::string& compiler);

// Why this LibTorch cannot run `config` here (a CPU build, or no GPU for device cuda); empty when
// it can; the reason starts with "<compiler>: ". Compiler::Unavailable of identity and
// torchscript.
std::string Unavailable(const CompilerConfig& config, const std::string& compiler);

// "torch 2.13.0 (CPU)", from the headers the module was built against.
std::string TorchVersion();

// Converts a host tensor to the settings' device and dtype (a copy, never an alias).
at::Tensor ToDevice(const HostTensor& host, const TorchSettings& settings);

class TorchExecutable : public Executable {
 public:
  TorchExecutable(const Graph& graph, TorchSettings settings);

  void SetInputs(const std::vector<HostTensor>& inputs) override;
  // Forward() under c10::InferenceMode, then a device synchronization on accelerators.
  void Run() override;
  std::vector<HostTensor> GetOutputs() override;
  // threads: at::get_num_threads(); offline, every stream's (streams x threads_per_stream).
  std::map<std::string, std::string> EffectiveSettings() const override;

  // Offline (ServeStreams): a context with its own inputs, outputs and forward function
  // (NewForward), run from its stream's thread. LibTorch's intra-op threads are per calling
  // thread (each stream's parallel regions get their own team), sized by the process-wide
  // at::set_num_threads, which the compiler sets to the threads per stream.
  std::unique_ptr<RunContext> NewContext() override;
  int64_t Streams() const override { return streams_ > 0 ? streams_ : 1; }
  // Offline: serve `streams` contexts; the compiler has applied threads per stream.
  void ServeStreams(int64_t streams) { streams_ = streams; }

  // Runs Forward() once on zero inputs, so that a kernel missing for this device and dtype
  // (e.g. fp16 on an old CPU build) is a CompileError at compile time, not a failed run.
  void CheckRuns();

 protected:
  // One batch, outputs in Graph::outputs order. Called from Run() only.
  virtual std::vector<at::Tensor> Forward(const std::vector<at::Tensor>& inputs) = 0;

  using ForwardFn = std::function<std::vector<at::Tensor>(const std::vector<at::Tensor>&)>;
  // Offline: a forward function of its own for a new context, which may run while the other
  // contexts' run theirs (state of its own, the weights shared); empty when the compiler has
  // none, and offline is refused.
  virtual ForwardFn NewForward() { return {}; }

  // Run() `runs` times under LibTorch's profiler, on the inputs of the last SetInputs()
  // (ProfileOps, torch_profile.h): what each module's Profile() reduces to its kernels.
  OpProfile ProfileRuns(int runs);

  const TorchSettings& settings() const { return settings_; }
  std::map<std::string, std::string> extra_settings_;  // reported by EffectiveSettings()

 private:
  class Context;
  TorchSettings settings_;
  int64_t streams_ = 0;  // offline: the streams served; 0: single stream
  std::vector<TensorSpec> input_specs_;
  std::vector<at::Tensor> inputs_;
  std::vector<at::Tensor> outputs_;
};

}  // namespace ngraphbench::torch_common
