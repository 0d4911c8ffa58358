// The compiler interface: what every compiler module implements.
//
// A module is a shared library `libngraphbench_<name>.so` that exports
//   extern "C" ngraphbench::Compiler* NgraphbenchCreateCompiler();
// It is loaded only inside a worker process, one module per process, so vendor SDKs never meet.
// The harness owns the clock: nothing here times itself.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/compilers/options.h"
#include "ngraphbench/core/tensor.h"
#include "ngraphbench/graph/ir.h"

namespace ngraphbench {

// Everything a compiler gets to build an executable. References stay valid during Compile();
// `graph`, `onnx` and the folder of `onnx_path` also while the executable lives, since
// Executable::Profile may compile the model again.
struct CompileRequest {
  const Graph& graph;          // the model IR, static shapes (batch size included)
  const std::string& onnx;     // the same model as ONNX ModelProto bytes (opset 17); empty when
                               // the compiler's CompilerInfo::consumes_onnx is false, or when
                               // the model comes as `onnx_path` instead
  const CompilerConfig& config;
  std::string cache_dir;       // a directory the compiler may use for caches (may be shared)
  bool quick = false;          // a --quick run: skip expensive optional work (e.g. auto-tuning)
  // Whether this compile must be cold: the run's first process, or a worker started by hand.
  // false: a later process of the run, which may load what an earlier one compiled and left in
  // `cache_dir` instead of compiling again (EffectiveSettings' "cache_hit" says which it did).
  bool cold = true;
  // Set instead of `onnx` for a model too large for one protobuf (weights over
  // kOnnxInlineLimitBytes, graph/onnx_io.h): the same model as an .onnx file whose large weights
  // are ONNX external data in files beside it, resolved relative to its folder. The folder holds
  // nothing but the model and its data files (a compiler may hash it all as the model's content).
  std::string onnx_path;
  // For a model given as PyTorch code (model family `torch`): its torch.export program
  // (torch.export.save, .pt2) at this batch size, for a compiler that compiles the module itself
  // (`inductor`); empty with torch_program_error saying why when torch.export failed. Empty for
  // every other model.
  std::string torch_program;
  std::string torch_program_error;
  // The offline scenario (docs/measurement.md): the executable is to serve `streams` execution
  // contexts at once (Executable::NewContext), the config's `threads` split between them; 0 =
  // as many as the compiler prefers (Executable::Streams says how many it chose). A compiler
  // sets its SDK up for this at compile time (ONNX Runtime's intra-op threads per stream,
  // OpenVINO's THROUGHPUT hint and num_streams). false: one synchronous request at a time.
  bool offline = false;
  int64_t streams = 1;
};

// One kernel of a profile (Executable::Profile): what the SDK's profiler reports as one unit of
// work (an ONNX Runtime node, an OpenVINO executed layer, an ATen operator, a TVM fused function,
// an inductor kernel), summed over the profiled runs.
struct ProfiledKernel {
  std::string name;                // as the SDK names it
  // The names of the graph's nodes (Graph::nodes, which are the ONNX nodes' names) it computes,
  // where the SDK says so; with nodes_known false the SDK does not, and nothing is guessed.
  std::vector<std::string> nodes;
  bool nodes_known = false;
  std::string sdk_type;            // the SDK's own operator type, where it has one ("FusedConv",
                                   // "Convolution", "aten::conv2d"); empty when it has none
  int64_t calls = 0;               // over all profiled runs
  double time_ms = 0;              // over all profiled runs
  std::string device;              // the execution provider or device it ran on
};

// What Executable::Profile returns: the kernels of `runs` runs of the model under the SDK's
// profiler.
struct KernelProfile {
  std::string profiler;            // which profiler, e.g. "onnxruntime session profiling"
  int runs = 0;
  std::vector<ProfiledKernel> kernels;
  std::vector<std::string> notes;  // what the profiler leaves out or cannot say
};

// Inputs, one run, outputs: what the harness times. Used from one thread at a time.
class RunContext {
 public:
  virtual ~RunContext() = default;

