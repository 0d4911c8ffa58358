#include "ngraphbench/graph/onnx_io.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"

namespace ngraphbench {

namespace {

void SetShape(onnx::ValueInfoProto* info, const std::string& name, const Shape& shape) {
  info->set_name(name);
  auto* tensor_type = info->mutable_type()->mutable_tensor_type();
  tensor_type->set_elem_type(onnx::TensorProto::FLOAT);
  auto* dims = tensor_type->mutable_shape();
  for (int64_t d : shape) dims->add_dim()->set_dim_value(d);
}

void SetAttr(onnx::NodeProto* node, const std::string& key, const AttrValue& value) {
  auto* attr = node->add_attribute();
  attr->set_name(key);
  if (const auto* i = std::get_if<int64_t>(&value)) {
    attr->set_type(onnx::AttributeProto::INT);
    attr->set_i(*i);
  } else if (const auto* f = std::get_if<float>(&value)) {
    attr->set_type(onnx::AttributeProto::FLOAT);
    attr->set_f(*f);
  } else if (const auto* s = std::get_if<std::string>(&value)) {
    attr->set_type(onnx::AttributeProto::STRING);
    attr->set_s(*s);
  } else if (const auto* is = std::get_if<std::vector<int64_t>>(&value)) {
    attr->set_type(onnx::AttributeProto::INTS);
    for (int64_t v : *is) attr->add_ints(v);
  } else if (const auto* fs = std::get_if<std::vector<float>>(&value)) {
    attr->set_type(onnx::AttributeProto::FLOATS);
    for (float v : *fs) attr->add_floats(v);
  }
}

void SetInitializer(onnx::TensorProto* proto, const std::string& name, const Shape& shape,
                    DType dtype, const void* data, size_t bytes) {
  proto->set_name(name);
  for (int64_t d : shape) proto->add_dims(d);
  proto->set_data_type(dtype == DType::kInt64 ? onnx::TensorProto::INT64
                                              : onnx::TensorProto::FLOAT);
  proto->set_raw_data(data, bytes);
}

// Lowers the IR to a GraphProto: standard ops pass through, single-kernel ops are expanded.
class Exporter {
 public:
  explicit Exporter(const Graph& graph) : graph_(graph) {}

  onnx::ModelProto Build() {
    onnx::ModelProto model;
    model.set_ir_version(8);  // the IR version of opset 17
    model.set_producer_name("ngraphbench");
    auto* opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(kOnnxOpset);
    onnx::GraphProto* g = model.mutable_graph();
    g_ = g;
    g->set_name(graph_.name);
    for (const auto& in : graph_.inputs) SetShape(g->add_input(), in.name, in.shape);
    for (const auto& out : graph_.outputs) SetShape(g->add_output(), out.name, out.shape);

    std::set<std::string> linear_weights, other_uses;
    for (const auto& node : graph_.nodes) {
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        bool as_matmul_weight = node.op_type == "Linear" && i == 1 &&
                                graph_.ShapeOf(node.inputs[0]).size() != 2;
        (as_matmul_weight ? linear_weights : other_uses).insert(node.inputs[i]);
      }
    }
    for (const auto& init : graph_.initializers) {
      const bool is_int = init.dtype == DType::kInt64;
      if (!linear_weights.count(init.name) || other_uses.count(init.name)) {
        SetInitializer(g->add_initializer(), init.name, init.tensor.shape, init.dtype,
                       is_int ? static_cast<const void*>(init.int64_data.data())
                              : static_cast<const void*>(init.tensor.data.data()),
                       is_int ? init.int64_data.size() * sizeof(int64_t)
                              : init.tensor.data.size() * sizeof(float));
      }
      if (linear_weights.count(init.name)) {
        // MatMul wants [in, out]: store the weight transposed rather than adding a Transpose op.
        const int64_t out = init.tensor.shape[0], in = init.tensor.shape[1];
        std::vector<float> t(init.tensor.data.size());
        for (int64_t o = 0; o < out; ++o) {
          for (int64_t i = 0; i < in; ++i) t[i * out + o] = init.tensor.data[o * in + i];
        }
        SetInitializer(g->add_initializer(), Transposed(init.name), {in, out}, DType::kFloat32,
                       t.data(), t.size() * sizeof(float));
      }
    }
    for (const auto& node : graph_.nodes) Lower(node);
    return model;
  }

