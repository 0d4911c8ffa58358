// AtenProgram's operators on shapes and layout: Shape, Reshape, Transpose, Concat, Slice, Pad,
// Gather and Scatter, and the tensors made from shapes (ConstantOfShape, Range).
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

StepFn MakeReshape(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"allowzero"});
  const Shape& in = b.ShapeOfInput(n, 0);
  const bool allow_zero = n.IntAttr("allowzero", 0) != 0;
  if (!b.IsConstant(n, 1)) {
    // A shape computed in the graph (Shape -> Gather -> Concat that import did not fold): every
    // value's shape is static, so the result's shape is the one the graph records.
    const Ints target = b.ShapeOfOutput(n, 0);
    if (NumElements(target) != NumElements(in)) {
      b.Fail(n, "cannot reshape " + ShapeToString(in) + " to " + ShapeToString(target));
    }
    const int x = b.In(n, 0), out = b.Out(n);
    return [=](Slots& s) { s[out] = s[x].reshape(target); };
  }
  Ints target = b.ConstInts(n, 1);
  int inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == 0 && !allow_zero) {
      if (i >= in.size()) b.Fail(n, "shape copies a dimension the input does not have");
      target[i] = in[i];
    }
    if (target[i] == -1) {
      if (inferred >= 0) b.Fail(n, "shape has more than one -1");
      inferred = static_cast<int>(i);
    } else if (target[i] < 0) {
      b.Fail(n, "shape has a negative dimension " + std::to_string(target[i]));
    } else {
      known *= target[i];
    }
  }
  const int64_t total = NumElements(in);
  if (inferred >= 0 && known > 0) target[static_cast<size_t>(inferred)] = total / known;
  if (NumElements(target) != total) {
    b.Fail(n, "cannot reshape " + ShapeToString(in) + " to " + ShapeToString(target));
  }
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) { s[out] = s[x].reshape(target); };
}

StepFn MakeFlatten(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"axis"});
  const Shape& in = b.ShapeOfInput(n, 0);
  int64_t axis = n.IntAttr("axis", 1);
  if (axis < 0) axis += static_cast<int64_t>(in.size());
  if (axis < 0 || axis > static_cast<int64_t>(in.size())) b.Fail(n, "axis is out of range");
  const auto split = static_cast<size_t>(axis);
  const Ints target = {Product(in, 0, split), Product(in, split, in.size())};
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) { s[out] = s[x].reshape(target); };
}

StepFn MakeTranspose(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"perm"});
  const size_t rank = b.ShapeOfInput(n, 0).size();
  Ints perm = n.IntsAttr("perm");
  if (perm.empty()) {
    for (size_t i = rank; i-- > 0;) perm.push_back(static_cast<int64_t>(i));
  }
  Ints sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted.size() != rank || sorted[i] != static_cast<int64_t>(i)) {
      b.Fail(n, "perm is not a permutation of the input's " + std::to_string(rank) + " axes");
    }
  }
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) { s[out] = s[x].permute(perm); };
}

StepFn MakeConcat(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"axis"});
  if (!n.HasAttr("axis")) b.Fail(n, "attribute 'axis' is required");
  const int64_t axis = NormalizeAxis(b, n, n.IntAttr("axis", 0), b.ShapeOfInput(n, 0).size());
  const std::vector<int> xs = b.AllIn(n);
  const int out = b.Out(n);
  return [=](Slots& s) {
    std::vector<at::Tensor> parts;
    parts.reserve(xs.size());
    for (int x : xs) parts.push_back(s[x]);
    s[out] = at::cat(parts, axis);
  };
}

