#include "ngraphbench/results/row.h"

#include "ngraphbench/results/columns.h"

namespace ngraphbench {

const std::vector<std::string>& RowColumns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& column : Columns()) out.push_back(column.name);
    return out;
  }();
  return names;
}

std::vector<ColumnMeaning> RowColumnMeanings() {
  std::vector<ColumnMeaning> out;
  for (const auto& column : Columns()) out.push_back({column.name, column.meaning, column.since});
  return out;
}

std::string ColumnsMarkdown() {
  std::string out = "| column | since schema | meaning |\n|---|---|---|\n";
  for (const ColumnMeaning& c : RowColumnMeanings()) {
    std::string meaning = c.meaning;
    for (size_t at = meaning.find('|'); at != std::string::npos; at = meaning.find('|', at + 2)) {
      meaning.replace(at, 1, "\\|");
    }
    out += "| `" + c.name + "` | " + std::to_string(c.since) + " | " + meaning + " |\n";
  }
  return out;
}

}  // namespace ngraphbench
