#include "ngraphbench/graph/onnx_compat.h"

#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <unordered_set>
#include <vector>

#include "ngraphbench/core/error.h"

namespace ngraphbench {

namespace {

using onnx::AttributeProto;
using onnx::NodeProto;
using onnx::TensorProto;

// The element types IR versions 9 and later added, with the IR version that added them.
const std::map<int32_t, std::string>& NewElementTypes() {
  static const std::map<int32_t, std::string> types = {
      {17, "FLOAT8E4M3FN (IR 9)"},   {18, "FLOAT8E4M3FNUZ (IR 9)"}, {19, "FLOAT8E5M2 (IR 9)"},
      {20, "FLOAT8E5M2FNUZ (IR 9)"}, {21, "UINT4 (IR 10)"},         {22, "INT4 (IR 10)"},
      {23, "FLOAT4E2M1 (IR 11)"},    {24, "FLOAT8E8M0 (IR 12)"},    {25, "UINT2 (IR 13)"},
      {26, "INT2 (IR 13)"},          {27, "FLOAT6E2M3 (IR 14)"},    {28, "FLOAT6E3M2 (IR 14)"}};
  return types;
}

std::string TypeName(int32_t type) {
  const auto& known = NewElementTypes();
  auto it = known.find(type);
  return it != known.end() ? it->second : "element type " + std::to_string(type);
}

// The first use of an element type newer than IR 8 in `type`, or "".
void CheckType(const onnx::TypeProto& type, const std::string& where,
               std::vector<std::string>& uses) {
  if (type.has_tensor_type() && type.tensor_type().elem_type() > TensorProto::BFLOAT16) {
    uses.push_back(TypeName(type.tensor_type().elem_type()) + " in " + where);
  }
  if (type.has_sequence_type()) CheckType(type.sequence_type().elem_type(), where, uses);
  if (type.has_optional_type()) CheckType(type.optional_type().elem_type(), where, uses);
  if (type.has_map_type()) CheckType(type.map_type().value_type(), where, uses);
}

void CheckTensor(const TensorProto& t, const std::string& where, std::vector<std::string>& uses) {
  if (t.data_type() > TensorProto::BFLOAT16)
    uses.push_back(TypeName(t.data_type()) + " in " + where);
}

std::string NodeLabel(const NodeProto& n) {
  std::string label = n.op_type() + " node '" + n.name() + "'";
  if (n.name().empty()) {
    label = n.op_type() + " node producing '" + (n.output_size() ? n.output(0) : "") + "'";
  }
  return label;
}

void CheckGraphTypes(const onnx::GraphProto& g, std::vector<std::string>& uses) {
  for (const auto& v : g.input()) CheckType(v.type(), "input '" + v.name() + "'", uses);
  for (const auto& v : g.output()) CheckType(v.type(), "output '" + v.name() + "'", uses);
  for (const auto& v : g.value_info()) CheckType(v.type(), "value '" + v.name() + "'", uses);
  for (const auto& t : g.initializer()) CheckTensor(t, "initializer '" + t.name() + "'", uses);
  for (const auto& n : g.node()) {
    for (const auto& a : n.attribute()) {
      const std::string where = NodeLabel(n) + " attribute '" + a.name() + "'";
      if (a.has_t()) CheckTensor(a.t(), where, uses);
      for (const auto& t : a.tensors()) CheckTensor(t, where, uses);
      // Cast(to=...), EyeLike(dtype=...), QuantizeLinear(output_dtype=...), ...
      if (a.type() == AttributeProto::INT && a.i() > TensorProto::BFLOAT16 &&
          (a.name() == "to" || a.name() == "dtype" || a.name() == "output_dtype")) {
        uses.push_back(TypeName(static_cast<int32_t>(a.i())) + " in " + where);
      }
      if (a.has_g()) CheckGraphTypes(a.g(), uses);
      for (const auto& sub : a.graphs()) CheckGraphTypes(sub, uses);
    }
  }
}

void NormalizeIrVersion(onnx::ModelProto& model, const std::string& source) {
  constexpr int64_t kCheckerIrVersion = 8;  // libonnx 1.12's IR_VERSION
  if (model.ir_version() <= kCheckerIrVersion) return;
  std::vector<std::string> uses;
  CheckGraphTypes(model.graph(), uses);
  if (!uses.empty()) {
    std::string list;
    for (size_t k = 0; k < uses.size() && k < 5; ++k) list += (k ? "; " : "") + uses[k];
    if (uses.size() > 5) list += "; and " + std::to_string(uses.size() - 5) + " more";
    throw InputError("ONNX model '" + source + "' (IR version " +
                     std::to_string(model.ir_version()) + ") uses an element type that IR " +
                     "version 8 does not have: " + list +
                     "; ngraphbench imports float32 models (with int64/int32/bool constants); "
                     "export the model in float32");
  }
  model.set_ir_version(kCheckerIrVersion);
}

// ---- building opset-17 replacements ---------------------------------------------------------

AttributeProto* FindAttr(NodeProto& n, const std::string& name) {
  for (auto& a : *n.mutable_attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

void RemoveAttr(NodeProto& n, const std::string& name) {
  auto* attrs = n.mutable_attribute();
  for (int k = 0; k < attrs->size(); ++k) {
    if (attrs->Get(k).name() == name) {
      attrs->DeleteSubrange(k, 1);
      return;
    }
  }
}

void SetInt(NodeProto& n, const std::string& name, int64_t v) {
  RemoveAttr(n, name);
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(AttributeProto::INT);
  a->set_i(v);
}

// A ConstantOfShape's `value`: the int64 `v`, as a one-element tensor.
void SetInt64Value(NodeProto& n, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name("value");
  a->set_type(AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(TensorProto::INT64);
  a->mutable_t()->add_dims(1);
  a->mutable_t()->add_int64_data(v);
}

void SetInts(NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  RemoveAttr(n, name);
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

// New nodes and initializers for one rewritten node, with names unique in the graph.
class Builder {
 public:
  Builder(onnx::GraphProto& g, std::unordered_set<std::string>& names, std::vector<NodeProto>& out,
          std::string prefix)
      : g_(g), names_(names), out_(out), prefix_(std::move(prefix)) {}

  std::string Fresh(const std::string& hint) {
    std::string name = prefix_ + "__" + hint;
    for (int k = 2; names_.count(name); ++k) name = prefix_ + "__" + hint + std::to_string(k);
    names_.insert(name);
    return name;
  }

  NodeProto& Add(const std::string& op, const std::vector<std::string>& inputs,
                 const std::string& hint) {
    out_.emplace_back();
    NodeProto& n = out_.back();
    n.set_op_type(op);
    const std::string y = Fresh(hint);
    n.set_name(y);
    for (const auto& in : inputs) n.add_input(in);
    n.add_output(y);
    return n;
  }
  std::string Op(const std::string& op, const std::vector<std::string>& inputs,
                 const std::string& hint) {
    return Add(op, inputs, hint).output(0);
  }

  std::string Ints(const std::vector<int64_t>& values, const std::string& hint,
                   bool scalar = false) {
    TensorProto* t = g_.add_initializer();
    t->set_name(Fresh(hint));
    t->set_data_type(TensorProto::INT64);
    if (!scalar) t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
    return t->name();
  }

  std::string Float(float value, const std::string& hint) {
    TensorProto* t = g_.add_initializer();
    t->set_name(Fresh(hint));
    t->set_data_type(TensorProto::FLOAT);
    t->add_float_data(value);
    return t->name();
  }

 private:
  onnx::GraphProto& g_;
  std::unordered_set<std::string>& names_;
  std::vector<NodeProto>& out_;
  std::string prefix_;
};

// The int64 values of a constant initializer (int64 or int32), or nullopt.
std::optional<std::vector<int64_t>> InitializerInts(const onnx::GraphProto& g,
                                                    const std::string& name) {
  for (const auto& t : g.initializer()) {
    if (t.name() != name) continue;
    if (t.data_location() == TensorProto::EXTERNAL || t.dims_size() > 1) return std::nullopt;
    std::vector<int64_t> v;
    if (t.data_type() == TensorProto::INT64) {
      if (t.has_raw_data()) {
        if (t.raw_data().size() % 8) return std::nullopt;
        v.resize(t.raw_data().size() / 8);
        if (!v.empty()) std::memcpy(v.data(), t.raw_data().data(), t.raw_data().size());
      } else {
        v.assign(t.int64_data().begin(), t.int64_data().end());
      }
    } else if (t.data_type() == TensorProto::INT32) {
      if (t.has_raw_data()) {
        if (t.raw_data().size() % 4) return std::nullopt;
        std::vector<int32_t> w(t.raw_data().size() / 4);
        if (!w.empty()) std::memcpy(w.data(), t.raw_data().data(), t.raw_data().size());
        v.assign(w.begin(), w.end());
      } else {
        v.assign(t.int32_data().begin(), t.int32_data().end());
      }
    } else {
      return std::nullopt;
    }
    const int64_t declared = t.dims_size() ? t.dims(0) : 1;
    if (declared != static_cast<int64_t>(v.size())) return std::nullopt;
    return v;
  }
  return std::nullopt;
}

class OpsetLowering {
 public:
  OpsetLowering(onnx::GraphProto& g, int64_t opset) : g_(g), opset_(opset) {
    for (const auto& t : g.initializer()) names_.insert(t.name());
    for (const auto& v : g.input()) names_.insert(v.name());
    for (const auto& n : g.node()) {
      for (const auto& out : n.output()) names_.insert(out);
      if (!n.name().empty()) names_.insert(n.name());
    }
  }

  // Rewrites every default-domain node; returns the ones that have no opset-17 form.
  std::vector<std::string> Run() {
    std::vector<NodeProto> out;
    for (auto& n : *g_.mutable_node()) {
      if (!n.domain().empty() && n.domain() != "ai.onnx") {
        out.push_back(std::move(n));
        continue;
      }
      n.clear_domain();
      Lower(n, out);
    }
    g_.clear_node();
    for (auto& n : out) *g_.add_node() = std::move(n);
    return refused_;
  }

 private:
  void Refuse(const NodeProto& n, const std::string& why) {
    refused_.push_back(NodeLabel(n) + ": " + why);
  }

  std::string Prefix(const NodeProto& n) {
    return n.output_size() && !n.output(0).empty() ? n.output(0) : n.op_type();
  }

  // Attribute `name` must be absent or hold `ok`; then it is dropped (its opset-17 meaning).
  bool DropIntIf(NodeProto& n, const std::string& name, int64_t ok, const std::string& why) {
    if (auto* a = FindAttr(n, name)) {
      if (a->i() != ok) {
        Refuse(n, why);
        return false;
      }
      RemoveAttr(n, name);
    }
    return true;
  }

  void Lower(NodeProto& n, std::vector<NodeProto>& out) {
    static const std::set<std::string> kReduce18 = {
        "ReduceL1",   "ReduceL2",  "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
        "ReduceMean", "ReduceMin", "ReduceProd",   "ReduceSumSquare"};
    // Operators added after opset 17 with no exact opset-17 spelling here.
    static const std::map<std::string, int64_t> kNew = {
        {"BitwiseAnd", 18},    {"BitwiseNot", 18},     {"BitwiseOr", 18},    {"BitwiseXor", 18},
        {"CenterCropPad", 18}, {"Col2Im", 18},         {"DeformConv", 19},   {"AffineGrid", 20},
        {"ImageDecoder", 20},  {"RegexFullMatch", 20}, {"StringConcat", 20}, {"StringSplit", 20},
        {"Attention", 23},     {"RMSNormalization", 23}, {"RotaryEmbedding", 23},
        {"Swish", 24},         {"TensorScatter", 24},  {"BitCast", 26},      {"CumProd", 26},
        {"CausalConvWithState", 27}, {"LinearAttention", 27}, {"SwiGLU", 28}};
    const std::string& op = n.op_type();
    // The rewrites below read the inputs and outputs the operator must have; a malformed node is
    // left to libonnx's checker, which names what is wrong with it.
    const bool reads_x = op == "Gelu" || op == "Mish" || op == "GroupNormalization" ||
                         op == "Split" || kReduce18.count(op);
    if ((reads_x && (n.input_size() < 1 || n.input(0).empty() || n.output_size() < 1)) ||
        (op == "Pad" && n.input_size() < 2)) {
      out.push_back(std::move(n));
      return;
    }
    if (auto it = kNew.find(op); it != kNew.end() && opset_ >= it->second) {
      Refuse(n, "added in opset " + std::to_string(it->second) + ", no opset-17 equivalent");
    } else if (kReduce18.count(op)) {
      LowerReduce(n, out);
      return;
    } else if (op == "Split") {
      LowerSplit(n, out);
      return;
    } else if (op == "Pad") {
      LowerPad(n, out);
      return;
    } else if (op == "Resize" && opset_ >= 18) {
      DropIntIf(n, "antialias", 0, "antialias=1 (opset 18) has no opset-17 equivalent");
      DropAxesOfResize(n);
      if (auto* a = FindAttr(n, "keep_aspect_ratio_policy")) {
        if (a->s() != "stretch") Refuse(n, "keep_aspect_ratio_policy='" + a->s() + "' (opset 18)");
        RemoveAttr(n, "keep_aspect_ratio_policy");
      }
      if (auto* a = FindAttr(n, "coordinate_transformation_mode")) {
        if (a->s() == "half_pixel_symmetric") Refuse(n, "half_pixel_symmetric (opset 19)");
      }
    } else if (op == "LpPool" && opset_ >= 18) {
      DropIntIf(n, "ceil_mode", 0, "ceil_mode=1 (opset 18) has no opset-17 equivalent");
      DropUnitDilations(n);
    } else if (op == "AveragePool" && opset_ >= 19) {
      DropUnitDilations(n);
    } else if ((op == "Cast" || op == "CastLike") && opset_ >= 19) {
      // Both concern float8 conversions only (saturate opset 19, round_mode opset 24 for
      // float8e8m0); those element types are refused with their IR version.
      RemoveAttr(n, "saturate");
      RemoveAttr(n, "round_mode");
    } else if (op == "Range" && opset_ >= 27) {
      // The precision float16/bfloat16 ranges are computed in (opset 27): the IR's ranges are
      // float32 or integers, which opset 17 computes in their own type.
      RemoveAttr(n, "stash_type");
    } else if (op == "SpaceToDepth" && opset_ >= 28) {
      if (auto* a = FindAttr(n, "mode")) {
        // DCR is the only order SpaceToDepth had before opset 28.
        if (a->s() != "DCR") Refuse(n, "mode='" + a->s() + "' (opset 28) has no opset-17 equivalent");
        RemoveAttr(n, "mode");
      }
    } else if ((op == "QuantizeLinear" || op == "DequantizeLinear") && opset_ >= 19) {
      if (op == "QuantizeLinear") RemoveAttr(n, "saturate");
      if (opset_ >= 21) {
        DropIntIf(n, "block_size", 0, "block quantization (opset 21)");
        DropIntIf(n, "output_dtype", 0, "output_dtype (opset 21)");
      }
    } else if ((op == "ScatterElements" || op == "ScatterND") && opset_ >= 18) {
      if (auto* a = FindAttr(n, "reduction")) {
        if (a->s() == "max" || a->s() == "min") Refuse(n, "reduction='" + a->s() + "' (opset 18)");
      }
    } else if (op == "GridSample" && opset_ >= 20) {
      // Opset 20 renamed the modes (and made the default 'linear', the old 'bilinear').
      if (auto* a = FindAttr(n, "mode")) {
        if (a->s() == "linear")
          a->set_s("bilinear");
        else if (a->s() == "cubic")
          a->set_s("bicubic");
      }
    } else if (op == "DFT" && opset_ >= 20) {
      Refuse(n, "DFT-20 takes its axis as an input with another default; re-export at opset 17");
    } else if (op == "Gelu" && opset_ >= 20) {
      LowerGelu(n, out);
      return;
    } else if (op == "Mish" && opset_ >= 18) {
      Builder b(g_, names_, out, Prefix(n));
      const std::string sp = b.Op("Softplus", {n.input(0)}, "softplus");
      const std::string t = b.Op("Tanh", {sp}, "tanh");
      out.push_back(Replace(n, "Mul", {n.input(0), t}));
      return;
    } else if (op == "GroupNormalization" && opset_ >= 18) {
      LowerGroupNormalization(n, out);
      return;
    }
    out.push_back(std::move(n));
  }

  // `n` turned into `op` on `inputs`, keeping its name and outputs, without attributes.
  static NodeProto Replace(const NodeProto& n, const std::string& op,
                           const std::vector<std::string>& inputs) {
    NodeProto r;
    r.set_name(n.name());
    r.set_op_type(op);
    for (const auto& in : inputs) r.add_input(in);
    for (const auto& o : n.output()) r.add_output(o);
    return r;
  }

  void DropUnitDilations(NodeProto& n) {
    if (auto* a = FindAttr(n, "dilations")) {
      for (int64_t d : a->ints()) {
        if (d != 1) {
          Refuse(n, "dilations other than 1 (opset 19) have no opset-17 equivalent");
          return;
        }
      }
      RemoveAttr(n, "dilations");
    }
  }

  void DropAxesOfResize(NodeProto& n) {
    if (FindAttr(n, "axes"))
      Refuse(n, "the 'axes' attribute (opset 18) has no opset-17 equivalent");
  }

  // Reduce*-18: axes moved from an attribute to an optional input; noop_with_empty_axes added.
  void LowerReduce(NodeProto& n, std::vector<NodeProto>& out) {
    if (opset_ < 18) {
      out.push_back(std::move(n));
      return;
    }
    std::vector<int64_t> axes;
    if (n.input_size() > 1 && !n.input(1).empty()) {
      auto values = InitializerInts(g_, n.input(1));
      if (!values) {
        Refuse(n, "its axes input '" + n.input(1) +
                      "' is not a constant; opset 17 needs "
                      "the axes as an attribute");
        out.push_back(std::move(n));
        return;
      }
      axes = *values;
    }
    const bool noop =
        FindAttr(n, "noop_with_empty_axes") && FindAttr(n, "noop_with_empty_axes")->i() != 0;
    RemoveAttr(n, "noop_with_empty_axes");
    if (n.input_size() > 1) n.mutable_input()->DeleteSubrange(1, n.input_size() - 1);
    if (axes.empty() && noop) {
      out.push_back(Replace(n, "Identity", {n.input(0)}));
      return;
    }
    if (!axes.empty()) SetInts(n, "axes", axes);  // absent: reduce over all axes, as at 17
    out.push_back(std::move(n));
  }

  // Split-18: num_outputs = n splits into chunks of ceil(d/n), the last one smaller. Split-13
  // takes the sizes as an input; they depend on the input's shape, so emit the arithmetic,
  // which import-time folding turns into a constant once the shape is static.
  void LowerSplit(NodeProto& n, std::vector<NodeProto>& out) {
    AttributeProto* num = opset_ >= 18 ? FindAttr(n, "num_outputs") : nullptr;
    if (!num) {
      out.push_back(std::move(n));
      return;
    }
    const int64_t parts = num->i();
    RemoveAttr(n, "num_outputs");
    if (parts < 1 || parts != n.output_size() || (n.input_size() > 1 && !n.input(1).empty())) {
      Refuse(n, "num_outputs=" + std::to_string(parts) + " must equal its " +
                    std::to_string(n.output_size()) + " outputs, without a split input");
      out.push_back(std::move(n));
      return;
    }
    int64_t axis = 0;
    if (auto* a = FindAttr(n, "axis")) axis = a->i();
    Builder b(g_, names_, out, Prefix(n));
    NodeProto& shape = b.Add("Shape", {n.input(0)}, "dim");
    SetInt(shape, "start", axis);
    if (axis != -1) SetInt(shape, "end", axis + 1);
    const std::string d = shape.output(0);  // [d]
    const std::string chunk =
        b.Op("Div", {b.Op("Add", {d, b.Ints({parts - 1}, "nm1")}, "dpad"), b.Ints({parts}, "n")},
             "chunk");
    const std::string last =
        b.Op("Sub", {d, b.Op("Mul", {chunk, b.Ints({parts - 1}, "nm1b")}, "head")}, "last");
    NodeProto& sizes = b.Add("Concat", {}, "sizes");
    for (int64_t k = 0; k + 1 < parts; ++k) sizes.add_input(chunk);
    sizes.add_input(last);
    SetInt(sizes, "axis", 0);
    const std::string sizes_name = sizes.output(0);
    if (n.input_size() < 2)
      n.add_input(sizes_name);
    else
      n.set_input(1, sizes_name);
    out.push_back(std::move(n));
  }

  // Pad-18: an optional `axes` input names the axes `pads` covers. Opset 17 wants pads for all
  // axes: scatter the given ones into zeros of length 2*rank (folded once the rank is known).
  void LowerPad(NodeProto& n, std::vector<NodeProto>& out) {
    if (auto* a = FindAttr(n, "mode"); a && a->s() == "wrap") {
      Refuse(n, "mode='wrap' (opset 19) has no opset-17 equivalent");
    }
    if (opset_ < 18 || n.input_size() < 4 || n.input(3).empty()) {
      if (n.input_size() == 4) n.mutable_input()->RemoveLast();
      out.push_back(std::move(n));
      return;
    }
    Builder b(g_, names_, out, Prefix(n));
    const std::string axes = b.Op("Cast", {n.input(3)}, "axes64");
    SetInt(out.back(), "to", TensorProto::INT64);
    const std::string rank = b.Op("Shape", {b.Op("Shape", {n.input(0)}, "shape")}, "rank");
    const std::string negative = b.Op("Less", {axes, b.Ints({0}, "zero", true)}, "negative");
    const std::string axes_n =
        b.Op("Where", {negative, b.Op("Add", {axes, rank}, "wrapped"), axes}, "axes");
    const std::string index =
        b.Op("Concat", {axes_n, b.Op("Add", {axes_n, rank}, "ends")}, "index");
    SetInt(out.back(), "axis", 0);
    const std::string zeros =
        b.Op("ConstantOfShape", {b.Op("Mul", {rank, b.Ints({2}, "two")}, "len")}, "zeros");
    SetInt64Value(out.back(), 0);
    const std::string pads = b.Op("ScatterElements", {zeros, index, n.input(1)}, "pads");
    SetInt(out.back(), "axis", 0);
    n.set_input(1, pads);
    n.mutable_input()->RemoveLast();
    out.push_back(std::move(n));
  }

  // Gelu-20: 0.5 * x * (1 + erf(x / sqrt(2))), or with approximate='tanh'
  // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))). float32 constants: ngraphbench
  // imports float32 models.
  void LowerGelu(NodeProto& n, std::vector<NodeProto>& out) {
    std::string approximate = "none";
    if (auto* a = FindAttr(n, "approximate")) approximate = a->s();
    if (approximate != "none" && approximate != "tanh") {
      Refuse(n, "approximate='" + approximate + "' (expected 'none' or 'tanh')");
      out.push_back(std::move(n));
      return;
    }
    Builder b(g_, names_, out, Prefix(n));
    const std::string& x = n.input(0);
    std::string inner;
    if (approximate == "none") {
      inner = b.Op("Erf", {b.Op("Div", {x, b.Float(std::sqrt(2.0f), "sqrt2")}, "scaled")}, "erf");
    } else {
      const std::string cube = b.Op("Mul", {b.Op("Mul", {x, x}, "sq"), x}, "cube");
      const std::string sum =
          b.Op("Add", {x, b.Op("Mul", {cube, b.Float(0.044715f, "c")}, "cubic")}, "sum");
      const float k = 0.7978845608028654f;  // sqrt(2 / pi)
      inner = b.Op("Tanh", {b.Op("Mul", {sum, b.Float(k, "k")}, "arg")}, "tanh");
    }
    const std::string one_plus = b.Op("Add", {inner, b.Float(1.0f, "one")}, "onep");
    const std::string half_x = b.Op("Mul", {x, b.Float(0.5f, "half")}, "halfx");
    out.push_back(Replace(n, "Mul", {half_x, one_plus}));
  }

  // GroupNormalization-18/21: normalize over each group of C/G channels (and all spatial
  // positions), then scale and shift per channel. Opset 18 gives scale/bias per group ([G]),
  // opset 21 per channel ([C]). The shapes are computed from Shape(x) and folded at import.
  void LowerGroupNormalization(NodeProto& n, std::vector<NodeProto>& out) {
    auto* groups_attr = FindAttr(n, "num_groups");
    if (!groups_attr || groups_attr->i() < 1 || n.input_size() != 3) {
      Refuse(n, "it needs num_groups >= 1 and the inputs X, scale, bias");
      out.push_back(std::move(n));
      return;
    }
    const int64_t groups = groups_attr->i();
    float epsilon = 1e-5f;
    if (auto* a = FindAttr(n, "epsilon")) epsilon = a->f();
    Builder b(g_, names_, out, Prefix(n));
    const std::string &x = n.input(0), &scale = n.input(1), &bias = n.input(2);
    const std::string shape = b.Op("Shape", {x}, "shape");
    NodeProto& batch = b.Add("Shape", {x}, "batch");
    SetInt(batch, "start", 0);
    SetInt(batch, "end", 1);
    const std::string batch_dim = batch.output(0);
    const std::string grouped_shape =
        b.Op("Concat", {batch_dim, b.Ints({groups, -1}, "gshape")}, "grouped_shape");
    SetInt(out.back(), "axis", 0);
    const std::string grouped = b.Op("Reshape", {x, grouped_shape}, "grouped");  // [N, G, -1]
    const std::string mean = b.Op("ReduceMean", {grouped}, "mean");
    SetInts(out.back(), "axes", {2});
    const std::string centered = b.Op("Sub", {grouped, mean}, "centered");
    const std::string var = b.Op("ReduceMean", {b.Op("Mul", {centered, centered}, "sq")}, "var");
    SetInts(out.back(), "axes", {2});
    const std::string stddev =
        b.Op("Sqrt", {b.Op("Add", {var, b.Float(epsilon, "eps")}, "vareps")}, "std");
    const std::string normalized =
        b.Op("Reshape", {b.Op("Div", {centered, stddev}, "norm"), shape}, "normalized");
    // Per-channel scale and bias as [C, 1, ..., 1] (rank - 1 dims) to broadcast over [N, C, ...].
    const std::string rank = b.Op("Shape", {shape}, "rank");
    const std::string ones =
        b.Op("ConstantOfShape", {b.Op("Sub", {rank, b.Ints({2}, "two")}, "spatial")}, "ones");
    SetInt64Value(out.back(), 1);
    const std::string channel_shape =
        b.Op("Concat", {b.Ints({-1}, "minus1"), ones}, "channel_shape");
    SetInt(out.back(), "axis", 0);
    auto per_channel = [&](const std::string& v, const std::string& hint) {
      std::string c = v;
      if (opset_ < 21) {
        // [G] -> [G, C/G] -> [C]: each group's value repeated over its channels.
        NodeProto& channels = b.Add("Shape", {x}, hint + "_c");
        SetInt(channels, "start", 1);
        SetInt(channels, "end", 2);
        const std::string per_group =
            b.Op("Div", {channels.output(0), b.Ints({groups}, hint + "_g")}, hint + "_cg");
        const std::string target =
            b.Op("Concat", {b.Ints({groups}, hint + "_g2"), per_group}, hint + "_target");
        SetInt(out.back(), "axis", 0);
        const std::string column =
            b.Op("Reshape", {v, b.Ints({groups, 1}, hint + "_col")}, hint + "_column");
        c = b.Op(
            "Reshape",
            {b.Op("Expand", {column, target}, hint + "_expanded"), b.Ints({-1}, hint + "_flat")},
            hint + "_channels");
      }
      return b.Op("Reshape", {c, channel_shape}, hint + "_bc");
    };
    const std::string scaled = b.Op("Mul", {normalized, per_channel(scale, "scale")}, "scaled");
    out.push_back(Replace(n, "Add", {scaled, per_channel(bias, "bias")}));
  }

  onnx::GraphProto& g_;
  int64_t opset_;
  std::unordered_set<std::string> names_;
  std::vector<std::string> refused_;
};

}  // namespace

void NormalizeOnnxVersions(onnx::ModelProto& model, const std::string& source) {
  NormalizeIrVersion(model, source);
  onnx::OperatorSetIdProto* onnx_opset = nullptr;
  for (auto& opset : *model.mutable_opset_import()) {
    if (opset.domain().empty() || opset.domain() == "ai.onnx") {
      opset.clear_domain();
      onnx_opset = &opset;
    }
  }
  if (!onnx_opset || onnx_opset->version() <= 17) return;
  const int64_t version = onnx_opset->version();
  if (version > kNewestImportedOpset) {
    throw InputError("ONNX model '" + source + "' uses opset " + std::to_string(version) +
                     "; ngraphbench reads opsets up to " + std::to_string(kNewestImportedOpset) +
                     " (and lowers 18 and newer to 17); export it with opset_version=" +
                     std::to_string(kNewestImportedOpset) +
                     " or lower, e.g. "
                     "torch.onnx.export(..., opset_version=17)");
  }
  const std::vector<std::string> refused = OpsetLowering(*model.mutable_graph(), version).Run();
  if (!refused.empty()) {
    std::string list;
    for (const auto& r : refused) list += "\n  " + r;
    throw InputError("ONNX model '" + source + "' (opset " + std::to_string(version) +
                     ") has operators without an opset-17 form, which ngraphbench compiles "
                     "to:" +
                     list +
                     "\nexport the model with opset_version=17, or replace "
                     "these operators");
  }
  onnx_opset->set_version(17);
  // Model-local functions nothing calls (exporters keep helper functions around); a function
  // body at a newer opset would fail libonnx's checker for no reason. Called ones stay (the
  // IR builder refuses their nodes, which are not in the default domain).
  std::set<std::pair<std::string, std::string>> called;
  for (const auto& n : model.graph().node()) called.insert({n.domain(), n.op_type()});
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& f : model.functions()) {
      if (!called.count({f.domain(), f.name()})) continue;
      for (const auto& n : f.node()) grew = called.insert({n.domain(), n.op_type()}).second || grew;
    }
  }
  auto* functions = model.mutable_functions();
  for (int k = functions->size(); k-- > 0;) {
    if (!called.count({functions->Get(k).domain(), functions->Get(k).name()})) {
      functions->DeleteSubrange(k, 1);
    }
  }
}

}  // namespace ngraphbench
