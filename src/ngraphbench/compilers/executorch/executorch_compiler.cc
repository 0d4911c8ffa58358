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
#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/extension/data_loader/mmap_data_loader.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/extension/threadpool/threadpool_guard.h>
#include <executorch/runtime/backend/backend_options_map.h>
#include <executorch/runtime/backend/options.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ngraphbench/compilers/compile_helper.h"
#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/compilers/executorch/etdump.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/tensor.h"
#include "ngraphbench/compilers/quantize_common/quantize_common.h"  // WriteCalibrationSet

// The runtime's thread pool, libexecutorch_threadpool.so. The wheel ships no header for it
// (only threadpool_guard.h); these are the declarations of ExecuTorch's
// extension/threadpool/threadpool.h for the functions used here, which the library exports
// under these (mangled) names. Non-virtual members only: the class's layout is never needed.
namespace executorch::extension::threadpool {
class ThreadPool {
 public:
  size_t get_thread_count() const;
  // Replaces the pool's threads by `num_threads` new ones. Unsafe while a method that captured
  // the old pool can still run: XNNPACK takes the pool when a program's method is loaded.
  bool _unsafe_reset_threadpool(uint32_t num_threads);  // NOLINT(readability-identifier-naming)
};
ThreadPool* get_threadpool();
}  // namespace executorch::extension::threadpool

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;
namespace et = ::executorch::runtime;
using ::executorch::extension::MallocMemoryAllocator;
using ::executorch::extension::MmapDataLoader;

std::string Bool(bool b) { return b ? "true" : "false"; }

std::string Seconds(const nlohmann::json& meta, const char* key) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", meta.value(key, 0.0));
  return buf;
}

std::string ErrorName(et::Error error) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%x", static_cast<unsigned>(error));
  return std::string(et::to_string(error)) + " (" + buf + ")";
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

// One loaded method ("forward") of a program, with the memory it runs in: ExecuTorch allocates
// nothing on its own, the caller gives it the memory-planned buffers (activations, and the
// inputs and outputs, which the lowering plans too) and allocators for the rest.
// `own_workspace`: XNNPACK's subgraphs get scratch memory of their own for this method
// (the XNNPACK backend's workspace_sharing_mode "per model", a model being one loaded method,
// told for this load only) instead of the workspace every method shares by default, whose lock
// each execute holds: for a method that runs while others run theirs.
class LoadedMethod {
 public:
  LoadedMethod(const fs::path& pte, et::EventTracer* tracer, bool own_workspace = false) {
    et::Result<MmapDataLoader> loader = MmapDataLoader::from(pte.c_str());
    if (!loader.ok()) {
      throw CompileError("executorch: cannot open " + pte.string() + ": " +
                         ErrorName(loader.error()));
    }
    loader_ = std::make_unique<MmapDataLoader>(std::move(loader.get()));
    et::Result<et::Program> program = et::Program::load(loader_.get());
    if (!program.ok()) {
      throw CompileError("executorch: " + pte.string() + " is not a program this runtime reads: " +
                         ErrorName(program.error()));
    }
    program_ = std::make_unique<et::Program>(std::move(program.get()));
    et::Result<et::MethodMeta> meta = program_->method_meta("forward");
    if (!meta.ok()) {
      throw CompileError("executorch: " + pte.string() + " has no method 'forward'");
    }
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
      const size_t size = static_cast<size_t>(meta->memory_planned_buffer_size(i).get());
      planned_.emplace_back(size);
      spans_.emplace_back(planned_.back().data(), size);
    }
    hierarchical_ = std::make_unique<et::HierarchicalAllocator>(
        et::Span<et::Span<uint8_t>>(spans_.data(), spans_.size()));
    memory_ = std::make_unique<et::MemoryManager>(&method_allocator_, hierarchical_.get(),
                                                  &temp_allocator_);
    if (own_workspace) {
      // The XNNPACK backend's key and option, and its WorkspaceSharingMode::PerModel (1).
      static constexpr char kXnnpackBackend[] = "XnnpackBackend";
      const et::Error set = xnnpack_options_.set_option("workspace_sharing_mode", 1);
      if (set != et::Error::Ok ||
          backend_options_.set_options(kXnnpackBackend, xnnpack_options_.view()) !=
              et::Error::Ok) {
        throw CompileError("executorch: cannot set XNNPACK's workspace_sharing_mode: " +
                           ErrorName(set));
      }
    }
    et::Result<et::Method> method = program_->load_method(
        "forward", memory_.get(), tracer, /*named_data_map=*/nullptr,
        own_workspace ? &backend_options_ : nullptr);
    if (!method.ok()) {
      // A missing operator or delegate is logged by the runtime (the worker's log) and comes
      // back here as OperatorMissing / NotFound.
      throw CompileError("executorch: loading method 'forward' of " + pte.string() +
                         " failed: " + ErrorName(method.error()) +
                         " (a kernel or the XNNPACK backend missing from the runtime libraries"
                         " is named in the worker's log)");
    }
    method_ = std::make_unique<et::Method>(std::move(method.get()));
  }

  et::Method& method() { return *method_; }

 private:
  // Destroyed in reverse: the method before the memory and the program it uses.
  std::unique_ptr<MmapDataLoader> loader_;
  std::unique_ptr<et::Program> program_;
  std::vector<std::vector<uint8_t>> planned_;
  std::vector<et::Span<uint8_t>> spans_;
  std::unique_ptr<et::HierarchicalAllocator> hierarchical_;
  MallocMemoryAllocator method_allocator_;
  MallocMemoryAllocator temp_allocator_;
  std::unique_ptr<et::MemoryManager> memory_;
  // The load's backend options, read while the method loads (and kept while it lives, as the
  // runtime asks).
  et::BackendOptions<1> xnnpack_options_;
  et::LoadBackendOptionsMap backend_options_;
  std::unique_ptr<et::Method> method_;
};

