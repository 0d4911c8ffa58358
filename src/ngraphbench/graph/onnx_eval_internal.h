// What the parts of the constant evaluator (onnx_eval.h) share, and no other module includes:
// onnx_eval.cc (tensors to and from protos, attributes, index helpers, the dispatch by operator),
// onnx_eval_math.cc (casts, elementwise operators, Where, reductions), onnx_eval_shape.cc
// (shapes and the tensors computed from them) and onnx_eval_movement.cc (operators that move
// elements: Gather, Concat, Slice, Expand, Tile, Transpose, ScatterElements).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/graph/onnx_eval.h"

namespace ngraphbench::const_eval {

using onnx::TensorProto;
using Dims = ConstDims;

// Whether the evaluator computes on tensors of element type `type`.
bool Foldable(int32_t type);

// The value an integer type holds for `v` (two's complement wrap-around, as the runtimes do).
int64_t Wrap(int64_t v, int32_t type);

// Rounds float32 values to float and wraps integers to their type: after every operation.
void Finalize(ConstTensor& t);

// Element count of `dims` when every dim is >= 0 and the product is at most `max`.
std::optional<uint64_t> CountAtMost(const Dims& dims, uint64_t max);

// ---- attributes (the attribute `name` of `n`, or `fallback` where it is absent) ------------

const onnx::AttributeProto* FindAttr(const onnx::NodeProto& n, const std::string& name);
int64_t IntAttr(const onnx::NodeProto& n, const std::string& name, int64_t fallback);
std::string StringAttr(const onnx::NodeProto& n, const std::string& name,
                       const std::string& fallback);
std::optional<Dims> IntsAttr(const onnx::NodeProto& n, const std::string& name);

// ---- index helpers -------------------------------------------------------------------------

// Row-major strides of `dims`.
Dims Strides(const Dims& dims);

// Numpy-style broadcast of two shapes; nullopt where they do not broadcast.
std::optional<Dims> Broadcast(const Dims& a, const Dims& b);

// Strides that read `in` (broadcast to `out`, aligned right) while walking `out`: 0 on axes that
// are broadcast.
Dims BroadcastStrides(const Dims& in, const Dims& out);

// Calls fn(linear output index, offsets into each input) for every element of `out`.
void ForEachIndex(const Dims& out, const std::vector<Dims>& strides,
                  const std::function<void(size_t, const std::vector<int64_t>&)>& fn);

// Normalizes axis `a` of a rank-`rank` tensor to [0, rank); nullopt when out of range.
std::optional<int64_t> Axis(int64_t a, int64_t rank);

// A tensor of `type` and `dims`, its elements zero.
ConstTensor Make(int32_t type, Dims dims);

// Copies element `from` of `src` to element `to` of `dst` (same type family).
inline void CopyElement(const ConstTensor& src, size_t from, ConstTensor& dst, size_t to) {
  if (src.IsFloat())
    dst.f[to] = src.f[from];
  else
    dst.i[to] = src.i[from];
}

// The int64 values of an integer tensor of at most `max_rank` 1.
std::optional<Dims> IntValues(const ConstTensor* t);

// ---- the evaluator -------------------------------------------------------------------------

using Inputs = std::vector<const ConstTensor*>;  // nullptr: absent, or not a constant
using Result = std::optional<std::vector<ConstTensor>>;

// Evaluates one node (EvaluateConstant). Run dispatches by operator (onnx_eval.cc); the operators
// are defined by family in onnx_eval_math.cc, onnx_eval_shape.cc and onnx_eval_movement.cc.
class Evaluator {
 public:
  explicit Evaluator(uint64_t max_elements) : max_(max_elements) {}

  // `in` holds the constant inputs; `shapes` the static shapes of every input (also the
  // non-constant ones, for Shape and Size), `types` their element types.
  Result Run(const onnx::NodeProto& n, const Inputs& in, const std::vector<const Dims*>& shapes,
             const std::vector<int32_t>& types);

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

  // onnx_eval_math.cc
  static std::optional<ConstTensor> Cast(const ConstTensor& x, int32_t to);
  Result Unary(const std::string& op, const Inputs& in);
  Result Binary(const std::string& op, const ConstTensor& a, const ConstTensor& b);
  Result WhereOp(const Inputs& in);
  Result ReduceOp(const std::string& op, const Inputs& in);

  // onnx_eval_shape.cc
  Result ShapeOp(const std::vector<const Dims*>& shapes);
  Result SizeOp(const std::vector<const Dims*>& shapes);
  Result UnsqueezeOp(const Inputs& in);
  Result SqueezeOp(const Inputs& in);
  Result ReshapeOp(const Inputs& in);
  Result FlattenOp(const Inputs& in);
  Result ConstantOfShapeOp(const Inputs& in);
  Result RangeOp(const Inputs& in);

  // onnx_eval_movement.cc
  Result GatherOp(const Inputs& in);
  Result ConcatOp(const Inputs& in);
  Result SliceOp(const Inputs& in);
  Result ExpandOp(const Inputs& in);
  Result TileOp(const Inputs& in);
  Result TransposeOp(const Inputs& in);
  Result ScatterElementsOp(const Inputs& in);

  uint64_t max_;
  const onnx::NodeProto* n_ = nullptr;
};

}  // namespace ngraphbench::const_eval
