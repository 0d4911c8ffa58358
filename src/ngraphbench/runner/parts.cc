#include "ngraphbench/runner/parts.h"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/measure/repeat.h"
#include "ngraphbench/measure/stats.h"
#include "ngraphbench/measure/verdict.h"
#include "ngraphbench/results/claim.h"
#include "ngraphbench/results/csv.h"

namespace ngraphbench {

namespace {

constexpr const char* kDegradedPrefix = "degraded build: ";
constexpr const char* kServerPrefix = "server: ";

std::string PartStem(const std::string& run_id, int process) {
  return run_id + ".p" + std::to_string(process);
}

// The mean of `value` over the parts weighted by `weight`; empty unless every part has both.
template <typename Value, typename Weight>
std::optional<double> WeightedMean(const std::vector<Part>& parts, Value value, Weight weight) {
  double sum = 0, total = 0;
  for (const Part& p : parts) {
    const std::optional<double> v = value(p.row), w = weight(p.row);
    if (!v || !w) return std::nullopt;
    sum += *v * *w;
    total += *w;
  }
  if (!(total > 0)) return std::nullopt;
  return sum / total;
}

template <typename Value>
std::optional<double> Max(const std::vector<Part>& parts, Value value) {
  std::optional<double> out;
  for (const Part& p : parts) {
    if (const std::optional<double> v = value(p.row)) out = out ? std::max(*out, *v) : *v;
  }
  return out;
}

std::optional<double> Repeats(const ResultRow& r) {
  return r.repeats ? std::optional<double>(static_cast<double>(*r.repeats)) : std::nullopt;
}

// "; "-joined items of every part's `text`, each once, in first-seen order.
template <typename Text>
std::string Union(const std::vector<Part>& parts, Text text, const std::string& sep) {
  std::vector<std::string> items;
  for (const Part& p : parts) {
    const std::string t = text(p.row);
    size_t start = 0;
    while (start < t.size()) {
      const size_t end = std::min(t.find(sep, start), t.size());
      const std::string item = t.substr(start, end - start);
      if (!item.empty() && std::find(items.begin(), items.end(), item) == items.end()) {
        items.push_back(item);
      }
      start = end + sep.size();
    }
  }
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : sep) + item;
  return out;
}

}  // namespace

std::string PartsDirectory(const std::string& dir) { return dir + "/.parts"; }

std::string PartRowPath(const std::string& dir, const std::string& run_id, int process) {
  return PartsDirectory(dir) + "/" + PartStem(run_id, process) + ".csv";
}

std::string PartLatenciesPath(const std::string& dir, const std::string& run_id, int process) {
  return PartsDirectory(dir) + "/" + PartStem(run_id, process) + ".latencies.csv";
}

std::string PartClaimPath(const std::string& dir, const std::string& run_id, int process) {
  return RunClaimPath(dir, PartStem(run_id, process));
}

std::vector<int> PartIndices(const std::string& dir, const std::string& run_id) {
  namespace fs = std::filesystem;
  std::vector<int> out;
  const std::string prefix = run_id + ".p";
  std::error_code ec;
  for (fs::directory_iterator it(PartsDirectory(dir), ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() + 4 || name.rfind(prefix, 0) != 0 ||
        name.compare(name.size() - 4, 4, ".csv") != 0) {
      continue;
    }
    const std::string index = name.substr(prefix.size(), name.size() - prefix.size() - 4);
    if (index.empty() || index.size() > 6 ||
        index.find_first_not_of("0123456789") != std::string::npos) {
      continue;  // a trace (".latencies"), a temporary file, another run's part
    }
    out.push_back(std::stoi(index));
  }
  std::sort(out.begin(), out.end());
  return out;
}

Part ReadPart(const std::string& dir, const std::string& run_id, int process) {
  const std::string path = PartRowPath(dir, run_id, process);
  Part part;
  part.process = process;
  part.row = ParseRowCsv(ReadFileCapped(path, kMaxRowBytes, "result file"), path);
  if (part.row.run_id != run_id) {
    throw InputError(fmt::format("part '{}' holds run '{}', not {}", path, part.row.run_id,
                                 run_id));
  }
  if (part.row.latency_p50_ms) part.latencies_ns = ReadLatencies(PartLatenciesPath(dir, run_id,
                                                                                   process));
  return part;
}

void RemovePart(const std::string& dir, const std::string& run_id, int process) {
  std::error_code ec;
  std::filesystem::remove(PartLatenciesPath(dir, run_id, process), ec);
  std::filesystem::remove(PartRowPath(dir, run_id, process), ec);
}

void RemoveParts(const std::string& dir, const std::string& run_id) {
  for (int process : PartIndices(dir, run_id)) RemovePart(dir, run_id, process);
}

