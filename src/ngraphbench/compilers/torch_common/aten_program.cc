#include "ngraphbench/compilers/torch_common/aten_program.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <numeric>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "ngraphbench/core/error.h"

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
  std::vector<int> xs;
  for (size_t i = 0; i < n.inputs.size(); ++i) xs.push_back(b.In(n, i));
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
  } else if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    b.Fail(n, "split sizes must be a constant");
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

StepFn MakeReduceMean(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"axes", "keepdims", "noop_with_empty_axes"});
  const size_t rank = b.ShapeOfInput(n, 0).size();
  Ints axes = n.IntsAttr("axes");
  if (n.inputs.size() > 1 && !n.inputs[1].empty()) axes = b.ConstInts(n, 1);  // opset 18
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
  return [=](Slots& s) { s[out] = at::mean(s[x], axes, keepdims); };
}

StepFn MakeGather(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"axis"});
  const Shape& in = b.ShapeOfInput(n, 0);
  const int64_t axis = NormalizeAxis(b, n, n.IntAttr("axis", 0), in.size());
  const int64_t dim = in[static_cast<size_t>(axis)];
  Ints indices = b.ConstInts(n, 1);
  const Shape& index_shape = b.ShapeOfInput(n, 1);
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
  const Ints shape = b.ConstInts(n, 1);
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

using Maker = std::function<StepFn(ProgramBuilder&, const Node&)>;

const std::map<std::string, Maker>& Makers() {
  auto unary = [](UnaryKernel k) {
    return [k](ProgramBuilder& b, const Node& n) { return MakeUnary(b, n, k); };
  };
  auto binary = [](BinaryKernel k) {
    return [k](ProgramBuilder& b, const Node& n) { return MakeBinary(b, n, k); };
  };
  static const std::map<std::string, Maker> makers = {
      {"Add", binary([](const at::Tensor& a, const at::Tensor& c) { return at::add(a, c); })},
      {"AveragePool", [](ProgramBuilder& b, const Node& n) { return MakePool(b, n, false); }},
      {"BatchNormalization", MakeBatchNorm},
      {"Clip", MakeClip},
      {"Concat", MakeConcat},
      {"Conv", MakeConv},
      {"Div", binary([](const at::Tensor& a, const at::Tensor& c) { return at::div(a, c); })},
      {"Erf", unary([](const at::Tensor& a) { return at::erf(a); })},
      {"Expand", MakeExpand},
      {"Flatten", MakeFlatten},
      {"Gather", MakeGather},
      {"Gelu", MakeGelu},
      {"Gemm", MakeGemm},
      {"GlobalAveragePool", MakeGlobalAveragePool},
      {"HardSigmoid", MakeHardSigmoid},
      {"HardSwish", unary([](const at::Tensor& a) { return at::hardswish(a); })},
      {"Identity", MakeIdentity},
      {"LayerNormalization", MakeLayerNorm},
      {"Linear", MakeLinear},
      {"MatMul", binary([](const at::Tensor& a, const at::Tensor& c) { return at::matmul(a, c); })},
      {"MaxPool", [](ProgramBuilder& b, const Node& n) { return MakePool(b, n, true); }},
      {"Mul", binary([](const at::Tensor& a, const at::Tensor& c) { return at::mul(a, c); })},
      {"Pow", MakePow},
      {"ReduceMean", MakeReduceMean},
      {"Relu", unary([](const at::Tensor& a) { return at::relu(a); })},
      {"Reshape", MakeReshape},
      {"ScaledDotProductAttention", MakeAttention},
      {"Sigmoid", unary([](const at::Tensor& a) { return at::sigmoid(a); })},
      {"Slice", MakeSlice},
      {"Split", MakeSplit},
      {"Softmax", MakeSoftmax},
      {"Sqrt", unary([](const at::Tensor& a) { return at::sqrt(a); })},
      {"Squeeze", MakeSqueeze},
      {"Sub", binary([](const at::Tensor& a, const at::Tensor& c) { return at::sub(a, c); })},
      {"Tanh", unary([](const at::Tensor& a) { return at::tanh(a); })},
      {"Transpose", MakeTranspose},
      {"Unsqueeze", MakeUnsqueeze},
  };
  return makers;
}

}  // namespace

AtenProgram::AtenProgram(const Graph& graph, const std::string& compiler, c10::Device device,
                         c10::ScalarType dtype) {
  ProgramBuilder b(graph, compiler, device, dtype);
  for (const auto& input : graph.inputs) input_slots_.push_back(b.NewSlot(input.name, {}));
  std::map<std::string, int> op_counts;
  for (const auto& node : graph.nodes) {
    ++op_counts[node.op_type];
    auto maker = Makers().find(node.op_type);
    if (maker == Makers().end()) {
      std::string known;
      for (const auto& [op, make] : Makers()) known += (known.empty() ? "" : ", ") + op;
      b.Fail(node, "operator not supported; supported operators: " + known);
    }
    b.AddStep(maker->second(b, node));
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
  steps_.resize(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) steps_[i].fn = std::move(steps[i].first);
  for (const auto& [slot, step] : last_read) {
    if (!b.constant_slots().count(slot) && !outputs.count(slot)) {
      steps_[step].release.push_back(slot);
    }
  }
  slots_ = std::move(b.slots());
}

std::vector<at::Tensor> AtenProgram::Run(const std::vector<at::Tensor>& inputs) {
  if (inputs.size() != input_slots_.size()) {
    throw std::invalid_argument("AtenProgram::Run: expected " +
                                std::to_string(input_slots_.size()) + " inputs, got " +
                                std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    slots_[static_cast<size_t>(input_slots_[i])] = inputs[i];
  }
  for (const Step& step : steps_) {
    step.fn(slots_);
    for (int slot : step.release) slots_[static_cast<size_t>(slot)].reset();
  }
  std::vector<at::Tensor> outputs;
  outputs.reserve(output_slots_.size());
  for (int slot : output_slots_) outputs.push_back(slots_[static_cast<size_t>(slot)]);
  return outputs;
}

}  // namespace ngraphbench::torch_common
