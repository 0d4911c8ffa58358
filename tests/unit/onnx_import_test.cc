// The ONNX importer on models as exporters write them: import-time folding of shape arithmetic
// (graph/onnx_fold.h), IR 9+ / opset 18-22 normalization (graph/onnx_compat.h) and external data.
// Every model is built here with ONNX's protobuf API, so the test needs no Python.
// This file: shapes resolved at import, the ceilings on folded results and tensors, windowed
// nodes; the other parts are onnx_fold_test.cc, onnx_versions_test.cc and
// onnx_external_data_test.cc, sharing onnx_import_fixture.h.
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

TEST(OnnxImport, ExpandOfClsTokenResolvesAtTheRunBatchSize) {
  ModelBuilder b;
  b.Input("x", {-1, 4, 8});
  b.Floats("cls_token", std::vector<float>(8, 0.5f), {1, 1, 8});
  b.Node("Shape", {"x"}, {"shape"});
  b.Int64s("zero", {0}, {});
  b.Node("Gather", {"shape", "zero"}, {"batch"});
  b.Int64s("axes0", {0});
  b.Node("Unsqueeze", {"batch", "axes0"}, {"batch1"});
  b.Int64s("minus1", {-1});
  AttrI(b.Node("Concat", {"batch1", "minus1", "minus1"}, {"target"}), "axis", 0);
  b.Node("Shape", {"target"}, {"target_len"});
  TensorProto* one = AttrTensor(b.Node("ConstantOfShape", {"target_len"}, {"ones"}), "value");
  one->set_data_type(TensorProto::INT64);
  one->add_dims(1);
  one->add_int64_data(1);
  b.Int64s("m1", {-1}, {});
  b.Node("Mul", {"ones", "m1"}, {"neg"});
  b.Node("Equal", {"target", "neg"}, {"is_neg"});
  b.Node("Where", {"is_neg", "ones", "target"}, {"expand_shape"});
  b.Node("Expand", {"cls_token", "expand_shape"}, {"cls"});
  AttrI(b.Node("Concat", {"cls", "x"}, {"tokens"}), "axis", 1);
  b.Node("Relu", {"tokens"}, {"y"});
  b.Output("y");

  EXPECT_NE(ImportError(b).find("dynamic dimension"), std::string::npos);  // no batch size set
  const Graph g = ImportOnnx(b.Bytes(), "vit.onnx", 4);
  EXPECT_EQ(OpCounts(g), (std::map<std::string, int>{{"Expand", 1}, {"Concat", 1}, {"Relu", 1}}));
  EXPECT_EQ(g.ShapeOf("y"), (Shape{4, 5, 8}));
  for (const auto& n : g.nodes) {
    if (n.op_type != "Expand") continue;
    EXPECT_EQ(n.inputs[0], "cls_token");  // the weight stays what the file holds
    const Initializer* shape = g.FindInitializer(n.inputs[1]);
    ASSERT_NE(shape, nullptr);
    EXPECT_EQ(shape->dtype, DType::kInt64);
    EXPECT_EQ(shape->int64_data, (std::vector<int64_t>{4, 1, 1}));
  }
  EXPECT_EQ(g.ParameterCount(), 8);
  for (const auto& [value, shape] : g.value_shapes) {
    for (int64_t d : shape) EXPECT_GE(d, 0) << value;
  }
  // The same file at another batch size.
  EXPECT_EQ(ImportOnnx(b.Bytes(), "vit.onnx", 2).ShapeOf("y"), (Shape{2, 5, 8}));
}

