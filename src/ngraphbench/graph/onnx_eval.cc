#include "ngraphbench/graph/onnx_eval.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>

namespace ngraphbench {

bool IsFloatType(int32_t type) {
  return type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::DOUBLE;
}

namespace {

using onnx::TensorProto;
using Dims = ConstDims;

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

// Copies element `from` of `src` to element `to` of `dst` (same type family).
inline void CopyElement(const ConstTensor& src, size_t from, ConstTensor& dst, size_t to) {
  if (src.IsFloat())
    dst.f[to] = src.f[from];
  else
    dst.i[to] = src.i[from];
}

// The int64 values of an integer tensor of at most `max_rank` 1.
std::optional<Dims> IntValues(const ConstTensor* t) {
  if (!t || t->IsFloat() || t->type == TensorProto::BOOL || t->dims.size() > 1) return std::nullopt;
  return t->i;
}

// ---- the evaluator ------------------------------------------------------------------------

using Inputs = std::vector<const ConstTensor*>;  // nullptr: absent, or not a constant
using Result = std::optional<std::vector<ConstTensor>>;

class Evaluator {
 public:
  explicit Evaluator(uint64_t max_elements) : max_(max_elements) {}

  // `in` holds the constant inputs; `shapes` the static shapes of every input (also the
  // non-constant ones, for Shape and Size), `types` their element types.
  Result Run(const onnx::NodeProto& n, const Inputs& in, const std::vector<const Dims*>& shapes,
             const std::vector<int32_t>& types) {
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

 private:
  static Result One(std::optional<ConstTensor> t) {
    if (!t) return std::nullopt;
    return std::vector<ConstTensor>{std::move(*t)};
  }

  bool Fits(const Dims& dims) const { return CountAtMost(dims, max_).has_value(); }

  // Only integer values of a 1-D (or scalar) int tensor: shapes, axes, repeats.
  static std::optional<Dims> Ints(const Inputs& in, size_t k) {
    return k < in.size() ? IntValues(in[k]) : std::nullopt;
  }

  // An `axes` list from the attribute (older opsets) or from input `k` (newer ones).
  std::optional<Dims> AxesOf(const Inputs& in, size_t k, bool* given) const {
    *given = true;
    if (auto a = IntsAttr(*n_, "axes")) return a;
    if (k < in.size() && in[k]) return IntValues(in[k]);
    *given = false;
    return Dims{};
  }

  Result ShapeOp(const std::vector<const Dims*>& shapes) {
    if (shapes.size() != 1 || !shapes[0]) return std::nullopt;
    const Dims& d = *shapes[0];
    const int64_t rank = static_cast<int64_t>(d.size());
    int64_t start = IntAttr(*n_, "start", 0), end = IntAttr(*n_, "end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, 0, rank);
    ConstTensor t = Make(TensorProto::INT64, {std::max<int64_t>(end - start, 0)});
    for (int64_t k = start; k < end; ++k) t.i[k - start] = d[k];
    return One(std::move(t));
  }

  Result SizeOp(const std::vector<const Dims*>& shapes) {
    if (shapes.size() != 1 || !shapes[0]) return std::nullopt;
    const auto count = CountAtMost(*shapes[0], std::numeric_limits<int64_t>::max());
    if (!count) return std::nullopt;
    ConstTensor t = Make(TensorProto::INT64, {});
    t.i[0] = static_cast<int64_t>(*count);
    return One(std::move(t));
  }

  static std::optional<ConstTensor> Cast(const ConstTensor& x, int32_t to) {
    if (!Foldable(to)) return std::nullopt;
    ConstTensor y = Make(to, x.dims);
    const size_t n = x.Count();
    for (size_t k = 0; k < n; ++k) {
      if (y.IsFloat()) {
        y.f[k] = x.IsFloat() ? x.f[k] : static_cast<double>(x.i[k]);
      } else if (to == TensorProto::BOOL) {
        y.i[k] = x.IsFloat() ? x.f[k] != 0.0 : x.i[k] != 0;
      } else if (x.IsFloat()) {
        // Out-of-range float-to-int casts are undefined in the runtimes: leave them to run.
        const double v = std::trunc(x.f[k]);
        if (!std::isfinite(v) || v < -9.2e18 || v > 9.2e18) return std::nullopt;
        const int64_t iv = static_cast<int64_t>(v);
        if (Wrap(iv, to) != iv) return std::nullopt;
        y.i[k] = iv;
      } else {
        y.i[k] = x.i[k];
      }
    }
    Finalize(y);
    return y;
  }

  Result Unary(const std::string& op, const Inputs& in) {
    if (in.size() != 1) return std::nullopt;
    ConstTensor y = *in[0];
    const bool is_bool = y.type == TensorProto::BOOL;
    if (op == "Not") {
      if (!is_bool) return std::nullopt;
      for (auto& v : y.i) v = !v;
      return One(std::move(y));
    }
    if (is_bool) return std::nullopt;
    if (y.IsFloat()) {
      double (*fn)(double) = nullptr;
      if (op == "Neg")
        fn = [](double v) { return -v; };
      else if (op == "Abs")
        fn = [](double v) { return std::fabs(v); };
      else if (op == "Sign")
        fn = [](double v) { return v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0; };
      else if (op == "Relu")
        fn = [](double v) { return v > 0 ? v : 0.0; };
      else if (op == "Sqrt")
        fn = [](double v) { return std::sqrt(v); };
      else if (op == "Reciprocal")
        fn = [](double v) { return 1.0 / v; };
      else if (op == "Floor")
        fn = [](double v) { return std::floor(v); };
      else if (op == "Ceil")
        fn = [](double v) { return std::ceil(v); };
      else if (op == "Round")
        fn = [](double v) { return std::nearbyint(v); };  // half to even
      else if (op == "Exp")
        fn = [](double v) { return std::exp(v); };
      else if (op == "Log")
        fn = [](double v) { return std::log(v); };
      else if (op == "Erf")
        fn = [](double v) { return std::erf(v); };
      else if (op == "Tanh")
        fn = [](double v) { return std::tanh(v); };
      if (!fn) return std::nullopt;
      // Exp, Log, Erf, Tanh: a float32 runtime may round the last bit differently than double
      // rounded to float; they only meet constants in scalar prologues (a GELU's constants).
      for (double& v : y.f) v = fn(v);
      Finalize(y);
      return One(std::move(y));
    }
    // Integer types.
    for (int64_t& v : y.i) {
      if (op == "Neg")
        v = static_cast<int64_t>(0 - static_cast<uint64_t>(v));
      else if (op == "Abs")
        v = v < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(v)) : v;
      else if (op == "Sign")
        v = v > 0 ? 1 : v < 0 ? -1 : 0;
      else if (op == "Relu")
        v = v > 0 ? v : 0;
      else
        return std::nullopt;
    }
    Finalize(y);
    return One(std::move(y));
  }

  Result Binary(const std::string& op, const ConstTensor& a, const ConstTensor& b) {
    const bool compare = op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" ||
                         op == "GreaterOrEqual";
    const bool logical = op == "And" || op == "Or" || op == "Xor";
    if (op == "Pow") {
      if (!a.IsFloat()) return std::nullopt;
    } else if (a.type != b.type) {
      return std::nullopt;
    }
    const bool is_bool = a.type == TensorProto::BOOL;
    if (logical != is_bool && !(is_bool && op == "Equal")) return std::nullopt;
    const auto dims = Broadcast(a.dims, b.dims);
    if (!dims || !Fits(*dims)) return std::nullopt;
    ConstTensor y = Make(compare ? TensorProto::BOOL : a.type, *dims);
    const std::vector<Dims> strides = {BroadcastStrides(a.dims, *dims),
                                       BroadcastStrides(b.dims, *dims)};
    bool ok = true;
    const int64_t fmod = IntAttr(*n_, "fmod", 0);
    if (op == "Mod" && a.IsFloat() && fmod != 1) return std::nullopt;
    if (a.IsFloat()) {
      ForEachIndex(*dims, strides, [&](size_t lin, const std::vector<int64_t>& off) {
        const double x = a.f[off[0]];
        const double z = b.IsFloat() ? b.f[off[1]] : static_cast<double>(b.i[off[1]]);
        if (compare) {
          y.i[lin] = op == "Equal"         ? x == z
                     : op == "Less"        ? x < z
                     : op == "Greater"     ? x > z
                     : op == "LessOrEqual" ? x <= z
                                           : x >= z;
          return;
        }
        double r = 0;
        if (op == "Add")
          r = x + z;
        else if (op == "Sub")
          r = x - z;
        else if (op == "Mul")
          r = x * z;
        else if (op == "Div")
          r = x / z;
        else if (op == "Mod")
          r = std::fmod(x, z);
        else if (op == "Pow")
          r = std::pow(x, z);
        else if (op == "Max")
          r = std::max(x, z);
        else if (op == "Min")
          r = std::min(x, z);
        else if (op == "Sum")
          r = x + z;
        else
          ok = false;
        y.f[lin] = r;
      });
    } else {
      ForEachIndex(*dims, strides, [&](size_t lin, const std::vector<int64_t>& off) {
        const int64_t x = a.i[off[0]], z = b.i[off[1]];
        const uint64_t ux = static_cast<uint64_t>(x), uz = static_cast<uint64_t>(z);
        if (compare) {
          y.i[lin] = op == "Equal"         ? x == z
                     : op == "Less"        ? x < z
                     : op == "Greater"     ? x > z
                     : op == "LessOrEqual" ? x <= z
                                           : x >= z;
          return;
        }
        int64_t r = 0;
        if (op == "And")
          r = x && z;
        else if (op == "Or")
          r = x || z;
        else if (op == "Xor")
          r = (x != 0) != (z != 0);
        else if (op == "Add" || op == "Sum")
          r = static_cast<int64_t>(ux + uz);
        else if (op == "Sub")
          r = static_cast<int64_t>(ux - uz);
        else if (op == "Mul")
          r = static_cast<int64_t>(ux * uz);
        else if (op == "Max")
          r = std::max(x, z);
        else if (op == "Min")
          r = std::min(x, z);
        else if (op == "Div" || op == "Mod") {
          // Division by zero is undefined in the runtimes: leave it to run.
          if (z == 0 || (x == std::numeric_limits<int64_t>::min() && z == -1)) {
            ok = false;
            return;
          }
          if (op == "Div") {
            r = x / z;  // truncation toward zero, as C++ runtimes divide
          } else {
            r = x % z;
            // fmod=0: the result takes the divisor's sign (Python's %).
            if (fmod == 0 && r != 0 && ((r < 0) != (z < 0))) r += z;
          }
        } else {
          ok = false;
        }
        y.i[lin] = r;
      });
    }
    if (!ok) return std::nullopt;
    Finalize(y);
    return One(std::move(y));
  }

  Result WhereOp(const Inputs& in) {
    if (in.size() != 3) return std::nullopt;
    const ConstTensor &c = *in[0], &x = *in[1], &z = *in[2];
    if (c.type != TensorProto::BOOL || x.type != z.type) return std::nullopt;
    auto dims = Broadcast(c.dims, x.dims);
    if (dims) dims = Broadcast(*dims, z.dims);
    if (!dims || !Fits(*dims)) return std::nullopt;
    ConstTensor y = Make(x.type, *dims);
    ForEachIndex(*dims,
                 {BroadcastStrides(c.dims, *dims), BroadcastStrides(x.dims, *dims),
                  BroadcastStrides(z.dims, *dims)},
                 [&](size_t lin, const std::vector<int64_t>& off) {
                   if (c.i[off[0]])
                     CopyElement(x, off[1], y, lin);
                   else
                     CopyElement(z, off[2], y, lin);
                 });
    return One(std::move(y));
  }

  Result GatherOp(const Inputs& in) {
    if (in.size() != 2) return std::nullopt;
    const ConstTensor &data = *in[0], &idx = *in[1];
    if (idx.type != TensorProto::INT64 && idx.type != TensorProto::INT32) return std::nullopt;
    const int64_t rank = static_cast<int64_t>(data.dims.size());
    const auto axis = Axis(IntAttr(*n_, "axis", 0), rank);
    if (!axis) return std::nullopt;
    Dims dims(data.dims.begin(), data.dims.begin() + *axis);
    dims.insert(dims.end(), idx.dims.begin(), idx.dims.end());
    dims.insert(dims.end(), data.dims.begin() + *axis + 1, data.dims.end());
    if (!Fits(dims)) return std::nullopt;
    ConstTensor y = Make(data.type, dims);
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < *axis; ++k) outer *= data.dims[k];
    for (int64_t k = *axis + 1; k < rank; ++k) inner *= data.dims[k];
    const int64_t extent = data.dims[*axis];
    const int64_t count = static_cast<int64_t>(idx.i.size());
    size_t out = 0;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < count; ++j) {
        int64_t at = idx.i[j];
        if (at < 0) at += extent;
        if (at < 0 || at >= extent) return std::nullopt;
        for (int64_t k = 0; k < inner; ++k) {
          CopyElement(data, static_cast<size_t>((o * extent + at) * inner + k), y, out++);
        }
      }
    }
    return One(std::move(y));
  }