// ONNX Split (opset 13-17): sizes from the constant `split` input, else equal parts. PyTorch
// eager's chunk/unbind/split are the same views.
StepFn MakeSplit(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"axis"});
  const Shape& in = b.ShapeOfInput(n, 0);
  const int64_t axis = NormalizeAxis(b, n, n.IntAttr("axis", 0), in.size());
  const int64_t dim = in[static_cast<size_t>(axis)];
  const int64_t parts = static_cast<int64_t>(n.outputs.size());
  Ints sizes;
  if (b.IsConstant(n, 1)) {
    sizes = b.ConstInts(n, 1);
  } else if (b.Present(n, 1)) {
    // Computed sizes: the outputs' static shapes give them.
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      const Shape& part = b.ShapeOfOutput(n, i);
      if (static_cast<size_t>(axis) >= part.size()) b.Fail(n, "an output lacks the split axis");
      sizes.push_back(part[static_cast<size_t>(axis)]);
    }
  } else {
    if (parts == 0 || dim % parts != 0) {
      b.Fail(n, "cannot split " + std::to_string(dim) + " into " + std::to_string(parts) +
                    " equal parts");
    }
    sizes.assign(static_cast<size_t>(parts), dim / parts);
  }
  if (static_cast<int64_t>(sizes.size()) != parts ||
      std::accumulate(sizes.begin(), sizes.end(), int64_t{0}) != dim) {
    b.Fail(n, "split sizes do not add up to the axis length " + std::to_string(dim));
  }
  const int x = b.In(n, 0);
  const std::vector<int> outs = b.Outs(n);
  return [=](Slots& s) {
    std::vector<at::Tensor> pieces = at::split_with_sizes(s[x], sizes, axis);
    for (size_t i = 0; i < outs.size(); ++i) s[outs[i]] = std::move(pieces[i]);
  };
}

StepFn MakeSlice(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {});
  const Shape& in = b.ShapeOfInput(n, 0);
  const Ints starts = b.ConstInts(n, 1), ends = b.ConstInts(n, 2);
  Ints axes, steps;
  if (b.IsConstant(n, 3)) {
    axes = b.ConstInts(n, 3);
  } else if (n.inputs.size() > 3 && !n.inputs[3].empty()) {
    b.Fail(n, "axes must be a constant");
  } else {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (b.IsConstant(n, 4)) {
    steps = b.ConstInts(n, 4);
  } else if (n.inputs.size() > 4 && !n.inputs[4].empty()) {
    b.Fail(n, "steps must be a constant");
  } else {
    steps.assign(starts.size(), 1);
  }
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    b.Fail(n, "starts, ends, axes and steps differ in length");
  }
  struct Range {
    int64_t axis, start, end, step;
  };
  std::vector<Range> ranges;
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t axis = NormalizeAxis(b, n, axes[i], in.size());
    const int64_t dim = in[static_cast<size_t>(axis)];
    if (steps[i] <= 0) b.Fail(n, "steps must be positive (got " + std::to_string(steps[i]) + ")");
    auto clamp = [dim](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + dim : v, 0, dim); };
    ranges.push_back(
        {axis, clamp(starts[i]), std::max(clamp(starts[i]), clamp(ends[i])), steps[i]});
  }
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) {
    at::Tensor t = s[x];
    for (const Range& r : ranges) t = t.slice(r.axis, r.start, r.end, r.step);
    s[out] = t;
  };
}

StepFn MakeGather(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"axis"});
  const Shape& in = b.ShapeOfInput(n, 0);
  const int64_t axis = NormalizeAxis(b, n, n.IntAttr("axis", 0), in.size());
  const int64_t dim = in[static_cast<size_t>(axis)];
  const Shape& index_shape = b.ShapeOfInput(n, 1);
  if (!b.IsConstant(n, 1)) {
    // Indices computed at run time (ArgMax, arithmetic on int64 values): x[..., idx] as eager
    // indexing does, with ONNX's negative indices counted from the end.
    Shape out_shape(in.begin(), in.begin() + axis);
    out_shape.insert(out_shape.end(), index_shape.begin(), index_shape.end());
    out_shape.insert(out_shape.end(), in.begin() + axis + 1, in.end());
    const int x = b.In(n, 0), i = b.In(n, 1), out = b.Out(n);
    return [=](Slots& s) {
      at::Tensor idx = s[i].to(at::kLong);
      idx = at::where(idx < 0, idx + dim, idx);
      s[out] = at::index_select(s[x], axis, idx.reshape({-1})).reshape(out_shape);
    };
  }
  Ints indices = b.ConstInts(n, 1);
  for (auto& i : indices) {
    if (i < -dim || i >= dim) b.Fail(n, "index " + std::to_string(i) + " is out of range");
    if (i < 0) i += dim;
  }
  const int x = b.In(n, 0), out = b.Out(n);
  if (index_shape.empty()) {  // a scalar index drops the axis: x[:, i]
    const int64_t index = indices.at(0);
    return [=](Slots& s) { s[out] = s[x].select(axis, index); };
  }
  Shape out_shape(in.begin(), in.begin() + axis);
  out_shape.insert(out_shape.end(), index_shape.begin(), index_shape.end());
  out_shape.insert(out_shape.end(), in.begin() + axis + 1, in.end());
  const at::Tensor index = at::tensor(indices, at::kLong).to(b.device());
  const bool flat = index_shape.size() == 1;
  return [=](Slots& s) {
    at::Tensor y = at::index_select(s[x], axis, index);
    s[out] = flat ? y : y.reshape(out_shape);
  };
}

