#include "ngraphbench/measure/harness.h"

#include <algorithm>
#include <cmath>

#include "ngraphbench/core/error.h"
#include "ngraphbench/measure/clock.h"
#include "ngraphbench/measure/stats.h"
#include "ngraphbench/measure/verdict.h"  // kStallMinNs

namespace ngraphbench {

namespace {

// One iteration inside the timing boundary; returns its latency. `start` and `end`, when
// given, receive the clock's readings around it.
int64_t TimedIteration(Executable& executable, const std::vector<HostTensor>& inputs,
                       TimingBoundary boundary, MeasureClock::time_point* start = nullptr,
                       MeasureClock::time_point* end = nullptr) {
  MeasureClock::time_point started, ended;
  if (boundary == TimingBoundary::kCompute) {
    started = MeasureClock::now();
    executable.Run();
    ended = MeasureClock::now();
  } else {
    started = MeasureClock::now();
    executable.SetInputs(inputs);
    executable.Run();
    std::vector<HostTensor> outputs = executable.GetOutputs();
    ended = MeasureClock::now();
  }
  if (start) *start = started;
  if (end) *end = ended;
  return ElapsedNs(started, ended);
}

// The half-width of the median's 95% interval relative to the median, of a copy of `ns`;
// infinity while the sample is too small for an interval.
double RelativeHalfWidth(std::vector<int64_t> ns) {
  const auto ranks = MedianCiRanks(static_cast<int64_t>(ns.size()));
  if (!ranks) return INFINITY;
  std::sort(ns.begin(), ns.end());
  const double low = static_cast<double>(ns[static_cast<size_t>(ranks->first - 1)]);
  const double high = static_cast<double>(ns[static_cast<size_t>(ranks->second - 1)]);
  const size_t mid = ns.size() / 2;
  const double median = ns.size() % 2 ? static_cast<double>(ns[mid])
                                      : (static_cast<double>(ns[mid - 1]) + ns[mid]) / 2.0;
  return median > 0 ? (high - low) / 2.0 / median : INFINITY;
}

}  // namespace

StopRule ParseStopRule(const std::string& name) {
  if (name == "fixed") return StopRule::kFixed;
  if (name == "ci") return StopRule::kCi;
  throw InputError("stop rule '" + name + "' is not one of: fixed, ci");
}

TimingBoundary ParseTimingBoundary(const std::string& name) {
  if (name == "compute") return TimingBoundary::kCompute;
  if (name == "end_to_end") return TimingBoundary::kEndToEnd;
  throw InputError("timing_boundary '" + name + "' is not one of: compute, end_to_end");
}

Measurement Measure(Executable& executable, const std::vector<HostTensor>& inputs,
                    const MeasureOptions& options) {
  Measurement m;
  // Built before the first run: with a GPU to watch this loads NVML, which may take a second
  // that must not fall between the warmup and the timed runs.
  SystemSampler sampler(options.sample_period, kPowercapRoot, options.gpu);
  executable.SetInputs(inputs);
  m.first_run_ms = static_cast<double>(TimedIteration(executable, inputs, options.boundary)) / 1e6;
  if (options.capture_first_outputs) m.first_outputs = executable.GetOutputs();
  const bool capped = options.max_time.count() > 0;
  auto over_time = [&](MeasureClock::time_point phase_start) {
    return capped && MeasureClock::now() - phase_start >= options.max_time;
  };
  const auto warmup_start = MeasureClock::now();
  while (m.warmup_runs < options.warmup && !over_time(warmup_start)) {
    TimedIteration(executable, inputs, options.boundary);
    ++m.warmup_runs;
  }
  m.latencies_ns.reserve(static_cast<size_t>(options.repeats));
  const int64_t min_repeats = std::min(options.repeats, options.min_timed_repeats);
  const bool by_ci = options.stop == StopRule::kCi;
  sampler.Start();
  const auto timed_start = MeasureClock::now();
  int64_t next_ci_check = 0;
  auto done = [&]() -> const char* {
    const int64_t n = static_cast<int64_t>(m.latencies_ns.size());
    if (n >= min_repeats && over_time(timed_start)) return "time";
    if (n >= options.max_repeats && n >= (by_ci ? 1 : options.repeats)) return "max_repeats";
    const bool min_time_done =
        options.min_time.count() <= 0 || MeasureClock::now() - timed_start >= options.min_time;
    if (!by_ci) return n >= options.repeats && min_time_done ? "repeats" : nullptr;
    // The interval is checked at geometrically spaced counts (5% apart), so sorting copies
    // costs O(n log n) over the whole phase, between timed runs.
    if (n < options.ci_min_repeats || !min_time_done || n < next_ci_check) return nullptr;
    next_ci_check = n + std::max<int64_t>(1, n / 20);
    return RelativeHalfWidth(m.latencies_ns) <= options.ci_rel_target ? "ci" : nullptr;
  };
  const char* reason = nullptr;
  // From the end of one timed run to the start of the next: a stall there shows in no latency.
  MeasureClock::time_point previous_end = timed_start, start, end;
  while (!(reason = done())) {
    m.latencies_ns.push_back(TimedIteration(executable, inputs, options.boundary, &start, &end));
    if (const int64_t pause = ElapsedNs(previous_end, start); pause >= kStallMinNs) {
      m.pauses_ns.push_back(pause);
    }
    previous_end = end;
  }
  m.stop_reason = reason;
  m.system = sampler.Stop();
  m.window_s = m.system.window_s;
  return m;
}

}  // namespace ngraphbench
