#include "ngraphbench/runner/model.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <utility>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/core/random.h"
#include "ngraphbench/core/tensor.h"
#include "ngraphbench/core/version.h"
#include "ngraphbench/graph/onnx_io.h"
#include "ngraphbench/models/builder.h"
#include "ngraphbench/models/weights_cache.h"
#include "ngraphbench/runner/launch.h"

namespace ngraphbench::worker {

namespace {

// The cache file of a model's drawn weights (models/weights_cache.h), keyed by the model and this
// build (which fixes the builders and the generator); the batch size is not in the key, since
// the weights do not depend on it (FillWeights refuses a file that does not fit the graph).
std::string WeightsPath(const std::string& results_dir, const ModelSpec& model) {
  const std::string key = "weights=1\n" + ModelKey(model);
  return results_dir + "/.cache/weights/" + SafeName(model.name) + "." + Fnv1a64Hex(key) + ".bin";
}

}  // namespace

std::vector<HostTensor> RunInputs(const Graph& graph, const RunSpec& run) {
  std::vector<HostTensor> inputs;
  for (const auto& in : graph.inputs) {
    inputs.push_back(RandomNormal(in.shape, InputSeed(SeedRunId(run.run_id), in.name)));
  }
  return inputs;
}

std::vector<HostTensor> RedrawnInputs(const Graph& graph, const RunSpec& run) {
  std::vector<HostTensor> inputs;
  for (const auto& in : graph.inputs) {
    inputs.push_back(RandomNormal(in.shape, RedrawSeed(SeedRunId(run.run_id), in.name)));
  }
  return inputs;
}

std::string ModelKey(const ModelSpec& model) {
  return std::string(BuildVersion()) + "\n" + model.family + "\n" + model.name + "\n" +
         model.variant + "\n" + std::to_string(model.width) + "x" + std::to_string(model.depth) +
         "\n";
}

Graph BuildGraph(const ResolvedRun& spec, const ModelSpec& model, int process) {
  if (!DrawsWeights(model)) return BuildModel(model, spec.run.batch_size);
  const std::string path = WeightsPath(spec.results_dir, model);
  if (process > 0 && FileExists(path)) {
    Graph graph;
    {
      const SkipWeightDraws skip;
      graph = BuildModel(model, spec.run.batch_size);
    }
    try {
      if (FillWeights(ReadFileCapped(path, WeightsBytes(graph), "weights cache", Links::kRefuse),
                      graph)) {
        return graph;
      }
    } catch (const InputError&) {
      // Not a regular file (a FIFO, a link), or larger than the graph's weights: drawn below
      // (a run's first process replaces such a file: StoreWeights).
    }
  }
  return BuildModel(model, spec.run.batch_size);
}

void StoreWeights(const ResolvedRun& spec, const ModelSpec& model, int process,
                  const Graph& graph) {
  if (process != 0 || !DrawsWeights(model)) return;
  const std::string path = WeightsPath(spec.results_dir, model);
  // What is there already stays, unless it cannot be this graph's weights (BuildGraph).
  struct stat st {};
  const bool stored = ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
                      static_cast<uint64_t>(st.st_size) == WeightsBytes(graph);
  if (!stored) WriteFileAtomic(path, FormatWeights(graph));
}

OnnxForCompiler::OnnxForCompiler(const Graph& graph, const CompilerInfo& info,
                                 const std::string& results_dir) {
  if (!info.consumes_onnx) return;
  if (!OnnxNeedsExternalData(graph)) {
    bytes_ = ExportOnnx(graph);
    return;
  }
  std::string name = TempTemplate(results_dir, kWorkerModelPrefix, "");
  if (::mkdtemp(name.data()) == nullptr) {
    const int error = errno;
    ThrowFileError("cannot create a folder for the ONNX model in " + results_dir + "/.tmp",
                   error);
  }
  dir_ = name;
  remove_on_signal_.emplace(dir_);
  path_ = dir_ + "/model.onnx";
  try {
    ExportOnnxFile(graph, path_);
  } catch (...) {
    // The weights written so far (on a full disk, the room a resume needs) go now: a
    // constructor that throws runs no destructor.
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    throw;
  }
}

OnnxForCompiler::~OnnxForCompiler() {
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

OnnxForCompiler::OnnxForCompiler(OnnxForCompiler&& other) noexcept
    : bytes_(std::move(other.bytes_)),
      dir_(std::exchange(other.dir_, std::string())),
      path_(std::move(other.path_)) {
  if (other.remove_on_signal_) {
    other.remove_on_signal_.reset();
    remove_on_signal_.emplace(dir_);
  }
}

CompileRequest OnnxForCompiler::Request(const Graph& graph, const CompilerConfig& config,
                                        const std::string& cache_dir, bool quick) const {
  CompileRequest request{graph, bytes_, config, cache_dir, quick};
  request.onnx_path = path_;
  return request;
}

}  // namespace ngraphbench::worker
