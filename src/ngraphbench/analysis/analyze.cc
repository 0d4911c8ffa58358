#include "ngraphbench/analysis/analyze.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "ngraphbench/analysis/csv_line.h"
#include "ngraphbench/analysis/load.h"
#include "ngraphbench/analysis/profiles.h"
#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/results/row.h"

namespace ngraphbench {
namespace {

// Errors are kept whole but on one line, so every CSV line is one record for line-based tools.
std::string OneLine(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  return text;
}

std::string Bool(std::optional<bool> value) {
  return value ? (*value ? "true" : "false") : "";
}

// The rows `keep` selects, in (device, experiment, compiler, precision, model, batch_size) order.
template <typename Keep>
std::vector<const ResultRow*> SortedRows(const std::vector<LoadedRun>& runs, Keep keep) {
  std::vector<const ResultRow*> rows;
  for (const LoadedRun& run : runs) {
    if (keep(run.row)) rows.push_back(&run.row);
  }
  std::sort(rows.begin(), rows.end(), [](const ResultRow* a, const ResultRow* b) {
    return std::tie(a->device, a->experiment, a->compiler, a->precision, a->model,
                    a->batch_size) <
           std::tie(b->device, b->experiment, b->compiler, b->precision, b->model, b->batch_size);
  });
  return rows;
}

std::string FormatFailuresCsv(const std::vector<LoadedRun>& runs) {
  const std::vector<const ResultRow*> failed =
      SortedRows(runs, [](const ResultRow& row) { return row.status != kStatusOk; });
  std::string csv =
      Header({"device", "experiment", "compiler", "precision", "model", "batch_size", "status",
              "error"});
  for (const ResultRow* row : failed) {
    csv += Line()
               .Add(row->device)
               .Add(row->experiment)
               .Add(row->compiler)
               .Add(row->precision)
               .Add(row->model)
               .Add(row->batch_size)
               .Add(row->status)
               .Add(OneLine(row->error))
               .End();
  }
  return csv;
}

// Run ids, not file paths: a results tree and a zip of it give the same file.
std::string FormatInvalidCsv(const std::vector<LoadedRun>& runs, InvalidRuns invalid_runs) {
  std::string csv = Header({"device", "experiment", "compiler", "precision", "model",
                            "batch_size", "run_id", "invalid_reason", "left_out"});
  const std::vector<const ResultRow*> invalid =
      SortedRows(runs, [](const ResultRow& row) { return IsInvalid(ToRunPoint(row)); });
  for (const ResultRow* row : invalid) {
    csv += Line()
               .Add(row->device)
               .Add(row->experiment)
               .Add(row->compiler)
               .Add(row->precision)
               .Add(row->model)
               .Add(row->batch_size)
               .Add(row->run_id)
               .Add(OneLine(row->invalid_reason))
               .Add(std::string(invalid_runs == InvalidRuns::kExclude ? "true" : "false"))
               .End();
  }
  return csv;
}

// The run's columns that scaling.csv and precision_speedup.csv begin with: device, experiment,
// compiler, precision, model, family, width, depth, batch_size.
template <typename Row>
Line RunColumns(const Row& row) {
  Line line;
  line.Add(row.device)
      .Add(row.experiment)
      .Add(row.compiler)
      .Add(row.precision)
      .Add(row.model)
      .Add(row.family)
      .Add(row.width)
      .Add(row.depth)
      .Add(row.batch_size);
  return line;
}

}  // namespace

std::string FormatScalingCsv(const std::vector<ScalingRow>& rows) {
  std::string csv = Header({"device", "experiment", "compiler", "precision", "model", "family",
                            "width", "depth", "batch_size", "throughput_median_sps",
                            "throughput_ci_low_sps",
                            "throughput_ci_high_sps", "batch1_throughput_median_sps", "rtr",
                            "rtr_ci_low", "rtr_ci_high", "ase", "ase_ci_low", "ase_ci_high",
                            "identity_throughput_median_sps", "speedup_vs_identity",
                            "speedup_ci_low", "speedup_ci_high", "scaling_note", "speedup_note"});
  for (const ScalingRow& row : rows) {
    csv += RunColumns(row)
               .Add(row.throughput_sps)
               .Add(row.throughput_ci)
               .Add(row.batch1_throughput_sps)
               .Add(row.rtr)
               .Add(row.rtr_ci)
               .Add(row.ase)
               .Add(row.ase_ci)
               .Add(row.identity_throughput_sps)
               .Add(row.speedup_vs_identity)
               .Add(row.speedup_ci)
               .Add(row.scaling_note)
               .Add(row.speedup_note)
               .End();
  }
  return csv;
}

std::string FormatBlocksCsv(const std::vector<ScalingRow>& blocks) {
  std::string csv = Header({"device", "experiment", "batch_size", "compiler", "precision", "width",
                            "depth", "model", "throughput_median_sps", "throughput_ci_low_sps",
                            "throughput_ci_high_sps", "identity_throughput_median_sps",
                            "speedup_vs_identity", "speedup_ci_low", "speedup_ci_high",
                            "speedup_note"});
  for (const ScalingRow& row : blocks) {
    csv += Line()
               .Add(row.device)
               .Add(row.experiment)
               .Add(row.batch_size)
               .Add(row.compiler)
               .Add(row.precision)
               .Add(row.width)
               .Add(row.depth)
               .Add(row.model)
               .Add(row.throughput_sps)
               .Add(row.throughput_ci)
               .Add(row.identity_throughput_sps)
               .Add(row.speedup_vs_identity)
               .Add(row.speedup_ci)
               .Add(row.speedup_note)
               .End();
  }
  return csv;
}

std::string FormatRankingCsv(const std::vector<RankingRow>& rows) {
  std::string csv = Header({"device", "batch_size", "compiler", "precision", "models_ranked",
                            "pairs", "reversed_pairs", "significant_reversals", "tied_reversals",
                            "kendall_tau_b", "compiler_order", "identity_order", "note"});
  for (const RankingRow& row : rows) {
    csv += Line()
               .Add(row.device)
               .Add(row.batch_size)
               .Add(row.compiler)
               .Add(row.precision)
               .Add(row.models)
               .Add(row.pairs)
               .Add(row.reversed_pairs)
               .Add(row.significant_reversals)
               .Add(row.tied_reversals)
               .Add(row.kendall_tau_b)
               .Add(row.compiler_order)
               .Add(row.identity_order)
               .Add(row.note)
               .End();
  }
  return csv;
}

std::string FormatReversalsCsv(const std::vector<RankingRow>& rows) {
  std::string csv = Header({"device", "batch_size", "compiler", "precision", "model_a", "model_b",
                            "identity_a_sps", "identity_b_sps", "compiler_a_sps", "compiler_b_sps",
                            "identity_latency_ratio_ci_low", "identity_latency_ratio_ci_high",
                            "compiler_latency_ratio_ci_low", "compiler_latency_ratio_ci_high",
                            "verdict", "note"});
  for (const RankingRow& row : rows) {
    for (const ReversedPair& pair : row.reversals) {
      csv += Line()
                 .Add(row.device)
                 .Add(row.batch_size)
                 .Add(row.compiler)
                 .Add(row.precision)
                 .Add(pair.model_a)
                 .Add(pair.model_b)
                 .Add(pair.identity_a_sps)
                 .Add(pair.identity_b_sps)
                 .Add(pair.compiler_a_sps)
                 .Add(pair.compiler_b_sps)
                 .Add(pair.identity_ratio_ci)
                 .Add(pair.compiler_ratio_ci)
                 .Add(std::string(pair.significant ? "significant" : "tie"))
                 .Add(pair.note)
                 .End();
    }
  }
  return csv;
}

std::string FormatPrecisionCsv(const std::vector<PrecisionRow>& rows) {
  std::string csv = Header(
      {"device", "experiment", "compiler", "precision", "model", "family", "width", "depth",
       "batch_size", "latency_p50_ms", "latency_p50_ci_low_ms", "latency_p50_ci_high_ms",
       "fp32_latency_p50_ms", "fp32_latency_p50_ci_low_ms", "fp32_latency_p50_ci_high_ms",
       "throughput_median_sps", "fp32_throughput_median_sps", "speedup_vs_fp32",
       "speedup_ci_low", "speedup_ci_high", "check_cosine", "check_snr_db",
       "check_top1_agreement", "check_top5_agreement", "check_max_rel_err", "note"});
  for (const PrecisionRow& row : rows) {
    csv += RunColumns(row)
               .Add(row.latency_p50_ms)
               .Add(row.latency_p50_ci_low_ms)
               .Add(row.latency_p50_ci_high_ms)
               .Add(row.fp32_latency_p50_ms)
               .Add(row.fp32_latency_p50_ci_low_ms)
               .Add(row.fp32_latency_p50_ci_high_ms)
               .Add(row.throughput_sps)
               .Add(row.fp32_throughput_sps)
               .Add(row.speedup_vs_fp32)
               .Add(row.speedup_ci)
               .Add(row.check_cosine)
               .Add(row.check_snr_db)
               .Add(row.check_top1_agreement)
               .Add(row.check_top5_agreement)
               .Add(row.check_max_rel_err)
               .Add(row.note)
               .End();
  }
  return csv;
}

std::string FormatPrecisionTable(const std::vector<PrecisionRow>& rows) {
  const auto num = [](const std::optional<double>& v, const char* spec) {
    return v ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
  };
  std::string out = fmt::format("{:<10} {:<12} {:<12} {:<5} {:<26} {:>5} {:>10} {:>10} {:>22} "
                                "{:>8} {:>7} {:>6}\n",
                                "device", "experiment", "compiler", "prec", "model", "batch",
                                "p50 ms", "fp32 ms", "speedup [95%]", "cosine", "SNR dB",
                                "top1");
  for (const PrecisionRow& row : rows) {
    std::string speedup = num(row.speedup_vs_fp32, "{:.3f}");
    if (row.speedup_ci) {
      speedup += fmt::format(" [{:.3f}, {:.3f}]", row.speedup_ci->low, row.speedup_ci->high);
    }
    out += fmt::format("{:<10} {:<12} {:<12} {:<5} {:<26} {:>5} {:>10} {:>10} {:>22} {:>8} {:>7} "
                       "{:>6}",
                       row.device, row.experiment, row.compiler, row.precision, row.model,
                       row.batch_size, num(row.latency_p50_ms, "{:.4g}"),
                       num(row.fp32_latency_p50_ms, "{:.4g}"), speedup,
                       num(row.check_cosine, "{:.5f}"), num(row.check_snr_db, "{:.1f}"),
                       num(row.check_top1_agreement, "{:.2f}"));
    if (!row.note.empty()) out += "  (" + row.note + ")";
    out += "\n";
  }
  return out;
}

std::string FormatBatchVsStreamsCsv(const std::vector<RoadsRow>& rows) {
  std::string csv = Header({"device", "experiment", "compiler", "precision", "model",
                            "samples_in_flight",
                            "batching_run_id", "batching_sps", "batching_latency_p50_ms",
                            "batching_latency_p99_ms", "concurrency_run_id", "concurrency_sps",
                            "concurrency_latency_p50_ms", "concurrency_latency_p99_ms",
                            "concurrency_over_batching", "better", "note"});
  for (const RoadsRow& row : rows) {
    csv += Line()
               .Add(row.device)
               .Add(row.experiment)
               .Add(row.compiler)
               .Add(row.precision)
               .Add(row.model)
               .Add(row.in_flight)
               .Add(row.batching_run_id)
               .Add(row.batching_sps)
               .Add(row.batching_latency_p50_ms)
               .Add(row.batching_latency_p99_ms)
               .Add(row.concurrency_run_id)
               .Add(row.concurrency_sps)
               .Add(row.concurrency_latency_p50_ms)
               .Add(row.concurrency_latency_p99_ms)
               .Add(row.concurrency_over_batching)
               .Add(row.better)
               .Add(row.note)
               .End();
  }
  return csv;
}

std::string FormatOfflineRunsCsv(const std::vector<RunPoint>& offline) {
  std::string csv = Header({"device", "experiment", "compiler", "precision", "model",
                            "batch_size", "run_id", "streams", "samples_in_flight", "threads",
                            "threads_per_stream", "samples_per_s", "latency_p50_ms",
                            "latency_p99_ms", "cpu_util_pct", "valid"});
  for (const RunPoint& run : offline) {
    std::optional<int64_t> in_flight;
    if (run.streams) in_flight = run.batch_size * *run.streams;
    csv += Line()
               .Add(run.device)
               .Add(run.experiment)
               .Add(run.compiler)
               .Add(run.precision)
               .Add(run.model)
               .Add(run.batch_size)
               .Add(run.run_id)
               .Add(run.streams)
               .Add(in_flight)
               .Add(run.threads)
               .Add(run.threads_per_stream)
               .Add(run.samples_per_s)
               .Add(run.latency_p50_ms)
               .Add(run.latency_p99_ms)
               .Add(run.cpu_util_pct)
               .Add(Bool(run.valid))
               .End();
  }
  return csv;
}

std::string FormatServerRunsCsv(const std::vector<const ResultRow*>& rows) {
  std::string csv = Header(
      {"device", "experiment", "compiler", "precision", "model", "batch_size", "run_id", "streams",
       "threads", "find_peak", "target_qps", "achieved_qps", "samples_per_s", "latency_p50_ms",
       "latency_percentile", "latency_at_percentile_ms", "latency_bound_ms", "bound_met",
       "queries_issued", "queries_completed", "valid", "invalid_reason", "peak_qps",
       "peak_steps"});
  for (const ResultRow* row : rows) {
    csv += Line()
               .Add(row->device)
               .Add(row->experiment)
               .Add(row->compiler)
               .Add(row->precision)
               .Add(row->model)
               .Add(row->batch_size)
               .Add(row->run_id)
               .Add(row->streams)
               .Add(row->threads)
               .Add(std::string(row->peak_steps ? "true" : "false"))
               .Add(row->target_qps)
               .Add(row->achieved_qps)
               .Add(row->samples_per_s)
               .Add(row->latency_p50_ms)
               .Add(row->latency_percentile)
               .Add(row->latency_at_percentile_ms)
               .Add(row->latency_bound_ms)
               .Add(Bool(row->bound_met))
               .Add(row->queries_issued)
               .Add(row->queries_completed)
               .Add(Bool(row->valid))
               .Add(OneLine(row->invalid_reason))
               .Add(row->peak_qps)
               .Add(row->peak_steps)
               .End();
  }
  return csv;
}

std::string FormatServerCurvesCsv(const std::vector<ServerPoint>& points) {
  std::string csv = Header(
      {"device", "experiment", "compiler", "precision", "model", "batch_size", "run_id", "streams",
       "step", "target_qps", "achieved_qps", "samples_per_s", "latency_p50_ms",
       "latency_percentile", "latency_at_percentile_ms", "latency_bound_ms", "bound_met", "valid",
       "invalid_reason", "queries_issued", "queries_completed", "reported", "note"});
  for (const ServerPoint& p : points) {
    csv += Line()
               .Add(p.device)
               .Add(p.experiment)
               .Add(p.compiler)
               .Add(p.precision)
               .Add(p.model)
               .Add(p.batch_size)
               .Add(p.run_id)
               .Add(p.streams)
               .Add(p.step)
               .Add(p.target_qps)
               .Add(p.achieved_qps)
               .Add(p.samples_per_s)
               .Add(p.latency_p50_ms)
               .Add(p.latency_percentile)
               .Add(p.latency_at_percentile_ms)
               .Add(p.latency_bound_ms)
               .Add(Bool(p.bound_met))
               .Add(Bool(p.valid))
               .Add(OneLine(p.invalid_reason))
               .Add(p.queries_issued)
               .Add(p.queries_completed)
               .Add(Bool(p.reported))
               .Add(p.note)
               .End();
  }
  return csv;
}

int RunAnalyze(const std::vector<std::string>& inputs, const std::string& out_dir,
               InvalidRuns invalid_runs) {
  if (inputs.empty()) {
    throw InputError("analyze: no input; expected one or more results directories or .zip files");
  }
  std::error_code error;
  if (std::filesystem::exists(out_dir, error) && !std::filesystem::is_directory(out_dir, error)) {
    throw InputError("analyze: -o '" + out_dir + "' is an existing file; give a directory (it is "
                     "created if missing)");
  }
  // Skipped runs were never attempted (this machine lacked a GPU or a provider): neither
  // results nor failures.
  std::vector<LoadedRun> runs = LoadRuns(inputs);
  const auto first_skipped = std::remove_if(runs.begin(), runs.end(), [](const LoadedRun& run) {
    return run.row.status == kStatusSkipped;
  });
  const auto skipped = std::distance(first_skipped, runs.end());
  runs.erase(first_skipped, runs.end());
  // The paper's metrics (RTR, ASE, speedups, rankings) are defined on one request at a time at
  // each batch size: offline and server rows (several requests in flight, samples_per_s)
  // stand beside those of the same model and batch size and are not in them.
  std::vector<RunPoint> points, all_points;
  size_t offline = 0, server = 0;
  for (const LoadedRun& run : runs) {
    all_points.push_back(ToRunPoint(run.row));
    if (run.row.scenario != "single_stream") {
      ++(run.row.scenario == "server" ? server : offline);
      continue;
    }
    points.push_back(all_points.back());
  }

  // The baseline from the compilers' descriptions (read here, not in the pure metrics).
  const std::string& baseline = BaselineCompiler();
  const std::vector<ScalingRow> scaling = ComputeScaling(points, baseline, invalid_runs);
  const std::vector<ScalingRow> blocks = SelectBlocks(scaling);
  const std::vector<RankingRow> rankings = ComputeRankings(points, baseline, invalid_runs);
  const std::vector<PrecisionRow> precisions = ComputePrecisionSpeedups(points, invalid_runs);
  size_t reversals = 0;
  for (const RankingRow& row : rankings) reversals += row.reversals.size();
  // Over every scenario, as failures.csv and invalid.csv are.
  const auto ok = std::count_if(all_points.begin(), all_points.end(),
                                [](const RunPoint& p) { return p.status == kStatusOk; });
  const auto invalid = std::count_if(all_points.begin(), all_points.end(), IsInvalid);

  // Every server run's steps file is read before anything is written, so that a bad one
  // (whatever its row's verdict) stops analyze with no output half made.
  std::vector<std::pair<const ResultRow*, std::optional<std::vector<ServerStep>>>> server_runs;
  if (server > 0) {
    for (const LoadedRun& run : runs) {
      if (run.row.scenario != "server") continue;
      std::optional<std::vector<ServerStep>> steps = ReadRunServerSteps(run);
      if (IsMeasured(ToRunPoint(run.row), invalid_runs)) {
        server_runs.emplace_back(&run.row, std::move(steps));
      }
    }
    std::sort(server_runs.begin(), server_runs.end(), [](const auto& x, const auto& y) {
      const ResultRow &a = *x.first, &b = *y.first;
      return std::tie(a.device, a.experiment, a.compiler, a.precision, a.model, a.batch_size,
                      a.run_id) < std::tie(b.device, b.experiment, b.compiler, b.precision,
                                           b.model, b.batch_size, b.run_id);
    });
  }

  const std::filesystem::path dir(out_dir);
  WriteFileAtomic((dir / kScalingCsv).string(), FormatScalingCsv(scaling));
  WriteFileAtomic((dir / kBlocksCsv).string(), FormatBlocksCsv(blocks));
  WriteFileAtomic((dir / kRankingCsv).string(), FormatRankingCsv(rankings));
  WriteFileAtomic((dir / kReversalsCsv).string(), FormatReversalsCsv(rankings));
  WriteFileAtomic((dir / kPrecisionCsv).string(), FormatPrecisionCsv(precisions));
  WriteFileAtomic((dir / kFailuresCsv).string(), FormatFailuresCsv(runs));
  WriteFileAtomic((dir / kInvalidCsv).string(), FormatInvalidCsv(runs, invalid_runs));
  // Profiles describe the runs they belong to whatever their verdict: every one is kept.
  const std::vector<ProfiledRun> profiles = LoadProfiles(runs);
  if (!profiles.empty()) {
    WriteFileAtomic((dir / kProfileRunsCsv).string(), FormatProfileRunsCsv(profiles));
    WriteFileAtomic((dir / kProfileOpsCsv).string(), FormatProfileOpsCsv(profiles));
    WriteFileAtomic((dir / kProfileSpeedupCsv).string(), FormatProfileSpeedupCsv(profiles));
  }

  // Beside them: k samples in flight by batching and by concurrency, the offline runs, and
  // each server run's latency against its throughput (analysis/scenarios.h).
  // Without such runs their files are not written, and one left in `out_dir` by an earlier
  // analysis is removed: the report draws whatever it finds.
  for (const char* file : {kBatchVsStreamsCsv, kOfflineRunsCsv, kServerRunsCsv, kServerStepsCsv}) {
    std::filesystem::remove(dir / file, error);
  }
  std::vector<RoadsRow> roads;
  std::vector<RunPoint> offline_runs;
  if (offline > 0) {
    roads = CompareRoads(all_points, invalid_runs);
    offline_runs = SelectOfflineRuns(all_points, invalid_runs);
    WriteFileAtomic((dir / kBatchVsStreamsCsv).string(), FormatBatchVsStreamsCsv(roads));
    WriteFileAtomic((dir / kOfflineRunsCsv).string(), FormatOfflineRunsCsv(offline_runs));
  }
  std::vector<ServerPoint> server_points;
  if (server > 0) {
    std::vector<const ResultRow*> server_rows;
    for (const auto& [row, steps] : server_runs) {
      server_rows.push_back(row);
      for (ServerPoint& p : ServerCurve(*row, steps)) server_points.push_back(std::move(p));
    }
    WriteFileAtomic((dir / kServerRunsCsv).string(), FormatServerRunsCsv(server_rows));
    WriteFileAtomic((dir / kServerStepsCsv).string(), FormatServerCurvesCsv(server_points));
  }

  std::cerr << "analyze: " << runs.size() << " runs (" << ok << " ok) from " << inputs.size()
            << " input(s); ";
  if (skipped > 0) std::cerr << skipped << " skipped run(s) left out; ";
  if (offline + server > 0) {
    std::cerr << offline + server << " offline or server run(s) left out of the batch-scaling "
                                     "metrics (defined on single stream); ";
  }
  if (invalid_runs == InvalidRuns::kExclude) {
    std::cerr << invalid << " ok run(s) left out as invalid"
              << (invalid > 0 ? " (--include-invalid keeps them)" : "");
  } else {
    std::cerr << invalid << " invalid ok run(s) kept (--include-invalid)";
  }
  std::cerr << "; wrote to " << out_dir << ": " << kScalingCsv << " (" << scaling.size()
            << " rows), " << kBlocksCsv << " (" << blocks.size() << "), " << kRankingCsv << " ("
            << rankings.size() << "), " << kReversalsCsv << " (" << reversals << "), "
            << kPrecisionCsv << " (" << precisions.size() << "), "
            << kFailuresCsv << " (" << runs.size() - ok << "), " << kInvalidCsv << " (" << invalid
            << ")";
  if (!profiles.empty()) {
    std::cerr << ", " << kProfileRunsCsv << " (" << profiles.size() << "), " << kProfileOpsCsv
              << ", " << kProfileSpeedupCsv;
  }
  if (offline > 0) {
    std::cerr << ", " << kBatchVsStreamsCsv << " (" << roads.size() << "), " << kOfflineRunsCsv
              << " (" << offline_runs.size() << ")";
  }
  if (server > 0) {
    std::cerr << ", " << kServerRunsCsv << " (" << server_runs.size() << "), " << kServerStepsCsv
              << " (" << server_points.size() << ")";
  }
  std::cerr << "\n";
  // The quantized and narrower-float runs against fp32, where there are any: the figures a
  // reader of a precision sweep looks for first.
  if (!precisions.empty()) {
    std::cerr << "analyze: speedup over the same compiler's fp32 run (95% interval from the "
                 "process medians), and the output check against the fp32 reference ("
              << kPrecisionCsv << "):\n"
              << FormatPrecisionTable(precisions);
  }
  return kExitOk;
}

}  // namespace ngraphbench
