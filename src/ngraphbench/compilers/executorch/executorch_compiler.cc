// The `executorch` compiler: PyTorch's on-device runtime, ExecuTorch, with its XNNPACK backend.
//
// Lowering needs ExecuTorch's Python stack, so it runs executorch_compile.py (in this folder) as a
// subprocess: ONNX -> torch.nn.Module (onnx2torch) -> torch.export (static shapes) -> edge
// dialect with the XNNPACK partitioner -> ExecuTorch program, a .pte file. The timed part runs
// here, with no Python in the worker: the .pte is loaded with ExecuTorch's runtime
// (executorch::runtime::Program and Method, from the executorch wheel's libexecutorch.so), and
// Run() is one Method::execute(). XNNPACK's subgraphs run in the runtime's thread pool; what
// XNNPACK did not take runs in ExecuTorch's CPU kernels (libexecutorch_kernels_optimized.so,
// optimized kernels with the portable ones for every other operator), and makes the run
// Degraded(): it is then not the XNNPACK runtime that is measured.
//
// How onnx2torch's module becomes a torch.export program is the option `route`
// (executorch_compile.py): onnx2torch (torch.export of the module), onnx2torch_traced (the module
// traced with torch.jit.trace, then PyTorch's TorchScript-to-ExportedProgram converter: what
// onnx2torch's modules read from constant operands at run time, such as Resize's sizes, which
// torch.export cannot guard on, is fixed by the trace), or auto (the first, and the second where
// it fails); the row's settings name the module lowered (`module`) and why onnx2torch's export
// failed (`onnx2torch_failed`).
//
// Programs are cached under <cache_dir>/executorch/<key>/model.pte where the key hashes what
// the program depends on: the ONNX bytes (and external data files) or the torch.export program
// of a model given as PyTorch code, the route, the executorch and torch versions the lowering
// used, and the compile script itself. The thread count is not in it: XNNPACK takes its thread pool when the
// program is loaded, not when it is lowered. A rerun then costs a program load instead of a
// lowering.
//
// The offline scenario: each context (NewContext) is another load of the same .pte, a Method
// with its own memory plan, inputs and outputs, run from its stream's thread. ExecuTorch has one
// process-wide thread pool (pthreadpool) for every method, which XNNPACK's subgraphs and
// ExecuTorch's own kernels run their parallel work in. pthreadpool runs one parallel region at
// a time on its threads (a second caller waits), but with a pool of one thread it runs each
// region inline on the calling thread, taking no lock. So offline the pool has one thread, and
// each stream computes on its own thread; Compile refuses more than one thread per stream,
// where concurrent streams would take turns on the one pool. Two more locks are kept out of the
// streams' way: XNNPACK's scratch memory (its workspace) is shared by every loaded method
// unless a load asks otherwise, each execute holding the workspace's lock, so offline loads ask
// for one workspace per method (per context); and ExecuTorch's own kernels enter the pool
// through a call that holds the pool's lock even for one thread, so offline contexts run under
// ExecuTorch's NoThreadPoolGuard, with which they run inline without it.
//
// Precision int8: the compile script quantizes the exported program by PyTorch's PT2E flow with
// the XNNPACK quantizer, calibrated on the calibration set of core/tensor.h (the batches written
// here as tensor files for it), before the lowering; XNNPACK runs the quantized operators as
// its integer ones. The entry is keyed by the precision and the calibration set too. A model the
// quantizer annotates nothing of fails the compile (never fp32 under the name int8); a
// quantize or dequantize left outside XNNPACK makes the run degraded, as any operator does.
//
// Profile() loads the same .pte a second time with ExecuTorch's event tracer (ETDump), which
// etdump.cc reads into per-operator times.
//
// This file is the compiler (the lowering, the program cache, the thread pool, the settings);
// executorch_executable.cc runs the program (its methods and contexts, Profile()).
#include <executorch/runtime/platform/runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ngraphbench/compilers/compile_helper.h"
#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/compilers/executorch/executorch_internal.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/tensor.h"
#include "ngraphbench/compilers/quantize_common/quantize_common.h"  // WriteCalibrationSet

