// The ONNX importer on models as exporters write them: import-time folding of shape arithmetic
// (graph/onnx_fold.h), IR 9+ / opset 18-22 normalization (graph/onnx_compat.h) and external data.
// Every model is built here with ONNX's protobuf API, so the test needs no Python.
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

namespace ngraphbench {
namespace {

using onnx::TensorProto;
namespace fs = std::filesystem;

void AttrI(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
void AttrF(onnx::NodeProto& n, const std::string& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
void AttrS(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}
void AttrInts(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
TensorProto* AttrTensor(onnx::NodeProto& n, const std::string& name) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::TENSOR);
  return a->mutable_t();
}

class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 17, int64_t ir_version = 8) {
    model_.set_ir_version(ir_version);
    auto* o = model_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    model_.mutable_graph()->set_name("test");
  }
  onnx::GraphProto& g() { return *model_.mutable_graph(); }
  onnx::ModelProto& model() { return model_; }
  std::string Bytes() const { return model_.SerializeAsString(); }

  // -1 in `dims` is a dynamic dimension named "batch".
  void Input(const std::string& name, const std::vector<int64_t>& dims,
             int32_t type = TensorProto::FLOAT) {
    auto* v = g().add_input();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    auto* shape = t->mutable_shape();
    for (int64_t d : dims) {
      if (d < 0)
        shape->add_dim()->set_dim_param("batch");
      else
        shape->add_dim()->set_dim_value(d);
    }
  }
  void Output(const std::string& name, int32_t type = TensorProto::FLOAT) {
    auto* v = g().add_output();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(type);
  }
  onnx::NodeProto& Node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs) {
    auto* n = g().add_node();
    n->set_op_type(op);
    n->set_name("n" + std::to_string(g().node_size()) + "_" + op);
    for (const auto& in : inputs) n->add_input(in);
    for (const auto& out : outputs) n->add_output(out);
    return *n;
  }
  // Initializers: float ones are the file's weights.
  void Int64s(const std::string& name, const std::vector<int64_t>& v,
              std::vector<int64_t> dims = {-1}) {
    TensorProto* t = g().add_initializer();
    Fill(t, name, TensorProto::INT64, dims, v.size());
    for (int64_t x : v) t->add_int64_data(x);
  }
  void Floats(const std::string& name, const std::vector<float>& v,
              std::vector<int64_t> dims = {-1}) {
    TensorProto* t = g().add_initializer();
    Fill(t, name, TensorProto::FLOAT, dims, v.size());
    for (float x : v) t->add_float_data(x);
  }
  void Bools(const std::string& name, const std::vector<int>& v) {
    TensorProto* t = g().add_initializer();
    Fill(t, name, TensorProto::BOOL, {-1}, v.size());
    for (int x : v) t->add_int32_data(x);
  }
  // A Constant node: an exporter's constant, not a weight (folding may compute with it).
  void ConstFloats(const std::string& name, const std::vector<float>& v,
                   std::vector<int64_t> dims = {-1}) {
    TensorProto* t = AttrTensor(Node("Constant", {}, {name}), "value");
    Fill(t, "", TensorProto::FLOAT, dims, v.size());
    for (float x : v) t->add_float_data(x);
  }

 private:
  static void Fill(TensorProto* t, const std::string& name, int32_t type,
                   const std::vector<int64_t>& dims, size_t count) {
    t->set_name(name);
    t->set_data_type(type);
    for (int64_t d : dims) t->add_dims(d < 0 ? static_cast<int64_t>(count) : d);
  }
  onnx::ModelProto model_;
};

std::map<std::string, int> OpCounts(const Graph& g) {
  std::map<std::string, int> counts;
  for (const auto& n : g.nodes) counts[n.op_type]++;
  return counts;
}

