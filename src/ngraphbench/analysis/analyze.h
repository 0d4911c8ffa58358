// `ngraphbench analyze <results-dir or .zip>... [-o DIR] [--include-invalid]`: loads runs,
// derives the batch-scaling metrics (analysis/metrics.h) and writes them as tidy CSVs, which
// python/report.py turns into a report. Output depends only on the runs, not on where they were
// read from, so a results tree and a zip of it give byte-identical files.
#pragma once

#include <string>
#include <vector>

#include "ngraphbench/analysis/metrics.h"
#include "ngraphbench/analysis/scenarios.h"

namespace ngraphbench {

// Files written into the output directory (columns: see the CSV formatters below).
inline constexpr const char* kScalingCsv = "scaling.csv";
inline constexpr const char* kBlocksCsv = "blocks.csv";
inline constexpr const char* kRankingCsv = "ranking.csv";
inline constexpr const char* kReversalsCsv = "rank_reversals.csv";
inline constexpr const char* kFailuresCsv = "failures.csv";
inline constexpr const char* kInvalidCsv = "invalid.csv";
inline constexpr const char* kPrecisionCsv = "precision_speedup.csv";
// Written when the inputs hold offline runs (batch_vs_streams, offline_runs) or server runs
// (server_runs, server_steps): analysis/scenarios.h.
inline constexpr const char* kBatchVsStreamsCsv = "batch_vs_streams.csv";
inline constexpr const char* kOfflineRunsCsv = "offline_runs.csv";
inline constexpr const char* kServerRunsCsv = "server_runs.csv";
inline constexpr const char* kServerStepsCsv = "server_steps.csv";

// One CSV file's text each: header line, then one line per row, '\n' line ends. Each interval is
// two columns, <value>_ci_low and <value>_ci_high (95%, metrics.h), both empty when it is.
// scaling.csv: every measured run (IsMeasured) with throughput, RTR, ASE and speedup over
// identity, each with its interval.
std::string FormatScalingCsv(const std::vector<ScalingRow>& rows);
// blocks.csv: the block experiments' throughput and speedup against width and depth.
std::string FormatBlocksCsv(const std::vector<ScalingRow>& blocks);
// ranking.csv: Kendall's tau-b per (device, batch size, compiler) on the architectures, and the
// reversed pairs: how many, how many significant and how many tied.
std::string FormatRankingCsv(const std::vector<RankingRow>& rows);
// rank_reversals.csv: one line per model pair whose order compilation reverses, with the
// intervals of L_A / L_B under identity and the compiler and the verdict (significant or tie).
std::string FormatReversalsCsv(const std::vector<RankingRow>& rows);

// batch_vs_streams.csv: k samples in flight by batching and by concurrency (CompareRoads).
std::string FormatBatchVsStreamsCsv(const std::vector<RoadsRow>& rows);
// offline_runs.csv: every measured offline run (SelectOfflineRuns).
std::string FormatOfflineRunsCsv(const std::vector<RunPoint>& offline);
// server_runs.csv: every measured server run, in (device, experiment, compiler, precision, model,
// batch_size, run_id) order.
std::string FormatServerRunsCsv(const std::vector<const ResultRow*>& rows);
// server_steps.csv: every rate the server runs measured (ServerCurve), run by run.
std::string FormatServerCurvesCsv(const std::vector<ServerPoint>& points);

// precision_speedup.csv: every measured run at a precision other than fp32
// (ComputePrecisionSpeedups) with its latency and interval, the same compiler's fp32 run's, the
// speedup over it with its interval, and the output check's cosine, SNR and top-1/top-5
// agreement.
std::string FormatPrecisionCsv(const std::vector<PrecisionRow>& rows);
// The same rows as a fixed-width text table (what analyze prints to stderr).
std::string FormatPrecisionTable(const std::vector<PrecisionRow>& rows);

// Loads `inputs`, writes scaling, blocks, ranking, rank_reversals and precision_speedup,
// failures.csv (runs that did not end ok, `wrong` included, with their error) and invalid.csv
// (ok runs whose verdict is invalid, with the reason and whether they were left out) into
// `out_dir` (created if missing), and the scenarios' CSVs when the inputs hold offline or server
// runs, and prints a summary to stderr (and precision_speedup's rows as a table, where any). Invalid runs enter the derived numbers (and the scenarios' CSVs) only with
// InvalidRuns::kInclude (--include-invalid). Returns kExitOk. Throws InputError for bad input
// (see analysis/load.h), a bad server steps file included.
int RunAnalyze(const std::vector<std::string>& inputs, const std::string& out_dir,
               InvalidRuns invalid_runs = InvalidRuns::kExclude);

}  // namespace ngraphbench
