#include "ngraphbench/compilers/torch_common/torch_runtime.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/core/InferenceMode.h>
#include <c10/util/Exception.h>
#include <torch/version.h>

#include <algorithm>
#include <cstring>

#include "ngraphbench/core/error.h"

namespace ngraphbench::torch_common {

TorchSettings ApplyConfig(const CompilerConfig& config, const std::string& compiler) {
  TorchSettings settings;
  settings.compiler = compiler;
  if (config.device == "cuda") {
    if (const std::string why = Unavailable(config, compiler); !why.empty()) {
      throw UnavailableError(why);
    }
    settings.device = c10::Device(c10::kCUDA, 0);
  } else if (config.device != "cpu") {
    throw CompileError(compiler + ": device '" + config.device + "' is not one of cpu, cuda");
  }
  if (config.precision == "fp32") {
    settings.dtype = c10::kFloat;
  } else if (config.precision == "fp16") {
    settings.dtype = c10::kHalf;
  } else if (config.precision == "bf16") {
    settings.dtype = c10::kBFloat16;
  } else {
    throw CompileError(compiler + ": precision '" + config.precision +
                       "' is not one of fp32, fp16, bf16");
  }
  if (config.threads > 0) at::set_num_threads(config.threads);
  return settings;
}

int64_t OfflineStreams(const CompileRequest& request, CompilerConfig& config,
                       const std::string& compiler) {
  if (!request.offline) return 0;
  if (config.device != "cpu") {
    throw CompileError(compiler + ": scenario offline on device " + config.device +
                       " is not built yet (its streams would share one device's "
                       "synchronization); run it on the CPU, or with scenario single_stream");
  }
  const int64_t streams = request.streams > 0 ? request.streams : std::max(1, config.threads);
  config.threads = static_cast<int>(std::max<int64_t>(1, config.threads / streams));
  return streams;
}

std::string Unavailable(const CompilerConfig& config, const std::string& compiler) {
  if (config.device != "cuda") return {};
  const auto& hooks = at::detail::getCUDAHooks();
  if (!hooks.isBuilt()) {
    return compiler + ": device 'cuda': this LibTorch (torch " + TORCH_VERSION +
           ") is a CPU build; ./setup.sh --gpu installs PyTorch's CUDA build";
  }
  if (!hooks.hasCUDA() || hooks.getNumGPUs() < 1) {
    return compiler + ": device 'cuda': no NVIDIA GPU found (LibTorch torch " + TORCH_VERSION +
           " has CUDA, but the driver reports no device)";
  }
  return {};
}

std::string TorchVersion() {
  return std::string("torch ") + TORCH_VERSION + (at::hasCUDA() ? " (CUDA)" : " (CPU)");
}

at::Tensor ToDevice(const HostTensor& host, const TorchSettings& settings) {
  auto* data = const_cast<float*>(host.data.data());
  return at::from_blob(data, host.shape, at::kFloat)
      .to(settings.device, settings.dtype, /*non_blocking=*/false, /*copy=*/true);
}

TorchExecutable::TorchExecutable(const Graph& graph, TorchSettings settings)
    : settings_(std::move(settings)), input_specs_(graph.inputs) {}

namespace {

// `inputs` checked against `specs` and placed on the settings' device and dtype.
std::vector<at::Tensor> PlaceInputs(const std::vector<HostTensor>& inputs,
                                    const std::vector<TensorSpec>& specs,
                                    const TorchSettings& settings) {
  if (inputs.size() != specs.size()) {
    throw std::invalid_argument(settings.compiler + ": expected " + std::to_string(specs.size()) +
                                " inputs, got " + std::to_string(inputs.size()));
  }
  std::vector<at::Tensor> placed;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].shape != specs[i].shape) {
      throw std::invalid_argument(settings.compiler + ": input '" + specs[i].name +
                                  "' has shape " + ShapeToString(inputs[i].shape) + ", expected " +
                                  ShapeToString(specs[i].shape));
    }
    placed.push_back(ToDevice(inputs[i], settings));
  }
  return placed;
}

