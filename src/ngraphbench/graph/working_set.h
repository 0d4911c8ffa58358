// The memory a model needs at the least, known from its static shapes before anything is
// allocated for a run, and the ceilings a model must stay under.
//
// A model file of a few KB can declare inputs of terabytes, or intermediate tensors far larger
// than the machine: without a look at its shapes first, the worker finds out by exhausting the
// machine's memory. Every model is therefore estimated once it is built (models/zoo.cc) and
// refused with InputError, naming its largest tensor, when the estimate is over
// MaxWorkingSetBytes(); the scheduler builds every external model before a sweep, so such a file
// ends the command with exit 2 and nothing written. What the estimate misses (an SDK's own
// copies and workspaces) is bounded by the worker's memory limit (WorkerMemoryLimitBytes()).
#pragma once

#include <cstdint>
#include <string>

#include "ngraphbench/graph/ir.h"

namespace ngraphbench {

// The largest batch size a graph input may declare: the same ceiling as `batch_sizes` in an
// experiment's YAML.
constexpr int64_t kMaxBatchSize = 65536;
// The most elements one sample of a graph input may hold (every dimension but the first): the
// same ceiling as a PyTorch model's `input_shape`.
constexpr int64_t kMaxSampleElements = int64_t{1} << 28;

// The estimate: every byte of the weights and constants, of the graph inputs, and the peak of
// the intermediate values alive at once when the nodes run one after the other in the graph's
// order (a value lives from the node that makes it to the last node that reads it; graph outputs
// to the end). float32 values count 4 bytes, int64 constants 8. Sums saturate at UINT64_MAX.
struct WorkingSet {
  uint64_t constants_bytes = 0;
  uint64_t inputs_bytes = 0;
  uint64_t peak_values_bytes = 0;  // intermediate values and outputs alive at once, at the peak
  uint64_t total_bytes = 0;        // the three added
  std::string largest;             // the largest single tensor (input, constant or value)
  Shape largest_shape;
  uint64_t largest_bytes = 0;
};

WorkingSet EstimateWorkingSet(const Graph& graph);

// The physical memory this process may use: the machine's RAM, or its cgroup's memory limit
// when that is lower.
uint64_t MachineMemoryBytes();

// The ceiling on a model's estimated working set: NGRAPHBENCH_MAX_WORKING_SET_MB when set (a
// whole number of MiB, InputError otherwise), else a quarter of MachineMemoryBytes(): a
// compiler commonly holds a model's weights two or three times (the IR's, its own, a packed
// layout) besides its arenas, so a model whose bare working set is a quarter of the memory
// already fills most of it once compiled.
uint64_t MaxWorkingSetBytes();

// The limit each worker process runs under (RLIMIT_DATA: its heap and private mappings, not
// the address space that runtimes reserve without using): three times MaxWorkingSetBytes(),
// which by default is three quarters of the machine's memory.
uint64_t WorkerMemoryLimitBytes();

// Throws InputError naming `source`, the tensor and its shape when a graph input breaks the
// ceilings above, or when the estimate is over MaxWorkingSetBytes().
void CheckWorkingSet(const Graph& graph, const std::string& source);

}  // namespace ngraphbench
