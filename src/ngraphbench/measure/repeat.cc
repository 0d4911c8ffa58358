#include "ngraphbench/measure/repeat.h"

#include <boost/math/distributions/students_t.hpp>
#include <cmath>

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

std::optional<Interval> ReproductionInterval(double center, const std::vector<double>& medians,
                                             double confidence) {
  const std::optional<LogSpread> s = LogSpreadOf(medians);
  if (!s || s->k < 2 || !(center > 0)) return std::nullopt;
  const double h = StudentTQuantile((1 + confidence) / 2, s->k - 1) * s->sd * std::sqrt(2.0 / s->k);
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
  // Welch-Satterthwaite; a side with no spread contributes no degrees of freedom of its own.
  const double den = (va > 0 ? va * va / (sa->k - 1) : 0) + (vb > 0 ? vb * vb / (sb->k - 1) : 0);
  r.df = (va + vb) * (va + vb) / den;
  const double h = StudentTQuantile((1 + confidence) / 2, r.df) * se;
  r.low = r.ratio * std::exp(-h);
  r.high = r.ratio * std::exp(h);
  r.p_value = StudentTTwoSidedP(diff / se, r.df);
  return r;
}

}  // namespace ngraphbench