// One synchronous forward: under InferenceMode, the device synchronized after.
template <typename Forward>
std::vector<at::Tensor> RunForward(Forward&& forward, const std::vector<at::Tensor>& inputs,
                                   const TorchSettings& settings) {
  std::vector<at::Tensor> outputs;
  {
    c10::InferenceMode guard;
    outputs = forward(inputs);
  }
  if (settings.device.is_cuda()) {
    at::detail::getCUDAHooks().deviceSynchronize(settings.device.index());
  }
  return outputs;
}

std::vector<HostTensor> ToHost(const std::vector<at::Tensor>& outputs) {
  std::vector<HostTensor> host;
  for (const at::Tensor& out : outputs) {
    const at::Tensor cpu = out.to(at::kCPU, at::kFloat).contiguous();
    HostTensor t{Shape(cpu.sizes().begin(), cpu.sizes().end()),
                 std::vector<float>(static_cast<size_t>(cpu.numel()))};
    std::memcpy(t.data.data(), cpu.data_ptr<float>(), t.data.size() * sizeof(float));
    host.push_back(std::move(t));
  }
  return host;
}

}  // namespace

// An offline stream: inputs, outputs and a forward function of its own.
class TorchExecutable::Context final : public RunContext {
 public:
  Context(const TorchExecutable& executable, ForwardFn forward)
      : executable_(executable), forward_(std::move(forward)) {}
  void SetInputs(const std::vector<HostTensor>& inputs) override {
    inputs_ = PlaceInputs(inputs, executable_.input_specs_, executable_.settings_);
  }
  void Run() override { outputs_ = RunForward(forward_, inputs_, executable_.settings_); }
  std::vector<HostTensor> GetOutputs() override { return ToHost(outputs_); }

 private:
  const TorchExecutable& executable_;
  ForwardFn forward_;
  std::vector<at::Tensor> inputs_, outputs_;
};

void TorchExecutable::SetInputs(const std::vector<HostTensor>& inputs) {
  inputs_ = PlaceInputs(inputs, input_specs_, settings_);
}

void TorchExecutable::Run() {
  outputs_ = RunForward([this](const std::vector<at::Tensor>& in) { return Forward(in); },
                        inputs_, settings_);
}

std::vector<HostTensor> TorchExecutable::GetOutputs() { return ToHost(outputs_); }

std::unique_ptr<RunContext> TorchExecutable::NewContext() {
  if (streams_ < 1) return nullptr;  // compiled for one request at a time
  ForwardFn forward = NewForward();
  if (!forward) return nullptr;
  return std::make_unique<Context>(*this, std::move(forward));
}

std::map<std::string, std::string> TorchExecutable::EffectiveSettings() const {
  std::map<std::string, std::string> out = extra_settings_;
  out["threads"] = std::to_string(at::get_num_threads());
  if (streams_ > 0) {
    out["streams"] = std::to_string(streams_);
    out["threads_per_stream"] = out["threads"];
    out["threads"] = std::to_string(streams_ * at::get_num_threads());
  }
  out["interop_threads"] = std::to_string(at::get_num_interop_threads());
  out["device"] = settings_.device.str();
  out["dtype"] = c10::toString(settings_.dtype);
  return out;
}

OpProfile TorchExecutable::ProfileRuns(int runs) {
  return ProfileOps([this] { Run(); }, runs, settings_.device, settings_.compiler);
}

void TorchExecutable::CheckRuns() {
  std::vector<at::Tensor> zeros;
  for (const auto& spec : input_specs_) {
    zeros.push_back(
        at::zeros(spec.shape, at::TensorOptions(settings_.device).dtype(settings_.dtype)));
  }
  try {
    c10::InferenceMode guard;
    Forward(zeros);
  } catch (const c10::Error& e) {
    throw CompileError(settings_.compiler + ": cannot run on " + settings_.device.str() + " in " +
                       c10::toString(settings_.dtype) + ": " + e.what_without_backtrace());
  }
}

}  // namespace ngraphbench::torch_common
