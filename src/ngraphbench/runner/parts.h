// A run measured in several worker processes (measure/repeat.h): each worker writes its part,
// `<dir>/.parts/<run_id>.p<i>.csv` (a row of that process alone),
// `<dir>/.parts/<run_id>.p<i>.latencies.csv` (its trace) and, when it measured,
// `<dir>/.parts/<run_id>.p<i>.summary.json` (what the run's verdict needs of it beyond the row:
// measure/aggregate.h's ProcessSummary), atomically, the row last. Once the run's processes
// are all in, the scheduler merges the parts into the run's row and its trace (the trace first,
// the row last) and removes the parts: a row on disk still means a complete run, and a sweep
// killed in between resumes from the parts already measured.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/experiments/grid.h"
#include "ngraphbench/measure/aggregate.h"
#include "ngraphbench/measure/verdict.h"
#include "ngraphbench/results/row.h"

namespace ngraphbench {

std::string PartsDirectory(const std::string& dir);
std::string PartRowPath(const std::string& dir, const std::string& run_id, int process);
std::string PartLatenciesPath(const std::string& dir, const std::string& run_id, int process);
std::string PartSummaryPath(const std::string& dir, const std::string& run_id, int process);
// The claim of one process of a run (results/claim.h), beside the runs' claims.
std::string PartClaimPath(const std::string& dir, const std::string& run_id, int process);

// One process's part as read back.
struct Part {
  int process = 0;
  ResultRow row;
  // Its timed runs (empty for a part that measured nothing), its window (the row's) and the
  // verdict's figures of its summary file.
  ProcessSummary summary;
};

// Writes part `process`'s summary file (of a part that measured: its figures beyond the row's,
// as structured data), atomically; before its row.
void WritePartSummary(const std::string& dir, const std::string& run_id, int process,
                      const ProcessSummary& summary);

// The indices of the parts of `run_id` on disk under `dir`, ascending.
std::vector<int> PartIndices(const std::string& dir, const std::string& run_id);
// Part `process` of `run_id`, its trace and summary when its row says it measured; throws
// InputError when any of them cannot be read or does not belong to the run.
Part ReadPart(const std::string& dir, const std::string& run_id, int process);
// Removes part `process` of `run_id` (its row, its trace and its summary).
void RemovePart(const std::string& dir, const std::string& run_id, int process);
// Removes every part file of `run_id` (rows, traces and summaries).
void RemoveParts(const std::string& dir, const std::string& run_id);

// The latency columns of `row` from timed runs (integer ns) of batches of `batch_size`: the
// pooled statistics, cv, iqr_rel, the order-statistic interval (the within columns), the
// throughputs and `repeats`.
void FillLatencyColumns(ResultRow& row, const std::vector<int64_t>& latencies_ns,
                        int64_t batch_size);
// The same columns from the statistics `s` of `repeats` timed runs.
void FillLatencyColumns(ResultRow& row, const LatencyStats& s, int64_t repeats);

// Adds each phase's seconds (a row's phases_s) to `totals`, phases new to it at its end.
void AddPhases(const std::vector<std::pair<std::string, double>>& phases,
               std::vector<std::pair<std::string, double>>& totals);

// The run's row from its parts (in process order; at least one). Identity, build, compile and
// first-run columns come from the first part (the one that compiled, or loaded the compile
// cache, first); the latency statistics, `processes`, each process's median, the between-process
// reproduction interval, the system columns (totals or window-weighted means, peaks as maxima)
// and the validity verdict as measure/aggregate.h computes them over the parts' summaries (the
// verdict's rules into `broken` where given); the output check as its worst part. The status is
// the first part's that is not ok, with its error, else ok. `reason` is processes_reason.
ResultRow MergeParts(const RunSpec& run, const std::vector<Part>& parts,
                     const std::string& reason, std::vector<ValidityRule>* broken = nullptr);

// The relative half-width of the row's reproduction interval, (high - low) / 2 / median.
std::optional<double> IntervalRelHalfWidth(const ResultRow& row);

}  // namespace ngraphbench
