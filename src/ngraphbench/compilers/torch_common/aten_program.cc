#include "ngraphbench/compilers/torch_common/aten_program.h"

#include <ATen/ATen.h>
#include <ATen/record_function.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <numeric>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "ngraphbench/core/error.h"
#include "ngraphbench/graph/ops.h"

namespace ngraphbench::torch_common {

namespace {

using Slots = std::vector<at::Tensor>;
using StepFn = std::function<void(Slots&)>;
using Ints = std::vector<int64_t>;

std::optional<at::Tensor> Optional(const Slots& s, int slot) {
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

int64_t NormalizeAxis(ProgramBuilder& b, const Node& n, int64_t axis, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) {
    b.Fail(n, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r));
  }
  return axis < 0 ? axis + r : axis;
}

int64_t Product(const Shape& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= shape[i];
  return p;
}

// Spatial geometry of Conv and the pools: kernel, strides, dilations and explicit pads
// [x1_begin, x2_begin, ..., x1_end, x2_end, ...] after resolving auto_pad.
struct Window {
  Ints kernel, strides, dilations, pads;
  bool symmetric() const {
    const size_t r = kernel.size();
    for (size_t i = 0; i < r; ++i) {
      if (pads[i] != pads[i + r]) return false;
    }
    return true;
  }
  Ints begin_pads() const { return Ints(pads.begin(), pads.begin() + kernel.size()); }
};

Window ResolveWindow(ProgramBuilder& b, const Node& n, const Shape& in, const Ints& kernel) {
  const size_t r = kernel.size();
  Window w{kernel, n.IntsAttr("strides", Ints(r, 1)), n.IntsAttr("dilations", Ints(r, 1)),
           n.IntsAttr("pads", Ints(2 * r, 0))};
  if (w.strides.size() != r || w.dilations.size() != r || w.pads.size() != 2 * r) {
    b.Fail(n, "strides, dilations and pads must match the " + std::to_string(r) +
                  " spatial dimensions");
  }
  const std::string auto_pad = n.StringAttr("auto_pad", "NOTSET");
  if (auto_pad == "VALID") {
    std::fill(w.pads.begin(), w.pads.end(), 0);
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t i = 0; i < r; ++i) {
      const int64_t size = in[2 + i];
      const int64_t out = (size + w.strides[i] - 1) / w.strides[i];
      const int64_t total = std::max<int64_t>(
          0, (out - 1) * w.strides[i] + (w.kernel[i] - 1) * w.dilations[i] + 1 - size);
      const int64_t small = total / 2;
      w.pads[i] = auto_pad == "SAME_UPPER" ? small : total - small;
      w.pads[i + r] = total - w.pads[i];
    }
  } else if (auto_pad != "NOTSET") {
    b.Fail(n, "auto_pad '" + auto_pad + "' is not supported");
  }
  return w;
}

StepFn MakeConv(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  const Shape& in = b.ShapeOfInput(n, 0);
  const Shape& wshape = b.ShapeOfInput(n, 1);
  if (in.size() < 3 || in.size() > 5 || wshape.size() != in.size()) {
    b.Fail(n, "supports 1-D, 2-D and 3-D convolutions with a weight of the input's rank");
  }
  const Ints kernel(wshape.begin() + 2, wshape.end());
  if (n.HasAttr("kernel_shape") && n.IntsAttr("kernel_shape") != kernel) {
    b.Fail(n, "kernel_shape disagrees with the weight's shape " + ShapeToString(wshape));
  }
  Window w = ResolveWindow(b, n, in, kernel);
  const int64_t groups = n.IntAttr("group", 1);
  if (groups < 1 || in[1] % groups != 0 || in[1] / groups != wshape[1]) {
    b.Fail(n, "group " + std::to_string(groups) + " does not fit input channels " +
                  std::to_string(in[1]) + " and weight " + ShapeToString(wshape));
  }
  const int x = b.In(n, 0), weight = b.In(n, 1), bias = b.OptIn(n, 2), out = b.Out(n);
  // Asymmetric padding is what PyTorch models express as F.pad before the convolution.
  Ints pre_pad;
  Ints padding = w.begin_pads();
  if (!w.symmetric()) {
    const size_t r = kernel.size();
    for (size_t i = r; i-- > 0;) {  // torch orders pads from the last dimension
      pre_pad.push_back(w.pads[i]);
      pre_pad.push_back(w.pads[i + r]);
    }
    std::fill(padding.begin(), padding.end(), 0);
  }
  const size_t rank = kernel.size();
  return [=](Slots& s) {
    const at::Tensor& input = pre_pad.empty() ? s[x] : at::constant_pad_nd(s[x], pre_pad, 0);
    const std::optional<at::Tensor> bias_t = Optional(s, bias);
    if (rank == 2) {
      s[out] = at::conv2d(input, s[weight], bias_t, w.strides, padding, w.dilations, groups);
    } else if (rank == 1) {
      s[out] = at::conv1d(input, s[weight], bias_t, w.strides, padding, w.dilations, groups);
    } else {
      s[out] = at::conv3d(input, s[weight], bias_t, w.strides, padding, w.dilations, groups);
    }
  };
}

