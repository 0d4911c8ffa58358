// The shared part of onnx_import_test's files (onnx_fold_test.cc, onnx_import_test.cc,
// onnx_versions_test.cc, onnx_external_data_test.cc): ONNX models built with ONNX's protobuf API,
// so the tests need no Python, and what importing one gives.
#pragma once

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "ngraphbench/core/error.h"
#include "ngraphbench/graph/onnx_io.h"

namespace ngraphbench {
namespace onnx_testing {

using onnx::TensorProto;
namespace fs = std::filesystem;

inline void AttrI(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
inline void AttrF(onnx::NodeProto& n, const std::string& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
inline void AttrS(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}
inline void AttrInts(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
inline TensorProto* AttrTensor(onnx::NodeProto& n, const std::string& name) {
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

inline std::map<std::string, int> OpCounts(const Graph& g) {
  std::map<std::string, int> counts;
  for (const auto& n : g.nodes) counts[n.op_type]++;
  return counts;
}

inline std::string ImportError(const ModelBuilder& b, int64_t batch = 0) {
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
inline Folded FoldedValue(ModelBuilder& b, const std::string& value, const Shape& shape,
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

}  // namespace onnx_testing
}  // namespace ngraphbench
