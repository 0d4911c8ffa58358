// The output check: errors, the tolerance rule and the reference file.
#include "ngraphbench/measure/check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "ngraphbench/core/error.h"

namespace ngraphbench {
namespace {

TEST(Check, ErrorsAreRelativeToMaxOneAndTheReferenceScale) {
  // |diff| max 0.5 on an output whose largest reference magnitude is 10: rel = 0.05.
  const HostTensor ref{{3}, {10, -2, 0}};
  const HostTensor out{{3}, {10.5f, -2, 0.25f}};
  const CheckResult r = CompareOutputs({out}, {ref});
  EXPECT_TRUE(r.mismatch.empty());
  EXPECT_DOUBLE_EQ(r.max_abs_err, 0.5);
  EXPECT_DOUBLE_EQ(r.max_rel_err, 0.05);
  // Small outputs are judged against 1, not against their own tiny scale.
  const CheckResult small =
      CompareOutputs({HostTensor{{2}, {0.002f, 0}}}, {HostTensor{{2}, {0.001f, 0}}});
  EXPECT_NEAR(small.max_rel_err, 0.001, 1e-9);
}

TEST(Check, RelativeErrorIsTheWorstOutput) {
  const CheckResult r = CompareOutputs({HostTensor{{1}, {1.0f}}, HostTensor{{1}, {100.5f}}},
                                       {HostTensor{{1}, {1.25f}}, HostTensor{{1}, {100.0f}}});
  EXPECT_DOUBLE_EQ(r.max_abs_err, 0.5);  // from the second output
  EXPECT_DOUBLE_EQ(r.max_rel_err, 0.2);  // from the first: 0.25 / max(1, 1.25)
}

TEST(Check, ToleranceRule) {
  CheckSettings s;
  s.tolerance_fp32 = 1e-4;
  s.tolerance_bf16 = 5e-2;
  s.tolerance_fp16 = 1e-2;
  EXPECT_EQ(ToleranceFor(s, "fp32"), 1e-4);
  EXPECT_EQ(ToleranceFor(s, "bf16"), 5e-2);
  EXPECT_EQ(ToleranceFor(s, "fp16"), 1e-2);
  EXPECT_THROW(ToleranceFor(s, "int8"), std::invalid_argument);
  CheckResult at;
  at.max_rel_err = 1e-4;
  EXPECT_TRUE(WithinTolerance(at, 1e-4));  // at the tolerance is within it
  CheckResult over;
  over.max_rel_err = 1.01e-4;
  EXPECT_FALSE(WithinTolerance(over, 1e-4));
  CheckResult nan;
  nan.max_rel_err = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(WithinTolerance(nan, 1e-4));
  CheckResult mismatch;
  mismatch.mismatch = "shape";
  EXPECT_FALSE(WithinTolerance(mismatch, 1e-4));
}

TEST(Check, NanOrInfinityWhereTheReferenceIsFiniteIsInfinitelyWrong) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(std::isinf(
      CompareOutputs({HostTensor{{2}, {1, nan}}}, {HostTensor{{2}, {1, 2}}}).max_rel_err));
  EXPECT_TRUE(
      std::isinf(CompareOutputs({HostTensor{{1}, {inf}}}, {HostTensor{{1}, {2}}}).max_abs_err));
  EXPECT_EQ(CompareOutputs({HostTensor{{1}, {inf}}}, {HostTensor{{1}, {inf}}}).max_abs_err, 0);
}

TEST(Check, CountOrShapeMismatchIsNamed) {
  EXPECT_NE(CompareOutputs({}, {HostTensor{{1}, {1}}}).mismatch, "");
  const CheckResult r = CompareOutputs({HostTensor{{2, 1}, {1, 2}}}, {HostTensor{{1, 2}, {1, 2}}});
  EXPECT_NE(r.mismatch.find("2x1"), std::string::npos) << r.mismatch;
}

TEST(Check, TensorFileRoundTripAndTruncation) {
  const std::vector<HostTensor> tensors = {HostTensor{{2, 3}, {1, 2, 3, 4, 5, 6}},
                                           HostTensor{{}, {7}}};
  const std::string bytes = FormatTensorFile(tensors);
  const auto back = ParseTensorFile(bytes, "t.bin");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].shape, (Shape{2, 3}));
  EXPECT_EQ(back[0].data, tensors[0].data);
  EXPECT_EQ(back[1].shape, Shape{});
  EXPECT_EQ(back[1].data, tensors[1].data);
  for (size_t cut : {size_t{0}, size_t{5}, size_t{20}, bytes.size() - 1}) {
    EXPECT_THROW(ParseTensorFile(bytes.substr(0, cut), "t.bin"), InputError) << cut;
  }
  EXPECT_THROW(ParseTensorFile(bytes + "x", "t.bin"), InputError);
  // A dimension the file cannot hold is refused before anything is allocated.
  std::string huge = bytes;
  const int64_t dim = int64_t{1} << 62;
  std::memcpy(&huge[8 + 8 + 8], &dim, sizeof(dim));
  EXPECT_THROW(ParseTensorFile(huge, "t.bin"), InputError);
}

}  // namespace
}  // namespace ngraphbench
