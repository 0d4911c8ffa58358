// The `tvm` compiler: Apache TVM (Relax) with optional MetaSchedule auto-tuning.
//
// Compilation needs TVM's Python stack (ONNX frontend, MetaSchedule, LLVM codegen), so it runs
// tvm_compile.py (beside this file) as a subprocess that exports a shared library. The timed part runs here:
// the library is loaded through tvm-ffi and executed by the Relax VM, with no Python in the
// worker process.
//
// Compiled libraries are cached under <cache_dir>/tvm/<key>/ where the key hashes everything the
// library depends on: the ONNX bytes, the target (and, for the detected host target, this CPU's
// model and flags), the TVM version, the tuning settings and the compile script itself with the
// modules it imports from its folder (tvm_*.py, e.g. tvm_schedules.py). A rerun,
// or a second batch size of a model compiled before, then costs a library load instead of a
// compile. Tuning records live in <cache_dir>/tvm/tuning/<key>/ shared by every model tuned
// with the same target, TVM version and settings (see tvm_compile.py).
//
// Precision int8: the model is quantized first, by ONNX Runtime's quantizer as the onnxruntime
// compiler quantizes it (ort_quantize_tool.h: the same tool, so the same entries of
// <cache_dir>/onnxruntime-int8/), and that QDQ model is what TVM imports and compiles. Relax
// computes its convolutions and matrix products in float32 on dequantized tensors
// (tvm_kernels.py): the row says how many (int8_kernels, float_kernels) and is Degraded when
// any ran in float, so that it is never taken for int8 speed.
//
// Profile() times each call the Relax VM makes (a compiled TIR function, a VM builtin) through
// the VM's instrument hook, on a second VM loaded from the same library: TVM 0.27's runtime has
// no VM profiler any more (no vm_profiler_load_executable, no runtime.profiling report).
#include <dlpack/dlpack.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "ngraphbench/compilers/compile_helper.h"
#include "ngraphbench/compilers/compiler.h"
#ifdef NGB_TVM_INT8
#include "ngraphbench/compilers/onnxruntime/ort_quantize_tool.h"
#endif
#include "ngraphbench/compilers/quantize_common/quantize_common.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/host.h"

namespace ngraphbench {
namespace {

namespace ffi = tvm::ffi;
namespace fs = std::filesystem;

// The other tvm_*.py files beside the compile script, in name order: the modules it imports from
// its own folder (python puts a script's folder on sys.path), e.g. tvm_schedules.py.
std::vector<fs::path> CompileModules(const std::string& script_path) {
  const fs::path script(script_path);
  const fs::path dir = script.parent_path().empty() ? fs::path(".") : script.parent_path();
  std::vector<fs::path> modules;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name != script.filename().string() && name.rfind("tvm_", 0) == 0 &&
        it->path().extension() == ".py" && it->is_regular_file()) {
      modules.push_back(it->path());
    }
  }
  std::sort(modules.begin(), modules.end());
  return modules;
}

std::string Bool(bool b) { return b ? "true" : "false"; }

// Host buffers aligned as TVM's own allocator aligns them (kAllocAlignment): generated kernels
// may assume it for vector loads.
struct AlignedHostAlloc {
  static constexpr size_t kAlignment = 64;
  void AllocData(DLTensor* t) {
    const size_t bytes = ffi::GetDataSize(*t);
    t->data = std::aligned_alloc(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
    if (!t->data) throw std::bad_alloc();
  }
  void FreeData(DLTensor* t) { std::free(t->data); }
};

// Relax VM allocator kinds (tvm/runtime/memory/memory_manager.h, whose headers the wheel does not
// ship complete): kNaive = 1, kPooled = 2.
constexpr int kPooledAllocator = 2;

// A TIR function's operator type: its name without the number TVM appends to tell apart functions
// of the same operators (fused_conv2d_add_relu1 is fused_conv2d_add_relu for other shapes).
std::string FunctionType(const std::string& name) {
  const size_t last = name.find_last_not_of("0123456789");
  return last == std::string::npos ? name : name.substr(0, last + 1);
}

// The VM's own calls that compute nothing of the model: allocation from its pooled allocator,
// shape and type checks, tensor views (vm.builtin.reshape), tuples, closures. Two builtins do
// run tensor work and stay kernels: a copy between devices and a TIR call with dynamic shapes.
bool IsVmBookkeeping(const std::string& name) {
  return name.rfind("vm.builtin.", 0) == 0 && name != "vm.builtin.to_device" &&
         name != "vm.builtin.call_tir_dyn";
}

// Times the calls of a Relax VM through its instrument hook (VirtualMachine::SetInstrument in
// tvm/runtime/vm/vm.h): the VM calls the hook before and after every Call instruction with
// (callee, symbol, before_run, return value, arguments...). Times are exclusive: a call made
// inside another (a VM function, which is a closure, running its own instructions) counts once,
// in the innermost call, and closures themselves are not counted. CPU kernels return when they
// are done, so a call's time is its kernel's.
class CallTimer {
 public:
  struct Total {
    int64_t calls = 0;
    int64_t ns = 0;
  };

