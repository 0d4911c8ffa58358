// Import-time shape resolution for ONNX models: folds every computation on constants and static
// shapes into initializers, so that a model exported with a dynamic batch axis (whose exporter
// computes shapes at run time: Shape -> Gather -> Concat -> Reshape, ConstantOfShape -> Where ->
// Expand, ...) has static shapes once its batch size is fixed.
//
// The folder evaluates, on float32/float64/int64/int32/int16/int8/uint32/uint16/uint8/bool
// tensors: Shape (start, end), Size, Cast, CastLike, Identity (as an alias, no copy), Neg, Abs,
// Sign, Relu, Sqrt, Reciprocal, Floor, Ceil, Round, Exp, Log, Erf, Tanh, Not, Add, Sub, Mul, Div,
// Mod, Pow, Max, Min, Sum, Equal, Less, Greater, LessOrEqual, GreaterOrEqual, And, Or, Xor, Where,
// Gather, Concat, Unsqueeze, Squeeze, Slice, Reshape, Flatten, Expand, Tile, Transpose,
// ConstantOfShape, Range, ReduceProd/Min/Max/Sum/Mean and ScatterElements; in both the
// attribute (older opsets) and the input form of axes, starts and ends.
//
// Internal to ngb_onnx and its tests: this header includes ONNX's protobuf headers, which LibTorch
// translation units must not see (onnx_io.h explains).
//
// What folding leaves dynamic: nothing a compiler must see. After ResolveStaticShapes every value
// of the graph has a static shape (or the import fails naming the value), and what remains of a
// shape computation is a node on constant inputs that folding declined on purpose:
//   - nodes that read a weight (a float32 initializer of the file): Expand(cls_token, shape),
//     Transpose(W), ... stay nodes, so that every compiler sees the weights the file holds and
//     the parameter count does not depend on the batch size;
//   - a result above FoldLimits::max_elements (e.g. a [b, heads, 4096, 4096] attention mask):
//     it stays a node (ConstantOfShape becomes Expand of a scalar, see
//     LowerConstantOfShape), computed by the compiler like any other op;
//   - what folding cannot evaluate (an operator outside the folder's list, float16 data):
//     stays a node; its output shape still comes from shape inference.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ngraphbench {

// Ceilings on what folding may create, so that a small hostile file (ConstantOfShape of
// [2^20, 2^20], Range(0, 2^62, 1), a thousand 1M-element Expands) cannot exhaust memory. A fold
// over a ceiling is not done: the node stays in the graph.
struct FoldLimits {
  uint64_t max_elements = uint64_t{1} << 20;  // one folded tensor (and each constant it reads)
  uint64_t max_total = uint64_t{1} << 26;     // all folded tensors of one import together
};

struct FoldContext {
  std::string source;             // the model file, for messages
  std::set<std::string> opaque;   // initializers whose data is not in memory (external)
  std::set<std::string> weights;  // float32 initializers of the file (see above)
  FoldLimits limits;
  // The model's default-domain opset: FoldConstantsOnce infers the shapes of the nodes it keeps
  // with libonnx's inference functions of that opset (0: it does not; ResolveStaticShapes sets it).
  int opset = 0;
  uint64_t created = 0;  // elements created so far, against limits.max_total
  int rounds = 0;        // inference + fold rounds ResolveStaticShapes ran
};

// The element type and shape of one value as shape inference left it; -1 for an unknown dim.
struct ValueType {
  int32_t elem_type = 0;
  bool has_shape = false;
  std::vector<int64_t> dims;
  bool Static() const;
};
using TypeMap = std::map<std::string, ValueType>;

// The values of an integer or bool tensor of at most `max` elements held in the file (not
// external); false when its data does not match its dims or type.
bool ReadIntegers(const onnx::TensorProto& t, uint64_t max, std::vector<int64_t>* values);

// Every value's type in `g` (inputs, outputs, value_info, initializers).
TypeMap CollectTypes(const onnx::GraphProto& g);

// Replaces the Constant nodes of `g` (value, value_float(s), value_int(s), value_string(s)) by
// initializers of the same name: to the folder they are the same thing.
void ConstantNodesToInitializers(onnx::GraphProto& g);

// One pass over `g` in node order: every node whose inputs are constants (and Shape or Size of a
// value with a static shape in `types`, or in what the pass inferred for an earlier node, see
// FoldContext::opset) becomes initializers; Identity of a constant becomes an alias. Returns the
// number of nodes removed. Nodes producing a graph output are kept.
int FoldConstantsOnce(onnx::GraphProto& g, const TypeMap& types, FoldContext& ctx);

// Removes nodes whose outputs no graph output depends on, then initializers (and the graph inputs
// that name them) that nothing reads.
void RemoveDeadNodes(onnx::GraphProto& g);

// A ConstantOfShape that folding left (over the ceiling) becomes Expand(scalar, shape): the same
// tensor, with no TENSOR-valued attribute, which the IR cannot hold.
void LowerConstantOfShape(onnx::GraphProto& g);

// Infer shapes (libonnx, strict; no data propagation, see onnx_fold.cc) -> fold -> repeat until
// nothing folds;
// then dead-code removal and a final strict inference. Throws InputError naming ctx.source when
// inference fails.
void ResolveStaticShapes(onnx::ModelProto& model, FoldContext& ctx);

}  // namespace ngraphbench
