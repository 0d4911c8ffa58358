#include "ngraphbench/results/csv.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/csv_line.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/results/columns.h"

namespace ngraphbench {

std::string CsvEscape(const std::string& field) {
  if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

namespace {

// Whether `text` is some single quotes (`quotes_min` or more) and then a character a
// spreadsheet starts a formula with.
bool QuotedFormulaStart(const std::string& text, size_t quotes_min) {
  const size_t first = text.find_first_not_of('\'');
  if (first == std::string::npos || first < quotes_min) return false;
  return std::string("=+-@\t\r").find(text[first]) != std::string::npos;
}

}  // namespace

std::string CsvGuardText(const std::string& text) {
  // "'=x" is guarded too ("''=x"), so that reading drops exactly the quote written here.
  return QuotedFormulaStart(text, 0) ? "'" + text : text;
}

std::string CsvUnguardText(const std::string& cell) {
  return QuotedFormulaStart(cell, 1) ? cell.substr(1) : cell;
}

std::string FormatDouble(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

std::vector<std::string> CsvFields(const std::string& line, size_t columns,
                                   const std::string& where) {
  std::vector<std::string> fields;
  try {
    fields = CsvSplitLine(line);
  } catch (const std::exception& e) {
    throw InputError(where + " is not valid CSV: " + e.what());
  }
  if (fields.size() != columns) {
    throw InputError(where + " has " + std::to_string(fields.size()) + " fields; expected " +
                     std::to_string(columns));
  }
  return fields;
}

double ParseNonNegative(const std::string& text, const std::string& what) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size() || !std::isfinite(v) || v < 0) {
    throw std::invalid_argument(what + " is '" + text + "'; expected a number >= 0");
  }
  return v;
}

std::string FormatRowCsv(const ResultRow& row) {
  std::string header, values;
  for (const auto& column : Columns()) {
    if (!header.empty()) {
      header += ',';
      values += ',';
    }
    header += column.name;
    // One record per line: newlines inside a field (error text) become spaces; terminal colour
    // codes (ESC [ ... letter, as some SDKs print) and other control characters are dropped.
    const std::string raw = column.format(row);
    std::string v;
    for (size_t k = 0; k < raw.size(); ++k) {
      const unsigned char c = static_cast<unsigned char>(raw[k]);
      if (c == 0x1b && k + 1 < raw.size() && raw[k + 1] == '[') {
        k += 2;
        while (k < raw.size() && !std::isalpha(static_cast<unsigned char>(raw[k]))) ++k;
        continue;
      }
      if (c == '\n' || c == '\r' || c == '\t') {
        v += ' ';
      } else if (c >= 0x20 && c != 0x7f) {
        v += static_cast<char>(c);
      }
    }
    values += CsvEscape(column.text ? CsvGuardText(v) : v);
  }
  return header + "\n" + values + "\n";
}

ResultRow ParseRowCsv(const std::string& text, const std::string& source) {
  std::istringstream in(text);
  std::string header_line, value_line;
  if (!std::getline(in, header_line) || !std::getline(in, value_line)) {
    throw InputError("result file '" + source + "' has no data row (expected a header line and "
                     "one row)");
  }
  std::vector<std::string> header, values;
  try {
    header = CsvSplitLine(header_line);
    values = CsvSplitLine(value_line);
  } catch (const std::exception& e) {
    throw InputError("result file '" + source + "' is not valid CSV: " + e.what());
  }
  // A row file ends with the newline after its one data line. Without it the file was cut short
  // (possibly inside its last field, which would still parse); anything after it is not ours.
  std::string rest;
  if (text.empty() || text.back() != '\n' || std::getline(in, rest)) {
    throw InputError("result file '" + source + "' is truncated or has extra lines (expected a "
                     "header line and one row, each ending in a newline)");
  }
  if (header.size() != values.size()) {
    throw InputError("result file '" + source + "' has " + std::to_string(header.size()) +
                     " columns in its header but " + std::to_string(values.size()) +
                     " in its row");
  }
  ResultRow row;
  row.schema_version = 0;
  std::vector<bool> seen(Columns().size(), false);
  for (size_t i = 0; i < header.size(); ++i) {
    for (size_t c = 0; c < Columns().size(); ++c) {
      if (Columns()[c].name != header[i]) continue;
      if (seen[c]) {
        throw InputError("result file '" + source + "' has column '" + header[i] +
                         "' twice (expected each column once)");
      }
      try {
        Columns()[c].parse(row, Columns()[c].text ? CsvUnguardText(values[i]) : values[i]);
      } catch (const std::exception&) {
        throw InputError("result file '" + source + "': column '" + header[i] + "' holds '" +
                         values[i] + "', which is not a valid value for it");
      }
      seen[c] = true;
    }
  }
  if (seen[0] && (row.schema_version < kOldestReadableSchemaVersion ||
                  row.schema_version > kSchemaVersion)) {
    throw InputError("result file '" + source + "' has schema version " +
                     std::to_string(row.schema_version) + "; this ngraphbench reads versions " +
                     std::to_string(kOldestReadableSchemaVersion) + " to " +
                     std::to_string(kSchemaVersion) +
                     (row.schema_version > kSchemaVersion ? " (a newer ngraphbench wrote it)"
                                                          : " (measure the run again)"));
  }
  for (size_t c = 0; c < Columns().size(); ++c) {
    if (!seen[c] && seen[0] && row.schema_version < Columns()[c].since) continue;
    if (!seen[c]) {
      throw InputError("result file '" + source + "' lacks column '" + Columns()[c].name +
                       "' (schema version " + std::to_string(kSchemaVersion) + ")");
    }
  }
  // Before version 8 every row was one stream, as scenario single_stream measures.
  if (seen[0] && row.schema_version < 8) row.streams = 1;
  // Before version 5 a row was one process, and its interval the order-statistic one: read as
  // such, it is a row of this version (written again, it reads back the same).
  if (seen[0] && row.schema_version < 5) {
    row.schema_version = kSchemaVersion;
    row.latency_p50_within_ci_low_ms = row.latency_p50_ci_low_ms;
    row.latency_p50_within_ci_high_ms = row.latency_p50_ci_high_ms;
    row.latency_p50_ci_low_ms.reset();
    row.latency_p50_ci_high_ms.reset();
    if (row.latency_p50_ms) {
      row.processes = 1;
      row.process_p50s_ms = {*row.latency_p50_ms};
    }
  }
  return row;
}

void WriteRow(const std::string& path, const ResultRow& row) {
  WriteFileAtomic(path, FormatRowCsv(row));
}

ResultRow ReadRow(const std::string& path) {
  ResultRow row = ParseRowCsv(ReadFileCapped(path, kMaxRowBytes, "result file"), path);
  CheckRowFileName(row, path.substr(path.rfind('/') + 1), path);
  return row;
}

void CheckRowFileName(const ResultRow& row, const std::string& file_name,
                      const std::string& source) {
  if (file_name != row.run_id + ".csv") {
    throw InputError("result file '" + source + "' holds run '" + row.run_id +
                     "', not the run its name says (expected the row of " + file_name +
                     " to have run_id " + file_name.substr(0, file_name.rfind(".csv")) +
                     "); a row copied or renamed from another run is not that run's result");
  }
}

void WriteLatencies(const std::string& path, const std::vector<int64_t>& latencies_ns) {
  std::string out = "iteration,latency_ns\n";
  for (size_t i = 0; i < latencies_ns.size(); ++i) {
    out += std::to_string(i) + "," + std::to_string(latencies_ns[i]) + "\n";
  }
  WriteFileAtomic(path, out);
}

void WriteProcessLatencies(const std::string& path,
                           const std::vector<std::vector<int64_t>>& per_process) {
  std::string out = "process,iteration,latency_ns\n";
  for (size_t p = 0; p < per_process.size(); ++p) {
    for (size_t i = 0; i < per_process[p].size(); ++i) {
      out += std::to_string(p) + "," + std::to_string(i) + "," +
             std::to_string(per_process[p][i]) + "\n";
    }
  }
  WriteFileAtomic(path, out);
}

std::vector<int64_t> ReadLatencies(const std::string& path) {
  return ParseLatencies(ReadFileCapped(path, kMaxTraceBytes, "trace"), path);
}

std::vector<int64_t> ParseLatencies(const std::string& text, const std::string& path) {
  std::vector<int64_t> out;
  for (auto& process : ParseProcessLatencies(text, path)) {
    out.insert(out.end(), process.begin(), process.end());
  }
  return out;
}

std::vector<std::vector<int64_t>> ReadProcessLatencies(const std::string& path) {
  return ParseProcessLatencies(ReadFileCapped(path, kMaxTraceBytes, "trace"), path);
}

std::vector<std::vector<int64_t>> ParseProcessLatencies(const std::string& text,
                                                        const std::string& path) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  const bool by_process = line == "process,iteration,latency_ns";
  if (line != "iteration,latency_ns" && !by_process) {
    throw InputError("trace '" + path + "' does not start with 'process,iteration,latency_ns' "
                     "(or 'iteration,latency_ns', one process)");
  }
  std::vector<std::vector<int64_t>> out;
  if (!by_process) out.emplace_back();
  // Whole non-negative integers only (stoll alone would take "12abc" or "-3"); processes
  // counting up from 0, and iterations from 0 within each, as the writers number them.
  auto whole = [](const std::string& text) {
    size_t used = 0;
    const long long value = std::stoll(text, &used);
    if (used != text.size() || value < 0) throw std::invalid_argument(text);
    return static_cast<int64_t>(value);
  };
  int64_t line_number = 1;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty()) continue;
    try {
      const std::vector<std::string> fields = CsvSplitLine(line);
      if (fields.size() != (by_process ? 3u : 2u)) throw std::invalid_argument("fields");
      if (by_process) {
        const int64_t p = whole(fields[0]);
        if (p == static_cast<int64_t>(out.size())) {
          out.emplace_back();
        } else if (p != static_cast<int64_t>(out.size()) - 1) {
          throw std::invalid_argument("process");
        }
      }
      std::vector<int64_t>& process = out.back();
      if (whole(fields[by_process ? 1 : 0]) != static_cast<int64_t>(process.size())) {
        throw std::invalid_argument("iteration");
      }
      process.push_back(whole(fields[by_process ? 2 : 1]));
    } catch (const std::exception&) {
      const std::string expected =
          by_process ? "<process>,<iteration>,<latency_ns>' (processes count up from 0, "
                       "iterations from 0 within each"
                     : std::to_string(out.back().size()) + ",<latency_ns>' (iterations count "
                       "up from 0";
      throw InputError("trace '" + path + "': line " + std::to_string(line_number) + " ('" +
                       line.substr(0, 80) + "') is not '" + expected +
                       "; latencies are integers >= 0)");
    }
  }
  return out;
}

}  // namespace ngraphbench
