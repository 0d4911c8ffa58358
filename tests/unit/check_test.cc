// The output check: errors, the tolerance rule and the reference file.
#include "ngraphbench/measure/check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "ngraphbench/core/error.h"
#include "ngraphbench/graph/intermediate.h"
#include "ngraphbench/models/builder.h"

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

// Whether a check can fail: the reference's outputs on a second draw of inputs, judged as the
// row's check judges, against those on the first.
TEST(Check, OutputsThatDoNotDependOnTheInputCannotFailTheCheck) {
  const CheckSettings s;
  // A zero-initialized head: all 0 on both draws.
  const HostTensor zeros{{1, 3}, {0, 0, 0}};
  InputDependence d = JudgeInputDependence({zeros}, {zeros}, s, "fp32");
  EXPECT_FALSE(d.discriminates);
  EXPECT_TRUE(d.all_zero);
  EXPECT_EQ(d.max_rel_change, 0.0);
  // A head of biases only: constant, but not 0.
  const HostTensor bias{{1, 3}, {0.5f, -1, 2}};
  d = JudgeInputDependence({bias}, {bias}, s, "fp32");
  EXPECT_FALSE(d.discriminates);
  EXPECT_FALSE(d.all_zero);
  // Nearly constant: a change within the tolerance of fp32 (1e-4 relative to max(1, |ref|))
  // passes the fp32 check; beyond it, the check can fail.
  d = JudgeInputDependence({bias}, {HostTensor{{1, 3}, {0.5f, -1, 2.0001f}}}, s, "fp32");
  EXPECT_FALSE(d.discriminates);
  EXPECT_NEAR(d.max_rel_change, 5e-5, 1e-6);
  d = JudgeInputDependence({bias}, {HostTensor{{1, 3}, {0.5f, -1, 2.01f}}}, s, "fp32");
  EXPECT_TRUE(d.discriminates);
  // The same change at fp16, whose tolerance is 1e-2: an output that ignored its input passes.
  EXPECT_FALSE(JudgeInputDependence({bias}, {HostTensor{{1, 3}, {0.5f, -1, 2.01f}}}, s, "fp16")
                   .discriminates);
  // int8: by the cosine and SNR bounds. All 0 passes them (cosine 1, SNR infinite); outputs of
  // other inputs do not.
  EXPECT_FALSE(JudgeInputDependence({zeros}, {zeros}, s, "int8").discriminates);
  EXPECT_TRUE(
      JudgeInputDependence({bias}, {HostTensor{{1, 3}, {-0.5f, 1, 0}}}, s, "int8").discriminates);
}

// The tensors the check may compare instead, nearest the outputs first, and the graph cut
// there: only the nodes the tensor needs.
TEST(Check, IntermediateCandidatesAreNearestTheOutputsAndTheCutKeepsWhatTheyNeed) {
  GraphBuilder g("head");
  const std::string x = g.Input("input", {1, 3, 4, 4});
  const std::string conv = g.Conv(x, 4, 3, 1, 1);
  const std::string relu = g.Unary("Relu", conv);
  const std::string pool = g.AddNode("GlobalAveragePool", {relu}, {1, 4, 1, 1});
  const std::string flat = g.Reshape(pool, {1, 4});
  // A second output through int64 and back: the int64 tensor is left out (walked through).
  const std::string as_int = g.AddNode("Cast", {flat}, {1, 4}, {{"to", int64_t{7}}});
  const std::string logits = g.Linear(flat, 2, /*bias=*/true, /*gain=*/0.0f);
  g.Output(logits);
  g.Output(g.AddNode("Cast", {as_int}, {1, 4}, {{"to", int64_t{1}}}));
  const Graph graph = g.Finish();
  EXPECT_EQ(IntermediateCandidates(graph, 8),
            (std::vector<std::string>{flat, pool, relu, conv}));
  EXPECT_EQ(IntermediateCandidates(graph, 2), (std::vector<std::string>{flat, pool}));

  const Graph cut = WithOutputs(graph, {pool});
  ASSERT_EQ(cut.outputs.size(), 1u);
  EXPECT_EQ(cut.outputs[0].name, pool);
  EXPECT_EQ(cut.outputs[0].shape, (Shape{1, 4, 1, 1}));
  ASSERT_EQ(cut.nodes.size(), 3u);  // conv, relu, pool
  EXPECT_EQ(cut.nodes.back().outputs[0], pool);
  EXPECT_EQ(cut.inputs.size(), 1u);
  for (const Initializer& init : cut.initializers) {
    EXPECT_EQ(init.name.find("fc"), std::string::npos) << init.name;  // the head's are gone
  }
  EXPECT_EQ(cut.ParameterCount(), 4 * 3 * 3 * 3 + 4);
  EXPECT_THROW(WithOutputs(graph, {x}), std::invalid_argument);
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
