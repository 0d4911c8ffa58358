#include "ngraphbench/compilers/torch_common/aten_program.h"

#include <ATen/ATen.h>
#include <ATen/record_function.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <numeric>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "ngraphbench/compilers/torch_common/aten_program_internal.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/graph/ops.h"

namespace ngraphbench::torch_common {

namespace {

using aten_ops::MakerTable;
using aten_ops::ProgramBuilder;

// Every operator AtenProgram runs: the families' tables together.
const MakerTable& Makers() {
  static const MakerTable makers = [] {
    MakerTable table;
    aten_ops::AddNnOps(table);
    aten_ops::AddElementwiseOps(table);
    aten_ops::AddShapeOps(table);
    aten_ops::AddReduceOps(table);
    return table;
  }();
  return makers;
}

}  // namespace

AtenProgram::AtenProgram(const Graph& graph, const std::string& compiler, c10::Device device,
                         c10::ScalarType dtype) {
  ProgramBuilder b(graph, compiler, device, dtype);
  for (const auto& input : graph.inputs) input_slots_.push_back(b.NewSlot(input.name, {}));
  // Every operator this program lacks, named at once with its count, before anything is built.
  const std::string missing =
      CountOps(graph, [](const std::string& op) { return Makers().count(op) == 0; });
  if (!missing.empty()) {
    throw CompileError("unsupported operators for " + compiler + ": " + missing +
                       " (`ngraphbench list --ops` shows which compiler runs what)");
  }
  std::map<std::string, int> op_counts;
  std::vector<std::string> failures;  // nodes whose attributes or inputs are not supported
  for (const auto& node : graph.nodes) {
    ++op_counts[node.op_type];
    try {
      b.AddStep(Makers().at(node.op_type)(b, node));
    } catch (const CompileError& e) {
      failures.push_back(e.what());
      b.SkipFailed(node);
    }
  }
  if (failures.size() == 1) throw CompileError(failures[0]);
  if (!failures.empty()) {
    // Each message starts with "<compiler>: "; said once for all of them.
    std::string text = compiler + ": " + std::to_string(failures.size()) + " nodes cannot run: ";
    const size_t shown = std::min<size_t>(failures.size(), 10);
    for (size_t i = 0; i < shown; ++i) {
      text += (i ? "; " : "") + failures[i].substr(std::min(failures[i].size(), compiler.size() + 2));
    }
    if (shown < failures.size()) text += "; and " + std::to_string(failures.size() - shown) + " more";
    throw CompileError(text);
  }
  for (const auto& [op, n] : op_counts) {
    op_summary_ += (op_summary_.empty() ? "" : ",") + op + ":" + std::to_string(n);
  }
  for (const auto& output : graph.outputs) {
    const int slot = b.SlotOf(output.name);
    if (slot < 0) {
      throw CompileError(compiler + ": graph output '" + output.name + "' is never computed");
    }
    output_slots_.push_back(slot);
  }
  // Free each intermediate after its last reader, as eager PyTorch drops it when its last
  // Python reference goes; constants stay, outputs are handed to the caller.
  std::map<int, size_t> last_read;
  auto& steps = b.steps();
  for (size_t i = 0; i < steps.size(); ++i) {
    for (int slot : steps[i].second) last_read[slot] = i;
  }
  const std::set<int> outputs(output_slots_.begin(), output_slots_.end());
  // One step per node, in graph order: a node that could not be built threw above.
  TORCH_INTERNAL_ASSERT(steps.size() == graph.nodes.size());
  steps_.resize(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    steps_[i].fn = std::move(steps[i].first);
    steps_[i].node = graph.nodes[i].name;
  }
  for (const auto& [slot, step] : last_read) {
    if (!b.constant_slots().count(slot) && !outputs.count(slot)) {
      steps_[step].release.push_back(slot);
    }
  }
  slots_ = std::move(b.slots());
}

std::vector<at::Tensor> AtenProgram::Run(const std::vector<at::Tensor>& inputs) {
  return Run(inputs, slots_);
}

std::vector<at::Tensor> AtenProgram::Run(const std::vector<at::Tensor>& inputs,
                                         std::vector<at::Tensor>& slots) const {
  if (inputs.size() != input_slots_.size()) {
    throw std::invalid_argument("AtenProgram::Run: expected " +
                                std::to_string(input_slots_.size()) + " inputs, got " +
                                std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    slots[static_cast<size_t>(input_slots_[i])] = inputs[i];
  }
  for (const Step& step : steps_) {
    if (C10_UNLIKELY(record_nodes_)) {
      RECORD_USER_SCOPE(std::string_view(step.node));
      step.fn(slots);
    } else {
      step.fn(slots);
    }
    for (int slot : step.release) slots[static_cast<size_t>(slot)].reset();
  }
  std::vector<at::Tensor> outputs;
  outputs.reserve(output_slots_.size());
  for (int slot : output_slots_) outputs.push_back(slots[static_cast<size_t>(slot)]);
  return outputs;
}

}  // namespace ngraphbench::torch_common
