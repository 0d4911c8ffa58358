// The steps of a server run's find_peak search (measure/server.h: FindPeak): every rate it
// measured, in `<run_id>.server_steps.csv` beside the run's row, which holds the step it reports
// (the peak's) and their count (`peak_steps`). Written by the worker before the row, so that a
// row on disk means its steps are too; read back by `analyze` as the run's latency-throughput
// curve. Serialized here alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ngraphbench/results/layout.h"  // ServerStepsPath

namespace ngraphbench {

// One measured rate: a line of `<run_id>.server_steps.csv`.
struct ServerStep {
  int64_t step = 0;  // 1, 2, ... in the order measured
  double target_qps = 0;
  double achieved_qps = 0;  // completed queries / the step's window
  // Over every issued query of the step, from its scheduled arrival to its completion: the
  // median and the latency at the run's latency_percentile (the row's).
  double latency_p50_ms = 0;
  double latency_at_percentile_ms = 0;
  bool bound_met = false;  // latency_at_percentile_ms <= the bound and every query completed
  // The server's own validity rules for the step (ServerInvalidReasons: enough queries, long
  // enough, a generator on time); "; "-joined reasons when not valid. The row's `valid` judges
  // the reported step against the run-wide rules too.
  bool valid = true;
  std::string invalid_reason;
  int64_t queries_issued = 0, queries_completed = 0;
};

// A header line, then one line per step, '\n' line ends.
std::string FormatServerStepsCsv(const std::vector<ServerStep>& steps);

// Parses what FormatServerStepsCsv wrote: the exact header, steps numbered 1, 2, ... in order,
// non-negative finite numbers, `true`/`false`, at most as many queries completed as issued.
// Throws InputError naming `source`, the line and what was expected.
std::vector<ServerStep> ParseServerStepsCsv(const std::string& text, const std::string& source);

}  // namespace ngraphbench
