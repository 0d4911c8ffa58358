// AtenProgram's elementwise operators: arithmetic, comparisons and logic, casts, activations.
#include <ATen/ATen.h>

#include <algorithm>
#include <numeric>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "ngraphbench/compilers/torch_common/aten_program_internal.h"

namespace ngraphbench::torch_common::aten_ops {

namespace {

using UnaryKernel = at::Tensor (*)(const at::Tensor&);

StepFn MakeUnary(ProgramBuilder& b, const Node& n, UnaryKernel kernel) {
  b.AllowAttrs(n, {});
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) { s[out] = kernel(s[x]); };
}

using BinaryKernel = at::Tensor (*)(const at::Tensor&, const at::Tensor&);

StepFn MakeBinary(ProgramBuilder& b, const Node& n, BinaryKernel kernel) {
  b.AllowAttrs(n, {});
  const int x = b.In(n, 0), y = b.In(n, 1), out = b.Out(n);
  return [=](Slots& s) { s[out] = kernel(s[x], s[y]); };
}

StepFn MakePow(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {});
  const int x = b.In(n, 0);
  // `x ** 2.0` in PyTorch passes a Python scalar: the scalar overload, which special-cases
  // small integral exponents.
  const Initializer* e = b.Constant(n, 1);
  if (e && e->dtype == DType::kFloat32 && e->tensor.data.size() == 1 &&
      e->tensor.shape.size() <= b.ShapeOfInput(n, 0).size()) {
    const double exponent = *b.ConstScalar(n, 1);
    const int out = b.Out(n);
    return [=](Slots& s) { s[out] = at::pow(s[x], exponent); };
  }
  const int y = b.In(n, 1), out = b.Out(n);
  return [=](Slots& s) { s[out] = at::pow(s[x], s[y]); };
}

StepFn MakeHardSigmoid(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"alpha", "beta"});
  const double alpha = n.FloatAttr("alpha", 0.2f), beta = n.FloatAttr("beta", 0.5f);
  const int x = b.In(n, 0), out = b.Out(n);
  // torch.nn.Hardsigmoid is alpha = 1/6, beta = 1/2 (as exported to ONNX, in float32).
  if (std::fabs(alpha - 1.0 / 6.0) < 1e-7 && beta == 0.5) {
    return [=](Slots& s) { s[out] = at::hardsigmoid(s[x]); };
  }
  return [=](Slots& s) { s[out] = at::clamp(s[x] * alpha + beta, 0.0, 1.0); };
}

StepFn MakeClip(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"min", "max"});  // attributes before opset 11
  std::optional<double> lo, hi;
  if (n.HasAttr("min")) lo = n.FloatAttr("min", 0.0f);
  if (n.HasAttr("max")) hi = n.FloatAttr("max", 0.0f);
  if (auto v = b.ConstScalar(n, 1)) lo = v;
  if (auto v = b.ConstScalar(n, 2)) hi = v;
  const int x = b.In(n, 0), out = b.Out(n);
  if (lo == 0.0 && hi == 6.0) {  // torch.nn.ReLU6
    return [=](Slots& s) { s[out] = at::hardtanh(s[x], 0.0, 6.0); };
  }
  std::optional<at::Scalar> lo_s, hi_s;
  if (lo) lo_s = *lo;
  if (hi) hi_s = *hi;
  return [=](Slots& s) { s[out] = at::clamp(s[x], lo_s, hi_s); };
}

StepFn MakeIdentity(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {});
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) { s[out] = s[x]; };
}

StepFn MakeDropout(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"seed"});
  // Inference: the identity, as nn.Dropout in eval mode. Training mode would draw a mask.
  if (b.Present(n, 2)) {
    const Initializer* mode = b.Constant(n, 2);
    const bool off = mode && ((mode->dtype == DType::kInt64 && mode->int64_data.size() == 1 &&
                               mode->int64_data[0] == 0) ||
                              (mode->dtype == DType::kFloat32 && mode->tensor.data.size() == 1 &&
                               mode->tensor.data[0] == 0.0f));
    if (!off) b.Fail(n, "training_mode must be a constant false (inference)");
  }
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) { s[out] = s[x]; };
}

// ONNX TensorProto data types to ATen's. FLOAT is the program's floating type, so that an
// fp16 or bf16 run keeps its precision through casts the exporter inserted.
std::optional<c10::ScalarType> CastTarget(int64_t onnx_type, c10::ScalarType program_float) {
  switch (onnx_type) {
    case 1: return program_float;    // FLOAT
    case 2: return at::kByte;        // UINT8
    case 3: return at::kChar;        // INT8
    case 5: return at::kShort;       // INT16
    case 6: return at::kInt;         // INT32
    case 7: return at::kLong;        // INT64
    case 9: return at::kBool;        // BOOL
    case 10: return at::kHalf;       // FLOAT16
    case 11: return at::kDouble;     // DOUBLE
    case 16: return at::kBFloat16;   // BFLOAT16
    default: return std::nullopt;
  }
}

