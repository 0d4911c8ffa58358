#include "ngraphbench/graph/onnx_io.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <filesystem>
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

void SetTensorHeader(onnx::TensorProto* proto, const std::string& name, const Shape& shape,
                     DType dtype) {
  proto->set_name(name);
  for (int64_t d : shape) proto->add_dims(d);
  proto->set_data_type(dtype == DType::kInt64 ? onnx::TensorProto::INT64
                                              : onnx::TensorProto::FLOAT);
}

// A file of the model that could not be written: a StorageError when the storage failed (a full
// disk is the machine's failure, not the model's: a worker then writes no row and the sweep
// stops), else an InputError naming the file (e.g. `export` into a folder that does not exist).
// `error` is errno as the stream's failed open(2) or write(2) left it (cleared before each), 0 when
// unknown.
[[noreturn]] void CannotWrite(const std::string& what, int error) {
  if (IsStorageFailure(error)) ThrowFileError(what, error);
  throw InputError(what + (error != 0 ? std::string(": ") + std::strerror(error) : ""));
}

// Appends float32 tensors of at least `min_bytes` to an external data file, each at an offset
// aligned to kOnnxExternalAlignment, and points their TensorProto there (location relative to
// the model's folder, which is the side file's).
class ExternalDataWriter {
 public:
  ExternalDataWriter(const std::string& path, uint64_t min_bytes)
      : path_(path),
        location_(std::filesystem::path(path).filename().string()),
        min_bytes_(min_bytes) {
    errno = 0;
    out_.open(path, std::ios::binary | std::ios::trunc);
    if (const int error = errno; !out_) {
      CannotWrite("cannot create the ONNX external data file '" + path_ + "'", error);
    }
  }

  // Stores `bytes` of `data` for `proto` when it is large enough; false leaves it to the caller.
  bool Take(onnx::TensorProto* proto, const void* data, size_t bytes) {
    if (proto->data_type() != onnx::TensorProto::FLOAT || bytes < min_bytes_) return false;
    const uint64_t offset =
        (end_ + kOnnxExternalAlignment - 1) / kOnnxExternalAlignment * kOnnxExternalAlignment;
    static const char kZeros[kOnnxExternalAlignment] = {};
    errno = 0;
    out_.write(kZeros, static_cast<std::streamsize>(offset - end_));
    out_.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
    if (const int error = errno; !out_) {
      CannotWrite("cannot write " + std::to_string(bytes) + " bytes of tensor '" +
                      proto->name() + "' to the ONNX external data file '" + path_ + "'",
                  error);
    }
    end_ = offset + bytes;
    proto->set_data_location(onnx::TensorProto::EXTERNAL);
    for (const auto& [key, value] : {std::pair<std::string, std::string>{"location", location_},
                                     {"offset", std::to_string(offset)},
                                     {"length", std::to_string(bytes)}}) {
      auto* entry = proto->add_external_data();
      entry->set_key(key);
      entry->set_value(value);
    }
    return true;
  }

  void Close() {
    errno = 0;
    out_.close();
    if (const int error = errno; !out_) {
      CannotWrite("cannot write the ONNX external data file '" + path_ + "'", error);
    }
  }

 private:
  std::string path_, location_;
  uint64_t min_bytes_;
  std::ofstream out_;
  uint64_t end_ = 0;
};

// Lowers the IR to a GraphProto: standard ops pass through, single-kernel ops are expanded.
// With an ExternalDataWriter, the large weights go to its file instead of the proto.
class Exporter {
 public:
  explicit Exporter(const Graph& graph, ExternalDataWriter* external = nullptr)
      : graph_(graph), external_(external) {}

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
        AddInitializer(init.name, init.tensor.shape, init.dtype,
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
        AddInitializer(Transposed(init.name), {in, out}, DType::kFloat32, t.data(),
                       t.size() * sizeof(float));
      }
    }
    for (const auto& node : graph_.nodes) Lower(node);
    return model;
  }

 private:
  static std::string Transposed(const std::string& name) { return name + "__t"; }

  void AddInitializer(const std::string& name, const Shape& shape, DType dtype, const void* data,
                      size_t bytes) {
    onnx::TensorProto* proto = g_->add_initializer();
    SetTensorHeader(proto, name, shape, dtype);
    if (!external_ || !external_->Take(proto, data, bytes)) proto->set_raw_data(data, bytes);
  }

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
    AddInitializer(name, {}, DType::kFloat32, &value, sizeof(float));
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
  ExternalDataWriter* external_;
  onnx::GraphProto* g_ = nullptr;
};

}  // namespace

uint64_t InitializerBytes(const Graph& graph) {
  uint64_t bytes = 0;
  for (const auto& init : graph.initializers) {
    bytes += init.dtype == DType::kInt64 ? init.int64_data.size() * sizeof(int64_t)
                                         : init.tensor.data.size() * sizeof(float);
  }
  return bytes;
}

namespace {

// The ONNX checker, then strict shape inference (which fills in value_info), on an exported
// model: a failure is a bug of the exporter. `path` is the written model for one whose weights
// are external: the checker resolves their location against the model's folder, and stats the
// side file without reading it; shape inference does not need them (weights are no shapes).
void CheckExported(onnx::ModelProto& model, const std::string& name, const std::string& path) {
  try {
    if (path.empty()) onnx::checker::check_model(model);
    else onnx::checker::check_model(path);
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(true, 1, false));
  } catch (const std::exception& e) {
    throw std::logic_error("exported ONNX model '" + name + "' failed the ONNX checker: " +
                           e.what());
  }
}

std::string Serialize(const onnx::ModelProto& model, const std::string& name) {
  std::string bytes;
  if (!model.SerializeToString(&bytes)) {
    throw std::logic_error("cannot serialize ONNX model '" + name + "' (over 2 GiB?)");
  }
  return bytes;
}

void WriteBytes(const std::string& bytes, const std::string& path) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (const int error = errno; !out) CannotWrite("cannot write ONNX file '" + path + "'", error);
}

}  // namespace

std::string ExportOnnx(const Graph& graph) {
  // Refused before the weights are copied into a proto that protobuf would refuse to serialize.
  if (const uint64_t bytes = InitializerBytes(graph); bytes > kOnnxInlineLimitBytes) {
    throw std::logic_error("ONNX model '" + graph.name + "' holds " + std::to_string(bytes) +
                           " bytes of initializers, more than one serialized ModelProto takes (" +
                           std::to_string(kOnnxInlineLimitBytes) +
                           "); write it with ExportOnnxFile, which stores them as external data");
  }
  onnx::ModelProto model = Exporter(graph).Build();
  CheckExported(model, graph.name, "");
  return Serialize(model, graph.name);
}

std::string OnnxDataPath(const std::string& path) { return path + ".data"; }

std::string ExportOnnxFile(const Graph& graph, const std::string& path,
                           bool force_external_data) {
  if (!force_external_data && !OnnxNeedsExternalData(graph)) {
    WriteBytes(ExportOnnx(graph), path);
    return "";
  }
  const std::string data_path = OnnxDataPath(path);
  onnx::ModelProto model;
  {
    ExternalDataWriter writer(data_path, kOnnxExternalMinBytes);
    model = Exporter(graph, &writer).Build();
    writer.Close();
  }
  // Written once for the checker, which reads the model from its path, and again with the
  // value_info that shape inference added, as ExportOnnx's bytes have it.
  WriteBytes(Serialize(model, graph.name), path);
  CheckExported(model, graph.name, path);
  WriteBytes(Serialize(model, graph.name), path);
  return data_path;
}

}  // namespace ngraphbench
