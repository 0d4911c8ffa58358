// AtenProgram's reductions: Reduce*, ArgMax and ArgMin, TopK, CumSum.
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

enum class Reduce { kMean, kSum, kMax, kMin, kProd, kL2, kLogSumExp };

// ReduceMean, ReduceSum, ... with axes from the attribute (opset 17 but ReduceSum) or the
// constant second input (ReduceSum; every Reduce* from opset 18). Each is the one ATen reduction
// PyTorch's own call exports to: mean, sum, amax, amin, prod, linalg_vector_norm, logsumexp.
StepFn MakeReduce(ProgramBuilder& b, const Node& n, Reduce kind) {
  b.AllowAttrs(n, {"axes", "keepdims", "noop_with_empty_axes"});
  const size_t rank = b.ShapeOfInput(n, 0).size();
  Ints axes = n.IntsAttr("axes");
  if (b.Present(n, 1)) axes = b.ConstInts(n, 1);
  const bool keepdims = n.IntAttr("keepdims", 1) != 0;
  const int x = b.In(n, 0);
  if (axes.empty() && n.IntAttr("noop_with_empty_axes", 0) != 0) {
    const int out = b.Out(n);
    return [=](Slots& s) { s[out] = s[x]; };
  }
  for (auto& axis : axes) axis = NormalizeAxis(b, n, axis, rank);
  if (axes.empty()) {
    for (size_t i = 0; i < rank; ++i) axes.push_back(static_cast<int64_t>(i));
  }
  const int out = b.Out(n);
  switch (kind) {
    case Reduce::kMean:
      return [=](Slots& s) { s[out] = at::mean(s[x], axes, keepdims); };
    case Reduce::kSum:
      return [=](Slots& s) { s[out] = at::sum(s[x], axes, keepdims); };
    case Reduce::kMax:
      return [=](Slots& s) { s[out] = at::amax(s[x], axes, keepdims); };
    case Reduce::kMin:
      return [=](Slots& s) { s[out] = at::amin(s[x], axes, keepdims); };
    case Reduce::kL2:
      return [=](Slots& s) { s[out] = at::linalg_vector_norm(s[x], 2, axes, keepdims); };
    case Reduce::kLogSumExp:
      return [=](Slots& s) { s[out] = at::logsumexp(s[x], axes, keepdims); };
    case Reduce::kProd: {
      // torch.prod reduces one dimension per call; from the last axis so the others stay put.
      Ints order = axes;
      std::sort(order.rbegin(), order.rend());
      return [=](Slots& s) {
        at::Tensor t = s[x];
        for (int64_t axis : order) t = at::prod(t, axis, keepdims);
        s[out] = t;
      };
    }
  }
  b.Fail(n, "unknown reduction");
}

StepFn MakeArgReduce(ProgramBuilder& b, const Node& n, bool max) {
  b.AllowAttrs(n, {"axis", "keepdims", "select_last_index"});
  const Shape& in = b.ShapeOfInput(n, 0);
  const int64_t axis = NormalizeAxis(b, n, n.IntAttr("axis", 0), in.size());
  const bool keepdims = n.IntAttr("keepdims", 1) != 0;
  const bool last = n.IntAttr("select_last_index", 0) != 0;
  const int64_t dim = in[static_cast<size_t>(axis)];
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) {
    if (!last) {
      s[out] = max ? at::argmax(s[x], axis, keepdims) : at::argmin(s[x], axis, keepdims);
      return;
    }
    // The last of equal extremes: the first one of the flipped axis, counted back.
    const at::Tensor flipped = at::flip(s[x], {axis});
    const at::Tensor i =
        max ? at::argmax(flipped, axis, keepdims) : at::argmin(flipped, axis, keepdims);
    s[out] = at::rsub(i, dim - 1);
  };
}

StepFn MakeTopK(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"axis", "largest", "sorted"});
  const Shape& in = b.ShapeOfInput(n, 0);
  const int64_t axis = NormalizeAxis(b, n, n.IntAttr("axis", -1), in.size());
  // K is whatever the graph's static output shape says (a constant K gives the same).
  const Shape& values_shape = b.ShapeOfOutput(n, 0);
  if (values_shape.size() != in.size()) b.Fail(n, "values have another rank than the input");
  const int64_t k = values_shape[static_cast<size_t>(axis)];
  const bool largest = n.IntAttr("largest", 1) != 0, sorted = n.IntAttr("sorted", 1) != 0;
  const int x = b.In(n, 0);
  b.In(n, 1);  // K: read so that it is not freed before this step (it is a constant anyway)
  const int values = b.OptOut(n, 0), indices = b.OptOut(n, 1);
  return [=](Slots& s) {
    auto [v, i] = at::topk(s[x], k, axis, largest, sorted);
    if (values >= 0) s[values] = std::move(v);
    if (indices >= 0) s[indices] = std::move(i);
  };
}

StepFn MakeCumSum(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"exclusive", "reverse"});
  const Ints axis_values = b.ConstInts(n, 1);
  if (axis_values.size() != 1) b.Fail(n, "axis must be one value");
  const int64_t axis = NormalizeAxis(b, n, axis_values[0], b.ShapeOfInput(n, 0).size());
  const bool exclusive = n.IntAttr("exclusive", 0) != 0, reverse = n.IntAttr("reverse", 0) != 0;
  const int x = b.In(n, 0), out = b.Out(n);
  // torch.cumsum is inclusive and forward; the other forms are what one writes around it.
  return [=](Slots& s) {
    at::Tensor in = reverse ? at::flip(s[x], {axis}) : s[x];
    at::Tensor y = at::cumsum(in, axis);
    if (exclusive) y = at::sub(y, in);
    s[out] = reverse ? at::flip(y, {axis}) : y;
  };
}

}  // namespace

void AddReduceOps(MakerTable& table) {
  auto reduce = [](Reduce kind) {
    return [kind](ProgramBuilder& b, const Node& n) { return MakeReduce(b, n, kind); };
  };
  table.insert({
      {"ArgMax", [](ProgramBuilder& b, const Node& n) { return MakeArgReduce(b, n, true); }},
      {"ArgMin", [](ProgramBuilder& b, const Node& n) { return MakeArgReduce(b, n, false); }},
      {"CumSum", MakeCumSum},
      {"ReduceL2", reduce(Reduce::kL2)},
      {"ReduceLogSumExp", reduce(Reduce::kLogSumExp)},
      {"ReduceMax", reduce(Reduce::kMax)},
      {"ReduceMean", reduce(Reduce::kMean)},
      {"ReduceMin", reduce(Reduce::kMin)},
      {"ReduceProd", reduce(Reduce::kProd)},
      {"ReduceSum", reduce(Reduce::kSum)},
      {"TopK", MakeTopK},
  });
}

}  // namespace ngraphbench::torch_common::aten_ops
