// The offline and server scenarios beside single stream (docs/measurement.md, Scenarios): two
// roads to k samples in flight (one batch of k, or k streams of one sample each), the offline
// runs against their streams, and each server run's latency against its throughput. The paper's
// metrics (RTR, ASE, speedups, rankings: metrics.h) stay defined on single stream and batch size;
// these stand beside them. Plain free functions over plain structs, no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/analysis/metrics.h"
#include "ngraphbench/results/row.h"
#include "ngraphbench/results/server_steps.h"

namespace ngraphbench {

// k samples in flight on one device, compiler, experiment and model, by each road:
//   batching:    the single-stream run at batch size k, throughput_median_sps (= k / L(k));
//   concurrency: the offline run at batch size 1 with k streams (the streams it served: an
//                `auto` run counts at the streams its row records), samples_per_s.
// Each road's latency is that of one request: a batch of k, or one sample on its stream.
struct RoadsRow {
  std::string device, experiment, compiler, precision, model;
  int64_t in_flight = 0;  // k
  // The runs compared; "" when there is none.
  std::string batching_run_id, concurrency_run_id;
  // Each road's own numbers, set whenever its run is measured (IsMeasured).
  std::optional<double> batching_sps, batching_latency_p50_ms, batching_latency_p99_ms;
  std::optional<double> concurrency_sps, concurrency_latency_p50_ms, concurrency_latency_p99_ms;
  // concurrency_sps / batching_sps, when both runs are measured and their settings agree
  // (SettingsDiffer); `better` is "concurrency" above 1, "batching" below, "equal" at 1, "" without
  // a ratio. A point value: an offline run's samples_per_s has no interval.
  std::optional<double> concurrency_over_batching;
  std::string better;
  std::string note;  // why a cell is empty, "; "-joined; "" when every cell is filled
};

// One row per k for every (device, experiment, compiler, precision, model) that has an offline
// run at batch size 1 (of any status): k runs over the single-stream runs' batch sizes and the
// offline runs' streams together, sorted by (device, experiment, compiler, precision, model,
// in_flight). A run
// counts when it is measured; a k with several measured offline runs (e.g. `streams: 2` and an
// `auto` that served 2) compares the first by run id and says so. Offline runs at a larger batch
// size are in SelectOfflineRuns only.
std::vector<RoadsRow> CompareRoads(const std::vector<RunPoint>& runs,
                                   InvalidRuns invalid_runs = InvalidRuns::kExclude);

// The measured offline runs of `runs` (every batch size), sorted by (device, experiment,
// compiler, precision, model, batch_size, streams, run_id).
std::vector<RunPoint> SelectOfflineRuns(const std::vector<RunPoint>& runs,
                                        InvalidRuns invalid_runs = InvalidRuns::kExclude);

// One rate a server run measured: a step of its find_peak search, or the run itself.
struct ServerPoint {
  std::string device, experiment, compiler, precision, model, run_id;
  int64_t batch_size = 0;
  std::optional<int64_t> streams;
  std::optional<int64_t> step;  // 1, 2, ... in the search's order; empty for the row's own point
  double target_qps = 0, achieved_qps = 0;
  double samples_per_s = 0;  // batch_size x achieved_qps
  std::optional<double> latency_p50_ms;
  double latency_at_percentile_ms = 0;
  std::optional<double> latency_percentile, latency_bound_ms;  // the run's
  bool bound_met = false;
  // A step's: the server's own rules for it (results/server_steps.h); the row's own point: the
  // row's verdict (an empty one counts as valid).
  bool valid = true;
  std::string invalid_reason;
  int64_t queries_issued = 0, queries_completed = 0;
  bool reported = false;  // the step the row reports (the peak's, or the latest), or the row
  std::string note;
};

// The latency-throughput curve of one ok server run: its find_peak steps in the order measured
// (`steps`, ReadRunServerSteps), the one the row reports marked; the row's own point when it
// has no steps (no find_peak, or a find_peak row whose steps file is missing: the note says so).
std::vector<ServerPoint> ServerCurve(const ResultRow& row,
                                     const std::optional<std::vector<ServerStep>>& steps);

}  // namespace ngraphbench
