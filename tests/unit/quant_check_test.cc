// The int8 output check (measure/quant_check.h): cosine, SNR and top-k agreement against the
// fp32 reference, and the bounds that make a row `ok` or `wrong`.
#include "ngraphbench/measure/quant_check.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ngraphbench {
namespace {

TEST(QuantCheck, IdenticalOutputsHaveCosineOneAndInfiniteSnr) {
  const HostTensor t{{2, 3}, {1, -2, 3, 4, 0.5f, -6}};
  const QuantAccuracy a = CompareQuantized({t}, {t});
  EXPECT_DOUBLE_EQ(a.cosine, 1);
  EXPECT_TRUE(std::isinf(a.snr_db) && a.snr_db > 0);
  EXPECT_TRUE(WithinInt8Bounds(a));
  EXPECT_FALSE(a.top1_agreement.has_value());  // 3 classes: no top-5
}

// Noise at 1% of the signal's power is 20 dB; the SNR is over every output together.
TEST(QuantCheck, SnrAndCosineOfKnownNoise) {
  const HostTensor ref{{4}, {10, 0, 0, 0}};
  const HostTensor out{{4}, {10, 1, 0, 0}};  // noise power 1, signal 100
  const QuantAccuracy a = CompareQuantized({out}, {ref});
  EXPECT_NEAR(a.snr_db, 20.0, 1e-9);
  EXPECT_NEAR(a.cosine, 10 / std::sqrt(101.0), 1e-12);
}

TEST(QuantCheck, BoundsAreInclusiveAndBothMustHold) {
  QuantAccuracy a;
  a.cosine = kInt8MinCosine;
  a.snr_db = kInt8MinSnrDb;
  EXPECT_TRUE(WithinInt8Bounds(a));
  a.snr_db = kInt8MinSnrDb - 0.1;
  EXPECT_FALSE(WithinInt8Bounds(a));
  a.snr_db = 40;
  a.cosine = 0.98;
  EXPECT_FALSE(WithinInt8Bounds(a));
  a.cosine = std::nan("");
  EXPECT_FALSE(WithinInt8Bounds(a));
  a.cosine = 1;
  a.mismatch = "shape";
  EXPECT_FALSE(WithinInt8Bounds(a));
}

TEST(QuantCheck, UnrelatedOrNanOutputsAreBeyondTheBounds) {
  const HostTensor ref{{4}, {1, -1, 1, -1}};
  EXPECT_FALSE(WithinInt8Bounds(CompareQuantized({HostTensor{{4}, {1, 1, -1, -1}}}, {ref})));
  EXPECT_FALSE(WithinInt8Bounds(CompareQuantized({HostTensor{{4}, {0, 0, 0, 0}}}, {ref})));
  const QuantAccuracy nan =
      CompareQuantized({HostTensor{{4}, {1, -1, std::nanf(""), -1}}}, {ref});
  EXPECT_TRUE(std::isnan(nan.cosine));
  EXPECT_FALSE(WithinInt8Bounds(nan));
}

TEST(QuantCheck, ShapeOrCountMismatchIsNamed) {
  const HostTensor a{{2}, {1, 2}}, b{{1, 2}, {1, 2}};
  EXPECT_EQ(CompareQuantized({a}, {b}).mismatch, "output 0 has shape 2, the reference 1x2");
  EXPECT_EQ(CompareQuantized({a, a}, {a}).mismatch, "2 outputs, the reference has 1");
}

// A classifier's N x C output: top-1 agreement per sample, and whether the reference's top-1
// class is among the output's top 5.
TEST(QuantCheck, TopKAgreementOfAClassifier) {
  // Sample 0: same argmax (class 5). Sample 1: the reference's class 0 is the output's 2nd.
  const HostTensor ref{{2, 6}, {0, 1, 2, 3, 4, 9, 9, 1, 2, 3, 4, 5}};
  const HostTensor out{{2, 6}, {0, 1, 2, 3, 4, 9, 8, 9, 2, 3, 4, 5}};
  const QuantAccuracy a = CompareQuantized({out}, {ref});
  ASSERT_TRUE(a.top1_agreement && a.top5_agreement);
  EXPECT_DOUBLE_EQ(*a.top1_agreement, 0.5);
  EXPECT_DOUBLE_EQ(*a.top5_agreement, 1.0);
}

}  // namespace
}  // namespace ngraphbench
