// The server scenario's harness (docs/measurement.md, Scenarios): queries arrive as a seeded
// Poisson process at a target rate, issued by the harness's own load-generator thread, each
// served by the first free stream (the offline scenario's streams, measure/offline.h: one thread
// and one execution context each, a queue between them and the generator). As in MLPerf
// LoadGen's Server scenario, a query's latency runs from its *scheduled* arrival to its
// completion, queueing included, so a generator that issues late never flatters the system
// under test; a percentile of those latencies against a bound decides the result. The harness
// owns the clock: steady_clock, integer nanoseconds.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/core/random.h"
#include "ngraphbench/measure/harness.h"
#include "ngraphbench/measure/sampler.h"

namespace ngraphbench {

// Arrivals of a Poisson process: independent exponential gaps of mean 1 / qps, each by inversion
// of one PortableRng uniform (core/random.h), gap = -ln(1 - u) / qps, so that a seed gives the
// same arrivals on every machine and a rate scales the same gaps (find_peak's steps see one
// arrival pattern, stretched or squeezed).
class PoissonArrivals {
 public:
  // Throws std::invalid_argument unless qps > 0.
  PoissonArrivals(double qps, uint64_t seed);
  double NextGapS();  // seconds from the previous arrival (the first: from the start)

 private:
  double qps_;
  PortableRng rng_;
};

// The validity rules (docs/measurement.md, Server validity): LoadGen's Server rules scaled to a
// tool whose runs last seconds, not LoadGen's 600 s and 270,336 queries.
// The tail a percentile needs: at least this many queries beyond it.
constexpr int64_t kServerTailQueries = 10;
// A query issued later than this after its scheduled arrival is late ...
constexpr double kServerLateIssueMinMs = 1.0;       // ... at least this,
constexpr double kServerLateIssueBoundShare = 0.1;  // ... or this share of the bound, the larger
// ... and the generator fell behind when more than this share of its queries were late.
constexpr double kServerMaxLateShare = 0.01;

// The fewest queries for `percentile` (in (0, 100)) to have kServerTailQueries beyond it:
// ceil(kServerTailQueries / (1 - percentile / 100)); p99: 1000, p90: 100, p50: 20.
int64_t MinServerQueries(double percentile);

struct ServerOptions {
  double target_qps = 0;        // > 0
  double latency_bound_ms = 0;  // > 0
  double percentile = 99;       // in (0, 100)
  uint64_t seed = 0;            // of the arrivals
  // The generator issues until both hold (LoadGen's min_duration and min_query_count) ...
  std::chrono::duration<double> min_duration{10};
  int64_t min_queries = 1000;
  // ... or it has issued for this long (0 = no cap): then the run is INVALID if either
  // minimum is not met.
  std::chrono::duration<double> max_duration{60};
};

// The server's own validity rules (docs/measurement.md, Server validity).
enum class ServerRule {
  kQueries,          // too few queries for the percentile
  kDuration,         // too short an issuing window
  kGeneratorBehind,  // the load generator fell behind its arrivals
};

// TimedWindow's latencies: one per issued query, completion - scheduled arrival (a query still
// queued when the drain ended has the time it had waited by then: a lower bound, beyond the
// bound, see ServerDrain); window_s from the start to the last completion; samples_per_s
// batch_size x achieved_qps; stop_reason "queries" (both minimums met) or "time" (max_duration
// cut the issuing short); first_run_ms as OfflineMeasurement's.
struct ServerMeasurement : TimedWindow {
  double target_qps = 0;
  int64_t issued = 0;
  int64_t completed = 0;  // issued less those still queued when the drain ended
  double issue_s = 0;       // from the start to the last query's scheduled arrival
  double achieved_qps = 0;  // completed / window_s
  // How late the generator issued (actual - scheduled), and how many were late
  // (ServerLateIssueMs).
  double issue_delay_p99_ms = 0;
  int64_t late_issues = 0;
  // The latency at `percentile` (Percentile over latencies_ns) and whether it is within the
  // bound.
  double percentile_ms = 0;
  bool bound_met = false;
  std::vector<std::string> invalid_reasons;  // ServerInvalidReasons
  std::vector<ServerRule> invalid_rules;     // the rule of each of them, in the same order
  std::vector<std::vector<HostTensor>> first_outputs;  // with capture_first_outputs
};

// How late a query may be issued before it counts as late: the larger of
// kServerLateIssueMinMs and kServerLateIssueBoundShare of the bound.
double ServerLateIssueMs(double latency_bound_ms);

// Each server rule the run breaks (empty: valid), in ServerRule's order, with its reason naming
// the value and the rule: too few queries for the percentile, too short an issuing window, a
// generator that fell behind. ServerInvalidReasons: the reasons alone.
struct ServerBroken {
  ServerRule rule;
  std::string reason;
};
std::vector<ServerBroken> JudgeServer(const ServerMeasurement& m, const ServerOptions& options);
std::vector<std::string> ServerInvalidReasons(const ServerMeasurement& m,
                                              const ServerOptions& options);

// The drain after the last arrival: the streams serve what is queued for at most this long,
// the larger of 1 s and twice the bound; a query still queued then has waited past the bound.
std::chrono::duration<double> ServerDrain(double latency_bound_ms);

// Runs the contexts as RunStreams does (first runs, warmup from `options`), then, once all are
// warm, the load generator issues Poisson arrivals at options.target_qps into a queue that the
// streams serve, until the issuing rule of ServerOptions ends it, and the streams drain the
// queue (ServerDrain). Fills the verdict (bound_met, invalid_reasons, invalid_rules). Throws
// std::invalid_argument for no contexts or options out of range, and rethrows a context's error
// once every stream has ended.
ServerMeasurement MeasureServer(const std::vector<RunContext*>& contexts,
                                const std::vector<HostTensor>& inputs, int64_t batch_size,
                                const MeasureOptions& options, const ServerOptions& server);

// find_peak: the highest rate that meets the bound, searched as LoadGen's FindPeakPerformance:
// from `start_qps`, double while a rate meets it (a lower bound) until one fails (an upper
// bound), or halve while it fails until one meets; then bisect [lower, upper] until
// upper - lower <= rel_tolerance x lower. `meets(qps)` measures one step. At most `max_steps`
// steps, and no rate below min_qps (then no peak).
struct PeakStep {
  double qps = 0;
  bool met = false;
};
struct PeakSearch {
  std::optional<double> peak_qps;  // the highest rate measured that met it; none: none did
  std::vector<PeakStep> steps;     // in the order measured
  std::string stop_reason;  // "tolerance", "max_steps", "min_qps" (nothing met down to it)
};
// A step that met the bound, and validly (no ServerRule broken): what find_peak counts as met.
bool MetTheBound(const ServerMeasurement& step);
// Whether a run's row reports `step` in place of `reported` (the step it reports so far, none:
// nullptr): the peak's step, the highest rate that met the bound so far; until one has, the
// latest.
bool ReportsStep(const ServerMeasurement& step, const ServerMeasurement* reported);
constexpr double kPeakRelTolerance = 0.05;
constexpr int kPeakMaxSteps = 16;
PeakSearch FindPeak(double start_qps, const std::function<bool(double qps)>& meets,
                    double rel_tolerance = kPeakRelTolerance, int max_steps = kPeakMaxSteps,
                    double min_qps = 0.01);

}  // namespace ngraphbench
