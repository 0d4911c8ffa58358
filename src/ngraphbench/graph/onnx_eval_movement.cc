// The constant evaluator's operators that move elements without computing on them.
#include <algorithm>
#include <limits>

#include "ngraphbench/graph/onnx_eval_internal.h"

namespace ngraphbench::const_eval {

Result Evaluator::GatherOp(const Inputs& in) {
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

Result Evaluator::ConcatOp(const Inputs& in) {
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

Result Evaluator::SliceOp(const Inputs& in) {
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

Result Evaluator::ExpandOp(const Inputs& in) {
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

Result Evaluator::TileOp(const Inputs& in) {
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

Result Evaluator::TransposeOp(const Inputs& in) {
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

Result Evaluator::ScatterElementsOp(const Inputs& in) {
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

}  // namespace ngraphbench::const_eval
