// Repetition across processes (measure/repeat.h): Student's t from Boost.Math, the log spread of
// process medians, the reproduction interval and Welch's comparison, each against values computed
// by hand from the formulas and checked with scipy.stats (ttest_ind(equal_var=False), t.ppf).
#include "ngraphbench/measure/repeat.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace ngraphbench {
namespace {

TEST(StudentT, QuantilesAndTwoSidedP) {
  // scipy.stats.t.ppf(0.975, 2), t.ppf(0.975, 1) (the K = 2 interval's 12.7)
  EXPECT_NEAR(StudentTQuantile(0.975, 2), 4.302652729749462, 1e-9);
  EXPECT_NEAR(StudentTQuantile(0.975, 1), 12.706204736174694, 1e-9);
  EXPECT_NEAR(StudentTQuantile(0.5, 7), 0.0, 1e-12);
  // 2 * scipy.stats.t.sf(2, 5); symmetric in t
  EXPECT_NEAR(StudentTTwoSidedP(2.0, 5), 0.10193947882985835, 1e-12);
  EXPECT_NEAR(StudentTTwoSidedP(-2.0, 5), 0.10193947882985835, 1e-12);
  EXPECT_NEAR(StudentTTwoSidedP(0.0, 5), 1.0, 1e-12);
}

TEST(LogSpreadOf, MeanAndSampleSdOfLogs) {
  // ln 1, ln e, ln e^2 = 0, 1, 2: mean 1, sd sqrt((1 + 0 + 1) / 2) = 1.
  const std::optional<LogSpread> s = LogSpreadOf({1.0, std::exp(1.0), std::exp(2.0)});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->k, 3);
  EXPECT_NEAR(s->mean, 1.0, 1e-12);
  EXPECT_NEAR(s->sd, 1.0, 1e-12);

  const std::optional<LogSpread> one = LogSpreadOf({5.0});
  ASSERT_TRUE(one);
  EXPECT_EQ(one->k, 1);
  EXPECT_DOUBLE_EQ(one->sd, 0.0);

  EXPECT_FALSE(LogSpreadOf({}));
  EXPECT_FALSE(LogSpreadOf({1.0, 0.0}));
  EXPECT_FALSE(LogSpreadOf({1.0, -2.0}));
  EXPECT_FALSE(LogSpreadOf({1.0, INFINITY}));
}

// m = 4.0, 4.4, 3.9, 4.2 around a pooled median of 4.1: h = t_{0.975,3} s sqrt(2/4), s the
// sample sd of the log-medians.
TEST(ReproductionInterval, ByHandAndScipy) {
  const std::vector<double> m = {4.0, 4.4, 3.9, 4.2};
  double mean = 0;
  for (double v : m) mean += std::log(v) / 4;
  double sq = 0;
  for (double v : m) sq += (std::log(v) - mean) * (std::log(v) - mean);
  const double s = std::sqrt(sq / 3);
  EXPECT_NEAR(s, 0.05347329296362191, 1e-12);  // numpy.log(m).std(ddof=1)
  // scipy.stats.t.ppf(0.975, 3); K * Var(median of 4 standard normals) = 1.1928
  const double h = 3.1824463052837078 * s * std::sqrt(2 * 1.1928 / 4);

  const std::optional<Interval> r = ReproductionInterval(4.1, m);
  ASSERT_TRUE(r);
  EXPECT_NEAR(r->low, 4.1 * std::exp(-h), 1e-9);
  EXPECT_NEAR(r->high, 4.1 * std::exp(h), 1e-9);
  EXPECT_NEAR(r->low, 3.595076782402155, 1e-9);
  EXPECT_NEAR(r->high, 4.675838936816229, 1e-9);

  // Centered on the quoted median, not on the medians' geometric mean.
  const std::optional<Interval> shifted = ReproductionInterval(8.2, m);
  ASSERT_TRUE(shifted);
  EXPECT_NEAR(shifted->low, 2 * r->low, 1e-9);

  // A higher confidence is wider.
  const std::optional<Interval> wide = ReproductionInterval(4.1, m, 0.99);
  ASSERT_TRUE(wide);
  EXPECT_LT(wide->low, r->low);
  EXPECT_GT(wide->high, r->high);

  EXPECT_FALSE(ReproductionInterval(4.1, {4.1}));  // one process: no spread to speak of
  EXPECT_FALSE(ReproductionInterval(4.1, {}));
  EXPECT_FALSE(ReproductionInterval(0.0, m));
}

