#include "ngraphbench/runner/parts.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/measure/aggregate.h"
#include "ngraphbench/measure/stats.h"
#include "ngraphbench/results/claim.h"
#include "ngraphbench/results/csv.h"

namespace ngraphbench {

namespace {

std::string PartStem(const std::string& run_id, int process) {
  return run_id + ".p" + std::to_string(process);
}

// Column `value` of every part's row, in order: what measure/aggregate.h pools.
template <typename Value>
std::vector<std::optional<double>> Column(const std::vector<Part>& parts, Value value) {
  std::vector<std::optional<double>> out;
  for (const Part& p : parts) out.push_back(value(p.row));
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

std::string PartSummaryPath(const std::string& dir, const std::string& run_id, int process) {
  return PartsDirectory(dir) + "/" + PartStem(run_id, process) + ".summary.json";
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

void WritePartSummary(const std::string& dir, const std::string& run_id, int process,
                      const ProcessSummary& summary) {
  const nlohmann::json j = {{"degraded", summary.degraded},
                            {"stall_s", summary.stall_s},
                            {"timed_end_unix_ms", summary.timed_end_unix_ms},
                            {"scenario_reasons", summary.scenario_reasons}};
  WriteFileAtomic(PartSummaryPath(dir, run_id, process), j.dump(1) + "\n");
}

namespace {

// A part's summary file as WritePartSummary wrote it (its process and the run's: the caller's).
ProcessSummary ReadPartSummary(const std::string& dir, const std::string& run_id, int process) {
  const std::string path = PartSummaryPath(dir, run_id, process);
  const std::optional<std::string> text = ReadFileIfExists(path, kMaxRowBytes, "part summary");
  if (!text) {
    throw InputError(fmt::format(
        "part '{}' has no summary file '{}' beside it (a part an older ngraphbench wrote, or a "
        "damaged one)",
        PartRowPath(dir, run_id, process), path));
  }
  ProcessSummary summary;
  summary.process = process;
  try {
    const nlohmann::json j = nlohmann::json::parse(*text);
    j.at("degraded").get_to(summary.degraded);
    j.at("stall_s").get_to(summary.stall_s);
    j.at("scenario_reasons").get_to(summary.scenario_reasons);
    // Parts of versions before the row's process_ends_unix_ms do not say when they ended.
    summary.timed_end_unix_ms = j.value("timed_end_unix_ms", int64_t{0});
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("part summary '{}' is not what a worker writes (an object of "
                                 "degraded: [strings], stall_s: seconds, scenario_reasons: "
                                 "[strings]): {}",
                                 path, e.what()));
  }
  if (!(summary.stall_s >= 0) || !std::isfinite(summary.stall_s)) {
    throw InputError(fmt::format("part summary '{}': stall_s {} is not a time in seconds >= 0",
                                 path, summary.stall_s));
  }
  return summary;
}

}  // namespace

Part ReadPart(const std::string& dir, const std::string& run_id, int process) {
  const std::string path = PartRowPath(dir, run_id, process);
  Part part;
  part.process = process;
  part.row = ParseRowCsv(ReadFileCapped(path, kMaxRowBytes, "result file"), path);
  if (part.row.run_id != run_id) {
    throw InputError(fmt::format("part '{}' holds run '{}', not {}", path, part.row.run_id,
                                 run_id));
  }
  if (!part.row.latency_p50_ms) return part;
  part.summary = ReadPartSummary(dir, run_id, process);
  part.summary.latencies_ns = ReadLatencies(PartLatenciesPath(dir, run_id, process));
  part.summary.window_s = part.row.timed_window_s.value_or(0);
  return part;
}

void RemovePart(const std::string& dir, const std::string& run_id, int process) {
  std::error_code ec;
  std::filesystem::remove(PartLatenciesPath(dir, run_id, process), ec);
  std::filesystem::remove(PartSummaryPath(dir, run_id, process), ec);
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
  FillLatencyColumns(row, Summarize(latencies_ns, batch_size),
                     static_cast<int64_t>(latencies_ns.size()));
}

void FillLatencyColumns(ResultRow& row, const LatencyStats& s, int64_t repeats) {
  row.repeats = repeats;
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
  if (!row.latency_p50_ci_low_ms || !row.latency_p50_ci_high_ms || !row.latency_p50_ms) {
    return std::nullopt;
  }
  return RelHalfWidth(*row.latency_p50_ci_low_ms, *row.latency_p50_ci_high_ms,
                      *row.latency_p50_ms);
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
  std::vector<Part> measured;
  std::vector<ProcessSummary> summaries;
  for (const Part& p : parts) {
    if (p.summary.latencies_ns.empty()) continue;
    measured.push_back(p);
    summaries.push_back(p.summary);
  }
  row.process_p50s_ms.clear();
  row.process_ends_unix_ms.clear();
  row.latency_p50_ci_low_ms.reset();
  row.latency_p50_ci_high_ms.reset();
  const std::optional<PooledLatencies> pooled = PoolLatencies(summaries, run.batch_size);
  if (!pooled) return row;
  FillLatencyColumns(row, pooled->stats, pooled->repeats);
  row.process_p50s_ms = pooled->process_p50s_ms;
  // When each measuring process ended its timed runs; none at all when a part does not say (a
  // part an older version wrote).
  for (const ProcessSummary& p : summaries) {
    if (p.timed_end_unix_ms <= 0) {
      row.process_ends_unix_ms.clear();
      break;
    }
    row.process_ends_unix_ms.push_back(p.timed_end_unix_ms);
  }
  // The profile (process 0's, profile/pass.h) against the run's median.
  if (row.profile_ms && *row.latency_p50_ms > 0) {
    row.profile_over_p50 = *row.profile_ms / *row.latency_p50_ms;
  }
  if (pooled->interval) {
    row.latency_p50_ci_low_ms = pooled->interval->low;
    row.latency_p50_ci_high_ms = pooled->interval->high;
  }

  const auto window = Column(measured, [](const ResultRow& r) { return r.timed_window_s; });
  const auto repeats = Column(measured, Repeats);
  const auto mean_over = [&](const std::vector<std::optional<double>>& weights, auto value) {
    return WeightedMean(Column(measured, value), weights);
  };
  row.timed_window_s = pooled->window_s;
  // Offline: every process's samples over every process's window.
  row.samples_per_s = mean_over(window, [](const ResultRow& r) { return r.samples_per_s; });
  row.other_cpu_pct = mean_over(window, [](const ResultRow& r) { return r.other_cpu_pct; });
  row.cpu_util_pct = mean_over(window, [](const ResultRow& r) { return r.cpu_util_pct; });
  row.cpu_util_norm_pct =
      mean_over(window, [](const ResultRow& r) { return r.cpu_util_norm_pct; });
  row.cpu_ms_per_inference =
      mean_over(repeats, [](const ResultRow& r) { return r.cpu_ms_per_inference; });
  row.rss_peak_mb = MaxOf(Column(measured, [](const ResultRow& r) { return r.rss_peak_mb; }));
  row.energy_j = mean_over(repeats, [](const ResultRow& r) { return r.energy_j; });
  row.power_w = mean_over(window, [](const ResultRow& r) { return r.power_w; });
  row.gpu_util_pct = mean_over(window, [](const ResultRow& r) { return r.gpu_util_pct; });
  row.gpu_mem_mb = MaxOf(Column(measured, [](const ResultRow& r) { return r.gpu_mem_mb; }));
  row.gpu_power_w = mean_over(window, [](const ResultRow& r) { return r.gpu_power_w; });
  row.gpu_energy_j = mean_over(repeats, [](const ResultRow& r) { return r.gpu_energy_j; });
  row.check_max_abs_err =
      MaxOf(Column(parts, [](const ResultRow& r) { return r.check_max_abs_err; }));
  row.check_max_rel_err =
      MaxOf(Column(parts, [](const ResultRow& r) { return r.check_max_rel_err; }));
  row.notes = Union(parts, [](const ResultRow& r) { return r.notes; }, "; ");
  row.stop_reason = Union(measured, [](const ResultRow& r) { return r.stop_reason; }, "+");
  row.phases_s.clear();
  for (const Part& p : parts) AddPhases(p.row.phases_s, row.phases_s);

  RunFigures figures;
  figures.window_s = pooled->window_s;
  figures.repeats = pooled->repeats;
  figures.cv = row.cv;
  figures.other_cpu_pct = row.other_cpu_pct;
  figures.interval_rel = pooled->interval_rel;
  const RunVerdict verdict =
      JudgeRun(summaries, figures, run.validity, run.min_time_s, run.max_repeats);
  if (broken) *broken = verdict.Rules();
  // An interval wider than the verdict allows: why, in the processes' own figures.
  if (const std::string spread = SpreadNote(*pooled, run.validity.max_ci_rel); !spread.empty()) {
    row.notes += (row.notes.empty() ? "" : "; ") + spread;
  }
  row.valid = verdict.valid();
  row.invalid_reason = verdict.Reasons();
  return row;
}

}  // namespace ngraphbench
