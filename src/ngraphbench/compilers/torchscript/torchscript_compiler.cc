// The `torchscript` compiler: the eager execution of `identity`, traced into a TorchScript
// graph, then frozen and optimized for inference as torch.jit.trace + torch.jit.freeze +
// torch.jit.optimize_for_inference would do it in Python.
#include <ATen/ATen.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/frontend/tracer.h>

#include <map>
#include <memory>
#include <string>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/compilers/torch_common/aten_program.h"
#include "ngraphbench/compilers/torch_common/torch_runtime.h"
#include "ngraphbench/core/error.h"

namespace ngraphbench {
namespace {

using torch_common::AtenProgram;
using torch_common::TorchExecutable;
using torch_common::TorchSettings;

// Traces one eager execution of `graph` into the `forward` method of a fresh module. Weights are
// captured as graph constants, which freezing then treats like frozen parameters.
torch::jit::Module TraceModule(const Graph& graph, const TorchSettings& settings) {
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

// "aten::_convolution:8,aten::relu:8": the operators the optimized graph runs, which shows what
// freezing folded (no aten::batch_norm after Conv) and what optimize_for_inference swapped in.
std::string OpSummary(const torch::jit::Graph& graph) {
  std::map<std::string, int> counts;
  for (const torch::jit::Node* node : graph.nodes()) {
    const torch::jit::Symbol kind = node->kind();
    if (kind != torch::jit::prim::Constant && kind != torch::jit::prim::ListConstruct &&
        kind != torch::jit::prim::TupleConstruct) {
      ++counts[kind.toQualString()];
    }
  }
  std::string out;
  for (const auto& [kind, n] : counts) {
    out += (out.empty() ? "" : ",") + kind + ":" + std::to_string(n);
  }
  return out;
}

class TorchScriptExecutable : public TorchExecutable {
 public:
  TorchScriptExecutable(const Graph& graph, const TorchSettings& settings, bool freeze,
                        bool optimize)
      : TorchExecutable(graph, settings), multiple_outputs_(graph.outputs.size() > 1) {
    try {
      module_ = TraceModule(graph, settings);
      // optimize_for_inference freezes a module that is not frozen yet, as in Python.
      if (freeze) module_ = torch::jit::freeze(module_);
      if (optimize) module_ = torch::jit::optimize_for_inference(module_);
    } catch (const c10::Error& e) {
      throw CompileError("torchscript: tracing or optimizing '" + graph.name +
                         "' failed: " + e.what_without_backtrace());
    }
    extra_settings_["ops"] = OpSummary(*module_.get_method("forward").graph());
    extra_settings_["freeze"] = freeze ? "true" : "false";
    extra_settings_["optimize_for_inference"] = optimize ? "true" : "false";
  }

  // No Profile(): LibTorch's profiler does not see the operators the JIT runs itself (the
  // MKLDNN convolutions optimize_for_inference inserts, prim:: ops), so a profile would explain
  // too little of the time (14 % of a Conv-BN-ReLU block's latency); docs/profiles.md.

 protected:
  std::vector<at::Tensor> Forward(const std::vector<at::Tensor>& inputs) override {
    std::vector<c10::IValue> stack(inputs.begin(), inputs.end());
    c10::IValue out = module_.forward(std::move(stack));
    if (!multiple_outputs_) return {out.toTensor()};
    std::vector<at::Tensor> outputs;
    for (const auto& value : out.toTupleRef().elements()) outputs.push_back(value.toTensor());
    return outputs;
  }

 private:
  torch::jit::Module module_{"__torch__.ngraphbench.Empty"};
  bool multiple_outputs_;
};

class TorchScriptCompiler : public Compiler {
 public:
  std::string Version() const override { return torch_common::TorchVersion(); }
  std::string Unavailable(const CompilerConfig& config) const override {
    return torch_common::Unavailable(config, "torchscript");
  }

  std::unique_ptr<Executable> Compile(const CompileRequest& request) override {
    const TorchSettings settings = torch_common::ApplyConfig(request.config, "torchscript");
    const Options& options = request.config.options;
    auto executable = std::make_unique<TorchScriptExecutable>(
        request.graph, settings, options.Bool("freeze"), options.Bool("optimize_for_inference"));
    // Tracing ran the eager kernels, but the optimized graph may pick others (oneDNN).
    if (settings.dtype != c10::kFloat || !settings.device.is_cpu()) executable->CheckRuns();
    return executable;
  }
};

}  // namespace
}  // namespace ngraphbench

extern "C" ngraphbench::Compiler* NgraphbenchCreateCompiler() {
  return new ngraphbench::TorchScriptCompiler();
}
