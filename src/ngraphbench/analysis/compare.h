// `ngraphbench compare BASE NEW`: the same grid measured twice (before and after a driver update,
// on two machines, with two compiler versions), run by run: what changed, and is it real.
//
// Per pair of runs, from the rows alone (measure/repeat.h; the traces are not read: a process's
// latencies are not independent samples of its setup, so the test is over the process medians
// each row carries, and the quoted medians are the rows' latency_p50_ms):
//   - ratio = latency_p50_ms(NEW) / latency_p50_ms(BASE) (> 1: NEW is slower);
//   - its 95% interval and a two-sided p of "no change": CompareProcessMedians (Welch's t on the
//     log process medians of both sides).
// A pair is a significant change when p < alpha, the interval excludes 1, and |ratio - 1| >
// threshold; otherwise it is `same`. Like pyperf's compare_to, a difference that is not
// significant is reported as such, never as a change. With fewer than 2 processes on a side
// there is no spread to judge a change by: the pair is `undecided`, neither same nor a change.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "ngraphbench/analysis/metrics.h"
#include "ngraphbench/measure/repeat.h"

namespace ngraphbench {

// Processes a side needs for a verdict (CompareProcessMedians' minimum).
inline constexpr int kMinProcessesToJudge = 2;

enum class Change { kSame, kSlower, kFaster, kUndecided };
const char* ChangeName(Change change);  // "same", "slower", "faster", "undecided"

// Whether the estimate is a significant change: p < alpha and the interval excludes 1.
bool IsSignificant(const RatioEstimate& estimate, double alpha);
// Significant and |ratio - 1| > threshold (0.05 = 5%): slower when ratio > 1, faster below;
// otherwise same. kUndecided without an estimate (a side with fewer than 2 processes) or with a
// ratio or interval that is not a finite positive number: never same.
Change Classify(const std::optional<RatioEstimate>& estimate, double alpha, double threshold);

// ---- The command ----

struct CompareOptions {
  double alpha = 0.05;
  double threshold = 0.05;  // |ratio - 1| a change must exceed
  // Whether pairs where a side is marked invalid (valid = false) enter the summary and the
  // --fail-on-regression verdict. They are listed in the table either way.
  InvalidRuns invalid_runs = InvalidRuns::kExclude;
  bool fail_on_regression = false;
  std::string csv_path;  // where to write the per-pair table as CSV; "" = nowhere
};

// Loads BASE and NEW (results trees or zips, analysis/load.h), pairs their runs by (compiler,
// experiment, model, batch_size, device label); when each side holds exactly one device label the
// label is ignored, so two machines' trees pair up. Pairs whose rows are both `ok` with a
// latency_p50_ms are compared; the others, and runs present on one side only, are listed.
// Writes a Markdown report to `out` (always Markdown: it reads as plain text in a terminal and
// renders in CI logs and pull requests) and, with options.csv_path, the per-pair CSV (columns:
// kCompareCsvColumns in compare.cc). Returns kExitRunsFailed (1) when options.fail_on_regression
// and a pair in the summary is significantly slower (an undecided pair never is), else kExitOk.
// Throws InputError for a missing or unreadable input, one without runs, or a malformed row.
int RunCompare(const std::string& base, const std::string& next, const CompareOptions& options,
               std::ostream& out);

}  // namespace ngraphbench
