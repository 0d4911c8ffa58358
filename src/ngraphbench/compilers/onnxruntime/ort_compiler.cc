// The `onnxruntime` compiler: ONNX Runtime through its C/C++ API, with the CPU execution
// provider (device cpu) or the CUDA execution provider (device cuda, onnxruntime-gpu).
//
// The library comes from the onnxruntime wheel and is loaded with dlopen (ort_common.h).
//
// A run's later processes (CompileRequest::cold false) load what its first one optimized:
// ONNX Runtime's offline mode. The cold process's session saves the model as its graph
// optimizations left it to <cache_dir>/onnxruntime/<key>/model.onnx, and a later session loads
// that with graph optimizations disabled (cache_hit=true in the settings). ONNX Runtime's
// documentation asks for the same options, execution providers and hardware where the saved
// model is loaded (the layout optimizations of level `all` are for this CPU's instruction
// set), so the key covers the model, the ORT version, this machine (MachineIdentity) and every
// session option set below. On the CPU only: a model saved after placement on the CUDA provider
// carries the Memcpy nodes that placement inserted, which a later session has been seen to
// refuse (no kernel for MemcpyToHost), and which nodes ORT leaves to the CPU there is part of
// the result (`nodes=` from the session's log). Nor at level `disable`, which has nothing to
// save.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "ngraphbench/compilers/compile_helper.h"
#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/compilers/onnxruntime/ort_common.h"
#include "ngraphbench/core/error.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

constexpr char kOptimizedModel[] = "model.onnx";

GraphOptimizationLevel OptLevel(const std::string& name) {
  if (name == "disable") return ORT_DISABLE_ALL;
  if (name == "basic") return ORT_ENABLE_BASIC;
  if (name == "extended") return ORT_ENABLE_EXTENDED;
  return ORT_ENABLE_ALL;
}

// Where the run's optimized model is kept: a key over everything it depends on (the file's
// comment), the session options included.
fs::path SavedModelEntry(const CompileRequest& request, int intra_op_threads) {
  const CompilerConfig& config = request.config;
  Fnv128 key;
  key.Add("ngraphbench-onnxruntime-v1").Add(ort::VersionString()).Add(MachineIdentity());
  key.Add(OnnxModelDigest(request.onnx_path, request.onnx, "onnxruntime"));
  key.Add(config.device).Add(config.precision).Add(config.opt_level);
  key.Add(std::to_string(config.threads)).Add(std::to_string(intra_op_threads));
  key.Add(config.options.String("inter_op_threads")).Add(config.options.String("execution_mode"));
  return fs::path(request.cache_dir) / "onnxruntime" / key.Hex();
}

// A later process of the run loads the optimized model from `entry` (`cache_hit`); a cold one,
// or one that finds no usable entry, compiles and saves it there.
std::unique_ptr<ort::OrtExecutable> CreateOrLoad(const CompileRequest& request,
                                                 ort::SessionSetup setup, const fs::path& entry,
                                                 bool& cache_hit) {
  const fs::path saved = entry / kOptimizedModel;
  bool damaged = false;  // an entry that did not load, which this compile replaces
  if (!request.cold && fs::exists(saved)) {
    ort::SessionSetup load = setup;
    load.optimized.load_from = saved.string();
    try {
      auto executable = ort::CreateExecutable(request, load);
      cache_hit = true;
      return executable;
    } catch (const CompileError& e) {
      damaged = true;
      std::cerr << "onnxruntime: cannot load the saved model " << saved.string() << " ("
                << e.what() << "); compiling the model\n";
    }
  }
  // Written beside the entry and renamed into place (compile_helper.h): a cold compile neither
  // reads an entry nor leaves a partial one.
  CacheEntryBuild build(entry);
  setup.optimized.save_to = (build.dir() / kOptimizedModel).string();
  // A model given by path has weights too large for one protobuf, and so may its optimized form.
  setup.optimized.external_data = !request.onnx_path.empty();
  auto executable = ort::CreateExecutable(request, setup);
  // An entry another process of the run wrote meanwhile is as good as this one.
  build.Commit([&](const fs::path& e) { return !damaged && fs::exists(e / kOptimizedModel); });
  return executable;
}

