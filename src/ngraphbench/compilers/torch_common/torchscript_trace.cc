#include "ngraphbench/compilers/torch_common/torchscript_trace.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/frontend/tracer.h>

#include <string>
#include <vector>

#include "ngraphbench/compilers/torch_common/aten_program.h"

namespace ngraphbench::torch_common {

// Weights are graph constants: freezing treats them like frozen parameters, and PyTorch's
// TorchScript-to-ExportedProgram converter lifts them into constants of the program.
torch::jit::Module TraceToTorchScript(const Graph& graph, const TorchSettings& settings) {
  AtenProgram program(graph, settings.compiler, settings.device, settings.dtype);
  torch::jit::Stack example;
  for (const auto& spec : graph.inputs) {
    example.emplace_back(
        at::randn(spec.shape, at::TensorOptions(settings.device).dtype(settings.dtype)));
  }
  torch::jit::Module module("__torch__.ngraphbench.Model");
  auto run = [&program](torch::jit::Stack inputs) -> torch::jit::Stack {
    std::vector<at::Tensor> tensors;
    for (const auto& value : inputs) tensors.push_back(value.toTensor());
    std::vector<at::Tensor> outputs = program.Run(tensors);
    // A method returns one value: a tuple when the graph has several outputs.
    if (outputs.size() == 1) return {outputs[0]};
    return {c10::ivalue::Tuple::create(std::vector<c10::IValue>(outputs.begin(), outputs.end()))};
  };
  at::NoGradGuard no_grad;
  // Passing the module makes the tracer give the graph its `self` input.
  auto traced = torch::jit::tracer::trace(
      std::move(example), run, [](const at::Tensor&) { return std::string(); },
      /*strict=*/true, /*force_outplace=*/false, &module);
  auto method = module._ivalue()->compilation_unit()->create_function(
      c10::QualifiedName(*module.type()->name(), "forward"), traced.first->graph);
  module.type()->addMethod(method);
  module.eval();
  return module;
}

}  // namespace ngraphbench::torch_common