// a = 10, 11, 12 (3 processes), b = 20, 22, 25, 21 (4): Welch on the logs.
TEST(CompareProcessMedians, WelchByHandAndScipy) {
  const std::vector<double> a = {10, 11, 12}, b = {20, 22, 25, 21};
  auto spread = [](const std::vector<double>& x, double& mean, double& var) {
    mean = 0;
    for (double v : x) mean += std::log(v) / static_cast<double>(x.size());
    var = 0;
    for (double v : x) var += (std::log(v) - mean) * (std::log(v) - mean);
    var /= static_cast<double>(x.size() - 1);
  };
  double mean_a, var_a, mean_b, var_b;
  spread(a, mean_a, var_a);
  spread(b, mean_b, var_b);
  const double va = var_a / 3, vb = var_b / 4;
  const double se = std::sqrt(va + vb);
  const double df = (va + vb) * (va + vb) / (va * va / 2 + vb * vb / 3);
  const double t = (mean_a - mean_b) / se;
  // scipy.stats.ttest_ind(numpy.log(a), numpy.log(b), equal_var=False)
  EXPECT_NEAR(t, -9.727208992825668, 1e-9);
  EXPECT_NEAR(df, 4.586661740571367, 1e-9);

  const std::optional<RatioEstimate> r = CompareProcessMedians(11.0, a, 21.5, b);
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->ratio, 11.0 / 21.5);  // the quoted medians' ratio, not the geometric means'
  EXPECT_NEAR(r->df, df, 1e-12);
  EXPECT_NEAR(r->p_value, 0.00031127106005901663, 1e-12);
  const double half = StudentTQuantile(0.975, df) * se;
  EXPECT_NEAR(r->low, 11.0 / 21.5 * std::exp(-half), 1e-12);
  EXPECT_NEAR(r->high, 11.0 / 21.5 * std::exp(half), 1e-12);
  EXPECT_NEAR(r->low, 0.42391903251465884, 1e-9);  // with scipy.stats.t.ppf(0.975, df)
  EXPECT_NEAR(r->high, 0.6174837530757774, 1e-9);

  // Swapping the sides inverts the ratio and its interval; p and df stay.
  const std::optional<RatioEstimate> back = CompareProcessMedians(21.5, b, 11.0, a);
  ASSERT_TRUE(back);
  EXPECT_NEAR(back->ratio, 1 / r->ratio, 1e-12);
  EXPECT_NEAR(back->low, 1 / r->high, 1e-12);
  EXPECT_NEAR(back->high, 1 / r->low, 1e-12);
  EXPECT_NEAR(back->p_value, r->p_value, 1e-15);
  EXPECT_NEAR(back->df, r->df, 1e-12);
}

TEST(CompareProcessMedians, OverlappingSidesAreNotSignificant) {
  const std::optional<RatioEstimate> r =
      CompareProcessMedians(10.1, {9.8, 10.3, 10.0, 10.4}, 10.0, {10.2, 9.7, 10.1, 9.9});
  ASSERT_TRUE(r);
  EXPECT_GT(r->p_value, 0.05);
  EXPECT_LT(r->low, 1.0);
  EXPECT_GT(r->high, 1.0);
}

// A side with no spread contributes no degrees of freedom; both without spread: the point.
TEST(CompareProcessMedians, SidesWithoutSpread) {
  const std::vector<double> a = {10, 11, 12}, flat = {20, 20, 20, 20};
  const std::optional<RatioEstimate> r = CompareProcessMedians(11, a, 20, flat);
  ASSERT_TRUE(r);
  EXPECT_NEAR(r->df, 2.0, 1e-12);  // all from a's K - 1

  const std::optional<RatioEstimate> point = CompareProcessMedians(5, {5, 5}, 4, {4, 4, 4});
  ASSERT_TRUE(point);
  EXPECT_DOUBLE_EQ(point->low, 1.25);
  EXPECT_DOUBLE_EQ(point->high, 1.25);
  EXPECT_DOUBLE_EQ(point->p_value, 0.0);
  EXPECT_DOUBLE_EQ(point->df, 3.0);
  const std::optional<RatioEstimate> equal = CompareProcessMedians(4, {4, 4}, 4, {4, 4});
  ASSERT_TRUE(equal);
  EXPECT_DOUBLE_EQ(equal->p_value, 1.0);
}

