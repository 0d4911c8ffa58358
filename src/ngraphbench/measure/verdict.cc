#include "ngraphbench/measure/verdict.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstddef>

namespace ngraphbench {

std::optional<std::string> StallReason(double stall_s, double window_s,
                                       const ValiditySettings& settings) {
  if (!(window_s > 0 && stall_s > settings.max_stall_share * window_s)) return std::nullopt;
  return fmt::format("stalls took {:.3g} s, {:.0f}% of the timed window > max_stall_share {:.3g}%",
                     stall_s, 100 * stall_s / window_s, 100 * settings.max_stall_share);
}

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
  if (std::optional<std::string> stall = StallReason(in.stall_s, in.window_s, settings)) {
    reasons.push_back({R::kStall, std::move(*stall)});
  }
  for (const auto& s : in.stalled) reasons.push_back({R::kStall, s});
  for (const auto& d : in.degraded) reasons.push_back({R::kDegraded, "degraded build: " + d});
  return reasons;
}

namespace {

// The median (the upper one of an even count) of `ns`, non-empty.
int64_t MedianNs(std::vector<int64_t> ns) {
  const auto middle = ns.begin() + static_cast<std::ptrdiff_t>(ns.size() / 2);
  std::nth_element(ns.begin(), middle, ns.end());
  return *middle;
}

}  // namespace

Stalls FindStalls(const std::vector<int64_t>& latencies_ns,
                  const std::vector<int64_t>& pauses_ns) {
  Stalls stalls;
  if (latencies_ns.empty()) return stalls;
  stalls.median_ns = MedianNs(latencies_ns);
  const double threshold = std::max(static_cast<double>(kStallMinNs),
                                    kStallMedianFactor * static_cast<double>(stalls.median_ns));
  const auto count = [&](int64_t ns, int64_t& counter) {
    if (static_cast<double>(ns) <= threshold) return;
    ++counter;
    stalls.total_ns += ns;
    stalls.longest_ns = std::max(stalls.longest_ns, ns);
  };
  for (const int64_t ns : latencies_ns) count(ns, stalls.runs);
  for (const int64_t ns : pauses_ns) count(ns, stalls.pauses);
  return stalls;
}

std::string DescribeStalls(const Stalls& stalls, double window_s) {
  if (stalls.runs == 0 && stalls.pauses == 0) return "";
  std::string what;
  if (stalls.runs > 0) {
    what = fmt::format("{} timed run{}", stalls.runs, stalls.runs == 1 ? "" : "s");
  }
  if (stalls.pauses > 0) {
    what += fmt::format("{}{} pause{} between timed runs", what.empty() ? "" : " and ",
                        stalls.pauses, stalls.pauses == 1 ? "" : "s");
  }
  const double total_s = static_cast<double>(stalls.total_ns) / 1e9;
  return fmt::format("stalls: {} over {:g}x the median ({:.3g} ms) and {:g} ms, the longest {:.3g} s; "
                     "{:.3g} s in all, {:.0f}% of the {:.3g} s timed window",
                     what, kStallMedianFactor,
                     static_cast<double>(stalls.median_ns) / 1e6,
                     static_cast<double>(kStallMinNs) / 1e6,
                     static_cast<double>(stalls.longest_ns) / 1e9, total_s,
                     window_s > 0 ? 100 * total_s / window_s : 100.0, window_s);
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

std::string ValidityAdvice(ValidityRule rule, int64_t threads) {
  switch (rule) {
    case ValidityRule::kWindow:
      return "timed window shorter than min_time_s: raise max_time_s (--set max_time_s=...; "
             "--quick caps it at quick_max_time_s)";
    case ValidityRule::kRepeats:
      return "too few timed runs: raise max_time_s so that min_repeats runs fit";
    case ValidityRule::kProcesses:
      return "too few processes for an interval: measure with --processes 3 or more";
    case ValidityRule::kInterval:
      return std::string("the processes' medians spread wider than max_ci_rel: measure ") +
             (threads == 1 ? "" : "at fewer threads (--set threads=1), ") +
             "on a quieter machine, or with a higher max_processes (--set max_processes=N; each "
             "row's notes say how far its processes spread and how many it would need)";
    case ValidityRule::kCv:
      return "timed runs jitter beyond max_cv: a quieter machine, or leave max_cv unset";
    case ValidityRule::kOtherCpu:
      return "other processes used the CPUs during the timed runs: measure when no build, test "
             "or other sweep runs beside it";
    case ValidityRule::kStall:
      return "a process stopped during its timed runs (its notes say how long): a suspended or "
             "stopped process, a VM or container paused, the machine swapping or too busy to "
             "schedule it; measure again on a machine where nothing pauses the workers";
    case ValidityRule::kDegraded:
      return "the compiler built less than asked, or the CPU was emulated (each row's "
             "invalid_reason says what: an untuned TVM build, another thread count, operators "
             "left outside the backend, qemu-user, whose timings mean nothing)";
  }
  return "";
}

}  // namespace ngraphbench
