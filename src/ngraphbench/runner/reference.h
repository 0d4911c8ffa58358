// The output check's reference (worker.cc): the reference compiler's outputs of the run's model
// on its inputs and on a second draw, computed once in a child process of their own and cached.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ngraphbench/core/tensor.h"
#include "ngraphbench/graph/ir.h"
#include "ngraphbench/runner/spec.h"

namespace ngraphbench::worker {

// The intermediate tensors the output check may compare where a model's outputs do not depend
// on its input: the kIntermediateCandidates nearest the outputs (graph/intermediate.h). The
// reference's probe computes them all at once, as the outputs of one graph.
constexpr size_t kIntermediateCandidates = 8;

// A reference: its outputs on the run's inputs, and on the second draw.
struct ReferenceSet {
  std::vector<HostTensor> outputs, redrawn;
};

// `graph` with the kIntermediateCandidates nearest its outputs as its outputs: what the
// reference's probe computes.
Graph ProbeGraph(const Graph& graph);

// The reference outputs of `run` (the spec's run, its model prepared), from the cache or
// computed now by a child process that loads only the reference compiler (SDKs never share a
// process) and reads the spec at `spec_path`, or, for a worker started by hand, a spec file
// written for it now. Throws std::runtime_error saying why when there is none. A cache entry
// that cannot be read (damaged, cut short, a FIFO, a link to a device) is discarded and computed
// again: a bad cache never turns the check off.
// With `probe`, the same for the intermediate candidates (ProbeGraph(graph)'s outputs, which
// `graph` then is).
ReferenceSet ReferenceOutputs(const ResolvedRun& spec, const std::string& spec_path,
                              const RunSpec& run, const Graph& graph,
                              const std::string& reference, bool probe);

// The reference child: the spec's model (with `probe`, ProbeGraph's cut of it) through the
// compiler `reference` on the run's inputs and on the check's second draw, both outputs written
// atomically to `out` (ReadReference).
int RunReference(const ResolvedRun& spec, const std::string& reference, const std::string& out,
                 bool probe);

}  // namespace ngraphbench::worker
