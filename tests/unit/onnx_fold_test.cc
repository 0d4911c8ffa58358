// Import-time folding of shape arithmetic (graph/onnx_fold.h), one operator at a time (part of
// onnx_import_test).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include "ngraphbench/core/error.h"
#include "ngraphbench/graph/onnx_fold.h"
#include "ngraphbench/graph/onnx_io.h"
#include "unit/onnx_import_fixture.h"

namespace ngraphbench {
namespace {

using namespace onnx_testing;  // the models and helpers these files share

// ---- folding, one operator at a time ------------------------------------------------------------

TEST(OnnxFold, ShapeWithStartAndEndAndSize) {
  ModelBuilder b;
  b.Input("x", {2, 3, 4, 5});
  auto& shape = b.Node("Shape", {"x"}, {"s"});
  AttrI(shape, "start", 1);
  AttrI(shape, "end", -1);
  Folded f = FoldedValue(b, "s", {2});
  EXPECT_EQ(f.shape, (Shape{2}));
  EXPECT_EQ(f.values, (std::vector<float>{3, 4}));

  ModelBuilder c;
  c.Input("x", {2, 3});
  c.Node("Size", {"x"}, {"n"});
  f = FoldedValue(c, "n", {});
  EXPECT_EQ(f.values, (std::vector<float>{6}));
}

TEST(OnnxFold, GatherNegativeIndexAndAxis) {
  ModelBuilder b;
  b.Int64s("data", {1, 2, 3, 4, 5, 6}, {2, 3});
  b.Int64s("idx", {-1, 0});
  AttrI(b.Node("Gather", {"data", "idx"}, {"g"}), "axis", 1);
  Folded f = FoldedValue(b, "g", {2, 2});
  EXPECT_EQ(f.values, (std::vector<float>{3, 1, 6, 4}));

  ModelBuilder c;  // a scalar index gives a scalar
  c.Int64s("data", {10, 20, 30});
  c.Int64s("idx", {-1}, {});
  c.Node("Gather", {"data", "idx"}, {"g"});
  f = FoldedValue(c, "g", {});
  EXPECT_EQ(f.shape, Shape{});
  EXPECT_EQ(f.values, (std::vector<float>{30}));
}

TEST(OnnxFold, ConcatUnsqueezeSqueeze) {
  ModelBuilder b;
  b.Int64s("a", {1, 2, 3, 4}, {2, 2});
  b.Int64s("b", {5, 6}, {2, 1});
  AttrI(b.Node("Concat", {"a", "b"}, {"c"}), "axis", -1);  // [2, 3]
  b.Int64s("axes_u", {0, 3});
  b.Node("Unsqueeze", {"c", "axes_u"}, {"u"});  // [1, 2, 3, 1]
  b.Int64s("axes_s", {0});
  b.Node("Squeeze", {"u", "axes_s"}, {"s"});  // [2, 3, 1]
  Folded f = FoldedValue(b, "s", {2, 3, 1});
  EXPECT_EQ(f.shape, (Shape{2, 3, 1}));
  EXPECT_EQ(f.values, (std::vector<float>{1, 2, 5, 3, 4, 6}));
}

TEST(OnnxFold, SliceWithNegativeStepAndClampedEnds) {
  ModelBuilder b;
  b.Int64s("data", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  b.Int64s("starts", {-3});
  b.Int64s("ends", {std::numeric_limits<int64_t>::min()});
  b.Int64s("axes", {0});
  b.Int64s("steps", {-2});
  b.Node("Slice", {"data", "starts", "ends", "axes", "steps"}, {"s"});
  Folded f = FoldedValue(b, "s", {4});
  EXPECT_EQ(f.values, (std::vector<float>{7, 5, 3, 1}));

  ModelBuilder c;  // 2-D, axes omitted, end past the dim
  c.Int64s("data", {1, 2, 3, 4, 5, 6}, {2, 3});
  c.Int64s("starts", {1, 1});
  c.Int64s("ends", {std::numeric_limits<int64_t>::max(), 3});
  c.Node("Slice", {"data", "starts", "ends"}, {"s"});
  f = FoldedValue(c, "s", {1, 2});
  EXPECT_EQ(f.values, (std::vector<float>{5, 6}));
}

TEST(OnnxFold, CastTruncatesAndArithmeticBroadcasts) {
  ModelBuilder b;
  b.ConstFloats("f", {2.7f, -2.7f});
  AttrI(b.Node("Cast", {"f"}, {"i"}), "to", TensorProto::INT64);  // [2, -2]
  b.Int64s("seven", {7, -7});
  b.Int64s("two", {2}, {});
  b.Node("Div", {"seven", "two"}, {"q"});  // truncation: [3, -3]
  b.Node("Mul", {"q", "i"}, {"m"});        // [6, 6]
  b.Node("Sub", {"m", "two"}, {"d"});      // [4, 4]
  b.Node("Add", {"d", "i"}, {"a"});        // [6, 2]
  Folded f = FoldedValue(b, "a", {2});
  EXPECT_EQ(f.values, (std::vector<float>{6, 2}));

  ModelBuilder c;  // float: a ViT's attention scale, 1 / sqrt(head_dim) from the shape
  c.Input("x", {1, 3, 64});
  c.Node("Shape", {"x"}, {"s"});
  c.Int64s("last", {-1}, {});
  c.Node("Gather", {"s", "last"}, {"d"});
  AttrI(c.Node("Cast", {"d"}, {"df"}), "to", TensorProto::FLOAT);
  c.Node("Sqrt", {"df"}, {"sq"});
  c.ConstFloats("one", {1.0f}, {});
  c.Node("Div", {"one", "sq"}, {"scale"});
  f = FoldedValue(c, "scale", {});
  EXPECT_EQ(f.values, (std::vector<float>{0.125f}));
}

TEST(OnnxFold, EqualWhereNotAndOr) {
  ModelBuilder b;
  b.Int64s("v", {1, -1, 3});
  b.Int64s("minus1", {-1}, {});
  b.Node("Equal", {"v", "minus1"}, {"eq"});  // [F, T, F]
  b.Int64s("yes", {10, 20, 30});
  b.Node("Where", {"eq", "yes", "v"}, {"w"});  // [1, 20, 3]
  b.Node("Not", {"eq"}, {"ne"});               // [T, F, T]
  b.Bools("mask", {1, 1, 0});
  b.Node("And", {"ne", "mask"}, {"and"});  // [T, F, F]
  b.Node("Or", {"and", "eq"}, {"or"});     // [T, T, F]
  AttrI(b.Node("Cast", {"or"}, {"or_i"}), "to", TensorProto::INT64);
  b.Node("Add", {"w", "or_i"}, {"r"});  // [2, 21, 3]
  Folded f = FoldedValue(b, "r", {3});
  EXPECT_EQ(f.values, (std::vector<float>{2, 21, 3}));
}

TEST(OnnxFold, OrderComparisonsOfIntegersAndFloats) {
  const std::map<std::string, std::vector<float>> against_two = {{"Less", {1, 0, 0}},
                                                                 {"LessOrEqual", {1, 1, 0}},
                                                                 {"Greater", {0, 0, 1}},
                                                                 {"GreaterOrEqual", {0, 1, 1}}};
  for (const auto& [op, expected] : against_two) {
    for (const bool floats : {false, true}) {
      ModelBuilder b;
      if (floats) {  // Constant nodes: folding computes with them, not with weights
        b.ConstFloats("v", {1, 2, 3});
        b.ConstFloats("two", {2}, {});
      } else {
        b.Int64s("v", {1, 2, 3});
        b.Int64s("two", {2}, {});
      }
      b.Node(op, {"v", "two"}, {"c"});
      EXPECT_EQ(FoldedValue(b, "c", {3}).values, expected)
          << op << (floats ? " of floats" : " of integers");
    }
  }
}

TEST(OnnxFold, ConstantOfShapeRangeReshapeFlatten) {
  ModelBuilder b;
  b.Int64s("shape", {2, 3});
  TensorProto* value = AttrTensor(b.Node("ConstantOfShape", {"shape"}, {"k"}), "value");
  value->set_data_type(TensorProto::INT64);
  value->add_dims(1);
  value->add_int64_data(7);
  b.Int64s("start", {1}, {});
  b.Int64s("limit", {19}, {});
  b.Int64s("delta", {3}, {});
  b.Node("Range", {"start", "limit", "delta"}, {"r"});  // [1, 4, 7, 10, 13, 16]
  b.Int64s("to23", {0, -1});                            // 0: copy dim 0 of [6] -> [6, 1]
  b.Node("Reshape", {"r", "to23"}, {"r61"});
  b.Int64s("to32", {3, 2});
  b.Node("Reshape", {"r61", "to32"}, {"r32"});
  b.Node("Flatten", {"r32"}, {"flat"});  // axis 1: [3, 2]
  b.Int64s("perm_shape", {2, 3});
  b.Node("Reshape", {"flat", "perm_shape"}, {"r23"});
  b.Node("Add", {"k", "r23"}, {"sum"});
  Folded f = FoldedValue(b, "sum", {2, 3});
  EXPECT_EQ(f.values, (std::vector<float>{8, 11, 14, 17, 20, 23}));

  ModelBuilder c;  // ConstantOfShape without a value: float zeros
  c.Int64s("shape", {4});
  c.Node("ConstantOfShape", {"shape"}, {"zeros"});
  f = FoldedValue(c, "zeros", {4});
  EXPECT_EQ(f.values, (std::vector<float>(4, 0.0f)));
}

TEST(OnnxFold, ExpandTileTransposeReductions) {
  ModelBuilder b;
  b.Int64s("row", {1, 2, 3}, {1, 3});
  b.Int64s("to", {2, 3});
  b.Node("Expand", {"row", "to"}, {"e"});  // [[1 2 3] [1 2 3]]
  b.Int64s("reps", {1, 2});
  b.Node("Tile", {"e", "reps"}, {"t"});  // [2, 6]
  b.Node("Transpose", {"t"}, {"tt"});    // [6, 2]
  b.Int64s("axis1", {1});
  auto& prod = b.Node("ReduceProd", {"tt"}, {"p"});  // opset 17: axes attribute
  AttrInts(prod, "axes", {1});
  AttrI(prod, "keepdims", 0);  // [1, 4, 9, 1, 4, 9]
  auto& mx = b.Node("ReduceMax", {"tt"}, {"mx"});
  AttrInts(mx, "axes", {0});  // [1, 2] -> [[3, 3]]
  auto& mn = b.Node("ReduceMin", {"t"}, {"mn"});
  AttrI(mn, "keepdims", 0);                      // all axes: 1
  b.Node("ReduceSum", {"t", "axis1"}, {"sum"});  // axes input (ReduceSum-13): [[12], [12]]
  b.Int64s("flat", {-1});
  b.Node("Reshape", {"mx", "flat"}, {"mx_flat"});
  b.Node("Reshape", {"sum", "flat"}, {"sum_flat"});
  AttrI(b.Node("Concat", {"p", "mx_flat", "sum_flat"}, {"all"}), "axis", 0);
  b.Node("Add", {"all", "mn"}, {"res"});
  Folded f = FoldedValue(b, "res", {10});
  EXPECT_EQ(f.values, (std::vector<float>{2, 5, 10, 2, 5, 10, 4, 4, 13, 13}));
}

TEST(OnnxFold, RangeOfFloatsAndModPow) {
  ModelBuilder b;
  b.ConstFloats("start", {0.5f}, {});
  b.ConstFloats("limit", {2.0f}, {});
  b.ConstFloats("delta", {0.5f}, {});
  b.Node("Range", {"start", "limit", "delta"}, {"r"});  // [0.5, 1, 1.5]
  b.ConstFloats("two", {2.0f}, {});
  b.Node("Pow", {"r", "two"}, {"sq"});  // [0.25, 1, 2.25]
  b.Int64s("a", {-7, 7});
  b.Int64s("m", {3}, {});
  b.Node("Mod", {"a", "m"}, {"mod"});  // fmod=0: the divisor's sign: [2, 1]
  AttrI(b.Node("Cast", {"mod"}, {"modf"}), "to", TensorProto::FLOAT);
  AttrI(b.Node("Concat", {"sq", "modf"}, {"all"}), "axis", 0);
  Folded f = FoldedValue(b, "all", {5});
  EXPECT_EQ(f.values, (std::vector<float>{0.25f, 1, 2.25f, 2, 1}));
}

// An exporter's `cls_token.expand(B, -1, -1)`: the expand shape is computed from the input's
// batch dimension at run time (Shape -> Gather -> Unsqueeze -> Concat -> ConstantOfShape -> Mul
// -> Equal -> Where -> Expand), which the importer must resolve once the batch size is set.

}  // namespace
}  // namespace ngraphbench