namespace ngraphbench {
namespace executorch_compiler {
namespace {

namespace fs = std::filesystem;

std::string Bool(bool b) { return b ? "true" : "false"; }

std::string Seconds(const nlohmann::json& meta, const char* key) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", meta.value(key, 0.0));
  return buf;
}

std::string Python() { return EnvOr("NGRAPHBENCH_EXECUTORCH_PYTHON", NGB_EXECUTORCH_PYTHON); }
std::string Script() {
  return EnvOr("NGRAPHBENCH_EXECUTORCH_COMPILE_SCRIPT", NGB_EXECUTORCH_SCRIPT);
}
const char* kFix = "set NGRAPHBENCH_EXECUTORCH_PYTHON to a python with executorch and onnx2torch";

// A program's cache entry: model.pte, meta.json (written last by the compile script).
struct Entry {
  fs::path pte, meta;
  bool hit = false;
  std::string key;
};


// Lowers the model with executorch_compile.py by `route` into <cache_dir>/executorch/<key>/, or
// finds it there. Without a cache dir, into a temporary folder that the executable removes.
Entry BuildProgram(const CompileRequest& request, const std::string& route, const fs::path& root,
                   bool cached) {
  const std::string script_path = Script();
  const std::string script = ReadFile(script_path, kMaxConfigBytes);
  if (script.empty()) {
    throw CompileError("executorch: cannot read the compile script " + script_path +
                       " (set NGRAPHBENCH_EXECUTORCH_COMPILE_SCRIPT)");
  }
  const bool from_program = !request.torch_program.empty();
  Fnv128 key;
  key.Add("ngraphbench-executorch-v1").Add(NGB_EXECUTORCH_VERSION).Add(NGB_EXECUTORCH_TORCH);
  if (from_program) {
    key.Add("program").AddFile(request.torch_program, "executorch");
  } else {
    AddOnnxModel(key, request.onnx_path, request.onnx, "executorch");
    // onnx2torch's entries keep the keys they had before there were routes.
    if (route != "onnx2torch") key.Add("route=" + route);
  }
  key.Add(script);
  const bool int8 = request.config.precision == "int8";
  if (int8) {
    // The calibration set: its batch count and shapes (its values follow from its seeds).
    key.Add("precision=int8").Add("calibration=" + std::to_string(kCalibrationBatches));
    for (const TensorSpec& in : request.graph.inputs) key.Add(in.name).Add(ShapeToString(in.shape));
  }
  const fs::path entry = root / key.Hex();
  Entry out{entry / "model.pte", entry / "meta.json", false, key.Hex()};
  const auto usable = [](const fs::path& e) {
    return fs::exists(e / "meta.json") && fs::exists(e / "model.pte");
  };
  out.hit = cached && usable(entry);
  if (out.hit) return out;
  // Written beside the entry and renamed into place: an interrupted compile leaves no partial
  // entry (compile_helper.h).
  CacheEntryBuild build(entry);
  {
    std::vector<std::string> argv = {Python(), script_path, "--out-dir", build.dir().string()};
    std::optional<ScriptOnnxFile> onnx;
    if (from_program) {
      argv.insert(argv.end(), {"--program", request.torch_program});
    } else {
      onnx.emplace(request.onnx_path, request.onnx, build.dir());
      argv.insert(argv.end(), {"--onnx", onnx->path().string(), "--route", route});
    }
    std::vector<fs::path> calibration;
    if (int8) {
      calibration = WriteCalibrationSet(request.graph.inputs, build.dir(), "executorch");
      argv.push_back("--calibration");
      for (const fs::path& file : calibration) argv.push_back(file.string());
    }
    RunCompileScript(argv, build.dir(), build.dir() / "meta.json", cached ? fs::path() : root,
                     "executorch", kFix);
    // The calibration set is drawn again from its seeds; the entry keeps the program only.
    for (const fs::path& file : calibration) fs::remove(file);
  }
  build.Commit(usable);
  return out;
}

class ExecuTorchCompiler : public Compiler {
 public:
  std::string Version() const override {
    return std::string("executorch ") + NGB_EXECUTORCH_VERSION + " (XNNPACK)";
  }

