// The `inductor` compiler: PyTorch 2's TorchInductor, ahead of time (AOTInductor).
//
// Compilation needs torch's Python stack, so it runs inductor_compile.py (in this folder) as a
// subprocess. The model reaches torch.export by one of two routes (option `route`):
//   onnx2torch   ONNX -> torch.nn.Module (onnx2torch) -> torch.export (static shapes);
//   torchscript  the model IR traced here as the `torchscript` compiler traces it (identity's ATen
//                calls, torch_common/torchscript_trace.h) -> PyTorch's TorchScript-to-
//                ExportedProgram converter: whatever identity runs, this route can export;
// then torch._inductor.aoti_compile_and_package writes a .pt2 package holding a shared library
// of Inductor's C++/OpenMP kernels and the weights. A model given as PyTorch code is exported
// from its own code (torch.export), whatever the route. The timed part runs here, with no Python in the
// worker: the package is loaded with torch::inductor::AOTIModelPackageLoader and Run() is one
// loader.run() under c10::InferenceMode (torch_common::TorchExecutable).
//
// Packages are cached under <cache_dir>/inductor/<key>/model.pt2 where the key hashes everything
// the package depends on: the ONNX bytes (and external data files) or the torch.export program
// of a model given as PyTorch code, the torch version, this CPU's model and flags (Inductor
// generates code for the host's vector ISA), for device cuda the GPU models, the thread count
// (baked into the kernels' `omp parallel num_threads(N)`), the Inductor settings and the compile
// script itself. A rerun then costs a package load instead of a compile.
//
// Precision int8 (device cpu, freezing on): the compile script quantizes the exported program by
// PyTorch's PT2E flow with the x86 Inductor quantizer, calibrated on the calibration set of
// core/tensor.h (the batches written here as tensor files for it), before AOTInductor packages
// it; the package's entry is keyed by the precision and the calibration set too. A model the
// quantizer annotates nothing of fails the compile (never fp32 under the name int8), and a
// package that calls no oneDNN integer kernel is Degraded().
//
// Profile() runs a second package of the same model and settings, compiled with Inductor's
// cpp.enable_kernel_profile (its own cache entry): its generated kernels are not ATen operators,
// and only such a package wraps each of them, and each extern call, in a RecordFunction that
// LibTorch's profiler sees. The timed package stays free of them.
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <c10/util/Exception.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/version.h>

#include <algorithm>
#include <cerrno>
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
#include <string>
#include <utility>
#include <vector>

#include "ngraphbench/compilers/compile_helper.h"
#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/compilers/torch_common/torch_runtime.h"
#include "ngraphbench/compilers/torch_common/torchscript_trace.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/tensor.h"
#include "ngraphbench/compilers/quantize_common/quantize_common.h"  // WriteCalibrationSet

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

std::string Bool(bool b) { return b ? "true" : "false"; }

// The NVIDIA GPUs' models as the driver lists them (/proc/driver/nvidia/gpus/*/information,
// which needs no CUDA library), or "" where there is none.
std::string GpuIdentity() {
  std::vector<std::string> models;
  std::error_code ec;
  for (fs::directory_iterator it("/proc/driver/nvidia/gpus", ec), end; !ec && it != end;
       it.increment(ec)) {
    std::istringstream in(ReadFile(it->path() / "information", kMaxConfigBytes));
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("Model:", 0) == 0) models.push_back(line);
    }
  }
  std::sort(models.begin(), models.end());
  std::string out;
  for (const auto& m : models) out += m + "\n";
  return out;
}

std::string Seconds(const nlohmann::json& meta, const char* key) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", meta.value(key, 0.0));
  return buf;
}


// Compiles a model into a package with inductor_compile.py, or finds it in the cache. Compile()
// builds the package it times; the executable keeps this to build the profiling package.
class PackageBuilder {
 public:
  struct Entry {
    fs::path package, meta;  // model.pt2 and meta.json of the cache entry
    bool hit = false;        // found in the cache
    std::string key;
  };