// Weights (the file's float initializers) are not folded into other constants, an Identity of a
// weight is an alias, and unused initializers are dropped: params counts each weight once.
TEST(OnnxImport, ParametersCountEachUsedWeightOnce) {
  ModelBuilder b;
  b.Input("x", {2, 3});
  b.Floats("w", {1, 2, 3, 4, 5, 6}, {3, 2});
  b.Floats("unused", std::vector<float>(100, 1.0f));
  b.Floats("bias", {0.5f, 0.5f}, {2});
  b.Node("Identity", {"w"}, {"w_shared"});    // exporters' weight sharing
  b.Node("Transpose", {"w_shared"}, {"wt"});  // a weight transform stays a node
  b.Node("Transpose", {"wt"}, {"w_again"});
  b.Node("MatMul", {"x", "w"}, {"h1"});
  b.Node("MatMul", {"x", "w_again"}, {"h2"});
  b.Node("Add", {"h1", "h2"}, {"h"});
  b.Node("Add", {"h", "bias"}, {"y"});
  b.Node("Relu", {"h"}, {"dead"});  // nothing reads it
  b.Output("y");
  const Graph g = ImportOnnx(b.Bytes(), "shared.onnx", 0);
  EXPECT_EQ(g.ParameterCount(), 6 + 2);
  EXPECT_EQ(g.FindInitializer("unused"), nullptr);
  EXPECT_EQ(g.FindInitializer("w_shared"), nullptr);
  EXPECT_EQ(OpCounts(g), (std::map<std::string, int>{{"Transpose", 2}, {"MatMul", 2}, {"Add", 2}}));
  for (const auto& n : g.nodes) {
    if (n.op_type == "Transpose" && n.outputs[0] == "wt") {
      EXPECT_EQ(n.inputs[0], "w");
    }
  }
}

// A bool constant a kept node reads reaches the IR as int64 + Cast, and the IR exports again.
TEST(OnnxImport, NarrowConstantsReachTheIrThroughACast) {
  ModelBuilder b;
  b.Input("x", {2, 3});
  b.Input("z", {2, 3});
  b.Bools("cond", {1, 0, 1});
  b.Node("Where", {"cond", "x", "z"}, {"y"});
  b.Output("y");
  const Graph g = ImportOnnx(b.Bytes(), "where.onnx", 0);
  EXPECT_EQ(OpCounts(g), (std::map<std::string, int>{{"Cast", 1}, {"Where", 1}}));
  EXPECT_EQ(g.nodes.front().op_type, "Cast");  // before its reader: the IR is sorted
  EXPECT_EQ(g.nodes.front().IntAttr("to", 0), TensorProto::BOOL);
  const Initializer* values = g.FindInitializer(g.nodes.front().inputs[0]);
  ASSERT_NE(values, nullptr);
  EXPECT_EQ(values->int64_data, (std::vector<int64_t>{1, 0, 1}));
  const Graph again = ImportOnnx(ExportOnnx(g), "again.onnx", 0);
  EXPECT_EQ(OpCounts(again), OpCounts(g));
}

// Grid partition and its reverse, as torch.onnx's TorchScript exporter writes a MaxViT block:
// every Reshape's target comes from Shape of the previous Reshape's output, through Gather, an
// integer Div (H // grid) and Cast. `blocks` such blocks in a row, on x [batch, 4, 4, 2].
void GridPartitionChain(ModelBuilder& b, int blocks, int64_t batch_dim) {
  b.Input("x", {batch_dim, 4, 4, 2});
  for (int64_t k = 0; k < 4; ++k) b.Int64s("i" + std::to_string(k), {k}, {});
  b.Int64s("grid", {2}, {});
  b.Int64s("grid1", {2});
  b.Int64s("minus1", {-1});
  b.Int64s("axes0", {0});
  std::string cur = "x";
  for (int i = 0; i < blocks; ++i) {
    const std::string p = "b" + std::to_string(i) + "_";
    // dims(v)[k], unsqueezed to a 1-element shape piece
    auto dim = [&](const std::string& v, int k, const std::string& name) {
      b.Node("Gather", {v, "i" + std::to_string(k)}, {p + name});
      b.Node("Unsqueeze", {p + name, "axes0"}, {p + name + "1"});
      return p + name + "1";
    };
    b.Node("Shape", {cur}, {p + "s"});
    const std::string n = dim(p + "s", 0, "n"), h = dim(p + "s", 1, "h");
    const std::string w = dim(p + "s", 2, "w"), c = dim(p + "s", 3, "c");
    std::vector<std::string> per_cell;
    for (const std::string& side : {"h", "w"}) {
      b.Node("Div", {p + side, "grid"}, {p + side + "_div"});
      AttrI(b.Node("Cast", {p + side + "_div"}, {p + side + "_cast"}), "to", TensorProto::INT64);
      b.Node("Unsqueeze", {p + side + "_cast", "axes0"}, {p + side + "_cell"});
      per_cell.push_back(p + side + "_cell");
    }
    AttrI(b.Node("Concat", {n, "grid1", per_cell[0], "grid1", per_cell[1], c}, {p + "t1"}), "axis",
          0);
    b.Node("Reshape", {cur, p + "t1"}, {p + "r1"});
    AttrInts(b.Node("Transpose", {p + "r1"}, {p + "p1"}), "perm", {0, 2, 4, 1, 3, 5});
    AttrI(b.Node("Concat", {"minus1", "grid1", "grid1", c}, {p + "t2"}), "axis", 0);
    b.Node("Reshape", {p + "p1", p + "t2"}, {p + "win"});
    b.Node("Relu", {p + "win"}, {p + "act"});
    // The reverse reads the channel count from the windows, as grid_reverse does.
    b.Node("Shape", {p + "act"}, {p + "ws"});
    const std::string wc = dim(p + "ws", 3, "wc");
    AttrI(b.Node("Concat", {n, per_cell[0], per_cell[1], "grid1", "grid1", wc}, {p + "t3"}), "axis",
          0);
    b.Node("Reshape", {p + "act", p + "t3"}, {p + "r3"});
    AttrInts(b.Node("Transpose", {p + "r3"}, {p + "p3"}), "perm", {0, 3, 1, 4, 2, 5});
    AttrI(b.Node("Concat", {n, h, w, wc}, {p + "t4"}), "axis", 0);
    b.Node("Reshape", {p + "p3", p + "t4"}, {p + "out"});
    cur = p + "out";
  }
  b.Node("Identity", {cur}, {"y"});
  b.Output("y");
}

