// The model IR as a TorchScript module: one eager execution of the IR (AtenProgram, identity's
// ATen calls) traced into the `forward` method of a fresh module, weights captured as graph
// constants. The `torchscript` compiler freezes and optimizes it; `inductor` hands it to
// PyTorch's TorchScript-to-ExportedProgram converter, a route from the IR that covers every
// model identity runs.
#pragma once

#include <torch/csrc/jit/api/module.h>

#include "ngraphbench/compilers/torch_common/torch_runtime.h"
#include "ngraphbench/graph/ir.h"

namespace ngraphbench::torch_common {

// Traces `graph` on random inputs of its static shapes, on the settings' device and dtype.
// Throws c10::Error where tracing fails, CompileError where the IR has an operator AtenProgram
// does not run.
torch::jit::Module TraceToTorchScript(const Graph& graph, const TorchSettings& settings);

}  // namespace ngraphbench::torch_common
