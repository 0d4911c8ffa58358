#include "ngraphbench/graph/onnx_fold.h"

#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ngraphbench/core/error.h"
#include "ngraphbench/graph/onnx_eval.h"

namespace ngraphbench {

namespace {

using onnx::TensorProto;

bool HasSubgraph(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute()) {
    if (a.type() == onnx::AttributeProto::GRAPH || a.type() == onnx::AttributeProto::GRAPHS) {
      return true;
    }
  }
  return false;
}

// Names a subgraph reads from its enclosing scopes (all names it uses, a superset, which is
// enough to keep them alive and unrenamed).
void CollectSubgraphNames(const onnx::GraphProto& g, std::unordered_set<std::string>& names) {
  for (const auto& n : g.node()) {
    for (const auto& in : n.input()) names.insert(in);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) CollectSubgraphNames(a.g(), names);
      for (const auto& sub : a.graphs()) CollectSubgraphNames(sub, names);
    }
  }
  for (const auto& out : g.output()) names.insert(out.name());
}

std::unordered_set<std::string> OuterNamesUsedBySubgraphs(const onnx::GraphProto& g) {
  std::unordered_set<std::string> names;
  for (const auto& n : g.node()) {
    for (const auto& a : n.attribute()) {
      if (a.has_g()) CollectSubgraphNames(a.g(), names);
      for (const auto& sub : a.graphs()) CollectSubgraphNames(sub, names);
    }
  }
  return names;
}

bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

// The static output types libonnx's own inference function for `n` gives, from the static types
// of its inputs and the data of those that are constants; nothing for an output it leaves
// dynamic, and nothing at all for a node it cannot infer here (an input without a static shape,
// no inference function at `opset`, an inference error: the next full inference reports those).
std::vector<std::pair<std::string, ValueType>> InferNodeStatically(
    onnx::NodeProto& n, int opset, const std::function<const ValueType*(const std::string&)>& type,
    const std::function<const TensorProto*(const std::string&)>& data) {
  const auto* schema = onnx::OpSchemaRegistry::Schema(n.op_type(), opset, "");
  if (!schema || !schema->has_type_and_shape_inference_function()) return {};
  std::unordered_map<std::string, onnx::TypeProto> storage;
  std::unordered_map<std::string, onnx::TypeProto*> types;
  std::unordered_map<std::string, const TensorProto*> values;
  for (const auto& name : n.input()) {
    if (name.empty() || types.count(name)) continue;
    const ValueType* v = type(name);
    if (!v || !v->Static() || v->elem_type == 0) return {};
    onnx::TypeProto& t = storage[name];
    t.mutable_tensor_type()->set_elem_type(v->elem_type);
    auto* shape = t.mutable_tensor_type()->mutable_shape();
    for (int64_t d : v->dims) shape->add_dim()->set_dim_value(d);
    types[name] = &t;
    if (const TensorProto* d = data(name)) values[name] = d;
  }
  onnx::shape_inference::InferenceContextImpl ictx(n, types, values, {});
  try {
    schema->GetTypeAndShapeInferenceFunction()(ictx);
  } catch (const std::exception&) {
    return {};
  }
  std::vector<std::pair<std::string, ValueType>> out;
  for (int k = 0; k < n.output_size(); ++k) {
    const onnx::TypeProto* t = ictx.getOutputType(static_cast<size_t>(k));
    if (n.output(k).empty() || !t || !t->has_tensor_type()) continue;
    const auto& tt = t->tensor_type();
    if (tt.elem_type() == 0 || !tt.has_shape()) continue;
    ValueType v;
    v.elem_type = tt.elem_type();
    v.has_shape = true;
    for (const auto& d : tt.shape().dim()) v.dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    if (v.Static()) out.emplace_back(n.output(k), std::move(v));
  }
  return out;
}

}  // namespace

bool ReadIntegers(const onnx::TensorProto& t, uint64_t max, std::vector<int64_t>* values) {
  if (IsFloatType(t.data_type())) return false;
  auto c = FromProto(t, max);
  if (!c) return false;
  *values = std::move(c->i);
  return true;
}

bool ValueType::Static() const {
  if (!has_shape) return false;
  for (int64_t d : dims) {
    if (d < 0) return false;
  }
  return true;
}