// A host tensor as the runtime's Tensor: a TensorImpl over the caller's data, contiguous.
class HostView {
 public:
  explicit HostView(const HostTensor& t)
      : sizes_(t.shape.begin(), t.shape.end()),
        dim_order_(t.shape.size()),
        strides_(t.shape.size()) {
    for (size_t i = 0; i < dim_order_.size(); ++i) dim_order_[i] = static_cast<uint8_t>(i);
    int32_t stride = 1;
    for (size_t i = sizes_.size(); i-- > 0;) {
      strides_[i] = stride;
      stride *= sizes_[i];
    }
    impl_ = std::make_unique<::executorch::aten::TensorImpl>(
        ::executorch::aten::ScalarType::Float, static_cast<ssize_t>(sizes_.size()),
        sizes_.data(), const_cast<float*>(t.data.data()), dim_order_.data(), strides_.data());
  }
  ::executorch::aten::Tensor tensor() { return ::executorch::aten::Tensor(impl_.get()); }

 private:
  std::vector<::executorch::aten::SizesType> sizes_;
  std::vector<::executorch::aten::DimOrderType> dim_order_;
  std::vector<::executorch::aten::StridesType> strides_;
  std::unique_ptr<::executorch::aten::TensorImpl> impl_;
};

// One loaded method with the inputs it reads and the outputs it writes: the executable's own
// context, and each offline context (NewContext), which runs from its stream's thread while the
// others run theirs.
class MethodContext : public RunContext {
 public:
  // `offline`: a context of the offline scenario: its method has an XNNPACK workspace of its
  // own, and runs its parallel regions on the calling thread (below).
  MethodContext(const Graph& graph, const fs::path& pte, bool offline)
      : graph_(graph),
        offline_(offline),
        loaded_(std::make_unique<LoadedMethod>(pte, nullptr, /*own_workspace=*/offline)) {
    CheckSignature(loaded_->method());
    // A first run on zeros: XNNPACK finishes setting up (weights packing) on the first
    // execute, as the other compilers' first runs do, before any timed run.
    std::vector<HostTensor> zeros;
    for (const auto& spec : graph.inputs) {
      zeros.push_back(HostTensor{spec.shape, std::vector<float>(NumElements(spec.shape), 0.f)});
    }
    SetInputs(zeros);
    Run();
  }

