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
};

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
};

// The rules of the verdict, in the order the reasons are given.
enum class ValidityRule { kWindow, kRepeats, kProcesses, kInterval, kCv, kOtherCpu, kDegraded };

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
std::string ValidityAdvice(ValidityRule rule);

}  // namespace ngraphbench
