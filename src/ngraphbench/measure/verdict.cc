#include "ngraphbench/measure/verdict.h"

#include <fmt/core.h>

namespace ngraphbench {

std::vector<BrokenRule> JudgeValidity(const VerdictInput& in, const ValiditySettings& settings,
                                      double min_time_s) {
  std::vector<BrokenRule> reasons;
  using R = ValidityRule;
  if (in.window_s < min_time_s && !in.reached_max_repeats) {
    reasons.push_back({R::kWindow,
        fmt::format("timed window {:.3g} s < min_time_s {:.3g}", in.window_s, min_time_s)});
  }
  if (in.repeats < settings.min_repeats) {
    reasons.push_back({R::kRepeats,
        fmt::format("{} timed runs < min_repeats {}", in.repeats, settings.min_repeats)});
  }
  if (in.processes < settings.min_processes) {
    reasons.push_back({R::kProcesses, fmt::format("{} process(es) < min_processes {}", in.processes,
                                  settings.min_processes)});
  }
  if (in.ci_rel && !(*in.ci_rel <= settings.max_ci_rel)) {
    reasons.push_back({R::kInterval, fmt::format("interval +-{:.3g}% > max_ci_rel {:.3g}%", *in.ci_rel * 100,
                                  settings.max_ci_rel * 100)});
  }
  if (settings.max_cv && in.cv && !(*in.cv <= *settings.max_cv)) {
    reasons.push_back({R::kCv, fmt::format("cv {:.3g} > max_cv {:.3g}", *in.cv, *settings.max_cv)});
  }
  if (in.other_cpu_pct && *in.other_cpu_pct > settings.max_other_cpu_pct) {
    reasons.push_back({R::kOtherCpu,
        fmt::format("other processes used {:.0f}% of a core > max_other_cpu_pct {:.3g}",
                    *in.other_cpu_pct, settings.max_other_cpu_pct)});
  }
  for (const auto& d : in.degraded) reasons.push_back({R::kDegraded, "degraded build: " + d});
  return reasons;
}

std::vector<std::string> InvalidReasons(const VerdictInput& in, const ValiditySettings& settings,
                                        double min_time_s) {
  std::vector<std::string> out;
  for (BrokenRule& b : JudgeValidity(in, settings, min_time_s)) out.push_back(std::move(b.reason));
  return out;
}

std::vector<ValidityRule> BrokenRules(const VerdictInput& in, const ValiditySettings& settings,
                                      double min_time_s) {
  std::vector<ValidityRule> out;
  for (const BrokenRule& b : JudgeValidity(in, settings, min_time_s)) out.push_back(b.rule);
  return out;
}

std::string ValidityAdvice(ValidityRule rule) {
  switch (rule) {
    case ValidityRule::kWindow:
      return "timed window shorter than min_time_s: raise max_time_s (--set max_time_s=...; "
             "--quick caps it at quick_max_time_s)";
    case ValidityRule::kRepeats:
      return "too few timed runs: raise max_time_s so that min_repeats runs fit";
    case ValidityRule::kProcesses:
      return "too few processes for an interval: measure with --processes 3 or more";
    case ValidityRule::kInterval:
      return "the processes' medians spread wider than max_ci_rel: measure at fewer threads "
             "(--set threads=1), on a quieter machine, or with a higher max_processes (each "
             "row's notes say how far its processes spread and how many it would need)";
    case ValidityRule::kCv:
      return "timed runs jitter beyond max_cv: a quieter machine, or leave max_cv unset";
    case ValidityRule::kOtherCpu:
      return "other processes used the CPUs during the timed runs: measure when no build, test "
             "or other sweep runs beside it";
    case ValidityRule::kDegraded:
      return "the compiler built less than asked (each row's invalid_reason says what: an "
             "untuned TVM build, another thread count, operators left outside the backend)";
  }
  return "";
}

}  // namespace ngraphbench