 private:
  static std::string Transposed(const std::string& name) { return name + "__t"; }

  std::string Emit(const std::string& op, const std::vector<std::string>& inputs,
                   const std::string& output, std::map<std::string, AttrValue> attrs = {}) {
    auto* n = g_->add_node();
    n->set_op_type(op);
    n->set_name(output + "__" + op);
    for (const auto& in : inputs) n->add_input(in);
    n->add_output(output);
    for (const auto& [k, v] : attrs) SetAttr(n, k, v);
    return output;
  }

  std::string Scalar(const std::string& name, float value) {
    SetInitializer(g_->add_initializer(), name, {}, DType::kFloat32, &value, sizeof(float));
    return name;
  }

  void Lower(const Node& node) {
    const std::string& y = node.outputs[0];
    if (node.op_type == "Linear") {
      const bool has_bias = node.inputs.size() > 2 && !node.inputs[2].empty();
      if (graph_.ShapeOf(node.inputs[0]).size() == 2) {
        std::vector<std::string> in = {node.inputs[0], node.inputs[1]};
        if (has_bias) in.push_back(node.inputs[2]);
        Emit("Gemm", in, y, {{"transB", int64_t{1}}});
      } else if (has_bias) {
        Emit("Add", {Emit("MatMul", {node.inputs[0], Transposed(node.inputs[1])}, y + "__mm"),
                     node.inputs[2]},
             y);
      } else {
        Emit("MatMul", {node.inputs[0], Transposed(node.inputs[1])}, y);
      }
    } else if (node.op_type == "ScaledDotProductAttention") {
      const Shape& q = graph_.ShapeOf(node.inputs[0]);
      const int64_t rank = static_cast<int64_t>(q.size());
      std::vector<int64_t> perm;
      for (int64_t i = 0; i < rank; ++i) perm.push_back(i);
      std::swap(perm[rank - 1], perm[rank - 2]);
      float scale = node.FloatAttr("scale", 1.0f / std::sqrt(static_cast<float>(q.back())));
      std::string kt = Emit("Transpose", {node.inputs[1]}, y + "__kt", {{"perm", perm}});
      std::string s = Emit("MatMul", {node.inputs[0], kt}, y + "__qk");
      s = Emit("Mul", {s, Scalar(y + "__scale", scale)}, y + "__scaled");
      if (node.inputs.size() > 3 && !node.inputs[3].empty()) {
        s = Emit("Add", {s, node.inputs[3]}, y + "__biased");
      }
      std::string p = Emit("Softmax", {s}, y + "__p", {{"axis", int64_t{-1}}});
      Emit("MatMul", {p, node.inputs[2]}, y);
    } else if (node.op_type == "Gelu") {
      const std::string& x = node.inputs[0];
      std::string e = Emit("Erf", {Emit("Div", {x, Scalar(y + "__sqrt2", std::sqrt(2.0f))},
                                        y + "__div")},
                           y + "__erf");
      std::string h = Emit("Add", {e, Scalar(y + "__one", 1.0f)}, y + "__1perf");
      Emit("Mul", {Emit("Mul", {x, h}, y + "__xh"), Scalar(y + "__half", 0.5f)}, y);
    } else {
      auto* n = g_->add_node();
      n->set_op_type(node.op_type);
      n->set_name(node.name);
      for (const auto& in : node.inputs) n->add_input(in);
      for (const auto& out : node.outputs) n->add_output(out);
      for (const auto& [k, v] : node.attrs) SetAttr(n, k, v);
    }
  }