  // Hashes the model and the settings into the cache key. Build() reads the model again only for
  // a package that is not cached: from `request.onnx` (kept by address, not copied: a copy would
  // add the model's size to every run's memory), `request.onnx_path` or
  // `request.torch_program`, which must still be there then, as the worker keeps them while the
  // executable lives.
  PackageBuilder(const CompileRequest& request, const torch_common::TorchSettings& settings,
                 int threads, bool max_autotune, bool freezing, std::string route)
      : int8_(request.config.precision == "int8"),
        from_program_(!request.torch_program.empty()),
        route_(from_program_ ? "torch.export" : std::move(route)),
        graph_(request.graph),
        torch_settings_(settings),
        torch_program_(request.torch_program),
        onnx_path_(request.onnx_path),
        onnx_(&request.onnx),
        device_(request.config.device),
        threads_(threads),
        max_autotune_(max_autotune),
        freezing_(freezing),
        script_path_(EnvOr("NGRAPHBENCH_INDUCTOR_COMPILE_SCRIPT", NGB_INDUCTOR_SCRIPT)),
        cached_(!request.cache_dir.empty()),
        root_(cached_ ? fs::path(request.cache_dir) / "inductor"
                      : fs::temp_directory_path() /
                            ("ngraphbench-inductor-" + std::to_string(::getpid()))) {
    const std::string script = ReadFile(script_path_, kMaxConfigBytes);
    if (script.empty()) {
      throw CompileError("inductor: cannot read the compile script " + script_path_ +
                         " (set NGRAPHBENCH_INDUCTOR_COMPILE_SCRIPT)");
    }
    key_.Add("ngraphbench-inductor-v1").Add(TORCH_VERSION).Add(HostCpuIdentity());
    if (device_ != "cpu") {
      // Device code is generated for the GPU's architecture (Triton kernels): a package is
      // reused on the same GPU model only.
      key_.Add(device_).Add(GpuIdentity());
    }
    if (from_program_) {
      key_.Add("program").AddFile(torch_program_, "inductor");
    } else {
      // The IR the torchscript route traces is the model the ONNX bytes hold.
      AddOnnxModel(key_, onnx_path_, *onnx_, "inductor");
      // onnx2torch's entries keep the keys they had before there were routes.
      if (route_ != "onnx2torch") key_.Add("route=" + route_);
    }
    key_.Add(script).Add(std::to_string(threads_)).Add(Bool(max_autotune_)).Add(Bool(freezing_));
    if (int8_) {
      // The calibration set: its batch count and shapes (its values follow from its seeds).
      key_.Add("precision=int8").Add("calibration=" + std::to_string(kCalibrationBatches));
      for (const TensorSpec& in : graph_.inputs) key_.Add(in.name).Add(ShapeToString(in.shape));
    }
  }

