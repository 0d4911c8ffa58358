// One line of the analysis CSVs, built from cells (analyze.h, profiles.h).
#pragma once

#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

#include "ngraphbench/analysis/metrics.h"
#include "ngraphbench/results/csv.h"

namespace ngraphbench {

// Builds one CSV line from cells; empty cells stay empty (a missing value, never 0).
class Line {
 public:
  // A text cell, guarded against spreadsheet formulas (CsvGuardText, results/csv.h).
  Line& Add(const std::string& text) { return Cell(CsvEscape(CsvGuardText(text))); }
  Line& Add(int64_t value) { return Cell(std::to_string(value)); }
  // Shortest text that reads back to the same double: exact, and identical on every platform.
  Line& Add(double value) {
    char buffer[64];
    auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
    return Cell(std::string(buffer, result.ptr));
  }
  template <typename T>
  Line& Add(const std::optional<T>& value) {
    return value ? Add(*value) : Add(std::string());
  }
  // Two cells: the interval's low and high bound.
  Line& Add(const std::optional<Interval>& interval) {
    if (!interval) return Add(std::string()).Add(std::string());
    return Add(interval->low).Add(interval->high);
  }
  std::string End() { return text_ + '\n'; }

 private:
  Line& Cell(const std::string& cell) {
    if (!first_) text_ += ',';
    first_ = false;
    text_ += cell;
    return *this;
  }

  std::string text_;
  bool first_ = true;
};

inline std::string Header(std::initializer_list<const char*> columns) {
  Line line;
  for (const char* column : columns) line.Add(std::string(column));
  return line.End();
}

}  // namespace ngraphbench
