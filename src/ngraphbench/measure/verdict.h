// The validity verdict of a measured run (as MLPerf LoadGen marks a run INVALID instead of
// hiding it): a row that breaks a rule is kept, with `valid=false` and its reasons, and analysis
// leaves it out of derived numbers by default.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ngraphbench {

// Thresholds, from configs/experiments.yaml `validity:` (min_time_s is a run setting: it also
// extends the timed phase).
struct ValiditySettings {
  // The between-process interval's half-width relative to the median (the precision of the
  // number a user quotes), and the fewest processes that give such an interval.
  double max_ci_rel = 0.05;
  int64_t min_processes = 3;
  // Coefficient of variation of the timed latencies: jitter, no verdict unless set.
  std::optional<double> max_cv;
  double max_other_cpu_pct = 50;  // CPU used by other processes over the window, % of one core
  int64_t min_repeats = 10;       // timed runs
  // The most of a process's timed window its stalls (FindStalls) may take: beyond it the
  // process was not measuring the model for a tenth of the time it reports on.
  double max_stall_share = 0.1;
};

// A stall: the process stopped (SIGSTOP, a suspended VM or container, swapping, a machine too
// busy to schedule it) during its timed runs. Seen as a timed run, or a pause between two timed
// runs, longer than both kStallMedianFactor times the process's median run and kStallMinNs: far
// beyond what the model's own jitter gives, and longer than any scheduler tick or page fault.
constexpr double kStallMedianFactor = 20;
constexpr int64_t kStallMinNs = 100'000'000;  // 100 ms

struct Stalls {
  int64_t median_ns = 0;   // the process's median timed run
  int64_t runs = 0;        // timed runs that were stalls
  int64_t pauses = 0;      // pauses between timed runs that were stalls
  int64_t longest_ns = 0;  // the longest of them
  int64_t total_ns = 0;    // their time, whole (a stalled run counts all its latency)
};

// The stalls among a process's timed runs `latencies_ns` and the pauses between consecutive
// ones, `pauses_ns` (the harness keeps those of kStallMinNs or more: Measurement::pauses_ns).
Stalls FindStalls(const std::vector<int64_t>& latencies_ns, const std::vector<int64_t>& pauses_ns);

// The row's note on them, e.g. "stalls: 1 timed run over 20x the median (1 ms) and 100 ms, the
// longest 40 s; 40 s in all, 89% of the 45 s timed window"; "" without stalls.
std::string DescribeStalls(const Stalls& stalls, double window_s);
// The stall rule on one process's window: the reason when stalls of `stall_s` seconds took more
// than max_stall_share of `window_s` ("stalls took 40 s, 80% of the timed window >
// max_stall_share 10%"), else nullopt. JudgeValidity's kStall, which the merge applies to each
// process in its own window.
std::optional<std::string> StallReason(double stall_s, double window_s,
                                       const ValiditySettings& settings);

// What the verdict looks at.
struct VerdictInput {
  double window_s = 0;  // wall time of the timed phase
  int64_t repeats = 0;  // timed runs
  // The timed phase ended at its max_repeats ceiling: a window shorter than min_time_s then
  // still holds that many runs, and is no reason to call the run invalid.
  bool reached_max_repeats = false;
  std::optional<double> cv;
  int64_t processes = 1;
  // The between-process interval's half-width / median ((high - low) / 2 / median); empty when
  // there is none (fewer than 2 processes).
  std::optional<double> ci_rel;
  std::optional<double> other_cpu_pct;  // empty: not measurable here, no verdict on it
  std::vector<std::string> degraded;    // what the compiler did less of than asked
  // The time this process's stalls took in its window (Stalls::total_ns, in s): judged against
  // max_stall_share of window_s. Where the parts of a run are merged, the merge judges each
  // process's stalls in its own window (StallReason, measure/aggregate.h's JudgeRun): `stalled`
  // holds their reasons ("process 1: stalls took ...").
  double stall_s = 0;
  std::vector<std::string> stalled;
};

// The rules of the verdict, in the order the reasons are given.
enum class ValidityRule {
  kWindow,
  kRepeats,
  kProcesses,
  kInterval,
  kCv,
  kOtherCpu,
  kStall,
  kDegraded
};

// Each rule the run breaks, in a fixed order, with its reason naming the value and the
// threshold; empty when it is valid. InvalidReasons and BrokenRules are its two halves.
struct BrokenRule {
  ValidityRule rule;
  std::string reason;
};
std::vector<BrokenRule> JudgeValidity(const VerdictInput& input, const ValiditySettings& settings,
                                      double min_time_s);

// The reasons the run is invalid, in a fixed order, each naming the value and the threshold;
// empty when it is valid.
std::vector<std::string> InvalidReasons(const VerdictInput& input, const ValiditySettings& settings,
                                        double min_time_s);
// The rules behind InvalidReasons, one per reason, in the same order.
std::vector<ValidityRule> BrokenRules(const VerdictInput& input, const ValiditySettings& settings,
                                      double min_time_s);

// What a user can change so that rows breaking `rule` become valid: a sweep's closing lines.
// `threads`: the most threads any of those rows ran at (0: unknown); kInterval suggests fewer
// threads only where some row ran at more than one.
std::string ValidityAdvice(ValidityRule rule, int64_t threads = 0);

}  // namespace ngraphbench
