// Loads run rows from results trees and from zip archives of them (the released traces).
#pragma once

#include <string>
#include <vector>

#include "ngraphbench/results/row.h"

namespace ngraphbench {

// A run row and where it came from ("<dir>/<device>/<compiler>/<run_id>.csv" or
// "<archive>.zip:<entry>"), for error messages.
struct LoadedRun {
  ResultRow row;
  std::string source;
};

// Reads every run row of one input, in path order. The input is
//   - a directory laid out as <dir>/<device>/<compiler>/<run_id>.csv, or a directory holding such
//     a tree as its `results/` subdirectory (the repository root); or
//   - a .zip archive of the same layout, at the archive root or under a top-level `results/`.
// Files at any other depth, hidden files, files not ending in `.csv` (such as the `.tmp.<pid>`
// files of an interrupted atomic write) and the `*.latencies.csv` traces are skipped.
// A row with status `ok` must carry a positive throughput_median_sps.
// Throws InputError naming the path and what was expected: missing path, unreadable or corrupt
// archive, no run rows at all, or a malformed row.
std::vector<LoadedRun> LoadRuns(const std::string& input);

// Every input in turn. Throws InputError when two files hold the same run (device, compiler,
// experiment, model, batch size): the metrics would have to pick one.
std::vector<LoadedRun> LoadRuns(const std::vector<std::string>& inputs);

}  // namespace ngraphbench