  // The package, compiled now unless cached. With `kernel_profile`, Inductor's
  // cpp.enable_kernel_profile is on (inductor_compile.py --kernel-profile), in an entry of its own.
  Entry Build(bool kernel_profile) const {
    Fnv128 key = key_;
    if (kernel_profile) key.Add("cpp.enable_kernel_profile");
    const fs::path entry = root_ / key.Hex();
    Entry out{entry / "model.pt2", entry / "meta.json", false, key.Hex()};
    const auto usable = [](const fs::path& e) {
      return fs::exists(e / "meta.json") && fs::exists(e / "model.pt2");
    };
    out.hit = cached_ && usable(entry);
    if (out.hit) return out;
    const std::string& model = from_program_ ? torch_program_ : onnx_path_;
    if (route_ != "torchscript" && !model.empty() && !fs::exists(model)) {
      throw CompileError("inductor: the model to compile, " + model + ", is gone");
    }
    // Written beside the entry and renamed into place: an interrupted compile leaves no
    // partial entry (compile_helper.h).
    CacheEntryBuild build(entry);
    {
      std::vector<std::string> argv = {
          EnvOr("NGRAPHBENCH_INDUCTOR_PYTHON", NGB_INDUCTOR_PYTHON), script_path_,
          "--out-dir", build.dir().string(), "--threads", std::to_string(threads_)};
      std::optional<ScriptOnnxFile> onnx;
      if (from_program_) {
        argv.insert(argv.end(), {"--program", torch_program_});
      } else if (route_ == "torchscript") {
        const fs::path traced = build.dir() / "model.ts";
        try {
          torch_common::TraceToTorchScript(graph_, torch_settings_).save(traced.string());
        } catch (const c10::Error& e) {
          throw CompileError("inductor: tracing the model for the torchscript route failed: " +
                             std::string(e.what_without_backtrace()));
        }
        argv.insert(argv.end(), {"--torchscript", traced.string()});
        for (const auto& spec : graph_.inputs) {
          std::string dims;
          for (int64_t d : spec.shape) dims += (dims.empty() ? "" : ",") + std::to_string(d);
          argv.insert(argv.end(), {"--input-shape", dims});
        }
      } else {
        onnx.emplace(onnx_path_, *onnx_, build.dir());
        argv.insert(argv.end(), {"--onnx", onnx->path().string()});
      }
      if (device_ != "cpu") argv.insert(argv.end(), {"--device", device_});
      if (max_autotune_) argv.push_back("--max-autotune");
      if (freezing_) argv.push_back("--freezing");
      if (kernel_profile) argv.push_back("--kernel-profile");
      std::vector<fs::path> calibration;
      if (int8_) {
        calibration = WriteCalibrationSet(graph_.inputs, build.dir(), "inductor");
        argv.push_back("--calibration");
        for (const fs::path& file : calibration) argv.push_back(file.string());
      }
      RunCompileScript(argv, build.dir(), build.dir() / "meta.json",
                       cached_ ? fs::path() : root_, "inductor",
                       int8_ ? "set NGRAPHBENCH_INDUCTOR_PYTHON to a python with torch, "
                               "onnx2torch and torchao (the PT2E quantizers)"
                             : "set NGRAPHBENCH_INDUCTOR_PYTHON to a python with torch and "
                               "onnx2torch");
      // The calibration set is drawn again from its seeds; the entry keeps the package only.
      for (const fs::path& file : calibration) fs::remove(file);
    }
    build.Commit(usable);
    return out;
  }

  // What the package was exported from: "onnx2torch", "torchscript" or "torch.export".
  const std::string& route() const { return route_; }

  // Route auto's record that this build failed: a cache entry of its own, <key>-failed/, holding
  // the reason, so that the run's later processes take the torchscript route at once instead of
  // failing the same conversion again. RecordedFailure() is empty without a record or a cache.
  std::string RecordedFailure() const {
    return cached_ ? ReadFile(FailureEntry() / "reason.txt", kMaxLogTailBytes) : std::string();
  }
  void RecordFailure(const std::string& reason) const {
    if (!cached_) return;
    CacheEntryBuild build(FailureEntry());
    std::ofstream(build.dir() / "reason.txt") << reason;
    build.Commit([](const fs::path& e) { return fs::exists(e / "reason.txt"); });
  }

  // Without a cache, packages are compiled into a temporary folder, removed once the package
  // is loaded: the loader has extracted it to a folder of its own.
  void RemoveUncached() const {
    if (!cached_) fs::remove_all(root_);
  }

 private:
  bool int8_;
  bool from_program_;
  std::string route_;
  const Graph& graph_;  // the request's, which the worker keeps while the executable lives
  torch_common::TorchSettings torch_settings_;
  std::string torch_program_, onnx_path_;
  const std::string* onnx_;  // the request's bytes (see the constructor)
  std::string device_;
  int threads_;
  bool max_autotune_, freezing_;
  std::string script_path_;
  bool cached_;
  fs::path root_;  // where the entries are: <cache_dir>/inductor, or a temporary folder
  Fnv128 key_;     // everything but the kernel profiling

  fs::path FailureEntry() const { return root_ / (key_.Hex() + "-failed"); }
};

class InductorExecutable : public torch_common::TorchExecutable {
 public:
  InductorExecutable(const Graph& graph, const torch_common::TorchSettings& settings,
                     const fs::path& package, std::map<std::string, std::string> settings_out,
                     std::unique_ptr<PackageBuilder> builder, int64_t streams,
                     std::vector<std::string> degraded)
      : TorchExecutable(graph, settings),
        loader_(Load(package, std::max<int64_t>(1, streams))),
        builder_(std::move(builder)),
        degraded_(std::move(degraded)) {
    extra_settings_ = std::move(settings_out);
    CheckOutputs(graph);
  }

