// The `openvino` compiler (vendor-specific, Intel CPU): OpenVINO's C++ API reads the ONNX bytes
// in memory through its ONNX frontend and compiles them for one device (CPU, GPU or AUTO).
//
// configs/openvino.yaml maps onto OpenVINO properties:
//   device cpu|gpu|auto  -> "CPU" | "GPU" | "AUTO"
//   precision            -> ov::hint::inference_precision (always set: on CPUs with AMX or
//                           AVX512_BF16 OpenVINO otherwise runs fp32 models in bf16)
//   threads              -> ov::inference_num_threads (CPU only)
//   performance_hint     -> ov::hint::performance_mode (LATENCY; the registry refuses THROUGHPUT)
//   num_streams          -> ov::num_streams (0 = as the hint decides; the registry refuses > 1)
// Scenario offline (CompileRequest::offline) sets both itself: THROUGHPUT, and num_streams =
// the run's streams (`auto`: ov::streams::AUTO, the plugin's choice for the cores it has), with
// inference_num_threads the run's threads split between the streams by the plugin; one infer
// request per stream (NewContext), as many as the run's streams or, under auto,
// ov::optimal_number_of_infer_requests.
//   cache_dir            -> ov::cache_dir (empty: the run's own blob cache, below)
//
// A run's later processes (CompileRequest::cold false) import the model its first process
// compiled: the cold process compiles as always and exports the compiled model
// (CompiledModel::export_model) to <cache_dir>/openvino/<key>/model.blob, and a later process
// imports it (Core::import_model, cache_hit=true in the settings) with the same properties,
// without reading the ONNX model at all. This is what OpenVINO's own model cache (ov::cache_dir)
// does, but the cold process never imports a blob (a row's compile_s stays a compile), the
// blob appears only once complete (CacheEntryBuild), and the key is ours: the model's bytes,
// the device, every property set below, the OpenVINO version and this machine
// (MachineIdentity), so that a results tree shared between machines never gives one machine a
// blob compiled for another CPU's instruction set. Not for AUTO, which picks its device while
// compiling and has no import of its own; nor with the cache_dir option, where OpenVINO's own
// cache decides (loaded_from_cache gives cache_hit).
//
// Profile() compiles the model a second time with OpenVINO's per-layer counters
// (ov::enable_profiling) and reads InferRequest::get_profiling_info(): its kernels are the
// plugin's executed layers, attributed to graph nodes through the runtime model's
// originalLayersNames (see Attribution below).
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <openvino/openvino.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ngraphbench/compilers/compile_helper.h"
#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/compilers/quantize_common/quantize_common.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/tensor.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

constexpr char kBlob[] = "model.blob";

std::string OvDevice(const std::string& device) {
  if (device == "cpu") return "CPU";
  if (device == "gpu") return "GPU";
  if (device == "auto") return "AUTO";
  throw InputError("openvino: device '" + device + "' is not one of cpu, gpu, auto");
}

// Precision int8: the model quantized by NNCF (ov_quantize.py in a helper process with the python
// of the openvino wheel, on the calibration set: quantize_common/quantize_common.h), cached in
// <cache>/openvino-int8/<key>/quantized.{xml,bin}; the key covers OpenVINO's build number.
QuantizeTool NncfTool() {
  QuantizeTool tool;
  tool.who = "openvino";
  tool.python = EnvOr("NGRAPHBENCH_OV_PYTHON", NGB_OV_PYTHON);
  tool.script = EnvOr("NGRAPHBENCH_OV_QUANTIZE_SCRIPT", NGB_OV_QUANTIZE_SCRIPT);
  tool.fix = "set NGRAPHBENCH_OV_PYTHON to a python with the openvino and nncf wheels "
             "(./setup.sh installs both)";
  tool.sdk_version = ov::get_openvino_version().buildNumber;
  tool.outputs = {"quantized.xml", "quantized.bin"};
  return tool;
}

