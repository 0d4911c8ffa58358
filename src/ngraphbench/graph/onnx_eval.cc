#include "ngraphbench/graph/onnx_eval.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>

#include "ngraphbench/graph/onnx_eval_internal.h"

namespace ngraphbench {

bool IsFloatType(int32_t type) {
  return type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::DOUBLE;
}

namespace const_eval {

namespace {

size_t ElementBytes(int32_t type) {
  switch (type) {
    case TensorProto::DOUBLE:
    case TensorProto::INT64:
      return 8;
    case TensorProto::FLOAT:
    case TensorProto::INT32:
    case TensorProto::UINT32:
      return 4;
    case TensorProto::INT16:
    case TensorProto::UINT16:
      return 2;
    default:
      return 1;
  }
}


}  // namespace

bool Foldable(int32_t type) {
  switch (type) {
    case TensorProto::FLOAT:
    case TensorProto::DOUBLE:
    case TensorProto::INT64:
    case TensorProto::INT32:
    case TensorProto::INT16:
    case TensorProto::INT8:
    case TensorProto::UINT32:
    case TensorProto::UINT16:
    case TensorProto::UINT8:
    case TensorProto::BOOL:
      return true;
    default:
      return false;
  }
}

// The value an integer type holds for `v` (two's complement wrap-around, as the runtimes do).
int64_t Wrap(int64_t v, int32_t type) {
  switch (type) {
    case TensorProto::INT32:
      return static_cast<int32_t>(v);
    case TensorProto::INT16:
      return static_cast<int16_t>(v);
    case TensorProto::INT8:
      return static_cast<int8_t>(v);
    case TensorProto::UINT32:
      return static_cast<uint32_t>(v);
    case TensorProto::UINT16:
      return static_cast<uint16_t>(v);
    case TensorProto::UINT8:
      return static_cast<uint8_t>(v);
    case TensorProto::BOOL:
      return v != 0;
    default:
      return v;
  }
}

void Finalize(ConstTensor& t) {
  if (t.type == TensorProto::FLOAT) {
    for (double& v : t.f) v = static_cast<float>(v);
  } else if (!t.IsFloat()) {
    for (int64_t& v : t.i) v = Wrap(v, t.type);
  }
}

// Element count of `dims` when every dim is >= 0 and the product is at most `max`.
std::optional<uint64_t> CountAtMost(const Dims& dims, uint64_t max) {
  uint64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return std::nullopt;
    if (d > 0 && n > max / static_cast<uint64_t>(d)) return std::nullopt;
    n *= static_cast<uint64_t>(d);
  }
  if (n > max) return std::nullopt;
  return n;
}
namespace {


// Parses a tensor of at most `max` elements; nullopt for anything else (external or opaque data,
// a type the folder does not evaluate, data that does not match the dims).
std::optional<ConstTensor> FromProtoImpl(const TensorProto& t, uint64_t max) {
  if (!Foldable(t.data_type())) return std::nullopt;
  if (t.data_location() == TensorProto::EXTERNAL) return std::nullopt;
  ConstTensor c;
  c.type = t.data_type();
  c.dims.assign(t.dims().begin(), t.dims().end());
  const auto n = CountAtMost(c.dims, max);
  if (!n) return std::nullopt;
  const bool is_float = c.IsFloat();
  if (is_float)
    c.f.resize(*n);
  else
    c.i.resize(*n);
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    const size_t width = ElementBytes(c.type);
    if (raw.size() != *n * width) return std::nullopt;
    // Little-endian values of type T, converted to the element kind `out` holds.
    auto load = [&](auto type_tag, auto& out) {
      using T = decltype(type_tag);
      for (size_t k = 0; k < *n; ++k) {
        T v;
        std::memcpy(&v, raw.data() + k * width, sizeof v);
        out[k] = v;
      }
    };
    switch (c.type) {
      case TensorProto::FLOAT: load(float{}, c.f); break;
      case TensorProto::DOUBLE: load(double{}, c.f); break;
      case TensorProto::INT64: load(int64_t{}, c.i); break;
      case TensorProto::INT32: load(int32_t{}, c.i); break;
      case TensorProto::UINT32: load(uint32_t{}, c.i); break;
      case TensorProto::INT16: load(int16_t{}, c.i); break;
      case TensorProto::UINT16: load(uint16_t{}, c.i); break;
      case TensorProto::INT8: load(int8_t{}, c.i); break;
      default: load(uint8_t{}, c.i); break;  // UINT8, BOOL
    }
  } else {
    switch (c.type) {
      case TensorProto::FLOAT:
        if (static_cast<uint64_t>(t.float_data_size()) != *n) return std::nullopt;
        std::copy(t.float_data().begin(), t.float_data().end(), c.f.begin());
        break;
      case TensorProto::DOUBLE:
        if (static_cast<uint64_t>(t.double_data_size()) != *n) return std::nullopt;
        std::copy(t.double_data().begin(), t.double_data().end(), c.f.begin());
        break;
      case TensorProto::INT64:
        if (static_cast<uint64_t>(t.int64_data_size()) != *n) return std::nullopt;
        std::copy(t.int64_data().begin(), t.int64_data().end(), c.i.begin());
        break;
      case TensorProto::UINT32:
        if (static_cast<uint64_t>(t.uint64_data_size()) != *n) return std::nullopt;
        std::copy(t.uint64_data().begin(), t.uint64_data().end(), c.i.begin());
        break;
      default:  // the narrow integer types and BOOL are stored in int32_data
        if (static_cast<uint64_t>(t.int32_data_size()) != *n) return std::nullopt;
        std::copy(t.int32_data().begin(), t.int32_data().end(), c.i.begin());
        break;
    }
    Finalize(c);
  }
  return c;
}

void ToProtoImpl(const ConstTensor& c, const std::string& name, TensorProto* t) {
  t->Clear();
  t->set_name(name);
  t->set_data_type(c.type);
  for (int64_t d : c.dims) t->add_dims(d);
  const size_t n = c.Count();
  const size_t width = ElementBytes(c.type);
  std::string raw(n * width, '\0');
  // Each value as type T, little-endian, from the element kind `in` holds.
  auto store = [&](auto type_tag, const auto& in) {
    using T = decltype(type_tag);
    for (size_t k = 0; k < n; ++k) {
      const T v = static_cast<T>(in[k]);
      std::memcpy(raw.data() + k * width, &v, sizeof v);
    }
  };
  switch (c.type) {
    case TensorProto::FLOAT: store(float{}, c.f); break;
    case TensorProto::DOUBLE: store(double{}, c.f); break;
    case TensorProto::INT64: store(int64_t{}, c.i); break;
    case TensorProto::INT32: store(int32_t{}, c.i); break;
    case TensorProto::UINT32: store(uint32_t{}, c.i); break;
    case TensorProto::INT16: store(int16_t{}, c.i); break;
    case TensorProto::UINT16: store(uint16_t{}, c.i); break;
    default: store(char{}, c.i); break;  // INT8, UINT8, BOOL: the low byte
  }
  t->set_raw_data(std::move(raw));
}

}  // namespace

