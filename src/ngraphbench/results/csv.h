// Reading and writing result files. Writes are atomic (WriteFileAtomic in core/file.h): a
// reader sees the old file or the new one, never half of one. One line of CSV is split by
// CsvSplitLine (core/csv_line.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ngraphbench/results/layout.h"  // RowPath, LatenciesPath
#include "ngraphbench/results/row.h"

namespace ngraphbench {

// Header line + one data line.
std::string FormatRowCsv(const ResultRow& row);
// Parses what FormatRowCsv wrote; throws InputError naming the problem.
ResultRow ParseRowCsv(const std::string& text, const std::string& source);

void WriteRow(const std::string& path, const ResultRow& row);
// Also checks that the file is named after the row's run (CheckRowFileName).
ResultRow ReadRow(const std::string& path);
// Throws InputError unless `file_name` (no directory) is "<row.run_id>.csv".
void CheckRowFileName(const ResultRow& row, const std::string& file_name,
                      const std::string& source);

// The trace of one process: one line per timed iteration, `iteration,latency_ns`.
void WriteLatencies(const std::string& path, const std::vector<int64_t>& latencies_ns);
// The trace of a run measured in several processes: `process,iteration,latency_ns`, processes
// counting up from 0 in the order they ran, iterations from 0 within each.
void WriteProcessLatencies(const std::string& path,
                           const std::vector<std::vector<int64_t>>& per_process);
// Either form, every process's latencies one after the other.
std::vector<int64_t> ReadLatencies(const std::string& path);
// The same from the trace's text (e.g. a zip entry); `source` names it in errors.
std::vector<int64_t> ParseLatencies(const std::string& text, const std::string& source);
// Either form, per process (one process for the older form).
std::vector<std::vector<int64_t>> ReadProcessLatencies(const std::string& path);
std::vector<std::vector<int64_t>> ParseProcessLatencies(const std::string& text,
                                                        const std::string& source);

// CSV field helpers, shared by every CSV ngraphbench writes.
std::string CsvEscape(const std::string& field);
// A text cell (a name, a message; never a number) made safe to open in a spreadsheet: one whose
// first character after any single quotes is '=', '+', '-', '@', a tab or a carriage return
// would be evaluated as a formula, so it gets a single quote in front, as OWASP advises
// ("=cmd|..." becomes "'=cmd|..."); every other text is written as it is. CsvUnguardText undoes
// it (one quote off a cell of that form), so a text reads back as it was written. Numbers are
// never guarded: -5 stays -5.
std::string CsvGuardText(const std::string& text);
std::string CsvUnguardText(const std::string& cell);
// A number as every CSV here writes it: 9 significant digits (%.9g).
std::string FormatDouble(double v);
// A data line of a CSV with `columns` columns, split into its fields; an InputError beginning with
// `where` (e.g. "profile 'f' line 3") when the line is not valid CSV or has another field count.
std::vector<std::string> CsvFields(const std::string& line, size_t columns,
                                   const std::string& where);
// A field that must be a finite number >= 0, the whole field; std::invalid_argument
// "<what> is '<text>'; expected a number >= 0" otherwise (callers add where it was).
double ParseNonNegative(const std::string& text, const std::string& what);

}  // namespace ngraphbench