class OrtCompiler : public Compiler {
 public:
  std::string Version() const override { return "onnxruntime " + ort::VersionString(); }

  std::string Unavailable(const CompilerConfig& config) const override {
    if (config.device != "cuda") return {};
    return "onnxruntime: " + ort::ProviderUnavailable("CUDAExecutionProvider", "cuda");
  }

  std::unique_ptr<Executable> Compile(const CompileRequest& request) override {
    ort::Load();
    const CompilerConfig& config = request.config;
    if (config.precision != "fp32") {
      throw CompileError("onnxruntime: precision '" + config.precision +
                         "' is not supported; use fp32");
    }
    if (const std::string why = Unavailable(config); !why.empty()) throw UnavailableError(why);
    const bool cuda = config.device == "cuda";
    const bool parallel = config.options.String("execution_mode") == "parallel";
    ort::SessionSetup setup;
    setup.compiler = "onnxruntime";
    setup.cuda = cuda;
    // On the GPU, which nodes ORT leaves to the CPU is part of the result. On the CPU it is
    // asked for by NGRAPHBENCH_ORT_LOG_PLACEMENT=1 only (a diagnostic, used by the tests).
    const char* env = std::getenv("NGRAPHBENCH_ORT_LOG_PLACEMENT");
    setup.log_placement = cuda || (env && std::string(env) == "1");
    // With an inter-op pool too (inter_op_threads 0 = ORT picks its size), the new threads
    // cannot be told apart from the intra-op pool's.
    setup.inter_op_pool = parallel && config.options.Int("inter_op_threads") != 1;
    // Offline: the cores split between the streams, as the session's intra-op pool of
    // threads / streams; `auto` is one stream per thread (ONNX Runtime has no choice of its own).
    const int64_t streams = !request.offline       ? 1
                            : request.streams > 0  ? request.streams
                                                   : std::max(1, config.threads);
    const int intra_op_threads =
        static_cast<int>(std::max<int64_t>(1, config.threads / streams));
    if (request.offline && parallel) {
      throw CompileError("onnxruntime: execution_mode parallel starts an inter-op pool that the "
                         "offline streams would share unseen; use execution_mode sequential with "
                         "scenario offline");
    }
    // By value: Profile() configures a second session with it after Compile() has returned.
    setup.configure = [config, cuda, parallel, intra_op_threads](Ort::SessionOptions& options) {
      options.SetIntraOpNumThreads(intra_op_threads);
      options.SetInterOpNumThreads(static_cast<int>(config.options.Int("inter_op_threads")));
      options.SetGraphOptimizationLevel(OptLevel(config.opt_level));
      options.SetExecutionMode(parallel ? ORT_PARALLEL : ORT_SEQUENTIAL);
      if (cuda) {
        ort::AppendCuda(options, {});  // ORT's defaults (cuDNN's exhaustive algorithm search)
      }
    };
    const bool reuse = !request.cache_dir.empty() && !cuda && config.opt_level != "disable";
    bool cache_hit = false;
    auto executable =
        reuse ? CreateOrLoad(request, setup, SavedModelEntry(request, intra_op_threads), cache_hit)
              : ort::CreateExecutable(request, setup);
    auto& settings = executable->settings();
    settings["cache_hit"] = cache_hit ? "true" : "false";
    settings["inter_op_threads"] = config.options.String("inter_op_threads");
    settings["graph_optimization_level"] = config.opt_level;
    settings["execution_mode"] = config.options.String("execution_mode");
    if (request.offline) executable->ServeStreams(streams);
    return executable;
  }
};

}  // namespace
}  // namespace ngraphbench

extern "C" ngraphbench::Compiler* NgraphbenchCreateCompiler() {
  return new ngraphbench::OrtCompiler();
}
