// The `torchscript` compiler: the eager execution of `identity`, traced into a TorchScript
// graph (torch_common/torchscript_trace.h), then frozen and optimized for inference as
// torch.jit.trace + torch.jit.freeze + torch.jit.optimize_for_inference would do it in Python.
#include <ATen/ATen.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/ir.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/compilers/torch_common/aten_program.h"
#include "ngraphbench/compilers/torch_common/torch_runtime.h"
#include "ngraphbench/compilers/torch_common/torchscript_trace.h"
#include "ngraphbench/core/error.h"

namespace ngraphbench {
namespace {

using torch_common::TorchExecutable;
using torch_common::TorchSettings;

// Whether `node` only produces a constant or packs values for the interpreter: not an operator
// the model runs.
bool IsBookkeeping(const torch::jit::Node& node) {
  static const torch::jit::Symbol mkldnn_constant =
      torch::jit::Symbol::fromQualString("prim::ConstantMKLDNNTensor");
  const torch::jit::Symbol kind = node.kind();
  return kind == torch::jit::prim::Constant || kind == mkldnn_constant ||
         kind == torch::jit::prim::ListConstruct || kind == torch::jit::prim::TupleConstruct;
}

// "aten::_convolution:8,aten::relu:8": the operators the optimized graph runs, which shows what
// freezing folded (no aten::batch_norm after Conv) and what optimize_for_inference swapped in.
std::string OpSummary(const torch::jit::Graph& graph) {
  std::map<std::string, int> counts;
  for (const torch::jit::Node* node : graph.nodes()) {
    if (!IsBookkeeping(*node)) ++counts[node->kind().toQualString()];
  }
  std::string out;
  for (const auto& [kind, n] : counts) {
    out += (out.empty() ? "" : ",") + kind + ":" + std::to_string(n);
  }
  return out;
}

// The profiled copy of an optimized `forward` graph: every operator node of its top-level block
// inside a user scope of its own (profiler::_record_function_enter_new and _exit, the operators
// torch.autograd.profiler.record_function compiles to in TorchScript), named "%out = kind" after
// the node. LibTorch's profiler records only operators called through its dispatcher; the
// operators the JIT runs itself (optimize_for_inference's prim::mkldnn_convolution, prim:: ops)
// have no record of their own, but their time falls inside their node's scope. Returns the copy
// and, for each scope name, the node's kind.
std::shared_ptr<torch::jit::Graph> WithNodeScopes(
    torch::jit::Graph& optimized, std::unordered_map<std::string, std::string>& kinds) {
  static const torch::jit::Symbol enter =
      torch::jit::Symbol::fromQualString("profiler::_record_function_enter_new");
  static const torch::jit::Symbol exit =
      torch::jit::Symbol::fromQualString("profiler::_record_function_exit");
  std::shared_ptr<torch::jit::Graph> graph = optimized.copy();
  std::vector<torch::jit::Node*> nodes;
  for (torch::jit::Node* node : graph->nodes()) {
    if (!IsBookkeeping(*node)) nodes.push_back(node);
  }
  for (torch::jit::Node* node : nodes) {
    const std::string kind = node->kind().toQualString();
    std::string name = kind;
    if (node->outputs().size() > 0) name = "%" + node->output(0)->debugName() + " = " + kind;
    // Two nodes of one name would be summed as one kernel.
    if (kinds.count(name)) name += " #" + std::to_string(kinds.size());
    kinds.emplace(name, kind);
    torch::jit::Value* scope = nullptr;
    {
      torch::jit::WithInsertPoint before(node);
      scope = graph->insert(enter, {torch::jit::NamedValue(c10::IValue(name))});
    }
    torch::jit::WithInsertPoint after(node->next());
    graph->insert(exit, {torch::jit::NamedValue(scope)});
  }
  return graph;
}

class TorchScriptExecutable : public TorchExecutable {
 public:
  TorchScriptExecutable(const Graph& graph, const TorchSettings& settings, bool freeze,
                        bool optimize)
      : TorchExecutable(graph, settings), multiple_outputs_(graph.outputs.size() > 1) {
    try {
      module_ = torch_common::TraceToTorchScript(graph, settings);
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

  // The optimized graph's operator nodes, each a kernel (WithNodeScopes), run by a function of
  // its own that the profiled runs call instead of `forward`: the timed runs never see the
  // scopes. A node's TorchScript operator is its sdk_type; which graph nodes of the model it
  // computes is not known (tracing keeps no ONNX node names).
  std::optional<KernelProfile> Profile(int runs) override {
    if (!profiled_) {
      try {
        profiled_ = std::make_unique<torch::jit::GraphFunction>(
            "ngraphbench_profiled_forward",
            WithNodeScopes(*module_.get_method("forward").graph(), scope_kinds_), nullptr);
      } catch (const c10::Error& e) {
        throw CompileError("torchscript: cannot add profiling scopes to the graph: " +
                           std::string(e.what_without_backtrace()));
      }
    }
    profiling_ = true;
    torch_common::OpProfile ops;
    try {
      ops = ProfileRuns(runs);
    } catch (...) {
      profiling_ = false;
      throw;
    }
    profiling_ = false;
    KernelProfile profile = torch_common::ToKernelProfile(ops, settings().device);
    for (size_t i = 0; i < ops.ops.size(); ++i) {
      const auto it = scope_kinds_.find(ops.ops[i].name);
      if (ops.ops[i].user_scope && it != scope_kinds_.end()) profile.kernels[i].sdk_type = it->second;
    }
    profile.notes.push_back(
        "one kernel per operator node of the frozen, optimized TorchScript graph, each run "
        "inside a scope named after it (\"%output = operator\"); sdk_type is the node's "
        "operator; the ONNX nodes it computes are not known");
    return profile;
  }

 protected:
  std::vector<at::Tensor> Forward(const std::vector<at::Tensor>& inputs) override {
    std::vector<c10::IValue> stack(inputs.begin(), inputs.end());
    if (profiling_) {
      stack.insert(stack.begin(), module_._ivalue());
      return Outputs((*profiled_)(std::move(stack)));
    }
    return Outputs(module_.forward(std::move(stack)));
  }

  // Offline: every context calls the one module's forward, from its own thread: the JIT's graph
  // executor runs a module from several threads at once (LibTorch's advice for concurrent
  // inference), its plan built under its own lock.
  ForwardFn NewForward() override {
    return [this](const std::vector<at::Tensor>& inputs) {
      return Outputs(module_.forward(std::vector<c10::IValue>(inputs.begin(), inputs.end())));
    };
  }

 private:
  std::vector<at::Tensor> Outputs(const c10::IValue& out) const {
    if (!multiple_outputs_) return {out.toTensor()};
    std::vector<at::Tensor> outputs;
    for (const auto& value : out.toTupleRef().elements()) outputs.push_back(value.toTensor());
    return outputs;
  }

  torch::jit::Module module_{"__torch__.ngraphbench.Empty"};
  bool multiple_outputs_;
  std::unique_ptr<torch::jit::GraphFunction> profiled_;  // built by the first Profile()
  std::unordered_map<std::string, std::string> scope_kinds_;  // scope name -> node's operator
  bool profiling_ = false;
};

class TorchScriptCompiler : public Compiler {
 public:
  std::string Version() const override { return torch_common::TorchVersion(); }
  std::string Unavailable(const CompilerConfig& config) const override {
    return torch_common::Unavailable(config, "torchscript");
  }

  std::unique_ptr<Executable> Compile(const CompileRequest& request) override {
    // Offline: the cores split between the streams (torch_common::OfflineStreams).
    CompilerConfig config = request.config;
    const int64_t streams = torch_common::OfflineStreams(request, config, "torchscript");
    const TorchSettings settings = torch_common::ApplyConfig(config, "torchscript");
    const Options& options = request.config.options;
    auto executable = std::make_unique<TorchScriptExecutable>(
        request.graph, settings, options.Bool("freeze"), options.Bool("optimize_for_inference"));
    if (streams > 0) executable->ServeStreams(streams);
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
