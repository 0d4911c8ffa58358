// The `null` compiler: runs nothing, so the pipeline (scheduler, worker, harness, results) can
// be tested end to end, including workers that fail, crash or hang, and outputs that are wrong.
// Its outputs are zeros (plus `perturb_ppm` millionths); its output check's reference is the null
// compiler itself with no perturbation. Never a result-table row.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/core/error.h"

namespace ngraphbench {
namespace {

class NullExecutable : public Executable {
 public:
  NullExecutable(const Graph& graph, int64_t sleep_us, bool crash, float offset,
                 bool profile_fail, int64_t streams, std::vector<std::string> degraded)
      : streams_(streams),
        outputs_(graph.outputs),
        sleep_us_(sleep_us),
        crash_(crash),
        offset_(offset),
        profile_fail_(profile_fail),
        degraded_(std::move(degraded)) {
    for (const Node& node : graph.nodes) nodes_.push_back({node.name, node.op_type});
  }

  void SetInputs(const std::vector<HostTensor>& inputs) override { inputs_seen_ = inputs.size(); }

  void Run() override {
    if (crash_) std::abort();
    // Busy-wait rather than sleep: a sleeping thread would make latency depend on the scheduler.
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(sleep_us_);
    while (sleep_us_ > 0 && std::chrono::steady_clock::now() < until) {
    }
  }

  std::vector<HostTensor> GetOutputs() override {
    std::vector<HostTensor> out;
    for (const auto& spec : outputs_) {
      out.push_back(
          {spec.shape, std::vector<float>(static_cast<size_t>(NumElements(spec.shape)), offset_)});
    }
    return out;
  }

  std::map<std::string, std::string> EffectiveSettings() const override {
    return {{"sleep_us", std::to_string(sleep_us_)}};
  }

  std::vector<std::string> Degraded() const override { return degraded_; }

  // Offline: each context a copy that busy-waits on its own thread, so that N streams on N
  // cores complete N times the requests of one (what the pipeline tests check).
  std::unique_ptr<RunContext> NewContext() override {
    return std::make_unique<NullExecutable>(*this);
  }
  int64_t Streams() const override { return streams_; }

  // Runs `runs` times and reports one kernel per graph node, each with an equal share of the
  // busy-wait, its node known; plus one kernel of its own that covers no node.
  std::optional<KernelProfile> Profile(int runs) override {
    if (profile_fail_) throw CompileError("null compiler: asked to fail profiling (profile_fail)");
    KernelProfile profile;
    profile.profiler = "null";
    profile.runs = runs;
    for (int i = 0; i < runs; ++i) Run();
    const double per_node_ms =
        static_cast<double>(sleep_us_) / 1e3 / static_cast<double>(nodes_.size() + 1);
    for (const auto& [name, op_type] : nodes_) {
      profile.kernels.push_back({"null_" + name, {name}, true, op_type, runs, per_node_ms * runs,
                                 "cpu"});
    }
    profile.kernels.push_back({"null_overhead", {}, false, "memcpy", runs, per_node_ms * runs,
                               "cpu"});
    return profile;
  }

 private:
  int64_t streams_;
  std::vector<TensorSpec> outputs_;
  int64_t sleep_us_;
  bool crash_;
  float offset_;
  bool profile_fail_;
  std::vector<std::string> degraded_;
  std::vector<std::pair<std::string, std::string>> nodes_;  // name, op type
  size_t inputs_seen_ = 0;
};

class NullCompiler : public Compiler {
 public:
  std::string Version() const override { return "null 1"; }

  std::unique_ptr<Executable> Compile(const CompileRequest& request) override {
    const Options& options = request.config.options;
    const int64_t batch = request.graph.inputs.at(0).shape.at(0);
    if (batch == options.Int("hang_batch")) {
      while (true) std::this_thread::sleep_for(std::chrono::hours(1));
    }
    if (const int64_t mb = options.Int("alloc_mb"); mb > 0) {
      // Every page written, and the pointer escaping to the optimizer, so that the memory is
      // really taken, as an SDK's workspace would be; freed at the end of the block.
      const size_t bytes = static_cast<size_t>(mb) << 20;
      std::unique_ptr<char[]> workspace(new char[bytes]);
      std::memset(workspace.get(), 1, bytes);
      asm volatile("" : : "g"(workspace.get()) : "memory");
    }
    if (batch == options.Int("fail_batch")) {
      throw CompileError("null compiler: asked to fail at batch size " + std::to_string(batch) +
                         " (fail_batch)");
    }
    // auto: one stream per thread, as SDKs without a choice of their own
    const int64_t streams = !request.offline      ? 1
                            : request.streams > 0 ? request.streams
                                                  : std::max(1, request.config.threads);
    std::vector<std::string> degraded;
    if (batch == options.Int("degrade_batch")) {
      degraded.push_back("null: asked to report a degraded build at batch size " +
                         std::to_string(batch) + " (degrade_batch)");
    }
    return std::make_unique<NullExecutable>(
        request.graph, options.Int("sleep_us"), batch == options.Int("crash_batch"),
        static_cast<float>(options.Int("perturb_ppm")) * 1e-6f, options.Int("profile_fail") == 1,
        streams, std::move(degraded));
  }
};

}  // namespace
}  // namespace ngraphbench

extern "C" ngraphbench::Compiler* NgraphbenchCreateCompiler() {
  return new ngraphbench::NullCompiler();
}