  // The hook for the VM's `set_instrument`. It shares the totals, so it may outlive the timer.
  ffi::Function Hook() const {
    return ffi::Function::FromPacked([state = state_](ffi::PackedArgs args, ffi::Any* rv) {
      state->OnCall(args);
      *rv = 0;  // VMInstrumentReturnKind::kNoOp: run the call
    });
  }

  const std::map<std::string, Total>& totals() const { return state_->totals; }

 private:
  using Clock = std::chrono::steady_clock;
  struct Open {
    bool counted;  // a packed function (a kernel or a builtin), not a VM closure
    Clock::time_point start;
    int64_t inner_ns = 0;  // the calls made inside this one, whole
  };
  struct State {
    std::vector<Open> open;  // calls under way, outermost first
    std::map<std::string, Total> totals;

    void OnCall(ffi::PackedArgs args) {
      if (args[2].cast<bool>()) {
        const bool counted = args[0].type_index() == ffi::TypeIndex::kTVMFFIFunction;
        open.push_back(Open{counted, Clock::now()});  // last: the hook's own time stays out
        return;
      }
      const Clock::time_point end = Clock::now();  // first, for the same reason
      if (open.empty()) return;  // never: the VM pairs its calls to the hook
      const Open call = open.back();
      open.pop_back();
      const int64_t whole_ns =
          std::chrono::duration_cast<std::chrono::nanoseconds>(end - call.start).count();
      if (!open.empty()) open.back().inner_ns += whole_ns;
      if (!call.counted) return;
      Total& total = totals[args[1].cast<std::string>()];
      total.calls += 1;
      total.ns += whole_ns - call.inner_ns;
    }
  };
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

// One Relax VM of the library with its inputs and last result: the executable's own, and
// one per offline context. A VM holds its own registers and pooled allocator, so VMs of one
// library run at once on several threads; TVM's thread pool is the calling thread's own.
class VmRunner final : public RunContext {
 public:
  VmRunner(const ffi::Module& library, const std::string& path, const Graph& graph)
      : vm_(LoadVm(library, path)), outputs_spec_(graph.outputs) {
    const DLDevice cpu{kDLCPU, 0};
    InitVm(vm_);
    main_ = vm_->GetFunction("main").value();
    for (const auto& spec : graph.inputs) {
      inputs_.push_back(ffi::Tensor::FromNDAlloc(AlignedHostAlloc(), ffi::Shape(spec.shape),
                                                 DLDataType{kDLFloat, 32, 1}, cpu));
    }
    for (const auto& t : inputs_) args_.emplace_back(t);
  }
  VmRunner(const VmRunner&) = delete;
  VmRunner& operator=(const VmRunner&) = delete;

  void SetInputs(const std::vector<HostTensor>& inputs) override {
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const HostTensor& in = inputs.at(i);
      if (static_cast<int64_t>(in.data.size()) != inputs_[i].numel()) {
        throw InputError("tvm: input " + std::to_string(i) + " has " +
                         std::to_string(in.data.size()) + " values, the model expects " +
                         std::to_string(inputs_[i].numel()));
      }
      std::memcpy(inputs_[i].data_ptr(), in.data.data(), in.data.size() * sizeof(float));
    }
  }