// Each block's reshapes depend on the shape of the block before: folding infers the shapes of
// the nodes it keeps as it goes, so the whole chain folds in one round (then one that finds
// nothing left). One round per link instead needed 81 rounds here; a 40-block chain is deeper
// than any cap that does not grow with the model.
TEST(OnnxImport, ChainOfShapeDependentReshapesFoldsInOneRound) {
  constexpr int kBlocks = 40;
  {
    ModelBuilder b;
    GridPartitionChain(b, kBlocks, 2);
    FoldContext ctx;
    ctx.source = "chain.onnx";
    ResolveStaticShapes(b.model(), ctx);
    EXPECT_EQ(ctx.rounds, 2);
  }
  ModelBuilder b;
  GridPartitionChain(b, kBlocks, -1);
  const Graph g = ImportOnnx(b.Bytes(), "chain.onnx", 3);
  EXPECT_EQ(OpCounts(g), (std::map<std::string, int>{{"Reshape", 4 * kBlocks},
                                                     {"Transpose", 2 * kBlocks},
                                                     {"Relu", kBlocks},
                                                     {"Identity", 1}}));
  EXPECT_EQ(g.ShapeOf("b0_win"), (Shape{12, 2, 2, 2}));
  EXPECT_EQ(g.ShapeOf("y"), (Shape{3, 4, 4, 2}));
  for (const auto& [value, shape] : g.value_shapes) {
    for (int64_t d : shape) EXPECT_GE(d, 0) << value;
  }
}

// ---- ceilings
// ------------------------------------------------------------------------------------

TEST(OnnxFold, ResultsOverTheCeilingStayNodes) {
  // 2^21 zeros from a ConstantOfShape: not folded; it becomes Expand(scalar, shape), no 8 MiB
  // constant is created.
  ModelBuilder b;
  b.Input("x", {1024, 2048});
  b.Int64s("shape", {1024, 2048});
  b.Node("ConstantOfShape", {"shape"}, {"zeros"});
  b.Node("Add", {"x", "zeros"}, {"y"});
  b.Output("y");
  const Graph g = ImportOnnx(b.Bytes(), "big.onnx", 0);
  EXPECT_EQ(OpCounts(g), (std::map<std::string, int>{{"Expand", 1}, {"Add", 1}}));
  for (const auto& init : g.initializers) {
    EXPECT_LE(NumElements(init.tensor.shape), 2) << init.name;
  }

  // A hostile Range of 2^62 elements: the fold is declined before anything is allocated.
  ModelBuilder r;
  r.Int64s("start", {0}, {});
  r.Int64s("limit", {int64_t{1} << 62}, {});
  r.Int64s("delta", {1}, {});
  r.Node("Range", {"start", "limit", "delta"}, {"r"});
  r.Output("r", TensorProto::INT64);
  FoldContext ctx;
  EXPECT_EQ(FoldConstantsOnce(r.g(), {}, ctx), 0);
  EXPECT_EQ(r.g().node_size(), 1);
  EXPECT_EQ(ctx.created, 0u);

  // A smaller ceiling, and the total: the second fold is declined once the budget is spent.
  ModelBuilder t;
  t.Int64s("shape", {6});
  t.Node("ConstantOfShape", {"shape"}, {"a"});
  t.Node("ConstantOfShape", {"shape"}, {"b"});
  t.Node("Add", {"a", "b"}, {"c"});
  t.Node("Identity", {"c"}, {"out"});
  t.Output("out");
  FoldContext small;
  small.limits.max_elements = 8;
  small.limits.max_total = 10;
  EXPECT_EQ(FoldConstantsOnce(t.g(), {}, small), 1);
  EXPECT_EQ(small.created, 6u);
  FoldContext tiny;
  tiny.limits.max_elements = 4;
  ModelBuilder u;
  u.Int64s("shape", {6});
  u.Node("ConstantOfShape", {"shape"}, {"a"});
  u.Node("Identity", {"a"}, {"out"});
  u.Output("out");
  EXPECT_EQ(FoldConstantsOnce(u.g(), {}, tiny), 0);
}

