// What the parts of AtenProgram (aten_program.h) share, and no other module includes:
// aten_program.cc (the program: built node by node, then run) and its operators by family,
// aten_ops_nn.cc (convolution, pooling, normalization, matrix products, attention, softmax,
// Resize), aten_ops_elementwise.cc (arithmetic, comparisons, casts, activations),
// aten_ops_shape.cc (shapes, layout, slicing, gathering and scattering) and aten_ops_reduce.cc
// (reductions, ArgMax/ArgMin, TopK, CumSum). Every operator runs as the ATen call PyTorch eager
// makes for the module or function that exports to it.
#pragma once

#include <ATen/ATen.h>

#include <algorithm>
#include <numeric>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

#include "ngraphbench/core/error.h"
#include "ngraphbench/graph/ir.h"

namespace ngraphbench::torch_common::aten_ops {

using Slots = std::vector<at::Tensor>;
using StepFn = std::function<void(Slots&)>;
using Ints = std::vector<int64_t>;

inline std::optional<at::Tensor> Optional(const Slots& s, int slot) {
  if (slot < 0) return std::nullopt;
  return s[static_cast<size_t>(slot)];
}

// Resolves one node at a time into a closure over slot indices and constant arguments.
class ProgramBuilder {
 public:
  ProgramBuilder(const Graph& graph, std::string compiler, c10::Device device,
                 c10::ScalarType dtype)
      : graph_(graph), compiler_(std::move(compiler)), device_(device), dtype_(dtype) {
    for (const auto& init : graph.initializers) inits_[init.name] = &init;
  }

  // Slot of a value that the next step reads.
  int In(const Node& n, size_t i) {
    if (i >= n.inputs.size() || n.inputs[i].empty()) {
      Fail(n, "input " + std::to_string(i) + " is required");
    }
    const int slot = SlotOf(n.inputs[i]);
    if (slot < 0) Fail(n, "reads value '" + n.inputs[i] + "', which nothing produces");
    reads_.push_back(slot);
    return slot;
  }

  // Slots of all of the node's inputs, in order (each required).
  std::vector<int> AllIn(const Node& n) {
    std::vector<int> slots;
    for (size_t i = 0; i < n.inputs.size(); ++i) slots.push_back(In(n, i));
    return slots;
  }

  // The slot holding `value`, -1 if nothing produced it yet. An initializer gets a slot holding
  // the converted constant the first time it is asked for.
  int SlotOf(const std::string& value) {
    auto it = slot_of_.find(value);
    if (it != slot_of_.end()) return it->second;
    auto init = inits_.find(value);
    if (init == inits_.end()) return -1;
    const int slot = NewSlot(value, ToTensor(*init->second));
    constant_slots_.insert(slot);
    return slot;
  }

  // Slot of an optional input, -1 when omitted.
  int OptIn(const Node& n, size_t i) {
    return i < n.inputs.size() && !n.inputs[i].empty() ? In(n, i) : -1;
  }

  // The slot of the node's only output. Extra outputs (BatchNorm's running statistics,
  // MaxPool's indices, ...) are not computed, so a graph that reads one is rejected.
  int Out(const Node& n) {
    if (n.outputs.empty() || n.outputs[0].empty()) Fail(n, "has no output");
    for (size_t i = 1; i < n.outputs.size(); ++i) {
      if (!n.outputs[i].empty()) {
        Fail(n, "optional output " + std::to_string(i) + " is not supported");
      }
    }
    if (slot_of_.count(n.outputs[0])) Fail(n, "output '" + n.outputs[0] + "' is defined twice");
    return NewSlot(n.outputs[0], at::Tensor());
  }

  // The slots of every output of a multi-output node (Split); each must be named.
  std::vector<int> Outs(const Node& n) {
    std::vector<int> outs;
    for (const auto& value : n.outputs) {
      if (value.empty()) Fail(n, "has an unnamed output");
      if (slot_of_.count(value)) Fail(n, "output '" + value + "' is defined twice");
      outs.push_back(NewSlot(value, at::Tensor()));
    }
    return outs;
  }

  // The slot of output i, or -1 when that optional output is omitted (TopK's indices).
  int OptOut(const Node& n, size_t i) {
    if (i >= n.outputs.size() || n.outputs[i].empty()) return -1;
    if (slot_of_.count(n.outputs[i])) Fail(n, "output '" + n.outputs[i] + "' is defined twice");
    return NewSlot(n.outputs[i], at::Tensor());
  }

  // The node's only output as a value known at compile time (Shape, Size): a constant slot, as
  // eager PyTorch has `x.shape` without running a kernel.
  void ConstOut(const Node& n, at::Tensor value) {
    const int slot = Out(n);
    slots_[static_cast<size_t>(slot)] = std::move(value);
    constant_slots_.insert(slot);
  }

  // After a node failed to build: forgets its reads and gives each of its outputs an (empty)
  // slot, so that the nodes after it can still be checked and every failure reported at once.
  void SkipFailed(const Node& n) {
    reads_.clear();
    for (const auto& value : n.outputs) {
      if (!value.empty() && !slot_of_.count(value)) NewSlot(value, at::Tensor());
    }
  }

  const Shape& ShapeOfInput(const Node& n, size_t i) const {
    try {
      return graph_.ShapeOf(n.inputs.at(i));
    } catch (const std::exception&) {
      Fail(n, "the shape of input " + std::to_string(i) + " is unknown");
    }
  }

  // The initializer feeding input i, or nullptr (omitted input or a computed value).
  const Initializer* Constant(const Node& n, size_t i) const {
    if (i >= n.inputs.size() || n.inputs[i].empty()) return nullptr;
    auto it = inits_.find(n.inputs[i]);
    return it == inits_.end() ? nullptr : it->second;
  }

