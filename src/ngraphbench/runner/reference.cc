#include "ngraphbench/runner/reference.h"

#include <fmt/core.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <optional>
#include <stdexcept>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/core/random.h"
#include "ngraphbench/core/subprocess.h"
#include "ngraphbench/experiments/config.h"
#include "ngraphbench/graph/intermediate.h"
#include "ngraphbench/measure/check.h"
#include "ngraphbench/models/torch_export.h"
#include "ngraphbench/runner/launch.h"
#include "ngraphbench/runner/model.h"

namespace ngraphbench::worker {

namespace {

// The reference's settings: fp32, every default, and the opt_level its description gives as a
// reference (`reference: {opt_level: ...}`; ONNX Runtime's: no graph optimization), so that the
// path shares as little as possible with the compilers it checks.
CompilerConfig ReferenceConfig(const CompilerInfo& info) {
  CompilerConfig c = DefaultCompilerConfig(info);
  c.precision = "fp32";
  if (!info.reference_opt_level.empty()) c.opt_level = info.reference_opt_level;
  return c;
}

// The cache file of a run's reference outputs (with `probe`: of its intermediate candidates,
// ProbeGraph), named by its run id without the precision (SeedRunId: every precision of a run
// shares it) and keyed by the reference compiler, the model, the batch size, the input seeds and
// this build (which fixes the model builder and generator).
std::string ReferencePath(const std::string& results_dir, const RunSpec& run, const Graph& graph,
                          const std::string& reference, bool probe) {
  std::string key = std::string(probe ? "probe=1\n" : "reference=2\n") + reference + "\n" +
                    ModelKey(run.model) +
                    run.model.onnx_path + "\n" +
                    (run.model.onnx_path.empty() ? "" : FileDigest(run.model.onnx_path)) +
                    "\nb" + std::to_string(run.batch_size) + "\n";
  for (const auto& in : graph.inputs) {
    key += in.name + "=" + std::to_string(InputSeed(SeedRunId(run.run_id), in.name)) + "\n";
  }
  return results_dir + "/.cache/reference/" + SeedRunId(run.run_id) + "." + reference + "." +
         (probe ? "probe." : "") + Fnv1a64Hex(key) + ".bin";
}

// Runs `argv` with stdout and stderr into `log` (a fresh file; when it cannot be made, this
// process's streams). The child stays in the worker's process group, so a timeout of the worker
// kills it too, and it dies with the worker, as the worker dies with the scheduler: a worker
// killed with its scheduler (SIGKILL, which reaches no process group) leaves no reference child
// behind. A child that cannot be started reads as one that failed, naming why.
ChildResult RunReferenceChild(const std::vector<std::string>& argv, const std::string& log) {
  const int fd = CreateFreshFile(log);
  ChildOptions options;
  if (fd >= 0) {
    options.out = options.err = ChildOutput::kLog;
    options.log_fd = fd;
  }
  const UniqueFd closer(fd);
  return RunChild(ExecCommand(argv), options);
}

// The size of the reference file of `graph`'s outputs on both draws (FormatTensorFile), its
// ceiling when read; where an output's shape is not known here, the ceiling of a model.
uint64_t ReferenceBytes(const Graph& graph) {
  uint64_t bytes = 16;  // magic and tensor count
  for (const TensorSpec& out : graph.outputs) {
    uint64_t elements = 1;
    for (const int64_t d : out.shape) {
      if (d <= 0 || elements > kMaxModelBytes / static_cast<uint64_t>(d)) return kMaxModelBytes;
      elements *= static_cast<uint64_t>(d);
    }
    bytes += 2 * (8 + 8 * out.shape.size() + 4 * elements);
    if (bytes > kMaxModelBytes) return kMaxModelBytes;
  }
  return bytes;
}

// The reference in the cache file `path`: `graph`'s outputs on the run's inputs, then on the
// second draw. InputError when it is not a regular file of at most their size holding a tensor
// file of twice as many tensors as the graph has outputs.
ReferenceSet ReadReference(const std::string& path, const Graph& graph) {
  std::vector<HostTensor> tensors = ParseTensorFile(
      ReadFileCapped(path, ReferenceBytes(graph), "reference cache", Links::kRefuse), path);
  const size_t n = graph.outputs.size();
  if (tensors.size() != 2 * n) {
    throw InputError(fmt::format("reference file '{}' holds {} tensors, expected {} (the {} "
                                 "outputs on each of the two draws of inputs)",
                                 path, tensors.size(), 2 * n, n));
  }
  ReferenceSet set;
  set.redrawn.assign(std::make_move_iterator(tensors.begin() + n),
                     std::make_move_iterator(tensors.end()));
  tensors.resize(n);
  set.outputs = std::move(tensors);
  return set;
}

}  // namespace

Graph ProbeGraph(const Graph& graph) {
  return WithOutputs(graph, IntermediateCandidates(graph, kIntermediateCandidates));
}

ReferenceSet ReferenceOutputs(const ResolvedRun& spec, const std::string& spec_path,
                              const RunSpec& run, const Graph& graph,
                              const std::string& reference, bool probe) {
  const std::string path = ReferencePath(spec.results_dir, run, graph, reference, probe);
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    try {
      return ReadReference(path, graph);
    } catch (const InputError& e) {
      std::cerr << "discarding the reference cache entry (" << e.what()
                << "); computing it again\n";
      ::unlink(path.c_str());
    }
  }
  if (!IsBuilt(reference)) throw std::runtime_error(reference + " is not built");
  std::optional<SpecFile> own;
  if (spec_path.empty()) own.emplace(spec);
  const std::string log = path + ".log." + std::to_string(::getpid());
  const ChildResult child =
      RunReferenceChild(ReferenceCommand(own ? own->path() : spec_path, reference, path, probe),
                        log);
  std::string tail = ReadLogTail(log);
  ::unlink(log.c_str());
  if (!child.started()) {
    tail = "cannot exec " + SelfExe() + ": " + std::strerror(child.start_error);
  }
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  if (tail.size() > 300) tail = "..." + tail.substr(tail.size() - 300);
  // The child could not write the cache (or its model for its compiler): the storage's
  // failure, which stops the sweep, not a reference that is unavailable for this model.
  ThrowIfStorageFailed(child.status(),
                       "the reference child (" + reference + ") could not write" +
                           (tail.empty() ? std::string(" (its log is empty)") : ": " + tail));
  if (!child.ok() || !FileExists(path)) {
    throw std::runtime_error(reference + " failed on this model" +
                             (tail.empty() ? std::string() : ": " + tail));
  }
  return ReadReference(path, graph);
}

