#include "ngraphbench/analysis/analyze.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <tuple>

#include "ngraphbench/analysis/csv_line.h"
#include "ngraphbench/analysis/load.h"
#include "ngraphbench/analysis/profiles.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/results/csv.h"

namespace ngraphbench {
namespace {

// Errors are kept whole but on one line, so every CSV line is one record for line-based tools.
std::string OneLine(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  return text;
}

// The rows `keep` selects, in (device, experiment, compiler, model, batch_size) order.
template <typename Keep>
std::vector<const ResultRow*> SortedRows(const std::vector<LoadedRun>& runs, Keep keep) {
  std::vector<const ResultRow*> rows;
  for (const LoadedRun& run : runs) {
    if (keep(run.row)) rows.push_back(&run.row);
  }
  std::sort(rows.begin(), rows.end(), [](const ResultRow* a, const ResultRow* b) {
    return std::tie(a->device, a->experiment, a->compiler, a->model, a->batch_size) <
           std::tie(b->device, b->experiment, b->compiler, b->model, b->batch_size);
  });
  return rows;
}

std::string FormatFailuresCsv(const std::vector<LoadedRun>& runs) {
  const std::vector<const ResultRow*> failed =
      SortedRows(runs, [](const ResultRow& row) { return row.status != kStatusOk; });
  std::string csv =
      Header({"device", "experiment", "compiler", "model", "batch_size", "status", "error"});
  for (const ResultRow* row : failed) {
    csv += Line()
               .Add(row->device)
               .Add(row->experiment)
               .Add(row->compiler)
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
  std::string csv = Header({"device", "experiment", "compiler", "model", "batch_size", "run_id",
                            "invalid_reason", "left_out"});
  const std::vector<const ResultRow*> invalid =
      SortedRows(runs, [](const ResultRow& row) { return IsInvalid(ToRunPoint(row)); });
  for (const ResultRow* row : invalid) {
    csv += Line()
               .Add(row->device)
               .Add(row->experiment)
               .Add(row->compiler)
               .Add(row->model)
               .Add(row->batch_size)
               .Add(row->run_id)
               .Add(OneLine(row->invalid_reason))
               .Add(std::string(invalid_runs == InvalidRuns::kExclude ? "true" : "false"))
               .End();
  }
  return csv;
}

}  // namespace

std::string FormatScalingCsv(const std::vector<ScalingRow>& rows) {
  std::string csv = Header({"device", "experiment", "compiler", "model", "family", "width", "depth",
                            "batch_size", "throughput_median_sps", "throughput_ci_low_sps",
                            "throughput_ci_high_sps", "batch1_throughput_median_sps", "rtr",
                            "rtr_ci_low", "rtr_ci_high", "ase", "ase_ci_low", "ase_ci_high",
                            "identity_throughput_median_sps", "speedup_vs_identity",
                            "speedup_ci_low", "speedup_ci_high", "scaling_note", "speedup_note"});
  for (const ScalingRow& row : rows) {
    csv += Line()
               .Add(row.device)
               .Add(row.experiment)
               .Add(row.compiler)
               .Add(row.model)
               .Add(row.family)
               .Add(row.width)
               .Add(row.depth)
               .Add(row.batch_size)
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
  std::string csv = Header({"device", "experiment", "batch_size", "compiler", "width", "depth",
                            "model", "throughput_median_sps", "throughput_ci_low_sps",
                            "throughput_ci_high_sps", "identity_throughput_median_sps",
                            "speedup_vs_identity", "speedup_ci_low", "speedup_ci_high",
                            "speedup_note"});
  for (const ScalingRow& row : blocks) {
    csv += Line()
               .Add(row.device)
               .Add(row.experiment)
               .Add(row.batch_size)
               .Add(row.compiler)
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
  std::string csv = Header({"device", "batch_size", "compiler", "models_ranked", "pairs",
                            "reversed_pairs", "significant_reversals", "tied_reversals",
                            "kendall_tau_b", "compiler_order", "identity_order", "note"});
  for (const RankingRow& row : rows) {
    csv += Line()
               .Add(row.device)
               .Add(row.batch_size)
               .Add(row.compiler)
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
  std::string csv = Header({"device", "batch_size", "compiler", "model_a", "model_b",
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
  std::vector<RunPoint> points;
  size_t offline = 0;
  for (const LoadedRun& run : runs) {
    if (run.row.scenario != "single_stream") {
      ++offline;
      continue;
    }
    points.push_back(ToRunPoint(run.row));
  }

  const std::vector<ScalingRow> scaling = ComputeScaling(points, invalid_runs);
  const std::vector<ScalingRow> blocks = SelectBlocks(scaling);
  const std::vector<RankingRow> rankings = ComputeRankings(points, invalid_runs);
  size_t reversals = 0;
  for (const RankingRow& row : rankings) reversals += row.reversals.size();
  const auto ok = std::count_if(points.begin(), points.end(),
                                [](const RunPoint& p) { return p.status == kStatusOk; });
  const auto invalid = std::count_if(points.begin(), points.end(), IsInvalid);

  const std::filesystem::path dir(out_dir);
  WriteFileAtomic((dir / kScalingCsv).string(), FormatScalingCsv(scaling));
  WriteFileAtomic((dir / kBlocksCsv).string(), FormatBlocksCsv(blocks));
  WriteFileAtomic((dir / kRankingCsv).string(), FormatRankingCsv(rankings));
  WriteFileAtomic((dir / kReversalsCsv).string(), FormatReversalsCsv(rankings));
  WriteFileAtomic((dir / kFailuresCsv).string(), FormatFailuresCsv(runs));
  WriteFileAtomic((dir / kInvalidCsv).string(), FormatInvalidCsv(runs, invalid_runs));
  // Profiles describe the runs they belong to whatever their verdict: every one is kept.
  const std::vector<ProfiledRun> profiles = LoadProfiles(runs);
  if (!profiles.empty()) {
    WriteFileAtomic((dir / kProfileRunsCsv).string(), FormatProfileRunsCsv(profiles));
    WriteFileAtomic((dir / kProfileOpsCsv).string(), FormatProfileOpsCsv(profiles));
    WriteFileAtomic((dir / kProfileSpeedupCsv).string(), FormatProfileSpeedupCsv(profiles));
  }

  std::cerr << "analyze: " << runs.size() << " runs (" << ok << " ok) from " << inputs.size()
            << " input(s); ";
  if (skipped > 0) std::cerr << skipped << " skipped run(s) left out; ";
  if (offline > 0) {
    std::cerr << offline << " offline or server run(s) left out of the batch-scaling metrics "
                            "(defined on single stream); ";
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
            << kFailuresCsv << " (" << runs.size() - ok << "), " << kInvalidCsv << " (" << invalid
            << ")";
  if (!profiles.empty()) {
    std::cerr << ", " << kProfileRunsCsv << " (" << profiles.size() << "), " << kProfileOpsCsv
              << ", " << kProfileSpeedupCsv;
  }
  std::cerr << "\n";
  return kExitOk;
}

}  // namespace ngraphbench