  // An int64 constant input (shape, axes, indices), read at compile time.
  Ints ConstInts(const Node& n, size_t i) const {
    const Initializer* init = Constant(n, i);
    if (!init || init->dtype != DType::kInt64) {
      Fail(n, "input " + std::to_string(i) + " must be an int64 initializer (a constant)");
    }
    return init->int64_data;
  }

  bool IsConstant(const Node& n, size_t i) const { return Constant(n, i) != nullptr; }

  bool Present(const Node& n, size_t i) const { return i < n.inputs.size() && !n.inputs[i].empty(); }

  // A one-element constant input of either type (Range bounds, Pad's value); nullopt when
  // omitted. `is_int` tells which type it was.
  std::optional<double> ConstNumber(const Node& n, size_t i, bool* is_int = nullptr) const {
    if (!Present(n, i)) return std::nullopt;
    const Initializer* init = Constant(n, i);
    const size_t count = !init                          ? 0
                         : init->dtype == DType::kInt64 ? init->int64_data.size()
                                                        : init->tensor.data.size();
    if (count != 1) Fail(n, "input " + std::to_string(i) + " must be a one-element constant");
    if (is_int) *is_int = init->dtype == DType::kInt64;
    return init->dtype == DType::kInt64 ? static_cast<double>(init->int64_data[0])
                                        : static_cast<double>(init->tensor.data[0]);
  }

  // The static shape of output i (every value has one in the IR).
  const Shape& ShapeOfOutput(const Node& n, size_t i) const {
    try {
      return graph_.ShapeOf(n.outputs.at(i));
    } catch (const std::exception&) {
      Fail(n, "the shape of output " + std::to_string(i) + " is unknown");
    }
  }

  // A single-element float constant input (Clip bounds, Pow exponent), read at compile time.
  std::optional<double> ConstScalar(const Node& n, size_t i) const {
    if (i >= n.inputs.size() || n.inputs[i].empty()) return std::nullopt;
    const Initializer* init = Constant(n, i);
    if (!init || init->dtype != DType::kFloat32 || init->tensor.data.size() != 1) {
      Fail(n, "input " + std::to_string(i) + " must be a one-element float initializer");
    }
    return init->tensor.data[0];
  }

  // Every attribute must be one this op understands: ignoring an unknown one could silently
  // change the result.
  void AllowAttrs(const Node& n, std::initializer_list<const char*> known) const {
    for (const auto& [key, value] : n.attrs) {
      if (std::none_of(known.begin(), known.end(), [&](const char* k) { return key == k; })) {
        Fail(n, "attribute '" + key + "' is not supported");
      }
    }
  }

  [[noreturn]] void Fail(const Node& n, const std::string& why) const {
    throw CompileError(compiler_ + ": node '" + n.name + "' (" + n.op_type + "): " + why);
  }

  void AddStep(StepFn fn) {
    steps_.push_back({std::move(fn), reads_});
    reads_.clear();
  }

  c10::Device device() const { return device_; }
  // The program's floating-point type: ONNX float32 values run in it (fp32, fp16 or bf16).
  c10::ScalarType dtype() const { return dtype_; }
  std::vector<std::pair<StepFn, std::vector<int>>>& steps() { return steps_; }
  const std::set<int>& constant_slots() const { return constant_slots_; }
  Slots& slots() { return slots_; }

  int NewSlot(const std::string& value, at::Tensor tensor) {
    int slot = static_cast<int>(slots_.size());
    slots_.push_back(std::move(tensor));
    slot_of_[value] = slot;
    return slot;
  }

 private:
  at::Tensor ToTensor(const Initializer& init) const {
    const size_t count =
        init.dtype == DType::kInt64 ? init.int64_data.size() : init.tensor.data.size();
    if (static_cast<int64_t>(count) != NumElements(init.tensor.shape)) {
      throw CompileError(compiler_ + ": initializer '" + init.name + "' has " +
                         std::to_string(count) + " values for shape " +
                         ShapeToString(init.tensor.shape));
    }
    if (init.dtype == DType::kInt64) {
      auto* data = const_cast<int64_t*>(init.int64_data.data());
      return at::from_blob(data, init.tensor.shape, at::kLong)
          .to(device_, at::kLong, /*non_blocking=*/false, /*copy=*/true);
    }
    auto* data = const_cast<float*>(init.tensor.data.data());
    return at::from_blob(data, init.tensor.shape, at::kFloat)
        .to(device_, dtype_, /*non_blocking=*/false, /*copy=*/true);
  }

  const Graph& graph_;
  std::string compiler_;
  c10::Device device_;
  c10::ScalarType dtype_;
  std::map<std::string, const Initializer*> inits_;
  std::map<std::string, int> slot_of_;
  std::set<int> constant_slots_;
  Slots slots_;
  std::vector<int> reads_;                                  // slots read by the step being built
  std::vector<std::pair<StepFn, std::vector<int>>> steps_;  // step and the slots it reads
};

inline int64_t NormalizeAxis(ProgramBuilder& b, const Node& n, int64_t axis, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) {
    b.Fail(n, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r));
  }
  return axis < 0 ? axis + r : axis;
}

inline int64_t Product(const Shape& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= shape[i];
  return p;
}

// Builds the step of one node.
using Maker = std::function<StepFn(ProgramBuilder&, const Node&)>;
// The operators AtenProgram runs, by ONNX name.
using MakerTable = std::map<std::string, Maker>;

// Each family's operators, added to `table`.
void AddNnOps(MakerTable& table);
void AddElementwiseOps(MakerTable& table);
void AddShapeOps(MakerTable& table);
void AddReduceOps(MakerTable& table);

}  // namespace ngraphbench::torch_common::aten_ops
