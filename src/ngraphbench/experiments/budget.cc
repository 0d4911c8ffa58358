#include "ngraphbench/experiments/budget.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <sstream>
#include <tuple>
#include <utility>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"

namespace ngraphbench {

double ParseDuration(const std::string& text, const std::string& option) {
  const auto bad = [&] {
    return InputError(option + " '" + text +
                      "': expected a duration with a unit after each number, hours h, minutes m "
                      "and seconds s in that order, e.g. 12h, 90m, 3600s, 1h30m or 1.5h");
  };
  static const std::string kUnits = "hms";
  static const double kSeconds[] = {3600, 60, 1};
  double total = 0;
  size_t next_unit = 0;  // units must come in the order h, m, s, each once
  size_t i = 0;
  if (text.empty()) throw bad();
  while (i < text.size()) {
    const size_t start = i;
    bool dot = false;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) ||
                               (text[i] == '.' && !dot))) {
      dot = dot || text[i] == '.';
      ++i;
    }
    const std::string number = text.substr(start, i - start);
    if (number.empty() || number == "." || i == text.size() || number.size() > 12) throw bad();
    const size_t unit = kUnits.find(text[i]);
    if (unit == std::string::npos || unit < next_unit) throw bad();
    total += std::stod(number) * kSeconds[unit];
    next_unit = unit + 1;
    ++i;
  }
  return total;
}

std::vector<size_t> SpreadOrder(size_t n) {
  std::vector<size_t> order;
  if (n == 0) return order;
  order.push_back(0);
  if (n == 1) return order;
  order.push_back(n - 1);
  // Gaps between positions taken, widest first; on a tie the leftmost, so the order is fixed.
  std::vector<std::pair<size_t, size_t>> gaps = {{0, n - 1}};
  while (order.size() < n) {
    auto widest = std::max_element(gaps.begin(), gaps.end(), [](const auto& a, const auto& b) {
      return a.second - a.first < b.second - b.first;
    });
    const auto [low, high] = *widest;
    gaps.erase(widest);
    const size_t middle = low + (high - low) / 2;
    order.push_back(middle);
    // Kept in position order, so max_element's first maximum is the leftmost gap.
    std::vector<std::pair<size_t, size_t>> split;
    if (middle - low > 1) split.emplace_back(low, middle);
    if (high - middle > 1) split.emplace_back(middle, high);
    auto at = std::lower_bound(gaps.begin(), gaps.end(), std::make_pair(low, high));
    gaps.insert(at, split.begin(), split.end());
  }
  return order;
}

std::vector<size_t> BudgetOrder(const std::vector<BudgetRun>& runs) {
  // Each run's rank among its curve's batch sizes in SpreadOrder.
  std::map<std::pair<std::string, std::string>, std::vector<int64_t>> batches;
  for (const BudgetRun& run : runs) batches[{run.group, run.curve}].push_back(run.batch_size);
  std::map<std::pair<std::string, std::string>, std::map<int64_t, size_t>> rank_of;
  for (auto& [curve, sizes] : batches) {
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    const std::vector<size_t> spread = SpreadOrder(sizes.size());
    for (size_t rank = 0; rank < spread.size(); ++rank) rank_of[curve][sizes[spread[rank]]] = rank;
  }
  // Within a group: by rank, then by the curve's first appearance, then as given.
  std::map<std::string, size_t> group_index;
  std::map<std::pair<std::string, std::string>, size_t> curve_index;
  std::vector<std::vector<size_t>> by_group;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (group_index.emplace(runs[i].group, by_group.size()).second) by_group.emplace_back();
    curve_index.emplace(std::make_pair(runs[i].group, runs[i].curve), curve_index.size());
    by_group[group_index[runs[i].group]].push_back(i);
  }
  for (std::vector<size_t>& members : by_group) {
    const auto key = [&](size_t i) {
      const auto curve = std::make_pair(runs[i].group, runs[i].curve);
      return std::make_tuple(rank_of[curve][runs[i].batch_size], curve_index[curve], i);
    };
    std::sort(members.begin(), members.end(),
              [&](size_t a, size_t b) { return key(a) < key(b); });
  }
  // The groups take turns.
  std::vector<size_t> order;
  order.reserve(runs.size());
  for (size_t turn = 0; order.size() < runs.size(); ++turn) {
    for (const std::vector<size_t>& members : by_group) {
      if (turn < members.size()) order.push_back(members[turn]);
    }
  }
  return order;
}

BudgetCut CutAtBudget(const std::vector<double>& seconds, double budget_s) {
  BudgetCut cut;
  bool open = true;
  for (const double s : seconds) {
    if (open && cut.fit_s + s <= budget_s) {
      cut.fit_s += s;
      ++cut.fits;
    } else {
      open = false;
      cut.left_s += s;
    }
  }
  return cut;
}

std::string DescribeCut(const BudgetCut& cut, double budget_s,
                        const std::vector<std::string>& labels, const std::vector<double>& seconds,
                        size_t shown) {
  const auto hours = [](double s) {
    return s >= 3600 ? fmt::format("{:.2f} h", s / 3600)
           : s >= 60 ? fmt::format("{:.1f} min", s / 60)
                     : fmt::format("{:.0f} s", s);
  };
  const size_t total = labels.size();
  if (total == 0) return "nothing is left to measure";
  if (cut.fits == 0) {
    return fmt::format(
        "a budget of {} fits none of the {} runs left to measure: the first of them, {}, is "
        "estimated at {}; give a budget of at least {:.0f}s",
        hours(budget_s), total, labels.front(), hours(seconds.front()),
        std::ceil(seconds.front()));
  }
  std::string out = fmt::format("{} of the {} runs left to measure fit a budget of {}: {} "
                                "estimated",
                                cut.fits, total, hours(budget_s), hours(cut.fit_s));
  if (cut.fits == total) return out + "; every run fits";
  std::string left;
  for (size_t i = cut.fits; i < total && i < cut.fits + shown; ++i) {
    left += (left.empty() ? "" : ", ") + labels[i];
  }
  if (total - cut.fits > shown) left += fmt::format(", ... and {} more", total - cut.fits - shown);
  return out + fmt::format("; {} do not ({} estimated), left out: {}. A larger budget measures "
                           "them next",
                           total - cut.fits, hours(cut.left_s), left);
}

std::vector<std::string> ParseRunIds(const std::string& text) {
  std::vector<std::string> ids;
  const auto add = [&](std::string id) {
    const auto first = id.find_first_not_of(" \t\r");
    if (first == std::string::npos) return;
    id = id.substr(first, id.find_last_not_of(" \t\r") - first + 1);
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  };
  if (!text.empty() && text[0] == '@') {
    std::istringstream lines(ReadFileCapped(text.substr(1), kMaxConfigBytes, "--runs file"));
    for (std::string line; std::getline(lines, line);) {
      const auto first = line.find_first_not_of(" \t\r");
      if (first != std::string::npos && line[first] != '#') add(line);
    }
  } else {
    std::istringstream items(text);
    for (std::string id; std::getline(items, id, ',');) add(id);
  }
  if (ids.empty()) {
    throw InputError("--runs '" + text +
                     "' names no run: give run ids as ID[,ID...] or @FILE with one per line "
                     "(`ngraphbench expand <experiment>` lists them)");
  }
  return ids;
}

}  // namespace ngraphbench
