#include "ngraphbench/measure/stats.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ngraphbench {
namespace {

TEST(Percentile, InterpolatesBetweenClosestRanks) {
  const std::vector<double> x = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(Percentile(x, 0), 1.0);
  EXPECT_DOUBLE_EQ(Percentile(x, 50), 2.5);   // p = 1.5
  EXPECT_DOUBLE_EQ(Percentile(x, 90), 3.7);   // p = 2.7
  EXPECT_DOUBLE_EQ(Percentile(x, 100), 4.0);
}

TEST(Percentile, MatchesNumpyLinearOnUnevenSample) {
  // numpy.percentile([10, 20, 30, 40, 50, 1000], [95, 99]) == [762.5, 952.5]
  const std::vector<double> x = {10, 20, 30, 40, 50, 1000};
  EXPECT_NEAR(Percentile(x, 95), 762.5, 1e-9);
  EXPECT_NEAR(Percentile(x, 99), 952.5, 1e-9);
}

TEST(Percentile, SingleSampleIsThatSample) {
  EXPECT_DOUBLE_EQ(Percentile({7.0}, 99), 7.0);
}

TEST(Percentile, RejectsEmptyAndOutOfRange) {
  EXPECT_THROW(Percentile({}, 50), std::invalid_argument);
  EXPECT_THROW(Percentile({1.0}, 101), std::invalid_argument);
}

TEST(Summarize, HandComputedVector) {
  // 4, 1, 3, 2 ms: mean 2.5, sample std sqrt(5/3), CV 0.5164.
  const LatencyStats s = Summarize({4000000, 1000000, 3000000, 2000000}, 8);
  EXPECT_DOUBLE_EQ(s.mean_ms, 2.5);
  EXPECT_NEAR(s.std_ms, std::sqrt(5.0 / 3.0), 1e-12);
  EXPECT_NEAR(s.cv, std::sqrt(5.0 / 3.0) / 2.5, 1e-12);
  EXPECT_DOUBLE_EQ(s.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(s.max_ms, 4.0);
  EXPECT_DOUBLE_EQ(s.p50_ms, 2.5);
  EXPECT_DOUBLE_EQ(s.p90_ms, 3.7);
  EXPECT_NEAR(s.p95_ms, 3.85, 1e-12);
  EXPECT_NEAR(s.p99_ms, 3.97, 1e-12);
  EXPECT_NEAR(s.throughput_median_sps, 8 / 2.5e-3, 1e-6);  // batch / median latency
  EXPECT_NEAR(s.throughput_mean_sps, 8 / 2.5e-3, 1e-6);
}

TEST(Summarize, SkewedSampleSeparatesMedianAndMeanThroughput) {
  const LatencyStats s = Summarize({1000000, 1000000, 1000000, 9000000}, 1);
  EXPECT_DOUBLE_EQ(s.p50_ms, 1.0);
  EXPECT_DOUBLE_EQ(s.mean_ms, 3.0);
  EXPECT_NEAR(s.throughput_median_sps, 1000.0, 1e-9);
  EXPECT_NEAR(s.throughput_mean_sps, 1000.0 / 3.0, 1e-9);
  EXPECT_NEAR(s.std_ms, 4.0, 1e-12);  // deviations -2,-2,-2,6: sqrt(48/3)
}

TEST(Summarize, OneSampleHasZeroSpread) {
  const LatencyStats s = Summarize({5000000}, 2);
  EXPECT_DOUBLE_EQ(s.std_ms, 0.0);
  EXPECT_DOUBLE_EQ(s.cv, 0.0);
  EXPECT_THROW(Summarize({}, 1), std::invalid_argument);
}

// Order-statistic intervals of the median, checked against binomial tail sums by hand:
// n = 10: P(B <= 1) = 11/1024 = 0.0107 <= 0.025 < P(B <= 2) = 56/1024 = 0.0547 -> ranks 2, 9.
// n = 6: P(B <= 0) = 1/64 = 0.0156 -> ranks 1, 6; n = 5: P(B <= 0) = 1/32 = 0.03125 -> none.
TEST(MedianCi, RanksFromBinomialTails) {
  EXPECT_EQ(MedianCiRanks(10), std::make_pair(int64_t{2}, int64_t{9}));
  EXPECT_EQ(MedianCiRanks(6), std::make_pair(int64_t{1}, int64_t{6}));
  EXPECT_FALSE(MedianCiRanks(5).has_value());
  EXPECT_FALSE(MedianCiRanks(1).has_value());
  // Published tables (and scipy.stats.binom): n = 20 -> 6, 15; n = 100 -> 40, 61.
  EXPECT_EQ(MedianCiRanks(20), std::make_pair(int64_t{6}, int64_t{15}));
  EXPECT_EQ(MedianCiRanks(100), std::make_pair(int64_t{40}, int64_t{61}));
  // Large n, where 2^-n underflows: scipy gives 469, 532 and 49690, 50311.
  EXPECT_EQ(MedianCiRanks(1000), std::make_pair(int64_t{469}, int64_t{532}));
  EXPECT_EQ(MedianCiRanks(100000), std::make_pair(int64_t{49690}, int64_t{50311}));
  // A 50% interval is narrower.
  EXPECT_GT(MedianCiRanks(100, 0.5)->first, 40);
}

TEST(MedianCi, SummarizeFillsTheIntervalFromTheSortedSample) {
  // 10 samples 1..10 ms, shuffled: the interval is the 2nd and 9th smallest.
  const LatencyStats s = Summarize({7000000, 2000000, 9000000, 1000000, 10000000, 3000000,
                                    5000000, 4000000, 8000000, 6000000},
                                   1);
  EXPECT_DOUBLE_EQ(*s.p50_ci_low_ms, 2.0);
  EXPECT_DOUBLE_EQ(*s.p50_ci_high_ms, 9.0);
  EXPECT_FALSE(Summarize({1000, 2000, 3000}, 1).p50_ci_low_ms.has_value());
}

}  // namespace
}  // namespace ngraphbench
