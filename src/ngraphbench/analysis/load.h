// Loads run rows from results trees and from zip archives of them (the released traces).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/profile/profile.h"
#include "ngraphbench/results/row.h"
#include "ngraphbench/results/server_steps.h"

namespace ngraphbench {

// A run row and where it came from ("<dir>/<device>/<compiler>/<run_id>.csv" or
// "<archive>.zip:<entry>"), for error messages.
struct LoadedRun {
  ResultRow row;
  std::string source;
  // Where the run's trace (<run_id>.latencies.csv beside the row) would be: a file path, or an
  // entry name within `archive` ("" for a directory). The trace may be missing.
  std::string archive, trace;
  // The same for its profile (<run_id>.profile.csv, profile/profile.h), which only a run
  // measured with profiling has.
  std::string profile;
  // The same for its server steps (<run_id>.server_steps.csv, results/server_steps.h), which
  // only a server run with find_peak has.
  std::string server_steps;
};

// Reads every run row of one input, in path order. The input is
//   - a directory laid out as <dir>/<device>/<compiler>/<run_id>.csv, or a directory holding such
//     a tree as its `results/` subdirectory (the repository root); or
//   - a .zip archive of the same layout, at the archive root or under a top-level `results/`.
// Files at any other depth, hidden files, files not ending in `.csv` (such as the `.tmp.<pid>`
// files of an interrupted atomic write), the `*.latencies.csv` traces and the files beside a
// row (`*.profile.csv`, `*.server_steps.csv`) are skipped.
// A row with status `ok` must carry its throughput: a positive throughput_median_sps (single
// stream), a positive samples_per_s (offline), or samples_per_s, achieved_qps, target_qps and
// latency_at_percentile_ms (server). Every row holds values a measurement can have: latencies,
// throughputs and times finite and not negative (a median, mean or throughput above 0), the
// latency quantiles in order, each interval holding latency_p50_ms, and a batch_size from 1 to
// kMaxBatchSize (graph/working_set.h, the ceiling experiments.yaml's batch_sizes have).
// Throws InputError naming the path and what was expected: missing path, unreadable or corrupt
// archive, no run rows at all, or a malformed or implausible row (naming the column).
std::vector<LoadedRun> LoadRuns(const std::string& input);

// Every input in turn. Throws InputError when two files hold the same run (device, compiler,
// experiment, model, batch size, precision): the metrics would have to pick one. An int8 tree
// and an fp32 tree of the same runs load together.
std::vector<LoadedRun> LoadRuns(const std::vector<std::string>& inputs);

// The run's raw per-iteration latencies in ns, from its trace in the directory or the archive it
// was loaded from; nullopt when the run has no trace. Throws InputError naming the trace when it
// exists but cannot be read or is not `iteration,latency_ns` lines.
std::optional<std::vector<int64_t>> ReadRunLatencies(const LoadedRun& run);

// The run's profile, from beside its row; nullopt when its row names no profiler or the file is
// missing. Throws InputError naming the file when it cannot be read or is not a profile.
std::optional<ProfileTable> ReadRunProfile(const LoadedRun& run);

// The steps of a server run's find_peak search, from beside its row; nullopt when the row is
// not one (no peak_steps) or the file is missing (a row from before the file was written).
// Throws InputError naming the file when it cannot be read, is not a steps file, or holds
// another number of steps than the row's peak_steps.
std::optional<std::vector<ServerStep>> ReadRunServerSteps(const LoadedRun& run);

}  // namespace ngraphbench