StepFn MakePool(ProgramBuilder& b, const Node& n, bool max) {
  if (max) {
    b.AllowAttrs(n, {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order",
                     "strides"});
    if (n.IntAttr("storage_order", 0) != 0) b.Fail(n, "storage_order 1 is not supported");
  } else {
    b.AllowAttrs(n,
                 {"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"});
  }
  const Shape& in = b.ShapeOfInput(n, 0);
  const Ints kernel = n.IntsAttr("kernel_shape");
  if (kernel.empty() || kernel.size() + 2 != in.size() || kernel.size() > 3) {
    b.Fail(n, "kernel_shape must give 1 to 3 spatial dimensions matching the input " +
                  ShapeToString(in));
  }
  Window w = ResolveWindow(b, n, in, kernel);
  if (!w.symmetric()) b.Fail(n, "asymmetric pads are not supported");
  for (size_t i = 0; i < kernel.size(); ++i) {
    if (w.pads[i] * 2 > kernel[i]) b.Fail(n, "pads larger than half the kernel");
  }
  const bool ceil_mode = n.IntAttr("ceil_mode", 0) != 0;
  const bool count_include_pad = n.IntAttr("count_include_pad", 0) != 0;
  const Ints padding = w.begin_pads();
  const size_t rank = kernel.size();
  const int x = b.In(n, 0), out = b.Out(n);
  if (max) {
    return [=](Slots& s) {
      if (rank == 2) {
        s[out] = at::max_pool2d(s[x], w.kernel, w.strides, padding, w.dilations, ceil_mode);
      } else if (rank == 1) {
        s[out] = at::max_pool1d(s[x], w.kernel, w.strides, padding, w.dilations, ceil_mode);
      } else {
        s[out] = at::max_pool3d(s[x], w.kernel, w.strides, padding, w.dilations, ceil_mode);
      }
    };
  }
  if (w.dilations != Ints(rank, 1)) b.Fail(n, "dilations are not supported for AveragePool");
  return [=](Slots& s) {
    if (rank == 2) {
      s[out] = at::avg_pool2d(s[x], w.kernel, w.strides, padding, ceil_mode, count_include_pad);
    } else if (rank == 1) {
      s[out] = at::avg_pool1d(s[x], w.kernel, w.strides, padding, ceil_mode, count_include_pad);
    } else {
      s[out] = at::avg_pool3d(s[x], w.kernel, w.strides, padding, ceil_mode, count_include_pad);
    }
  };
}

StepFn MakeGlobalAveragePool(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {});
  const size_t rank = b.ShapeOfInput(n, 0).size();
  if (rank < 3 || rank > 5) b.Fail(n, "supports inputs of rank 3 to 5");
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) {
    if (rank == 4) {
      s[out] = at::adaptive_avg_pool2d(s[x], {1, 1});
    } else if (rank == 3) {
      s[out] = at::adaptive_avg_pool1d(s[x], {1});
    } else {
      s[out] = at::adaptive_avg_pool3d(s[x], {1, 1, 1});
    }
  };
}

StepFn MakeBatchNorm(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"epsilon", "momentum", "training_mode"});
  if (n.IntAttr("training_mode", 0) != 0) b.Fail(n, "training_mode 1 is not supported");
  const double eps = n.FloatAttr("epsilon", 1e-5f);
  // ONNX momentum only matters in training; 0.1 is what torch.nn.BatchNorm2d passes.
  const double momentum = 0.1;
  const int x = b.In(n, 0), scale = b.In(n, 1), bias = b.In(n, 2), mean = b.In(n, 3),
            var = b.In(n, 4), out = b.Out(n);
  return [=](Slots& s) {
    s[out] = at::batch_norm(s[x], s[scale], s[bias], s[mean], s[var], /*training=*/false, momentum,
                            eps, /*cudnn_enabled=*/true);
  };
}