TEST(CompareProcessMedians, NeedsTwoProcessesPerSide) {
  EXPECT_FALSE(CompareProcessMedians(10, {10}, 20, {20, 21}));
  EXPECT_FALSE(CompareProcessMedians(10, {10, 11}, 20, {20}));
  EXPECT_FALSE(CompareProcessMedians(10, {}, 20, {20, 21}));
  EXPECT_FALSE(CompareProcessMedians(0, {10, 11}, 20, {20, 21}));  // no quoted median
  EXPECT_TRUE(CompareProcessMedians(10, {10, 11}, 20, {20, 21}));
}

// The reproduction interval of a ratio, around the quoted medians' ratio (numpy and scipy):
// paired, over the first min(K_a, K_b) pairs' log-ratios d, h = t.ppf(0.975, n - 1) * sd(d) *
// sqrt(2 c_n / n); unpaired, h = t.ppf(0.975, df) * sqrt(2 (c_Ka var_a / K_a + c_Kb var_b / K_b))
// with df Welch-Satterthwaite's of those variances (5.96 here).
TEST(RatioReproductionInterval, PairedAndUnpairedByHandAndScipy) {
  const std::vector<double> a = {10, 11, 12, 13}, b = {20, 23, 23, 27};
  const std::optional<Interval> paired = RatioReproductionInterval(11.5, a, 23, b, true);
  ASSERT_TRUE(paired);
  EXPECT_NEAR(paired->low, 0.45309699231771894, 1e-9);
  EXPECT_NEAR(paired->high, 0.5517582421396785, 1e-9);
  // The ReproductionInterval of the pairs' ratios, as for one run's median.
  const std::optional<Interval> of_ratios =
      ReproductionInterval(0.5, {10.0 / 20, 11.0 / 23, 12.0 / 23, 13.0 / 27});
  EXPECT_DOUBLE_EQ(paired->low, of_ratios->low);
  EXPECT_DOUBLE_EQ(paired->high, of_ratios->high);
  // Unpaired on the same processes it is wider: the pairs share most of their spread.
  const std::optional<Interval> unpaired = RatioReproductionInterval(11.5, a, 23, b, false);
  ASSERT_TRUE(unpaired);
  EXPECT_NEAR(unpaired->low, 0.36467960091044144, 1e-9);
  EXPECT_NEAR(unpaired->high, 0.6855332718799244, 1e-9);
  // Wider than the confidence interval of the true ratio (a test's, CompareProcessMedians):
  // a repeat's ratio varies as much as this one's.
  const std::optional<RatioEstimate> test = CompareProcessMedians(11.5, a, 23, b);
  EXPECT_LT(unpaired->low, test->low);
  EXPECT_GT(unpaired->high, test->high);

  // A longer side's later processes have no partner and are not used.
  const std::optional<Interval> longer =
      RatioReproductionInterval(11.5, a, 23, {20, 23, 23, 27, 90}, true);
  ASSERT_TRUE(longer);
  EXPECT_DOUBLE_EQ(longer->low, paired->low);
  EXPECT_DOUBLE_EQ(longer->high, paired->high);

  // Pairs all in one ratio, or two sides without spread: the point.
  const std::optional<Interval> point = RatioReproductionInterval(5, {5, 6}, 10, {10, 12}, true);
  ASSERT_TRUE(point);
  EXPECT_DOUBLE_EQ(point->low, 0.5);
  EXPECT_DOUBLE_EQ(point->high, 0.5);
  const std::optional<Interval> flat = RatioReproductionInterval(5, {5, 5}, 10, {10, 10}, false);
  ASSERT_TRUE(flat);
  EXPECT_DOUBLE_EQ(flat->low, 0.5);
  // One pair or one process on a side, or no quoted median: nothing.
  EXPECT_FALSE(RatioReproductionInterval(5, {5}, 10, {10, 12}, true));
  EXPECT_FALSE(RatioReproductionInterval(5, {5}, 10, {10, 12}, false));
  EXPECT_FALSE(RatioReproductionInterval(0, {5, 6}, 10, {10, 12}, true));
  EXPECT_FALSE(RatioReproductionInterval(5, {5, 6}, 0, {10, 12}, false));
}