void AddPhases(const std::vector<std::pair<std::string, double>>& phases,
               std::vector<std::pair<std::string, double>>& totals) {
  for (const auto& [phase, seconds] : phases) {
    auto it = std::find_if(totals.begin(), totals.end(),
                           [&](const auto& total) { return total.first == phase; });
    if (it == totals.end()) {
      totals.emplace_back(phase, seconds);
    } else {
      it->second += seconds;
    }
  }
}

void FillLatencyColumns(ResultRow& row, const std::vector<int64_t>& latencies_ns,
                        int64_t batch_size) {
  const LatencyStats s = Summarize(latencies_ns, batch_size);
  row.repeats = static_cast<int64_t>(latencies_ns.size());
  row.latency_mean_ms = s.mean_ms;
  row.latency_std_ms = s.std_ms;
  row.latency_min_ms = s.min_ms;
  row.latency_p50_ms = s.p50_ms;
  row.latency_p90_ms = s.p90_ms;
  row.latency_p95_ms = s.p95_ms;
  row.latency_p99_ms = s.p99_ms;
  row.latency_max_ms = s.max_ms;
  row.cv = s.cv;
  row.latency_p50_within_ci_low_ms = s.p50_ci_low_ms;
  row.latency_p50_within_ci_high_ms = s.p50_ci_high_ms;
  row.iqr_rel = s.p50_ms > 0 ? std::optional<double>((s.p75_ms - s.p25_ms) / s.p50_ms)
                             : std::nullopt;
  row.throughput_median_sps = s.throughput_median_sps;
  row.throughput_mean_sps = s.throughput_mean_sps;
  // With several requests in flight, batch / latency is one stream's share, not the run's
  // throughput: that is samples_per_s, over the window (server: latency includes queueing).
  if (row.scenario != "single_stream") {
    row.throughput_median_sps.reset();
    row.throughput_mean_sps.reset();
  }
}

std::optional<double> IntervalRelHalfWidth(const ResultRow& row) {
  if (!row.latency_p50_ci_low_ms || !row.latency_p50_ci_high_ms || !row.latency_p50_ms ||
      !(*row.latency_p50_ms > 0)) {
    return std::nullopt;
  }
  return (*row.latency_p50_ci_high_ms - *row.latency_p50_ci_low_ms) / 2 / *row.latency_p50_ms;
}