Ints AxesOf(ProgramBuilder& b, const Node& n) {
  if (n.inputs.size() > 1 && !n.inputs[1].empty()) return b.ConstInts(n, 1);
  return n.IntsAttr("axes");  // before opset 13
}

StepFn MakeSqueeze(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"axes"});
  const Shape& in = b.ShapeOfInput(n, 0);
  Ints axes = AxesOf(b, n);
  for (auto& axis : axes) {
    axis = NormalizeAxis(b, n, axis, in.size());
    if (in[static_cast<size_t>(axis)] != 1) b.Fail(n, "squeezes an axis whose size is not 1");
  }
  if (axes.empty()) {
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i] == 1) axes.push_back(static_cast<int64_t>(i));
    }
  }
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) { s[out] = at::squeeze(s[x], axes); };
}

StepFn MakeUnsqueeze(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"axes"});
  const Shape& in = b.ShapeOfInput(n, 0);
  Ints axes = AxesOf(b, n);
  if (axes.empty()) b.Fail(n, "axes are required");
  for (auto& axis : axes) axis = NormalizeAxis(b, n, axis, in.size() + axes.size());
  std::sort(axes.begin(), axes.end());  // inserting in ascending order matches ONNX
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) b.Fail(n, "repeated axes");
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) {
    at::Tensor t = s[x];
    for (int64_t axis : axes) t = t.unsqueeze(axis);
    s[out] = t;
  };
}

StepFn MakeExpand(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {});
  const Shape& in = b.ShapeOfInput(n, 0);
  // A computed shape: the output's static shape is the broadcast result.
  const Ints shape = b.IsConstant(n, 1) ? b.ConstInts(n, 1) : b.ShapeOfOutput(n, 0);
  // ONNX Expand broadcasts both ways: a 1 in `shape` keeps the input's dimension.
  Ints target(std::max(in.size(), shape.size()), 1);
  for (size_t i = 0; i < target.size(); ++i) {
    const size_t pad_in = target.size() - in.size(), pad_shape = target.size() - shape.size();
    const int64_t a = i < pad_in ? 1 : in[i - pad_in];
    const int64_t c = i < pad_shape ? 1 : shape[i - pad_shape];
    if (a != c && a != 1 && c != 1) {
      b.Fail(n, "cannot broadcast " + ShapeToString(in) + " to " + ShapeToString(shape));
    }
    target[i] = std::max(a, c);
  }
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) { s[out] = s[x].expand(target); };
}

StepFn MakeShape(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"start", "end"});
  const Shape& in = b.ShapeOfInput(n, 0);
  const auto rank = static_cast<int64_t>(in.size());
  auto clamp = [rank](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  const int64_t start = clamp(n.IntAttr("start", 0)), end = clamp(n.IntAttr("end", rank));
  const Ints dims(in.begin() + start, in.begin() + std::max(start, end));
  b.ConstOut(n, at::tensor(dims, at::kLong).to(b.device()));
  return [](Slots&) {};
}

StepFn MakeSize(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {});
  b.ConstOut(n, at::scalar_tensor(NumElements(b.ShapeOfInput(n, 0)),
                                  at::TensorOptions(b.device()).dtype(at::kLong)));
  return [](Slots&) {};
}

