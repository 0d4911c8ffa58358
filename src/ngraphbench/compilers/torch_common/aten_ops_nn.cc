// AtenProgram's layers: convolution, pooling, normalization, matrix products, attention,
// softmax and Resize.
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

StepFn MakeSoftmax(ProgramBuilder& b, const Node& n) {
  b.AllowAttrs(n, {"axis"});
  const int64_t axis = NormalizeAxis(b, n, n.IntAttr("axis", -1), b.ShapeOfInput(n, 0).size());
  const int x = b.In(n, 0), out = b.Out(n);
  return [=](Slots& s) { s[out] = at::softmax(s[x], axis); };
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

}  // namespace

void AddNnOps(MakerTable& table) {
  table.insert({
      {"AveragePool", [](ProgramBuilder& b, const Node& n) { return MakePool(b, n, false); }},
      {"BatchNormalization", MakeBatchNorm},
      {"Conv", MakeConv},
      {"ConvTranspose", MakeConvTranspose},
      {"Einsum", MakeEinsum},
      {"Gelu", MakeGelu},
      {"Gemm", MakeGemm},
      {"GlobalAveragePool", MakeGlobalAveragePool},
      {"GlobalMaxPool", MakeGlobalMaxPool},
      {"InstanceNormalization", MakeInstanceNorm},
      {"LayerNormalization", MakeLayerNorm},
      {"Linear", MakeLinear},
      {"LogSoftmax", MakeLogSoftmax},
      {"MaxPool", [](ProgramBuilder& b, const Node& n) { return MakePool(b, n, true); }},
      {"Resize", MakeResize},
      {"ScaledDotProductAttention", MakeAttention},
      {"Softmax", MakeSoftmax},
  });
}

}  // namespace ngraphbench::torch_common::aten_ops
