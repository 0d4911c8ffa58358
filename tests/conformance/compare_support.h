// The fork-and-compare harness of the conformance suite (conformance_test.cc), shared with the
// torch compiler tests (torch_compilers_test.cc): cases (a graph and its inputs), running one
// compiler on them in forked children, and comparing outputs with a reference's. Also what the
// tests of one compiler module in this process share (tvm_test, compilers/<name>/<name>_test.cc):
// CompileAndRun, ExpectClose and RunContextsConcurrently.
//
// Vendor SDKs must not meet in one process, so RunCompiler runs each compiler in a forked child
// that loads only its module; the parent never loads one. A child that crashes costs the case it
// was running: the parent records it and starts another child for the cases after it.
//
// Tolerance (fp32): max |out - ref| <= 1e-4 * max(1, max |ref|) per output. Reassociated fp32
// sums (blocked GEMM, Winograd, folded BatchNorm) differ from the reference by ~1e-6 relative on
// these sizes; 1e-4 leaves two orders of margin and still catches any wrong semantics.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/tensor.h"
#include "ngraphbench/graph/ir.h"

namespace ngraphbench::test_support {

constexpr double kRelativeTolerance = 1e-4;

struct Case {
  std::string name;
  Graph graph;
  bool model = false;  // a benchmark model: every compiler must run it
  std::vector<HostTensor> inputs;
  std::string onnx;  // filled when some built compiler consumes ONNX
  std::string op;    // operator cases: the table row the case verifies
};

// What one compiler produced for one case.
struct Outcome {
  enum Status : int32_t { kOk = 0, kCompileError = 1, kFailed = 2, kCrashed = 3 };
  int32_t status = kFailed;
  std::string error;
  std::vector<HostTensor> outputs;
};

// Where compiled artifacts (TVM's libraries, inductor's packages) are cached between runs and
// tests; NGB_CONFORMANCE_CACHE points elsewhere, e.g. an empty directory to time a cold run.
std::string CacheDir();

// Inputs for `graph`, one per graph input: input j drawn by RandomNormal with seed `seed + j`.
std::vector<HostTensor> RandomInputs(const Graph& graph, uint64_t seed);

// Sets `inputs`, runs `runs` times (a second run must not depend on state the first left behind)
// and returns the outputs.
std::vector<HostTensor> RunExecutable(Executable& exe, const std::vector<HostTensor>& inputs,
                                      int runs = 1);

// `c` on `compiler` with the default config of `info`, run twice: its outputs, or the error.
Outcome RunCase(Compiler& compiler, const CompilerInfo& info, const Case& c);

// Runs `name` on every case in child processes. A child that dies costs the case it was running
// (kCrashed, with the signal); the next child starts after it. The operator table's check is
// the worker's, not the compiler's: here the SDK meets every case, supported or not.
std::vector<Outcome> RunCompiler(const std::string& name, const std::vector<Case>& cases);

// Empty when `out` matches `ref` within `tolerance` (relative to the output's scale,
// max(1, max |ref|)); else what differs. `worst` grows to the largest absolute difference
// relative to that scale.
std::string Compare(const std::vector<HostTensor>& ref, const std::vector<HostTensor>& out,
                    const Graph& graph, double& worst, double tolerance = kRelativeTolerance);

// One compile and one run in this process, for a compiler module's own tests.
struct Compiled {
  std::vector<HostTensor> outputs;
  std::map<std::string, std::string> settings;  // EffectiveSettings()
  double compile_s = 0;                         // Compile(), timed
};

// Compiles `graph` (given as ONNX bytes) with `config` and `cache_dir`, sets `inputs`, runs once.
Compiled CompileAndRun(Compiler& compiler, const CompilerConfig& config, const Graph& graph,
                       const std::vector<HostTensor>& inputs, const std::string& cache_dir,
                       bool quick = false);

// The reference a compiler module's own tests compare with: onnxruntime (its module loaded
// here), one thread, sequential, opt_level all, uncached.
Compiled OnnxRuntimeReference(const Graph& graph, const std::vector<HostTensor>& inputs);

// GoogleTest expectations: `got` matches `want` within kRelativeTolerance relative to
// max(1, max |want|), output by output, and `want` is not all near zero (a reference of zeros
// proves nothing). `what` names the case in failures.
void ExpectClose(const std::vector<HostTensor>& got, const std::vector<HostTensor>& want,
                 const std::string& what);

// The largest |a - b| over two tensors of one shape (a failed expectation when the shapes
// differ): for outputs that must be all but identical, e.g. one model run two ways.
float MaxAbsDiff(const HostTensor& a, const HostTensor& b);

// The offline scenario's execution contexts under test: one context of `exe` per entry of
// `inputs`, given those inputs, all run `runs` times at once, each on a thread of its own; the
// contexts' outputs, in order. A failed expectation, and no outputs, when `exe` gives no context.
std::vector<std::vector<HostTensor>> RunContextsConcurrently(
    Executable& exe, const std::vector<std::vector<HostTensor>>& inputs, int runs = 20);

// The offline check every compiler with execution contexts passes: `request` (its config's
// threads 2) compiled offline for 2 streams gives 2 streams of 1 thread each, and its 2 contexts,
// run concurrently on `inputs` (one entry each), give within 1e-5 the first output in `expected`
// (what one stream computed from the same inputs, or a reference). Returns the executable's
// settings for a compiler's own expectations; empty after a fatal failure.
std::map<std::string, std::string> ExpectOfflineStreamsMatch(
    Compiler& compiler, CompileRequest request, const std::vector<std::vector<HostTensor>>& inputs,
    const std::vector<HostTensor>& expected);

}  // namespace ngraphbench::test_support