// torch.zeros(shape): the shape is the output's static one, whether or not the input is a
// constant. The IR has no tensor attributes, so only the default value (0.0f) exists.
StepFn MakeConstantOfShape(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {});
  const Ints shape = b.ShapeOfOutput(n, 0);
  const at::TensorOptions options = at::TensorOptions(b.device()).dtype(b.dtype());
  const int out = b.Out(n);
  return [=](Slots& s) { s[out] = at::zeros(shape, options); };
}

StepFn MakeRange(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {});
  bool a_int = false, l_int = false, d_int = false;
  const auto start = b.ConstNumber(n, 0, &a_int), limit = b.ConstNumber(n, 1, &l_int),
             delta = b.ConstNumber(n, 2, &d_int);
  if (!start || !limit || !delta) b.Fail(n, "start, limit and delta must be constants");
  if (*delta == 0) b.Fail(n, "delta is 0");
  const bool ints = a_int && l_int && d_int;
  const at::TensorOptions options =
      at::TensorOptions(b.device()).dtype(ints ? at::kLong : b.dtype());
  const double a = *start, l = *limit, d = *delta;
  const int out = b.Out(n);
  if (ints) {
    const auto ai = static_cast<int64_t>(a), li = static_cast<int64_t>(l),
               di = static_cast<int64_t>(d);
    return [=](Slots& s) { s[out] = at::arange(ai, li, di, options); };
  }
  return [=](Slots& s) { s[out] = at::arange(a, l, d, options); };
}

StepFn MakeTile(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {});
  const Shape& in = b.ShapeOfInput(n, 0);
  Ints repeats;
  if (b.IsConstant(n, 1)) {
    repeats = b.ConstInts(n, 1);
  } else {  // computed repeats: the output's static shape over the input's
    const Shape& out_shape = b.ShapeOfOutput(n, 0);
    if (out_shape.size() != in.size()) b.Fail(n, "output rank differs from the input's");
    for (size_t i = 0; i < in.size(); ++i) repeats.push_back(in[i] ? out_shape[i] / in[i] : 1);
  }
  if (repeats.size() != in.size()) b.Fail(n, "repeats must have one value per input axis");
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) { s[out] = s[x].repeat(repeats); };
}

StepFn MakeTrilu(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"upper"});
  int64_t k = 0;
  if (b.Present(n, 1)) {
    const Ints values = b.ConstInts(n, 1);
    if (values.size() != 1) b.Fail(n, "k must be one value");
    k = values[0];
  }
  const bool upper = n.IntAttr("upper", 1) != 0;
  const int x = b.In(n, 0), out = b.Out(n);
  if (upper) return [=](Slots& s) { s[out] = at::triu(s[x], k); };
  return [=](Slots& s) { s[out] = at::tril(s[x], k); };
}

StepFn MakeGatherElements(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"axis"});
  const Shape& in = b.ShapeOfInput(n, 0);
  const int64_t axis = NormalizeAxis(b, n, n.IntAttr("axis", 0), in.size());
  const int64_t dim = in[static_cast<size_t>(axis)];
  if (b.IsConstant(n, 1)) {
    Ints indices = b.ConstInts(n, 1);
    for (auto& i : indices) {
      if (i < -dim || i >= dim) b.Fail(n, "index " + std::to_string(i) + " is out of range");
      if (i < 0) i += dim;
    }
    const at::Tensor index =
        at::tensor(indices, at::kLong).reshape(b.ShapeOfInput(n, 1)).to(b.device());
    const int x = b.In(n, 0), out = b.Out(n);
    return [=](Slots& s) { s[out] = at::gather(s[x], axis, index); };
  }
  const int x = b.In(n, 0), i = b.In(n, 1), out = b.Out(n);
  return [=](Slots& s) {
    at::Tensor idx = s[i].to(at::kLong);
    s[out] = at::gather(s[x], axis, at::where(idx < 0, idx + dim, idx));
  };
}