// Found by fuzzing: libonnx 1.12's data propagation ends the process on an Unsqueeze axis of
// 2^57 applied to a shape value; the importer infers shapes without it and refuses the file.
TEST(OnnxImport, HostileShapeArithmeticIsAnErrorNotACrash) {
  for (int64_t batch : {0, 2}) {
    ModelBuilder b(18, 14);
    b.Input("x", {-1, 5, 4});
    b.Node("Shape", {"x"}, {"s"});
    b.Int64s("zero", {0}, {});
    b.Node("Gather", {"s", "zero"}, {"n"});
    b.Int64s("axes", {int64_t{1} << 57});
    b.Node("Unsqueeze", {"n", "axes"}, {"n1"});
    b.Int64s("m1", {-1});
    AttrI(b.Node("Concat", {"n1", "m1", "m1"}, {"t"}), "axis", 0);
    b.Node("Shape", {"t"}, {"y"});
    b.Output("y", TensorProto::INT64);
    const std::string error = ImportError(b, batch);
    EXPECT_NE(error.find("fails shape inference"), std::string::npos) << error;
  }
}

// The one-tensor ceiling comes from NGRAPHBENCH_MAX_TENSOR_MB, read once per process: each case
// runs in a fresh process (a threadsafe death test re-executes this binary).
int ImportWithCeiling(const char* mb, size_t floats) {
  setenv("NGRAPHBENCH_MAX_TENSOR_MB", mb, 1);
  ModelBuilder b;
  b.Input("x", {-1, 4});
  TensorProto* w = b.g().add_initializer();
  w->set_name("w");
  w->set_data_type(TensorProto::FLOAT);
  w->add_dims(static_cast<int64_t>(floats));
  w->set_raw_data(std::string(floats * sizeof(float), '\0'));
  AttrInts(b.Node("ReduceMean", {"w"}, {"m"}), "axes", {0});
  b.Node("Add", {"x", "m"}, {"y"});
  b.Output("y");
  try {
    ImportOnnx(b.Bytes(), "ceiling.onnx", 2);
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}

TEST(OnnxImportDeathTest, TheTensorCeilingIsASetting) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const size_t floats = (size_t{3} << 20) / 4;  // 3 MiB
  EXPECT_EXIT(std::exit(ImportWithCeiling("4", floats)), testing::ExitedWithCode(0), "");
  EXPECT_EXIT(std::exit(ImportWithCeiling("2", floats)), testing::ExitedWithCode(2),
              "initializer 'w' declares more than 524288 elements, over the 2 MiB one tensor "
              "may take \\(set NGRAPHBENCH_MAX_TENSOR_MB to allow more\\)");
  for (const char* bad : {"0", "-1", "abc", "4x", "1048577"}) {
    EXPECT_EXIT(std::exit(ImportWithCeiling(bad, floats)), testing::ExitedWithCode(2),
                "NGRAPHBENCH_MAX_TENSOR_MB='.*' is not a whole number of MiB from 1 to 1048576")
        << bad;
  }
}

