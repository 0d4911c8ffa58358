// `ngraphbench compare BASE NEW`: the same grid measured twice (before and after a driver update,
// on two machines, with two compiler versions), run by run: what changed, and is it real.
//
// Per pair of runs, from the raw per-iteration latencies (the traces):
//   - ratio = median(NEW) / median(BASE) (> 1: NEW is slower), medians as measure/stats.h
//     Percentile(50);
//   - a 95% percentile-bootstrap interval of that ratio (each side resampled independently);
//   - a two-sided Mann-Whitney U test of "both sides come from one distribution" (p).
// A pair is a significant change when p < alpha, the interval excludes 1, and |ratio - 1| >
// threshold; otherwise it is `same`. Like pyperf's compare_to, a difference that is not
// significant is reported as such, never as a change.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "ngraphbench/analysis/metrics.h"
#include "ngraphbench/core/random.h"

namespace ngraphbench {

// ---- Statistics: plain functions over samples ----

struct MannWhitneyResult {
  double u = 0;  // U of x: #(x_i > y_j) + 0.5 #(x_i == y_j), over all pairs (scipy's statistic)
  double z = 0;  // standardized U of x, continuity-corrected towards 0; > 0: x tends larger
  double p = 1;  // two-sided p value, 2 (1 - Phi(|z|)), at most 1
};

// Two-sided Mann-Whitney U test by the normal approximation with tie correction and continuity
// correction (scipy.stats.mannwhitneyu(x, y, method="asymptotic", use_continuity=True)):
// mu = n1 n2 / 2, sigma^2 = n1 n2 / 12 ((n + 1) - sum(t^3 - t) / (n (n - 1))) over the sizes t of
// the groups of tied values, z = sign(U - mu) max(|U - mu| - 1/2, 0) / sigma. Sound for n1, n2 >=
// 10 or so; p = 1 when every value is the same. Throws std::invalid_argument for an empty sample.
MannWhitneyResult MannWhitneyU(const std::vector<double>& x, const std::vector<double>& y);

// The median of `sorted` (ascending, non-empty): Percentile(sorted, 50).
double Median(const std::vector<double>& sorted);

struct RatioInterval {
  double low = 0, high = 0;
};

// A uniform index in [0, n) from one draw: floor(rng.Next() * n / 2^64).
size_t ResampleIndex(PortableRng& rng, size_t n);

// Percentile-bootstrap interval of median(after) / median(before) at `confidence`: `resamples`
// times, `before` and then `after` are each resampled with replacement to their own size (n draws
// of ResampleIndex from one PortableRng(seed) stream), the ratio of the resamples' medians is
// taken; the interval is the (1 - confidence) / 2 and (1 + confidence) / 2 percentiles of the
// ratios (Percentile). The same inputs and seed give the same interval on every machine. Throws
// std::invalid_argument for an empty sample, resamples < 1, or a median <= 0 in `before`.
RatioInterval BootstrapRatioOfMedians(const std::vector<double>& before,
                                      const std::vector<double>& after, int resamples,
                                      uint64_t seed, double confidence = 0.95);

enum class Change { kSame, kSlower, kFaster };
const char* ChangeName(Change change);  // "same", "slower", "faster"

// Whether the ratio is a significant change: p < alpha, the interval excludes 1 and |ratio - 1| >
// threshold (0.05 = 5%). Slower when ratio > 1.
bool IsSignificant(double p, const RatioInterval& interval, double alpha);
Change Classify(double ratio, const RatioInterval& interval, double p, double alpha,
                double threshold);

// ---- The command ----

struct CompareOptions {
  double alpha = 0.05;
  double threshold = 0.05;  // |ratio - 1| a change must exceed
  int resamples = 2000;     // bootstrap resamples per side
  // Whether pairs where a side is marked invalid (valid = false) enter the summary and the
  // --fail-on-regression verdict. They are listed in the table either way.
  InvalidRuns invalid_runs = InvalidRuns::kExclude;
  bool fail_on_regression = false;
  std::string csv_path;  // where to write the per-pair table as CSV; "" = nowhere
};

// Loads BASE and NEW (results trees or zips, analysis/load.h), pairs their runs by (compiler,
// experiment, model, batch_size, device label); when each side holds exactly one device label the
// label is ignored, so two machines' trees pair up. Pairs whose rows are both `ok` and have a
// trace on both sides are compared; the others, and runs present on one side only, are listed.
// Writes a Markdown report to `out` (always Markdown: it reads as plain text in a terminal and
// renders in CI logs and pull requests) and, with options.csv_path, the per-pair CSV (columns:
// kCompareCsvColumns in compare.cc). Returns kExitRunsFailed (1) when options.fail_on_regression
// and a pair in the summary is significantly slower, else kExitOk. Throws InputError for a missing
// or unreadable input, one without runs, or a malformed trace.
int RunCompare(const std::string& base, const std::string& next, const CompareOptions& options,
               std::ostream& out);

}  // namespace ngraphbench
