// The worker's model (worker.cc): the run's inputs, its graph with weights drawn once per model
// and shared by the run's processes, and the model in the form a compiler consumes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/compilers/description.h"
#include "ngraphbench/core/process.h"
#include "ngraphbench/runner/spec.h"

namespace ngraphbench::worker {

// The run's model, built: the run with its model prepared, its graph and its inputs.
struct BuiltModel {
  RunSpec run;
  Graph graph;
  std::vector<HostTensor> inputs;
};

// The model in the form a compiler that consumes ONNX takes it (CompileRequest): bytes, or, when
// its weights are more than one protobuf holds (OnnxNeedsExternalData), an .onnx file with its
// weights as external data beside it. The file gets a folder of its own in the results tree's
// .tmp/ (not the machine's /tmp, which may not have room for the weights), named after this host
// and process (kWorkerModelPrefix) so that the scheduler can remove what a killed worker left;
// the folder goes when this does, which the worker's handling of errors (a row, or an error
// that main() catches) lets happen on failures too.
class OnnxForCompiler {
 public:
  // Throws what writing the file throws (a full disk: StorageError), its folder removed.
  OnnxForCompiler(const Graph& graph, const CompilerInfo& info, const std::string& results_dir);
  ~OnnxForCompiler();
  OnnxForCompiler(OnnxForCompiler&& other) noexcept;
  OnnxForCompiler(const OnnxForCompiler&) = delete;
  OnnxForCompiler& operator=(const OnnxForCompiler&) = delete;
  OnnxForCompiler& operator=(OnnxForCompiler&&) = delete;

  CompileRequest Request(const Graph& graph, const CompilerConfig& config,
                         const std::string& cache_dir, bool quick) const;

 private:
  std::string bytes_, dir_, path_;
  std::optional<RemoveOnSignal> remove_on_signal_;  // dir_, while it is there
};

// The run's inputs: N(0, 1) from the portable generator, seeded by the run id without its
// precision (SeedRunId: every precision of a run draws the same) and input name, so a
// reference process (or anyone with the documented algorithm) regenerates exactly them.
std::vector<HostTensor> RunInputs(const Graph& graph, const RunSpec& run);

// The output check's second draw of inputs, which the reference alone runs: whether its outputs
// depend on the input at all (measure/check.h, JudgeInputDependence).
std::vector<HostTensor> RedrawnInputs(const Graph& graph, const RunSpec& run);

// The part of a cache key that names a model and this build (which fixes the model builders and
// the generator): "<version>\n<family>\n<name>\n<variant>\n<width>x<depth>\n".
std::string ModelKey(const ModelSpec& model);

// The model's graph: the run's first process (and a worker started by hand) draws its weights,
// the later processes (and the reference child, `process` 1) build the structure only and load
// them from the file the first stored (StoreWeights). A cache file that does not fit the graph
// (another build, a damaged file) is drawn anew.
Graph BuildGraph(const ResolvedRun& spec, const ModelSpec& model, int process);

// The run's first process stores the weights it drew for the later ones, once per model.
void StoreWeights(const ResolvedRun& spec, const ModelSpec& model, int process,
                  const Graph& graph);

}  // namespace ngraphbench::worker
