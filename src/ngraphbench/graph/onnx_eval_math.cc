// The constant evaluator's arithmetic: Cast, the elementwise operators, Where, reductions.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ngraphbench/graph/onnx_eval_internal.h"

namespace ngraphbench::const_eval {

std::optional<ConstTensor> Evaluator::Cast(const ConstTensor& x, int32_t to) {
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

Result Evaluator::Unary(const std::string& op, const Inputs& in) {
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

namespace {

// Equal, Less, Greater, LessOrEqual or GreaterOrEqual (Binary's `compare` operators) of x and z.
template <typename T>
bool Compares(const std::string& op, T x, T z) {
  return op == "Equal"         ? x == z
         : op == "Less"        ? x < z
         : op == "Greater"     ? x > z
         : op == "LessOrEqual" ? x <= z
                               : x >= z;
}

}  // namespace

Result Evaluator::Binary(const std::string& op, const ConstTensor& a, const ConstTensor& b) {
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
        y.i[lin] = Compares(op, x, z);
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
        y.i[lin] = Compares(op, x, z);
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

Result Evaluator::WhereOp(const Inputs& in) {
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

Result Evaluator::ReduceOp(const std::string& op, const Inputs& in) {
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

}  // namespace ngraphbench::const_eval