StepFn MakeLayerNorm(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"axis", "epsilon", "stash_type"});
  if (n.IntAttr("stash_type", 1) != 1) b.Fail(n, "stash_type other than float32");
  const Shape& in = b.ShapeOfInput(n, 0);
  const int64_t axis = NormalizeAxis(b, n, n.IntAttr("axis", -1), in.size());
  const Ints normalized(in.begin() + axis, in.end());
  const double eps = n.FloatAttr("epsilon", 1e-5f);
  const int x = b.In(n, 0), scale = b.In(n, 1), bias = b.OptIn(n, 2), out = b.Out(n);
  return [=](Slots& s) {
    s[out] = at::layer_norm(s[x], normalized, s[scale], Optional(s, bias), eps);
  };
}

StepFn MakeLinear(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {});
  const int x = b.In(n, 0), weight = b.In(n, 1), bias = b.OptIn(n, 2), out = b.Out(n);
  return [=](Slots& s) { s[out] = at::linear(s[x], s[weight], Optional(s, bias)); };
}

StepFn MakeGemm(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"alpha", "beta", "transA", "transB"});
  const double alpha = n.FloatAttr("alpha", 1.0f), beta = n.FloatAttr("beta", 1.0f);
  const bool trans_a = n.IntAttr("transA", 0) != 0, trans_b = n.IntAttr("transB", 0) != 0;
  const int a = b.In(n, 0), w = b.In(n, 1), c = b.OptIn(n, 2);
  const bool vector_bias = c < 0 || b.ShapeOfInput(n, 2).size() == 1;
  const int out = b.Out(n);
  // The ONNX form of torch.nn.Linear: run it as the one kernel PyTorch would.
  if (!trans_a && trans_b && alpha == 1.0 && beta == 1.0 && vector_bias) {
    return [=](Slots& s) { s[out] = at::linear(s[a], s[w], Optional(s, c)); };
  }
  return [=](Slots& s) {
    const at::Tensor lhs = trans_a ? s[a].t() : s[a];
    const at::Tensor rhs = trans_b ? s[w].t() : s[w];
    if (c >= 0) {
      s[out] = at::addmm(s[c], lhs, rhs, beta, alpha);
    } else {
      s[out] = alpha == 1.0 ? at::mm(lhs, rhs) : at::mm(lhs, rhs).mul_(alpha);
    }
  };
}

StepFn MakeAttention(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"scale"});
  std::optional<double> scale;
  if (n.HasAttr("scale")) scale = n.FloatAttr("scale", 0.0f);
  const int q = b.In(n, 0), k = b.In(n, 1), v = b.In(n, 2), bias = b.OptIn(n, 3), out = b.Out(n);
  return [=](Slots& s) {
    s[out] = at::scaled_dot_product_attention(s[q], s[k], s[v], Optional(s, bias),
                                              /*dropout_p=*/0.0, /*is_causal=*/false, scale);
  };
}

StepFn MakeGelu(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"approximate"});
  const std::string approximate = n.StringAttr("approximate", "none");
  if (approximate != "none" && approximate != "tanh") {
    b.Fail(n, "approximate '" + approximate + "' is not one of none, tanh");
  }
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) { s[out] = at::gelu(s[x], approximate); };
}

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

StepFn MakeSoftmax(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"axis"});
  const int64_t axis = NormalizeAxis(b, n, n.IntAttr("axis", -1), b.ShapeOfInput(n, 0).size());
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) { s[out] = at::softmax(s[x], axis); };
}

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

// ---- Operators PyTorch's ONNX exporters emit beyond the model zoo's --------------------------
// Each runs as the ATen call PyTorch eager makes for the module or function that exports to it.

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

StepFn MakeLogSoftmax(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"axis"});
  const int64_t axis = NormalizeAxis(b, n, n.IntAttr("axis", -1), b.ShapeOfInput(n, 0).size());
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) { s[out] = at::log_softmax(s[x], axis); };
}

StepFn MakeInstanceNorm(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"epsilon"});
  const double eps = n.FloatAttr("epsilon", 1e-5f);
  const int x = b.In(n, 0), scale = b.In(n, 1), bias = b.In(n, 2), out = b.Out(n);
  return [=](Slots& s) {
    s[out] = at::instance_norm(s[x], s[scale], s[bias], {}, {}, /*use_input_stats=*/true,
                               /*momentum=*/0.1, eps, /*cudnn_enabled=*/true);
  };
}

