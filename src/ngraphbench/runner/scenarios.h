// The worker's measurement (worker.cc), one scenario each (docs/measurement.md, Scenarios):
// single stream (measure/harness.h), offline (measure/offline.h) and server (measure/server.h),
// each process timing its share of the run (measure/aggregate.h), the row's columns filled from
// its timed window (rows.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/measure/sampler.h"
#include "ngraphbench/results/row.h"
#include "ngraphbench/results/server_steps.h"
#include "ngraphbench/runner/model.h"
#include "ngraphbench/runner/spec.h"

namespace ngraphbench::worker {

// What the verdict and the output check need of a measurement, either scenario's.
struct Measured {
  SystemStats system;
  double window_s = 0;
  // Each stream's outputs of its first run (one stream in single_stream), to be checked.
  std::vector<std::vector<HostTensor>> first_outputs;
  // The scenario's own reasons the run is invalid (server: measure/server.h).
  std::vector<std::string> invalid_reasons = {};
  // Server with find_peak: every step of the search, for `<run_id>.server_steps.csv`.
  std::vector<ServerStep> server_steps = {};
  // Single stream: the time stalls took in the timed window (measure/verdict.h).
  double stall_s = 0;
};

// Measure: this process's timed runs (measure/harness.h) and what the sampler saw meanwhile.
// The latencies are moved to `latencies`, the first run's outputs stay in the result.
Measured MeasureProcess(const ResolvedRun& spec, int process, Executable& executable,
                        const BuiltModel& model, bool capture_outputs,
                        std::vector<int64_t>& latencies, ResultRow& row);

// Measure, offline (measure/offline.h): the executable's contexts, as many as it was compiled
// to serve, each looping on its own thread, and samples per second over the window. A compiler
// without execution contexts is refused here, naming it: never a single stream passed off as
// several.
Measured MeasureOfflineProcess(const ResolvedRun& spec, int process, Executable& executable,
                               const BuiltModel& model, bool capture_outputs,
                               std::vector<int64_t>& latencies, ResultRow& row);

// Measure, server (measure/server.h): Poisson queries at target_qps into the executable's
// contexts, the latency percentile against the bound; with find_peak, a search over rates
// (FindPeak), each step a measured run, the row the peak's step (or, when none met the bound,
// the last step), every step in the row's notes and in Measured::server_steps.
Measured MeasureServerProcess(const ResolvedRun& spec, int process, Executable& executable,
                              const BuiltModel& model, bool capture_outputs,
                              std::vector<int64_t>& latencies, ResultRow& row);

}  // namespace ngraphbench::worker