std::string ImportError(const ModelBuilder& b, int64_t batch = 0) {
  try {
    ImportOnnx(b.Bytes(), "test.onnx", batch);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "imported without an error";
  return "";
}

struct Folded {
  Shape shape;
  std::vector<float> values;
};

// Finishes `b` with y = z + Cast(value, float), z an input of `shape`, imports it, checks that the
// Add is all that is left, and returns the constant it reads: `value`, folded.
Folded FoldedValue(ModelBuilder& b, const std::string& value, const Shape& shape,
                   int64_t batch = 0) {
  b.Input("z", shape);
  AttrI(b.Node("Cast", {value}, {value + "_f"}), "to", TensorProto::FLOAT);
  b.Node("Add", {"z", value + "_f"}, {"y"});
  b.Output("y");
  const Graph g = ImportOnnx(b.Bytes(), "fold.onnx", batch);
  EXPECT_EQ(OpCounts(g), (std::map<std::string, int>{{"Add", 1}}));
  for (const auto& n : g.nodes) {
    if (n.op_type != "Add") continue;
    const Initializer* init = g.FindInitializer(n.inputs[1]);
    if (!init) {
      ADD_FAILURE() << "the Add does not read a constant";
      return {};
    }
    EXPECT_FALSE(init->is_parameter) << "a folded constant is not a parameter";
    return {init->tensor.shape, init->tensor.data};
  }
  ADD_FAILURE() << "no Add left";
  return {};
}

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

// ---- external data
// -------------------------------------------------------------------------------

class OnnxExternalData : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ngb_external_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "model");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Appends `bytes` to the side file and points `t` at them.
  void External(TensorProto* t, const std::string& bytes, const std::string& location,
                const fs::path& file) {
    std::ofstream out(file, std::ios::binary | std::ios::app);
    const auto offset = fs::exists(file) ? fs::file_size(file) : 0;
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    t->set_data_location(TensorProto::EXTERNAL);
    auto add = [&](const std::string& k, const std::string& v) {
      auto* e = t->add_external_data();
      e->set_key(k);
      e->set_value(v);
    };
    add("location", location);
    add("offset", std::to_string(offset));
    add("length", std::to_string(bytes.size()));
  }

  // y = Reshape(x @ big, shape) @ small: `big` (2 MiB, read at the end), `small` and the int64
  // `shape` (read at once) are in data/weights.bin.
  ModelBuilder Model(const std::string& location = "data/weights.bin") {
    ModelBuilder b;
    b.Input("x", {-1, 512});
    big_.resize(512 * 1024);
    for (size_t k = 0; k < big_.size(); ++k) big_[k] = static_cast<float>(k % 97) * 0.01f;
    small_ = {1, 2, 3, 4, 5, 6};
    fs::create_directories(dir_ / "model" / "data");
    const fs::path file = dir_ / "model" / "data" / "weights.bin";
    auto add = [&](const std::string& name, int32_t type, std::vector<int64_t> dims,
                   const void* data, size_t bytes) {
      TensorProto* t = b.g().add_initializer();
      t->set_name(name);
      t->set_data_type(type);
      for (int64_t d : dims) t->add_dims(d);
      External(t, std::string(static_cast<const char*>(data), bytes), location, file);
    };
    add("big", TensorProto::FLOAT, {512, 1024}, big_.data(), big_.size() * 4);
    add("small", TensorProto::FLOAT, {2, 3}, small_.data(), small_.size() * 4);
    const std::vector<int64_t> shape = {0, -1, 2};
    add("shape", TensorProto::INT64, {3}, shape.data(), 24);
    b.Node("MatMul", {"x", "big"}, {"h"});
    b.Node("Reshape", {"h", "shape"}, {"r"});
    b.Node("MatMul", {"r", "small"}, {"y"});
    b.Output("y");
    return b;
  }

  fs::path Save(const ModelBuilder& b, const std::string& name = "m.onnx") {
    const fs::path path = dir_ / "model" / name;
    std::ofstream out(path, std::ios::binary);
    const std::string bytes = b.Bytes();
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
  }

  std::string FileError(const fs::path& path) {
    try {
      ImportOnnxFile(path.string(), 1);
    } catch (const InputError& e) {
      return e.what();
    }
    ADD_FAILURE() << "imported without an error";
    return "";
  }

  fs::path dir_;
  std::vector<float> big_, small_;
};