StepFn MakeGlobalMaxPool(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {});
  const size_t rank = b.ShapeOfInput(n, 0).size();
  if (rank < 3 || rank > 5) b.Fail(n, "supports inputs of rank 3 to 5");
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) {
    if (rank == 4) {
      s[out] = std::get<0>(at::adaptive_max_pool2d(s[x], {1, 1}));
    } else if (rank == 3) {
      s[out] = std::get<0>(at::adaptive_max_pool1d(s[x], {1}));
    } else {
      s[out] = std::get<0>(at::adaptive_max_pool3d(s[x], {1, 1, 1}));
    }
  };
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

StepFn MakeEinsum(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"equation"});
  const std::string equation = n.StringAttr("equation", "");
  if (equation.empty()) b.Fail(n, "attribute 'equation' is required");
  const std::vector<int> xs = b.AllIn(n);
  const int out = b.Out(n);
  return [=](Slots& s) {
    std::vector<at::Tensor> operands;
    for (int x : xs) operands.push_back(s[x]);
    s[out] = at::einsum(equation, operands);
  };
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

StepFn MakeConvTranspose(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"auto_pad", "dilations", "group", "kernel_shape", "output_padding",
                   "output_shape", "pads", "strides"});
  const Shape& in = b.ShapeOfInput(n, 0);
  const Shape& wshape = b.ShapeOfInput(n, 1);  // [C_in, C_out / group, k...]
  if (in.size() < 3 || in.size() > 5 || wshape.size() != in.size()) {
    b.Fail(n, "supports 1-D, 2-D and 3-D transposed convolutions");
  }
  if (n.StringAttr("auto_pad", "NOTSET") != "NOTSET") b.Fail(n, "auto_pad other than NOTSET");
  if (n.HasAttr("output_shape")) b.Fail(n, "output_shape is not supported; give pads");
  const size_t r = in.size() - 2;
  const Ints kernel(wshape.begin() + 2, wshape.end());
  if (n.HasAttr("kernel_shape") && n.IntsAttr("kernel_shape") != kernel) {
    b.Fail(n, "kernel_shape disagrees with the weight's shape " + ShapeToString(wshape));
  }
  const Ints strides = n.IntsAttr("strides", Ints(r, 1)), dilations = n.IntsAttr("dilations", Ints(r, 1));
  const Ints pads = n.IntsAttr("pads", Ints(2 * r, 0));
  const Ints output_padding = n.IntsAttr("output_padding", Ints(r, 0));
  if (strides.size() != r || dilations.size() != r || pads.size() != 2 * r ||
      output_padding.size() != r) {
    b.Fail(n, "strides, dilations, pads and output_padding must match the spatial dimensions");
  }
  const int64_t groups = n.IntAttr("group", 1);
  if (groups < 1 || in[1] != wshape[0] || in[1] % groups != 0) {
    b.Fail(n, "group " + std::to_string(groups) + " does not fit input channels " +
                  std::to_string(in[1]) + " and weight " + ShapeToString(wshape));
  }
  // torch pads both sides alike; ONNX's asymmetric pads crop the difference after it.
  Ints padding(r), crop_begin(r), crop_end(r);
  bool crop = false;
  for (size_t i = 0; i < r; ++i) {
    if (output_padding[i] >= std::max(strides[i], dilations[i])) {
      b.Fail(n, "output_padding must be smaller than the stride or the dilation");
    }
    padding[i] = std::min(pads[i], pads[i + r]);
    crop_begin[i] = pads[i] - padding[i];
    crop_end[i] = pads[i + r] - padding[i];
    crop = crop || crop_begin[i] != 0 || crop_end[i] != 0;
  }
  const int x = b.In(n, 0), weight = b.In(n, 1), bias = b.OptIn(n, 2), out = b.Out(n);
  return [=](Slots& s) {
    const std::optional<at::Tensor> bias_t = Optional(s, bias);
    at::Tensor y;
    if (r == 2) {
      y = at::conv_transpose2d(s[x], s[weight], bias_t, strides, padding, output_padding, groups,
                               dilations);
    } else if (r == 1) {
      y = at::conv_transpose1d(s[x], s[weight], bias_t, strides, padding, output_padding, groups,
                               dilations);
    } else {
      y = at::conv_transpose3d(s[x], s[weight], bias_t, strides, padding, output_padding, groups,
                               dilations);
    }
    if (crop) {
      for (size_t i = 0; i < r; ++i) {
        const auto axis = static_cast<int64_t>(i + 2);
        y = y.slice(axis, crop_begin[i], y.size(axis) - crop_end[i]);
      }
    }
    s[out] = y;
  };
}

