// The constant evaluator of ONNX import's folding (onnx_fold.h): one node on small constant
// tensors, evaluated as the ONNX operator defines it; its operators and element types are
// listed in onnx_fold.h. Internal to ngb_onnx and its tests: this header includes ONNX's
// protobuf headers, which LibTorch translation units must not see (onnx_io.h explains).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ngraphbench {

using ConstDims = std::vector<int64_t>;

// A small constant tensor. Integer and bool elements live in `i`, float and double ones in `f`;
// float32 values are rounded to float after every operation, which gives float32 arithmetic's
// results exactly for + - * / and sqrt (double has more than twice float's precision).
struct ConstTensor {
  int32_t type = onnx::TensorProto::UNDEFINED;
  ConstDims dims;
  std::vector<int64_t> i;
  std::vector<double> f;

  bool IsFloat() const { return type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::DOUBLE; }
  size_t Count() const { return IsFloat() ? f.size() : i.size(); }
};

// Whether an ONNX element type is float32 or float64.
bool IsFloatType(int32_t type);

// Parses a tensor of at most `max` elements; nullopt for anything else (external or opaque data,
// a type the folder does not evaluate, data that does not match the dims).
std::optional<ConstTensor> FromProto(const onnx::TensorProto& t, uint64_t max);

// `c` as the initializer `name` (raw data, little-endian).
void ToProto(const ConstTensor& c, const std::string& name, onnx::TensorProto* t);

using ConstInputs = std::vector<const ConstTensor*>;  // nullptr: absent, or not a constant
using ConstResult = std::optional<std::vector<ConstTensor>>;

// The outputs of node `n`, or nullopt when it cannot be evaluated here (an operator outside the
// list, an input that is not a constant, a result over `max_elements`). `in` holds the constant
// inputs; `shapes` the static shapes of every input (also the non-constant ones, for Shape and
// Size), `types` their element types.
ConstResult EvaluateConstant(const onnx::NodeProto& n, const ConstInputs& in,
                             const std::vector<const ConstDims*>& shapes,
                             const std::vector<int32_t>& types, uint64_t max_elements);

}  // namespace ngraphbench
