#include "ngraphbench/compilers/registry.h"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include "ngraphbench/core/error.h"

namespace ngraphbench {

namespace {

// Why OpenVINO's throughput settings are refused rather than run: a row would carry a mode that
// its latencies do not measure.
const char* const kOneSyncRequest =
    "ngraphbench times one synchronous infer request per run, and OpenVINO's throughput mode "
    "(performance_hint THROUGHPUT, num_streams > 1) only pays off with several requests in "
    "flight, so the row would be mislabelled; use performance_hint LATENCY with num_streams 0 "
    "or 1, and OpenVINO's own benchmark_app (-hint throughput) to measure throughput mode";

}  // namespace

const std::vector<CompilerInfo>& AllCompilers() {
  static const std::vector<CompilerInfo> compilers = {
      {"null", "pipeline test only: does no work (never for result tables)", "none", false,
       {"cpu"}, {"fp32"}, {"none"},
       {{"sleep_us", OptionType::kInt, "0", {}, "busy-wait this long in every Run()"},
        {"fail_batch", OptionType::kInt, "0", {},
         "throw a CompileError when compiling batch size N (0 = never)"},
        {"crash_batch", OptionType::kInt, "0", {}, "abort() in the first Run() of batch size N"},
        {"hang_batch", OptionType::kInt, "0", {}, "sleep forever in Compile() of batch size N"},
        {"perturb_ppm", OptionType::kInt, "0", {},
         "add N millionths to every output value (to test the output check)"}},
       "always built"},
      {"onnxruntime", "software-level optimization", "ONNX Runtime C/C++ API", true,
       {"cpu", "cuda"},
       {"fp32"}, {"all", "extended", "basic", "disable"},
       {{"inter_op_threads", OptionType::kInt, "1", {},
         "threads across independent nodes (parallel execution mode only)"},
        {"execution_mode", OptionType::kString, "sequential", {"sequential", "parallel"},
         "run nodes one at a time or independent nodes in parallel"}},
       "run ./setup.sh (installs the onnxruntime wheel and headers), or configure with "
       "-DNGB_ORT_LIBRARY=<libonnxruntime.so> -DNGB_ORT_INCLUDE_DIR=<headers>"},
      {"tensorrt", "vendor-specific (NVIDIA GPU)",
       "TensorRT through ONNX Runtime's TensorRT execution provider", true, {"cuda"},
       {"fp32", "fp16"}, {"default"},
       {{"workspace_mb", OptionType::kInt, "4096", {},
         "TensorRT builder workspace (trt_max_workspace_size), MiB", {}, "", 1},
        {"builder_optimization_level", OptionType::kInt, "3", {},
         "TensorRT builder optimization level 0-5 (higher: longer builds, maybe faster engines)",
         {}, "", 0, 5},
        {"engine_cache", OptionType::kBool, "true", {},
         "cache engines in results/.cache/tensorrt/ (compile_s then measures a cache load)"}},
       "run ./setup.sh --gpu on a machine with an NVIDIA GPU (installs onnxruntime-gpu and "
       "TensorRT's libraries); the module is built with onnxruntime"},
      {"identity", "PyTorch dynamic graph, the baseline", "LibTorch (eager ATen calls)", false,
       {"cpu", "cuda"}, {"fp32", "bf16", "fp16"}, {"none"}, {},
       "run ./setup.sh (scripts/setup/identity.sh installs torch==2.13.0 into .venv), or "
       "configure with -DTorch_DIR=$(python -c 'import torch; "
       "print(torch.utils.cmake_prefix_path)')/Torch"},
      {"torchscript", "software-level optimization",
       "LibTorch JIT: trace, freeze, optimize_for_inference", false, {"cpu", "cuda"},
       {"fp32", "bf16", "fp16"}, {"default"},
       {{"freeze", OptionType::kBool, "true", {},
         "torch::jit::freeze: weights become constants; folds Conv+BatchNorm and similar"},
        {"optimize_for_inference", OptionType::kBool, "true", {},
         "torch::jit::optimize_for_inference (freezes first when freeze is false)"}},
       "run ./setup.sh (scripts/setup/torchscript.sh installs torch==2.13.0 into .venv), or "
       "configure with -DTorch_DIR=$(python -c 'import torch; "
       "print(torch.utils.cmake_prefix_path)')/Torch"},
      {"openvino", "vendor-specific (Intel CPU)", "OpenVINO C++ API", true, {"cpu", "gpu", "auto"},
       {"fp32", "bf16", "fp16"}, {"default"},
       {{"performance_hint", OptionType::kString, "LATENCY", {"LATENCY"},
         "ov::hint::performance_mode (LATENCY: one stream)", {"THROUGHPUT"}, kOneSyncRequest},
        {"num_streams", OptionType::kInt, "0", {},
         "ov::num_streams; 0 = as performance_hint decides (one stream for LATENCY)", {},
         kOneSyncRequest, 0, 1},
        {"cache_dir", OptionType::kString, "", {},
         "ov::cache_dir for compiled-model blobs (compile_s then measures a cache load); "
         "empty = no cache"}},
       "run ./setup.sh (scripts/setup/openvino.sh installs the openvino wheel), or configure "
       "with -DOpenVINO_DIR=$(python -c 'from openvino.utils import get_cmake_path; "
       "print(get_cmake_path())')"},
      {"tvm", "vendor-agnostic, with auto-tuning", "Apache TVM (Relax) + MetaSchedule", true,
       {"cpu"}, {"fp32"}, {"default"},
       {{"target", OptionType::kString, "host", {},
         "TVM target: host (LLVM's detection of this CPU), a kind (llvm) or a JSON target"},
        {"tuning_trials", OptionType::kInt, "0", {},
         "MetaSchedule trials per model; 0 = untuned (--quick never tunes)"},
        {"tuning_timeout_s", OptionType::kInt, "480", {},
         "tuning budget in seconds; over it the untuned build is used (tuning=failed:...)"}},
       "run ./setup.sh (scripts/setup/tvm.sh installs apache-tvm and apache-tvm-ffi into "
       ".venv), or configure with -DNGB_TVM_PYTHON=<python with those wheels>"},
      // `inductor` (compilers/inductor/): PyTorch 2's TorchInductor ahead of time. The model
      // comes as ONNX (converted to a torch.nn.Module by onnx2torch in the compile script).
      {"inductor", "PyTorch 2 compiler (TorchInductor, ahead of time)",
       "torch.export + AOTInductor (onnx2torch from ONNX), run by LibTorch's "
       "AOTIModelPackageLoader", true, {"cpu"}, {"fp32"}, {"default"},
       {{"max_autotune", OptionType::kBool, "false", {},
         "Inductor max_autotune: benchmark GEMM/conv kernel templates while compiling "
         "(--quick never does)"},
        {"freezing", OptionType::kBool, "true", {},
         "Inductor freezing: weights become constants (constant folding, weight prepacking); "
         "what PyTorch recommends for CPU inference"}},
       "run ./setup.sh (scripts/setup/inductor.sh installs torch==2.13.0 and onnx2torch into "
       ".venv), or configure with -DTorch_DIR=<the wheel's Torch cmake dir> and "
       "-DNGB_INDUCTOR_PYTHON=<its python>"},
  };
  return compilers;
}

const CompilerInfo& FindCompiler(const std::string& name) {
  std::string known;
  for (const auto& info : AllCompilers()) {
    if (info.name == name) return info;
    known += (known.empty() ? "" : ", ") + info.name;
  }
  throw InputError("unknown compiler '" + name + "'; known compilers: " + known);
}

std::string ModulePath(const std::string& name) {
  std::string dir;
  if (const char* env = std::getenv("NGRAPHBENCH_MODULE_DIR"); env && *env) {
    dir = env;
  } else {
    char exe[PATH_MAX];
    ssize_t n = ::readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
      exe[n] = '\0';
      dir = exe;
      dir = dir.substr(0, dir.rfind('/'));
    } else {
      dir = ".";
    }
  }
  return dir + "/libngraphbench_" + name + ".so";
}

bool IsBuilt(const std::string& name) { return ::access(ModulePath(name).c_str(), R_OK) == 0; }

std::unique_ptr<Compiler> LoadCompiler(const std::string& name) {
  const CompilerInfo& info = FindCompiler(name);
  const std::string path = ModulePath(name);
  if (!IsBuilt(name)) {
    throw InputError("compiler '" + name + "' is not built (no " + path + "); " +
                     info.enable_hint);
  }
  // Never unloaded: a worker loads exactly one module for its whole life.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw CompileError("cannot load " + path + ": " + ::dlerror());
  using Factory = Compiler* (*)();
  auto factory = reinterpret_cast<Factory>(::dlsym(handle, NGRAPHBENCH_COMPILER_ENTRY));
  if (!factory) {
    throw CompileError(path + " does not export " NGRAPHBENCH_COMPILER_ENTRY);
  }
  return std::unique_ptr<Compiler>(factory());
}

}  // namespace ngraphbench