  // CPU kernels run to completion in the calling thread's parallel region: synchronous.
  void Run() override {
    result_ = ffi::Any();  // returns the previous outputs to the pool before the next call
    main_.CallPacked(args_.data(), static_cast<int32_t>(args_.size()), &result_);
  }

  std::vector<HostTensor> GetOutputs() override {
    std::vector<ffi::Tensor> tensors;
    if (auto single = result_.try_cast<ffi::Tensor>()) {
      tensors.push_back(*single);
    } else if (auto tuple = result_.try_cast<ffi::Array<ffi::Tensor>>()) {
      tensors.assign(tuple->begin(), tuple->end());
    } else {
      throw CompileError("tvm: main() returned " + result_.GetTypeKey() + ", not tensors");
    }
    if (tensors.size() != outputs_spec_.size()) {
      throw CompileError("tvm: main() returned " + std::to_string(tensors.size()) +
                         " outputs, the model has " + std::to_string(outputs_spec_.size()));
    }
    std::vector<HostTensor> out;
    for (size_t i = 0; i < tensors.size(); ++i) {
      HostTensor h{outputs_spec_[i].shape,
                   std::vector<float>(static_cast<size_t>(NumElements(outputs_spec_[i].shape)))};
      const Shape got(tensors[i].shape().begin(), tensors[i].shape().end());
      if (got != h.shape) {
        throw CompileError("tvm: output " + outputs_spec_[i].name + " has shape " +
                           ShapeToString(got) + ", expected " + ShapeToString(h.shape));
      }
      const DLDataType dtype = tensors[i].dtype();
      if (tensors[i].device().device_type != kDLCPU || !tensors[i].IsContiguous() ||
          dtype.code != kDLFloat || dtype.bits != 32) {
        throw CompileError("tvm: output " + outputs_spec_[i].name +
                           " is not a contiguous float32 host tensor");
      }
      std::memcpy(h.data.data(), tensors[i].data_ptr(), h.data.size() * sizeof(float));
      out.push_back(std::move(h));
    }
    return out;
  }

  const std::vector<ffi::AnyView>& args() const { return args_; }

  static ffi::Module LoadVm(const ffi::Module& library, const std::string& path) {
    auto load = library->GetFunction("vm_load_executable");
    if (!load) throw CompileError("tvm: " + path + " holds no Relax VM executable");
    return (*load)().cast<ffi::Module>();
  }

  // One device; the pooled allocator recycles the VM's intermediate and output buffers, so a
  // run after the first allocates no fresh memory.
  static void InitVm(const ffi::Module& vm) {
    vm->GetFunction("vm_initialization")
        .value()(static_cast<int>(kDLCPU), /*device_id=*/0, kPooledAllocator);
  }

 private:
  ffi::Module vm_;
  ffi::Function main_{nullptr};
  std::vector<ffi::Tensor> inputs_;
  std::vector<ffi::AnyView> args_;  // views of inputs_, built once
  ffi::Any result_;
  std::vector<TensorSpec> outputs_spec_;
};

class TvmExecutable : public Executable {
 public:
  TvmExecutable(const fs::path& library, const Graph& graph,
                std::map<std::string, std::string> settings)
      : library_(ffi::Module::LoadFromFile(library.string())),
        path_(library.string()),
        graph_(graph),
        runner_(library_, path_, graph),
        settings_(std::move(settings)) {}

  void SetInputs(const std::vector<HostTensor>& inputs) override { runner_.SetInputs(inputs); }
  void Run() override { runner_.Run(); }
  std::vector<HostTensor> GetOutputs() override { return runner_.GetOutputs(); }

  // Offline: a VM of its own per stream (ServeStreams).
  std::unique_ptr<RunContext> NewContext() override {
    if (streams_ < 1) return nullptr;  // compiled for one request at a time
    try {
      return std::make_unique<VmRunner>(library_, path_, graph_);
    } catch (const ffi::Error& e) {
      throw CompileError(std::string("tvm: a VM for a stream: ") + e.what());
    }
  }
  int64_t Streams() const override { return streams_ > 0 ? streams_ : 1; }
  // Offline: serve `streams` contexts, each with the threads the pool was started with (its
  // "threads"), now "threads_per_stream".
  void ServeStreams(int64_t streams) {
    streams_ = streams;
    settings_["streams"] = std::to_string(streams);
    settings_["threads_per_stream"] = settings_.at("threads");
    settings_["threads"] = std::to_string(streams * std::stoll(settings_.at("threads")));
  }

