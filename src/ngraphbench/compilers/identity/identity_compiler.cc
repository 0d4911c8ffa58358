// The `identity` compiler: the PyTorch eager baseline. It compiles nothing; it
// runs the model IR node by node with the ATen kernel PyTorch eager would call for each node.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/compilers/torch_common/aten_program.h"
#include "ngraphbench/compilers/torch_common/torch_runtime.h"

namespace ngraphbench {
namespace {

using torch_common::AtenProgram;
using torch_common::TorchExecutable;
using torch_common::TorchSettings;

class IdentityExecutable : public TorchExecutable {
 public:
  IdentityExecutable(const Graph& graph, const TorchSettings& settings)
      : TorchExecutable(graph, settings),
        program_(graph, settings.compiler, settings.device, settings.dtype) {
    extra_settings_["ops"] = program_.OpSummary();
  }

  // Each graph node runs inside a user scope named after it while profiled
  // (AtenProgram::RecordNodes), so each node is a kernel of the profile, with its ATen calls as
  // its sdk_type; an ATen call outside every node's scope would be a kernel of its own.
  std::optional<KernelProfile> Profile(int runs) override {
    program_.RecordNodes(true);
    torch_common::OpProfile ops;
    try {
      ops = ProfileRuns(runs);
    } catch (...) {
      program_.RecordNodes(false);
      throw;
    }
    program_.RecordNodes(false);
    KernelProfile profile = torch_common::ToKernelProfile(ops, settings().device);
    for (size_t i = 0; i < ops.ops.size(); ++i) {
      if (ops.ops[i].user_scope && !ops.ops[i].name.empty()) {
        profile.kernels[i].nodes = {ops.ops[i].name};
        profile.kernels[i].nodes_known = true;
      }
    }
    profile.notes.push_back(
        "one kernel per graph node: identity runs the graph node by node, each node's ATen "
        "calls inside a scope named after it; sdk_type is the ATen operators it called, empty "
        "for a node that calls none (Identity, Shape: a slot copy or a constant)");
    return profile;
  }

 protected:
  std::vector<at::Tensor> Forward(const std::vector<at::Tensor>& inputs) override {
    return program_.Run(inputs);
  }

  // Offline: the one program, run by each context on slots of its own.
  ForwardFn NewForward() override {
    auto slots = std::make_shared<std::vector<at::Tensor>>(program_.Slots());
    return [this, slots](const std::vector<at::Tensor>& inputs) {
      return program_.Run(inputs, *slots);
    };
  }

 private:
  AtenProgram program_;
};

class IdentityCompiler : public Compiler {
 public:
  std::string Version() const override { return torch_common::TorchVersion(); }
  std::string Unavailable(const CompilerConfig& config) const override {
    return torch_common::Unavailable(config, "identity");
  }

  std::unique_ptr<Executable> Compile(const CompileRequest& request) override {
    // Offline: the cores split between the streams (torch_common::OfflineStreams).
    CompilerConfig config = request.config;
    const int64_t streams = torch_common::OfflineStreams(request, config, "identity");
    const TorchSettings settings = torch_common::ApplyConfig(config, "identity");
    auto executable = std::make_unique<IdentityExecutable>(request.graph, settings);
    if (streams > 0) executable->ServeStreams(streams);
    // Every fp32 CPU kernel exists; other devices and dtypes are checked by one run here so
    // that a missing kernel is a compile error. Eager PyTorch itself has no compile step.
    if (settings.dtype != c10::kFloat || !settings.device.is_cpu()) executable->CheckRuns();
    return executable;
  }
};

}  // namespace
}  // namespace ngraphbench

extern "C" ngraphbench::Compiler* NgraphbenchCreateCompiler() {
  return new ngraphbench::IdentityCompiler();
}
