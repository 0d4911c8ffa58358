#include "ngraphbench/analysis/compare.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "ngraphbench/analysis/load.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/results/csv.h"

namespace ngraphbench {

const char* ChangeName(Change change) {
  switch (change) {
    case Change::kSlower:
      return "slower";
    case Change::kFaster:
      return "faster";
    case Change::kUndecided:
      return "undecided";
    case Change::kSame:
      break;
  }
  return "same";
}

bool IsSignificant(const RatioEstimate& estimate, double alpha) {
  return estimate.p_value < alpha && (estimate.low > 1 || estimate.high < 1);
}

Change Classify(const std::optional<RatioEstimate>& estimate, double alpha, double threshold) {
  // A ratio or interval that is not a finite number says nothing about a change: it is never
  // "same" (the loader refuses such medians; this holds whatever the estimate came from).
  if (!estimate || !std::isfinite(estimate->ratio) || !std::isfinite(estimate->low) ||
      !std::isfinite(estimate->high) || !(estimate->ratio > 0)) {
    return Change::kUndecided;
  }
  if (!IsSignificant(*estimate, alpha) || !(std::abs(estimate->ratio - 1) > threshold)) {
    return Change::kSame;
  }
  return estimate->ratio > 1 ? Change::kSlower : Change::kFaster;
}

namespace {

// The --csv file's columns. base_n / new_n: the rows' timed runs (`repeats`); base_processes /
// new_processes: their process medians, the sample sizes of the test; df: Welch-Satterthwaite's
// degrees of freedom. The interval, df and p are empty for an undecided pair.
constexpr const char* kCompareCsvColumns[] = {
    "compiler",       "experiment",    "model",          "batch_size",   "base_device",
    "new_device",     "base_run_id",   "new_run_id",     "base_n",       "new_n",
    "base_median_ms", "new_median_ms", "ratio",          "ratio_ci_low", "ratio_ci_high",
    "base_processes", "new_processes", "df",             "p_value",      "significant",
    "change",         "invalid",       "invalid_reason", "in_summary",   "note"};

// A pair of runs, keyed by (compiler, experiment, model, batch_size, device label or "",
// "" for a single-stream run, else its run id, which names its scenario and streams).
using PairKey = std::tuple<std::string, std::string, std::string, int64_t, std::string,
                           std::string, std::string>;

struct ComparedPair {
  const LoadedRun* base = nullptr;
  const LoadedRun* next = nullptr;  // NEW (`new` is a keyword)
  size_t base_processes = 0, new_processes = 0;
  double base_median_ms = 0, new_median_ms = 0, ratio = 0;
  std::optional<RatioEstimate> estimate;  // NEW / BASE; nullopt: undecided
  bool significant = false;
  Change change = Change::kSame;
  std::string invalid_reason;  // "" when both sides are valid
  bool in_summary = false;
  std::string note;
};

// Paired, but a side is not ok or has no median.
struct SkippedPair {
  const LoadedRun* base = nullptr;
  std::string reason;  // e.g. "new status crashed"
};

// Output order: the analysis's (compiler, experiment, width, depth, model, batch size).
bool RowBefore(const ResultRow& a, const ResultRow& b) {
  return std::tie(a.compiler, a.experiment, a.width, a.depth, a.model, a.batch_size, a.device) <
         std::tie(b.compiler, b.experiment, b.width, b.depth, b.model, b.batch_size, b.device);
}

std::string Printf(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

// Shortest text that reads back to the same double (as analyze's CSVs).
std::string Exact(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

std::string Count(const std::optional<int64_t>& value) {
  return value ? std::to_string(*value) : "";
}

std::string Percent(double fraction) { return Printf("%g%%", 100 * fraction); }

std::string JoinLabels(const std::set<std::string>& labels) {
  std::string text;
  for (const std::string& label : labels) text += (text.empty() ? "`" : ", `") + label + "`";
  return text;
}

std::string Cell(std::string text) {
  std::string escaped;
  for (char c : text) {
    if (c == '|') escaped += '\\';
    escaped += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return escaped;
}

std::string TableRow(const std::vector<std::string>& cells) {
  std::string line = "|";
  for (const std::string& cell : cells) line += " " + Cell(cell) + " |";
  return line + "\n";
}

std::string TableHeader(const std::vector<std::string>& columns) {
  std::string rule = "|";
  for (size_t i = 0; i < columns.size(); ++i) rule += "---|";
  return TableRow(columns) + rule + "\n";
}

// Appends `item` to a "; "-joined list.
void Append(std::string& list, const std::string& item) {
  list += (list.empty() ? "" : "; ") + item;
}

std::string InvalidReason(const ResultRow& base, const ResultRow& next) {
  std::string reason;
  if (IsInvalid(ToRunPoint(base))) Append(reason, "base: " + base.invalid_reason);
  if (IsInvalid(ToRunPoint(next))) Append(reason, "new: " + next.invalid_reason);
  return reason;
}

// The row's latency_p50_ms when it is a positive number; nullopt, with the reason appended to
// `why`, otherwise.
std::optional<double> MedianOf(const ResultRow& row, const char* side, std::string& why) {
  if (row.latency_p50_ms && *row.latency_p50_ms > 0 && std::isfinite(*row.latency_p50_ms)) {
    return row.latency_p50_ms;
  }
  Append(why, std::string(side) + " has no finite positive latency_p50_ms");
  return std::nullopt;
}

// The test needs only the rows: their medians and process medians (the traces are not read).
ComparedPair Compare(const LoadedRun& base, const LoadedRun& next, double base_median_ms,
                     double new_median_ms, const CompareOptions& options) {
  ComparedPair pair;
  pair.base = &base;
  pair.next = &next;
  const std::vector<double>& before = base.row.process_p50s_ms;
  const std::vector<double>& after = next.row.process_p50s_ms;
  pair.base_processes = before.size();
  pair.new_processes = after.size();
  pair.base_median_ms = base_median_ms;
  pair.new_median_ms = new_median_ms;
  pair.ratio = new_median_ms / base_median_ms;
  pair.estimate = CompareProcessMedians(new_median_ms, after, base_median_ms, before);
  pair.significant = pair.estimate && IsSignificant(*pair.estimate, options.alpha);
  pair.change = Classify(pair.estimate, options.alpha, options.threshold);
  pair.invalid_reason = InvalidReason(base.row, next.row);
  pair.in_summary = pair.invalid_reason.empty() || options.invalid_runs == InvalidRuns::kInclude;
  const std::string differ = SettingsDiffer(ToRunPoint(base.row), ToRunPoint(next.row));
  if (!differ.empty()) pair.note = "new run's settings differ: " + differ;
  if (pair.estimate && pair.change == Change::kUndecided) {
    Append(pair.note, "the ratio or its interval is not a finite number");
  } else if (!pair.estimate) {
    Append(pair.note, "too few processes to judge (base " + std::to_string(pair.base_processes) +
                          ", new " + std::to_string(pair.new_processes) + "; at least " +
                          std::to_string(kMinProcessesToJudge) + " per side)");
  }
  return pair;
}

std::string FormatCompareCsv(const std::vector<ComparedPair>& pairs) {
  std::string csv;
  for (const char* column : kCompareCsvColumns) {
    csv += (csv.empty() ? "" : ",") + std::string(column);
  }
  csv += "\n";
  for (const ComparedPair& pair : pairs) {
    const ResultRow& base = pair.base->row;
    const ResultRow& next = pair.next->row;
    const std::optional<RatioEstimate>& estimate = pair.estimate;
    // Text cells guarded against spreadsheet formulas (CsvGuardText); numbers as they are.
    const auto text = CsvGuardText;
    const std::vector<std::string> cells = {text(base.compiler),
                                            text(base.experiment),
                                            text(base.model),
                                            std::to_string(base.batch_size),
                                            text(base.device),
                                            text(next.device),
                                            text(base.run_id),
                                            text(next.run_id),
                                            Count(base.repeats),
                                            Count(next.repeats),
                                            Exact(pair.base_median_ms),
                                            Exact(pair.new_median_ms),
                                            Exact(pair.ratio),
                                            estimate ? Exact(estimate->low) : "",
                                            estimate ? Exact(estimate->high) : "",
                                            std::to_string(pair.base_processes),
                                            std::to_string(pair.new_processes),
                                            estimate ? Exact(estimate->df) : "",
                                            estimate ? Exact(estimate->p_value) : "",
                                            pair.significant ? "true" : "false",
                                            ChangeName(pair.change),
                                            pair.invalid_reason.empty() ? "false" : "true",
                                            text(pair.invalid_reason),
                                            pair.in_summary ? "true" : "false",
                                            text(pair.note)};
    std::string line;
    for (const std::string& cell : cells) line += (line.empty() ? "" : ",") + CsvEscape(cell);
    csv += line + "\n";
  }
  return csv;
}

// The change column of the Markdown table: a difference that is not significant is never
// reported as a change (pyperf's "Not significant!").
std::string ChangeText(const ComparedPair& pair, double threshold) {
  if (pair.change != Change::kSame) return ChangeName(pair.change);  // undecided: the note says why
  if (!pair.significant) return "same (not significant)";
  return "same (within ±" + Percent(threshold) + ")";
}

std::string IntervalText(const std::optional<RatioEstimate>& estimate) {
  if (!estimate) return "";
  return Printf("%.3f", estimate->low) + " – " + Printf("%.3f", estimate->high);
}

std::string PText(const std::optional<RatioEstimate>& estimate) {
  if (!estimate) return "";
  return estimate->p_value < 0.001 ? "<0.001" : Printf("%.2g", estimate->p_value);
}

std::string RunLine(const ResultRow& row) {
  return row.compiler + " " + row.experiment + " " + row.model + " b" +
         std::to_string(row.batch_size);
}

struct Group {
  double log_sum = 0;
  int pairs = 0, slower = 0, faster = 0, same = 0, undecided = 0, left_out = 0;
};

void PrintSummary(const std::vector<ComparedPair>& pairs, const CompareOptions& options,
                  std::ostream& out) {
  std::map<std::pair<std::string, std::string>, Group> groups;
  Group all;
  for (const ComparedPair& pair : pairs) {
    Group& group = groups[{pair.base->row.compiler, pair.base->row.experiment}];
    for (Group* g : {&group, &all}) {
      if (!pair.in_summary) {
        ++g->left_out;
        continue;
      }
      ++g->pairs;
      g->log_sum += std::log(pair.ratio);
      ++(pair.change == Change::kSlower      ? g->slower
         : pair.change == Change::kFaster    ? g->faster
         : pair.change == Change::kUndecided ? g->undecided
                                             : g->same);
    }
  }
  out << "\n## Summary\n\n";
  out << TableHeader({"compiler", "experiment", "pairs", "geomean ratio", "slower", "faster",
                      "same", "undecided", "invalid, left out"});
  auto row = [&](const std::string& compiler, const std::string& experiment, const Group& g) {
    out << TableRow({compiler, experiment, std::to_string(g.pairs),
                     g.pairs > 0 ? Printf("%.3f", std::exp(g.log_sum / g.pairs)) : "",
                     std::to_string(g.slower), std::to_string(g.faster), std::to_string(g.same),
                     std::to_string(g.undecided), std::to_string(g.left_out)});
  };
  for (const auto& [key, group] : groups) row(key.first, key.second, group);
  row("all", "", all);
  if (all.undecided > 0) {
    out << "\n"
        << all.undecided << " pair(s) undecided: a side has fewer than " << kMinProcessesToJudge
        << " processes, so there is no spread to judge a change by (neither same nor a change, "
           "and never a regression for --fail-on-regression); the geomean includes their ratios.\n";
  }
  if (all.left_out > 0) {
    out << "\n"
        << all.left_out
        << " pair(s) with a side marked invalid are listed above but left out of the summary "
           "and of --fail-on-regression (--include-invalid keeps them).\n";
  } else if (options.invalid_runs == InvalidRuns::kInclude) {
    out << "\nPairs with a side marked invalid are included (--include-invalid).\n";
  }
}

}  // namespace

int RunCompare(const std::string& base, const std::string& new_input, const CompareOptions& options,
               std::ostream& out) {
  if (!(options.alpha > 0 && options.alpha < 1)) {
    throw InputError("--alpha " + Exact(options.alpha) + ": expected a value in (0, 1)");
  }
  if (!(options.threshold >= 0)) {
    throw InputError("--threshold " + Exact(options.threshold) +
                     ": expected a fraction >= 0 (0.05 = 5%)");
  }
  const std::vector<LoadedRun> base_runs = LoadRuns(std::vector<std::string>{base});
  const std::vector<LoadedRun> new_runs = LoadRuns(std::vector<std::string>{new_input});

  std::set<std::string> base_labels, new_labels;
  for (const LoadedRun& run : base_runs) base_labels.insert(run.row.device);
  for (const LoadedRun& run : new_runs) new_labels.insert(run.row.device);
  // Two machines' trees usually carry two labels: with one on each side, they still pair up.
  const bool across_labels = base_labels.size() == 1 && new_labels.size() == 1;
  auto key_of = [&](const ResultRow& r) {
    // An offline run pairs with the run of the same scenario and streams (`auto` with `auto`),
    // never with a single stream; a run with the run of its precision (a tree may hold several;
    // a row without one is of fp32).
    return PairKey(r.compiler, r.experiment, r.model, r.batch_size, across_labels ? "" : r.device,
                   r.scenario == "single_stream" ? "" : r.run_id,
                   r.precision.empty() ? "fp32" : r.precision);
  };
  std::map<PairKey, const LoadedRun*> new_by_key;
  for (const LoadedRun& run : new_runs) new_by_key.emplace(key_of(run.row), &run);

  std::vector<ComparedPair> compared;
  std::vector<SkippedPair> skipped;
  std::vector<const LoadedRun*> only_base, only_new;
  std::set<PairKey> paired;
  for (const LoadedRun& base_run : base_runs) {
    const auto found = new_by_key.find(key_of(base_run.row));
    if (found == new_by_key.end()) {
      only_base.push_back(&base_run);
      continue;
    }
    const LoadedRun& new_run = *found->second;
    paired.insert(found->first);
    std::string reason;
    if (base_run.row.status != kStatusOk) Append(reason, "base status " + base_run.row.status);
    if (new_run.row.status != kStatusOk) Append(reason, "new status " + new_run.row.status);
    std::optional<double> base_ms, new_ms;
    if (reason.empty()) {
      base_ms = MedianOf(base_run.row, "base", reason);
      new_ms = MedianOf(new_run.row, "new", reason);
    }
    if (!reason.empty()) {
      skipped.push_back({&base_run, reason});
      continue;
    }
    compared.push_back(Compare(base_run, new_run, *base_ms, *new_ms, options));
  }
  for (const LoadedRun& run : new_runs) {
    if (paired.count(key_of(run.row)) == 0) only_new.push_back(&run);
  }

  std::sort(compared.begin(), compared.end(), [](const ComparedPair& a, const ComparedPair& b) {
    return RowBefore(a.base->row, b.base->row);
  });
  std::sort(skipped.begin(), skipped.end(), [](const SkippedPair& a, const SkippedPair& b) {
    return RowBefore(a.base->row, b.base->row);
  });
  auto by_row = [](const LoadedRun* a, const LoadedRun* b) { return RowBefore(a->row, b->row); };
  std::sort(only_base.begin(), only_base.end(), by_row);
  std::sort(only_new.begin(), only_new.end(), by_row);

  out << "# ngraphbench compare\n\n";
  out << "- base: " << base << " (" << base_runs.size() << " runs, device "
      << JoinLabels(base_labels) << ")\n";
  out << "- new: " << new_input << " (" << new_runs.size() << " runs, device "
      << JoinLabels(new_labels) << ")\n";
  if (across_labels && base_labels != new_labels) {
    out << "- paired across device labels (each side holds one): base " << JoinLabels(base_labels)
        << " with new " << JoinLabels(new_labels) << "\n";
  }
  out << "- ratio = latency_p50_ms new / base (> 1: new is slower), the rows' medians of their "
         "pooled timed runs; 95% interval and p: Welch's t on the log medians of each side's "
         "processes (process_p50s_ms)\n";
  out << "- a change is significant when p < " << Exact(options.alpha)
      << ", the interval excludes 1 and |ratio - 1| > " << Percent(options.threshold)
      << "; undecided when a side has fewer than " << kMinProcessesToJudge << " processes\n";

  const bool show_device = !across_labels;
  out << "\n## Pairs\n\n";
  if (compared.empty()) {
    out << "No pair of ok runs with a median on both sides.\n";
  } else {
    std::vector<std::string> columns = {"compiler", "experiment", "model", "batch"};
    if (show_device) columns.push_back("device");
    for (const char* column :
         {"base p50 ms", "new p50 ms", "ratio", "95% interval", "p", "processes", "change",
          "invalid", "note"}) {
      columns.push_back(column);
    }
    out << TableHeader(columns);
    for (const ComparedPair& pair : compared) {
      const ResultRow& row = pair.base->row;
      std::vector<std::string> cells = {row.compiler, row.experiment, row.model,
                                        std::to_string(row.batch_size)};
      if (show_device) cells.push_back(row.device);
      for (const std::string& cell :
           {Printf("%.4g", pair.base_median_ms), Printf("%.4g", pair.new_median_ms),
            Printf("%.3f", pair.ratio), IntervalText(pair.estimate), PText(pair.estimate),
            std::to_string(pair.base_processes) + " / " + std::to_string(pair.new_processes),
            ChangeText(pair, options.threshold), pair.invalid_reason, pair.note}) {
        cells.push_back(cell);
      }
      out << TableRow(cells);
    }
  }

  PrintSummary(compared, options, out);

  if (!skipped.empty()) {
    out << "\n## Paired but not compared\n\n";
    std::vector<std::string> columns = {"compiler", "experiment", "model", "batch"};
    if (show_device) columns.push_back("device");
    columns.push_back("why");
    out << TableHeader(columns);
    for (const SkippedPair& pair : skipped) {
      const ResultRow& row = pair.base->row;
      std::vector<std::string> cells = {row.compiler, row.experiment, row.model,
                                        std::to_string(row.batch_size)};
      if (show_device) cells.push_back(row.device);
      cells.push_back(pair.reason);
      out << TableRow(cells);
    }
  }
  for (const auto& [title, runs] :
       {std::pair("Only in base", &only_base), std::pair("Only in new", &only_new)}) {
    if (runs->empty()) continue;
    out << "\n## " << title << "\n\n";
    out << TableHeader({"compiler", "experiment", "model", "batch", "device", "status"});
    for (const LoadedRun* run : *runs) {
      const ResultRow& row = run->row;
      out << TableRow({row.compiler, row.experiment, row.model, std::to_string(row.batch_size),
                       row.device, row.status});
    }
  }

  if (!options.csv_path.empty()) WriteFileAtomic(options.csv_path, FormatCompareCsv(compared));

  const auto regressions = std::count_if(compared.begin(), compared.end(), [](const auto& p) {
    return p.in_summary && p.change == Change::kSlower;
  });
  if (regressions == 0) {
    out << "\nNo significant slowdown beyond " << Percent(options.threshold) << ".\n";
  } else {
    out << "\n"
        << regressions << " significant slowdown(s) beyond " << Percent(options.threshold) << ":\n";
    for (const ComparedPair& pair : compared) {
      if (pair.in_summary && pair.change == Change::kSlower) {
        out << "- " << RunLine(pair.base->row) << ": ratio " << Printf("%.3f", pair.ratio) << "\n";
      }
    }
  }
  return options.fail_on_regression && regressions > 0 ? kExitRunsFailed : kExitOk;
}

}  // namespace ngraphbench
