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

}  // namespace
}  // namespace ngraphbench
