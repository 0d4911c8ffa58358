#include "ngraphbench/analysis/compare.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "ngraphbench/analysis/load.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/random.h"
#include "ngraphbench/measure/stats.h"
#include "ngraphbench/results/csv.h"

namespace ngraphbench {

size_t ResampleIndex(PortableRng& rng, size_t n) {
  // The high half of a 64x64-bit product: no division in the bootstrap's inner loop.
  return static_cast<size_t>((static_cast<unsigned __int128>(rng.Next()) * n) >> 64);
}

namespace {

// Position of the median in a sorted sample of n: Percentile(50) interpolates between these.
struct MedianRanks {
  size_t lo, hi;
  double frac;
};
MedianRanks RanksOfMedian(size_t n) {
  const double position = 0.5 * static_cast<double>(n - 1);
  const size_t lo = static_cast<size_t>(position);
  return {lo, std::min(lo + 1, n - 1), position - static_cast<double>(lo)};
}

// Resamples `sorted` with replacement to its own size and returns the resample's median. Since
// `sorted` is ascending, the resample's k-th smallest value is sorted[k-th smallest index drawn],
// so counting the drawn indices gives the median in O(n), without sorting the resample.
double ResampledMedian(const std::vector<double>& sorted, PortableRng& rng,
                       std::vector<uint32_t>& counts) {
  const size_t n = sorted.size();
  std::fill(counts.begin(), counts.end(), 0);
  for (size_t i = 0; i < n; ++i) ++counts[ResampleIndex(rng, n)];
  const MedianRanks ranks = RanksOfMedian(n);
  size_t seen = 0, lo_index = 0, hi_index = 0;
  for (size_t i = 0; i < n; ++i) {
    const size_t before = seen;
    seen += counts[i];
    if (before <= ranks.lo && ranks.lo < seen) lo_index = i;
    if (before <= ranks.hi && ranks.hi < seen) {
      hi_index = i;
      break;
    }
  }
  return sorted[lo_index] + ranks.frac * (sorted[hi_index] - sorted[lo_index]);
}

std::vector<double> Sorted(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values;
}

}  // namespace

MannWhitneyResult MannWhitneyU(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.empty() || y.empty()) throw std::invalid_argument("MannWhitneyU: an empty sample");
  const double n1 = static_cast<double>(x.size()), n2 = static_cast<double>(y.size());
  const double n = n1 + n2;
  // Midranks over the pooled sample; x's values are marked to sum its ranks.
  std::vector<std::pair<double, bool>> pooled;
  pooled.reserve(x.size() + y.size());
  for (double v : x) pooled.emplace_back(v, true);
  for (double v : y) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end());
  double rank_sum_x = 0, tie_term = 0;
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double midrank = static_cast<double>(i + j + 1) / 2;  // ranks i+1 .. j
    for (size_t k = i; k < j; ++k) {
      if (pooled[k].second) rank_sum_x += midrank;
    }
    tie_term += t * t * t - t;
    i = j;
  }
  MannWhitneyResult result;
  result.u = rank_sum_x - n1 * (n1 + 1) / 2;
  const double mu = n1 * n2 / 2;
  const double variance = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (!(variance > 0)) return result;  // every value the same: no evidence of a difference
  const double deviation = std::max(std::abs(result.u - mu) - 0.5, 0.0);
  result.z = std::copysign(deviation, result.u - mu) / std::sqrt(variance);
  result.p = std::min(1.0, std::erfc(std::abs(result.z) / std::sqrt(2.0)));
  return result;
}

double Median(const std::vector<double>& sorted) { return Percentile(sorted, 50); }

RatioInterval BootstrapRatioOfMedians(const std::vector<double>& before,
                                      const std::vector<double>& after, int resamples,
                                      uint64_t seed, double confidence) {
  if (before.empty() || after.empty()) {
    throw std::invalid_argument("BootstrapRatioOfMedians: an empty sample");
  }
  if (resamples < 1) throw std::invalid_argument("BootstrapRatioOfMedians: resamples < 1");
  const std::vector<double> sorted_before = Sorted(before), sorted_after = Sorted(after);
  if (!(Median(sorted_before) > 0)) {
    throw std::invalid_argument("BootstrapRatioOfMedians: the median of `before` is not positive");
  }
  PortableRng rng(seed);
  std::vector<uint32_t> counts_before(before.size()), counts_after(after.size());
  std::vector<double> ratios;
  ratios.reserve(static_cast<size_t>(resamples));
  for (int i = 0; i < resamples; ++i) {
    const double median_before = ResampledMedian(sorted_before, rng, counts_before);
    const double median_after = ResampledMedian(sorted_after, rng, counts_after);
    // A resample of a sample with zeros can have median 0; its ratio is +inf and sorts last.
    ratios.push_back(median_after / median_before);
  }
  std::sort(ratios.begin(), ratios.end());
  const double tail = 100 * (1 - confidence) / 2;
  return {Percentile(ratios, tail), Percentile(ratios, 100 - tail)};
}