TEST_F(OnnxExternalData, LoadsRelativeToTheModelNotTheWorkingDirectory) {
  const fs::path path = Save(Model());
  const fs::path cwd = fs::current_path();
  fs::create_directories(dir_ / "elsewhere");
  fs::current_path(dir_ / "elsewhere");  // neither the model's folder nor its parent
  Graph g;
  try {
    g = ImportOnnxFile(path.string(), 2);
    // A relative path to the model, from another directory.
    EXPECT_EQ(ImportOnnxFile("../model/m.onnx", 2).ShapeOf("y"), (Shape{2, 512, 3}));
  } catch (...) {
    fs::current_path(cwd);
    throw;
  }
  fs::current_path(cwd);
  EXPECT_EQ(g.ShapeOf("y"), (Shape{2, 512, 3}));
  const Initializer* big = g.FindInitializer("big");
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->tensor.data, big_);
  EXPECT_EQ(g.FindInitializer("small")->tensor.data, small_);
  EXPECT_EQ(g.FindInitializer("shape")->int64_data, (std::vector<int64_t>{0, -1, 2}));
  EXPECT_EQ(g.ParameterCount(), 512 * 1024 + 6);
  // From bytes alone there is no folder to read from.
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    ImportOnnx(bytes, "mem.onnx", 1);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("was not read from a file"), std::string::npos);
  }
}

TEST_F(OnnxExternalData, Int32DataIsWidenedInPlace) {
  ModelBuilder b;
  b.Input("x", {-1, 8});
  const size_t n = 300000;  // 1.2 MB: read at the end, not at once
  std::vector<int32_t> idx(n);
  for (size_t k = 0; k < n; ++k) idx[k] = static_cast<int32_t>(k % 8) - (k % 3 == 0 ? 8 : 0);
  TensorProto* t = b.g().add_initializer();
  t->set_name("idx");
  t->set_data_type(TensorProto::INT32);
  t->add_dims(static_cast<int64_t>(n));
  External(t, std::string(reinterpret_cast<const char*>(idx.data()), n * 4), "idx.bin",
           dir_ / "model" / "idx.bin");
  AttrI(b.Node("Gather", {"x", "idx"}, {"y"}), "axis", 1);
  b.Output("y");
  const Graph g = ImportOnnxFile(Save(b).string(), 1);
  const Initializer* init = g.FindInitializer("idx");
  ASSERT_NE(init, nullptr);
  ASSERT_EQ(init->int64_data.size(), n);
  for (size_t k = 0; k < n; ++k) ASSERT_EQ(init->int64_data[k], idx[k]) << k;
}

TEST_F(OnnxExternalData, LocationsOutsideTheFolderAreRefused) {
  std::ofstream(dir_ / "outside.bin") << std::string(4 * 1024 * 512 + 64, 'x');
  fs::create_symlink(dir_ / "outside.bin", dir_ / "model" / "link.bin");
  for (const std::string location :
       {"../outside.bin", "data/../../outside.bin", "/etc/passwd", "link.bin"}) {
    SCOPED_TRACE(location);
    const std::string error = FileError(Save(Model(location)));
    EXPECT_NE(error.find("tensor 'big'"), std::string::npos) << error;
    EXPECT_NE(error.find("'" + location + "'"), std::string::npos) << error;
    EXPECT_NE(error.find("relative path inside the model's folder"), std::string::npos) << error;
    fs::remove_all(dir_ / "model" / "data");
  }
}

TEST_F(OnnxExternalData, MissingFilesAndBadRangesNameTheTensor) {
  ModelBuilder b = Model();
  const fs::path path = Save(b);
  fs::remove(dir_ / "model" / "data" / "weights.bin");
  std::string error = FileError(path);
  EXPECT_NE(error.find("tensor 'big' stores its data in '"), std::string::npos) << error;
  EXPECT_NE(error.find((dir_ / "model" / "data" / "weights.bin").string()), std::string::npos)
      << error;
  EXPECT_NE(error.find("does not exist"), std::string::npos) << error;

  auto entry = [&](const std::string& key) -> std::string& {
    for (auto& e : *b.g().mutable_initializer(0)->mutable_external_data()) {
      if (e.key() == key) return *e.mutable_value();
    }
    throw std::logic_error(key);
  };
  b = Model();
  entry("offset") = "99999999999";
  error = FileError(Save(b));
  EXPECT_NE(error.find("tensor 'big' has external data offset 99999999999 beyond the end"),
            std::string::npos)
      << error;
  fs::remove_all(dir_ / "model" / "data");
  b = Model();
  entry("length") = "16";
  error = FileError(Save(b));
  EXPECT_NE(error.find("declares 524288 elements (2097152 bytes) but its external data"),
            std::string::npos)
      << error;
  fs::remove_all(dir_ / "model" / "data");
  b = Model();
  entry("offset") = "-1";
  EXPECT_NE(FileError(Save(b)).find("expected a non-negative whole number"), std::string::npos);
}

}  // namespace
}  // namespace ngraphbench
