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

}  // namespace ngraphbench
