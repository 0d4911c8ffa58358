#include "ngraphbench/compilers/onnxruntime/ort_profile.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ngraphbench/core/error.h"

namespace ngraphbench::ort {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kKernelSuffix = "_kernel_time";

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() > suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// What the profile cannot say, in every profile. The fusions named are ORT's own graph
// transformers: ConvBNFusion changes the Conv in place and drops the BatchNormalization, the
// Conv+activation fusion (selector-action ReplaceWithNew) gives the FusedConv the Conv's name,
// GemmActivationFusion names its FusedGemm "fused <Gemm>", and the CPU provider's NCHWc
// transformer names its convolutions and pools "<output tensor>_nchwc" and inserts
// ReorderInput/ReorderOutput nodes.
const char* const kNodesNote =
    "kernels are the nodes of the graph ONNX Runtime optimized, named as it names them: a node "
    "that absorbed others by fusion lists only its own name (a Conv keeps its name with a "
    "BatchNormalization folded into it, and as the FusedConv that took its activation), and "
    "nodes it made under new names (FusedGemm 'fused <Gemm>', the CPU provider's NCHWc kernels "
    "'<tensor>_nchwc', ReorderInput/ReorderOutput) have unknown nodes";
const char* const kMicrosecondsNote =
    "ONNX Runtime records whole microseconds, truncated: each kernel call loses up to 1 us";
// The node events time the kernel's Compute() on the host thread (sequential_executor.cc's
// KernelScope); the GPU providers launch their work on a stream and return.
const char* const kGpuNote =
    "on a GPU provider a kernel's time is how long its node ran on the host thread, which for "
    "work launched asynchronously is the launch, not the GPU's execution";
const char* const kTensorRtNote =
    "TensorRT runs each subgraph it took as one engine, one kernel here (TRTKernel_...) without "
    "per-layer times, and ONNX Runtime's profile does not say which nodes it holds";

}  // namespace

KernelProfile ParseSessionProfile(const std::string& trace, int warmup, int runs,
                                  const std::unordered_set<std::string>& graph_nodes,
                                  const std::string& who) {
  const Json doc = Json::parse(trace, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_array()) {
    throw CompileError(who + ": ONNX Runtime's profile is not a JSON array of events (ORT does "
                             "not escape node names: one with a quote or backslash breaks it)");
  }
  KernelProfile profile;
  profile.profiler = "onnxruntime session profiling";
  profile.runs = runs;
  try {
    std::vector<int64_t> run_starts;
    for (const Json& event : doc) {
      if (event.is_object() && event.value("cat", "") == "Session" &&
          event.value("name", "") == "model_run") {
        run_starts.push_back(event.value("ts", int64_t{0}));
      }
    }
    if (run_starts.size() != static_cast<size_t>(warmup) + static_cast<size_t>(runs)) {
      throw CompileError(who + ": ONNX Runtime's profile holds " +
                         std::to_string(run_starts.size()) + " runs, not the " +
                         std::to_string(warmup + runs) +
                         " made (its profiler stops recording at a million events)");
    }
    // A run's events lie within it: the last kernel of a warm-up run starts before the next
    // Run() call begins (ORT's run set-up and ours take microseconds), so a start time at or
    // after the first profiled run's is a profiled kernel's.
    std::sort(run_starts.begin(), run_starts.end());
    const int64_t first_profiled = run_starts[static_cast<size_t>(warmup)];

    std::unordered_map<std::string, size_t> index;  // node name -> kernel, in execution order
    std::set<std::string> providers;
    int64_t gpu_kernel_events = 0;
    for (const Json& event : doc) {
      if (!event.is_object()) continue;
      const std::string category = event.value("cat", "");
      // In an ORT built with CUDA profiling its GPU provider adds the device's kernels
      // (category Kernel) next to the nodes that launched them; they are counted, not summed:
      // the kernels of this profile are ORT's nodes.
      if (category == "Kernel") ++gpu_kernel_events;
      if (category != "Node") continue;
      const std::string name = event.value("name", "");
      if (!EndsWith(name, kKernelSuffix)) continue;  // other node events (ORT's older fences)
      if (event.value("ts", int64_t{-1}) < first_profiled) continue;
      const std::string node = name.substr(0, name.size() - kKernelSuffix.size());
      auto [it, added] = index.emplace(node, profile.kernels.size());
      if (added) {
        ProfiledKernel k;
        k.name = node;
        k.nodes_known = graph_nodes.count(node) > 0;
        if (k.nodes_known) k.nodes = {node};
        const auto args = event.find("args");
        if (args != event.end() && args->is_object()) {
          k.sdk_type = args->value("op_name", "");
          k.device = args->value("provider", "");
        }
        providers.insert(k.device);
        profile.kernels.push_back(std::move(k));
      }
      ProfiledKernel& k = profile.kernels[it->second];
      k.calls += 1;
      k.time_ms += static_cast<double>(event.value("dur", int64_t{0})) / 1e3;
    }

    profile.notes = {kNodesNote, kMicrosecondsNote};
    if (providers.count("CUDAExecutionProvider") || providers.count("TensorrtExecutionProvider")) {
      profile.notes.push_back(kGpuNote);
    }
    if (providers.count("TensorrtExecutionProvider")) profile.notes.push_back(kTensorRtNote);
    if (gpu_kernel_events > 0) {
      profile.notes.push_back("the profile's " + std::to_string(gpu_kernel_events) +
                              " GPU kernel events are not summed: its kernels are ORT's nodes");
    }
  } catch (const Json::exception& e) {
    throw CompileError(who + ": ONNX Runtime's profile has an event of an unexpected form: " +
                       e.what());
  }
  return profile;
}

}  // namespace ngraphbench::ort