  // A second VM of the same library runs the profile, so that the timed VM never carries the
  // instrument hook (which the VM cannot drop once set).
  std::optional<KernelProfile> Profile(int runs) override {
    if (runs < 1) throw CompileError("tvm: cannot profile " + std::to_string(runs) + " runs");
    CallTimer timer;
    try {
      ffi::Module vm = VmRunner::LoadVm(library_, "the loaded library");
      VmRunner::InitVm(vm);
      ffi::Function vm_main = vm->GetFunction("main").value();
      ffi::Any result;
      const auto run = [&] {
        result = ffi::Any();
        vm_main.CallPacked(runner_.args().data(), static_cast<int32_t>(runner_.args().size()),
                           &result);
      };
      for (int i = 0; i < kProfileWarmupRuns; ++i) run();
      vm->GetFunction("set_instrument").value()(timer.Hook());
      for (int i = 0; i < runs; ++i) run();
    } catch (const ffi::Error& e) {
      throw CompileError(std::string("tvm: profiling: ") + e.what());
    }

    KernelProfile profile;
    profile.profiler = "tvm relax vm instrument (set_instrument), host clock per call";
    profile.runs = runs;
    std::string bookkeeping;  // "name 4x 0.002 ms, ...", per run
    for (const auto& [name, total] : timer.totals()) {
      if (IsVmBookkeeping(name)) {
        std::ostringstream entry;
        entry << name << " " << static_cast<double>(total.calls) / runs << "x "
              << total.ns / 1e6 / runs << " ms";
        bookkeeping += (bookkeeping.empty() ? "" : ", ") + entry.str();
        continue;
      }
      ProfiledKernel kernel;
      kernel.name = name;
      kernel.sdk_type = FunctionType(name);
      kernel.calls = total.calls;
      kernel.time_ms = total.ns / 1e6;
      kernel.device = "cpu";
      profile.kernels.push_back(std::move(kernel));
    }
    profile.notes = {
        "graph nodes unknown: TVM's Relax ONNX frontend keeps no ONNX node names (no spans), and "
        "FuseOps/FuseTIR name a fused function after its Relax operators",
        "TVM 0.27 has no VM profiler; each VM call is timed around the call through the VM's "
        "instrument hook; the interpreter's time between calls is in no kernel",
    };
    if (!bookkeeping.empty()) {
      profile.notes.push_back("VM builtins, not kernels (allocation, checks, views), per run: " +
                              bookkeeping);
    }
    return profile;
  }

  std::map<std::string, std::string> EffectiveSettings() const override { return settings_; }

  // Tuning asked for but failed, or functions left as TVM's plain loops.
  std::vector<std::string> Degraded() const override {
    std::vector<std::string> degraded;
    const std::string tuning = settings_.at("tuning");
    if (tuning.rfind("failed:", 0) == 0) degraded.push_back("tvm tuning=" + tuning);
    const std::string schedule = settings_.at("schedule");
    if (schedule != "default") degraded.push_back("tvm schedule=" + schedule);
    // Precision int8 (fp32 rows have no such setting): any contraction in float, or none in
    // integers, is no int8 measurement.
    if (const auto it = settings_.find("int8_kernels"); it != settings_.end()) {
      const int64_t integer = std::stoll(it->second);
      const int64_t floating = std::stoll(settings_.at("float_kernels"));
      if (floating > 0 || integer == 0) {
        degraded.push_back("tvm: quantized model ran float kernels: " + std::to_string(floating) +
                           " of " + std::to_string(integer + floating) +
                           " convolutions and matrix products computed in float32 on dequantized "
                           "inputs, " + std::to_string(integer) + " in int8");
      }
    }
    return degraded;
  }

 private:
  // Profile()'s runs before the counted ones, on its fresh VM.
  static constexpr int kProfileWarmupRuns = 2;

