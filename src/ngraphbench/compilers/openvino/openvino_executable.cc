// The `openvino` compiler's executable: a compiled model bound to the graph's inputs and outputs
// by name, run through its infer requests, and the properties it reports.
#include <cstring>
#include <stdexcept>

#include "ngraphbench/compilers/openvino/openvino_internal.h"
#include "ngraphbench/core/error.h"

namespace ngraphbench::openvino_compiler {

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

OpenVinoExecutable::OpenVinoExecutable(ov::CompiledModel compiled, const Graph& graph,
                                       ProfileRecipe recipe, bool cache_hit)
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

void OpenVinoExecutable::CopyIn(ov::InferRequest& request,
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

std::vector<HostTensor> OpenVinoExecutable::CopyOut(
    ov::InferRequest& request, const std::vector<ov::Output<const ov::Node>>& ports) {
  std::vector<HostTensor> outputs;
  for (const ov::Output<const ov::Node>& port : ports) {
    const ov::Tensor tensor = request.get_tensor(port);
    const float* data = tensor.data<const float>();
    outputs.push_back({ToShape(tensor.get_shape()), {data, data + tensor.get_size()}});
  }
  return outputs;
}

ov::Output<const ov::Node> OpenVinoExecutable::Port(
    const TensorSpec& spec, const std::vector<ov::Output<const ov::Node>>& ports, bool any_name) {
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

}  // namespace ngraphbench::openvino_compiler