// ---- attributes ---------------------------------------------------------------------------

const onnx::AttributeProto* FindAttr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

int64_t IntAttr(const onnx::NodeProto& n, const std::string& name, int64_t fallback) {
  const auto* a = FindAttr(n, name);
  return a && a->type() == onnx::AttributeProto::INT ? a->i() : fallback;
}

std::string StringAttr(const onnx::NodeProto& n, const std::string& name,
                       const std::string& fallback) {
  const auto* a = FindAttr(n, name);
  return a && a->type() == onnx::AttributeProto::STRING ? a->s() : fallback;
}

std::optional<Dims> IntsAttr(const onnx::NodeProto& n, const std::string& name) {
  const auto* a = FindAttr(n, name);
  if (!a || a->type() != onnx::AttributeProto::INTS) return std::nullopt;
  return Dims(a->ints().begin(), a->ints().end());
}

// ---- index helpers ------------------------------------------------------------------------

// Row-major strides of `dims`.
Dims Strides(const Dims& dims) {
  Dims s(dims.size(), 1);
  for (size_t k = dims.size(); k-- > 1;) s[k - 1] = s[k] * dims[k];
  return s;
}

// Numpy-style broadcast of two shapes; nullopt where they do not broadcast.
std::optional<Dims> Broadcast(const Dims& a, const Dims& b) {
  const size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  for (size_t k = 0; k < rank; ++k) {
    const int64_t x = k < rank - a.size() ? 1 : a[k - (rank - a.size())];
    const int64_t y = k < rank - b.size() ? 1 : b[k - (rank - b.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[k] = x == 1 ? y : x;
  }
  return out;
}

// Strides that read `in` (broadcast to `out`, aligned right) while walking `out`: 0 on axes that
// are broadcast.
Dims BroadcastStrides(const Dims& in, const Dims& out) {
  Dims s(out.size(), 0);
  const Dims own = Strides(in);
  for (size_t k = 0; k < in.size(); ++k) {
    const size_t o = out.size() - in.size() + k;
    s[o] = in[k] == 1 ? 0 : own[k];
  }
  return s;
}

// Calls fn(linear output index, offsets into each input) for every element of `out`.
void ForEachIndex(const Dims& out, const std::vector<Dims>& strides,
                  const std::function<void(size_t, const std::vector<int64_t>&)>& fn) {
  size_t n = 1;
  for (int64_t d : out) n *= static_cast<size_t>(d);
  if (n == 0) return;
  std::vector<int64_t> idx(out.size(), 0), off(strides.size(), 0);
  for (size_t lin = 0; lin < n; ++lin) {
    fn(lin, off);
    for (size_t d = out.size(); d-- > 0;) {
      ++idx[d];
      for (size_t j = 0; j < strides.size(); ++j) off[j] += strides[j][d];
      if (idx[d] < out[d]) break;
      for (size_t j = 0; j < strides.size(); ++j) off[j] -= strides[j][d] * out[d];
      idx[d] = 0;
    }
  }
}

// Normalizes axis `a` of a rank-`rank` tensor to [0, rank); nullopt when out of range.
std::optional<int64_t> Axis(int64_t a, int64_t rank) {
  if (a < -rank || a >= rank) return std::nullopt;
  return a < 0 ? a + rank : a;
}

ConstTensor Make(int32_t type, Dims dims) {
  ConstTensor t;
  t.type = type;
  t.dims = std::move(dims);
  size_t n = 1;
  for (int64_t d : t.dims) n *= static_cast<size_t>(d);
  if (IsFloatType(type))
    t.f.resize(n);
  else
    t.i.resize(n);
  return t;
}

// The int64 values of an integer tensor of at most `max_rank` 1.
std::optional<Dims> IntValues(const ConstTensor* t) {
  if (!t || t->IsFloat() || t->type == TensorProto::BOOL || t->dims.size() > 1) return std::nullopt;
  return t->i;
}

// ---- the evaluator ------------------------------------------------------------------------

Result Evaluator::Run(const onnx::NodeProto& n, const Inputs& in,
                      const std::vector<const Dims*>& shapes, const std::vector<int32_t>& types) {
  n_ = &n;
  const std::string& op = n.op_type();
  if (op == "Shape") return ShapeOp(shapes);
  if (op == "Size") return SizeOp(shapes);
  if (op == "CastLike") {
    if (in.size() != 2 || !in[0] || types[1] == 0) return std::nullopt;
    return One(Cast(*in[0], types[1]));
  }
  // Every other op needs all of its inputs to be constants; only the optional tails of Slice
  // (axes, steps), Squeeze, Unsqueeze and the reductions (axes) may be absent.
  const bool reduce = op.rfind("Reduce", 0) == 0;
  for (size_t k = 0; k < in.size(); ++k) {
    if (in[k]) continue;
    const bool optional =
        (op == "Slice" && k >= 3) || ((op == "Squeeze" || op == "Unsqueeze" || reduce) && k == 1);
    if (!optional || !n.input(static_cast<int>(k)).empty()) return std::nullopt;
  }
  if (in.empty() || !in[0]) return std::nullopt;
  if (op == "Identity") return One(*in[0]);
  if (op == "Cast") {
    const auto* to = FindAttr(n, "to");
    if (!to || in.size() != 1) return std::nullopt;
    return One(Cast(*in[0], static_cast<int32_t>(to->i())));
  }
  if (op == "Neg" || op == "Abs" || op == "Sign" || op == "Relu" || op == "Sqrt" ||
      op == "Reciprocal" || op == "Floor" || op == "Ceil" || op == "Round" || op == "Exp" ||
      op == "Log" || op == "Erf" || op == "Tanh" || op == "Not") {
    return Unary(op, in);
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Mod" || op == "Pow" ||
      op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" ||
      op == "GreaterOrEqual" || op == "And" || op == "Or" || op == "Xor") {
    if (in.size() != 2) return std::nullopt;
    return Binary(op, *in[0], *in[1]);
  }
  if (op == "Max" || op == "Min" || op == "Sum") {
    if (in.empty()) return std::nullopt;
    ConstTensor acc = *in[0];
    for (size_t k = 1; k < in.size(); ++k) {
      auto r = Binary(op, acc, *in[k]);
      if (!r) return std::nullopt;
      acc = std::move(r->front());
    }
    return One(std::move(acc));
  }
  if (op == "Where") return WhereOp(in);
  if (op == "Gather") return GatherOp(in);
  if (op == "Concat") return ConcatOp(in);
  if (op == "Unsqueeze") return UnsqueezeOp(in);
  if (op == "Squeeze") return SqueezeOp(in);
  if (op == "Slice") return SliceOp(in);
  if (op == "Reshape") return ReshapeOp(in);
  if (op == "Flatten") return FlattenOp(in);
  if (op == "Expand") return ExpandOp(in);
  if (op == "Tile") return TileOp(in);
  if (op == "Transpose") return TransposeOp(in);
  if (op == "ConstantOfShape") return ConstantOfShapeOp(in);
  if (op == "Range") return RangeOp(in);
  if (op == "ReduceProd" || op == "ReduceMin" || op == "ReduceMax" || op == "ReduceSum" ||
      op == "ReduceMean") {
    return ReduceOp(op, in);
  }
  if (op == "ScatterElements") return ScatterElementsOp(in);
  return std::nullopt;
}

}  // namespace const_eval

std::optional<ConstTensor> FromProto(const onnx::TensorProto& t, uint64_t max) {
  return const_eval::FromProtoImpl(t, max);
}

void ToProto(const ConstTensor& c, const std::string& name, onnx::TensorProto* t) {
  const_eval::ToProtoImpl(c, name, t);
}

ConstResult EvaluateConstant(const onnx::NodeProto& n, const ConstInputs& in,
                             const std::vector<const ConstDims*>& shapes,
                             const std::vector<int32_t>& types, uint64_t max_elements) {
  return const_eval::Evaluator(max_elements).Run(n, in, shapes, types);
}

}  // namespace ngraphbench