ov::element::Type OvPrecision(const std::string& precision) {
  if (precision == "fp32") return ov::element::f32;
  if (precision == "bf16") return ov::element::bf16;
  if (precision == "fp16") return ov::element::f16;
  throw InputError("openvino: precision '" + precision + "' is not one of fp32, bf16, fp16");
}

std::string Join(const std::vector<std::string>& items) {
  std::string joined;
  for (const std::string& item : items) joined += (joined.empty() ? "" : " ") + item;
  return joined;
}

Shape ToShape(const ov::Shape& shape) { return Shape(shape.begin(), shape.end()); }

// Properties as the compiled model reports them. AUTO reports few itself, so the rest come from
// the properties of the device it picked; a key no one reports is left out rather than guessed.
std::map<std::string, std::string> ReadBack(const ov::CompiledModel& compiled) {
  static const std::vector<std::pair<std::string, std::string>> kKeys = {
      {"threads", ov::inference_num_threads.name()},
      {"num_streams", ov::num_streams.name()},
      {"performance_hint", ov::hint::performance_mode.name()},
      {"inference_precision", ov::hint::inference_precision.name()},
      {"cpu_pinning", ov::hint::enable_cpu_pinning.name()},
      {"execution_devices", ov::execution_devices.name()},
      {"optimal_infer_requests", ov::optimal_number_of_infer_requests.name()},
  };
  const std::vector<ov::PropertyName> supported = compiled.get_property(ov::supported_properties);
  auto is_supported = [&](const std::string& property) {
    return std::find(supported.begin(), supported.end(), property) != supported.end();
  };
  ov::AnyMap picked_device;
  if (is_supported(ov::device::properties.name())) {
    const std::vector<std::string> devices = compiled.get_property(ov::execution_devices);
    const auto all = compiled.get_property(ov::device::properties.name()).as<ov::AnyMap>();
    if (devices.size() == 1 && all.count(devices[0]) > 0) {
      picked_device = all.at(devices[0]).as<ov::AnyMap>();
    }
  }
  std::map<std::string, std::string> settings;
  for (const auto& [key, property] : kKeys) {
    if (is_supported(property)) {
      settings[key] = compiled.get_property(property).as<std::string>();
    } else if (picked_device.count(property) > 0) {
      settings[key] = picked_device.at(property).as<std::string>();
    }
  }
  return settings;
}

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

// From a path, the ONNX frontend reads external data relative to the model's folder.
std::shared_ptr<ov::Model> ReadOnnx(const ov::Core& core, const std::string& onnx,
                                    const std::string& onnx_path) {
  return onnx_path.empty() ? core.read_model(onnx, ov::Tensor()) : core.read_model(onnx_path);
}

// What Profile() needs to read and compile the model again with OpenVINO's per-layer counters:
// the request's graph and ONNX model, which stay valid while the executable lives
// (CompileRequest), rather than the read ov::Model, whose memory would count in the timed runs.
struct ProfileRecipe {
  ov::Core core;          // a handle on the compiler's Core and its plugins
  const Graph* graph;     // CompileRequest::graph
  const std::string* onnx;
  std::string onnx_path;
  std::string device;     // "CPU", "GPU" or "AUTO"
  ov::AnyMap properties;  // the timed model's, with ov::enable_profiling
};

