#include "ngraphbench/measure/aggregate.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "ngraphbench/measure/harness.h"  // kMinTimedRepeats
#include "ngraphbench/measure/sampler.h"  // kMinSamplerPeriods

namespace ngraphbench {

namespace {

void AddOnce(const std::string& item, std::vector<std::string>& items) {
  if (std::find(items.begin(), items.end(), item) == items.end()) items.push_back(item);
}

// The reasons of the rules judged per process, each item once: what JudgeRun adds to the run's
// verdict, and what no further process can take back (BreaksUnmendableRule).
struct ProcessReasons {
  std::vector<std::string> stalled;  // "process 1: stalls took ..."
  std::vector<std::string> degraded;
  std::vector<std::string> scenario;
  bool any() const { return !stalled.empty() || !degraded.empty() || !scenario.empty(); }
};

ProcessReasons JudgeProcesses(const std::vector<ProcessSummary>& processes,
                              const ValiditySettings& settings) {
  ProcessReasons out;
  for (const ProcessSummary& p : processes) {
    // Stalls are judged in the process's own window: a stop of one process is not diluted by
    // the others' windows.
    if (const std::optional<std::string> stall = StallReason(p.stall_s, p.window_s, settings)) {
      out.stalled.push_back(p.process >= 0 ? fmt::format("process {}: {}", p.process, *stall)
                                           : *stall);
    }
    for (const std::string& item : p.degraded) AddOnce(item, out.degraded);
    for (const std::string& reason : p.scenario_reasons) AddOnce(reason, out.scenario);
  }
  return out;
}

}  // namespace

ProcessShare ShareOfRun(const RunWork& work, bool share_of_run) {
  const double share = share_of_run ? static_cast<double>(work.processes) : 1.0;
  auto shared = [&](int64_t n) {
    return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(static_cast<double>(n) / share)));
  };
  ProcessShare out;
  out.warmup = share_of_run ? std::min(work.warmup, std::max(kMinProcessWarmup,
                                                             shared(work.warmup)))
                            : work.warmup;
  out.repeats = shared(work.repeats);
  out.max_time_s = work.max_time_s / share;
  out.min_time_s = work.min_time_s / share;
  if (share_of_run && work.min_time_s > 0 && work.sample_period_ms > 0) {
    out.min_time_s =
        std::max(out.min_time_s, 1.2 * kMinSamplerPeriods * work.sample_period_ms / 1e3);
  }
  out.max_repeats = shared(work.max_repeats);
  out.min_timed_repeats = std::max<int64_t>(3, shared(kMinTimedRepeats));
  return out;
}

std::optional<double> RelHalfWidth(double low, double high, double median) {
  if (!(median > 0)) return std::nullopt;
  return (high - low) / 2 / median;
}

std::optional<PooledLatencies> PoolLatencies(const std::vector<ProcessSummary>& processes,
                                             int64_t batch_size) {
  PooledLatencies out;
  std::vector<int64_t> pooled;
  for (const ProcessSummary& p : processes) {
    if (p.latencies_ns.empty()) continue;
    pooled.insert(pooled.end(), p.latencies_ns.begin(), p.latencies_ns.end());
    out.process_p50s_ms.push_back(Summarize(p.latencies_ns, batch_size).p50_ms);
    out.window_s += p.window_s;
  }
  if (pooled.empty()) return std::nullopt;
  out.stats = Summarize(pooled, batch_size);
  out.repeats = static_cast<int64_t>(pooled.size());
  out.interval = ReproductionInterval(out.stats.p50_ms, out.process_p50s_ms);
  if (out.interval) {
    out.interval_rel = RelHalfWidth(out.interval->low, out.interval->high, out.stats.p50_ms);
  }
  return out;
}