TypeMap CollectTypes(const onnx::GraphProto& g) {
  TypeMap types;
  auto record = [&](const onnx::ValueInfoProto& info) {
    if (!info.type().has_tensor_type()) return;
    const auto& tt = info.type().tensor_type();
    ValueType v;
    v.elem_type = tt.elem_type();
    v.has_shape = tt.has_shape();
    for (const auto& d : tt.shape().dim()) v.dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    types[info.name()] = std::move(v);
  };
  for (const auto& in : g.input()) record(in);
  for (const auto& info : g.value_info()) record(info);
  for (const auto& out : g.output()) record(out);
  for (const auto& t : g.initializer()) {
    ValueType v;
    v.elem_type = t.data_type();
    v.has_shape = true;
    v.dims.assign(t.dims().begin(), t.dims().end());
    types[t.name()] = std::move(v);
  }
  return types;
}

void ConstantNodesToInitializers(onnx::GraphProto& g) {
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (auto& n : *g.mutable_node()) {
    if (n.op_type() != "Constant" || !IsDefaultDomain(n.domain()) || n.output_size() != 1 ||
        n.attribute_size() != 1) {
      *kept.Add() = std::move(n);
      continue;
    }
    const auto& a = n.attribute(0);
    TensorProto t;
    if (a.name() == "value" && a.has_t()) {
      t = a.t();
    } else if (a.name() == "value_float" && a.type() == onnx::AttributeProto::FLOAT) {
      t.set_data_type(TensorProto::FLOAT);
      t.add_float_data(a.f());
    } else if (a.name() == "value_floats" && a.type() == onnx::AttributeProto::FLOATS) {
      t.set_data_type(TensorProto::FLOAT);
      t.add_dims(a.floats_size());
      *t.mutable_float_data() = a.floats();
    } else if (a.name() == "value_int" && a.type() == onnx::AttributeProto::INT) {
      t.set_data_type(TensorProto::INT64);
      t.add_int64_data(a.i());
    } else if (a.name() == "value_ints" && a.type() == onnx::AttributeProto::INTS) {
      t.set_data_type(TensorProto::INT64);
      t.add_dims(a.ints_size());
      *t.mutable_int64_data() = a.ints();
    } else {
      // value_string(s), sparse_value: the IR builder refuses them, naming the node.
      *kept.Add() = std::move(n);
      continue;
    }
    t.set_name(n.output(0));
    *g.add_initializer() = std::move(t);
  }
  g.mutable_node()->Swap(&kept);
}

