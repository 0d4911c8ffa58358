// What the ONNX import checks beyond libonnx's checker and shape inference, which would crash on
// or accept these models, and the checker's call itself.
#include <onnx/checker.h>

#include <set>
#include <stdexcept>
#include <vector>

#include "ngraphbench/core/error.h"
#include "ngraphbench/graph/onnx_import.h"

namespace ngraphbench::onnx_import {

void CheckNodeAttributes(const onnx::GraphProto& g, const std::string& source) {
  if (g.output_size() == 0) {
    throw InputError("ONNX model '" + source + "' has no graph outputs; a model must produce one");
  }
  static const std::set<std::string> kWindowed = {"Conv", "ConvTranspose", "MaxPool",
                                                  "AveragePool", "LpPool"};
  for (const auto& node : g.node()) {
    if (!kWindowed.count(node.op_type())) continue;
    const std::string where = "ONNX model '" + source + "': node '" + node.name() + "' (" +
                              node.op_type() + ") ";
    for (const auto& a : node.attribute()) {
      const std::string& key = a.name();
      if (key == "strides" || key == "dilations" || key == "kernel_shape") {
        for (int64_t v : a.ints()) {
          if (v < 1) throw InputError(where + "has " + key + " " + std::to_string(v) + "; each must be >= 1");
        }
      } else if (key == "pads") {
        for (int64_t v : a.ints()) {
          if (v < 0) throw InputError(where + "has pads " + std::to_string(v) + "; each must be >= 0");
        }
      } else if (key == "group" && a.i() < 1) {
        throw InputError(where + "has group " + std::to_string(a.i()) + "; it must be >= 1");
      }
    }
  }
}

// A windowed node (Conv, ConvTranspose, pooling) against the shapes inference gave, checked as
// an SDK checks it when it builds the node (ONNX Runtime refuses each of these at session
// creation), since libonnx's shape inference does not: the weight against the input's channels
// (a kernel reading C channels of a weight laid out for fewer reads past its end), kernel_shape
// against the weight, one stride, dilation and pair of pads per spatial axis, auto_pad without
// explicit pads, pooling pads within the window, and a dilated window that fits the padded input.
// Runs after shape inference, which has checked that strides, dilations and pads have one value
// (pads two) per spatial axis.
void CheckWindowed(const onnx::NodeProto& n, const std::map<std::string, Shape>& shapes,
                   const std::string& source) {
  static const std::set<std::string> kPools = {"MaxPool", "AveragePool", "LpPool"};
  const bool conv = n.op_type() == "Conv";
  const bool transpose = n.op_type() == "ConvTranspose";
  const bool pool = kPools.count(n.op_type()) > 0;
  if ((!conv && !transpose && !pool) || n.input_size() < 1) return;
  const auto x = shapes.find(n.input(0));
  if (x == shapes.end()) return;
  const Shape& xs = x->second;
  const std::string where =
      "ONNX model '" + source + "': node '" + n.name() + "' (" + n.op_type() + ") ";
  std::map<std::string, const onnx::AttributeProto*> attrs;
  for (const auto& a : n.attribute()) attrs[a.name()] = &a;
  auto ints = [&](const std::string& key) {
    const auto it = attrs.find(key);
    return it == attrs.end() ? Shape() : Shape(it->second->ints().begin(), it->second->ints().end());
  };
  const int64_t group = attrs.count("group") ? attrs["group"]->i() : 1;
  if (xs.size() < 3) {
    throw InputError(where + "has an input of shape " + ShapeToString(xs) +
                     "; expected at least 3 dimensions ([N, C, spatial...])");
  }
  const size_t spatial = xs.size() - 2;
  Shape kernel = ints("kernel_shape");
  if (conv || transpose) {
    if (n.input_size() < 2) return;
    const auto w = shapes.find(n.input(1));
    if (w == shapes.end()) return;
    const Shape& ws = w->second;
    if (ws.size() != xs.size()) {
      throw InputError(where + "has an input of rank " + std::to_string(xs.size()) +
                       " and a weight of rank " + std::to_string(ws.size()) +
                       "; expected equal ranks of at least 3 ([N, C, spatial...])");
    }
    // Conv: [M, C/group, k...]; ConvTranspose: [C, M/group, k...].
    if (conv ? ws[1] * group != xs[1] || ws[0] % group != 0 : ws[0] != xs[1] || xs[1] % group != 0) {
      throw InputError(where + "has " + std::to_string(xs[1]) + " input channels but a weight of " +
                       ShapeToString(ws) + " with group " + std::to_string(group) +
                       (conv ? "; expected a weight [M, C/group, k...] with M a multiple of group"
                             : "; expected a weight [C, M/group, k...] with C a multiple of group"));
    }
    const int64_t out_channels = conv ? ws[0] : ws[1] * group;
    if (n.input_size() > 2 && !n.input(2).empty()) {
      const auto b = shapes.find(n.input(2));
      if (b != shapes.end() && (b->second.size() != 1 || b->second[0] != out_channels)) {
        throw InputError(where + "has a bias of " + ShapeToString(b->second) + "; expected [" +
                         std::to_string(out_channels) + "], one value per output channel");
      }
    }
    const Shape weight_kernel(ws.begin() + 2, ws.end());
    if (attrs.count("kernel_shape") && kernel != weight_kernel) {
      throw InputError(where + "has kernel_shape " + ShapeToString(kernel) + " but a weight of " +
                       ShapeToString(ws) + ", whose window is " + ShapeToString(weight_kernel) +
                       "; they must agree (or leave kernel_shape out)");
    }
    kernel = weight_kernel;
  } else if (kernel.size() != spatial) {
    throw InputError(where + "has kernel_shape " + ShapeToString(kernel) + " for an input of " +
                     ShapeToString(xs) + "; expected one window size per spatial axis (" +
                     std::to_string(spatial) + ")");
  }
  const Shape pads = ints("pads");
  const std::string auto_pad = attrs.count("auto_pad") ? attrs["auto_pad"]->s() : "NOTSET";
  static const std::set<std::string> kAutoPads = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};
  if (!kAutoPads.count(auto_pad)) {
    throw InputError(where + "has auto_pad '" + auto_pad +
                     "'; expected NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  }
  const bool explicit_pads = std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p != 0; });
  if (auto_pad != "NOTSET" && explicit_pads) {
    throw InputError(where + "has auto_pad " + auto_pad + " and explicit pads " +
                     ShapeToString(pads) + "; ONNX allows one or the other (auto_pad NOTSET "
                     "with pads, or auto_pad without them)");
  }
  if (transpose) return;  // a transposed window grows its input: any size fits
  const Shape dilations = ints("dilations");
  for (size_t i = 0; i < spatial; ++i) {
    const int64_t begin = i < pads.size() / 2 ? pads[i] : 0;
    const int64_t end = i < pads.size() / 2 ? pads[i + spatial] : 0;
    if (pool && (begin >= kernel[i] || end >= kernel[i])) {
      throw InputError(where + "has pads " + ShapeToString(pads) + " and kernel_shape " +
                       ShapeToString(kernel) + "; each pad must be smaller than its window");
    }
    const int64_t dilation = i < dilations.size() ? dilations[i] : 1;
    // In long double: a hostile dilation or pad near 2^63 must not wrap.
    const long double window = static_cast<long double>(dilation) * (kernel[i] - 1) + 1;
    const long double padded = static_cast<long double>(xs[i + 2]) +
                               (auto_pad == "NOTSET" ? begin + end : 0);
    if (auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && window > padded) {
      throw InputError(where + "has kernel " + std::to_string(kernel[i]) + " with dilation " +
                       std::to_string(dilation) + " on spatial axis " + std::to_string(i) +
                       ", a window wider than the input " + ShapeToString(xs) +
                       (pads.empty() ? std::string(" without pads")
                                     : " with pads " + ShapeToString(pads)) +
                       "; the dilated window must fit the padded input");
    }
  }
}

