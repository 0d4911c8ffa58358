// The offline scenario's timing loop (docs/measurement.md, Scenarios): `streams` requests in
// flight at once, each stream a thread looping Run() on an execution context of its own
// (Executable::NewContext), the cores split between them by the compiler. As MLPerf's Offline,
// what it measures is samples per second over the timed window; each request's latency is
// kept too. The harness owns the clock, as in harness.h: steady_clock, integer nanoseconds.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/measure/clock.h"
#include "ngraphbench/measure/harness.h"
#include "ngraphbench/measure/sampler.h"

namespace ngraphbench {

// TimedWindow's streams, first_run_ms (the first context's: the others' first runs come after it,
// each in turn, before any stream starts), latencies (every timed request, stream after stream)
// and window: from
// the moment every stream is released to the end of the last request (every request that started
// in the window ends in it: a stream finishes the request it is in when the stop rule is met);
// samples_per_s = batch_size x timed requests / window_s; stop_reason "repeats" (the timed
// requests of all streams together reached `repeats`, and min_time is over), "time" (max_time),
// "max_repeats".
struct OfflineMeasurement : TimedWindow {
  std::vector<int64_t> requests_per_stream;  // timed requests each stream completed
  // With capture_first_outputs: each stream's outputs of its first run, in stream order.
  std::vector<std::vector<HostTensor>> first_outputs;
};

// What the offline and the server harness (measure/server.h) share: the streams' threads.
// RunStreams places `inputs` in every context and runs each once (the first run timed, each
// context's outputs captured with options.capture_first_outputs), then starts one thread per
// context: each warms up (options.warmup runs, within options.max_time) and waits for the
// others. Once all are warm, `open` runs on the caller's thread (it starts the sampler, the load
// generator) and returns the window's start; every stream is then released into `serve`, which
// returns when the stream is done. A context that throws calls `stop` once (from its thread:
// it must make every `serve` return soon) and the first exception is rethrown once every
// stream has ended.
struct StreamHooks {
  std::function<MeasureClock::time_point()> open;
  std::function<void(size_t stream, RunContext& context, MeasureClock::time_point start)> serve;
  std::function<void()> stop;
};
struct StreamsRun {
  double first_run_ms = 0;  // the first context's first Run()
  int64_t warmup_runs = 0;  // per stream: the fewest any stream did
  std::vector<std::vector<HostTensor>> first_outputs;  // with capture_first_outputs
  MeasureClock::time_point start;  // what `open` returned
};
StreamsRun RunStreams(const std::vector<RunContext*>& contexts,
                      const std::vector<HostTensor>& inputs, const MeasureOptions& options,
                      const StreamHooks& hooks);

// One request inside options.boundary, as harness.cc's timed iteration: `latency_ns` is its
// time, the return value its end.
MeasureClock::time_point TimedRequest(RunContext& context, const std::vector<HostTensor>& inputs,
                                      TimingBoundary boundary, int64_t& latency_ns);

// Places `inputs` in every context and runs each once (timed, the first only kept), then runs
// one stream per context, a single one on the calling thread, several each on a thread of its
// own (offline.cc says why): each warms up (`warmup` runs, within max_time), waits for the others,
// and all are released together into the timed window, where each loops Run() (inside
// options.boundary) until the timed requests of all streams together meet the fixed stop rule
// of MeasureOptions (`repeats`, more under min_time, fewer at max_time but at least
// min_timed_repeats, at most max_repeats). options.stop must be kFixed: the `ci` rule decides on
// one stream's median. A context that throws stops every stream; the first exception is
// rethrown once all have ended. Throws std::invalid_argument for no contexts or stop ci.
OfflineMeasurement MeasureOffline(const std::vector<RunContext*>& contexts,
                                  const std::vector<HostTensor>& inputs, int64_t batch_size,
                                  const MeasureOptions& options);

}  // namespace ngraphbench
