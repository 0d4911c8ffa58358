// What the parts of the `openvino` compiler share, and no other file includes:
// openvino_compiler.cc (the compiler: OpenVINO's properties, the run's blob cache, int8),
// openvino_executable.cc (a compiled model bound to the graph's tensors, its infer requests) and
// openvino_profile.cc (Profile(): OpenVINO's per-layer counters attributed to graph nodes).
#pragma once

#include <openvino/openvino.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/core/tensor.h"

namespace ngraphbench::openvino_compiler {

inline Shape ToShape(const ov::Shape& shape) { return Shape(shape.begin(), shape.end()); }

// Properties as the compiled model reports them. AUTO reports few itself, so the rest come from
// the properties of the device it picked; a key no one reports is left out rather than guessed.
std::map<std::string, std::string> ReadBack(const ov::CompiledModel& compiled);

// From a path, the ONNX frontend reads external data relative to the model's folder.
inline std::shared_ptr<ov::Model> ReadOnnx(const ov::Core& core, const std::string& onnx,
                                           const std::string& onnx_path) {
  return onnx_path.empty() ? core.read_model(onnx, ov::Tensor()) : core.read_model(onnx_path);
}

// What Profile() needs to read and compile the model again with OpenVINO's per-layer counters:
// the request's graph and ONNX model, which stay valid while the executable lives
// (CompileRequest), rather than the read ov::Model, whose memory would count in the timed runs.
struct ProfileRecipe {
  ov::Core core;          // a handle on the compiler's Core and its plugins
  const Graph* graph;     // CompileRequest::graph
  const std::string* onnx;
  std::string onnx_path;
  std::string device;     // "CPU", "GPU" or "AUTO"
  ov::AnyMap properties;  // the timed model's, with ov::enable_profiling
};

class OpenVinoExecutable final : public Executable {
 public:
  // Binds the graph's inputs and outputs to the compiled model's ports by name. `cache_hit`:
  // the compiled model was imported from a cache rather than compiled here.
  OpenVinoExecutable(ov::CompiledModel compiled, const Graph& graph, ProfileRecipe recipe,
                     bool cache_hit);

  void SetInputs(const std::vector<HostTensor>& inputs) override {
    CopyIn(request_, inputs_, inputs);
  }

  void Run() override { request_.infer(); }

  std::vector<HostTensor> GetOutputs() override { return CopyOut(request_, outputs_); }

  // Offline: an infer request of its own per stream, each run synchronously on its stream's
  // thread; the compiled model runs requests of several threads at once on its streams.
  std::unique_ptr<RunContext> NewContext() override {
    if (streams_ < 1) return nullptr;  // compiled for one synchronous request
    return std::make_unique<Context>(*this);
  }
  int64_t Streams() const override { return std::max<int64_t>(1, streams_); }

  // Offline (see openvino_compiler.cc's comment): how many streams to serve, 0 for single
  // stream; adds "streams" and "threads_per_stream" (OpenVINO's threads over its streams) to the
  // settings.
  void ServeStreams(int64_t streams) {
    streams_ = streams;
    settings_["streams"] = std::to_string(streams);
    const auto threads = settings_.find("threads");
    const auto ov_streams = settings_.find("num_streams");
    if (threads != settings_.end() && ov_streams != settings_.end()) {
      const int64_t t = std::strtoll(threads->second.c_str(), nullptr, 10);
      const int64_t n = std::strtoll(ov_streams->second.c_str(), nullptr, 10);
      if (t > 0 && n > 0) {
        settings_["threads_per_stream"] = std::to_string(std::max<int64_t>(1, t / n));
      }
    }
  }

  std::map<std::string, std::string> EffectiveSettings() const override { return settings_; }
  std::map<std::string, std::string>& settings() { return settings_; }  // what Compile adds
  double CacheStoreSeconds() const override { return cache_store_s_; }
  void set_cache_store_s(double seconds) { cache_store_s_ = seconds; }
  // What the compiler found the build does less of than asked (an int8 model whose compute
  // layers all run in float).
  std::vector<std::string> Degraded() const override { return degraded_; }
  void add_degraded(std::string why) { degraded_.push_back(std::move(why)); }

 private:
  class Context final : public RunContext {
   public:
    explicit Context(OpenVinoExecutable& executable)
        : executable_(executable), request_(executable.compiled_.create_infer_request()) {}
    void SetInputs(const std::vector<HostTensor>& inputs) override {
      CopyIn(request_, executable_.inputs_, inputs);
    }
    void Run() override { request_.infer(); }
    std::vector<HostTensor> GetOutputs() override {
      return CopyOut(request_, executable_.outputs_);
    }

   private:
    OpenVinoExecutable& executable_;
    ov::InferRequest request_;
  };

  static void CopyIn(ov::InferRequest& request,
                     const std::vector<ov::Output<const ov::Node>>& ports,
                     const std::vector<HostTensor>& inputs);

  static std::vector<HostTensor> CopyOut(ov::InferRequest& request,
                                         const std::vector<ov::Output<const ov::Node>>& ports);

 public:
  // OpenVINO counts per layer only in a model compiled with ov::enable_profiling, so a second
  // one runs the profile, on the timed request's inputs, and the timed model never counts.
  std::optional<KernelProfile> Profile(int runs) override;

 private:
  // Profile()'s runs before the counted ones, on its own compiled model.
  static constexpr int kProfileWarmupRuns = 2;

  // The timed request's inputs (the last SetInputs()) into `request` of `profiled`, compiled
  // from the same ONNX model, whose inputs therefore come in the same order.
  void CopyInputs(const ov::CompiledModel& profiled, ov::InferRequest& request);

  // The kernels of the `runs` counted runs of `profiled`, compiled from `model`, from the
  // counters after the warm-up (`warm`) and after the counted runs (`last`). The CPU plugin
  // reports a layer's mean time per run since the model was compiled (PerfCount::avg(): each
  // run's time and the mean floored to whole microseconds), so the counted runs took the mean x
  // all runs after them less the mean x the warm-up runs before them, within about 1 us per run.
  // (Counters of the last run alone, as a plugin might keep them, would give `runs` x its time.)
  KernelProfile Tally(const ov::Model& model, const ov::CompiledModel& profiled,
                      const std::vector<ov::ProfilingInfo>& warm,
                      const std::vector<ov::ProfilingInfo>& last, int runs) const;

  // The port named `spec.name` (with `any_name`, the only port given), checked to be float32
  // with the graph's static shape.
  static ov::Output<const ov::Node> Port(const TensorSpec& spec,
                                         const std::vector<ov::Output<const ov::Node>>& ports,
                                         bool any_name = false);

  int64_t streams_ = 0;
  ProfileRecipe recipe_;
  ov::CompiledModel compiled_;
  ov::InferRequest request_;
  std::map<std::string, std::string> settings_;
  double cache_store_s_ = 0;  // CacheStoreSeconds()
  std::vector<std::string> degraded_;
  std::vector<ov::Output<const ov::Node>> inputs_;
  std::vector<ov::Output<const ov::Node>> outputs_;
};

}  // namespace ngraphbench::openvino_compiler