// Resize on the spatial axes of [N, C, ...]. Where ONNX's coordinate and rounding modes are the
// ones an F.interpolate mode exports to, the upsample kernel of that mode runs; any other
// nearest-neighbour mode picks the source pixels ONNX's formula names, by index_select.
StepFn MakeResize(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside",
                   "extrapolation_value", "mode", "nearest_mode"});
  const Shape& in = b.ShapeOfInput(n, 0);
  const Shape& out_shape = b.ShapeOfOutput(n, 0);
  const size_t rank = in.size();
  if (rank < 3 || rank > 5 || out_shape.size() != rank || in[0] != out_shape[0] ||
      in[1] != out_shape[1]) {
    b.Fail(n, "resizes only the spatial axes of an [N, C, ...] input of rank 3 to 5");
  }
  const size_t r = rank - 2;
  const std::string mode = n.StringAttr("mode", "nearest");
  const std::string ctm = n.StringAttr("coordinate_transformation_mode", "half_pixel");
  const std::string nearest = n.StringAttr("nearest_mode", "round_prefer_floor");
  if (n.IntAttr("exclude_outside", 0) != 0) b.Fail(n, "exclude_outside 1 is not supported");
  // Scales, when given, are what the coordinate transform divides by (torch's scale_factor);
  // else out / in, which torch computes itself from the sizes.
  std::vector<double> scales(r);
  bool has_scales = false;
  if (b.Present(n, 2)) {
    const Initializer* init = b.Constant(n, 2);
    if (!init || init->dtype != DType::kFloat32) b.Fail(n, "scales must be a float constant");
    if (!init->tensor.data.empty()) {
      if (init->tensor.data.size() != rank) b.Fail(n, "scales must have one value per axis");
      has_scales = true;
      for (size_t i = 0; i < r; ++i) scales[i] = init->tensor.data[i + 2];
    }
  }
  if (!has_scales) {
    for (size_t i = 0; i < r; ++i) {
      scales[i] = static_cast<double>(out_shape[i + 2]) / static_cast<double>(in[i + 2]);
    }
  }
  const Ints size(out_shape.begin() + 2, out_shape.end());
  std::vector<std::optional<double>> torch_scales(3);
  if (has_scales) {
    for (size_t i = 0; i < r; ++i) torch_scales[i] = scales[i];
  }
  const bool some_output_is_one =
      std::any_of(size.begin(), size.end(), [](int64_t d) { return d == 1; });
  const int x = b.In(n, 0);
  if (mode == "linear" || mode == "cubic") {
    // half_pixel is torch's align_corners=False; pytorch_half_pixel equals it unless an output
    // axis has length 1.
    const bool half = ctm == "half_pixel" || (ctm == "pytorch_half_pixel" && !some_output_is_one);
    if (!half && ctm != "align_corners") {
      b.Fail(n, mode + " resize with coordinate_transformation_mode '" + ctm +
                    "' (supported: half_pixel, pytorch_half_pixel, align_corners)");
    }
    const bool align = ctm == "align_corners";
    const int out = b.Out(n);
    if (mode == "cubic") {
      if (r != 2) b.Fail(n, "cubic resize of other than 2 spatial axes");
      if (std::fabs(n.FloatAttr("cubic_coeff_a", -0.75f) + 0.75f) > 1e-6f) {
        b.Fail(n, "cubic_coeff_a other than -0.75 (torch's bicubic)");
      }
      return [=](Slots& s) {
        s[out] = at::upsample_bicubic2d(s[x], size, align, torch_scales[0], torch_scales[1]);
      };
    }
    return [=](Slots& s) {
      if (r == 2) {
        s[out] = at::upsample_bilinear2d(s[x], size, align, torch_scales[0], torch_scales[1]);
      } else if (r == 1) {
        s[out] = at::upsample_linear1d(s[x], size, align, torch_scales[0]);
      } else {
        s[out] = at::upsample_trilinear3d(s[x], size, align, torch_scales[0], torch_scales[1],
                                          torch_scales[2]);
      }
    };
  }
  if (mode != "nearest") b.Fail(n, "mode '" + mode + "' is not nearest, linear or cubic");
  const bool torch_nearest = ctm == "asymmetric" && nearest == "floor";
  const bool torch_exact = ctm == "half_pixel" && nearest == "round_prefer_ceil";
  if (torch_nearest || torch_exact) {
    const int out = b.Out(n);
    return [=](Slots& s) {
      const auto& sc = torch_scales;
      if (torch_nearest) {
        s[out] = r == 2   ? at::upsample_nearest2d(s[x], size, sc[0], sc[1])
                 : r == 1 ? at::upsample_nearest1d(s[x], size, sc[0])
                          : at::upsample_nearest3d(s[x], size, sc[0], sc[1], sc[2]);
      } else {
        s[out] = r == 2   ? at::_upsample_nearest_exact2d(s[x], size, sc[0], sc[1])
                 : r == 1 ? at::_upsample_nearest_exact1d(s[x], size, sc[0])
                          : at::_upsample_nearest_exact3d(s[x], size, sc[0], sc[1], sc[2]);
      }
    };
  }
  // ONNX's formula, per axis: the source coordinate of each output index, then its rounding.
  std::vector<at::Tensor> indices;
  for (size_t i = 0; i < r; ++i) {
    const int64_t in_len = in[i + 2], out_len = size[i];
    Ints index(static_cast<size_t>(out_len));
    for (int64_t o = 0; o < out_len; ++o) {
      const double scale = scales[i];
      double c = 0;
      if (ctm == "half_pixel") {
        c = (o + 0.5) / scale - 0.5;
      } else if (ctm == "pytorch_half_pixel") {
        c = out_len > 1 ? (o + 0.5) / scale - 0.5 : 0.0;
      } else if (ctm == "align_corners") {
        c = out_len > 1 ? o * static_cast<double>(in_len - 1) / (out_len - 1) : 0.0;
      } else if (ctm == "asymmetric") {
        c = o / scale;
      } else if (ctm == "tf_half_pixel_for_nn") {
        c = (o + 0.5) / scale;
      } else {
        b.Fail(n, "coordinate_transformation_mode '" + ctm + "' for nearest resize");
      }
      double v = 0;
      if (nearest == "round_prefer_floor") {
        v = c == std::floor(c) + 0.5 ? std::floor(c) : std::round(c);
      } else if (nearest == "round_prefer_ceil") {
        v = c == std::floor(c) + 0.5 ? std::ceil(c) : std::round(c);
      } else if (nearest == "floor") {
        v = std::floor(c);
      } else if (nearest == "ceil") {
        v = std::ceil(c);
      } else {
        b.Fail(n, "nearest_mode '" + nearest + "'");
      }
      index[static_cast<size_t>(o)] =
          std::clamp<int64_t>(static_cast<int64_t>(v), 0, in_len - 1);
    }
    indices.push_back(at::tensor(index, at::kLong).to(b.device()));
  }
  const int out = b.Out(n);
  return [=](Slots& s) {
    at::Tensor t = s[x];
    for (size_t i = 0; i < indices.size(); ++i) {
      t = at::index_select(t, static_cast<int64_t>(i + 2), indices[i]);
    }
    s[out] = t;
  };
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