  std::vector<std::string> Degraded() const override { return degraded_; }

  // The profiling package (the top of this file) runs in the timed package's place for the
  // profiled runs. Compiling it, on a cache miss, takes as long as the first compile did.
  std::optional<KernelProfile> Profile(int runs) override {
    const PackageBuilder::Entry entry = builder_->Build(/*kernel_profile=*/true);
    std::unique_ptr<torch::inductor::AOTIModelPackageLoader> profiling = Load(entry.package, 1);
    builder_->RemoveUncached();
    std::swap(loader_, profiling);
    torch_common::OpProfile ops;
    try {
      ops = ProfileRuns(runs);
    } catch (...) {
      std::swap(loader_, profiling);
      throw;
    }
    std::swap(loader_, profiling);
    KernelProfile profile = torch_common::ToKernelProfile(ops, settings().device);
    profile.notes.push_back(
        "kernels are those of a second package compiled with Inductor's "
        "cpp.enable_kernel_profile (cache entry " + entry.key + (entry.hit ? ", cached" : "") +
        "), from the same graph and settings as the timed package: each generated kernel "
        "(cpp_fused_*, named after the operators it fuses) and each call through AOTInductor's "
        "C shim (aoti_torch_*) runs inside a RecordFunction named after it; any other kernel is "
        "an ATen operator the package called outside those");
    profile.notes.push_back(
        "Inductor fuses the model's operators into its kernels and keeps no link to the "
        "model's nodes: nodes are unknown");
    return profile;
  }

 protected:
  std::vector<at::Tensor> Forward(const std::vector<at::Tensor>& inputs) override {
    return loader_->run(inputs);
  }

  // Offline: every context calls the one loader, loaded with a runner (a model instance of
  // AOTInductor's container, with its own buffers) per stream: the container hands each
  // concurrent run a free one.
  ForwardFn NewForward() override {
    return [this](const std::vector<at::Tensor>& inputs) { return loader_->run(inputs); };
  }

 private:
  // `runners`: model instances that may run at once (AOTIModelPackageLoader's num_runners).
  static std::unique_ptr<torch::inductor::AOTIModelPackageLoader> Load(const fs::path& package,
                                                                        int64_t runners) {
    try {
      return std::make_unique<torch::inductor::AOTIModelPackageLoader>(
          package.string(), "model", /*run_single_threaded=*/false,
          static_cast<size_t>(runners));
    } catch (const c10::Error& e) {
      throw CompileError("inductor: loading " + package.string() + ": " +
                         e.what_without_backtrace());
    }
  }

  // One run on zero inputs: the package's outputs must be the graph's, in count, shape and
  // dtype (GetOutputs converts to float, which must not hide a wrong dtype). This also loads
  // every kernel before the first timed run, as the other compilers' first run would.
  void CheckOutputs(const Graph& graph) {
    std::vector<at::Tensor> zeros;
    for (const auto& spec : graph.inputs) {
      zeros.push_back(
          at::zeros(spec.shape, at::TensorOptions(settings().device).dtype(at::kFloat)));
    }
    std::vector<at::Tensor> outputs;
    try {
      c10::InferenceMode guard;
      outputs = loader_->run(zeros);
    } catch (const c10::Error& e) {
      throw CompileError(std::string("inductor: the package does not run: ") +
                         e.what_without_backtrace());
    }
    if (outputs.size() != graph.outputs.size()) {
      throw CompileError("inductor: the package returns " + std::to_string(outputs.size()) +
                         " outputs, the model has " + std::to_string(graph.outputs.size()));
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      const Shape got(outputs[i].sizes().begin(), outputs[i].sizes().end());
      if (got != graph.outputs[i].shape || outputs[i].scalar_type() != at::kFloat) {
        throw CompileError("inductor: output " + graph.outputs[i].name + " is " +
                           c10::toString(outputs[i].scalar_type()) + " " + ShapeToString(got) +
                           ", expected Float " + ShapeToString(graph.outputs[i].shape));
      }
      if (outputs[i].device() != settings().device) {
        throw CompileError("inductor: output " + graph.outputs[i].name + " is on " +
                           outputs[i].device().str() + ", expected " + settings().device.str());
      }
    }
  }