StepFn MakeCast(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"to"});
  if (!n.HasAttr("to")) b.Fail(n, "attribute 'to' is required");
  const auto target = CastTarget(n.IntAttr("to", 0), b.dtype());
  if (!target) b.Fail(n, "cast to ONNX data type " + std::to_string(n.IntAttr("to", 0)));
  const c10::ScalarType type = *target;
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) { s[out] = s[x].to(type); };
}

StepFn MakeCastLike(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {});
  const int x = b.In(n, 0), like = b.In(n, 1), out = b.Out(n);
  return [=](Slots& s) { s[out] = s[x].to(s[like].scalar_type()); };
}

StepFn MakeWhere(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {});
  const int c = b.In(n, 0), x = b.In(n, 1), y = b.In(n, 2), out = b.Out(n);
  return [=](Slots& s) { s[out] = at::where(s[c], s[x], s[y]); };
}

// Sum, Mean, Max, Min of any number of inputs: torch.add / torch.maximum / ... applied in turn.
enum class Variadic { kSum, kMean, kMax, kMin };

StepFn MakeVariadic(ProgramBuilder& b, const Node& n, Variadic kind) {
  b.AllowAttrs(n, {});
  if (n.inputs.empty()) b.Fail(n, "needs at least one input");
  const std::vector<int> xs = b.AllIn(n);
  const int out = b.Out(n);
  return [=](Slots& s) {
    at::Tensor t = s[xs[0]];
    for (size_t i = 1; i < xs.size(); ++i) {
      const at::Tensor& v = s[xs[i]];
      switch (kind) {
        case Variadic::kSum:
        case Variadic::kMean: t = at::add(t, v); break;
        case Variadic::kMax: t = at::maximum(t, v); break;
        case Variadic::kMin: t = at::minimum(t, v); break;
      }
    }
    if (kind == Variadic::kMean && xs.size() > 1) t = at::div(t, static_cast<double>(xs.size()));
    s[out] = t;
  };
}

StepFn MakeMod(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"fmod"});
  const bool fmod = n.IntAttr("fmod", 0) != 0;
  const int x = b.In(n, 0), y = b.In(n, 1), out = b.Out(n);
  // fmod 1: C's fmod, the dividend's sign (torch.fmod); fmod 0: the divisor's sign, Python's %
  // (torch.remainder).
  if (fmod) return [=](Slots& s) { s[out] = at::fmod(s[x], s[y]); };
  return [=](Slots& s) { s[out] = at::remainder(s[x], s[y]); };
}

// ONNX Div on integers truncates (as C does); torch.div would return floats.
StepFn MakeDiv(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {});
  const int x = b.In(n, 0), y = b.In(n, 1), out = b.Out(n);
  return [=](Slots& s) {
    const bool integral = !at::isFloatingType(s[x].scalar_type()) &&
                          !at::isFloatingType(s[y].scalar_type());
    s[out] = integral ? at::div(s[x], s[y], "trunc") : at::div(s[x], s[y]);
  };
}

StepFn MakeLeakyRelu(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"alpha"});
  const double alpha = n.FloatAttr("alpha", 0.01f);
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) { s[out] = at::leaky_relu(s[x], alpha); };
}

StepFn MakeElu(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"alpha"});
  const double alpha = n.FloatAttr("alpha", 1.0f);
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) { s[out] = at::elu(s[x], alpha); };
}

StepFn MakeCelu(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"alpha"});
  const double alpha = n.FloatAttr("alpha", 1.0f);
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) { s[out] = at::celu(s[x], alpha); };
}

StepFn MakeSelu(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"alpha", "gamma"});
  // ONNX's defaults are torch.nn.SELU's constants in float32.
  constexpr float kAlpha = 1.67326319217681884765625f, kGamma = 1.05070102214813232421875f;
  const float alpha = n.FloatAttr("alpha", kAlpha), gamma = n.FloatAttr("gamma", kGamma);
  const int x = b.In(n, 0), out = b.Out(n);
  if (alpha == kAlpha && gamma == kGamma) return [=](Slots& s) { s[out] = at::selu(s[x]); };
  return [=](Slots& s) { s[out] = at::elu(s[x], alpha, gamma); };
}

