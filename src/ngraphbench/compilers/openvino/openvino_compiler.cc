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
//   cache_dir            -> ov::cache_dir (empty = no model cache)
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <openvino/openvino.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/graph/ops.h"

namespace ngraphbench {
namespace {

std::string OvDevice(const std::string& device) {
  if (device == "cpu") return "CPU";
  if (device == "gpu") return "GPU";
  if (device == "auto") return "AUTO";
  throw InputError("openvino: device '" + device + "' is not one of cpu, gpu, auto");
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

class OpenVinoExecutable final : public Executable {
 public:
  // Binds the graph's inputs and outputs to the compiled model's ports by name.
  OpenVinoExecutable(ov::CompiledModel compiled, const Graph& graph)
      : compiled_(std::move(compiled)),
        request_(compiled_.create_infer_request()),
        settings_(ReadBack(compiled_)) {
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
    if (inputs.size() != inputs_.size()) {
      throw std::invalid_argument("openvino: got " + std::to_string(inputs.size()) +
                                  " inputs, the model has " + std::to_string(inputs_.size()));
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      // The request's own tensors were allocated at compile time (host memory the plugin reads
      // directly); the timed Run() then copies nothing.
      ov::Tensor tensor = request_.get_tensor(inputs_[i]);
      if (ToShape(tensor.get_shape()) != inputs[i].shape) {
        throw std::invalid_argument("openvino: input " + inputs_[i].get_any_name() + " is " +
                                    ShapeToString(ToShape(tensor.get_shape())) + ", got " +
                                    ShapeToString(inputs[i].shape));
      }
      std::memcpy(tensor.data<float>(), inputs[i].data.data(), tensor.get_byte_size());
    }
  }

  void Run() override { request_.infer(); }

  std::vector<HostTensor> GetOutputs() override {
    std::vector<HostTensor> outputs;
    for (const ov::Output<const ov::Node>& port : outputs_) {
      const ov::Tensor tensor = request_.get_tensor(port);
      const float* data = tensor.data<const float>();
      outputs.push_back({ToShape(tensor.get_shape()), {data, data + tensor.get_size()}});
    }
    return outputs;
  }

  std::map<std::string, std::string> EffectiveSettings() const override { return settings_; }

 private:
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

  ov::CompiledModel compiled_;
  ov::InferRequest request_;
  std::map<std::string, std::string> settings_;
  std::vector<ov::Output<const ov::Node>> inputs_;
  std::vector<ov::Output<const ov::Node>> outputs_;
};

class OpenVinoCompiler final : public Compiler {
 public:
  std::string Version() const override {
    return std::string("openvino ") + ov::get_openvino_version().buildNumber;
  }

  std::unique_ptr<Executable> Compile(const CompileRequest& request) override {
    // Every operator OpenVINO does not run, named at once, before the SDK names the first.
    CheckCompilerSupports(request.graph, "openvino");
    if (request.onnx.empty() && request.onnx_path.empty()) {
      throw CompileError("openvino: no ONNX model in the request, neither bytes nor a path (its "
                         "registry entry must set consumes_onnx = true)");
    }
    const CompilerConfig& config = request.config;
    const std::string device = OvDevice(config.device);
    const ov::element::Type precision = OvPrecision(config.precision);
    try {
      CheckDevice(device, config.precision);
      // From a path, the ONNX frontend reads external data relative to the model's folder.
      const std::shared_ptr<ov::Model> model =
          request.onnx_path.empty() ? core_.read_model(request.onnx, ov::Tensor())
                                    : core_.read_model(request.onnx_path);
      ov::CompiledModel compiled = core_.compile_model(model, device, Properties(config, device));
      auto executable = std::make_unique<OpenVinoExecutable>(std::move(compiled), request.graph);
      CheckPrecision(executable->EffectiveSettings(), precision);
      CheckOneStream(executable->EffectiveSettings());
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

  static ov::AnyMap Properties(const CompilerConfig& config, const std::string& device) {
    const Options& options = config.options;
    ov::AnyMap device_properties = {
        ov::hint::inference_precision(OvPrecision(config.precision))};
    if (options.Int("num_streams") > 0) {
      device_properties.emplace(ov::num_streams(static_cast<int>(options.Int("num_streams"))));
    }
    ov::AnyMap cpu_properties = device_properties;
    if (config.threads > 0) cpu_properties.emplace(ov::inference_num_threads(config.threads));

    ov::AnyMap properties = {ov::hint::performance_mode(
        ov::Any(options.String("performance_hint")).as<ov::hint::PerformanceMode>())};
    if (!options.String("cache_dir").empty()) {
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
};

}  // namespace
}  // namespace ngraphbench

extern "C" __attribute__((visibility("default"))) ngraphbench::Compiler*
NgraphbenchCreateCompiler() {
  return new ngraphbench::OpenVinoCompiler();
}