  const Graph& graph_;
  onnx::GraphProto* g_ = nullptr;
};

Shape StaticShape(const onnx::TypeProto& type, const std::string& value,
                  const std::string& source) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) {
    throw InputError("ONNX model '" + source + "': value '" + value +
                     "' has no inferable tensor shape; ngraphbench needs static shapes");
  }
  Shape shape;
  for (const auto& dim : type.tensor_type().shape().dim()) {
    if (!dim.has_dim_value()) {
      throw InputError("ONNX model '" + source + "': value '" + value +
                       "' has a dynamic dimension '" + dim.dim_param() +
                       "'; only the batch dimension of inputs may be dynamic");
    }
    shape.push_back(dim.dim_value());
  }
  return shape;
}

// The most elements one initializer may declare (4 GiB of float32): a file that declares more is
// refused before anything is allocated.
constexpr uint64_t kMaxInitializerElements = uint64_t{1} << 30;

// The number of elements `t` declares, checked against the values the file actually holds
// before anything is allocated: a tiny file may declare dims of 2^62 or -5.
size_t CheckedElementCount(const onnx::TensorProto& t, const std::string& source) {
  auto fail = [&](const std::string& what) {
    throw InputError("ONNX model '" + source + "': initializer '" + t.name() + "' " + what);
  };
  uint64_t n = 1;
  for (int64_t d : t.dims()) {
    if (d < 0) fail("has a negative dimension " + std::to_string(d));
    if (d > 0 && n > kMaxInitializerElements / static_cast<uint64_t>(d)) {
      fail("declares more than " + std::to_string(kMaxInitializerElements) + " elements");
    }
    n *= static_cast<uint64_t>(d);
  }
  uint64_t held = 0;
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      held = t.has_raw_data() ? t.raw_data().size() / sizeof(float) : t.float_data_size();
      break;
    case onnx::TensorProto::INT64:
      held = t.has_raw_data() ? t.raw_data().size() / sizeof(int64_t) : t.int64_data_size();
      break;
    case onnx::TensorProto::INT32:
      held = t.has_raw_data() ? t.raw_data().size() / sizeof(int32_t) : t.int32_data_size();
      break;
    default:
      return static_cast<size_t>(n);  // refused by type below
  }
  if (held != n) {
    fail("declares " + std::to_string(n) + " elements but the file holds " +
         std::to_string(held));
  }
  return static_cast<size_t>(n);
}

// Attributes that libonnx's shape inference divides by or indexes with, checked first: a Conv
// with a stride of 0 would otherwise end the process with SIGFPE.
void CheckNodeAttributes(const onnx::GraphProto& g, const std::string& source) {
  if (g.output_size() == 0) {
    throw InputError("ONNX model '" + source + "' has no graph outputs; a model must produce one");
  }
  static const std::set<std::string> kWindowed = {"Conv", "ConvTranspose", "MaxPool",
                                                  "AveragePool", "LpPool"};
  for (const auto& node : g.node()) {
    if (!kWindowed.count(node.op_type())) continue;
    const std::string where = "ONNX model '" + source + "': node '" + node.name() + "' (" +
                              node.op_type() + ") ";
    for (const auto& a : node.attribute()) {
      const std::string& key = a.name();
      if (key == "strides" || key == "dilations" || key == "kernel_shape") {
        for (int64_t v : a.ints()) {
          if (v < 1) throw InputError(where + "has " + key + " " + std::to_string(v) + "; each must be >= 1");
        }
      } else if (key == "pads") {
        for (int64_t v : a.ints()) {
          if (v < 0) throw InputError(where + "has pads " + std::to_string(v) + "; each must be >= 0");
        }
      } else if (key == "group" && a.i() < 1) {
        throw InputError(where + "has group " + std::to_string(a.i()) + "; it must be >= 1");
      }
    }
  }
}

