#include "ngraphbench/measure/repeat.h"

#include <boost/math/distributions/students_t.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <iterator>

namespace ngraphbench {

double StudentTQuantile(double q, double df) {
  return boost::math::quantile(boost::math::students_t_distribution<double>(df), q);
}

double StudentTTwoSidedP(double t, double df) {
  return 2 * boost::math::cdf(boost::math::complement(
                 boost::math::students_t_distribution<double>(df), std::fabs(t)));
}

std::optional<LogSpread> LogSpreadOf(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  LogSpread s;
  s.k = static_cast<int>(values.size());
  for (double v : values) {
    if (!(v > 0) || !std::isfinite(v)) return std::nullopt;
    s.mean += std::log(v);
  }
  s.mean /= s.k;
  double sq = 0;
  for (double v : values) sq += (std::log(v) - s.mean) * (std::log(v) - s.mean);
  s.sd = s.k > 1 ? std::sqrt(sq / (s.k - 1)) : 0.0;
  return s;
}

namespace {

// Welch-Satterthwaite's degrees of freedom of the sum of two variances of means, va of ka values
// and vb of kb; a side with no spread contributes no degrees of freedom of its own.
double WelchDegreesOfFreedom(double va, int ka, double vb, int kb) {
  const double den = (va > 0 ? va * va / (ka - 1) : 0) + (vb > 0 ? vb * vb / (kb - 1) : 0);
  return (va + vb) * (va + vb) / den;
}

}  // namespace

double MedianVarianceFactor(int64_t k) {
  // K * Var(median of K standard normal draws), by numerical integration over the order
  // statistics' densities (the mean of the two middle ones for even K); 1 for the mean.
  static constexpr double kTable[] = {1.0,    1.0,    1.0,    1.346,  1.1928, 1.4342, 1.2885,
                                      1.4731, 1.3454, 1.4949, 1.3833, 1.5088, 1.4102, 1.5184,
                                      1.4303, 1.5254, 1.446,  1.5308, 1.4585, 1.535,  1.4687};
  if (k < static_cast<int64_t>(std::size(kTable))) return kTable[std::max<int64_t>(k, 0)];
  // Beyond the table, the first-order approach to pi/2 that the table's last entries follow
  // (within 0.002 of them for K = 15..20).
  const double half_pi = std::acos(0.0);
  return half_pi - (k % 2 ? 0.68 : 2.04) / static_cast<double>(k);
}

std::optional<Interval> ReproductionInterval(double center, const std::vector<double>& medians,
                                             double confidence) {
  const std::optional<LogSpread> s = LogSpreadOf(medians);
  if (!s || s->k < 2 || !(center > 0)) return std::nullopt;
  const double h = StudentTQuantile((1 + confidence) / 2, s->k - 1) * s->sd *
                   std::sqrt(2.0 * MedianVarianceFactor(s->k) / s->k);
  return Interval{center * std::exp(-h), center * std::exp(h)};
}

std::optional<RatioEstimate> CompareProcessMedians(double a_center, const std::vector<double>& a,
                                                   double b_center, const std::vector<double>& b,
                                                   double confidence) {
  const std::optional<LogSpread> sa = LogSpreadOf(a), sb = LogSpreadOf(b);
  if (!sa || !sb || sa->k < 2 || sb->k < 2 || !(a_center > 0) || !(b_center > 0)) {
    return std::nullopt;
  }
  RatioEstimate r;
  r.ratio = a_center / b_center;
  const double va = sa->sd * sa->sd / sa->k, vb = sb->sd * sb->sd / sb->k;
  const double se = std::sqrt(va + vb);
  const double diff = sa->mean - sb->mean;
  if (se == 0) {
    r.low = r.high = r.ratio;
    r.p_value = diff == 0 ? 1.0 : 0.0;
    r.df = sa->k + sb->k - 2;
    return r;
  }
  r.df = WelchDegreesOfFreedom(va, sa->k, vb, sb->k);
  const double h = StudentTQuantile((1 + confidence) / 2, r.df) * se;
  r.low = r.ratio * std::exp(-h);
  r.high = r.ratio * std::exp(h);
  r.p_value = StudentTTwoSidedP(diff / se, r.df);
  return r;
}

std::optional<Interval> RatioReproductionInterval(double a_center, const std::vector<double>& a,
                                                  double b_center, const std::vector<double>& b,
                                                  bool paired, double confidence) {
  if (!(a_center > 0) || !(b_center > 0)) return std::nullopt;
  const double ratio = a_center / b_center;
  if (paired) {
    // The log-differences are the logs of the pairs' ratios.
    std::vector<double> ratios;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) ratios.push_back(a[i] / b[i]);
    return ReproductionInterval(ratio, ratios, confidence);
  }
  const std::optional<LogSpread> sa = LogSpreadOf(a), sb = LogSpreadOf(b);
  if (!sa || !sb || sa->k < 2 || sb->k < 2) return std::nullopt;
  const double va = MedianVarianceFactor(sa->k) * sa->sd * sa->sd / sa->k;
  const double vb = MedianVarianceFactor(sb->k) * sb->sd * sb->sd / sb->k;
  if (va + vb == 0) return Interval{ratio, ratio};
  const double df = WelchDegreesOfFreedom(va, sa->k, vb, sb->k);
  const double h = StudentTQuantile((1 + confidence) / 2, df) * std::sqrt(2 * (va + vb));
  return Interval{ratio * std::exp(-h), ratio * std::exp(h)};
}

