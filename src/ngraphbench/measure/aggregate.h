// The statistics of a run measured in several worker processes (measure/repeat.h says why a
// process, not a timed run, is the unit): each process's share of the run's work, the pooled
// latency statistics and the between-process interval, whether the run needs another process
// (stop `ci`), the system figures pooled, and the run's verdict. Pure functions over what each
// process measured (ProcessSummary); the runner reads the processes' parts, calls these and
// fills the row.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/measure/repeat.h"
#include "ngraphbench/measure/stats.h"
#include "ngraphbench/measure/verdict.h"

namespace ngraphbench {

// One process's share of a run of `processes` processes (the whole run for one): the run's
// timed work stays what one process would do, so each times its share of the timed runs and of
// the time caps (the warmup's cap too), and warms up its share of the warmup runs, at least
// kMinProcessWarmup of them (a fresh process's caches and allocator; docs/measurement.md,
// "Warmup of each process", has the runs after which a fresh process's latency settles).
struct RunWork {
  int64_t warmup = 10;
  int64_t repeats = 100;
  double max_time_s = 0;
  double min_time_s = 0;
  int64_t max_repeats = 100000;
  int64_t processes = 1;
  // The sampler's period (0: none): each process's window still holds kMinSamplerPeriods of
  // them, and a fifth more, so that timer slack does not drop its CPU figures.
  double sample_period_ms = 0;
};
// The fewest warmup runs a process of several does (fewer only if `warmup` asks for fewer).
constexpr int64_t kMinProcessWarmup = 4;
struct ProcessShare {
  int64_t warmup = 0;
  int64_t repeats = 1;
  double max_time_s = 0;
  double min_time_s = 0;
  int64_t max_repeats = 1;
  // The fewest timed runs a time cap may leave: the run keeps kMinTimedRepeats in all, each
  // process at least 3 (a median of its own).
  int64_t min_timed_repeats = 3;
};
// `share_of_run`: one process of several (a part); false: the whole run in this process.
ProcessShare ShareOfRun(const RunWork& work, bool share_of_run);

// What one process of a run measured, as the run's statistics and verdict need it. `process`
// is its index, -1 for a run measured whole in one process (its reasons then name no process).
struct ProcessSummary {
  int process = -1;
  std::vector<int64_t> latencies_ns;  // its timed runs; empty: it measured nothing
  double window_s = 0;                // its timed window
  double stall_s = 0;                 // the time its stalls took in it (Stalls::total_ns, in s)
  // When its timed runs ended, Unix time in ms (0: not known, a part of an older version): the
  // order of two runs' processes in time (measure/repeat.h, ProcessesPairedInTime).
  int64_t timed_end_unix_ms = 0;
  // What its build did less of than asked (Executable::Degraded, the affinity, the threads).
  std::vector<std::string> degraded;
  // The scenario's own reasons the process's measurement is invalid (server: measure/server.h;
  // find_peak finding no rate), each a whole reason.
  std::vector<std::string> scenario_reasons;
};

// The timed runs of every process that measured, pooled.
struct PooledLatencies {
  LatencyStats stats;                    // of the pooled timed runs
  int64_t repeats = 0;                   // pooled timed runs
  std::vector<double> process_p50s_ms;   // each measuring process's median, in order
  std::optional<Interval> interval;      // between-process reproduction interval (repeat.h)
  std::optional<double> interval_rel;    // its half-width relative to the median
  double window_s = 0;                   // the processes' windows, summed
};
// Nullopt when no process measured.
std::optional<PooledLatencies> PoolLatencies(const std::vector<ProcessSummary>& processes,
                                             int64_t batch_size);

// The half-width of [low, high] relative to `median`, (high - low) / 2 / median; nullopt for a
// median <= 0.
std::optional<double> RelHalfWidth(double low, double high, double median);

// Adaptive repetition (stop `ci`): a run starts with its first `start` processes and gets one
// more at a time while the interval of its median (half-width / median, `interval_rel`; none
// while fewer than two processes measured) is wider than `target_rel`, up to `cap`. It stops
// early when, after at least start + 2 processes, the spread of their medians (`medians`) would
// need more than twice `cap` processes to reach the target: more processes would only cost time.
// NextProcess also stops a run whose processes already break a rule that no further process
// can mend (BreaksUnmendableRule).
enum class Repetition {
  kMet,      // the interval is within the target: the run is complete ("ci")
  kMore,     // another process
  kCap,      // the target is not met, and the run has its `cap` processes ("max_processes")
  kSpread,   // the target is out of reach at this spread ("spread")
  kInvalid,  // the target is not met, and the row is invalid whatever follows ("invalid")
};
Repetition NextRepetition(const std::vector<double>& medians, std::optional<double> interval_rel,
                          double target_rel, int64_t start, int64_t cap);
// The row's processes_reason for a decision other than kMore.
const char* RepetitionReason(Repetition decision);

// Whether `processes` already break a rule of the verdict that JudgeRun judges per process (the
// same judgement), so that no further process can make their run valid: a degraded build, stalls
// over `validity`'s share of a process's window, the scenario's own reasons (the interval, the
// pooled jitter, the other CPU use and the window are the run's, which more processes change).
bool BreaksUnmendableRule(const std::vector<ProcessSummary>& processes,
                          const ValiditySettings& validity);

// Stop `ci`: whether a run whose processes measured `processes` is complete or gets another
// process (NextRepetition on their medians and pooled interval); kInvalid instead of kMore when
// the row is invalid whatever more processes measure (BreaksUnmendableRule).
Repetition NextProcess(const std::vector<ProcessSummary>& processes, int64_t batch_size,
                       double target_rel, int64_t start, int64_t cap,
                       const ValiditySettings& validity);

// The row's note on a run whose interval is wider than `max_ci_rel`: how far its processes'
// medians spread and what that spread would need (DescribeProcessSpread); "" otherwise.
std::string SpreadNote(const PooledLatencies& pooled, double max_ci_rel);

// A system figure pooled over the processes: the mean of `values` weighted by `weights` (nullopt
// unless every process has both, and their weights sum above 0), or the largest of `values`
// (nullopt when none has one).
std::optional<double> WeightedMean(const std::vector<std::optional<double>>& values,
                                   const std::vector<std::optional<double>>& weights);
std::optional<double> MaxOf(const std::vector<std::optional<double>>& values);

// The figures of the run as a whole that its verdict looks at beyond the processes' own.
struct RunFigures {
  double window_s = 0;  // the timed windows, summed
  int64_t repeats = 0;  // the timed runs, pooled
  std::optional<double> cv;             // of the pooled timed runs
  std::optional<double> other_cpu_pct;  // window-weighted over the processes
  std::optional<double> interval_rel;   // PooledLatencies::interval_rel
};

// The run's verdict: the rules of measure/verdict.h it breaks, in their order (stalls judged per
// process, in its own window; what any build did less of than asked, each item once), then the
// scenario's own reasons of every process, each once.
struct RunVerdict {
  std::vector<BrokenRule> broken;
  std::vector<std::string> scenario_reasons;
  bool valid() const { return broken.empty() && scenario_reasons.empty(); }
  // Every reason, "; "-joined: the row's invalid_reason.
  std::string Reasons() const;
  std::vector<ValidityRule> Rules() const;
};
RunVerdict JudgeRun(const std::vector<ProcessSummary>& measured, const RunFigures& run,
                    const ValiditySettings& settings, double min_time_s, int64_t max_repeats);

}  // namespace ngraphbench