  std::string Unavailable(const CompilerConfig& config) const override {
    if (config.device != "cpu") {
      return "executorch: device '" + config.device + "' is not supported (XNNPACK runs on the "
             "CPU; use device cpu)";
    }
    return {};
  }

  std::unique_ptr<Executable> Compile(const CompileRequest& request) override {
    const CompilerConfig& config = request.config;
    if (const std::string why = Unavailable(config); !why.empty()) throw UnavailableError(why);
    const bool int8 = config.precision == "int8";
    if (config.precision != "fp32" && !int8) {
      throw CompileError("executorch: precision '" + config.precision +
                         "' is not supported; use fp32 or int8");
    }
    if (!request.torch_program_error.empty()) {
      // A model given as PyTorch code that torch.export could not export: there is no program
      // to lower (its ONNX export would be another graph).
      throw CompileError("executorch: " + request.torch_program_error);
    }
    if (request.torch_program.empty() && request.onnx.empty() && request.onnx_path.empty()) {
      throw CompileError("executorch: needs the model as ONNX bytes or an ONNX file");
    }
    const int threads = config.threads > 0 ? config.threads : AvailableCores();
    // Offline: `streams` contexts, the threads split between them (auto: one stream per
    // thread, ExecuTorch having no choice of its own), all on the runtime's one pool. That
    // pool is process-wide: with more than one thread, the streams' parallel regions would
    // take turns on it (pthreadpool runs one region at a time), so it gets one thread, with
    // which each stream computes inline on its own thread.
    int64_t streams = 0;
    int pool_threads = threads;
    if (request.offline) {
      streams = request.streams > 0 ? request.streams : threads;
      pool_threads = static_cast<int>(std::max<int64_t>(1, threads / streams));
      if (pool_threads > 1) {
        throw CompileError(
            "executorch: scenario offline with " + std::to_string(pool_threads) +
            " threads per stream (threads " + std::to_string(threads) + ", streams " +
            std::to_string(streams) + ") is not supported: ExecuTorch runs every method's "
            "parallel work (XNNPACK's and its own kernels') in one process-wide thread pool, "
            "which concurrent streams would take turns on; run one thread per stream, streams = "
            "threads (streams: auto)");
      }
    }
    ::executorch::runtime::runtime_init();

    // XNNPACK takes the runtime's thread pool when a method is loaded: sized first. Its
    // threads start now, inside the worker's affinity mask (they inherit it).
    auto* pool = ::executorch::extension::threadpool::get_threadpool();
    if (pool == nullptr ||
        !pool->_unsafe_reset_threadpool(static_cast<uint32_t>(pool_threads))) {
      throw CompileError("executorch: cannot size the runtime's thread pool to " +
                         std::to_string(pool_threads) + " threads");
    }

    const bool cached = !request.cache_dir.empty();
    const fs::path root = cached ? fs::path(request.cache_dir) / "executorch"
                                 : fs::temp_directory_path() /
                                       ("ngraphbench-executorch-" + std::to_string(::getpid()));
    const std::string route = config.options.String("route");
    const Entry entry = BuildProgram(request, route, root, cached);
    const nlohmann::json meta =
        nlohmann::json::parse(ReadFile(entry.meta, kMaxConfigBytes), nullptr,
                              /*allow_exceptions=*/false);
    if (!meta.is_object()) throw CompileError("executorch: unreadable " + entry.meta.string());

    const int64_t delegated = meta.value("delegated_ops", int64_t{0});
    const int64_t left = meta.value("non_delegated_ops", int64_t{0});
    char fraction[32];
    std::snprintf(fraction, sizeof(fraction), "%.4f",
                  delegated + left > 0 ? static_cast<double>(delegated) / (delegated + left) : 0.0);
    std::string left_ops;
    // Held here: a range-for over a temporary's items() would read a destroyed object.
    const nlohmann::json by_op = meta.value("non_delegated_by_op", nlohmann::json::object());
    for (const auto& [op, count] : by_op.items()) {
      left_ops += (left_ops.empty() ? "" : " ") + op + "x" + std::to_string(count.get<int64_t>());
    }
    std::vector<std::string> degraded;
    if (left > 0) {
      degraded.push_back("executorch: " + std::to_string(left) + " of " +
                         std::to_string(delegated + left) +
                         " operator(s) left outside XNNPACK to ExecuTorch's CPU kernels (" +
                         left_ops + ")");
    } else if (delegated == 0) {
      degraded.push_back("executorch: XNNPACK took no operator of the model");
    }

    std::map<std::string, std::string> settings = {
        {"cache_hit", Bool(entry.hit)},
        // The program lowered: the PyTorch model's own (torch.export), or onnx2torch's module
        // exported (onnx2torch) or traced (onnx2torch_traced), and the route asked for.
        {"module", meta.value("module", request.torch_program.empty() ? "onnx2torch"
                                                                       : "torch.export")},
        {"route", route},
        // What XNNPACK took: operators inside its subgraphs over all operators of the lowered
        // graph (tensorrt's fallback count, as a fraction).
        {"xnnpack_fraction", fraction},
        {"xnnpack_ops", std::to_string(delegated)},
        {"portable_ops", std::to_string(left)},
        {"xnnpack_subgraphs", std::to_string(meta.value("delegate_calls", 0))},
        // On a hit, what the original lowering spent: the row's compile_s is then the load.
        {"export_s", Seconds(meta, "export_s")},
        {"lower_s", Seconds(meta, "lower_s")},
        {"emit_s", Seconds(meta, "emit_s")},
        {"executorch_compiled_with", meta.value("executorch_version", "unknown")},
        {"torch_compiled_with", meta.value("torch_version", "unknown")},
        {"pte_bytes", std::to_string(meta.value("pte_bytes", int64_t{0}))},
        {"cache_key", entry.key}};
    if (!left_ops.empty()) settings["portable_by_op"] = left_ops;
    if (int8) {
      settings["quantization"] = meta.value("quantization", "unknown");
      settings["calibration_batches"] = std::to_string(meta.value("calibration_batches", 0));
      settings["quantize_s"] = Seconds(meta, "quantize_s");
      // Products by a constant weight made linear layers for the quantizer (the compile script).
      settings["matmuls_to_linear"] = std::to_string(meta.value("matmuls_to_linear", 0));
      settings["qdq_nodes"] = std::to_string(meta.value("quantize_nodes", 0) +
                                             meta.value("dequantize_nodes", 0));
      // Where the lowered graph's quantize/dequantize operators went: inside XNNPACK's
      // subgraphs (its integer operators) or left to ExecuTorch's kernels (degraded above).
      settings["xnnpack_qdq_ops"] = std::to_string(meta.value("xnnpack_qdq_ops", 0));
      settings["portable_qdq_ops"] = std::to_string(meta.value("portable_qdq_ops", 0));
    }
    if (const std::string failed = meta.value("onnx2torch_failed", ""); !failed.empty()) {
      // The settings are "k=v;k=v": the reason loses what would break that.
      std::string why = failed.substr(0, 200);
      std::replace(why.begin(), why.end(), ';', ',');
      std::replace(why.begin(), why.end(), '=', ':');
      settings["onnx2torch_failed"] = why;
    }
    return std::make_unique<ExecuTorchExecutable>(request.graph, entry.pte, std::move(settings),
                                                  std::move(degraded),
                                                  cached ? fs::path() : root, streams);
  }
};

}  // namespace
}  // namespace executorch_compiler
}  // namespace ngraphbench

extern "C" ngraphbench::Compiler* NgraphbenchCreateCompiler() {
  return new ngraphbench::executorch_compiler::ExecuTorchCompiler();
}
