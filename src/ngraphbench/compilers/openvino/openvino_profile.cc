// The `openvino` compiler's Profile(): the model compiled a second time with OpenVINO's
// per-layer counters (ov::enable_profiling), its executed layers as kernels, attributed to graph
// nodes through the runtime model's originalLayersNames (see Attribution below).
#include <algorithm>
#include <set>
#include <sstream>

#include "ngraphbench/compilers/openvino/openvino_internal.h"
#include "ngraphbench/core/error.h"

namespace ngraphbench::openvino_compiler {

namespace {

// Attribution. A kernel of Profile() is one layer the plugin executed. The runtime model
// (CompiledModel::get_runtime_model) has an op per layer, named as get_profiling_info() names
// the layer, whose rt_info "originalLayersNames" lists the ops of the read model the layer
// computes: the op the plugin made the layer from and those it fused into it. The ONNX frontend
// names the ops it makes of a graph node after the node (NodeOfOpName), so a listed name that is
// a node's is that node; any other (an op the frontend or a transformation created and named
// `<Type>_<n>` itself, an op named after a value) stands for no node, and nothing is guessed.
constexpr char kOriginalLayersNames[] = "originalLayersNames";

// The graph node each op name of the read model stands for, after the ONNX frontend's naming
// (Graph::set_friendly_names): a node's op takes the node's name when one op gives all its
// outputs, and `<node>_<output>` each when several ops do. Left out: a name two nodes could
// give; and an unnamed node, since the frontend then names its ops after its outputs, the name
// that a pass-through node (Identity, Dropout) also gives the op that computes its input.
std::map<std::string, std::string> NodeOfOpName(const Graph& graph) {
  std::map<std::string, std::string> node_of;
  std::set<std::string> shared;
  const auto add = [&](const std::string& op_name, const std::string& node) {
    const auto [it, added] = node_of.emplace(op_name, node);
    if (!added && it->second != node) shared.insert(op_name);
  };
  for (const Node& node : graph.nodes) {
    if (node.name.empty()) continue;
    add(node.name, node.name);
    if (node.outputs.size() < 2) continue;
    for (const std::string& output : node.outputs) {
      if (!output.empty()) add(node.name + "_" + output, node.name);
    }
  }
  for (const std::string& name : shared) node_of.erase(name);
  return node_of;
}

std::vector<std::string> SplitNames(const std::string& list) {
  std::vector<std::string> names;
  std::istringstream in(list);
  for (std::string name; std::getline(in, name, ',');) {
    if (!name.empty()) names.push_back(name);
  }
  return names;
}

// A layer as get_profiling_info() lists it.
struct Layer {
  std::string name;
  std::string type;       // node_type: "Convolution", "FullyConnected", "Subgraph", "Reorder"
  std::string exec_type;  // the implementation: "brgconv_avx512_FP32", "jit_avx2_FP32", "ref_any"
  int64_t real_us = 0;
};

// The layers get_profiling_info() lists as executed, in its order; a name it lists twice once,
// with the times added.
std::vector<Layer> ExecutedLayers(const std::vector<ov::ProfilingInfo>& infos) {
  std::vector<Layer> layers;
  std::map<std::string, size_t> index;
  for (const ov::ProfilingInfo& info : infos) {
    if (info.status != ov::ProfilingInfo::Status::EXECUTED) continue;
    const auto [it, added] = index.emplace(info.node_name, layers.size());
    if (added) layers.push_back({info.node_name, info.node_type, info.exec_type});
    layers[it->second].real_us += info.real_time.count();
  }
  return layers;
}

// "brgconv_avx512_FP32 61%, jit_avx512_FP32 22%": the implementations by their share of the
// time, the largest first, the first `top`.
std::string ShareByExecType(const std::map<std::string, double>& ms_by_type, size_t top) {
  std::vector<std::pair<double, std::string>> sorted;
  double total = 0;
  for (const auto& [type, ms] : ms_by_type) {
    sorted.emplace_back(ms, type.empty() ? "(none)" : type);
    total += ms;
  }
  std::sort(sorted.rbegin(), sorted.rend());
  std::string text;
  for (size_t i = 0; i < sorted.size() && i < top; ++i) {
    const int percent = total > 0 ? static_cast<int>(100 * sorted[i].first / total + 0.5) : 0;
    text += (text.empty() ? "" : ", ") + sorted[i].second + " " + std::to_string(percent) + "%";
  }
  if (sorted.size() > top) text += ", ...";
  return text;
}

}  // namespace

std::optional<KernelProfile> OpenVinoExecutable::Profile(int runs) {
  if (runs < 1) throw CompileError("openvino: cannot profile " + std::to_string(runs) + " runs");
  try {
    const std::shared_ptr<ov::Model> model =
        ReadOnnx(recipe_.core, *recipe_.onnx, recipe_.onnx_path);
    ov::CompiledModel profiled =
        recipe_.core.compile_model(model, recipe_.device, recipe_.properties);
    ov::InferRequest request = profiled.create_infer_request();
    CopyInputs(profiled, request);
    for (int i = 0; i < kProfileWarmupRuns; ++i) request.infer();
    const std::vector<ov::ProfilingInfo> warm = request.get_profiling_info();
    for (int i = 0; i < runs; ++i) request.infer();
    return Tally(*model, profiled, warm, request.get_profiling_info(), runs);
  } catch (const ov::Exception& e) {
    throw CompileError("openvino (" + recipe_.device + "): profiling: " + e.what());
  }
}

void OpenVinoExecutable::CopyInputs(const ov::CompiledModel& profiled, ov::InferRequest& request) {
  const std::vector<ov::Output<const ov::Node>>& ports = profiled.inputs();
  const std::vector<ov::Output<const ov::Node>>& timed = compiled_.inputs();
  if (ports.size() != timed.size()) {
    throw CompileError("openvino: the profiled model has " + std::to_string(ports.size()) +
                       " inputs, the timed one " + std::to_string(timed.size()));
  }
  for (size_t i = 0; i < ports.size(); ++i) {
    if (ports[i].get_names() != timed[i].get_names()) {
      throw CompileError("openvino: input " + std::to_string(i) + " of the profiled model is " +
                         ports[i].get_any_name() + ", of the timed one " +
                         timed[i].get_any_name());
    }
    request_.get_input_tensor(i).copy_to(request.get_input_tensor(i));
  }
}

KernelProfile OpenVinoExecutable::Tally(const ov::Model& model,
                                        const ov::CompiledModel& profiled,
                                        const std::vector<ov::ProfilingInfo>& warm,
                                        const std::vector<ov::ProfilingInfo>& last,
                                        int runs) const {
  std::map<std::string, int64_t> warm_us;
  for (const Layer& layer : ExecutedLayers(warm)) warm_us[layer.name] = layer.real_us;

  // Each layer's listed ops, from the runtime model; a layer name it has twice is left out.
  std::map<std::string, std::string> originals;
  std::set<std::string> repeated;
  for (const auto& op : profiled.get_runtime_model()->get_ops()) {
    const ov::RTMap& info = op->get_rt_info();
    const auto it = info.find(kOriginalLayersNames);
    if (it == info.end()) continue;
    if (!originals.emplace(op->get_friendly_name(), it->second.as<std::string>()).second) {
      repeated.insert(op->get_friendly_name());
    }
  }
  for (const std::string& name : repeated) originals.erase(name);
  // A name two ops of the read model have (a node's, and one OpenVINO named `<Type>_<n>`)
  // stands for no node.
  std::map<std::string, std::string> node_of = NodeOfOpName(*recipe_.graph);
  std::map<std::string, int> op_names;
  for (const auto& op : model.get_ops()) ++op_names[op->get_friendly_name()];
  for (const auto& [name, count] : op_names) {
    if (count > 1) node_of.erase(name);
  }

  const std::map<std::string, std::string> settings = ReadBack(profiled);
  const auto devices = settings.find("execution_devices");
  const std::string device = devices == settings.end() ? recipe_.device : devices->second;

  KernelProfile profile;
  profile.profiler = "openvino per-layer counters (ov::enable_profiling, get_profiling_info)";
  profile.runs = runs;
  std::map<std::string, double> ms_by_exec_type;
  int layers_without_ops = 0;
  std::vector<std::string> other_names;  // listed op names that are no graph node's
  for (const Layer& layer : ExecutedLayers(last)) {
    ProfiledKernel kernel;
    kernel.name = layer.name;
    kernel.sdk_type = layer.type;
    kernel.calls = runs;
    const auto before = warm_us.find(layer.name);
    const int64_t us = layer.real_us * (kProfileWarmupRuns + runs) -
                       (before == warm_us.end() ? 0 : before->second) * kProfileWarmupRuns;
    kernel.time_ms = static_cast<double>(std::max<int64_t>(us, 0)) / 1e3;
    kernel.device = device;
    const auto listed = originals.find(layer.name);
    if (listed == originals.end()) {
      ++layers_without_ops;
    } else {
      for (const std::string& name : SplitNames(listed->second)) {
        const auto node = node_of.find(name);
        if (node == node_of.end()) {
          other_names.push_back(name);
        } else if (std::find(kernel.nodes.begin(), kernel.nodes.end(), node->second) ==
                   kernel.nodes.end()) {
          kernel.nodes.push_back(node->second);
        }
      }
    }
    kernel.nodes_known = !kernel.nodes.empty();
    ms_by_exec_type[layer.exec_type] += kernel.time_ms;
    profile.kernels.push_back(std::move(kernel));
  }

  const auto not_executed = std::count_if(last.begin(), last.end(), [](const auto& info) {
    return info.status != ov::ProfilingInfo::Status::EXECUTED;
  });
  profile.notes = {
      "times: OpenVINO's counters give a layer's mean per run since compile in whole "
      "microseconds; a layer's time is its mean x all runs less its mean x the " +
          std::to_string(kProfileWarmupRuns) + " warm-up runs (within about 1 us per run); "
          "copying inputs and outputs and the time between layers are in no layer",
      "calls: OpenVINO counts no calls; each executed layer is counted once per run",
      "nodes: the runtime model's originalLayersNames of each layer that are graph node names; "
      "ops merged by OpenVINO's model transformations keep only the name of the op they "
      "became, so a graph node in no kernel may be computed inside a neighbour's kernel or "
      "folded into constants at compile time",
      std::to_string(not_executed) + " listed layer(s) left out as not run: the CPU plugin's "
          "status for inputs and outputs, a layer fused into another's kernel, one done in "
          "place, and one of under 1 us mean",
      "implementations by time: " + ShareByExecType(ms_by_exec_type, 6),
  };
  if (!other_names.empty()) {
    std::string examples;
    for (size_t i = 0; i < other_names.size() && i < 5; ++i) {
      examples += (i == 0 ? "" : ", ") + other_names[i];
    }
    profile.notes.push_back(std::to_string(other_names.size()) +
                            " originalLayersNames name no graph node (inputs, outputs, ops "
                            "OpenVINO created) and are attributed to none: " + examples +
                            (other_names.size() > 5 ? ", ..." : ""));
  }
  if (layers_without_ops > 0) {
    profile.notes.push_back(std::to_string(layers_without_ops) +
                            " layer(s) without a single op of their name in the runtime model: "
                            "nodes unknown");
  }
  if (device != "CPU") {
    profile.notes.push_back("the times follow the CPU plugin's counters (a mean since compile); "
                            "those of " + device + " were not checked");
  }
  std::string differs;
  for (const auto& [key, value] : settings_) {
    const auto it = settings.find(key);
    if (it != settings.end() && it->second != value) {
      differs += (differs.empty() ? "" : ", ") + key + " " + it->second + " (timed: " + value +
                 ")";
    }
  }
  if (!differs.empty()) profile.notes.push_back("the profiled model differs: " + differs);
  return profile;
}

}  // namespace ngraphbench::openvino_compiler