class OpenVinoExecutable final : public Executable {
 public:
  // Binds the graph's inputs and outputs to the compiled model's ports by name. `cache_hit`:
  // the compiled model was imported from a cache rather than compiled here.
  OpenVinoExecutable(ov::CompiledModel compiled, const Graph& graph, ProfileRecipe recipe,
                     bool cache_hit)
      : recipe_(std::move(recipe)),
        compiled_(std::move(compiled)),
        request_(compiled_.create_infer_request()),
        settings_(ReadBack(compiled_)) {
    settings_["cache_hit"] = cache_hit ? "true" : "false";
    const std::vector<ov::Output<const ov::Node>> in_ports = compiled_.inputs();
    for (size_t i = 0; i < graph.inputs.size(); ++i) {
      // OpenVINO's ONNX reader drops a pass-through op (Dropout) by giving its output's name to
      // the value it passes, so an input read only by one loses its own name. Its parameters keep
      // the graph's input order, so that input is bound by position.
      const bool renamed = std::none_of(in_ports.begin(), in_ports.end(), [&](const auto& port) {
        return port.get_names().count(graph.inputs[i].name) > 0;
      });
      inputs_.push_back(renamed && in_ports.size() == graph.inputs.size()
                            ? Port(graph.inputs[i], {in_ports[i]}, /*any_name=*/true)
                            : Port(graph.inputs[i], in_ports));
    }
    for (const TensorSpec& spec : graph.outputs) {
      outputs_.push_back(Port(spec, compiled_.outputs()));
    }
  }

  void SetInputs(const std::vector<HostTensor>& inputs) override {
    CopyIn(request_, inputs_, inputs);
  }

  void Run() override { request_.infer(); }

  std::vector<HostTensor> GetOutputs() override { return CopyOut(request_, outputs_); }

  // Offline: an infer request of its own per stream, each run synchronously on its stream's
  // thread; the compiled model runs requests of several threads at once on its streams.
  std::unique_ptr<RunContext> NewContext() override {
    if (streams_ < 1) return nullptr;  // compiled for one synchronous request
    return std::make_unique<Context>(*this);
  }
  int64_t Streams() const override { return std::max<int64_t>(1, streams_); }

  // Offline (see the file's comment): how many streams to serve, 0 for single stream; adds
  // "streams" and "threads_per_stream" (OpenVINO's threads over its streams) to the settings.
  void ServeStreams(int64_t streams) {
    streams_ = streams;
    settings_["streams"] = std::to_string(streams);
    const auto threads = settings_.find("threads");
    const auto ov_streams = settings_.find("num_streams");
    if (threads != settings_.end() && ov_streams != settings_.end()) {
      const int64_t t = std::strtoll(threads->second.c_str(), nullptr, 10);
      const int64_t n = std::strtoll(ov_streams->second.c_str(), nullptr, 10);
      if (t > 0 && n > 0) {
        settings_["threads_per_stream"] = std::to_string(std::max<int64_t>(1, t / n));
      }
    }
  }

  std::map<std::string, std::string> EffectiveSettings() const override { return settings_; }
  std::map<std::string, std::string>& settings() { return settings_; }  // what Compile adds
  double CacheStoreSeconds() const override { return cache_store_s_; }
  void set_cache_store_s(double seconds) { cache_store_s_ = seconds; }

 private:
  class Context final : public RunContext {
   public:
    explicit Context(OpenVinoExecutable& executable)
        : executable_(executable), request_(executable.compiled_.create_infer_request()) {}
    void SetInputs(const std::vector<HostTensor>& inputs) override {
      CopyIn(request_, executable_.inputs_, inputs);
    }
    void Run() override { request_.infer(); }
    std::vector<HostTensor> GetOutputs() override {
      return CopyOut(request_, executable_.outputs_);
    }

   private:
    OpenVinoExecutable& executable_;
    ov::InferRequest request_;
  };

  static void CopyIn(ov::InferRequest& request,
                     const std::vector<ov::Output<const ov::Node>>& ports,
                     const std::vector<HostTensor>& inputs) {
    if (inputs.size() != ports.size()) {
      throw std::invalid_argument("openvino: got " + std::to_string(inputs.size()) +
                                  " inputs, the model has " + std::to_string(ports.size()));
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      // The request's own tensors were allocated at compile time (host memory the plugin reads
      // directly); the timed Run() then copies nothing.
      ov::Tensor tensor = request.get_tensor(ports[i]);
      if (ToShape(tensor.get_shape()) != inputs[i].shape) {
        throw std::invalid_argument("openvino: input " + ports[i].get_any_name() + " is " +
                                    ShapeToString(ToShape(tensor.get_shape())) + ", got " +
                                    ShapeToString(inputs[i].shape));
      }
      std::memcpy(tensor.data<float>(), inputs[i].data.data(), tensor.get_byte_size());
    }
  }