const char* ChangeName(Change change) {
  switch (change) {
    case Change::kSlower:
      return "slower";
    case Change::kFaster:
      return "faster";
    case Change::kSame:
      break;
  }
  return "same";
}

bool IsSignificant(double p, const RatioInterval& interval, double alpha) {
  return p < alpha && (interval.low > 1 || interval.high < 1);
}

Change Classify(double ratio, const RatioInterval& interval, double p, double alpha,
                double threshold) {
  if (!IsSignificant(p, interval, alpha) || !(std::abs(ratio - 1) > threshold)) {
    return Change::kSame;
  }
  return ratio > 1 ? Change::kSlower : Change::kFaster;
}

namespace {

// The --csv file's columns. mwu_u and mwu_z are NEW's: z > 0 when NEW's latencies tend larger.
constexpr const char* kCompareCsvColumns[] = {
    "compiler",       "experiment",     "model",      "batch_size",   "base_device",
    "new_device",     "base_run_id",    "new_run_id", "base_n",       "new_n",
    "base_median_ms", "new_median_ms",  "ratio",      "ratio_ci_low", "ratio_ci_high",
    "mwu_u",          "mwu_z",          "p_value",    "significant",  "change",
    "invalid",        "invalid_reason", "in_summary", "note"};

// A pair of runs, keyed by (compiler, experiment, model, batch_size, device label or "").
using PairKey = std::tuple<std::string, std::string, std::string, int64_t, std::string>;

struct ComparedPair {
  const LoadedRun* base = nullptr;
  const LoadedRun* next = nullptr;  // NEW (`new` is a keyword)
  size_t base_n = 0, new_n = 0;
  double base_median_ms = 0, new_median_ms = 0, ratio = 0;
  RatioInterval interval;
  MannWhitneyResult test;
  bool significant = false;
  Change change = Change::kSame;
  std::string invalid_reason;  // "" when both sides are valid
  bool in_summary = false;
  std::string note;
};

// Paired, but a side is not ok or has no latencies.
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

// The run's latencies; nullopt, with the reason appended to `why`, when it has no trace or an
// empty one.
std::optional<std::vector<int64_t>> TraceOf(const LoadedRun& run, std::string& why) {
  std::optional<std::vector<int64_t>> latencies_ns = ReadRunLatencies(run);
  const std::string name = (run.archive.empty() ? "" : run.archive + ":") + run.trace;
  if (!latencies_ns || latencies_ns->empty()) {
    Append(why, (latencies_ns ? "empty trace " : "no trace ") + name);
    return std::nullopt;
  }
  if (std::any_of(latencies_ns->begin(), latencies_ns->end(), [](int64_t v) { return v <= 0; })) {
    throw InputError(name + ": a latency <= 0 ns; expected positive per-iteration latencies");
  }
  return latencies_ns;
}

std::vector<double> ToDoubles(const std::vector<int64_t>& latencies_ns) {
  return std::vector<double>(latencies_ns.begin(), latencies_ns.end());
}

std::string InvalidReason(const ResultRow& base, const ResultRow& next) {
  std::string reason;
  if (IsInvalid(ToRunPoint(base))) Append(reason, "base: " + base.invalid_reason);
  if (IsInvalid(ToRunPoint(next))) Append(reason, "new: " + next.invalid_reason);
  return reason;
}

ComparedPair Compare(const LoadedRun& base, const LoadedRun& next,
                     const std::vector<int64_t>& base_ns, const std::vector<int64_t>& new_ns,
                     const CompareOptions& options) {
  ComparedPair pair;
  pair.base = &base;
  pair.next = &next;
  const std::vector<double> before = Sorted(ToDoubles(base_ns)), after = Sorted(ToDoubles(new_ns));
  pair.base_n = before.size();
  pair.new_n = after.size();
  const double base_median_ns = Median(before), new_median_ns = Median(after);
  pair.base_median_ms = base_median_ns / 1e6;
  pair.new_median_ms = new_median_ns / 1e6;
  pair.ratio = new_median_ns / base_median_ns;
  // Seeded by the pair, not by its position: the same pair gets the same interval whatever else
  // the trees hold.
  const ResultRow& row = base.row;
  const uint64_t seed = Fnv1a64(row.compiler + "/" + row.experiment + "/" + row.model + "/b" +
                                std::to_string(row.batch_size));
  pair.interval = BootstrapRatioOfMedians(before, after, options.resamples, seed);
  pair.test = MannWhitneyU(after, before);
  pair.significant = IsSignificant(pair.test.p, pair.interval, options.alpha);
  pair.change = Classify(pair.ratio, pair.interval, pair.test.p, options.alpha, options.threshold);
  pair.invalid_reason = InvalidReason(base.row, next.row);
  pair.in_summary = pair.invalid_reason.empty() || options.invalid_runs == InvalidRuns::kInclude;
  const std::string differ = SettingsDiffer(ToRunPoint(base.row), ToRunPoint(next.row));
  if (!differ.empty()) pair.note = "new run's settings differ: " + differ;
  if (std::min(pair.base_n, pair.new_n) < 10) {
    Append(pair.note, "fewer than 10 latencies: p is rough");
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
    const std::vector<std::string> cells = {base.compiler,
                                            base.experiment,
                                            base.model,
                                            std::to_string(base.batch_size),
                                            base.device,
                                            next.device,
                                            base.run_id,
                                            next.run_id,
                                            std::to_string(pair.base_n),
                                            std::to_string(pair.new_n),
                                            Exact(pair.base_median_ms),
                                            Exact(pair.new_median_ms),
                                            Exact(pair.ratio),
                                            Exact(pair.interval.low),
                                            Exact(pair.interval.high),
                                            Exact(pair.test.u),
                                            Exact(pair.test.z),
                                            Exact(pair.test.p),
                                            pair.significant ? "true" : "false",
                                            ChangeName(pair.change),
                                            pair.invalid_reason.empty() ? "false" : "true",
                                            pair.invalid_reason,
                                            pair.in_summary ? "true" : "false",
                                            pair.note};
    std::string line;
    for (const std::string& cell : cells) line += (line.empty() ? "" : ",") + CsvEscape(cell);
    csv += line + "\n";
  }
  return csv;
}

// The change column of the Markdown table: a difference that is not significant is never
// reported as a change (pyperf's "Not significant!").
std::string ChangeText(const ComparedPair& pair, double threshold) {
  if (pair.change != Change::kSame) return ChangeName(pair.change);
  if (!pair.significant) return "same (not significant)";
  return "same (within ±" + Percent(threshold) + ")";
}

std::string RunLine(const ResultRow& row) {
  return row.compiler + " " + row.experiment + " " + row.model + " b" +
         std::to_string(row.batch_size);
}

struct Group {
  double log_sum = 0;
  int pairs = 0, slower = 0, faster = 0, same = 0, left_out = 0;
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
      ++(pair.change == Change::kSlower   ? g->slower
         : pair.change == Change::kFaster ? g->faster
                                          : g->same);
    }
  }
  out << "\n## Summary\n\n";
  out << TableHeader({"compiler", "experiment", "pairs", "geomean ratio", "slower", "faster",
                      "same", "invalid, left out"});
  auto row = [&](const std::string& compiler, const std::string& experiment, const Group& g) {
    out << TableRow({compiler, experiment, std::to_string(g.pairs),
                     g.pairs > 0 ? Printf("%.3f", std::exp(g.log_sum / g.pairs)) : "",
                     std::to_string(g.slower), std::to_string(g.faster), std::to_string(g.same),
                     std::to_string(g.left_out)});
  };
  for (const auto& [key, group] : groups) row(key.first, key.second, group);
  row("all", "", all);
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
    return PairKey(r.compiler, r.experiment, r.model, r.batch_size, across_labels ? "" : r.device);
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
    std::optional<std::vector<int64_t>> base_ns, new_ns;
    if (reason.empty()) {
      base_ns = TraceOf(base_run, reason);
      new_ns = TraceOf(new_run, reason);
    }
    if (!reason.empty()) {
      skipped.push_back({&base_run, reason});
      continue;
    }
    compared.push_back(Compare(base_run, new_run, *base_ns, *new_ns, options));
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
  out << "- ratio = median latency new / base (> 1: new is slower), from the raw latencies; "
         "95% interval: percentile bootstrap, "
      << options.resamples << " resamples of each side, seeded per pair; p: two-sided "
      << "Mann-Whitney U\n";
  out << "- a change is significant when p < " << Exact(options.alpha)
      << ", the interval excludes 1 and |ratio - 1| > " << Percent(options.threshold) << "\n";

  const bool show_device = !across_labels;
  out << "\n## Pairs\n\n";
  if (compared.empty()) {
    out << "No pair of ok runs with latencies on both sides.\n";
  } else {
    std::vector<std::string> columns = {"compiler", "experiment", "model", "batch"};
    if (show_device) columns.push_back("device");
    for (const char* column :
         {"base p50 ms", "new p50 ms", "ratio", "95% interval", "p", "change", "invalid", "note"}) {
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
            Printf("%.3f", pair.ratio),
            Printf("%.3f", pair.interval.low) + " – " + Printf("%.3f", pair.interval.high),
            pair.test.p < 0.001 ? "<0.001" : Printf("%.2g", pair.test.p),
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
