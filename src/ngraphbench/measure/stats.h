// Latency statistics as plain functions over raw samples.
#pragma once

#include <cstdint>
#include <vector>

namespace ngraphbench {

// Percentile q in [0, 100] of `sorted` (ascending, non-empty), by linear interpolation between
// closest ranks: position p = q/100 · (n − 1), value = x[⌊p⌋] + (p − ⌊p⌋)·(x[⌊p⌋+1] − x[⌊p⌋]).
// This is NumPy's default ("linear", Hyndman–Fan type 7).
double Percentile(const std::vector<double>& sorted, double q);

struct LatencyStats {
  double mean_ms = 0, std_ms = 0, min_ms = 0, p50_ms = 0, p90_ms = 0, p95_ms = 0, p99_ms = 0,
         max_ms = 0;
  double cv = 0;  // std / mean; std is the sample standard deviation (n − 1); 0 for one sample
  double throughput_median_sps = 0;  // batch / p50
  double throughput_mean_sps = 0;    // batch / mean
};

// Summarizes per-iteration latencies (integer ns) of runs over `batch_size` samples each.
LatencyStats Summarize(const std::vector<int64_t>& latencies_ns, int64_t batch_size);

}  // namespace ngraphbench