int FoldConstantsOnce(onnx::GraphProto& g, const TypeMap& types, FoldContext& ctx) {
  std::unordered_map<std::string, int> init_index;
  for (int k = 0; k < g.initializer_size(); ++k) init_index[g.initializer(k).name()] = k;
  std::unordered_set<std::string> pinned = OuterNamesUsedBySubgraphs(g);
  for (const auto& out : g.output()) pinned.insert(out.name());

  std::unordered_map<std::string, ConstTensor> cache;
  std::unordered_set<std::string> not_constant;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  // Weights are never folded (onnx_fold.h), so they are not parsed either: only their types are
  // read (Shape, Size, CastLike), from `types`.
  auto constant = [&](const std::string& name) -> const ConstTensor* {
    if (auto it = cache.find(name); it != cache.end()) return &it->second;
    if (not_constant.count(name) || ctx.opaque.count(name) || ctx.weights.count(name)) {
      return nullptr;
    }
    auto it = init_index.find(name);
    std::optional<ConstTensor> c;
    if (it != init_index.end()) c = FromProto(g.initializer(it->second), ctx.limits.max_elements);
    if (!c) {
      not_constant.insert(name);
      return nullptr;
    }
    return &cache.emplace(name, std::move(*c)).first->second;
  };

  // Static types found during this pass, over `types` (which the last full inference gave): the
  // outputs of nodes folded, and those of nodes kept, inferred one node at a time. Without them
  // a Reshape whose shape folds in this pass would get its static shape only from the next full
  // inference, so the Shape read downstream of it would fold one pass later: a pass per link of
  // a chain of reshapes (a block of a windowed-attention model holds several), which made the
  // number of passes grow with the model's depth.
  std::unordered_map<std::string, ValueType> found;
  auto type_of = [&](const std::string& name) -> const ValueType* {
    if (auto it = found.find(name); it != found.end()) return &it->second;
    if (auto it = types.find(name); it != types.end()) return &it->second;
    return nullptr;
  };
  auto data_of = [&](const std::string& name) -> const TensorProto* {
    auto it = init_index.find(name);
    if (it == init_index.end() || ctx.opaque.count(name)) return nullptr;
    return &g.initializer(it->second);
  };
  auto keep = [&](onnx::NodeProto& n, bool infer) {
    if (infer && ctx.opset > 0) {
      bool known = true;
      for (const auto& out : n.output()) {
        const ValueType* v = type_of(out);
        known = known && v && v->Static();
      }
      if (!known) {
        for (auto& [name, v] : InferNodeStatically(n, ctx.opset, type_of, data_of)) {
          found[name] = std::move(v);
        }
      }
    }
    *kept.Add() = std::move(n);
  };

  std::unordered_map<std::string, std::string> alias;
  int folded = 0;
  for (auto& n : *g.mutable_node()) {
    for (auto& in : *n.mutable_input()) {
      if (auto it = alias.find(in); it != alias.end()) in = it->second;
    }
    bool pin = false;
    for (const auto& out : n.output()) pin = pin || pinned.count(out) > 0;
    if (pin || !IsDefaultDomain(n.domain()) || HasSubgraph(n) || n.output_size() == 0) {
      // A graph output may also feed later nodes: infer it too (but not a custom domain's op
      // or a subgraph, which need the full inference's context).
      keep(n, IsDefaultDomain(n.domain()) && !HasSubgraph(n));
      continue;
    }
    const std::string& op = n.op_type();
    // Identity of an initializer (how exporters share one weight under two names): the second
    // name becomes the first, with no copy, so that the weight is counted and stored once.
    if (op == "Identity" && n.input_size() == 1 && n.output_size() == 1 &&
        init_index.count(n.input(0))) {
      alias[n.output(0)] = n.input(0);
      ++folded;
      continue;
    }
    const bool shape_only = op == "Shape" || op == "Size";
    ConstInputs in;
    std::vector<const ConstDims*> shapes;
    std::vector<int32_t> elem_types;
    bool reads_weight = false;
    for (const auto& name : n.input()) {
      const ConstTensor* c = name.empty() ? nullptr : constant(name);
      in.push_back(c);
      const ConstDims* dims = c ? &c->dims : nullptr;
      int32_t elem = c ? c->type : 0;
      if (const ValueType* v = name.empty() ? nullptr : type_of(name)) {
        if (!dims && v->Static()) dims = &v->dims;
        if (!elem) elem = v->elem_type;
      }
      shapes.push_back(dims);
      elem_types.push_back(elem);
      reads_weight = reads_weight || ctx.weights.count(name) > 0;
    }
    // A weight is read only for its type by Shape, Size and CastLike's second input.
    const bool weight_as_data =
        reads_weight && !shape_only &&
        !(op == "CastLike" && n.input_size() == 2 && !ctx.weights.count(n.input(0)));
    if (ctx.created >= ctx.limits.max_total || weight_as_data) {
      keep(n, true);
      continue;
    }
    ConstResult r = EvaluateConstant(n, in, shapes, elem_types, ctx.limits.max_elements);
    if (!r || static_cast<int>(r->size()) != n.output_size()) {
      keep(n, true);
      continue;
    }
    uint64_t elements = 0;
    for (const auto& t : *r) elements += t.Count();
    if (ctx.created + elements > ctx.limits.max_total) {
      keep(n, true);
      continue;
    }
    ctx.created += elements;
    for (size_t k = 0; k < r->size(); ++k) {
      const std::string& name = n.output(static_cast<int>(k));
      TensorProto* t = g.add_initializer();
      ToProto((*r)[k], name, t);
      init_index[name] = g.initializer_size() - 1;
      ValueType v;
      v.elem_type = (*r)[k].type;
      v.has_shape = true;
      v.dims = (*r)[k].dims;
      found[name] = std::move(v);
      cache[name] = std::move((*r)[k]);
    }
    ++folded;
  }
  g.mutable_node()->Swap(&kept);
  return folded;
}