  // The lowering leaves the inputs out of the memory plan (executorch_compile.py): the method
  // reads them where they are, in this context's copy of the host inputs (made here, outside
  // the clock), which nothing in the program writes.
  void SetInputs(const std::vector<HostTensor>& inputs) override {
    if (inputs.size() != graph_.inputs.size()) {
      throw std::runtime_error("executorch: " + std::to_string(inputs.size()) +
                               " inputs given, the model has " +
                               std::to_string(graph_.inputs.size()));
    }
    // Kept: the method points at this data until the next SetInputs (and Profile's method
    // at it while it runs).
    inputs_ = inputs;
    views_.clear();
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (NumElements(inputs_[i].shape) != static_cast<int64_t>(inputs_[i].data.size())) {
        throw std::runtime_error("executorch: input " + graph_.inputs[i].name + " has " +
                                 std::to_string(inputs_[i].data.size()) + " values for shape " +
                                 ShapeToString(inputs_[i].shape));
      }
      views_.push_back(std::make_unique<HostView>(inputs_[i]));
    }
    BindInputs(loaded_->method());
  }

  void Run() override {
    // Offline, the pool has one thread (Compile), with which pthreadpool runs a parallel
    // region inline on the calling thread; ExecuTorch's own kernels reach it through the
    // pool's run(), which holds the pool's lock even then, one stream at a time. The guard
    // (thread-local) has them run inline without the pool, as one thread would, and without
    // the lock.
    std::optional<::executorch::extension::threadpool::NoThreadPoolGuard> inline_only;
    if (offline_) inline_only.emplace();
    const et::Error error = loaded_->method().execute();
    if (error != et::Error::Ok) {
      throw std::runtime_error("executorch: execute() failed: " + ErrorName(error));
    }
  }

  std::vector<HostTensor> GetOutputs() override {
    et::Method& method = loaded_->method();
    std::vector<HostTensor> out;
    for (size_t i = 0; i < graph_.outputs.size(); ++i) {
      const et::EValue& value = method.get_output(i);
      if (!value.isTensor()) {
        throw std::runtime_error("executorch: output " + graph_.outputs[i].name +
                                 " is not a tensor");
      }
      const ::executorch::aten::Tensor t = value.toTensor();
      HostTensor host{graph_.outputs[i].shape, {}};
      const float* data = t.const_data_ptr<float>();
      host.data.assign(data, data + t.numel());
      out.push_back(std::move(host));
    }
    return out;
  }

  // Points `method`'s inputs at this context's last SetInputs() (the runtime shares the data,
  // copies nothing): this context's method, or Profile's.
  void BindInputs(et::Method& method) {
    for (size_t i = 0; i < views_.size(); ++i) {
      const et::Error error = method.set_input(et::EValue(views_[i]->tensor()), i);
      if (error != et::Error::Ok) {
        throw std::runtime_error("executorch: set_input(" + graph_.inputs[i].name +
                                 ") failed: " + ErrorName(error));
      }
    }
  }

 private:
  // The method's inputs and outputs must be the graph's: count, dtype and shape.
  void CheckSignature(et::Method& method) const {
    const et::MethodMeta meta = method.method_meta();
    if (meta.num_inputs() != graph_.inputs.size() || meta.num_outputs() != graph_.outputs.size()) {
      throw CompileError("executorch: the program takes " + std::to_string(meta.num_inputs()) +
                         " inputs and returns " + std::to_string(meta.num_outputs()) +
                         " outputs; the model has " + std::to_string(graph_.inputs.size()) +
                         " and " + std::to_string(graph_.outputs.size()));
    }
    const auto check = [](et::Result<et::TensorInfo> info, const std::string& what,
                          const std::string& name, const Shape& shape) {
      if (!info.ok()) throw CompileError("executorch: " + what + " " + name + " is not a tensor");
      const auto sizes = info->sizes();
      const Shape got(sizes.begin(), sizes.end());
      if (info->scalar_type() != ::executorch::aten::ScalarType::Float || got != shape) {
        throw CompileError("executorch: " + what + " " + name + " is " + ShapeToString(got) +
                           " of type " + std::to_string(static_cast<int>(info->scalar_type())) +
                           ", expected Float " + ShapeToString(shape));
      }
    };
    for (size_t i = 0; i < graph_.inputs.size(); ++i) {
      check(meta.input_tensor_meta(i), "input", graph_.inputs[i].name, graph_.inputs[i].shape);
    }
    for (size_t i = 0; i < graph_.outputs.size(); ++i) {
      check(meta.output_tensor_meta(i), "output", graph_.outputs[i].name, graph_.outputs[i].shape);
    }
  }

  const Graph& graph_;
  const bool offline_;
  std::unique_ptr<LoadedMethod> loaded_;
  std::vector<HostTensor> inputs_;  // the last SetInputs(), which the method reads
  std::vector<std::unique_ptr<HostView>> views_;  // inputs_ as the runtime's tensors
};