// A Conv or pooling node whose attributes disagree with its weight or its input imports with
// an error naming them, as an SDK would refuse it, never as a model that only some compilers run.
struct WindowCase {
  std::string op;
  Shape weight;  // Conv only
  std::vector<std::pair<std::string, std::vector<int64_t>>> ints;
  std::string auto_pad;
  std::string expected;  // empty: imports
};

std::string ImportWindow(const WindowCase& c) {
  ModelBuilder b;
  b.Input("x", {-1, 4, 8, 8});
  std::vector<std::string> inputs = {"x"};
  if (!c.weight.empty()) {
    int64_t n = 1;
    for (int64_t d : c.weight) n *= d;
    b.Floats("w", std::vector<float>(static_cast<size_t>(n), 0.5f), c.weight);
    inputs.push_back("w");
  }
  onnx::NodeProto& node = b.Node(c.op, inputs, {"y"});
  for (const auto& [key, values] : c.ints) AttrInts(node, key, values);
  if (!c.auto_pad.empty()) AttrS(node, "auto_pad", c.auto_pad);
  b.Output("y");
  try {
    ImportOnnx(b.Bytes(), "window.onnx", 1);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(OnnxImport, WindowedNodesAgreeWithTheirWeightAndInput) {
  const std::vector<WindowCase> cases = {
      {"Conv", {4, 4, 3, 3}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}, "", ""},
      {"Conv", {4, 4, 3, 3}, {}, "SAME_UPPER", ""},
      {"Conv", {4, 4, 5, 5}, {{"kernel_shape", {3, 3}}}, "",
       "has kernel_shape 3x3 but a weight of 4x4x5x5, whose window is 5x5"},
      {"Conv", {4, 4, 1, 1}, {{"kernel_shape", {3, 3}}}, "",
       "has kernel_shape 3x3 but a weight of 4x4x1x1"},
      {"Conv", {4, 4, 3, 3}, {{"pads", {1, 1, 1, 1}}}, "SAME_UPPER",
       "has auto_pad SAME_UPPER and explicit pads 1x1x1x1"},
      {"Conv", {4, 4, 3, 3}, {{"dilations", {5, 5}}}, "",
       "has kernel 3 with dilation 5 on spatial axis 0, a window wider than the input"},
      {"Conv", {4, 4, 3, 3}, {{"strides", {1, 1, 1}}}, "", "Attribute strides has incorrect size"},
      {"Conv", {4, 4, 3, 3}, {{"pads", {1, 1}}}, "", "Attribute pads has incorrect size"},
      {"Conv", {4, 4, 3, 3}, {}, "SAME_MIDDLE", "has auto_pad 'SAME_MIDDLE'"},
      {"MaxPool", {}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}, "", ""},
      {"MaxPool", {}, {{"kernel_shape", {2, 2}}, {"pads", {2, 0, 0, 0}}}, "",
       "each pad must be smaller than its window"},
      {"AveragePool", {}, {{"kernel_shape", {9, 9}}}, "",
       "has kernel 9 with dilation 1 on spatial axis 0, a window wider than the input"},
      {"AveragePool", {}, {{"kernel_shape", {3}}}, "", "Attribute kernel_shape has incorrect size"},
  };
  for (const WindowCase& c : cases) {
    const std::string error = ImportWindow(c);
    if (c.expected.empty()) {
      EXPECT_EQ(error, "") << c.op;
    } else {
      EXPECT_NE(error.find(c.expected), std::string::npos)
          << c.op << ": expected '" << c.expected << "', got '" << error << "'";
      EXPECT_NE(error.find("window.onnx"), std::string::npos) << error;
    }
  }
}

TEST(OnnxImport, OutputsWithoutShapeAreInferredAndUndefinedOutputsRefused) {
  ModelBuilder b(21, 10);  // the current onnx helpers leave an output's shape out
  b.Input("x", {-1, 3});
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y");
  EXPECT_EQ(ImportOnnx(b.Bytes(), "shapeless.onnx", 4).ShapeOf("y"), (Shape{4, 3}));

  ModelBuilder u;
  u.Input("x", {2, 3});
  u.Node("Relu", {"x"}, {"y"});
  u.Output("nothing");
  const std::string error = ImportError(u);
  EXPECT_NE(error.find("graph output 'nothing' is computed by no node"), std::string::npos)
      << error;
}

}  // namespace
}  // namespace ngraphbench