bool ProcessesPairedInTime(const std::vector<double>& a_times,
                           const std::vector<double>& b_times) {
  const size_t n = std::min(a_times.size(), b_times.size());
  if (n < 3) return false;
  for (size_t i = 0; i + 1 < n; ++i) {
    if (std::max(a_times[i], b_times[i]) >= std::min(a_times[i + 1], b_times[i + 1])) {
      return false;
    }
  }
  return true;
}

int64_t ProcessesForTarget(double sd, double target_rel) {
  // The interval is median * exp(+-h); its half-width relative to the median is sinh(h).
  const double h = std::asinh(target_rel);
  for (int64_t k = 2; k <= 1000; ++k) {
    const double kd = static_cast<double>(k);
    if (StudentTQuantile(0.975, kd - 1) * sd * std::sqrt(2.0 * MedianVarianceFactor(k) / kd) <=
        h) {
      return k;
    }
  }
  return 0;
}

namespace {

// The sum of squared deviations of values[from, to) from their mean.
double SumOfSquares(const std::vector<double>& values, size_t from, size_t to) {
  double mean = 0;
  for (size_t i = from; i < to; ++i) mean += values[i];
  mean /= static_cast<double>(to - from);
  double sq = 0;
  for (size_t i = from; i < to; ++i) sq += (values[i] - mean) * (values[i] - mean);
  return sq;
}

// The median of values[from, to) (sorted).
double MedianOf(const std::vector<double>& sorted, size_t from, size_t to) {
  const size_t n = to - from, mid = from + n / 2;
  return n % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

}  // namespace

std::string DescribeProcessSpread(const std::vector<double>& medians_ms, double target_rel) {
  const std::optional<LogSpread> spread = LogSpreadOf(medians_ms);
  if (!spread || spread->k < 3) return "";
  std::vector<double> logs;
  for (double m : medians_ms) logs.push_back(std::log(m));
  std::sort(logs.begin(), logs.end());
  std::string out = fmt::format("processes' medians spread {:.2g}% (sd of their logs)",
                                spread->sd * 100);
  // The widest gap between neighbours splits the medians in two; it is a second mode, not the
  // tail of one, when it is wide against the spread within the two groups.
  size_t split = 1;
  for (size_t i = 1; i < logs.size(); ++i) {
    if (logs[i] - logs[i - 1] > logs[split] - logs[split - 1]) split = i;
  }
  const double gap = logs[split] - logs[split - 1];
  const size_t n = logs.size();
  const double within =
      n > 2 ? std::sqrt((SumOfSquares(logs, 0, split) + SumOfSquares(logs, split, n)) /
                        static_cast<double>(n - 2))
            : 0.0;
  if (split >= 2 && n - split >= 2 && gap > std::log(1.15) && gap > 4 * within) {
    return out + fmt::format("; {} near {:.3g} ms, {} near {:.3g} ms: bimodal on this machine",
                             split, std::exp(MedianOf(logs, 0, split)), n - split,
                             std::exp(MedianOf(logs, split, n)));
  }
  const int64_t needed = ProcessesForTarget(spread->sd, target_rel);
  return out + (needed > 0 ? fmt::format("; +-{:.3g}% needs about {} processes at that spread",
                                         target_rel * 100, needed)
                           : fmt::format("; more than 1000 processes would not narrow it to "
                                         "+-{:.3g}%",
                                         target_rel * 100));
}

}  // namespace ngraphbench