using Maker = std::function<StepFn(ProgramBuilder&, const Node&)>;

const std::map<std::string, Maker>& Makers() {
  auto unary = [](UnaryKernel k) {
    return [k](ProgramBuilder& b, const Node& n) { return MakeUnary(b, n, k); };
  };
  auto binary = [](BinaryKernel k) {
    return [k](ProgramBuilder& b, const Node& n) { return MakeBinary(b, n, k); };
  };
  auto reduce = [](Reduce kind) {
    return [kind](ProgramBuilder& b, const Node& n) { return MakeReduce(b, n, kind); };
  };
  auto variadic = [](Variadic kind) {
    return [kind](ProgramBuilder& b, const Node& n) { return MakeVariadic(b, n, kind); };
  };
  using T = const at::Tensor&;
  static const std::map<std::string, Maker> makers = {
      {"Abs", unary([](T a) { return at::abs(a); })},
      {"Add", binary([](T a, T c) { return at::add(a, c); })},
      {"And", binary([](T a, T c) { return at::logical_and(a, c); })},
      {"ArgMax", [](ProgramBuilder& b, const Node& n) { return MakeArgReduce(b, n, true); }},
      {"ArgMin", [](ProgramBuilder& b, const Node& n) { return MakeArgReduce(b, n, false); }},
      {"AveragePool", [](ProgramBuilder& b, const Node& n) { return MakePool(b, n, false); }},
      {"BatchNormalization", MakeBatchNorm},
      {"Cast", MakeCast},
      {"CastLike", MakeCastLike},
      {"Ceil", unary([](T a) { return at::ceil(a); })},
      {"Celu", MakeCelu},
      {"Clip", MakeClip},
      {"Concat", MakeConcat},
      {"ConstantOfShape", MakeConstantOfShape},
      {"Conv", MakeConv},
      {"ConvTranspose", MakeConvTranspose},
      {"Cos", unary([](T a) { return at::cos(a); })},
      {"CumSum", MakeCumSum},
      {"DepthToSpace", MakeDepthToSpace},
      {"Div", MakeDiv},
      {"Dropout", MakeDropout},
      {"Einsum", MakeEinsum},
      {"Elu", MakeElu},
      {"Equal", binary([](T a, T c) { return at::eq(a, c); })},
      {"Erf", unary([](T a) { return at::erf(a); })},
      {"Exp", unary([](T a) { return at::exp(a); })},
      {"Expand", MakeExpand},
      {"Flatten", MakeFlatten},
      {"Floor", unary([](T a) { return at::floor(a); })},
      {"Gather", MakeGather},
      {"GatherElements", MakeGatherElements},
      {"Gelu", MakeGelu},
      {"Gemm", MakeGemm},
      {"GlobalAveragePool", MakeGlobalAveragePool},
      {"GlobalMaxPool", MakeGlobalMaxPool},
      {"Greater", binary([](T a, T c) { return at::gt(a, c); })},
      {"GreaterOrEqual", binary([](T a, T c) { return at::ge(a, c); })},
      {"HardSigmoid", MakeHardSigmoid},
      {"HardSwish", unary([](T a) { return at::hardswish(a); })},
      {"Identity", MakeIdentity},
      {"InstanceNormalization", MakeInstanceNorm},
      {"LayerNormalization", MakeLayerNorm},
      {"LeakyRelu", MakeLeakyRelu},
      {"Less", binary([](T a, T c) { return at::lt(a, c); })},
      {"LessOrEqual", binary([](T a, T c) { return at::le(a, c); })},
      {"Linear", MakeLinear},
      {"Log", unary([](T a) { return at::log(a); })},
      {"LogSoftmax", MakeLogSoftmax},
      {"MatMul", binary([](T a, T c) { return at::matmul(a, c); })},
      {"Max", variadic(Variadic::kMax)},
      {"MaxPool", [](ProgramBuilder& b, const Node& n) { return MakePool(b, n, true); }},
      {"Mean", variadic(Variadic::kMean)},
      {"Min", variadic(Variadic::kMin)},
      {"Mod", MakeMod},
      {"Mul", binary([](T a, T c) { return at::mul(a, c); })},
      {"Neg", unary([](T a) { return at::neg(a); })},
      {"Not", unary([](T a) { return at::logical_not(a); })},
      {"Or", binary([](T a, T c) { return at::logical_or(a, c); })},
      {"Pad", MakePad},
      {"Pow", MakePow},
      {"PRelu", MakePRelu},
      {"Range", MakeRange},
      {"Reciprocal", unary([](T a) { return at::reciprocal(a); })},
      {"ReduceL2", reduce(Reduce::kL2)},
      {"ReduceLogSumExp", reduce(Reduce::kLogSumExp)},
      {"ReduceMax", reduce(Reduce::kMax)},
      {"ReduceMean", reduce(Reduce::kMean)},
      {"ReduceMin", reduce(Reduce::kMin)},
      {"ReduceProd", reduce(Reduce::kProd)},
      {"ReduceSum", reduce(Reduce::kSum)},
      {"Relu", unary([](T a) { return at::relu(a); })},
      {"Reshape", MakeReshape},
      {"Resize", MakeResize},
      {"Round", unary([](T a) { return at::round(a); })},
      {"ScatterElements", MakeScatterElements},
      {"ScatterND", MakeScatterND},
      {"ScaledDotProductAttention", MakeAttention},
      {"Selu", MakeSelu},
      {"Shape", MakeShape},
      {"Sigmoid", unary([](T a) { return at::sigmoid(a); })},
      {"Sign", unary([](T a) { return at::sign(a); })},
      {"Sin", unary([](T a) { return at::sin(a); })},
      {"Size", MakeSize},
      {"Slice", MakeSlice},
      {"Softmax", MakeSoftmax},
      // F.softplus (beta 1, threshold 20) and F.softsign (x / (|x| + 1), no kernel of its own).
      {"Softplus", unary([](T a) { return at::softplus(a); })},
      {"Softsign", unary([](T a) { return at::div(a, at::add(at::abs(a), 1)); })},
      {"SpaceToDepth", MakeSpaceToDepth},
      {"Split", MakeSplit},
      {"Sqrt", unary([](T a) { return at::sqrt(a); })},
      {"Squeeze", MakeSqueeze},
      {"Sub", binary([](T a, T c) { return at::sub(a, c); })},
      {"Sum", variadic(Variadic::kSum)},
      {"Tanh", unary([](T a) { return at::tanh(a); })},
      {"Tile", MakeTile},
      {"TopK", MakeTopK},
      {"Transpose", MakeTranspose},
      {"Trilu", MakeTrilu},
      {"Unsqueeze", MakeUnsqueeze},
      {"Where", MakeWhere},
      {"Xor", binary([](T a, T c) { return at::logical_xor(a, c); })},
  };
  return makers;
}

}  // namespace