  Result ConcatOp(const Inputs& in) {
    if (in.empty()) return std::nullopt;
    const int64_t rank = static_cast<int64_t>(in[0]->dims.size());
    const auto* axis_attr = FindAttr(*n_, "axis");
    if (!axis_attr) return std::nullopt;
    const auto axis = Axis(axis_attr->i(), rank);
    if (!axis) return std::nullopt;
    Dims dims = in[0]->dims;
    dims[*axis] = 0;
    for (const ConstTensor* t : in) {
      if (t->type != in[0]->type || static_cast<int64_t>(t->dims.size()) != rank)
        return std::nullopt;
      for (int64_t k = 0; k < rank; ++k) {
        if (k != *axis && t->dims[k] != in[0]->dims[k]) return std::nullopt;
      }
      dims[*axis] += t->dims[*axis];
      if (!Fits(dims)) return std::nullopt;
    }
    ConstTensor y = Make(in[0]->type, dims);
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < *axis; ++k) outer *= dims[k];
    for (int64_t k = *axis + 1; k < rank; ++k) inner *= dims[k];
    size_t out = 0;
    for (int64_t o = 0; o < outer; ++o) {
      for (const ConstTensor* t : in) {
        const int64_t block = t->dims[*axis] * inner;
        for (int64_t k = 0; k < block; ++k)
          CopyElement(*t, static_cast<size_t>(o * block + k), y, out++);
      }
    }
    return One(std::move(y));
  }

  Result UnsqueezeOp(const Inputs& in) {
    bool given = false;
    const auto axes = AxesOf(in, 1, &given);
    if (!axes || !given || in.empty()) return std::nullopt;
    const int64_t rank = static_cast<int64_t>(in[0]->dims.size() + axes->size());
    std::vector<bool> inserted(rank, false);
    for (int64_t a : *axes) {
      const auto at = Axis(a, rank);
      if (!at || inserted[*at]) return std::nullopt;
      inserted[*at] = true;
    }
    ConstTensor y = *in[0];
    y.dims.clear();
    size_t next = 0;
    for (int64_t k = 0; k < rank; ++k) y.dims.push_back(inserted[k] ? 1 : in[0]->dims[next++]);
    return One(std::move(y));
  }

  Result SqueezeOp(const Inputs& in) {
    bool given = false;
    const auto axes = AxesOf(in, 1, &given);
    if (!axes || in.empty()) return std::nullopt;
    const ConstTensor& x = *in[0];
    const int64_t rank = static_cast<int64_t>(x.dims.size());
    std::vector<bool> drop(rank, false);
    if (!given || axes->empty()) {
      for (int64_t k = 0; k < rank; ++k) drop[k] = x.dims[k] == 1;
    } else {
      for (int64_t a : *axes) {
        const auto at = Axis(a, rank);
        if (!at || x.dims[*at] != 1) return std::nullopt;
        drop[*at] = true;
      }
    }
    ConstTensor y = x;
    y.dims.clear();
    for (int64_t k = 0; k < rank; ++k) {
      if (!drop[k]) y.dims.push_back(x.dims[k]);
    }
    return One(std::move(y));
  }

  Result SliceOp(const Inputs& in) {
    if (in.empty()) return std::nullopt;
    const ConstTensor& x = *in[0];
    const int64_t rank = static_cast<int64_t>(x.dims.size());
    std::optional<Dims> starts, ends, axes, steps;
    if (auto s = IntsAttr(*n_, "starts")) {  // opset < 10: attributes
      starts = s;
      ends = IntsAttr(*n_, "ends");
      axes = IntsAttr(*n_, "axes");
    } else {
      starts = Ints(in, 1);
      ends = Ints(in, 2);
      if (in.size() > 3 && in[3]) axes = Ints(in, 3);
      if (in.size() > 4 && in[4]) steps = Ints(in, 4);
    }
    if (!starts || !ends || starts->size() != ends->size()) return std::nullopt;
    const size_t count = starts->size();
    if (!axes) {
      axes = Dims(count);
      for (size_t k = 0; k < count; ++k) (*axes)[k] = static_cast<int64_t>(k);
    }
    if (!steps) steps = Dims(count, 1);
    if (axes->size() != count || steps->size() != count) return std::nullopt;
    Dims begin(rank, 0), step(rank, 1), dims = x.dims;
    std::vector<bool> seen(rank, false);
    for (size_t k = 0; k < count; ++k) {
      const auto axis = Axis((*axes)[k], rank);
      if (!axis || seen[*axis] || (*steps)[k] == 0) return std::nullopt;
      seen[*axis] = true;
      const int64_t d = x.dims[*axis], st = (*steps)[k];
      int64_t s = (*starts)[k], e = (*ends)[k];
      if (s < 0) s = s < -d ? -1 : s + d;  // guards INT64_MIN + d
      if (e < 0) e = e < -d ? -1 : e + d;
      // |step| as unsigned: -INT64_MIN does not fit in int64.
      const uint64_t magnitude =
          st > 0 ? static_cast<uint64_t>(st) : static_cast<uint64_t>(-(st + 1)) + 1;
      int64_t n = 0;
      if (st > 0) {
        s = std::clamp<int64_t>(s, 0, d);
        e = std::clamp<int64_t>(e, 0, d);
        if (e > s) n = static_cast<int64_t>(static_cast<uint64_t>(e - s - 1) / magnitude) + 1;
      } else {
        s = std::clamp<int64_t>(s, 0, d - 1);
        e = std::clamp<int64_t>(e, -1, d - 1);
        if (s > e) n = static_cast<int64_t>(static_cast<uint64_t>(s - e - 1) / magnitude) + 1;
      }
      begin[*axis] = s;
      step[*axis] = n > 1 ? st : 1;  // a step never taken cannot overflow the walk below
      dims[*axis] = n;
    }
    ConstTensor y = Make(x.type, dims);
    const Dims in_strides = Strides(x.dims);
    Dims walk(rank);
    int64_t base = 0;
    for (int64_t k = 0; k < rank; ++k) {
      walk[k] = in_strides[k] * step[k];
      base += begin[k] * in_strides[k];
    }
    ForEachIndex(dims, {walk}, [&](size_t lin, const std::vector<int64_t>& off) {
      CopyElement(x, static_cast<size_t>(base + off[0]), y, lin);
    });
    return One(std::move(y));
  }

  Result ReshapeOp(const Inputs& in) {
    const auto shape = Ints(in, 1);
    if (!shape || in[1]->dims.size() != 1) return std::nullopt;
    const ConstTensor& x = *in[0];
    const bool allowzero = IntAttr(*n_, "allowzero", 0) != 0;
    Dims dims = *shape;
    int64_t infer = -1, known = 1;
    for (size_t k = 0; k < dims.size(); ++k) {
      if (dims[k] == 0 && !allowzero) {
        if (k >= x.dims.size()) return std::nullopt;
        dims[k] = x.dims[k];
      }
      if (dims[k] == -1) {
        if (infer >= 0) return std::nullopt;
        infer = static_cast<int64_t>(k);
      } else if (dims[k] < 0) {
        return std::nullopt;
      } else {
        if (dims[k] > 0 && known > std::numeric_limits<int64_t>::max() / dims[k])
          return std::nullopt;
        known *= dims[k];
      }
    }
    const int64_t count = static_cast<int64_t>(x.Count());
    if (infer >= 0) {
      if (known == 0 || count % known != 0) return std::nullopt;
      dims[infer] = count / known;
    } else if (known != count) {
      return std::nullopt;
    }
    ConstTensor y = x;
    y.dims = dims;
    return One(std::move(y));
  }

  Result FlattenOp(const Inputs& in) {
    if (in.size() != 1) return std::nullopt;
    const ConstTensor& x = *in[0];
    const int64_t rank = static_cast<int64_t>(x.dims.size());
    int64_t axis = IntAttr(*n_, "axis", 1);
    if (axis < -rank || axis > rank) return std::nullopt;
    if (axis < 0) axis += rank;
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < rank; ++k) (k < axis ? outer : inner) *= x.dims[k];
    ConstTensor y = x;
    y.dims = {outer, inner};
    return One(std::move(y));
  }

  Result ExpandOp(const Inputs& in) {
    const auto shape = Ints(in, 1);
    if (!shape || in[1]->dims.size() != 1) return std::nullopt;
    const ConstTensor& x = *in[0];
    const auto dims = Broadcast(x.dims, *shape);
    if (!dims || !Fits(*dims)) return std::nullopt;
    ConstTensor y = Make(x.type, *dims);
    ForEachIndex(*dims, {BroadcastStrides(x.dims, *dims)},
                 [&](size_t lin, const std::vector<int64_t>& off) {
                   CopyElement(x, static_cast<size_t>(off[0]), y, lin);
                 });
    return One(std::move(y));
  }

  Result TileOp(const Inputs& in) {
    const auto repeats = Ints(in, 1);
    if (!repeats || in.empty()) return std::nullopt;
    const ConstTensor& x = *in[0];
    if (repeats->size() != x.dims.size()) return std::nullopt;
    Dims dims(x.dims.size());
    for (size_t k = 0; k < dims.size(); ++k) {
      if ((*repeats)[k] < 0) return std::nullopt;
      if (x.dims[k] > 0 && (*repeats)[k] > std::numeric_limits<int64_t>::max() / x.dims[k]) {
        return std::nullopt;
      }
      dims[k] = x.dims[k] * (*repeats)[k];
    }
    if (!Fits(dims)) return std::nullopt;
    ConstTensor y = Make(x.type, dims);
    const Dims in_strides = Strides(x.dims);
    const size_t n = y.Count();
    Dims idx(dims.size(), 0);
    for (size_t lin = 0; lin < n; ++lin) {
      int64_t from = 0;
      for (size_t k = 0; k < dims.size(); ++k) from += (idx[k] % x.dims[k]) * in_strides[k];
      CopyElement(x, static_cast<size_t>(from), y, lin);
      for (size_t k = dims.size(); k-- > 0;) {
        if (++idx[k] < dims[k]) break;
        idx[k] = 0;
      }
    }
    return One(std::move(y));
  }

  Result TransposeOp(const Inputs& in) {
    if (in.size() != 1) return std::nullopt;
    const ConstTensor& x = *in[0];
    const int64_t rank = static_cast<int64_t>(x.dims.size());
    Dims perm(rank);
    for (int64_t k = 0; k < rank; ++k) perm[k] = rank - 1 - k;
    if (auto p = IntsAttr(*n_, "perm")) perm = *p;
    if (static_cast<int64_t>(perm.size()) != rank) return std::nullopt;
    std::vector<bool> seen(rank, false);
    Dims dims(rank), walk(rank);
    const Dims in_strides = Strides(x.dims);
    for (int64_t k = 0; k < rank; ++k) {
      if (perm[k] < 0 || perm[k] >= rank || seen[perm[k]]) return std::nullopt;
      seen[perm[k]] = true;
      dims[k] = x.dims[perm[k]];
      walk[k] = in_strides[perm[k]];
    }
    ConstTensor y = Make(x.type, dims);
    ForEachIndex(dims, {walk}, [&](size_t lin, const std::vector<int64_t>& off) {
      CopyElement(x, static_cast<size_t>(off[0]), y, lin);
    });
    return One(std::move(y));
  }

  Result ConstantOfShapeOp(const Inputs& in) {
    const auto shape = Ints(in, 0);
    if (!shape || in[0]->dims.size() != 1 || !Fits(*shape)) return std::nullopt;
    ConstTensor value = Make(TensorProto::FLOAT, {1});
    if (const auto* a = FindAttr(*n_, "value")) {
      auto v = FromProtoImpl(a->t(), 1);
      if (!v || v->Count() != 1) return std::nullopt;
      value = std::move(*v);
    }
    ConstTensor y = Make(value.type, *shape);
    if (y.IsFloat())
      std::fill(y.f.begin(), y.f.end(), value.f[0]);
    else
      std::fill(y.i.begin(), y.i.end(), value.i[0]);
    return One(std::move(y));
  }

  Result RangeOp(const Inputs& in) {
    if (in.size() != 3) return std::nullopt;
    for (const ConstTensor* t : in) {
      if (t->Count() != 1 || t->type != in[0]->type || t->type == TensorProto::BOOL)
        return std::nullopt;
    }
    const int32_t type = in[0]->type;
    double count = 0;
    if (IsFloatType(type)) {
      const double start = in[0]->f[0], limit = in[1]->f[0], delta = in[2]->f[0];
      if (delta == 0 || !std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta)) {
        return std::nullopt;
      }
      count = std::max(std::ceil((limit - start) / delta), 0.0);
    } else {
      const long double start = in[0]->i[0], limit = in[1]->i[0], delta = in[2]->i[0];
      if (delta == 0) return std::nullopt;
      count = static_cast<double>(std::max<long double>(std::ceil((limit - start) / delta), 0));
    }
    if (!(count <= static_cast<double>(max_))) return std::nullopt;
    ConstTensor y = Make(type, {static_cast<int64_t>(count)});
    for (size_t k = 0; k < y.Count(); ++k) {
      if (IsFloatType(type)) {
        y.f[k] = in[0]->f[0] + static_cast<double>(k) * in[2]->f[0];
      } else {
        y.i[k] =
            static_cast<int64_t>(static_cast<uint64_t>(in[0]->i[0]) +
                                 static_cast<uint64_t>(k) * static_cast<uint64_t>(in[2]->i[0]));
      }
    }
    Finalize(y);
    return One(std::move(y));
  }

  Result ReduceOp(const std::string& op, const Inputs& in) {
    if (in.empty()) return std::nullopt;
    const ConstTensor& x = *in[0];
    if (x.type == TensorProto::BOOL || (op == "ReduceMean" && !x.IsFloat())) return std::nullopt;
    bool given = false;
    const auto axes = AxesOf(in, 1, &given);
    if (!axes) return std::nullopt;
    const int64_t rank = static_cast<int64_t>(x.dims.size());
    std::vector<bool> reduce(rank, false);
    if (axes->empty()) {
      if (IntAttr(*n_, "noop_with_empty_axes", 0)) return One(x);
      std::fill(reduce.begin(), reduce.end(), true);
    }
    for (int64_t a : *axes) {
      const auto at = Axis(a, rank);
      if (!at) return std::nullopt;
      reduce[*at] = true;
    }
    const bool keepdims = IntAttr(*n_, "keepdims", 1) != 0;
    Dims kept_dims, out_dims;
    int64_t group = 1;
    for (int64_t k = 0; k < rank; ++k) {
      if (reduce[k]) group *= x.dims[k];
      kept_dims.push_back(reduce[k] ? 1 : x.dims[k]);
      if (!reduce[k] || keepdims) out_dims.push_back(kept_dims.back());
    }
    if (group == 0 && (op == "ReduceMin" || op == "ReduceMax" || op == "ReduceMean")) {
      return std::nullopt;
    }
    ConstTensor y = Make(x.type, kept_dims);
    const double init = op == "ReduceProd" ? 1.0 : 0.0;
    std::vector<bool> first(y.Count(), true);
    if (y.IsFloat())
      std::fill(y.f.begin(), y.f.end(), init);
    else
      std::fill(y.i.begin(), y.i.end(), static_cast<int64_t>(init));
    Dims out_strides = Strides(kept_dims);
    for (int64_t k = 0; k < rank; ++k) {
      if (reduce[k]) out_strides[k] = 0;
    }
    ForEachIndex(
        x.dims, {Strides(x.dims), out_strides}, [&](size_t, const std::vector<int64_t>& off) {
          const size_t o = static_cast<size_t>(off[1]);
          if (y.IsFloat()) {
            const double v = x.f[off[0]];
            double& r = y.f[o];
            if (op == "ReduceProd")
              r *= v;
            else if (op == "ReduceSum" || op == "ReduceMean")
              r += v;
            else if (first[o])
              r = v;
            else
              r = op == "ReduceMin" ? std::min(r, v) : std::max(r, v);
          } else {
            const int64_t v = x.i[off[0]];
            int64_t& r = y.i[o];
            if (op == "ReduceProd")
              r = static_cast<int64_t>(static_cast<uint64_t>(r) * static_cast<uint64_t>(v));
            else if (op == "ReduceSum")
              r = static_cast<int64_t>(static_cast<uint64_t>(r) + static_cast<uint64_t>(v));
            else if (first[o])
              r = v;
            else
              r = op == "ReduceMin" ? std::min(r, v) : std::max(r, v);
          }
          first[o] = false;
        });
    if (op == "ReduceMean") {
      for (double& v : y.f) v /= static_cast<double>(group);
    }
    y.dims = out_dims;
    Finalize(y);
    return One(std::move(y));
  }

  Result ScatterElementsOp(const Inputs& in) {
    if (in.size() != 3 || StringAttr(*n_, "reduction", "none") != "none") return std::nullopt;
    const ConstTensor &data = *in[0], &idx = *in[1], &upd = *in[2];
    if ((idx.type != TensorProto::INT64 && idx.type != TensorProto::INT32) ||
        upd.type != data.type || idx.dims != upd.dims || idx.dims.size() != data.dims.size()) {
      return std::nullopt;
    }
    const int64_t rank = static_cast<int64_t>(data.dims.size());
    const auto axis = Axis(IntAttr(*n_, "axis", 0), rank);
    if (!axis) return std::nullopt;
    for (int64_t k = 0; k < rank; ++k) {
      if (k != *axis && idx.dims[k] > data.dims[k]) return std::nullopt;
    }
    ConstTensor y = data;
    const Dims data_strides = Strides(data.dims);
    Dims walk = data_strides;
    walk[*axis] = 0;
    bool ok = true;
    ForEachIndex(idx.dims, {walk}, [&](size_t lin, const std::vector<int64_t>& off) {
      int64_t at = idx.i[lin];
      if (at < 0) at += data.dims[*axis];
      if (at < 0 || at >= data.dims[*axis]) {
        ok = false;
        return;
      }
      CopyElement(upd, lin, y, static_cast<size_t>(off[0] + at * data_strides[*axis]));
    });
    if (!ok) return std::nullopt;
    return One(std::move(y));
  }

  uint64_t max_;
  const onnx::NodeProto* n_ = nullptr;
};

}  // namespace

std::optional<ConstTensor> FromProto(const onnx::TensorProto& t, uint64_t max) {
  return FromProtoImpl(t, max);
}

void ToProto(const ConstTensor& c, const std::string& name, onnx::TensorProto* t) {
  ToProtoImpl(c, name, t);
}

ConstResult EvaluateConstant(const onnx::NodeProto& n, const ConstInputs& in,
                             const std::vector<const ConstDims*>& shapes,
                             const std::vector<int32_t>& types, uint64_t max_elements) {
  return Evaluator(max_elements).Run(n, in, shapes, types);
}

}  // namespace ngraphbench