ResultRow MergeParts(const RunSpec& run, const std::vector<Part>& parts,
                     const std::string& reason, std::vector<ValidityRule>* broken) {
  if (parts.empty()) throw std::invalid_argument("no parts to merge");
  ResultRow row = parts.front().row;
  // The output check's verdict: the first process's, which alone checks an intermediate tensor
  // where the outputs cannot fail (worker.cc), unless another failed the check.
  for (const Part& p : parts) {
    if (p.row.check_verdict == "fail") {
      row.check_verdict = p.row.check_verdict;
      row.check_tensor = p.row.check_tensor;
      break;
    }
  }
  row.processes = static_cast<int64_t>(parts.size());
  row.processes_reason = reason;
  row.timestamp = parts.back().row.timestamp;
  row.status = kStatusOk;
  row.error.clear();
  for (const Part& p : parts) {
    if (p.row.status != kStatusOk) {
      row.status = p.row.status;
      row.error = parts.size() > 1 ? fmt::format("process {}: {}", p.process, p.row.error)
                                   : p.row.error;
      break;
    }
  }

  // The timed runs of every process that measured, pooled, and each one's median.
  std::vector<int64_t> pooled;
  std::vector<std::vector<int64_t>> per_process;
  row.process_p50s_ms.clear();
  std::vector<Part> measured;
  for (const Part& p : parts) {
    if (p.latencies_ns.empty()) continue;
    pooled.insert(pooled.end(), p.latencies_ns.begin(), p.latencies_ns.end());
    row.process_p50s_ms.push_back(Summarize(p.latencies_ns, run.batch_size).p50_ms);
    measured.push_back(p);
  }
  row.latency_p50_ci_low_ms.reset();
  row.latency_p50_ci_high_ms.reset();
  if (pooled.empty()) return row;
  FillLatencyColumns(row, pooled, run.batch_size);
  // The profile (process 0's, profile/pass.h) against the run's median.
  if (row.profile_ms && *row.latency_p50_ms > 0) {
    row.profile_over_p50 = *row.profile_ms / *row.latency_p50_ms;
  }
  if (const std::optional<Interval> ci =
          ReproductionInterval(*row.latency_p50_ms, row.process_p50s_ms)) {
    row.latency_p50_ci_low_ms = ci->low;
    row.latency_p50_ci_high_ms = ci->high;
  }

  auto window = [](const ResultRow& r) { return r.timed_window_s; };
  double window_s = 0;
  for (const Part& p : measured) window_s += p.row.timed_window_s.value_or(0);
  row.timed_window_s = window_s;
  // Offline: every process's samples over every process's window.
  row.samples_per_s = WeightedMean(measured, [](const ResultRow& r) { return r.samples_per_s; },
                                   window);
  row.other_cpu_pct = WeightedMean(measured, [](const ResultRow& r) { return r.other_cpu_pct; },
                                   window);
  row.cpu_util_pct = WeightedMean(measured, [](const ResultRow& r) { return r.cpu_util_pct; },
                                  window);
  row.cpu_util_norm_pct =
      WeightedMean(measured, [](const ResultRow& r) { return r.cpu_util_norm_pct; }, window);
  row.cpu_ms_per_inference = WeightedMean(
      measured, [](const ResultRow& r) { return r.cpu_ms_per_inference; }, Repeats);
  row.rss_peak_mb = Max(measured, [](const ResultRow& r) { return r.rss_peak_mb; });
  row.energy_j = WeightedMean(measured, [](const ResultRow& r) { return r.energy_j; }, Repeats);
  row.power_w = WeightedMean(measured, [](const ResultRow& r) { return r.power_w; }, window);
  row.gpu_util_pct = WeightedMean(measured, [](const ResultRow& r) { return r.gpu_util_pct; },
                                  window);
  row.gpu_mem_mb = Max(measured, [](const ResultRow& r) { return r.gpu_mem_mb; });
  row.gpu_power_w = WeightedMean(measured, [](const ResultRow& r) { return r.gpu_power_w; },
                                 window);
  row.gpu_energy_j = WeightedMean(measured, [](const ResultRow& r) { return r.gpu_energy_j; },
                                  Repeats);
  row.check_max_abs_err = Max(parts, [](const ResultRow& r) { return r.check_max_abs_err; });
  row.check_max_rel_err = Max(parts, [](const ResultRow& r) { return r.check_max_rel_err; });
  row.notes = Union(parts, [](const ResultRow& r) { return r.notes; }, "; ");
  row.stop_reason = Union(measured, [](const ResultRow& r) { return r.stop_reason; }, "+");
  row.phases_s.clear();
  for (const Part& p : parts) AddPhases(p.row.phases_s, row.phases_s);

  // The verdict on the pooled run; what a part's build did less of than asked carries over.
  VerdictInput verdict;
  verdict.window_s = window_s;
  verdict.repeats = static_cast<int64_t>(pooled.size());
  verdict.reached_max_repeats = verdict.repeats >= run.max_repeats;
  verdict.cv = row.cv;
  verdict.other_cpu_pct = row.other_cpu_pct;
  verdict.processes = static_cast<int64_t>(measured.size());
  verdict.ci_rel = IntervalRelHalfWidth(row);
  for (const Part& p : measured) {
    const std::string& why = p.row.invalid_reason;
    // Stalls are judged per process, where its timed runs and the pauses between them were
    // seen (worker.cc): the part's reason carries over, naming the process.
    for (size_t at = why.find(kStallsReason); at != std::string::npos;
         at = why.find(kStallsReason, at + 1)) {
      verdict.stalled.push_back(fmt::format("process {}: {}", p.process,
                                            why.substr(at, why.find("; ", at) - at)));
    }
    for (size_t at = why.find(kDegradedPrefix); at != std::string::npos;
         at = why.find(kDegradedPrefix, at + 1)) {
      const size_t from = at + std::string(kDegradedPrefix).size();
      const std::string item = why.substr(from, why.find("; ", from) - from);
      if (std::find(verdict.degraded.begin(), verdict.degraded.end(), item) ==
          verdict.degraded.end()) {
        verdict.degraded.push_back(item);
      }
    }
  }
  std::vector<std::string> reasons;
  if (broken) broken->clear();
  for (BrokenRule& b : JudgeValidity(verdict, run.validity, run.min_time_s)) {
    reasons.push_back(std::move(b.reason));
    if (broken) broken->push_back(b.rule);
  }
  // The server scenario's own reasons (too few queries, too short, a generator behind, no
  // peak: measure/server.h) are the part's, as judged where it measured.
  for (const Part& p : measured) {
    const std::string& why = p.row.invalid_reason;
    for (size_t at = why.find(kServerPrefix); at != std::string::npos;
         at = why.find(kServerPrefix, at + 1)) {
      const std::string item = why.substr(at, why.find("; ", at) - at);
      if (std::find(reasons.begin(), reasons.end(), item) == reasons.end()) {
        reasons.push_back(item);
      }
    }
  }
  // An interval wider than the verdict allows: why, in the processes' own figures.
  if (verdict.ci_rel && *verdict.ci_rel > run.validity.max_ci_rel) {
    const std::string spread = DescribeProcessSpread(row.process_p50s_ms, run.validity.max_ci_rel);
    if (!spread.empty()) row.notes += (row.notes.empty() ? "" : "; ") + spread;
  }
  row.valid = reasons.empty();
  row.invalid_reason.clear();
  for (const auto& r : reasons) row.invalid_reason += (row.invalid_reason.empty() ? "" : "; ") + r;
  return row;
}

}  // namespace ngraphbench
