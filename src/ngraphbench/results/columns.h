// The one mapping between ResultRow fields and CSV columns. Internal to results/.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ngraphbench/results/row.h"

namespace ngraphbench {

struct Column {
  std::string name;
  std::function<std::string(const ResultRow&)> format;
  std::function<void(ResultRow&, const std::string&)> parse;  // throws std::invalid_argument
  int since = 2;  // the schema version that added the column: older rows read it as empty
  std::string meaning;  // what it holds and in which unit: the one place it is said
  // Free text (a name, a message): written through CsvGuardText and read back through
  // CsvUnguardText (results/csv.h); numbers, flags and lists of them are not.
  bool text = false;
};

// A column added in schema version `version`.
inline Column Since(int version, Column column) {
  column.since = version;
  return column;
}

const std::vector<Column>& Columns();

}  // namespace ngraphbench