class ExecuTorchExecutable : public Executable {
 public:
  // `streams`: offline, the contexts it serves (NewContext), each on a pool of
  // `threads_per_stream` (1: Compile refuses more); 0: single stream.
  ExecuTorchExecutable(const Graph& graph, const fs::path& pte,
                       std::map<std::string, std::string> settings,
                       std::vector<std::string> degraded, fs::path remove_after,
                       int64_t streams)
      : graph_(graph),
        pte_(pte),
        settings_(std::move(settings)),
        degraded_(std::move(degraded)),
        remove_after_(std::move(remove_after)),
        streams_(streams),
        main_(std::make_unique<MethodContext>(graph, pte, /*offline=*/streams > 0)) {}

  ~ExecuTorchExecutable() override {
    main_.reset();
    if (!remove_after_.empty()) {
      std::error_code ec;
      fs::remove_all(remove_after_, ec);
    }
  }

  void SetInputs(const std::vector<HostTensor>& inputs) override { main_->SetInputs(inputs); }
  void Run() override { main_->Run(); }
  std::vector<HostTensor> GetOutputs() override { return main_->GetOutputs(); }

  // Offline: another load of the same .pte (its own Method, memory plan, inputs, outputs and
  // XNNPACK workspace), run once on zeros here, before the timed runs.
  std::unique_ptr<RunContext> NewContext() override {
    if (streams_ < 1) return nullptr;  // compiled for one request at a time
    return std::make_unique<MethodContext>(graph_, pte_, /*offline=*/true);
  }

  int64_t Streams() const override { return streams_ > 0 ? streams_ : 1; }

  std::map<std::string, std::string> EffectiveSettings() const override {
    std::map<std::string, std::string> out = settings_;
    // The runtime's pool as it is now (read back, not the setting).
    const size_t pool = ::executorch::extension::threadpool::get_threadpool()->get_thread_count();
    out["threads"] = std::to_string(pool);
    if (streams_ > 0) {
      out["streams"] = std::to_string(streams_);
      out["threads_per_stream"] = std::to_string(pool);
      out["threads"] = std::to_string(static_cast<size_t>(streams_) * pool);
      out["xnnpack_workspace"] = "per_stream";
    }
    return out;
  }

  std::vector<std::string> Degraded() const override { return degraded_; }

  std::optional<KernelProfile> Profile(int runs) override;

 private:
  const Graph& graph_;
  fs::path pte_;
  std::map<std::string, std::string> settings_;
  std::vector<std::string> degraded_;
  fs::path remove_after_;  // an uncached program's temporary folder
  int64_t streams_ = 0;    // offline: the streams served; 0: single stream
  std::unique_ptr<MethodContext> main_;
};

std::optional<KernelProfile> ExecuTorchExecutable::Profile(int runs) {
  // ETDumpGen grows its own buffer (malloc) when given none.
  ::executorch::etdump::ETDumpGen tracer;
  tracer.set_event_tracer_profiling_level(et::EventTracerProfilingLevel::kProfileAllEvents);
  LoadedMethod profiled(pte_, &tracer);
  main_->BindInputs(profiled.method());  // the last SetInputs()'s, as the timed method's
  // Two runs to warm up (XNNPACK's setup on the first): recorded too (this wheel's ETDumpGen
  // exports no way to clear its buffer), and dropped by ReadEtdump, the first two executions.
  const int warmup = 2;
  for (int i = 0; i < warmup + runs; ++i) {
    const et::Error error = profiled.method().execute();
    if (error != et::Error::Ok) {
      throw CompileError("executorch: profiled execute() failed: " + ErrorName(error));
    }
  }
  const ::executorch::etdump::ETDumpResult dump = tracer.get_etdump_data();
  if (dump.buf == nullptr || dump.size == 0) {
    throw CompileError("executorch: ETDump recorded nothing");
  }
  const std::unique_ptr<void, decltype(&std::free)> owned(dump.buf, &std::free);
  return ReadEtdump(dump.buf, dump.size, warmup, runs);
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
}  // namespace ngraphbench

extern "C" ngraphbench::Compiler* NgraphbenchCreateCompiler() {
  return new ngraphbench::ExecuTorchCompiler();
}
