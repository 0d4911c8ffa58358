#include "ngraphbench/compilers/torch_common/torch_profile.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <ATen/record_function.h>
#include <c10/util/Exception.h>
#include <kineto/ActivityType.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include "ngraphbench/core/error.h"

namespace ngraphbench::torch_common {

namespace {

namespace prof = torch::autograd::profiler;
// libkineto's kinds of activity: KinetoEvent::activityType() returns one.
using KinetoType = libkineto::ActivityType;

// Runs before the profiled ones, not counted (Executable::Profile).
constexpr int kWarmupRuns = 2;

// An operator or user scope on the host: KinetoEvent::activityType() is libkineto's
// ActivityType, CPU_OP for at::RecordScope::FUNCTION and USER_ANNOTATION for USER_SCOPE. The
// host-side CUDA runtime and driver calls Kineto also reports are left out: they happen inside
// operators (cudaLaunchKernel) and carry the system's thread ids, not RecordFunction's, so
// nesting them by thread would count them a second time.
bool IsOp(const prof::KinetoEvent& e) {
  const auto type = static_cast<KinetoType>(e.activityType());
  return e.deviceType() == c10::DeviceType::CPU &&
         (type == KinetoType::CPU_OP || type == KinetoType::USER_ANNOTATION) &&
         !e.isAsync() && e.startThreadId() == e.endThreadId();
}

// Work on an accelerator's timeline, which an operator launched.
bool IsDeviceWork(const prof::KinetoEvent& e) {
  const auto type = static_cast<KinetoType>(e.activityType());
  return e.deviceType() != c10::DeviceType::CPU &&
         (type == KinetoType::CONCURRENT_KERNEL || type == KinetoType::GPU_MEMCPY ||
          type == KinetoType::GPU_MEMSET);
}

struct OpEvent {
  uint64_t start_ns = 0, end_ns = 0;
  uint64_t correlation = 0;
  const prof::KinetoEvent* event = nullptr;
};

// Sums the outermost events of the inference's thread, and their device work, by name.
class Reducer {
 public:
  explicit Reducer(bool device_time) : device_time_(device_time) {}

  // The inference thread's operators. Nesting is replayed as LibTorch's own event tree does
  // it: events in start order, each inside the innermost open event that has not ended when it
  // starts. Ties in start time (the clock's resolution) go to the lower correlation id, which
  // the profiler hands out on a thread in the order events begin: a parent precedes its
  // children.
  void AddOps(std::vector<OpEvent>& events) {
    std::sort(events.begin(), events.end(), [](const OpEvent& a, const OpEvent& b) {
      return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.correlation < b.correlation;
    });
    std::vector<const OpEvent*> open;  // the events enclosing the current one, outermost first
    size_t top = 0;                    // ops_ index of the current outermost event
    for (const OpEvent& e : events) {
      while (!open.empty() && open.back()->end_ns <= e.start_ns) open.pop_back();
      if (open.empty()) {
        const bool user_scope =
            static_cast<KinetoType>(e.event->activityType()) == KinetoType::USER_ANNOTATION;
        top = Find(e.event->name(), user_scope);
        ++ops_[top].calls;
        if (!device_time_) ops_[top].time_ns += static_cast<int64_t>(e.end_ns - e.start_ns);
      } else if (open.size() == 1) {
        std::vector<std::string>& inner = ops_[top].inner;
        std::string name = e.event->name();
        if (std::find(inner.begin(), inner.end(), name) == inner.end()) {
          inner.push_back(std::move(name));
        }
      }
      top_of_[e.correlation] = top;
      open.push_back(&e);
    }
  }

  // A kernel, copy or memset on the device: its time goes to the outermost operator around the
  // operator that launched it (KinetoEvent::linkedCorrelationId names the launching operator's
  // correlation id, as torch.profiler links them); one no recorded operator launched is an op of
  // its own.
  void AddDeviceWork(const prof::KinetoEvent& e, OpProfile& profile) {
    size_t index = 0;
    const auto it = top_of_.find(e.linkedCorrelationId());
    if (it != top_of_.end()) {
      index = it->second;
    } else {
      index = Find(e.name(), /*user_scope=*/false);
      ++ops_[index].calls;
      profile.device_events_unlinked = true;
    }
    ops_[index].time_ns += static_cast<int64_t>(e.durationNs());
  }

  std::vector<TopLevelOp> Take() { return std::move(ops_); }

 private:
  size_t Find(const std::string& name, bool user_scope) {
    const auto [it, added] = index_.try_emplace(std::make_pair(name, user_scope), ops_.size());
    if (added) {
      ops_.emplace_back();
      ops_.back().name = name;
      ops_.back().user_scope = user_scope;
    }
    return it->second;
  }

