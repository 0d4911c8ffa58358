// One line of CSV split into its fields, as every CSV ngraphbench writes or reads is quoted
// (RFC 4180: a field holding ',' '"' or a line break is quoted, a '"' inside doubled).
#pragma once

#include <string>
#include <vector>

namespace ngraphbench {

// The fields of `line` (without its line break), quotes removed; std::invalid_argument
// "unterminated quoted field" when a quoted field does not end on the line.
std::vector<std::string> CsvSplitLine(const std::string& line);

}  // namespace ngraphbench