void RemoveDeadNodes(onnx::GraphProto& g) {
  std::unordered_set<std::string> live = OuterNamesUsedBySubgraphs(g);
  for (const auto& out : g.output()) live.insert(out.name());
  std::vector<bool> keep(g.node_size(), false);
  for (int k = g.node_size(); k-- > 0;) {
    const auto& n = g.node(k);
    for (const auto& out : n.output()) keep[k] = keep[k] || live.count(out) > 0;
    if (!keep[k]) continue;
    for (const auto& in : n.input()) live.insert(in);
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (int k = 0; k < g.node_size(); ++k) {
    if (keep[k]) *nodes.Add() = std::move(*g.mutable_node(k));
  }
  g.mutable_node()->Swap(&nodes);
  std::unordered_set<std::string> dropped;
  google::protobuf::RepeatedPtrField<TensorProto> inits;
  for (auto& t : *g.mutable_initializer()) {
    if (live.count(t.name()))
      *inits.Add() = std::move(t);
    else
      dropped.insert(t.name());
  }
  g.mutable_initializer()->Swap(&inits);
  // An initializer that is also listed as a graph input (IR < 4 style) goes with its input.
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> inputs;
  for (auto& in : *g.mutable_input()) {
    if (!dropped.count(in.name())) *inputs.Add() = std::move(in);
  }
  g.mutable_input()->Swap(&inputs);
}

void LowerConstantOfShape(onnx::GraphProto& g) {
  std::unordered_set<std::string> names;
  for (const auto& t : g.initializer()) names.insert(t.name());
  for (const auto& n : g.node()) {
    for (const auto& out : n.output()) names.insert(out);
  }
  for (auto& n : *g.mutable_node()) {
    if (n.op_type() != "ConstantOfShape" || !IsDefaultDomain(n.domain()) || n.input_size() != 1 ||
        n.output_size() != 1) {
      continue;
    }
    TensorProto value;
    value.set_data_type(TensorProto::FLOAT);
    value.add_float_data(0.0f);
    for (const auto& a : n.attribute()) {
      if (a.name() == "value" && a.has_t()) value = a.t();
    }
    value.clear_dims();  // a scalar: Expand(scalar, shape) has exactly the shape `shape`
    std::string name = n.output(0) + "__value";
    while (names.count(name)) name += "_";
    names.insert(name);
    value.set_name(name);
    *g.add_initializer() = std::move(value);
    const std::string shape = n.input(0);
    n.set_op_type("Expand");
    n.clear_attribute();
    n.clear_input();
    n.add_input(name);
    n.add_input(shape);
  }
}

void ResolveStaticShapes(onnx::ModelProto& model, FoldContext& ctx) {
  onnx::GraphProto* g = model.mutable_graph();
  for (const auto& o : model.opset_import()) {
    if (IsDefaultDomain(o.domain())) ctx.opset = static_cast<int>(o.version());
  }
  // Without libonnx's data propagation: 1.12's propagators trust constant inputs (an Unsqueeze
  // axis of 2^57 on a shape value ends the process with SIGSEGV, found by fuzzing), and the
  // folder computes the same shape values, checked, one round later.
  auto infer = [&]() {
    g->clear_value_info();
    try {
      onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                         onnx::ShapeInferenceOptions(true, 1, false));
    } catch (const std::exception& e) {
      throw InputError("ONNX model '" + ctx.source + "' fails shape inference: " + e.what());
    }
  };
  // Each round folds everything that the last inference made static, inferring node by node
  // as it goes (FoldConstantsOnce), so that a chain of dependent reshapes folds in one round
  // however long it is; the next inference then sees the folded constants. Another round is
  // needed only where the full inference knows more than one node's inference function (a
  // function-bodied op, a subgraph, a custom domain). The cap only bounds a pathological file
  // (what is left unfolded is reported as dynamic by the importer).
  constexpr int kMaxRounds = 256;
  for (ctx.rounds = 0; ctx.rounds < kMaxRounds;) {
    infer();
    ++ctx.rounds;
    if (FoldConstantsOnce(*g, CollectTypes(*g), ctx) == 0) break;
  }
  RemoveDeadNodes(*g);
  LowerConstantOfShape(*g);
  infer();
}

}  // namespace ngraphbench