  bool device_time_;
  std::vector<TopLevelOp> ops_;
  std::map<std::pair<std::string, bool>, size_t> index_;
  std::unordered_map<uint64_t, size_t> top_of_;  // any op's correlation id -> ops_ index
};

}  // namespace

OpProfile ProfileOps(const std::function<void()>& run, int runs, c10::Device device,
                     const std::string& compiler) {
  const std::string what = compiler + ": profiling with LibTorch's profiler";
  if (runs < 1) {
    throw CompileError(what + ": needs at least one run, got " + std::to_string(runs));
  }
  try {
    for (int i = 0; i < kWarmupRuns; ++i) run();
  } catch (const c10::Error& e) {
    throw CompileError(what + ": a warm-up run failed: " + e.what_without_backtrace());
  }

  // KINETO is the profiler torch.profiler runs; CPU activity is the RecordFunction events, CUDA
  // activity the GPU's kernels (CUPTI). Only operators and user scopes are recorded
  // (torch_profile.h says why).
  const prof::ProfilerConfig config(prof::ProfilerState::KINETO);
  std::set<prof::ActivityType> activities = {prof::ActivityType::CPU};
  if (device.is_cuda()) activities.insert(prof::ActivityType::CUDA);
  const std::unordered_set<at::RecordScope> scopes = {at::RecordScope::FUNCTION,
                                                      at::RecordScope::USER_SCOPE};
  OpProfile profile;
  profile.runs = runs;
  std::unique_ptr<prof::ProfilerResult> result;
  try {
    prof::prepareProfiler(config, activities);
    prof::enableProfiler(config, activities, scopes);
    try {
      for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        run();
        profile.wall_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::steady_clock::now() - start)
                               .count();
      }
    } catch (...) {
      // Stopped before the error goes on: a profiler left on would record every later run.
      prof::disableProfiler();
      throw;
    }
    result = prof::disableProfiler();
  } catch (const c10::Error& e) {
    throw CompileError(what + ": " + e.what_without_backtrace());
  }
  if (!result) throw CompileError(what + ": the profiler returned no result");

  const uint64_t thread = at::RecordFunction::currentThreadId();  // as the events name it
  std::vector<OpEvent> ops;
  std::vector<const prof::KinetoEvent*> device_work;
  for (const prof::KinetoEvent& e : result->events()) {
    // What torch.profiler hides from its own tables is not counted either.
    if (e.isHiddenEvent()) continue;
    if (IsOp(e)) {
      if (e.startThreadId() == thread) {
        ops.push_back({e.startNs(), e.endNs(), e.correlationId(), &e});
      } else {
        ++profile.other_thread_events;
      }
    } else if (IsDeviceWork(e)) {
      device_work.push_back(&e);
    }
  }
  Reducer reducer(/*device_time=*/device.is_cuda());
  reducer.AddOps(ops);
  for (const prof::KinetoEvent* e : device_work) reducer.AddDeviceWork(*e, profile);
  profile.ops = reducer.Take();
  if (profile.ops.empty()) {
    throw CompileError(what + ": the profiler recorded no operators in " + std::to_string(runs) +
                       " runs");
  }
  return profile;
}

KernelProfile ToKernelProfile(const OpProfile& profile, c10::Device device) {
  KernelProfile out;
  out.profiler = "LibTorch profiler (Kineto)";
  out.runs = profile.runs;
  int64_t covered_ns = 0;
  for (const TopLevelOp& op : profile.ops) {
    ProfiledKernel k;
    k.name = op.name;
    if (op.user_scope) {
      for (const std::string& inner : op.inner) {
        k.sdk_type += (k.sdk_type.empty() ? "" : "+") + inner;
      }
    } else {
      k.sdk_type = op.name;
    }
    k.calls = op.calls;
    k.time_ms = static_cast<double>(op.time_ns) / 1e6;
    k.device = device.str();
    out.kernels.push_back(std::move(k));
    covered_ns += op.time_ns;
  }

  char share[32] = "?";
  if (profile.wall_ns > 0) {
    std::snprintf(share, sizeof(share), "%.0f%%",
                  100.0 * static_cast<double>(covered_ns) / static_cast<double>(profile.wall_ns));
  }
  if (device.is_cuda()) {
    out.notes.push_back(std::string("times are the GPU's: the kernels, copies and memsets each "
                                    "outermost operator launched; together ") +
                        share + " of the profiled runs' wall time");
  } else {
    out.notes.push_back(std::string("times are the outermost recorded operators' host times, "
                                    "together ") +
                        share + " of the profiled runs' wall time; the rest is outside recorded "
                        "operators: the runtime's own work between them, and operators that "
                        "bypass LibTorch's dispatcher");
  }
  out.notes.push_back("the profiler's callbacks add a small cost of their own to each recorded "
                      "operator");
  if (profile.other_thread_events > 0) {
    out.notes.push_back(std::to_string(profile.other_thread_events) +
                        " operator calls recorded on other threads are not counted (intra-op "
                        "work, inside an operator of the inference's thread)");
  }
  if (profile.device_events_unlinked) {
    out.notes.push_back("device work that no recorded operator launched is listed under its own "
                        "name");
  }
  return out;
}

}  // namespace ngraphbench::torch_common
