// The timing loop. The harness owns the clock (steady_clock, integer ns); compilers never time
// themselves. Executable::Run() is synchronous, so the clock stops after the device is done.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/measure/sampler.h"

namespace ngraphbench {

enum class TimingBoundary {
  kCompute,    // Run() only: inputs already placed, outputs left where the compiler put them
  kEndToEnd,   // SetInputs() + Run() + GetOutputs(): host to host
};

// "compute" / "end_to_end"; throws InputError for anything else.
TimingBoundary ParseTimingBoundary(const std::string& name);

// When the timed phase ends (`stop` in experiments.yaml, --stop on the command line).
enum class StopRule {
  kFixed,  // the paper's protocol: `repeats` timed runs (more under min_time, fewer at max_time)
  kCi,     // until the median's 95% interval is within ci_rel_target of it (at least
           // ci_min_repeats runs and min_time), or max_repeats / max_time
};

// "fixed" / "ci"; throws InputError for anything else.
StopRule ParseStopRule(const std::string& name);

struct MeasureOptions {
  int64_t warmup = 10;
  int64_t repeats = 100;
  TimingBoundary boundary = TimingBoundary::kCompute;
  std::chrono::milliseconds sample_period{10};  // 0 turns the sampler thread off
  // Time cap on the warmup and, separately, on the timed runs (0 = none): a phase stops early
  // once it has run this long, the timed phase only after kMinTimedRepeats runs. Keeps the
  // largest models from taking hours at 100 repeats, as benchmark_app's -t does.
  std::chrono::duration<double> max_time{0};
  // The timed phase goes on past `repeats` until it has run this long (max_time still caps it),
  // so microsecond-scale runs hold enough sampler periods for honest system figures.
  std::chrono::duration<double> min_time{0};
  int64_t max_repeats = 100000;  // ceiling on the runs min_time (or the ci rule) may add
  // The fewest timed runs max_time may leave (fewer only if `repeats` asks for fewer): one of a
  // run's several processes needs fewer, since the run pools them.
  int64_t min_timed_repeats = 10;
  StopRule stop = StopRule::kFixed;
  double ci_rel_target = 0.02;  // kCi: the interval's half-width relative to the median
  int64_t ci_min_repeats = 30;  // kCi: the fewest timed runs before the interval may stop it
  // Copy the outputs of the first run to the host (outside any timing) for the output check.
  bool capture_first_outputs = false;
  // Watch the NVIDIA GPU from the sampler thread (runs whose compiler computes on "cuda").
  std::optional<GpuMonitorSettings> gpu;
};

// The fewest timed runs a time cap may leave a run (fewer only if `repeats` asks for fewer).
constexpr int64_t kMinTimedRepeats = 10;

// What the timed window of every scenario gives (single stream here, offline in offline.h,
// server in server.h), each scenario's result built on it: the worker fills the row's columns of
// a measurement from it, in one place.
struct TimedWindow {
  // Requests in flight at once (offline and server: the execution contexts); 0 for a single
  // stream, which has neither streams nor samples_per_s.
  int64_t streams = 0;
  // The first Run() after compilation (with streams: the first context's, the cold one), not in
  // the stats.
  double first_run_ms = 0;
  int64_t warmup_runs = 0;  // warmup runs done (fewer than asked under max_time; per stream:
                            // the fewest any stream did)
  // One per timed request, raw (offline: stream after stream; server: each query's from its
  // scheduled arrival to its completion).
  std::vector<int64_t> latencies_ns;
  double window_s = 0;       // the timed window's wall time
  double samples_per_s = 0;  // with streams: batch_size x requests / window_s
  SystemStats system;        // over the window only
  // Why the timed phase ended: "repeats" (the fixed count), "ci" (the interval was narrow
  // enough), "time" (max_time), "max_repeats" (the ceiling on timed runs); server: "queries"
  // (both minimums met), "time".
  std::string stop_reason;
};

struct Measurement : TimedWindow {
  // The pauses between two consecutive timed runs (the end of one to the start of the next,
  // the stop rule's check included) of kStallMinNs or more (measure/verdict.h): the process
  // stopped there. Without stalls, empty.
  std::vector<int64_t> pauses_ns;
  std::vector<HostTensor> first_outputs;  // with capture_first_outputs
};

// Places `inputs`, times the first run, discards `warmup` runs, then times `repeats` runs (more
// while under min_time, fewer when max_time cuts the phase short).
Measurement Measure(Executable& executable, const std::vector<HostTensor>& inputs,
                    const MeasureOptions& options);

}  // namespace ngraphbench