// A Conv's weight must agree with its input: [M, C/group, k...] for an input [N, C, ...], with M
// a multiple of group. libonnx's shape inference does not check this, and a kernel reading C
// channels of a weight laid out for fewer reads past its end.
void CheckChannels(const onnx::NodeProto& n, const std::map<std::string, Shape>& shapes,
                   const std::string& source) {
  if (n.op_type() != "Conv" || n.input_size() < 2) return;
  const auto x = shapes.find(n.input(0));
  const auto w = shapes.find(n.input(1));
  if (x == shapes.end() || w == shapes.end()) return;
  const Shape& xs = x->second;
  const Shape& ws = w->second;
  int64_t group = 1;
  for (const auto& a : n.attribute()) {
    if (a.name() == "group") group = a.i();
  }
  const std::string where = "ONNX model '" + source + "': node '" + n.name() + "' (Conv) ";
  if (xs.size() < 3 || ws.size() != xs.size()) {
    throw InputError(where + "has an input of rank " + std::to_string(xs.size()) +
                     " and a weight of rank " + std::to_string(ws.size()) +
                     "; expected equal ranks of at least 3 ([N, C, spatial...])");
  }
  if (ws[1] * group != xs[1] || ws[0] % group != 0) {
    throw InputError(where + "has " + std::to_string(xs[1]) + " input channels but a weight of " +
                     ShapeToString(ws) + " with group " + std::to_string(group) +
                     "; expected a weight [M, C/group, k...] with M a multiple of group");
  }
  if (n.input_size() > 2 && !n.input(2).empty()) {
    const auto b = shapes.find(n.input(2));
    if (b != shapes.end() && (b->second.size() != 1 || b->second[0] != ws[0])) {
      throw InputError(where + "has a bias of " + ShapeToString(b->second) + "; expected [" +
                       std::to_string(ws[0]) + "], one value per output channel");
    }
  }
}

Initializer ToInitializer(const onnx::TensorProto& t, const std::string& source) {
  Initializer init;
  init.name = t.name();
  if (t.has_data_location() && t.data_location() == onnx::TensorProto::EXTERNAL) {
    throw InputError("ONNX model '" + source + "': initializer '" + t.name() +
                     "' uses external data; save the model with its weights inside the file");
  }
  const size_t n = CheckedElementCount(t, source);
  for (int64_t d : t.dims()) init.tensor.shape.push_back(d);
  const std::string& raw = t.raw_data();
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      init.tensor.data.resize(n);
      if (t.has_raw_data()) {
        if (raw.size() != n * sizeof(float)) break;
        std::memcpy(init.tensor.data.data(), raw.data(), raw.size());
      } else {
        if (static_cast<size_t>(t.float_data_size()) != n) break;
        std::copy(t.float_data().begin(), t.float_data().end(), init.tensor.data.begin());
      }
      return init;
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::INT32:
      init.dtype = DType::kInt64;
      init.is_parameter = false;
      init.int64_data.resize(n);
      if (t.has_raw_data()) {
        if (t.data_type() == onnx::TensorProto::INT64) {
          if (raw.size() != n * sizeof(int64_t)) break;
          std::memcpy(init.int64_data.data(), raw.data(), raw.size());
        } else {
          if (raw.size() != n * sizeof(int32_t)) break;
          std::vector<int32_t> tmp(n);
          std::memcpy(tmp.data(), raw.data(), raw.size());
          std::copy(tmp.begin(), tmp.end(), init.int64_data.begin());
        }
      } else if (t.data_type() == onnx::TensorProto::INT64) {
        if (static_cast<size_t>(t.int64_data_size()) != n) break;
        std::copy(t.int64_data().begin(), t.int64_data().end(), init.int64_data.begin());
      } else {
        if (static_cast<size_t>(t.int32_data_size()) != n) break;
        std::copy(t.int32_data().begin(), t.int32_data().end(), init.int64_data.begin());
      }
      return init;
    default:
      throw InputError("ONNX model '" + source + "': initializer '" + t.name() +
                       "' has data type " + std::to_string(t.data_type()) +
                       "; ngraphbench imports float32, int64 and int32 constants");
  }
  throw InputError("ONNX model '" + source + "': initializer '" + t.name() +
                   "' holds the wrong number of elements for its shape " +
                   ShapeToString(init.tensor.shape));
}

}  // namespace