StepFn MakePRelu(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {});
  const Shape& in = b.ShapeOfInput(n, 0);
  const Shape& slope = b.ShapeOfInput(n, 1);
  const int64_t count = NumElements(slope);
  // torch.nn.PReLU's weight is one value or one per channel (axis 1); the exporter writes it
  // as [C, 1, 1]. Any other slope broadcasts as ONNX says, computed as a where.
  bool per_channel = count == 1;
  if (!per_channel && in.size() >= 2 && count == in[1] && slope.size() <= in.size() - 1) {
    per_channel = true;
    for (size_t i = 0; i < slope.size(); ++i) {
      const size_t axis = in.size() - slope.size() + i;
      if (axis != 1 && slope[i] != 1) per_channel = false;
    }
  }
  const int x = b.In(n, 0), w = b.In(n, 1), out = b.Out(n);
  if (per_channel) {
    return [=](Slots& s) { s[out] = at::prelu(s[x], s[w].reshape({count})); };
  }
  return [=](Slots& s) { s[out] = at::where(s[x] >= 0, s[x], s[x] * s[w]); };
}

}  // namespace

void AddElementwiseOps(MakerTable& table) {
  auto unary = [](UnaryKernel k) {
    return [k](ProgramBuilder& b, const Node& n) { return MakeUnary(b, n, k); };
  };
  auto binary = [](BinaryKernel k) {
    return [k](ProgramBuilder& b, const Node& n) { return MakeBinary(b, n, k); };
  };
  auto variadic = [](Variadic kind) {
    return [kind](ProgramBuilder& b, const Node& n) { return MakeVariadic(b, n, kind); };
  };
  using T = const at::Tensor&;
  table.insert({
      {"Abs", unary([](T a) { return at::abs(a); })},
      {"Add", binary([](T a, T c) { return at::add(a, c); })},
      {"And", binary([](T a, T c) { return at::logical_and(a, c); })},
      {"Cast", MakeCast},
      {"CastLike", MakeCastLike},
      {"Ceil", unary([](T a) { return at::ceil(a); })},
      {"Celu", MakeCelu},
      {"Clip", MakeClip},
      {"Cos", unary([](T a) { return at::cos(a); })},
      {"Div", MakeDiv},
      {"Dropout", MakeDropout},
      {"Elu", MakeElu},
      {"Equal", binary([](T a, T c) { return at::eq(a, c); })},
      {"Erf", unary([](T a) { return at::erf(a); })},
      {"Exp", unary([](T a) { return at::exp(a); })},
      {"Floor", unary([](T a) { return at::floor(a); })},
      {"Greater", binary([](T a, T c) { return at::gt(a, c); })},
      {"GreaterOrEqual", binary([](T a, T c) { return at::ge(a, c); })},
      {"HardSigmoid", MakeHardSigmoid},
      {"HardSwish", unary([](T a) { return at::hardswish(a); })},
      {"Identity", MakeIdentity},
      {"LeakyRelu", MakeLeakyRelu},
      {"Less", binary([](T a, T c) { return at::lt(a, c); })},
      {"LessOrEqual", binary([](T a, T c) { return at::le(a, c); })},
      {"Log", unary([](T a) { return at::log(a); })},
      {"MatMul", binary([](T a, T c) { return at::matmul(a, c); })},
      {"Max", variadic(Variadic::kMax)},
      {"Mean", variadic(Variadic::kMean)},
      {"Min", variadic(Variadic::kMin)},
      {"Mod", MakeMod},
      {"Mul", binary([](T a, T c) { return at::mul(a, c); })},
      {"Neg", unary([](T a) { return at::neg(a); })},
      {"Not", unary([](T a) { return at::logical_not(a); })},
      {"Or", binary([](T a, T c) { return at::logical_or(a, c); })},
      {"Pow", MakePow},
      {"PRelu", MakePRelu},
      {"Reciprocal", unary([](T a) { return at::reciprocal(a); })},
      {"Relu", unary([](T a) { return at::relu(a); })},
      {"Round", unary([](T a) { return at::round(a); })},
      {"Selu", MakeSelu},
      {"Sigmoid", unary([](T a) { return at::sigmoid(a); })},
      {"Sign", unary([](T a) { return at::sign(a); })},
      {"Sin", unary([](T a) { return at::sin(a); })},
      // F.softplus (beta 1, threshold 20) and F.softsign (x / (|x| + 1), no kernel of its own).
      {"Softplus", unary([](T a) { return at::softplus(a); })},
      {"Softsign", unary([](T a) { return at::div(a, at::add(at::abs(a), 1)); })},
      {"Sqrt", unary([](T a) { return at::sqrt(a); })},
      {"Sub", binary([](T a, T c) { return at::sub(a, c); })},
      {"Sum", variadic(Variadic::kSum)},
      {"Tanh", unary([](T a) { return at::tanh(a); })},
      {"Where", MakeWhere},
      {"Xor", binary([](T a, T c) { return at::logical_xor(a, c); })},
  });
}

}  // namespace ngraphbench::torch_common::aten_ops