// DCR (ONNX's default) and CRD (torch.nn.PixelShuffle) orders of the same rearrangement.
StepFn MakeDepthToSpace(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"blocksize", "mode"});
  const Shape& in = b.ShapeOfInput(n, 0);
  const int64_t bs = n.IntAttr("blocksize", 0);
  const std::string mode = n.StringAttr("mode", "DCR");
  if (in.size() != 4 || bs < 1 || in[1] % (bs * bs) != 0) {
    b.Fail(n, "needs an [N, C, H, W] input with C a multiple of blocksize^2");
  }
  if (mode != "DCR" && mode != "CRD") b.Fail(n, "mode '" + mode + "' is not DCR or CRD");
  const int64_t c = in[1] / (bs * bs);
  const Ints split = {in[0], bs, bs, c, in[2], in[3]};
  const Ints out_shape = {in[0], c, in[2] * bs, in[3] * bs};
  const int x = b.In(n, 0), out = b.Out(n);
  if (mode == "CRD") return [=](Slots& s) { s[out] = at::pixel_shuffle(s[x], bs); };
  return [=](Slots& s) {
    s[out] = s[x].reshape(split).permute({0, 3, 4, 1, 5, 2}).reshape(out_shape);
  };
}

StepFn MakeSpaceToDepth(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"blocksize"});
  const Shape& in = b.ShapeOfInput(n, 0);
  const int64_t bs = n.IntAttr("blocksize", 0);
  if (in.size() != 4 || bs < 1 || in[2] % bs != 0 || in[3] % bs != 0) {
    b.Fail(n, "needs an [N, C, H, W] input with H and W multiples of blocksize");
  }
  const Ints split = {in[0], in[1], in[2] / bs, bs, in[3] / bs, bs};
  const Ints out_shape = {in[0], in[1] * bs * bs, in[2] / bs, in[3] / bs};
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) {
    s[out] = s[x].reshape(split).permute({0, 3, 5, 1, 2, 4}).reshape(out_shape);
  };
}

StepFn MakePad(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"mode"});
  const Shape& in = b.ShapeOfInput(n, 0);
  const size_t rank = in.size();
  const Ints onnx_pads = b.ConstInts(n, 1);  // [x1_begin, x2_begin, ..., x1_end, x2_end, ...]
  Ints axes;
  if (b.Present(n, 3)) {
    axes = b.ConstInts(n, 3);  // opset 18
    for (auto& a : axes) a = NormalizeAxis(b, n, a, rank);
  } else {
    for (size_t i = 0; i < rank; ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (onnx_pads.size() != 2 * axes.size()) b.Fail(n, "pads must have two values per axis");
  Ints begin(rank, 0), end(rank, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    begin[static_cast<size_t>(axes[i])] = onnx_pads[i];
    end[static_cast<size_t>(axes[i])] = onnx_pads[i + axes.size()];
  }
  const std::string mode = n.StringAttr("mode", "constant");
  const double value = b.ConstNumber(n, 2).value_or(0.0);
  // torch orders pads from the last axis: (last_begin, last_end, previous_begin, ...), and
  // covers only as many trailing axes as the list is long.
  size_t padded = 0;  // trailing axes that the torch list must cover
  for (size_t i = 0; i < rank; ++i) {
    if (begin[i] != 0 || end[i] != 0) padded = std::max(padded, rank - i);
  }
  std::string torch_mode = "constant";
  if (mode == "reflect" || mode == "edge") {
    torch_mode = mode == "reflect" ? "reflect" : "replicate";
    // reflection_pad / replication_pad Nd pad the last N axes of an input of rank N+1 or N+2.
    padded = std::max<size_t>(padded, rank >= 2 ? std::min<size_t>(rank - 2, 3) : 1);
    padded = std::max<size_t>(padded, 1);
    if (padded > 3 || rank < padded + 1 || rank > padded + 2) {
      b.Fail(n, mode + " padding of axes other than the last three of a rank-" +
                    std::to_string(rank) + " input");
    }
    for (size_t i = 0; i < rank; ++i) {
      if (begin[i] < 0 || end[i] < 0) b.Fail(n, "negative pads in " + mode + " mode");
    }
  } else if (mode != "constant") {
    b.Fail(n, "mode '" + mode + "' is not constant, reflect or edge");
  }
  Ints torch_pads;
  for (size_t k = 0; k < padded; ++k) {
    const size_t axis = rank - 1 - k;
    torch_pads.push_back(begin[axis]);
    torch_pads.push_back(end[axis]);
  }
  const int x = b.In(n, 0), out = b.Out(n);
  if (torch_pads.empty()) return [=](Slots& s) { s[out] = s[x]; };
  std::optional<double> fill;
  if (torch_mode == "constant") fill = value;
  return [=](Slots& s) { s[out] = at::pad(s[x], torch_pads, torch_mode, fill); };
}

// torch.scatter / Tensor.index_put_, which PyTorch's exporters write as ScatterElements and
// ScatterND. `reduction` add and mul accumulate as scatter_reduce and index_put(accumulate) do.
StepFn MakeScatterElements(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"axis", "reduction"});
  const Shape& in = b.ShapeOfInput(n, 0);
  const int64_t axis = NormalizeAxis(b, n, n.IntAttr("axis", 0), in.size());
  const int64_t dim = in[static_cast<size_t>(axis)];
  const std::string reduction = n.StringAttr("reduction", "none");
  if (reduction != "none" && reduction != "add" && reduction != "mul") {
    b.Fail(n, "reduction '" + reduction + "' is not none, add or mul");
  }
  const int x = b.In(n, 0), i = b.In(n, 1), u = b.In(n, 2), out = b.Out(n);
  return [=](Slots& s) {
    at::Tensor idx = s[i].to(at::kLong);
    idx = at::where(idx < 0, idx + dim, idx);
    if (reduction == "none") {
      s[out] = at::scatter(s[x], axis, idx, s[u]);
    } else {
      s[out] = at::scatter_reduce(s[x], axis, idx, s[u], reduction == "add" ? "sum" : "prod",
                                  /*include_self=*/true);
    }
  };
}

