// IR 9+ / opset 18-22 normalization (graph/onnx_compat.h) (part of onnx_import_test).
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

// ---- IR versions and opsets ---------------------------------------------------------------------

TEST(OnnxVersions, IrVersion10And14ImportWhenNoNewTypeIsUsed) {
  for (int64_t ir : {9, 10, 14}) {
    ModelBuilder b(17, ir);
    b.Input("x", {2, 3});
    b.Node("Relu", {"x"}, {"y"});
    b.Output("y");
    EXPECT_EQ(ImportOnnx(b.Bytes(), "new_ir.onnx", 0).ShapeOf("y"), (Shape{2, 3})) << ir;
  }
  ModelBuilder f8(17, 10);
  f8.Input("x", {2, 3});
  TensorProto* w = f8.g().add_initializer();
  w->set_name("scale_f8");
  w->set_data_type(17);  // FLOAT8E4M3FN
  w->add_dims(1);
  w->set_raw_data(std::string(1, '\x38'));
  f8.Node("Relu", {"x"}, {"y"});
  f8.Output("y");
  const std::string error = ImportError(f8);
  EXPECT_NE(error.find("FLOAT8E4M3FN (IR 9) in initializer 'scale_f8'"), std::string::npos)
      << error;
}

TEST(OnnxVersions, ReduceAxesInputBecomesAnAttribute) {
  ModelBuilder b(18);
  b.Input("x", {2, 3, 4});
  b.Int64s("axes", {-1});
  AttrI(b.Node("ReduceMean", {"x", "axes"}, {"m"}), "keepdims", 0);
  auto& noop = b.Node("ReduceMax", {"m"}, {"y"});  // no axes, noop: an Identity
  AttrI(noop, "noop_with_empty_axes", 1);
  b.Output("y");
  const Graph g = ImportOnnx(b.Bytes(), "reduce18.onnx", 0);
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].op_type, "ReduceMean");
  EXPECT_EQ(g.nodes[0].inputs.size(), 1u);
  EXPECT_EQ(g.nodes[0].IntsAttr("axes"), (std::vector<int64_t>{-1}));
  EXPECT_EQ(g.nodes[1].op_type, "Identity");
  EXPECT_EQ(g.ShapeOf("y"), (Shape{2, 3}));

  ModelBuilder c(18);  // axes computed from data: no opset-17 form
  c.Input("x", {2, 3});
  c.Input("a", {1});
  AttrI(c.Node("Cast", {"a"}, {"axes"}), "to", TensorProto::INT64);
  c.Node("ReduceL2", {"x", "axes"}, {"y"});
  c.Output("y");
  EXPECT_NE(ImportError(c).find("axes input 'axes' is not a constant"), std::string::npos);
}

TEST(OnnxVersions, SplitNumOutputsAndPadAxes) {
  ModelBuilder b(18);
  b.Input("x", {-1, 8, 3});
  auto& split = b.Node("Split", {"x"}, {"a", "b", "c"});
  AttrI(split, "axis", 1);
  AttrI(split, "num_outputs", 3);  // 8 -> 3, 3, 2
  b.Int64s("pads", {1, 2});        // axis -1: one before, two after
  b.Int64s("axes", {-1});
  b.Node("Pad", {"c", "pads", "", "axes"}, {"p"});
  b.Output("a");
  b.Output("p");
  const Graph g = ImportOnnx(b.Bytes(), "split18.onnx", 2);
  EXPECT_EQ(OpCounts(g), (std::map<std::string, int>{{"Split", 1}, {"Pad", 1}}));
  EXPECT_EQ(g.ShapeOf("a"), (Shape{2, 3, 3}));
  EXPECT_EQ(g.ShapeOf("c"), (Shape{2, 2, 3}));
  EXPECT_EQ(g.ShapeOf("p"), (Shape{2, 2, 6}));
  for (const auto& n : g.nodes) {
    ASSERT_GE(n.inputs.size(), 2u) << n.op_type;
    const Initializer* k = g.FindInitializer(n.inputs[1]);
    ASSERT_NE(k, nullptr) << n.op_type;
    if (n.op_type == "Split") {
      EXPECT_EQ(k->int64_data, (std::vector<int64_t>{3, 3, 2}));
    }
    if (n.op_type == "Pad") {
      EXPECT_EQ(n.inputs.size(), 3u);
      EXPECT_EQ(k->int64_data, (std::vector<int64_t>{0, 0, 1, 0, 0, 2}));
    }
  }
}

