#include "ngraphbench/graph/onnx_io.h"

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <map>
#include <set>
#include <vector>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/graph/onnx_compat.h"
#include "ngraphbench/graph/onnx_fold.h"
#include "ngraphbench/graph/onnx_import.h"

namespace ngraphbench {

namespace {

// The import's parts (onnx_import.h).
using onnx_import::CheckedElementCount;
using onnx_import::CheckModel;
using onnx_import::CheckNodeAttributes;
using onnx_import::CheckWindowed;
using onnx_import::ExternalRef;
using onnx_import::LoadExternalData;
using onnx_import::MaxTensorBytes;
using onnx_import::ToInitializer;

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
                       "' that import-time folding could not resolve (it depends on data "
                       "computed at run time, or on an operator the folder does not evaluate); "
                       "only the batch dimension of inputs may be dynamic");
    }
    shape.push_back(dim.dim_value());
  }
  return shape;
}
// The small integer types (bool, int8, uint8, int16, uint16, uint32) the IR has no dtype for:
// a constant of such a type that a kept node reads reaches the IR as an int64 initializer and a
// Cast back to its type, so that the node sees exactly the model's tensor.
bool NarrowIntegerType(int32_t type) {
  return type == onnx::TensorProto::BOOL || type == onnx::TensorProto::INT8 ||
         type == onnx::TensorProto::UINT8 || type == onnx::TensorProto::INT16 ||
         type == onnx::TensorProto::UINT16 || type == onnx::TensorProto::UINT32;
}
InputError NotOnnx(const std::string& source) {
  return InputError("'" + source + "' is not an ONNX model: its bytes do not parse as a "
                    "ModelProto (expected a file written by an ONNX exporter)");
}

// Frees the values a TensorProto holds (clear() alone keeps the capacity), once they have been
// copied into the IR: the proto and the IR never both hold all of a model's weights.
void ReleaseTensorData(onnx::TensorProto& t) {
  std::string().swap(*t.mutable_raw_data());
  google::protobuf::RepeatedField<float>().Swap(t.mutable_float_data());
  google::protobuf::RepeatedField<int64_t>().Swap(t.mutable_int64_data());
  google::protobuf::RepeatedField<int32_t>().Swap(t.mutable_int32_data());
}

// ImportOnnx on a parsed model, which it changes (folding, normalization) and empties of its
// tensor data as the IR takes it over.
Graph ImportParsed(onnx::ModelProto& model, const std::string& source, int64_t batch_size,
                   const std::string& model_dir) {
  onnx::GraphProto* g = model.mutable_graph();
  // Before libonnx looks at it: sizes against the bytes present, and the attributes its checks
  // divide by.
  CheckNodeAttributes(*g, source);
  FoldContext fold;
  fold.source = source;
  // The file's float32 initializers are its weights: counted as parameters, never folded into
  // other constants (onnx_fold.h). Constant nodes are not (they are an exporter's constants).
  for (const auto& t : g->initializer()) {
    if (t.data_type() == onnx::TensorProto::FLOAT) fold.weights.insert(t.name());
  }
  ConstantNodesToInitializers(*g);
  const std::map<std::string, ExternalRef> external = LoadExternalData(*g, model_dir, source);
  for (const auto& t : g->initializer()) {
    if (external.count(t.name())) fold.opaque.insert(t.name());
    else CheckedElementCount(t, source);
  }
  // Constants only (no shapes yet): the axes that opset-18 reductions take as inputs become
  // constants before NormalizeOnnxVersions turns them into attributes.
  FoldConstantsOnce(*g, {}, fold);
  NormalizeOnnxVersions(model, source);
  CheckModel(model, source);
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
      if (!out.type().tensor_type().has_shape()) continue;  // unknown rank: inference fills it
      auto* shape = out.mutable_type()->mutable_tensor_type()->mutable_shape();
      if (shape->dim_size() > 0) shape->mutable_dim(0)->clear_dim_value();
    }
  }
  // Shape inference and folding until every shape is static, then dead-code removal.
  ResolveStaticShapes(model, fold);
  init_names.clear();
  for (const auto& t : g->initializer()) init_names.insert(t.name());

  Graph graph;
  graph.name = g->name().empty() ? source : g->name();
  std::vector<Node> casts;  // Cast nodes restoring narrow integer constants (NarrowIntegerType)
  std::set<std::string> used_names = init_names;
  for (const auto& n : g->node()) used_names.insert(n.output().begin(), n.output().end());
  for (auto& t : *g->mutable_initializer()) {
    auto ext = external.find(t.name());
    if (ext == external.end() && NarrowIntegerType(t.data_type())) {
      std::vector<int64_t> values;
      if (!ReadIntegers(t, MaxTensorBytes() / 8, &values)) {
        throw InputError("ONNX model '" + source + "': initializer '" + t.name() +
                         "' holds the wrong number of elements for its shape");
      }
      Initializer init;
      init.name = t.name() + "__int64";
      while (used_names.count(init.name)) init.name += "_";
      used_names.insert(init.name);
      init.dtype = DType::kInt64;
      init.is_parameter = false;
      for (int64_t d : t.dims()) init.tensor.shape.push_back(d);
      init.int64_data = std::move(values);
      ReleaseTensorData(t);
      Node cast;
      cast.op_type = "Cast";
      cast.name = t.name() + "__cast";
      cast.inputs = {init.name};
      cast.outputs = {t.name()};
      cast.attrs["to"] = static_cast<int64_t>(t.data_type());
      casts.push_back(std::move(cast));
      graph.value_shapes[init.name] = init.tensor.shape;
      graph.value_shapes[t.name()] = init.tensor.shape;
      graph.initializers.push_back(std::move(init));
      continue;
    }
    graph.initializers.push_back(
        ToInitializer(t, source, ext == external.end() ? nullptr : &ext->second));
    ReleaseTensorData(t);
    Initializer& init = graph.initializers.back();
    if (init.dtype == DType::kFloat32) init.is_parameter = fold.weights.count(t.name()) > 0;
    graph.value_shapes[t.name()] = init.tensor.shape;
  }
  graph.nodes = std::move(casts);
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
      // Constant nodes with a tensor or number became initializers (ConstantNodesToInitializers).
      const std::string attr = n.attribute_size() ? n.attribute(0).name() : "";
      throw InputError("ONNX model '" + source + "': Constant node '" + n.name() +
                       "' uses attribute '" + attr + "'; ngraphbench imports numeric constants "
                       "('value', 'value_float(s)', 'value_int(s)')");
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
    CheckWindowed(n, graph.value_shapes, source);
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

// Parsed straight from the file, without a copy of its bytes (protobuf stops at 2 GiB, the most
// an .onnx file can hold).
onnx::ModelProto ParseModelFile(const std::string& path) {
  const UniqueFd fd = OpenFileCapped(path, kMaxModelBytes, "ONNX file");
  onnx::ModelProto model;
  if (!model.ParseFromFileDescriptor(fd.get())) throw NotOnnx(path);
  return model;
}

}  // namespace

Graph ImportOnnx(const std::string& bytes, const std::string& source, int64_t batch_size,
                 const std::string& model_dir) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) throw NotOnnx(source);
  return ImportParsed(model, source, batch_size, model_dir);
}

Graph ImportOnnxFile(const std::string& path, int64_t batch_size) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  onnx::ModelProto model = ParseModelFile(path);
  return ImportParsed(model, path, batch_size, dir.empty() ? "." : dir);
}

int64_t OnnxFixedBatchSize(const std::string& path) {
  const onnx::ModelProto model = ParseModelFile(path);
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
