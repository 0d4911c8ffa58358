#include "ngraphbench/measure/stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ngraphbench {

double Percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("percentile of an empty sample");
  if (q < 0 || q > 100) throw std::invalid_argument("percentile outside [0, 100]");
  const double pos = q / 100.0 * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

std::optional<std::pair<int64_t, int64_t>> MedianCiRanks(int64_t n, double confidence) {
  if (n < 1 || !(confidence > 0 && confidence < 1)) return std::nullopt;
  const double tail = (1.0 - confidence) / 2.0;
  // P(B <= k) accumulated in log space: 2^-n underflows a double from n = 1075 on.
  const double log_half_n = -static_cast<double>(n) * std::log(2.0);
  const double log_n_fact = std::lgamma(static_cast<double>(n) + 1.0);
  double log_cdf = -INFINITY;
  int64_t l = 0;  // the largest k with P(B <= k - 1) <= tail so far
  for (int64_t k = 1; k <= n / 2 + 1; ++k) {
    const double j = static_cast<double>(k - 1);
    const double log_pmf = log_n_fact - std::lgamma(j + 1.0) -
                           std::lgamma(static_cast<double>(n) - j + 1.0) + log_half_n;
    const double hi = std::max(log_cdf, log_pmf), lo = std::min(log_cdf, log_pmf);
    log_cdf = hi + std::log1p(std::exp(lo - hi));  // log(P(B <= k - 1))
    if (std::exp(log_cdf) > tail) break;
    l = k;
  }
  if (l < 1) return std::nullopt;
  return std::make_pair(l, n - l + 1);
}

LatencyStats Summarize(const std::vector<int64_t>& latencies_ns, int64_t batch_size) {
  if (latencies_ns.empty()) throw std::invalid_argument("no latencies to summarize");
  std::vector<double> ms;
  ms.reserve(latencies_ns.size());
  for (int64_t ns : latencies_ns) ms.push_back(static_cast<double>(ns) / 1e6);
  std::sort(ms.begin(), ms.end());
  const double n = static_cast<double>(ms.size());
  double sum = 0;
  for (double v : ms) sum += v;
  LatencyStats s;
  s.mean_ms = sum / n;
  double sq = 0;
  for (double v : ms) sq += (v - s.mean_ms) * (v - s.mean_ms);
  s.std_ms = ms.size() > 1 ? std::sqrt(sq / (n - 1)) : 0.0;
  s.cv = s.mean_ms > 0 ? s.std_ms / s.mean_ms : 0.0;
  s.min_ms = ms.front();
  s.max_ms = ms.back();
  s.p25_ms = Percentile(ms, 25);
  s.p50_ms = Percentile(ms, 50);
  s.p75_ms = Percentile(ms, 75);
  s.p90_ms = Percentile(ms, 90);
  s.p95_ms = Percentile(ms, 95);
  s.p99_ms = Percentile(ms, 99);
  if (const auto ranks = MedianCiRanks(static_cast<int64_t>(ms.size()))) {
    s.p50_ci_low_ms = ms[static_cast<size_t>(ranks->first - 1)];
    s.p50_ci_high_ms = ms[static_cast<size_t>(ranks->second - 1)];
  }
  const double b = static_cast<double>(batch_size);
  s.throughput_median_sps = s.p50_ms > 0 ? b / (s.p50_ms / 1e3) : 0.0;
  s.throughput_mean_sps = s.mean_ms > 0 ? b / (s.mean_ms / 1e3) : 0.0;
  return s;
}

}  // namespace ngraphbench