double Gelu(double x, bool tanh_form) {
  if (!tanh_form) return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

TEST(OnnxVersions, Gelu20IsLoweredToItsFormula) {
  for (const std::string approximate : {"none", "tanh"}) {
    ModelBuilder b(20);
    b.ConstFloats("v", {-2.0f, -0.5f, 0.0f, 1.0f, 3.0f});  // a constant: the lowering folds
    AttrS(b.Node("Gelu", {"v"}, {"g"}), "approximate", approximate);
    const Folded f = FoldedValue(b, "g", {5});
    const std::vector<double> in = {-2, -0.5, 0, 1, 3};
    ASSERT_EQ(f.values.size(), in.size());
    for (size_t k = 0; k < in.size(); ++k) {
      EXPECT_NEAR(f.values[k], Gelu(in[k], approximate == "tanh"), 2e-6) << approximate << k;
    }
    ModelBuilder live(20);  // on data: opset-17 ops only
    live.Input("x", {2, 5});
    AttrS(live.Node("Gelu", {"x"}, {"y"}), "approximate", approximate);
    live.Output("y");
    const auto ops = OpCounts(ImportOnnx(live.Bytes(), "gelu.onnx", 0));
    EXPECT_EQ(ops.count("Gelu"), 0u);
    EXPECT_EQ(ops.count(approximate == "tanh" ? "Tanh" : "Erf"), 1u);
  }
}

TEST(OnnxVersions, GroupNormalizationOpsets18And21) {
  // x [1, 4, 2]: 2 groups of 2 channels.
  const std::vector<float> x = {1, 2, 3, 4, 10, 20, 30, 50};
  for (int64_t opset : {18, 21}) {
    ModelBuilder b(opset);
    b.ConstFloats("x", x, {1, 4, 2});
    // Opset 18: scale/bias per group; 21: per channel.
    const std::vector<float> scale =
        opset == 18 ? std::vector<float>{2, 3} : std::vector<float>{2, 2, 3, 3};
    const std::vector<float> bias =
        opset == 18 ? std::vector<float>{1, -1} : std::vector<float>{1, 1, -1, -1};
    b.ConstFloats("scale", scale);
    b.ConstFloats("bias", bias);
    auto& gn = b.Node("GroupNormalization", {"x", "scale", "bias"}, {"gn"});
    AttrI(gn, "num_groups", 2);
    AttrF(gn, "epsilon", 1e-5f);
    const Folded f = FoldedValue(b, "gn", {1, 4, 2});
    ASSERT_EQ(f.values.size(), x.size());
    for (int group = 0; group < 2; ++group) {
      double mean = 0, var = 0;
      for (int k = 0; k < 4; ++k) mean += x[group * 4 + k] / 4.0;
      for (int k = 0; k < 4; ++k) var += (x[group * 4 + k] - mean) * (x[group * 4 + k] - mean) / 4;
      const double s = group ? 3 : 2, o = group ? -1 : 1;
      for (int k = 0; k < 4; ++k) {
        const double want = s * (x[group * 4 + k] - mean) / std::sqrt(var + 1e-5) + o;
        EXPECT_NEAR(f.values[group * 4 + k], want, 1e-5) << "opset " << opset;
      }
    }
  }
}

TEST(OnnxVersions, AttributesOnlyNewerOpsetsHaveAreDroppedOrRefused) {
  ModelBuilder b(19);
  b.Input("x", {1, 2, 6, 6});
  auto& pool = b.Node("AveragePool", {"x"}, {"p"});
  AttrInts(pool, "kernel_shape", {2, 2});
  AttrInts(pool, "dilations", {1, 1});
  auto& cast = b.Node("Cast", {"p"}, {"y"});
  AttrI(cast, "to", TensorProto::FLOAT);
  AttrI(cast, "saturate", 1);
  b.Output("y");
  const Graph g = ImportOnnx(b.Bytes(), "pool19.onnx", 0);
  EXPECT_FALSE(g.nodes[0].HasAttr("dilations"));
  EXPECT_FALSE(g.nodes[1].HasAttr("saturate"));
  EXPECT_EQ(g.ShapeOf("y"), (Shape{1, 2, 5, 5}));

  ModelBuilder d(19);
  d.Input("x", {1, 2, 6, 6});
  auto& dilated = d.Node("AveragePool", {"x"}, {"y"});
  AttrInts(dilated, "kernel_shape", {2, 2});
  AttrInts(dilated, "dilations", {2, 2});
  d.Output("y");
  const std::string error = ImportError(d);
  EXPECT_NE(error.find("dilations other than 1"), std::string::npos) << error;
}

// onnx 1.23's helper.make_model writes opset 28 and IR 14 by default.
TEST(OnnxVersions, Opset28AttributesAreDroppedAndNewOperatorsRefused) {
  ModelBuilder b(28, 14);
  b.Input("x", {-1, 4, 4, 4});
  AttrI(b.Node("SpaceToDepth", {"x"}, {"s"}), "blocksize", 2);
  AttrS(b.g().mutable_node(0)[0], "mode", "DCR");
  auto& cast = b.Node("Cast", {"s"}, {"c"});
  AttrI(cast, "to", TensorProto::FLOAT);
  AttrS(cast, "round_mode", "up");
  b.Int64s("start", {0}, {});
  b.Int64s("limit", {2}, {});
  b.Int64s("delta", {1}, {});
  AttrI(b.Node("Range", {"start", "limit", "delta"}, {"r"}), "stash_type", 1);
  AttrI(b.Node("Cast", {"r"}, {"rf"}), "to", TensorProto::FLOAT);
  b.Node("Add", {"c", "rf"}, {"y"});
  b.Output("y");
  const Graph g = ImportOnnx(b.Bytes(), "opset28.onnx", 2);
  EXPECT_EQ(g.ShapeOf("y"), (Shape{2, 16, 2, 2}));
  for (const auto& n : g.nodes) {
    EXPECT_FALSE(n.HasAttr("mode") || n.HasAttr("round_mode") || n.HasAttr("stash_type"))
        << n.op_type;
  }

  ModelBuilder crd(28, 14);
  crd.Input("x", {1, 4, 4, 4});
  auto& s2d = crd.Node("SpaceToDepth", {"x"}, {"s"});
  AttrI(s2d, "blocksize", 2);
  AttrS(s2d, "mode", "CRD");
  crd.Node("Swish", {"s"}, {"y"});
  crd.Output("y");
  const std::string error = ImportError(crd);
  EXPECT_NE(error.find("mode='CRD' (opset 28) has no opset-17 equivalent"), std::string::npos)
      << error;
  EXPECT_NE(error.find("added in opset 24"), std::string::npos) << error;
}

TEST(OnnxVersions, OperatorsWithoutAnOpset17FormAreListedTogether) {
  ModelBuilder b(20);
  b.Input("x", {1, 4, 4});
  b.Input("i", {4}, TensorProto::INT32);
  b.Int64s("block", {2, 2});
  b.Int64s("image", {4, 4});
  b.Node("Col2Im", {"x", "image", "block"}, {"im"});
  b.Node("BitwiseAnd", {"i", "i"}, {"bits"});
  b.Node("Relu", {"im"}, {"y"});
  b.Output("y");
  b.Output("bits", TensorProto::INT32);
  const std::string error = ImportError(b);
  EXPECT_NE(error.find("Col2Im node"), std::string::npos) << error;
  EXPECT_NE(error.find("BitwiseAnd node"), std::string::npos) << error;
  EXPECT_NE(error.find("opset_version=17"), std::string::npos) << error;

  ModelBuilder newer(29);
  newer.Input("x", {2});
  newer.Node("Relu", {"x"}, {"y"});
  newer.Output("y");
  EXPECT_NE(ImportError(newer).find("uses opset 29; ngraphbench reads opsets up to 28"),
            std::string::npos);
}

}  // namespace
}  // namespace ngraphbench
