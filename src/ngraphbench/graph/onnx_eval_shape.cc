// The constant evaluator's shape operators and the tensors computed from shapes.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ngraphbench/graph/onnx_eval_internal.h"

namespace ngraphbench::const_eval {

Result Evaluator::ShapeOp(const std::vector<const Dims*>& shapes) {
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

Result Evaluator::SizeOp(const std::vector<const Dims*>& shapes) {
  if (shapes.size() != 1 || !shapes[0]) return std::nullopt;
  const auto count = CountAtMost(*shapes[0], std::numeric_limits<int64_t>::max());
  if (!count) return std::nullopt;
  ConstTensor t = Make(TensorProto::INT64, {});
  t.i[0] = static_cast<int64_t>(*count);
  return One(std::move(t));
}

Result Evaluator::UnsqueezeOp(const Inputs& in) {
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

Result Evaluator::SqueezeOp(const Inputs& in) {
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

Result Evaluator::ReshapeOp(const Inputs& in) {
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

Result Evaluator::FlattenOp(const Inputs& in) {
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

Result Evaluator::ConstantOfShapeOp(const Inputs& in) {
  const auto shape = Ints(in, 0);
  if (!shape || in[0]->dims.size() != 1 || !Fits(*shape)) return std::nullopt;
  ConstTensor value = Make(TensorProto::FLOAT, {1});
  if (const auto* a = FindAttr(*n_, "value")) {
    auto v = FromProto(a->t(), 1);
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

Result Evaluator::RangeOp(const Inputs& in) {
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

}  // namespace ngraphbench::const_eval