std::string ExportOnnx(const Graph& graph) {
  onnx::ModelProto model = Exporter(graph).Build();
  try {
    onnx::checker::check_model(model);
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(true, 1, false));
  } catch (const std::exception& e) {
    throw std::logic_error("exported ONNX model '" + graph.name +
                           "' failed the ONNX checker: " + e.what());
  }
  std::string bytes;
  if (!model.SerializeToString(&bytes)) {
    throw std::logic_error("cannot serialize ONNX model '" + graph.name + "' (over 2 GiB?)");
  }
  return bytes;
}

void ExportOnnxFile(const Graph& graph, const std::string& path) {
  std::string bytes = ExportOnnx(graph);
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw InputError("cannot write ONNX file '" + path + "'");
}

Graph ImportOnnx(const std::string& bytes, const std::string& source, int64_t batch_size) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) {
    throw InputError("'" + source + "' is not an ONNX model: its bytes do not parse as a "
                     "ModelProto (expected a file written by an ONNX exporter)");
  }
  // Before libonnx looks at it: sizes against the bytes present, and the attributes its checks
  // divide by.
  CheckNodeAttributes(model.graph(), source);
  for (const auto& t : model.graph().initializer()) CheckedElementCount(t, source);
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    throw InputError("ONNX model '" + source + "' fails the ONNX checker: " + e.what());
  }
  onnx::GraphProto* g = model.mutable_graph();
  std::set<std::string> init_names;
  for (const auto& t : g->initializer()) init_names.insert(t.name());
  if (batch_size > 0) {
    for (auto& in : *g->mutable_input()) {
      if (init_names.count(in.name())) continue;
      auto* shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
      if (shape->dim_size() == 0) continue;
      auto* dim = shape->mutable_dim(0);
      if (dim->has_dim_value() && dim->dim_value() != batch_size) {
        throw InputError("ONNX model '" + source + "': input '" + in.name() +
                         "' has a fixed batch size of " + std::to_string(dim->dim_value()) +
                         ", so it cannot run at batch size " + std::to_string(batch_size) +
                         "; export it with a dynamic batch axis, or run it at batch size " +
                         std::to_string(dim->dim_value()));
      }
      dim->set_dim_value(batch_size);
    }
    g->clear_value_info();
    for (auto& out : *g->mutable_output()) {
      auto* shape = out.mutable_type()->mutable_tensor_type()->mutable_shape();
      if (shape->dim_size() > 0) shape->mutable_dim(0)->clear_dim_value();
    }
  }
  try {
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(true, 1, true));
  } catch (const std::exception& e) {
    throw InputError("ONNX model '" + source + "' fails shape inference: " + e.what());
  }

  Graph graph;
  graph.name = g->name().empty() ? source : g->name();
  for (const auto& t : g->initializer()) {
    graph.initializers.push_back(ToInitializer(t, source));
    graph.value_shapes[t.name()] = graph.initializers.back().tensor.shape;
  }
  auto record = [&](const onnx::ValueInfoProto& info) {
    graph.value_shapes[info.name()] = StaticShape(info.type(), info.name(), source);
  };
  for (const auto& in : g->input()) {
    if (init_names.count(in.name())) continue;
    if (in.type().tensor_type().elem_type() != onnx::TensorProto::FLOAT) {
      throw InputError("ONNX model '" + source + "': input '" + in.name() +
                       "' is not float32; ngraphbench feeds float32 inputs");
    }
    record(in);
    graph.inputs.push_back({in.name(), graph.value_shapes[in.name()]});
  }
  for (const auto& info : g->value_info()) record(info);
  for (const auto& out : g->output()) {
    record(out);
    graph.outputs.push_back({out.name(), graph.value_shapes[out.name()]});
  }
  for (const auto& n : g->node()) {
    if (!n.domain().empty() && n.domain() != "ai.onnx") {
      throw InputError("ONNX model '" + source + "': node '" + n.name() + "' uses operator " +
                       n.domain() + "::" + n.op_type() + "; only the default ONNX domain is "
                       "supported");
    }
    if (n.op_type() == "Constant") {
      const auto& attr = n.attribute(0);
      if (attr.name() != "value" || !attr.has_t()) {
        throw InputError("ONNX model '" + source + "': Constant node '" + n.name() +
                         "' uses attribute '" + attr.name() + "'; only 'value' is supported");
      }
      onnx::TensorProto t = attr.t();
      t.set_name(n.output(0));
      graph.initializers.push_back(ToInitializer(t, source));
      graph.initializers.back().is_parameter = false;
      graph.value_shapes[n.output(0)] = graph.initializers.back().tensor.shape;
      continue;
    }
    Node node;
    node.op_type = n.op_type();
    node.name = n.name();
    node.inputs.assign(n.input().begin(), n.input().end());
    node.outputs.assign(n.output().begin(), n.output().end());
    for (const auto& a : n.attribute()) {
      switch (a.type()) {
        case onnx::AttributeProto::INT: node.attrs[a.name()] = a.i(); break;
        case onnx::AttributeProto::FLOAT: node.attrs[a.name()] = a.f(); break;
        case onnx::AttributeProto::STRING: node.attrs[a.name()] = a.s(); break;
        case onnx::AttributeProto::INTS:
          node.attrs[a.name()] = std::vector<int64_t>(a.ints().begin(), a.ints().end());
          break;
        case onnx::AttributeProto::FLOATS:
          node.attrs[a.name()] = std::vector<float>(a.floats().begin(), a.floats().end());
          break;
        default:
          throw InputError("ONNX model '" + source + "': node '" + n.name() + "' (" +
                           n.op_type() + ") has attribute '" + a.name() +
                           "' of a kind ngraphbench does not import (graphs, tensors)");
      }
    }
    CheckChannels(n, graph.value_shapes, source);
    for (const auto& out : node.outputs) {
      if (!graph.value_shapes.count(out)) {
        throw InputError("ONNX model '" + source + "': shape inference gave no shape for '" +
                         out + "' (" + n.op_type() + "); ngraphbench needs static shapes");
      }
    }
    graph.nodes.push_back(std::move(node));
  }
  return graph;
}

namespace {

std::string ReadModelFile(const std::string& path) {
  return ReadFileCapped(path, kMaxModelBytes, "ONNX file");
}

}  // namespace

Graph ImportOnnxFile(const std::string& path, int64_t batch_size) {
  return ImportOnnx(ReadModelFile(path), path, batch_size);
}

int64_t OnnxFixedBatchSize(const std::string& path) {
  onnx::ModelProto model;
  if (!model.ParseFromString(ReadModelFile(path))) {
    throw InputError("'" + path + "' is not an ONNX model: its bytes do not parse as a "
                     "ModelProto (expected a file written by an ONNX exporter)");
  }
  std::set<std::string> init_names;
  for (const auto& t : model.graph().initializer()) init_names.insert(t.name());
  for (const auto& in : model.graph().input()) {
    if (init_names.count(in.name())) continue;
    const auto& shape = in.type().tensor_type().shape();
    if (shape.dim_size() > 0 && shape.dim(0).has_dim_value()) return shape.dim(0).dim_value();
    return 0;
  }
  throw InputError("ONNX model '" + path + "' has no inputs");
}

}  // namespace ngraphbench