Repetition NextRepetition(const std::vector<double>& medians, std::optional<double> interval_rel,
                          double target_rel, int64_t start, int64_t cap) {
  if (interval_rel && *interval_rel <= target_rel) return Repetition::kMet;
  const int64_t k = static_cast<int64_t>(medians.size());
  if (k >= cap) return Repetition::kCap;
  if (k >= std::max<int64_t>(start + 2, 3)) {
    if (const std::optional<LogSpread> spread = LogSpreadOf(medians)) {
      const int64_t needed = ProcessesForTarget(spread->sd, target_rel);
      if (needed == 0 || needed > 2 * cap) return Repetition::kSpread;
    }
  }
  return Repetition::kMore;
}

const char* RepetitionReason(Repetition decision) {
  switch (decision) {
    case Repetition::kMet: return "ci";
    case Repetition::kCap: return "max_processes";
    case Repetition::kSpread: return "spread";
    case Repetition::kInvalid: return "invalid";
    case Repetition::kMore: break;
  }
  return "";
}

bool BreaksUnmendableRule(const std::vector<ProcessSummary>& processes,
                          const ValiditySettings& validity) {
  return JudgeProcesses(processes, validity).any();
}

Repetition NextProcess(const std::vector<ProcessSummary>& processes, int64_t batch_size,
                       double target_rel, int64_t start, int64_t cap,
                       const ValiditySettings& validity) {
  const std::optional<PooledLatencies> pooled = PoolLatencies(processes, batch_size);
  const Repetition next =
      NextRepetition(pooled ? pooled->process_p50s_ms : std::vector<double>{},
                     pooled ? pooled->interval_rel : std::nullopt, target_rel, start, cap);
  if (next == Repetition::kMore && BreaksUnmendableRule(processes, validity)) {
    return Repetition::kInvalid;
  }
  return next;
}

std::string SpreadNote(const PooledLatencies& pooled, double max_ci_rel) {
  if (!pooled.interval_rel || !(*pooled.interval_rel > max_ci_rel)) return "";
  return DescribeProcessSpread(pooled.process_p50s_ms, max_ci_rel);
}

std::optional<double> WeightedMean(const std::vector<std::optional<double>>& values,
                                   const std::vector<std::optional<double>>& weights) {
  if (values.size() != weights.size()) return std::nullopt;
  double sum = 0, total = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!values[i] || !weights[i]) return std::nullopt;
    sum += *values[i] * *weights[i];
    total += *weights[i];
  }
  if (!(total > 0)) return std::nullopt;
  return sum / total;
}

std::optional<double> MaxOf(const std::vector<std::optional<double>>& values) {
  std::optional<double> out;
  for (const std::optional<double>& v : values) {
    if (v) out = out ? std::max(*out, *v) : *v;
  }
  return out;
}

std::string RunVerdict::Reasons() const {
  std::string out;
  for (const BrokenRule& b : broken) out += (out.empty() ? "" : "; ") + b.reason;
  for (const std::string& r : scenario_reasons) out += (out.empty() ? "" : "; ") + r;
  return out;
}

std::vector<ValidityRule> RunVerdict::Rules() const {
  std::vector<ValidityRule> out;
  for (const BrokenRule& b : broken) out.push_back(b.rule);
  return out;
}

RunVerdict JudgeRun(const std::vector<ProcessSummary>& measured, const RunFigures& run,
                    const ValiditySettings& settings, double min_time_s, int64_t max_repeats) {
  VerdictInput in;
  in.window_s = run.window_s;
  in.repeats = run.repeats;
  in.reached_max_repeats = run.repeats >= max_repeats;
  in.cv = run.cv;
  in.other_cpu_pct = run.other_cpu_pct;
  in.processes = static_cast<int64_t>(measured.size());
  in.ci_rel = run.interval_rel;
  ProcessReasons per_process = JudgeProcesses(measured, settings);
  in.stalled = std::move(per_process.stalled);
  in.degraded = std::move(per_process.degraded);
  RunVerdict out;
  out.scenario_reasons = std::move(per_process.scenario);
  out.broken = JudgeValidity(in, settings, min_time_s);
  return out;
}

}  // namespace ngraphbench
