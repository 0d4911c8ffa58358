#include "ngraphbench/measure/verdict.h"

#include <fmt/core.h>

namespace ngraphbench {

std::vector<std::string> InvalidReasons(const VerdictInput& in, const ValiditySettings& settings,
                                        double min_time_s) {
  std::vector<std::string> reasons;
  if (in.window_s < min_time_s && !in.reached_max_repeats) {
    reasons.push_back(
        fmt::format("timed window {:.3g} s < min_time_s {:.3g}", in.window_s, min_time_s));
  }
  if (in.repeats < settings.min_repeats) {
    reasons.push_back(
        fmt::format("{} timed runs < min_repeats {}", in.repeats, settings.min_repeats));
  }
  if (in.processes < settings.min_processes) {
    reasons.push_back(fmt::format("{} process(es) < min_processes {}", in.processes,
                                  settings.min_processes));
  }
  if (in.ci_rel && !(*in.ci_rel <= settings.max_ci_rel)) {
    reasons.push_back(fmt::format("interval +-{:.3g}% > max_ci_rel {:.3g}%", *in.ci_rel * 100,
                                  settings.max_ci_rel * 100));
  }
  if (settings.max_cv && in.cv && !(*in.cv <= *settings.max_cv)) {
    reasons.push_back(fmt::format("cv {:.3g} > max_cv {:.3g}", *in.cv, *settings.max_cv));
  }
  if (in.other_cpu_pct && *in.other_cpu_pct > settings.max_other_cpu_pct) {
    reasons.push_back(
        fmt::format("other processes used {:.0f}% of a core > max_other_cpu_pct {:.3g}",
                    *in.other_cpu_pct, settings.max_other_cpu_pct));
  }
  for (const auto& d : in.degraded) reasons.push_back("degraded build: " + d);
  return reasons;
}

}  // namespace ngraphbench
