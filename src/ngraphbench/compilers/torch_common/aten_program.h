// AtenProgram: executes a model IR graph node by node with ATen operators, as PyTorch eager does.
//
// This is the `identity` baseline and what `torchscript` traces. Where PyTorch
// eager runs one kernel (Conv, BatchNorm, Linear, LayerNorm, GELU, scaled dot-product attention)
// the program calls that one ATen kernel, never a decomposition, and it rewrites nothing at the
// graph level: a compiler's speedup over it is the speedup over eager PyTorch.
//
// Everything that depends only on the graph is resolved once, in the constructor: initializers
// become at::Tensors on the target device and dtype, every node becomes a closure over slot
// indices and constant arguments, and the last use of every value is known so that
// intermediates are freed when eager PyTorch would free them. Run() does no lookups by name.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <functional>
#include <string>
#include <vector>

#include "ngraphbench/graph/ir.h"

namespace ngraphbench::torch_common {

class AtenProgram {
 public:
  // Throws CompileError naming `compiler` for operators or attribute values that are not
  // supported, so that an unsupported model fails at compile time, never computes something
  // wrong: every missing operator at once with its count ("unsupported operators for identity:
  // Foo (3), Bar (1)"), else every node that cannot run with its reason. Float initializers are
  // converted to `dtype` on `device`; int64 ones (indices) keep their type. Values of other
  // types (int64 from Shape or ArgMax, bool from comparisons) flow as ATen tensors of that type:
  // the IR records shapes, and each kernel's result carries its dtype as in eager PyTorch.
  AtenProgram(const Graph& graph, const std::string& compiler, c10::Device device,
              c10::ScalarType dtype);

  // Runs the graph on `inputs` (Graph::inputs order, on the program's device and dtype) and
  // returns the outputs in Graph::outputs order. Not thread-safe: slots are reused across calls.
  // Called under an InferenceMode or NoGradGuard by the caller; also traceable by the JIT
  // tracer, because it calls only ATen operators with arguments fixed at construction.
  std::vector<at::Tensor> Run(const std::vector<at::Tensor>& inputs);

  // The same on `slots` of the caller's own (a copy of Slots()), so that several threads may
  // run the program at once, each on its own slots: the steps and the constants are only read.
  std::vector<at::Tensor> Run(const std::vector<at::Tensor>& inputs,
                              std::vector<at::Tensor>& slots) const;
  // The program's slots as a concurrent Run() needs them: the constants (handles on the same
  // tensors, not copies of their data) and room for every other value.
  std::vector<at::Tensor> Slots() const { return slots_; }

  // "BatchNormalization:8,Conv:8,Relu:8": the IR operators this program runs.
  const std::string& OpSummary() const { return op_summary_; }

  // With `on`, Run() runs each node inside a RecordFunction user scope named after the node
  // (RECORD_USER_SCOPE), so that a profiler sees the ATen calls of each node nested in it: the
  // profile of `identity` is per graph node. Off (the default) for the timed runs, which then
  // pay no RecordFunction of their own.
  void RecordNodes(bool on) { record_nodes_ = on; }

 private:
  // One node: reads its input slots, writes its output slot.
  struct Step {
    std::function<void(std::vector<at::Tensor>&)> fn;
    std::vector<int> release;  // slots whose last use is this step
    std::string node;          // the graph node's name
  };

  std::vector<at::Tensor> slots_;  // values by slot; constants stay filled between runs
  std::vector<int> input_slots_;
  std::vector<int> output_slots_;
  std::vector<Step> steps_;
  std::string op_summary_;
  bool record_nodes_ = false;
};

}  // namespace ngraphbench::torch_common