int RunReference(const ResolvedRun& spec, const std::string& reference, const std::string& out,
                 bool probe) {
  const CompilerInfo& info = FindCompiler(reference);
  RunSpec run = spec.run;
  PrepareModel(run.model, run.batch_size, spec.results_dir + "/.cache");  // cached by now
  // The weights the worker that started it drew and stored, where it did (BuildGraph).
  Graph graph = BuildGraph(spec, run.model, /*process=*/1);
  if (probe) graph = ProbeGraph(graph);
  const OnnxForCompiler onnx(graph, info, spec.results_dir);
  const CompilerConfig config = ReferenceConfig(info);
  std::unique_ptr<Compiler> compiler = LoadCompiler(info.name);
  std::unique_ptr<Executable> executable = compiler->Compile(
      onnx.Request(graph, config, spec.results_dir + "/.cache", /*quick=*/true));
  executable->SetInputs(RunInputs(graph, run));
  executable->Run();
  std::vector<HostTensor> outputs = executable->GetOutputs();
  executable->SetInputs(RedrawnInputs(graph, run));
  executable->Run();
  for (HostTensor& t : executable->GetOutputs()) outputs.push_back(std::move(t));
  WriteFileAtomic(out, FormatTensorFile(outputs));
  return kExitOk;
}

}  // namespace ngraphbench::worker
