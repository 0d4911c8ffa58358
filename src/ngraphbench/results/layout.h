// The files of a results tree's run folder, <results>/<device>/<compiler>/ (docs/results.md):
// a run's row `<run_id>.csv` and the files beside it, named by suffix. Every reader and writer
// of the tree names them through here; python/results_io.py is the Python twin (the report and
// the bench scripts read the tree through it).
#pragma once

#include <string>

namespace ngraphbench {

inline constexpr const char* kRowSuffix = ".csv";
// Beside a row: its trace (one line per timed run), its profile, a server run's steps.
inline constexpr const char* kTraceSuffix = ".latencies.csv";
inline constexpr const char* kProfileSuffix = ".profile.csv";
inline constexpr const char* kServerStepsSuffix = ".server_steps.csv";

// Whether `name`, a file name within a run folder (no directory), is a run's row: a .csv file
// that is not hidden (the tool's own files start with a dot) and not one of the files beside a
// row.
bool IsRowFile(const std::string& name);

// `<dir>/<run_id><suffix>`: the row and the files beside it.
std::string RowPath(const std::string& dir, const std::string& run_id);
std::string LatenciesPath(const std::string& dir, const std::string& run_id);
std::string ProfilePath(const std::string& dir, const std::string& run_id);
std::string ServerStepsPath(const std::string& dir, const std::string& run_id);

}  // namespace ngraphbench