void CheckModel(onnx::ModelProto& model, const std::string& source) {
  onnx::GraphProto* g = model.mutable_graph();
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> infos;
  for (auto& info : *g->mutable_value_info()) {
    if (!info.type().has_tensor_type() || info.type().tensor_type().has_shape()) {
      *infos.Add() = std::move(info);
    }
  }
  g->mutable_value_info()->Swap(&infos);
  std::vector<onnx::ValueInfoProto*> shapeless;
  for (auto* list : {g->mutable_input(), g->mutable_output()}) {
    for (auto& info : *list) {
      auto* t = info.mutable_type();
      if (t->has_tensor_type() && !t->tensor_type().has_shape()) {
        t->mutable_tensor_type()->mutable_shape();
        shapeless.push_back(&info);
      }
    }
  }
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    throw InputError("ONNX model '" + source + "' fails the ONNX checker: " + e.what());
  }
  for (auto* info : shapeless) info->mutable_type()->mutable_tensor_type()->clear_shape();
  // libonnx 1.12 does not check that an output is defined; dead-code removal would otherwise
  // drop every node of such a graph and leave an output nothing computes.
  std::set<std::string> defined;
  for (const auto& in : g->input()) defined.insert(in.name());
  for (const auto& t : g->initializer()) defined.insert(t.name());
  for (const auto& n : g->node()) defined.insert(n.output().begin(), n.output().end());
  for (const auto& out : g->output()) {
    if (!defined.count(out.name())) {
      throw InputError("ONNX model '" + source + "': graph output '" + out.name() +
                       "' is computed by no node (nor is it an input or initializer); every "
                       "output must be a node's output");
    }
  }
}

}  // namespace ngraphbench::onnx_import
