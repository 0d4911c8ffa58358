#include "ngraphbench/results/server_steps.h"

#include <sstream>
#include <stdexcept>

#include "ngraphbench/core/error.h"
#include "ngraphbench/results/csv.h"

namespace ngraphbench {
namespace {

const std::vector<std::string> kColumns = {
    "step",      "target_qps", "achieved_qps",   "latency_p50_ms", "latency_at_percentile_ms",
    "bound_met", "valid",      "invalid_reason", "queries_issued", "queries_completed"};

std::string HeaderText() {
  std::string text;
  for (const std::string& column : kColumns) text += (text.empty() ? "" : ",") + column;
  return text;
}

int64_t ParseCount(const std::string& text, const std::string& column) {
  size_t used = 0;
  long long v = -1;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size() || v < 0) {
    throw std::invalid_argument(column + " is '" + text + "'; expected a whole number >= 0");
  }
  return v;
}

bool ParseBool(const std::string& text, const std::string& column) {
  if (text != "true" && text != "false") {
    throw std::invalid_argument(column + " is '" + text + "'; expected true or false");
  }
  return text == "true";
}

}  // namespace

std::string FormatServerStepsCsv(const std::vector<ServerStep>& steps) {
  std::string out = HeaderText() + "\n";
  for (const ServerStep& s : steps) {
    std::string reason = s.invalid_reason;
    for (char& c : reason) c = (c == '\n' || c == '\r') ? ' ' : c;
    out += std::to_string(s.step) + "," + FormatDouble(s.target_qps) + "," +
           FormatDouble(s.achieved_qps) + "," + FormatDouble(s.latency_p50_ms) + "," +
           FormatDouble(s.latency_at_percentile_ms) + "," +
           (s.bound_met ? "true" : "false") + "," + (s.valid ? "true" : "false") + "," +
           CsvEscape(CsvGuardText(reason)) + "," + std::to_string(s.queries_issued) + "," +
           std::to_string(s.queries_completed) + "\n";
  }
  return out;
}

std::vector<ServerStep> ParseServerStepsCsv(const std::string& text, const std::string& source) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != HeaderText()) {
    throw InputError("server steps '" + source + "' " +
                     (text.empty() ? std::string("is empty")
                                   : "has the header '" + line.substr(0, 200) + "'") +
                     "; expected " + HeaderText());
  }
  std::vector<ServerStep> steps;
  size_t number = 1;
  while (std::getline(in, line)) {
    ++number;
    const std::string where = "server steps '" + source + "' line " + std::to_string(number);
    const std::vector<std::string> f = CsvFields(line, kColumns.size(), where);
    ServerStep s;
    try {
      s.step = ParseCount(f[0], kColumns[0]);
      s.target_qps = ParseNonNegative(f[1], kColumns[1]);
      s.achieved_qps = ParseNonNegative(f[2], kColumns[2]);
      s.latency_p50_ms = ParseNonNegative(f[3], kColumns[3]);
      s.latency_at_percentile_ms = ParseNonNegative(f[4], kColumns[4]);
      s.bound_met = ParseBool(f[5], kColumns[5]);
      s.valid = ParseBool(f[6], kColumns[6]);
      s.invalid_reason = CsvUnguardText(f[7]);
      s.queries_issued = ParseCount(f[8], kColumns[8]);
      s.queries_completed = ParseCount(f[9], kColumns[9]);
    } catch (const std::invalid_argument& e) {
      throw InputError(where + ": " + e.what());
    }
    if (s.step != static_cast<int64_t>(steps.size()) + 1) {
      throw InputError(where + ": step is " + f[0] + "; expected " +
                       std::to_string(steps.size() + 1) + " (steps count up from 1 in order)");
    }
    if (s.queries_completed > s.queries_issued) {
      throw InputError(where + ": queries_completed " + f[9] + " is more than queries_issued " +
                       f[8]);
    }
    steps.push_back(std::move(s));
  }
  if (steps.empty()) {
    throw InputError("server steps '" + source + "' holds no step; expected a line per rate "
                     "find_peak measured");
  }
  return steps;
}

}  // namespace ngraphbench