AtenProgram::AtenProgram(const Graph& graph, const std::string& compiler, c10::Device device,
                         c10::ScalarType dtype) {
  ProgramBuilder b(graph, compiler, device, dtype);
  for (const auto& input : graph.inputs) input_slots_.push_back(b.NewSlot(input.name, {}));
  // Every operator this program lacks, named at once with its count, before anything is built.
  const std::string missing =
      CountOps(graph, [](const std::string& op) { return Makers().count(op) == 0; });
  if (!missing.empty()) {
    throw CompileError("unsupported operators for " + compiler + ": " + missing +
                       " (`ngraphbench list --ops` shows which compiler runs what)");
  }
  std::map<std::string, int> op_counts;
  std::vector<std::string> failures;  // nodes whose attributes or inputs are not supported
  for (const auto& node : graph.nodes) {
    ++op_counts[node.op_type];
    try {
      b.AddStep(Makers().at(node.op_type)(b, node));
    } catch (const CompileError& e) {
      failures.push_back(e.what());
      b.SkipFailed(node);
    }
  }
  if (failures.size() == 1) throw CompileError(failures[0]);
  if (!failures.empty()) {
    // Each message starts with "<compiler>: "; said once for all of them.
    std::string text = compiler + ": " + std::to_string(failures.size()) + " nodes cannot run: ";
    const size_t shown = std::min<size_t>(failures.size(), 10);
    for (size_t i = 0; i < shown; ++i) {
      text += (i ? "; " : "") + failures[i].substr(std::min(failures[i].size(), compiler.size() + 2));
    }
    if (shown < failures.size()) text += "; and " + std::to_string(failures.size() - shown) + " more";
    throw CompileError(text);
  }
  for (const auto& [op, n] : op_counts) {
    op_summary_ += (op_summary_.empty() ? "" : ",") + op + ":" + std::to_string(n);
  }
  for (const auto& output : graph.outputs) {
    const int slot = b.SlotOf(output.name);
    if (slot < 0) {
      throw CompileError(compiler + ": graph output '" + output.name + "' is never computed");
    }
    output_slots_.push_back(slot);
  }
  // Free each intermediate after its last reader, as eager PyTorch drops it when its last
  // Python reference goes; constants stay, outputs are handed to the caller.
  std::map<int, size_t> last_read;
  auto& steps = b.steps();
  for (size_t i = 0; i < steps.size(); ++i) {
    for (int slot : steps[i].second) last_read[slot] = i;
  }
  const std::set<int> outputs(output_slots_.begin(), output_slots_.end());
  // One step per node, in graph order: a node that could not be built threw above.
  TORCH_INTERNAL_ASSERT(steps.size() == graph.nodes.size());
  steps_.resize(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    steps_[i].fn = std::move(steps[i].first);
    steps_[i].node = graph.nodes[i].name;
  }
  for (const auto& [slot, step] : last_read) {
    if (!b.constant_slots().count(slot) && !outputs.count(slot)) {
      steps_[step].release.push_back(slot);
    }
  }
  slots_ = std::move(b.slots());
}

std::vector<at::Tensor> AtenProgram::Run(const std::vector<at::Tensor>& inputs) {
  return Run(inputs, slots_);
}

std::vector<at::Tensor> AtenProgram::Run(const std::vector<at::Tensor>& inputs,
                                         std::vector<at::Tensor>& slots) const {
  if (inputs.size() != input_slots_.size()) {
    throw std::invalid_argument("AtenProgram::Run: expected " +
                                std::to_string(input_slots_.size()) + " inputs, got " +
                                std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    slots[static_cast<size_t>(input_slots_[i])] = inputs[i];
  }
  for (const Step& step : steps_) {
    if (C10_UNLIKELY(record_nodes_)) {
      RECORD_USER_SCOPE(std::string_view(step.node));
      step.fn(slots);
    } else {
      step.fn(slots);
    }
    for (int slot : step.release) slots[static_cast<size_t>(slot)].reset();
  }
  std::vector<at::Tensor> outputs;
  outputs.reserve(output_slots_.size());
  for (int slot : output_slots_) outputs.push_back(slots[static_cast<size_t>(slot)]);
  return outputs;
}

}  // namespace ngraphbench::torch_common