  static std::vector<HostTensor> CopyOut(ov::InferRequest& request,
                                         const std::vector<ov::Output<const ov::Node>>& ports) {
    std::vector<HostTensor> outputs;
    for (const ov::Output<const ov::Node>& port : ports) {
      const ov::Tensor tensor = request.get_tensor(port);
      const float* data = tensor.data<const float>();
      outputs.push_back({ToShape(tensor.get_shape()), {data, data + tensor.get_size()}});
    }
    return outputs;
  }

 public:
  // OpenVINO counts per layer only in a model compiled with ov::enable_profiling, so a second
  // one runs the profile, on the timed request's inputs, and the timed model never counts.
  std::optional<KernelProfile> Profile(int runs) override {
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

 private:
  // Profile()'s runs before the counted ones, on its own compiled model.
  static constexpr int kProfileWarmupRuns = 2;

  // The timed request's inputs (the last SetInputs()) into `request` of `profiled`, compiled
  // from the same ONNX model, whose inputs therefore come in the same order.
  void CopyInputs(const ov::CompiledModel& profiled, ov::InferRequest& request) {
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

  // The kernels of the `runs` counted runs of `profiled`, compiled from `model`, from the
  // counters after the warm-up (`warm`) and after the counted runs (`last`). The CPU plugin
  // reports a layer's mean time per run since the model was compiled (PerfCount::avg(): each
  // run's time and the mean floored to whole microseconds), so the counted runs took the mean x
  // all runs after them less the mean x the warm-up runs before them, within about 1 us per run.
  // (Counters of the last run alone, as a plugin might keep them, would give `runs` x its time.)
  KernelProfile Tally(const ov::Model& model, const ov::CompiledModel& profiled,
                      const std::vector<ov::ProfilingInfo>& warm,
                      const std::vector<ov::ProfilingInfo>& last, int runs) const {
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

  // The port named `spec.name` (with `any_name`, the only port given), checked to be float32
  // with the graph's static shape.
  static ov::Output<const ov::Node> Port(const TensorSpec& spec,
                                         const std::vector<ov::Output<const ov::Node>>& ports,
                                         bool any_name = false) {
    for (const ov::Output<const ov::Node>& port : ports) {
      if (!any_name && port.get_names().count(spec.name) == 0) continue;
      if (port.get_element_type() != ov::element::f32 ||
          port.get_partial_shape() != ov::PartialShape(ov::Shape(spec.shape.begin(),
                                                                 spec.shape.end()))) {
        throw CompileError("openvino: tensor " + spec.name + " compiled as " +
                           port.get_element_type().get_type_name() + " " +
                           port.get_partial_shape().to_string() + ", expected f32 " +
                           ShapeToString(spec.shape));
      }
      return port;
    }
    throw CompileError("openvino: the compiled model has no tensor named " + spec.name);
  }

  int64_t streams_ = 0;
  ProfileRecipe recipe_;
  ov::CompiledModel compiled_;
  ov::InferRequest request_;
  std::map<std::string, std::string> settings_;
  double cache_store_s_ = 0;  // CacheStoreSeconds()
  std::vector<ov::Output<const ov::Node>> inputs_;
  std::vector<ov::Output<const ov::Node>> outputs_;
};

class OpenVinoCompiler final : public Compiler {
 public:
  std::string Version() const override {
    return std::string("openvino ") + ov::get_openvino_version().buildNumber;
  }

  std::unique_ptr<Executable> Compile(const CompileRequest& original) override {
    if (original.onnx.empty() && original.onnx_path.empty()) {
      throw CompileError("openvino: no ONNX model in the request, neither bytes nor a path (its "
                         "registry entry must set consumes_onnx = true)");
    }
    // int8: what is compiled is NNCF's quantized model, with fp32 as the inference precision of
    // the layers left in floating point (FakeQuantize layers run as integer kernels).
    std::optional<QuantizedModel> nncf;
    CompilerConfig int8_config = original.config;
    static const std::string kNoBytes;
    CompileRequest quantized{original.graph, kNoBytes, int8_config};
    if (original.config.precision == "int8") {
      if (original.config.device != "cpu") {
        throw CompileError("openvino: precision int8 runs on device cpu only here; use device "
                           "cpu");
      }
      nncf = QuantizeModel(original, NncfTool(), scratch_);
      int8_config.precision = "fp32";
      quantized.cache_dir = original.cache_dir;
      quantized.quick = original.quick;
      quantized.cold = original.cold;
      quantized.onnx_path = (nncf->entry / "quantized.xml").string();
      quantized.offline = original.offline;
      quantized.streams = original.streams;
    }
    const CompileRequest& request = nncf ? quantized : original;
    const CompilerConfig& config = request.config;
    const std::string device = OvDevice(config.device);
    const ov::element::Type precision = OvPrecision(config.precision);
    try {
      CheckDevice(device, config.precision);
      if (request.offline && config.options.Int("num_streams") != 0) {
        throw CompileError("openvino: with scenario offline the run's streams set num_streams; "
                           "leave the num_streams option at 0");
      }
      const int64_t streams = request.offline ? request.streams : -1;
      const ov::AnyMap properties = Properties(config, device, /*profiled=*/false, streams);
      bool cache_hit = false;
      double store_s = 0;
      ov::CompiledModel compiled;
      if (!request.cache_dir.empty() && device != "AUTO" &&
          config.options.String("cache_dir").empty()) {
        compiled = CompileOrImport(request, device, properties, cache_hit, store_s);
      } else {
        compiled = core_.compile_model(ReadOnnx(core_, request.onnx, request.onnx_path), device,
                                       properties);
        cache_hit = LoadedFromCache(compiled);
      }
      auto executable = std::make_unique<OpenVinoExecutable>(
          std::move(compiled), request.graph,
          ProfileRecipe{core_, &request.graph, &request.onnx, request.onnx_path, device,
                        Properties(config, device, /*profiled=*/true, streams)},
          cache_hit);
      executable->set_cache_store_s(store_s);
      CheckPrecision(executable->EffectiveSettings(), precision);
      if (nncf) {
        auto& settings = executable->settings();
        settings["quantization"] = nncf->meta.value("scheme", "unknown");
        settings["calibration_batches"] =
            std::to_string(nncf->meta.value("calibration_batches", 0));
        settings["quantize_s"] = std::to_string(nncf->meta.value("quantize_s", 0.0));
        settings["fake_quantize_nodes"] = std::to_string(nncf->meta.value("fake_quantize", 0));
        settings["quantize_cache_hit"] = nncf->cache_hit ? "true" : "false";
      }
      if (!request.offline) {
        CheckOneStream(executable->EffectiveSettings());
        return executable;
      }
      int64_t serve = request.streams;
      if (serve == 0) {
        const auto& settings = executable->EffectiveSettings();
        const auto it = settings.find("optimal_infer_requests");
        serve = it == settings.end() ? 0 : std::strtoll(it->second.c_str(), nullptr, 10);
        if (serve < 1) {
          throw CompileError("openvino: streams auto, but the compiled model reports no "
                             "optimal_number_of_infer_requests; give streams a number");
        }
      }
      executable->ServeStreams(serve);
      return executable;
    } catch (const ov::Exception& e) {
      throw CompileError("openvino (" + device + "): " + e.what());
    }
  }

 private:
  // A clear error instead of OpenVINO's plugin-loading message, and no silent precision
  // fallback on a device without the requested arithmetic.
  void CheckDevice(const std::string& device, const std::string& precision) {
    if (device == "AUTO") return;  // AUTO picks a device itself; CheckPrecision covers it
    const std::vector<std::string> available = core_.get_available_devices();
    const bool present = std::any_of(available.begin(), available.end(), [&](const auto& name) {
      return name.rfind(device, 0) == 0;  // "GPU" also matches "GPU.0"
    });
    if (!present) {
      throw CompileError("openvino: device " + device + " is not available here (OpenVINO sees: " +
                         Join(available) + ")");
    }
    const auto capabilities = core_.get_property(device, ov::device::capabilities);
    std::string wanted = precision;
    std::transform(wanted.begin(), wanted.end(), wanted.begin(), ::toupper);
    if (std::find(capabilities.begin(), capabilities.end(), wanted) == capabilities.end()) {
      throw CompileError("openvino: precision " + precision + " is not supported by " + device +
                         " (capabilities: " + Join(capabilities) + ")");
    }
  }

  // The run's blob cache (the file's comment): a later process imports the blob of its entry
  // (`cache_hit`); a cold one, or one that finds no blob it can import, compiles the model and
  // exports the blob there.
  ov::CompiledModel CompileOrImport(const CompileRequest& request, const std::string& device,
                                    const ov::AnyMap& properties, bool& cache_hit,
                                    double& store_s) {
    Fnv128 key;
    key.Add("ngraphbench-openvino-v1").Add(Version()).Add(MachineIdentity()).Add(device);
    key.Add(OnnxModelDigest(request.onnx_path, request.onnx, "openvino"));
    for (const auto& [name, value] : properties) key.Add(name).Add(value.as<std::string>());
    const fs::path entry = fs::path(request.cache_dir) / "openvino" / key.Hex();
    // A blob that did not import, or is not a regular file (a FIFO would block the import, a
    // link may lead anywhere), which this compile replaces.
    const fs::file_status blob_status = fs::symlink_status(entry / kBlob);
    bool damaged = fs::exists(blob_status) && !fs::is_regular_file(blob_status);
    if (!request.cold && fs::is_regular_file(blob_status)) {
      try {
        std::ifstream blob(entry / kBlob, std::ios::binary);
        ov::CompiledModel imported = core_.import_model(blob, device, properties);
        cache_hit = true;
        return imported;
      } catch (const ov::Exception& e) {
        damaged = true;
        std::cerr << "openvino: cannot import " << (entry / kBlob).string() << " (" << e.what()
                  << "); compiling the model\n";
      }
    }
    ov::CompiledModel compiled = core_.compile_model(
        ReadOnnx(core_, request.onnx, request.onnx_path), device, properties);
    // Written beside the entry and renamed into place (compile_helper.h): a cold compile
    // neither reads an entry nor leaves a partial one.
    const auto store_start = std::chrono::steady_clock::now();
    struct StoreTime {
      std::chrono::steady_clock::time_point start;
      double& seconds;
      ~StoreTime() {
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
    } store_time{store_start, store_s};
    CacheEntryBuild build(entry);
    try {
      std::ofstream blob(build.dir() / kBlob, std::ios::binary);
      compiled.export_model(blob);
      blob.close();
      if (!blob) {
        std::cerr << "openvino: cannot write " << (build.dir() / kBlob).string()
                  << "; the run's later processes compile the model again\n";
        return compiled;
      }
    } catch (const ov::Exception& e) {
      std::cerr << "openvino: cannot export the compiled model (" << e.what()
                << "); the run's later processes compile it again\n";
      return compiled;
    }
    // An entry another process of the run wrote meanwhile is as good as this one.
    build.Commit([&](const fs::path& e) { return !damaged && fs::exists(e / kBlob); });
    return compiled;
  }

  // Whether OpenVINO's own model cache (the cache_dir option) gave the compiled model. The core
  // answers this for every compiled model without listing it in supported_properties; false
  // where it does not answer.
  static bool LoadedFromCache(const ov::CompiledModel& compiled) {
    try {
      return compiled.get_property(ov::loaded_from_cache);
    } catch (const ov::Exception&) {
      return false;
    }
  }

  // `profiled`: for Profile()'s model, with the per-layer counters on and without the model
  // cache, so that it neither loads the timed model's blob nor stores one of its own.
  // `offline_streams`: -1 for single stream (the config's hint and num_streams), else the
  // offline run's streams (0 = auto) under the THROUGHPUT hint.
  static ov::AnyMap Properties(const CompilerConfig& config, const std::string& device,
                               bool profiled, int64_t offline_streams) {
    const Options& options = config.options;
    ov::AnyMap device_properties = {
        ov::hint::inference_precision(OvPrecision(config.precision))};
    if (profiled) device_properties.emplace(ov::enable_profiling(true));
    if (offline_streams > 0) {
      device_properties.emplace(ov::num_streams(static_cast<int>(offline_streams)));
    } else if (offline_streams == 0) {
      device_properties.emplace(ov::num_streams(ov::streams::AUTO));
    } else if (options.Int("num_streams") > 0) {
      device_properties.emplace(ov::num_streams(static_cast<int>(options.Int("num_streams"))));
    }
    ov::AnyMap cpu_properties = device_properties;
    if (config.threads > 0) cpu_properties.emplace(ov::inference_num_threads(config.threads));

    ov::AnyMap properties = {ov::hint::performance_mode(
        offline_streams >= 0
            ? ov::hint::PerformanceMode::THROUGHPUT
            : ov::Any(options.String("performance_hint")).as<ov::hint::PerformanceMode>())};
    if (!profiled && !options.String("cache_dir").empty()) {
      properties.emplace(ov::cache_dir(options.String("cache_dir")));
    }
    if (device == "CPU") {
      properties.insert(cpu_properties.begin(), cpu_properties.end());
    } else if (device == "GPU") {
      properties.insert(device_properties.begin(), device_properties.end());
    } else {  // AUTO forwards per-device settings to whichever device it picks
      properties.emplace(ov::device::properties("CPU", cpu_properties));
      properties.emplace(ov::device::properties("GPU", device_properties));
    }
    return properties;
  }

  static void CheckPrecision(const std::map<std::string, std::string>& settings,
                             const ov::element::Type& precision) {
    const auto it = settings.find("inference_precision");
    if (it != settings.end() && it->second != precision.get_type_name()) {
      throw CompileError("openvino: asked for inference precision " + precision.get_type_name() +
                         ", the compiled model runs " + it->second);
    }
  }

  // Run() is one synchronous request, which keeps one stream busy: a model compiled with more
  // streams would be timed in a mode it does not run in. Config validation refuses the settings
  // that ask for more; this checks what OpenVINO actually chose.
  static void CheckOneStream(const std::map<std::string, std::string>& settings) {
    const auto it = settings.find("num_streams");
    // strtoll: a symbolic value (AUTO, NUMA) reads as 0, i.e. not known to be several streams.
    if (it != settings.end() && std::strtoll(it->second.c_str(), nullptr, 10) > 1) {
      throw CompileError("openvino: the compiled model has num_streams " + it->second +
                         ", but ngraphbench times one synchronous infer request, which uses one "
                         "stream; use performance_hint LATENCY with num_streams 0 or 1");
    }
  }

  ov::Core core_;
  QuantizeScratch scratch_;  // uncached quantized models, read while the executables live
};

}  // namespace
}  // namespace ngraphbench

extern "C" __attribute__((visibility("default"))) ngraphbench::Compiler*
NgraphbenchCreateCompiler() {
  return new ngraphbench::OpenVinoCompiler();
}
