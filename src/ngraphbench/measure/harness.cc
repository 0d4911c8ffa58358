#include "ngraphbench/measure/harness.h"

#include <algorithm>

#include "ngraphbench/core/error.h"

namespace ngraphbench {

namespace {

using Clock = std::chrono::steady_clock;

int64_t ElapsedNs(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
}

// One iteration inside the timing boundary; returns its latency.
int64_t TimedIteration(Executable& executable, const std::vector<HostTensor>& inputs,
                       TimingBoundary boundary) {
  if (boundary == TimingBoundary::kCompute) {
    const auto start = Clock::now();
    executable.Run();
    return ElapsedNs(start, Clock::now());
  }
  const auto start = Clock::now();
  executable.SetInputs(inputs);
  executable.Run();
  std::vector<HostTensor> outputs = executable.GetOutputs();
  const auto end = Clock::now();
  return ElapsedNs(start, end);
}

}  // namespace

TimingBoundary ParseTimingBoundary(const std::string& name) {
  if (name == "compute") return TimingBoundary::kCompute;
  if (name == "end_to_end") return TimingBoundary::kEndToEnd;
  throw InputError("timing_boundary '" + name + "' is not one of: compute, end_to_end");
}

Measurement Measure(Executable& executable, const std::vector<HostTensor>& inputs,
                    const MeasureOptions& options) {
  Measurement m;
  executable.SetInputs(inputs);
  m.first_run_ms = static_cast<double>(TimedIteration(executable, inputs, options.boundary)) / 1e6;
  if (options.capture_first_outputs) m.first_outputs = executable.GetOutputs();
  const bool capped = options.max_time.count() > 0;
  auto over_time = [&](Clock::time_point phase_start) {
    return capped && Clock::now() - phase_start >= options.max_time;
  };
  const auto warmup_start = Clock::now();
  while (m.warmup_runs < options.warmup && !over_time(warmup_start)) {
    TimedIteration(executable, inputs, options.boundary);
    ++m.warmup_runs;
  }
  m.latencies_ns.reserve(static_cast<size_t>(options.repeats));
  const int64_t min_repeats = std::min(options.repeats, kMinTimedRepeats);
  SystemSampler sampler(options.sample_period);
  sampler.Start();
  const auto timed_start = Clock::now();
  auto under_min_time = [&] {
    return options.min_time.count() > 0 &&
           static_cast<int64_t>(m.latencies_ns.size()) < options.max_repeats &&
           Clock::now() - timed_start < options.min_time;
  };
  while (static_cast<int64_t>(m.latencies_ns.size()) < options.repeats || under_min_time()) {
    m.latencies_ns.push_back(TimedIteration(executable, inputs, options.boundary));
    if (static_cast<int64_t>(m.latencies_ns.size()) >= min_repeats && over_time(timed_start)) {
      break;
    }
  }
  m.system = sampler.Stop();
  return m;
}

}  // namespace ngraphbench
