// Latency statistics as plain functions over raw samples.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace ngraphbench {

// Percentile q in [0, 100] of `sorted` (ascending, non-empty), by linear interpolation between
// closest ranks: position p = q/100 · (n − 1), value = x[⌊p⌋] + (p − ⌊p⌋)·(x[⌊p⌋+1] − x[⌊p⌋]).
// This is NumPy's default ("linear", Hyndman–Fan type 7).
double Percentile(const std::vector<double>& sorted, double q);

struct LatencyStats {
  double mean_ms = 0, std_ms = 0, min_ms = 0, p25_ms = 0, p50_ms = 0, p75_ms = 0, p90_ms = 0,
         p95_ms = 0, p99_ms = 0, max_ms = 0;
  double cv = 0;  // std / mean; std is the sample standard deviation (n − 1); 0 for one sample
  double throughput_median_sps = 0;  // batch / p50
  double throughput_mean_sps = 0;    // batch / mean
  // 95% confidence interval of the median (MedianCiRanks); empty for fewer than 6 samples
  std::optional<double> p50_ci_low_ms, p50_ci_high_ms;
};

// The distribution-free confidence interval of the median from order statistics: with
// B ~ Binomial(n, 1/2), l = the largest k >= 1 with P(B <= k - 1) <= (1 - confidence) / 2, the
// interval is [x_(l), x_(n-l+1)] (1-based ranks of the sorted sample); it covers the population
// median with probability 1 - 2 P(B <= l - 1) >= confidence, whatever the distribution.
// Returns the two 1-based ranks, or nullopt when n is too small for any interval at this
// confidence (n <= 5 at 95%). E.g. n = 10: ranks 2 and 9; n = 100: 40 and 61.
std::optional<std::pair<int64_t, int64_t>> MedianCiRanks(int64_t n, double confidence = 0.95);

// Summarizes per-iteration latencies (integer ns) of runs over `batch_size` samples each.
LatencyStats Summarize(const std::vector<int64_t>& latencies_ns, int64_t batch_size);

}  // namespace ngraphbench
