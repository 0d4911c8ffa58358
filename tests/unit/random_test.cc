// The portable generator: fixed values for fixed seeds, computed independently from the
// algorithm documented in core/random.h (a short Python transcription of it), so that inputs
// and weights are the same on every standard library.
#include "ngraphbench/core/random.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ngraphbench/core/tensor.h"

namespace ngraphbench {
namespace {

TEST(Random, Fnv1a64KnownValues) {
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(Fnv1a64Hex(""), "cbf29ce484222325");
  EXPECT_EQ(InputSeed("conv2d_w16_b1", "input"), 0x272e1a4f3e813af3ULL);
}

TEST(Random, SplitMix64FromSeedZero) {
  PortableRng rng(0);
  EXPECT_EQ(rng.Next(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(rng.Next(), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(rng.Next(), 0x06c45d188009454fULL);
}

TEST(Random, RandomNormalFixedValuesForAFixedSeed) {
  const HostTensor t = RandomNormal({2, 2}, InputSeed("conv2d_w16_b1", "input"));
  ASSERT_EQ(t.data.size(), 4u);
  EXPECT_FLOAT_EQ(t.data[0], 0.382604404f);
  EXPECT_FLOAT_EQ(t.data[1], -0.543181694f);
  EXPECT_FLOAT_EQ(t.data[2], 0.438776736f);
  EXPECT_FLOAT_EQ(t.data[3], 0.195685398f);
}

TEST(Random, NormalHasUnitMomentsAndUniformStaysInRange) {
  PortableRng rng(42);
  double sum = 0, sum_sq = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double v = rng.Normal();
    ASSERT_TRUE(std::isfinite(v));
    sum += v;
    sum_sq += v * v;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_NEAR(sum_sq / n, 1.0, 0.02);
  for (int i = 0; i < 1000; ++i) {
    const double u = rng.Uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
}

TEST(Random, DifferentSeedsGiveDifferentInputs) {
  EXPECT_NE(RandomNormal({8}, InputSeed("a_b1", "input")).data,
            RandomNormal({8}, InputSeed("a_b2", "input")).data);
  EXPECT_EQ(RandomNormal({8}, 7).data, RandomNormal({8}, 7).data);
}

}  // namespace
}  // namespace ngraphbench
