// Reading and writing result files. Writes are atomic: a temporary file in the same directory,
// flushed to disk, then renamed, so a reader sees the old file or the new one, never half of one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ngraphbench/results/row.h"

namespace ngraphbench {

// `<dir>/<run_id>.csv` and `<dir>/<run_id>.latencies.csv`.
std::string RowPath(const std::string& dir, const std::string& run_id);
std::string LatenciesPath(const std::string& dir, const std::string& run_id);

// Header line + one data line.
std::string FormatRowCsv(const ResultRow& row);
// Parses what FormatRowCsv wrote; throws InputError naming the problem.
ResultRow ParseRowCsv(const std::string& text, const std::string& source);

void WriteRow(const std::string& path, const ResultRow& row);
ResultRow ReadRow(const std::string& path);

// The trace: one line per timed iteration, `iteration,latency_ns`.
void WriteLatencies(const std::string& path, const std::vector<int64_t>& latencies_ns);
std::vector<int64_t> ReadLatencies(const std::string& path);
// The same from the trace's text (e.g. a zip entry); `source` names it in errors.
std::vector<int64_t> ParseLatencies(const std::string& text, const std::string& source);

// Writes `contents` to `path` atomically (temp file + fsync + rename). Creates parent dirs.
void WriteFileAtomic(const std::string& path, const std::string& contents);

// Removes temporary files that an interrupted writer left in `dir` (`<file>.tmp.<pid>` whose
// process is gone; a live writer's file stays); returns how many.
int RemoveStaleTempFiles(const std::string& dir);

// CSV field helpers, shared by every CSV ngraphbench writes.
std::string CsvEscape(const std::string& field);
std::vector<std::string> CsvSplitLine(const std::string& line);

}  // namespace ngraphbench