  // Copies host inputs (in Graph::inputs order) into the executable's input buffers, on the
  // device for accelerators. Outside the clock for the `compute` boundary.
  virtual void SetInputs(const std::vector<HostTensor>& inputs) = 0;

  // Runs one batch synchronously: when it returns, outputs are complete (device synchronized).
  // This is what the harness times.
  virtual void Run() = 0;

  // Copies the outputs of the last Run() to the host, in Graph::outputs order.
  virtual std::vector<HostTensor> GetOutputs() = 0;
};

// A compiled model bound to its input and output buffers: the single-stream scenario's one
// context. Used from one thread only, except for the contexts of NewContext().
class Executable : public RunContext {
 public:
  // The offline scenario: a new execution context of this compiled model, with inputs and
  // outputs of its own, whose Run() may be called from its own thread while the other contexts
  // run theirs (OpenVINO: an infer request; ONNX Runtime: its own bound buffers on the one
  // session). Called before the timed runs, Streams() times, from the thread that compiled;
  // contexts go before the executable. nullptr: the compiler has no execution contexts (yet),
  // and the worker refuses the offline scenario for it, naming the compiler.
  virtual std::unique_ptr<RunContext> NewContext() { return nullptr; }

  // How many contexts the executable was compiled to serve at once: CompileRequest::streams,
  // or for 0 (`auto`) the compiler's own choice (OpenVINO's optimal number of infer requests
  // under the THROUGHPUT hint; one per thread where the SDK has none). 1 for single stream.
  virtual int64_t Streams() const { return 1; }

  // Settings as the SDK reports them after compilation, e.g. {"threads": "2"}.
  // "threads", when present, is recorded in the row's `threads` column: every thread the model
  // runs on, all streams together in the offline scenario, where "threads_per_stream", when
  // present, goes to the row's `threads_per_stream` column.
  virtual std::map<std::string, std::string> EffectiveSettings() const { return {}; }

  // Runs the model `runs` times (after a run or two of its own to warm up, which it does not
  // count) under its SDK's own profiler, with the inputs of the last SetInputs(), and returns
  // the kernels those runs executed. Called after the timed runs, never during them: where the
  // SDK can only profile a model compiled with profiling on, this compiles a second one for it,
  // so that the timed runs stay unprofiled. Empty (std::nullopt) when the compiler has no
  // profiler; throws CompileError when profiling fails.
  virtual std::optional<KernelProfile> Profile(int runs) {
    (void)runs;
    return std::nullopt;
  }

  // What the compiler did less of than it was asked, one entry each (a fallback to an untuned
  // build or to unscheduled loops, ...). Each entry makes the run's row invalid. The worker
  // itself compares `threads` in EffectiveSettings() with the configured count.
  virtual std::vector<std::string> Degraded() const { return {}; }
  // Seconds of its Compile() spent storing what it compiled for a run's later processes (a
  // cache write): the worker leaves them out of `compile_s`, which is a compile's.
  virtual double CacheStoreSeconds() const { return 0; }
};

class Compiler {
 public:
  virtual ~Compiler() = default;

  // The SDK's version as the SDK reports it at run time, e.g. "onnxruntime 1.32.0".
  virtual std::string Version() const = 0;

  // Why this machine cannot run `config` at all (no GPU, an execution provider missing from this
  // build of the SDK, vendor libraries missing), or empty when it can. Cheap: builds nothing. The
  // scheduler asks once per sweep, in a probe process, and writes `skipped` rows instead of
  // starting workers; Compile() throws UnavailableError for the same reasons.
  virtual std::string Unavailable(const CompilerConfig& config) const {
    (void)config;
    return {};
  }

  // Compiles the model. Throws CompileError for a model the compiler cannot handle (the message
  // names the operator or setting), never returns something that would compute a wrong result.
  virtual std::unique_ptr<Executable> Compile(const CompileRequest& request) = 0;
};

}  // namespace ngraphbench

#define NGRAPHBENCH_COMPILER_ENTRY "NgraphbenchCreateCompiler"