// Pass by pass: each run's process i ends before either run's process i + 1.
TEST(ProcessesPairedInTime, OnlyRunsMeasuredPassByPass) {
  // Two runs of one sweep, passes at 0, 100, 200 s: a early in each pass, b late.
  EXPECT_TRUE(ProcessesPairedInTime({10, 110, 210}, {90, 190, 290}));
  // The extra processes of a longer run (a fourth pass for one run only) are not looked at.
  EXPECT_TRUE(ProcessesPairedInTime({10, 110, 210, 215}, {90, 190, 290}));
  // One run's processes all before the other's (one run after the other): not paired.
  EXPECT_FALSE(ProcessesPairedInTime({1, 2, 3}, {4, 5, 6}));
  // Separate sweeps hours apart: not paired.
  EXPECT_FALSE(ProcessesPairedInTime({10, 110, 210}, {7210, 7310, 7410}));
  // Passes a second apart order by whole seconds; processes ending in one second do not.
  EXPECT_TRUE(ProcessesPairedInTime({10, 11, 12}, {10, 11, 12}));
  EXPECT_FALSE(ProcessesPairedInTime({10, 10, 11}, {10, 10, 11}));
  // Fewer than 3 pairs, or no times: not paired.
  EXPECT_FALSE(ProcessesPairedInTime({10, 110}, {90, 190}));
  EXPECT_FALSE(ProcessesPairedInTime({}, {90, 190, 290}));
}

// The fewest processes for a +-5% interval at a spread, as scipy.stats.t.ppf gives them:
// the smallest K with t_{0.975, K-1} * sd * sqrt(2 * c_K / K) <= asinh(0.05).
TEST(ProcessesForTarget, SmallestKWhoseIntervalMeetsTheTarget) {
  EXPECT_EQ(ProcessesForTarget(0.01, 0.05), 3);
  EXPECT_EQ(ProcessesForTarget(0.03, 0.05), 7);
  EXPECT_EQ(ProcessesForTarget(0.075, 0.05), 30);
  EXPECT_EQ(ProcessesForTarget(0.15, 0.05), 110);
  EXPECT_EQ(ProcessesForTarget(1.0, 0.05), 0);  // more than 1000
}

// The median of K standard normal draws, drawn 200,000 times with a fixed seed: its variance
// times K is MedianVarianceFactor(K) within 1.5 % (the draws' own error is about 0.3 %).
TEST(MedianVarianceFactor, MatchesDrawnMedians) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  for (int64_t k : {2, 3, 4, 5, 8, 11, 20, 21, 40}) {
    std::vector<double> draws(static_cast<size_t>(k));
    double sum = 0, sq = 0;
    constexpr int kTrials = 200000;
    for (int i = 0; i < kTrials; ++i) {
      for (double& d : draws) d = normal(rng);
      std::sort(draws.begin(), draws.end());
      const size_t mid = draws.size() / 2;
      const double median = k % 2 ? draws[mid] : (draws[mid - 1] + draws[mid]) / 2;
      sum += median;
      sq += median * median;
    }
    const double var = sq / kTrials - (sum / kTrials) * (sum / kTrials);
    EXPECT_NEAR(var * static_cast<double>(k) / MedianVarianceFactor(k), 1.0, 0.015) << "K=" << k;
  }
}

TEST(DescribeProcessSpread, TwoGroupsAreNamedAsBimodal) {
  // Five processes near 1.40 ms and three near 2.83 ms (ONNX Runtime at 2 threads on a 2-core VM).
  const std::string text =
      DescribeProcessSpread({1.38, 2.80, 1.41, 1.40, 2.83, 1.42, 2.86, 1.39}, 0.05);
  EXPECT_NE(text.find("5 near 1.4 ms, 3 near 2.83 ms: bimodal on this machine"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.rfind("processes' medians spread 36% (sd of their logs)", 0), 0u) << text;
}

TEST(DescribeProcessSpread, OneGroupSaysHowManyProcessesItWouldNeed) {
  // A spread of about 7% without a gap: +-5% needs about 30 processes.
  std::vector<double> medians;
  for (double z : {-1.5, -1.0, -0.5, 0.0, 0.0, 0.5, 1.0, 1.5}) medians.push_back(std::exp(0.08 * z));
  const std::string text = DescribeProcessSpread(medians, 0.05);
  EXPECT_EQ(text.find("bimodal"), std::string::npos) << text;
  const int64_t needed = ProcessesForTarget(LogSpreadOf(medians)->sd, 0.05);
  EXPECT_NE(text.find("+-5% needs about " + std::to_string(needed) + " processes"),
            std::string::npos)
      << text;
  // A lone outlier is no group of its own.
  const std::string outlier = DescribeProcessSpread({1.0, 1.01, 0.99, 1.0, 2.0}, 0.05);
  EXPECT_EQ(outlier.find("bimodal"), std::string::npos) << outlier;
  EXPECT_EQ(DescribeProcessSpread({1.0, 2.0}, 0.05), "");
}

}  // namespace
}  // namespace ngraphbench