  ffi::Module library_;
  std::string path_;
  Graph graph_;  // its inputs and outputs, for the contexts' VMs
  VmRunner runner_;
  std::map<std::string, std::string> settings_;
  int64_t streams_ = 0;  // offline: the streams served; 0: single stream
};

class TvmCompiler : public Compiler {
 public:
  std::string Version() const override {
    TVMFFIVersion v;
    TVMFFIGetVersion(&v);
    return "tvm " NGB_TVM_VERSION " (tvm-ffi " + std::to_string(v.major) + "." +
           std::to_string(v.minor) + "." + std::to_string(v.patch) + ")";
  }

  std::unique_ptr<Executable> Compile(const CompileRequest& request) override {
    const CompilerConfig& config = request.config;
    if (config.device != "cpu") {
      throw CompileError("tvm: device '" + config.device + "' is not supported; use cpu");
    }
    const bool int8 = config.precision == "int8";
    if (config.precision != "fp32" && !int8) {
      throw CompileError("tvm: precision '" + config.precision +
                         "' is not supported; use fp32 or int8");
    }
    if (request.onnx.empty() && request.onnx_path.empty()) {
      throw CompileError("tvm: needs the model as ONNX bytes or an ONNX file");
    }
    std::optional<QuantizeTool> tool;
    if (int8) {
#ifdef NGB_TVM_INT8
      tool = ort::QdqTool(ort::LibraryVersion("tvm"), ort::QdqActivations::kUint8Asymmetric);
#else
      throw CompileError("tvm: precision int8 compiles the QDQ model of ONNX Runtime's "
                         "quantizer, and this build found no ONNX Runtime (run ./setup.sh)");
#endif
    }
    // The model TVM compiles: the QDQ model at int8.
    const ModelToCompile compiled(request, tool, scratch_, "quantized.onnx");
    const CompileRequest& model = compiled.request();

    // TVM's thread pool reads TVM_NUM_THREADS when it starts, i.e. at the first parallel kernel
    // or NumThreads() below; without it TVM would use half the cores. The compile script
    // inherits it, so that tuning measures candidates with the same pool.
    // Offline: TVM's pool is the calling thread's own, so each stream gets one of threads /
    // streams (auto: one stream per thread, TVM having no choice of its own).
    const int all_threads = config.threads > 0 ? config.threads : AvailableCores();
    const int64_t streams = !request.offline       ? 0
                            : request.streams > 0  ? request.streams
                                                   : all_threads;
    const int threads =
        streams > 0 ? static_cast<int>(std::max<int64_t>(1, all_threads / streams)) : all_threads;
    ::setenv("TVM_NUM_THREADS", std::to_string(threads).c_str(), 1);
    // TVM binds its pool's threads to the first online CPUs whatever the process's mask; under
    // the worker's `affinity` pinning they must stay inside the mask, so TVM does not bind them.
    // Nor with several streams, whose pools would all be bound to the same first CPUs.
    if (config.affinity != "none" || streams > 0) ::setenv("TVM_BIND_THREADS", "0", 1);

    const std::string target = config.options.String("target");
    // --quick skips auto-tuning (CompileRequest::quick), as docs/compilers.md promises.
    const int64_t configured_trials = config.options.Int("tuning_trials");
    const int64_t trials = request.quick ? 0 : configured_trials;
    const int64_t patience = trials > 0 ? config.options.Int("tuning_patience") : 0;
    const std::string timeout = std::to_string(config.options.Int("tuning_timeout_s"));
    // The search's own time (0: three quarters of the timeout): a search cut there keeps what it
    // found, where the timeout falls back to the untuned build.
    const int64_t search_s = trials > 0 ? config.options.Int("tuning_search_s") : 0;
    const std::string script_path = EnvOr("NGRAPHBENCH_TVM_COMPILE_SCRIPT", NGB_TVM_SCRIPT);
    const std::string script = ReadFile(script_path, kMaxConfigBytes);
    if (script.empty()) {
      throw CompileError("tvm: cannot read the compile script " + script_path +
                         " (set NGRAPHBENCH_TVM_COMPILE_SCRIPT)");
    }

    Fnv128 setting_key;
    setting_key.Add("ngraphbench-tvm-v1").Add(NGB_TVM_VERSION).Add(target);
    if (target == "host") setting_key.Add(HostCpuIdentity());
    Fnv128 tuning_key = setting_key;
    // Tuning measures candidates on the thread pool: its records depend on the thread count.
    tuning_key.Add(std::to_string(trials)).Add(std::to_string(threads));
    // Early stopping decides which records a task keeps; 0 keeps the keys of before.
    if (patience > 0) tuning_key.Add("patience=" + std::to_string(patience));
    Fnv128 entry_key = setting_key;
    AddOnnxModel(entry_key, model.onnx_path, model.onnx, "tvm");
    if (int8) entry_key.Add("precision=int8");
    entry_key.Add(script);
    // The modules the script imports from its folder (tvm_*.py, e.g. the default schedules
    // in tvm_schedules.py), by name and content in name order: a changed schedule is a new build.
    for (const fs::path& module : CompileModules(script_path)) {
      entry_key.Add(module.filename().string()).AddFile(module, "tvm");
    }
    entry_key.Add(std::to_string(trials));
    if (trials > 0) entry_key.Add(std::to_string(threads));
    if (patience > 0) entry_key.Add("patience=" + std::to_string(patience));
    if (search_s > 0) entry_key.Add("search_s=" + std::to_string(search_s));

    const bool cached = !request.cache_dir.empty();
    const fs::path root = cached ? fs::path(request.cache_dir) / "tvm"
                                 : fs::temp_directory_path() / ("ngraphbench-tvm-" +
                                                                std::to_string(::getpid()));
    const fs::path entry = root / entry_key.Hex();
    const fs::path meta_path = entry / "meta.json";
    // A build whose tuning failed is not reused: the next run tries tuning again.
    const auto usable = [](const fs::path& e) {
      if (!fs::exists(e / "meta.json") || !fs::exists(e / "model.so")) return false;
      const nlohmann::json m =
          nlohmann::json::parse(ReadFile(e / "meta.json", kMaxConfigBytes), nullptr,
                                /*allow_exceptions=*/false);
      return m.is_object() && m.value("tuning", "").rfind("failed:", 0) != 0;
    };
    const bool hit = cached && usable(entry);
    if (!hit) {
      // Written beside the entry and renamed into place: an interrupted compile leaves no
      // partial entry (compile_helper.h).
      CacheEntryBuild build(entry);
      {
        // A model given by path is compiled from there: its external data lies beside it.
        const ScriptOnnxFile onnx(model.onnx_path, model.onnx, build.dir());
        const std::vector<std::string> argv = {
            EnvOr("NGRAPHBENCH_TVM_PYTHON", NGB_TVM_PYTHON),
            script_path,
            "--onnx", onnx.path().string(),
            "--out-dir", build.dir().string(),
            "--target", target,
            "--trials", std::to_string(trials),
            "--patience", std::to_string(patience),
            "--tuning-timeout-s", timeout,
            "--search-s", std::to_string(search_s),
            "--threads", std::to_string(threads),
            // Where the python runs on another architecture (an aarch64 worker emulated on
            // x86-64), target host is this one's, cross compiled.
            "--machine", HostArch(),
            "--tuning-db", (root / "tuning" / tuning_key.Hex()).string(),
            "--precision", config.precision};
        RunCompileScript(argv, build.dir(), build.dir() / "meta.json", cached ? fs::path() : root,
                         "tvm", "set NGRAPHBENCH_TVM_PYTHON to a python with apache-tvm");
      }
      build.Commit(usable);
    }
    const nlohmann::json meta =
        nlohmann::json::parse(ReadFile(meta_path, kMaxConfigBytes), nullptr,
                              /*allow_exceptions=*/false);
    if (!meta.is_object()) throw CompileError("tvm: unreadable " + meta_path.string());
    // A target of another architecture (cross compiled, as for a worker emulated on this one).
    const std::string machine = meta.value("machine", "");
    if (!machine.empty() && machine != HostArch()) {
      throw CompileError("tvm: target '" + target + "' built a library for " + machine +
                         ", which this " + HostArch() +
                         " machine cannot load: give target host or a target of this CPU");
    }

    std::map<std::string, std::string> settings = {
        {"cache_hit", Bool(hit)},
        {"tuned", Bool(meta.value("tuned", false))},
        {"trials", std::to_string(meta.value("trials", 0))},
        {"trials_requested", std::to_string(configured_trials)},
        {"tuning", request.quick && configured_trials > 0 ? "skipped:quick"
                                                          : meta.value("tuning", "none")},
        // On a hit, what the original compile spent: the row's compile_s is the load time.
        {"tuning_s", std::to_string(meta.value("tuning_s", 0.0))},
        {"codegen_s", std::to_string(meta.value("build_s", 0.0))},
        // "default": functions without a tuning record got tvm_schedules.py's default CPU
        // schedule; "default:N_unscheduled" or "loops:<why>" where TVM's plain loops remain.
        {"schedule", meta.value("schedule", "unknown")},
        {"target", meta.value("target", target)},
        {"cache_key", entry_key.Hex()}};
    if (meta.contains("tasks")) {
      settings["tasks"] = std::to_string(meta.value("tasks", 0));
      settings["tasks_tuned"] = std::to_string(meta.value("tasks_tuned", 0));
      settings["tasks_stopped_early"] = std::to_string(meta.value("tasks_stopped_early", 0));
      // Tuned tasks whose default schedule measured faster than the search's best, and kept it.
      settings["tasks_default_kept"] = std::to_string(meta.value("tasks_default_kept", 0));
      // The search reached its own time (tuning_search_s) and stopped these tasks there; what it
      // had found was chosen from and kept, as for a search that used its budget.
      settings["search_cut"] = Bool(meta.value("search_cut", false));
      settings["tasks_cut"] = std::to_string(meta.value("tasks_cut", 0));
    }
    if (meta.contains("kept")) {
      // The tuned and the untuned library timed side by side after tuning; `kept` is the faster,
      // the one this row measures (`tuned` says whether that is the tuned one).
      settings["kept"] = meta.value("kept", "");
      settings["tuned_ms"] = std::to_string(meta.value("tuned_ms", 0.0));
      settings["untuned_ms"] = std::to_string(meta.value("untuned_ms", 0.0));
    }
    if (patience > 0) settings["patience"] = std::to_string(patience);
    if (const QuantizedModel* quantized = compiled.quantized()) {
#ifdef NGB_TVM_INT8
      for (const auto& [k, v] : ort::QdqSettings(*quantized)) settings[k] = v;
#endif
      // What the compiled functions compute in (tvm_kernels.py).
      if (!meta.contains("int8_kernels") || !meta.contains("float_kernels")) {
        throw CompileError("tvm: " + meta_path.string() + " does not count the int8 build's "
                           "kernels (int8_kernels, float_kernels)");
      }
      settings["int8_kernels"] = std::to_string(meta.value("int8_kernels", 0));
      settings["float_kernels"] = std::to_string(meta.value("float_kernels", 0));
      settings["int8_io_functions"] = std::to_string(meta.value("int8_io_functions", 0));
    }

    std::unique_ptr<TvmExecutable> exe;
    try {
      // Read back what the runtime's pool really uses (this starts the pool).
      settings["threads"] = std::to_string(
          ffi::Function::GetGlobalRequired("runtime.NumThreads")().cast<int32_t>());
      exe = std::make_unique<TvmExecutable>(entry / "model.so", request.graph, settings);
    } catch (const ffi::Error& e) {
      throw CompileError(std::string("tvm: loading ") + (entry / "model.so").string() + ": " +
                         e.what());
    }
    if (streams > 0) exe->ServeStreams(streams);
    // Linux keeps a loaded library mapped after its file is gone; the contexts' VMs load from
    // the library already loaded.
    if (!cached) fs::remove_all(root);
    return exe;
  }

 private:
  QuantizeScratch scratch_;  // uncached quantized models, until the compiler goes
};

}  // namespace
}  // namespace ngraphbench

// The module is built with hidden visibility (tvm-ffi's inline templates stay private to it).
extern "C" __attribute__((visibility("default"))) ngraphbench::Compiler*
NgraphbenchCreateCompiler() {
  return new ngraphbench::TvmCompiler();
}
