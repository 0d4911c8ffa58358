// What the LibTorch modules (identity, torchscript, inductor) share for Executable::Profile:
// running an inference under LibTorch's profiler (Kineto, the engine behind torch.profiler) and
// reducing its events to the operators at the top of the call stack, summed over the runs.
//
// The profiler records one event per RecordFunction: every ATen operator called through the
// dispatcher, every RECORD_USER_SCOPE, every RECORD_FUNCTION a library opens (AOTInductor's
// generated kernels when compiled with kernel profiling). An operator that calls others is
// recorded with them nested inside (aten::conv2d > aten::convolution > aten::_convolution >
// aten::mkldnn_convolution), so summing every event would count the same time several times.
// Only the outermost events of the thread that runs the inference are counted here: their times
// add up to the time it spent inside recorded operators, once. The events directly inside each
// one are kept by name, to say what it ran.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ngraphbench/compilers/compiler.h"

namespace ngraphbench::torch_common {

// One outermost event name of the profiled runs, summed over them.
struct TopLevelOp {
  std::string name;                // the RecordFunction's name: "aten::conv2d", a scope's name
  bool user_scope = false;         // opened with RECORD_USER_SCOPE (at::RecordScope::USER_SCOPE)
  std::vector<std::string> inner;  // the distinct events directly inside it, first seen first
  int64_t calls = 0;               // over all profiled runs
  // Over all profiled runs: its host time on the CPU; on a CUDA device, the time of the GPU
  // kernels, copies and memsets launched inside it (a view launches none and has 0).
  int64_t time_ns = 0;
};

struct OpProfile {
  int runs = 0;
  std::vector<TopLevelOp> ops;  // in the order first seen
  // The profiled runs' own wall time (steady_clock around each), against which the ops' host
  // time says how much of a run the profiler saw.
  int64_t wall_ns = 0;
  // Device events that no recorded operator launched, each as its own op (name: the kernel's).
  bool device_events_unlinked = false;
  // Operators recorded on threads other than the caller's, which are not counted: LibTorch
  // starts them inside one of the caller's operators (intra-op parallelism), whose time has
  // them already.
  int64_t other_thread_events = 0;
};

// Runs `run` (one synchronized inference) twice without the profiler, so that lazily built
// state (allocator caches, oneDNN primitives) is not profiled, then `runs` times under it, on
// the calling thread, and returns the calling thread's outermost operators. RecordFunction
// scopes other than operators and user scopes are not recorded: TorchScript's whole-method
// `forward` event would otherwise be the only outermost one. Throws CompileError naming
// `compiler` when `runs` < 1, the profiler cannot start (another one is running), or a run fails
// with a LibTorch error.
OpProfile ProfileOps(const std::function<void()>& run, int runs, c10::Device device,
                     const std::string& compiler);

// `profile` as Executable::Profile returns it, `kernels[i]` from `profile.ops[i]`: one kernel
// per outermost event name, on `device`. A user scope's sdk_type is the events directly inside
// it ("aten::conv2d", "aten::add+aten::mul" for one that ran two); any other event is an
// operator or kernel of its own, and its sdk_type is its name. `nodes` is left empty and
// nodes_known false: whether an event is a graph node is the caller's to say. The notes say
// what every LibTorch profile leaves out: how much of the runs' wall time the outermost events
// cover (the rest is outside recorded operators: the runtime's own work between them, operators
// that bypass LibTorch's dispatcher), and the profiler's own cost.
KernelProfile ToKernelProfile(const OpProfile& profile, c10::Device device);

}  // namespace ngraphbench::torch_common