StepFn MakeScatterND(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"reduction"});
  const std::string reduction = n.StringAttr("reduction", "none");
  if (reduction != "none" && reduction != "add") {
    b.Fail(n, "reduction '" + reduction + "' is not none or add");
  }
  const Shape& index_shape = b.ShapeOfInput(n, 1);
  if (index_shape.empty() || index_shape.back() < 1 ||
      index_shape.back() > static_cast<int64_t>(b.ShapeOfInput(n, 0).size())) {
    b.Fail(n, "indices must end in an axis of 1 to rank(data) coordinates");
  }
  const int64_t k = index_shape.back();
  const int x = b.In(n, 0), i = b.In(n, 1), u = b.In(n, 2), out = b.Out(n);
  const bool accumulate = reduction == "add";
  return [=](Slots& s) {
    const at::Tensor idx = s[i].to(at::kLong);
    c10::List<std::optional<at::Tensor>> coords;
    for (int64_t j = 0; j < k; ++j) coords.push_back(idx.select(-1, j));
    s[out] = at::index_put(s[x], coords, s[u], accumulate);
  };
}

}  // namespace

void AddShapeOps(MakerTable& table) {
  table.insert({
      {"Concat", MakeConcat},
      {"ConstantOfShape", MakeConstantOfShape},
      {"DepthToSpace", MakeDepthToSpace},
      {"Expand", MakeExpand},
      {"Flatten", MakeFlatten},
      {"Gather", MakeGather},
      {"GatherElements", MakeGatherElements},
      {"Pad", MakePad},
      {"Range", MakeRange},
      {"Reshape", MakeReshape},
      {"ScatterElements", MakeScatterElements},
      {"ScatterND", MakeScatterND},
      {"Shape", MakeShape},
      {"Size", MakeSize},
      {"Slice", MakeSlice},
      {"SpaceToDepth", MakeSpaceToDepth},
      {"Split", MakeSplit},
      {"Squeeze", MakeSqueeze},
      {"Tile", MakeTile},
      {"Transpose", MakeTranspose},
      {"Trilu", MakeTrilu},
      {"Unsqueeze", MakeUnsqueeze},
  });
}

}  // namespace ngraphbench::torch_common::aten_ops