  std::unique_ptr<torch::inductor::AOTIModelPackageLoader> loader_;
  std::unique_ptr<PackageBuilder> builder_;  // for Profile()'s package
  std::vector<std::string> degraded_;
};

class InductorCompiler : public Compiler {
 public:
  std::string Version() const override {
    return std::string("torch ") + TORCH_VERSION + " inductor (AOTInductor)";
  }

  // device cuda: a CUDA build of LibTorch and a GPU, as identity and torchscript need.
  std::string Unavailable(const CompilerConfig& config) const override {
    return torch_common::Unavailable(config, "inductor");
  }

  std::unique_ptr<Executable> Compile(const CompileRequest& request) override {
    // Offline: the cores split between the streams (torch_common::OfflineStreams), each
    // stream's kernels compiled for its share of threads.
    CompilerConfig config = request.config;
    const int64_t streams = torch_common::OfflineStreams(request, config, "inductor");
    const bool int8 = config.precision == "int8";
    if (config.precision != "fp32" && !int8) {
      throw CompileError("inductor: precision '" + config.precision +
                         "' is not supported; use fp32 or int8");
    }
    if (int8 && config.device != "cpu") {
      throw CompileError("inductor: precision int8 runs on device cpu only (the x86 Inductor "
                         "quantizer's operators are lowered to oneDNN's CPU kernels); use device "
                         "cpu");
    }
    if (int8 && !config.options.Bool("freezing")) {
      throw CompileError("inductor: precision int8 needs options.freezing true (Inductor lowers "
                         "the quantized operators to oneDNN's integer kernels only when freezing)");
    }
    if (!request.torch_program_error.empty()) {
      // A model given as PyTorch code that torch.export could not export: there is no module
      // to compile (going through its ONNX export instead would compile another graph).
      throw CompileError("inductor: " + request.torch_program_error);
    }
    // A model given as PyTorch code is compiled from its own torch.export program.
    const bool from_program = !request.torch_program.empty();
    if (!from_program && request.onnx.empty() && request.onnx_path.empty()) {
      throw CompileError("inductor: needs the model as ONNX bytes or an ONNX file");
    }

    // Inductor's kernels are OpenMP loops with the thread count fixed when they are generated
    // (cpp.threads): the compile script gets it, and this process's OpenMP pool (ATen's, which
    // the package's library shares: it loads the same libgomp.so.1) is set to it.
    const int threads = config.threads > 0 ? config.threads : AvailableCores();
    ::setenv("OMP_NUM_THREADS", std::to_string(threads).c_str(), 1);
    // An int8 package takes and returns float32 tensors, as an fp32 one does: quantizing is
    // inside it.
    CompilerConfig io_config = config;
    io_config.precision = "fp32";
    const torch_common::TorchSettings torch_settings =
        torch_common::ApplyConfig(io_config, "inductor");
    at::set_num_threads(threads);

    // --quick skips the expensive optional work (CompileRequest::quick): max_autotune's
    // benchmarking of kernel templates.
    const bool autotune_requested = config.options.Bool("max_autotune");
    const bool max_autotune = autotune_requested && !request.quick;
    const bool freezing = config.options.Bool("freezing");

    const std::string route = config.options.String("route");
    auto builder = std::make_unique<PackageBuilder>(request, torch_settings, threads, max_autotune,
                                                    freezing, route == "auto" ? "onnx2torch" : route);
    // auto: where onnx2torch or torch.export cannot take the ONNX model, the IR's own route.
    const bool fall_back = route == "auto" && !from_program;
    std::string onnx2torch_failed = fall_back ? builder->RecordedFailure() : "";
    PackageBuilder::Entry entry;
    if (onnx2torch_failed.empty()) {
      try {
        entry = builder->Build(/*kernel_profile=*/false);
      } catch (const CompileError& e) {
        if (!fall_back) throw;
        onnx2torch_failed = e.what();
        builder->RecordFailure(onnx2torch_failed);
      }
    }
    if (!onnx2torch_failed.empty()) {
      builder = std::make_unique<PackageBuilder>(request, torch_settings, threads, max_autotune,
                                                 freezing, "torchscript");
      entry = builder->Build(/*kernel_profile=*/false);
    }
    const nlohmann::json meta =
        nlohmann::json::parse(ReadFile(entry.meta, kMaxConfigBytes), nullptr,
                              /*allow_exceptions=*/false);
    if (!meta.is_object()) throw CompileError("inductor: unreadable " + entry.meta.string());

    std::map<std::string, std::string> settings = {
        {"cache_hit", Bool(entry.hit)},
        // The module compiled: the PyTorch model's own (torch.export), onnx2torch's from ONNX,
        // or the IR traced to TorchScript (torchscript).
        {"module", builder->route()},
        {"route", route},
        {"max_autotune", Bool(meta.value("max_autotune", false))},
        {"max_autotune_requested", Bool(autotune_requested)},
        {"freezing", Bool(meta.value("freezing", false))},
        // The thread count compiled into the kernels; `threads` (TorchExecutable) is the pool's.
        {"compiled_threads", std::to_string(meta.value("threads", 0))},
        // On a hit, what the original compile spent: the row's compile_s is then the load time.
        {"export_s", Seconds(meta, "export_s")},
        {"inductor_s", Seconds(meta, "inductor_s")},
        // Inductor's probes of the CPU's vector ISAs, made once per cache (inductor_compile.py).
        {"vec_isa_s", Seconds(meta, "vec_isa_s")},
        {"torch_compiled_with", meta.value("torch_version", "unknown")},
        {"cache_key", entry.key}};
    std::vector<std::string> degraded;
    if (int8) {
      settings["quantization"] = meta.value("quantization", "unknown");
      settings["calibration_batches"] = std::to_string(meta.value("calibration_batches", 0));
      settings["quantize_s"] = Seconds(meta, "quantize_s");
      // Products by a constant weight made linear layers for the quantizer (the compile script).
      settings["matmuls_to_linear"] = std::to_string(meta.value("matmuls_to_linear", 0));
      // The quantize/dequantize pairs convert_pt2e inserted, and what Inductor made of them:
      // calls of oneDNN's integer kernels by name ("qconv_pointwise_tensor:3 ...").
      settings["qdq_nodes"] = std::to_string(meta.value("quantize_nodes", 0) +
                                             meta.value("dequantize_nodes", 0));
      std::string calls;
      int64_t total = 0;
      const nlohmann::json by_name = meta.value("int8_calls", nlohmann::json::object());
      for (const auto& [name, count] : by_name.items()) {
        calls += (calls.empty() ? "" : " ") + name + ":" + std::to_string(count.get<int64_t>());
        total += count.get<int64_t>();
      }
      settings["int8_kernels"] = std::to_string(total);
      if (!calls.empty()) settings["int8_kernels_by_name"] = calls;
      if (total == 0) {
        degraded.push_back("inductor: the int8 package calls no oneDNN integer kernel (qconv, "
                           "qlinear): its convolutions and matrix products run in float");
      }
    }
    if (!onnx2torch_failed.empty()) {
      // The settings are "k=v;k=v": the reason loses what would break that.
      std::string why = onnx2torch_failed.substr(0, 200);
      std::replace(why.begin(), why.end(), ';', ',');
      std::replace(why.begin(), why.end(), '=', ':');
      settings["onnx2torch_failed"] = why;
    }
    const PackageBuilder* kept = builder.get();
    auto exe = std::make_unique<InductorExecutable>(request.graph, torch_settings, entry.package,
                                                    std::move(settings), std::move(builder),
                                                    streams, std::move(degraded));
    kept->RemoveUncached();
    if (streams > 0) exe->ServeStreams(streams);
    return exe;
  }
};

}  // namespace
}  // namespace ngraphbench

extern "C" ngraphbench::Compiler* NgraphbenchCreateCompiler() {
  return new ngraphbench::InductorCompiler();
}
