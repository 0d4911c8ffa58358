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
  s.p50_ms = Percentile(ms, 50);
  s.p90_ms = Percentile(ms, 90);
  s.p95_ms = Percentile(ms, 95);
  s.p99_ms = Percentile(ms, 99);
  const double b = static_cast<double>(batch_size);
  s.throughput_median_sps = s.p50_ms > 0 ? b / (s.p50_ms / 1e3) : 0.0;
  s.throughput_mean_sps = s.mean_ms > 0 ? b / (s.mean_ms / 1e3) : 0.0;
  return s;
}

}  // namespace ngraphbench
