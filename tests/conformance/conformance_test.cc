// Cross-compiler conformance: every built compiler module computes the same outputs
// as the reference on the same inputs.
//
// Reference: `identity` (PyTorch eager) when built, else `onnxruntime`, else the first built
// compiler. Cases: the smallest model (width and depth) of every synthetic experiment in
// configs/experiments.yaml at batch 2, and one small graph per operator `identity` covers.
// A compiler must run every model case; on an operator case it may refuse with a CompileError
// (that is its documented behaviour for what it does not support), but never disagree.
//
// Tolerance (fp32): max |out - ref| <= 1e-4 * max(1, max |ref|) per output. Reassociated fp32
// sums (blocked GEMM, Winograd, folded BatchNorm) differ from the reference by ~1e-6 relative on
// these sizes; 1e-4 leaves two orders of margin and still catches any wrong semantics.
//
// Vendor SDKs must not meet in one process, so each compiler runs in a forked
// child that loads only its module; the parent never loads one.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/experiments/config.h"
#include "ngraphbench/graph/onnx_io.h"
#include "ngraphbench/models/builder.h"
#include "ngraphbench/models/zoo.h"
#include "require_compiler.h"

namespace ngraphbench {
namespace {

constexpr double kRelativeTolerance = 1e-4;
constexpr int64_t kBatch = 2;

struct Case {
  std::string name;
  Graph graph;
  bool model = false;  // a benchmark model: every compiler must run it
  std::vector<HostTensor> inputs;
  std::string onnx;  // filled when some built compiler consumes ONNX
};

// What one compiler produced for one case.
struct Outcome {
  enum Status : int32_t { kOk = 0, kCompileError = 1, kFailed = 2 };
  int32_t status = kFailed;
  std::string error;
  std::vector<HostTensor> outputs;
};

// ---- Cases ----------------------------------------------------------------------------------

std::vector<Case> ModelCases() {
  const ExperimentsFile file = LoadExperiments(NGB_SOURCE_DIR "/configs/experiments.yaml");
  std::vector<Case> cases;
  for (const auto& e : file.experiments) {
    const ModelFamily& family = FindFamily(e.family);
    if (family.uses_models || !family.uses_width) continue;  // only the synthetic families
    const ModelSpec spec =
        SyntheticSpec(e.family, e.name, *std::min_element(e.widths.begin(), e.widths.end()),
                      e.depths.empty() ? 1 : *std::min_element(e.depths.begin(), e.depths.end()));
    cases.push_back({spec.name, BuildModel(spec, kBatch), /*model=*/true, {}, {}});
  }
  return cases;
}

// One graph per operator (and per interesting attribute), small enough to run in milliseconds.
std::vector<Case> OperatorCases() {
  std::vector<Case> cases;
  // Graph inputs are named input*, query, key, value: GraphBuilder names node outputs x, x_1,
  // ... and t, t_1, ... without knowing the input names.
  auto add = [&](const std::string& name, GraphBuilder& g, const std::string& out) {
    g.Output(out);
    cases.push_back({"op_" + name, g.Finish(), false, {}, {}});
  };
  using Attrs = std::map<std::string, AttrValue>;
  using Ints = std::vector<int64_t>;
  {
    GraphBuilder g("op_conv_grouped");
    std::string x = g.Input("input", {kBatch, 4, 9, 9});
    std::string w = g.ParamNormal("w", {6, 2, 3, 3}, 0.3f);
    add("conv_grouped_strided_dilated_asymmetric", g,
        g.AddNode("Conv", {x, w}, {kBatch, 6, 4, 3},
                  Attrs{{"group", int64_t{2}},
                        {"strides", Ints{2, 2}},
                        {"dilations", Ints{2, 2}},
                        {"pads", Ints{1, 0, 2, 1}},
                        {"kernel_shape", Ints{3, 3}}}));
  }
  {
    GraphBuilder g("op_conv_depthwise");
    std::string x = g.Input("input", {kBatch, 4, 8, 8});
    add("conv_depthwise_bias", g, g.Conv(x, 4, 3, 1, 1, /*groups=*/4, /*bias=*/true));
  }
  {
    GraphBuilder g("op_conv_same");
    std::string x = g.Input("input", {kBatch, 3, 7, 7});
    std::string w = g.ParamNormal("w", {5, 3, 2, 2}, 0.3f);
    add("conv_auto_pad_same_upper", g,
        g.AddNode("Conv", {x, w}, {kBatch, 5, 7, 7},
                  Attrs{{"auto_pad", std::string("SAME_UPPER")}}));
  }
  {
    GraphBuilder g("op_batchnorm");
    std::string x = g.Input("input", {kBatch, 5, 4, 4});
    add("batchnorm", g, g.BatchNorm(x, 1e-3f));
  }
  {
    GraphBuilder g("op_linear");
    std::string x = g.Input("input", {kBatch, 3, 8});
    add("linear", g, g.Linear(x, 5));
  }
  {
    GraphBuilder g("op_gemm_linear");
    std::string x = g.Input("input", {kBatch, 8});
    std::string w = g.ParamNormal("w", {5, 8}, 0.3f);
    std::string c = g.ParamNormal("c", {5}, 0.3f);
    add("gemm_transb", g, g.AddNode("Gemm", {x, w, c}, {kBatch, 5}, Attrs{{"transB", int64_t{1}}}));
  }
  {
    GraphBuilder g("op_gemm_general");
    std::string a = g.Input("input_a", {8, kBatch});
    std::string w = g.ParamNormal("w", {8, 5}, 0.3f);
    std::string c = g.ParamNormal("c", {1, 5}, 0.3f);
    add("gemm_transa_alpha_beta", g,
        g.AddNode("Gemm", {a, w, c}, {kBatch, 5},
                  Attrs{{"transA", int64_t{1}}, {"alpha", 0.5f}, {"beta", 2.0f}}));
  }
  {
    GraphBuilder g("op_matmul");
    std::string a = g.Input("input_a", {kBatch, 3, 4, 5});
    std::string b = g.Input("input_b", {kBatch, 3, 5, 6});
    add("matmul_batched", g, g.AddNode("MatMul", {a, b}, {kBatch, 3, 4, 6}));
  }
  {
    GraphBuilder g("op_attention");
    Shape qkv{kBatch, 2, 5, 4};
    std::string q = g.Input("query", qkv), k = g.Input("key", qkv), v = g.Input("value", qkv);
    std::string bias = g.Buffer("bias", RandomNormal({kBatch, 2, 5, 5}, 11));
    add("attention_bias_scale", g,
        g.AddNode("ScaledDotProductAttention", {q, k, v, bias}, qkv, Attrs{{"scale", 0.3f}}));
  }
  {
    GraphBuilder g("op_attention_default");
    std::string q = g.Input("query", {kBatch, 6, 8}), k = g.Input("key", {kBatch, 7, 8}),
                v = g.Input("value", {kBatch, 7, 3});
    add("attention_default_scale", g, g.Attention(q, k, v));
  }
  {
    GraphBuilder g("op_layernorm");
    std::string x = g.Input("input", {kBatch, 4, 8});
    add("layernorm", g, g.LayerNorm(x));
  }
  for (const char* op :
       {"Relu", "Gelu", "Sigmoid", "Tanh", "Erf", "HardSwish", "HardSigmoid", "Identity"}) {
    GraphBuilder g(std::string("op_") + op);
    std::string x = g.Input("input", {kBatch, 3, 7});
    add(op, g, g.Unary(op, x));
  }
  {
    GraphBuilder g("op_hardsigmoid_torch");
    std::string x = g.Input("input", {kBatch, 3, 7});
    add("hardsigmoid_torch", g,
        g.AddNode("HardSigmoid", {x}, {kBatch, 3, 7},
                  Attrs{{"alpha", 1.0f / 6.0f}, {"beta", 0.5f}}));
  }
  {
    GraphBuilder g("op_sqrt");  // sqrt(x * x) keeps the input non-negative
    std::string x = g.Input("input", {kBatch, 6});
    add("sqrt", g, g.Unary("Sqrt", g.Binary("Mul", x, x)));
  }
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    GraphBuilder g(std::string("op_") + op);
    std::string a = g.Input("input_a", {kBatch, 3, 4});
    // Division by a constant bounded away from zero.
    std::string b = g.ParamUniform("b", {3, 1}, 0.5f, 2.0f);
    add(std::string(op) + "_broadcast", g, g.Binary(op, a, b));
  }
  {
    GraphBuilder g("op_pow_scalar");
    std::string x = g.Input("input", {kBatch, 5});
    std::string e = g.ParamFilled("e", {}, 3.0f);
    add("pow_scalar_exponent", g, g.AddNode("Pow", {x, e}, {kBatch, 5}));
  }
  {
    GraphBuilder g("op_pow_tensor");
    std::string x = g.Unary("Sigmoid", g.Input("input", {kBatch, 4}));
    std::string e = g.ParamUniform("e", {4}, 0.5f, 2.5f);
    add("pow_tensor_exponent", g, g.AddNode("Pow", {x, e}, {kBatch, 4}));
  }
  {
    GraphBuilder g("op_clip");
    std::string x = g.Input("input", {kBatch, 9});
    std::string lo = g.ParamFilled("lo", {}, 0.0f), hi = g.ParamFilled("hi", {}, 6.0f);
    add("clip_relu6", g,
        g.AddNode("Clip", {g.Binary("Mul", x, g.ParamFilled("s", {}, 4.0f)), lo, hi}, {kBatch, 9}));
  }
  {
    GraphBuilder g("op_clip_min");
    std::string x = g.Input("input", {kBatch, 9});
    add("clip_min_only", g, g.AddNode("Clip", {x, g.ParamFilled("lo", {}, -0.5f)}, {kBatch, 9}));
  }
  {
    GraphBuilder g("op_softmax");
    std::string x = g.Input("input", {kBatch, 5, 3});
    add("softmax_axis1", g, g.AddNode("Softmax", {x}, {kBatch, 5, 3}, Attrs{{"axis", int64_t{1}}}));
  }
  {
    GraphBuilder g("op_reshape");
    std::string x = g.Input("input", {kBatch, 3, 4});
    add("reshape_zero_minus_one", g,
        g.AddNode("Reshape", {x, g.Int64Constant("shape", {0, -1})}, {kBatch, 12}));
  }
  {
    GraphBuilder g("op_transpose");
    std::string x = g.Input("input", {kBatch, 3, 4, 5});
    add("transpose", g, g.Transpose(x, {0, 2, 1, 3}));
  }
  {
    GraphBuilder g("op_flatten");
    std::string x = g.Input("input", {kBatch, 3, 4, 5});
    add("flatten_axis2", g,
        g.AddNode("Flatten", {x}, {kBatch * 3, 20}, Attrs{{"axis", int64_t{2}}}));
  }
  {
    GraphBuilder g("op_concat");
    std::string a = g.Input("input_a", {kBatch, 3, 4}), b = g.Input("input_b", {kBatch, 2, 4});
    add("concat_axis1", g,
        g.AddNode("Concat", {a, b}, {kBatch, 5, 4}, Attrs{{"axis", int64_t{1}}}));
  }
  {
    GraphBuilder g("op_slice");
    std::string x = g.Input("input", {kBatch, 5, 6});
    add("slice_clamped_negative_steps2", g,
        g.AddNode("Slice",
                  {x, g.Int64Constant("starts", {1, -3}), g.Int64Constant("ends", {100, -1}),
                   g.Int64Constant("axes", {2, 1}), g.Int64Constant("steps", {2, 1})},
                  {kBatch, 2, 3}));
  }
  {
    GraphBuilder g("op_reducemean");
    std::string x = g.Input("input", {kBatch, 3, 4});
    add("reducemean_axis1", g,
        g.AddNode("ReduceMean", {x}, {kBatch, 4},
                  Attrs{{"axes", Ints{1}}, {"keepdims", int64_t{0}}}));
  }
  {
    GraphBuilder g("op_reducemean_keep");
    std::string x = g.Input("input", {kBatch, 3, 4});
    add("reducemean_last_keepdims", g,
        g.AddNode("ReduceMean", {x}, {kBatch, 3, 1}, Attrs{{"axes", Ints{-1}}}));
  }
  {
    GraphBuilder g("op_gap");
    std::string x = g.Input("input", {kBatch, 3, 5, 5});
    add("global_average_pool", g, g.AddNode("GlobalAveragePool", {x}, {kBatch, 3, 1, 1}));
  }
  for (int64_t include_pad : {0, 1}) {
    GraphBuilder g("op_avgpool");
    std::string x = g.Input("input", {kBatch, 3, 8, 8});
    add("average_pool_count_include_pad" + std::to_string(include_pad), g,
        g.AddNode("AveragePool", {x}, {kBatch, 3, 4, 4},
                  Attrs{{"kernel_shape", Ints{3, 3}},
                        {"strides", Ints{2, 2}},
                        {"pads", Ints{1, 1, 1, 1}},
                        {"count_include_pad", include_pad}}));
  }
  {
    GraphBuilder g("op_maxpool");
    std::string x = g.Input("input", {kBatch, 3, 8, 8});
    add("max_pool", g,
        g.AddNode("MaxPool", {x}, {kBatch, 3, 4, 4},
                  Attrs{{"kernel_shape", Ints{3, 3}},
                        {"strides", Ints{2, 2}},
                        {"pads", Ints{1, 1, 1, 1}}}));
  }
  {
    GraphBuilder g("op_gather");
    std::string x = g.Input("input", {kBatch, 4, 3});
    add("gather_axis1_negative", g,
        g.AddNode("Gather", {x, g.Int64Constant("idx", {2, 0, -1})}, {kBatch, 3, 3},
                  Attrs{{"axis", int64_t{1}}}));
  }
  {
    GraphBuilder g("op_gather2d");
    std::string x = g.Input("input", {kBatch, 4, 3});
    add("gather_2d_indices", g,
        g.AddNode("Gather", {x, g.Int64Constant("idx", {0, 1, 3, 0}, {2, 2})}, {kBatch, 2, 2, 3},
                  Attrs{{"axis", int64_t{1}}}));
  }
  {
    GraphBuilder g("op_squeeze");
    std::string x = g.Input("input", {kBatch, 1, 3});
    add("squeeze", g, g.AddNode("Squeeze", {x, g.Int64Constant("axes", {1})}, {kBatch, 3}));
  }
  {
    GraphBuilder g("op_unsqueeze");
    std::string x = g.Input("input", {kBatch, 3});
    add("unsqueeze", g,
        g.AddNode("Unsqueeze", {x, g.Int64Constant("axes", {0, 3})}, {1, kBatch, 3, 1}));
  }
  {
    GraphBuilder g("op_expand");
    std::string x = g.Input("input", {3, 1});
    add("expand", g,
        g.AddNode("Expand", {x, g.Int64Constant("shape", {kBatch, 1, 4})}, {kBatch, 3, 4}));
  }
  return cases;
}

// ---- Running one compiler in a child process --------------------------------------------------

void WriteBytes(FILE* f, const void* data, size_t n) {
  if (n && std::fwrite(data, 1, n, f) != n) std::_Exit(3);
}
template <typename T>
void WritePod(FILE* f, T v) {
  WriteBytes(f, &v, sizeof v);
}

bool ReadBytes(FILE* f, void* data, size_t n) { return n == 0 || std::fread(data, 1, n, f) == n; }
template <typename T>
bool ReadPod(FILE* f, T& v) {
  return ReadBytes(f, &v, sizeof v);
}

Outcome RunCase(Compiler& compiler, const CompilerInfo& info, const Case& c) {
  Outcome outcome;
  try {
    const CompilerConfig config = DefaultCompilerConfig(info);
    static const std::string kNoOnnx;
    CompileRequest request{c.graph, info.consumes_onnx ? c.onnx : kNoOnnx, config,
                           "/tmp/ngb_conformance_cache"};
    std::unique_ptr<Executable> exe;
    try {
      exe = compiler.Compile(request);
    } catch (const CompileError& e) {
      outcome.status = Outcome::kCompileError;
      outcome.error = e.what();
      return outcome;
    }
    exe->SetInputs(c.inputs);
    exe->Run();
    exe->Run();  // a second run must not depend on state the first left behind
    outcome.outputs = exe->GetOutputs();
    outcome.status = Outcome::kOk;
  } catch (const std::exception& e) {
    outcome.status = Outcome::kFailed;
    outcome.error = e.what();
  }
  return outcome;
}

// Child: loads the module, runs every case, writes the outcomes to `path`, exits.
[[noreturn]] void ChildMain(const std::string& name, const std::vector<Case>& cases,
                            const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::_Exit(2);
  std::unique_ptr<Compiler> compiler;
  std::string load_error;
  try {
    compiler = LoadCompiler(name);
  } catch (const std::exception& e) {
    load_error = e.what();
  }
  for (const Case& c : cases) {
    Outcome o;
    if (compiler) {
      o = RunCase(*compiler, FindCompiler(name), c);
    } else {
      o.error = "cannot load the module: " + load_error;
    }
    WritePod(f, o.status);
    WritePod<uint64_t>(f, o.error.size());
    WriteBytes(f, o.error.data(), o.error.size());
    WritePod<uint64_t>(f, o.outputs.size());
    for (const HostTensor& t : o.outputs) {
      WritePod<uint64_t>(f, t.shape.size());
      WriteBytes(f, t.shape.data(), t.shape.size() * sizeof(int64_t));
      WritePod<uint64_t>(f, t.data.size());
      WriteBytes(f, t.data.data(), t.data.size() * sizeof(float));
    }
  }
  std::fclose(f);
  std::_Exit(0);  // no static destructors, no gtest teardown in the child
}

// Runs `name` on every case in a child process. On a crash, every outcome says so.
std::vector<Outcome> RunCompiler(const std::string& name, const std::vector<Case>& cases) {
  const std::string path =
      ::testing::TempDir() + "ngb_conformance_" + std::to_string(::getpid()) + "_" + name + ".bin";
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) ChildMain(name, cases, path);
  std::vector<Outcome> outcomes(cases.size());
  int wstatus = 0;
  if (pid < 0 || ::waitpid(pid, &wstatus, 0) != pid || !WIFEXITED(wstatus) ||
      WEXITSTATUS(wstatus) != 0) {
    const std::string why =
        pid < 0 ? "fork failed"
        : WIFSIGNALED(wstatus)
            ? "the child running " + name + " died of signal " + std::to_string(WTERMSIG(wstatus))
            : "the child running " + name + " exited with status " +
                  std::to_string(WEXITSTATUS(wstatus));
    for (auto& o : outcomes) o.error = why;
    std::remove(path.c_str());
    return outcomes;
  }
  FILE* f = std::fopen(path.c_str(), "rb");
  for (auto& o : outcomes) {
    uint64_t n = 0;
    bool ok = f && ReadPod(f, o.status) && ReadPod(f, n);
    o.error.resize(ok ? n : 0);
    ok = ok && ReadBytes(f, o.error.data(), n) && ReadPod(f, n);
    o.outputs.resize(ok ? n : 0);
    for (HostTensor& t : o.outputs) {
      uint64_t rank = 0, count = 0;
      ok = ok && ReadPod(f, rank);
      t.shape.resize(ok ? rank : 0);
      ok = ok && ReadBytes(f, t.shape.data(), rank * sizeof(int64_t)) && ReadPod(f, count);
      t.data.resize(ok ? count : 0);
      ok = ok && ReadBytes(f, t.data.data(), count * sizeof(float));
    }
    if (!ok) {
      o.status = Outcome::kFailed;
      o.error = "truncated results from the child running " + name;
    }
  }
  if (f) std::fclose(f);
  std::remove(path.c_str());
  return outcomes;
}

// ---- Comparison --------------------------------------------------------------------------------

// Empty when `out` matches `ref` within the tolerance; else what differs. `worst` grows to the
// largest absolute difference relative to the output's scale, max(1, max |ref|).
std::string Compare(const std::vector<HostTensor>& ref, const std::vector<HostTensor>& out,
                    const Graph& graph, double& worst) {
  if (out.size() != ref.size()) {
    return std::to_string(out.size()) + " outputs, reference has " + std::to_string(ref.size());
  }
  for (size_t i = 0; i < ref.size(); ++i) {
    if (out[i].shape != graph.outputs[i].shape || ref[i].shape != graph.outputs[i].shape) {
      return "output " + graph.outputs[i].name + " has shape " + ShapeToString(out[i].shape) +
             " (reference " + ShapeToString(ref[i].shape) + ", graph " +
             ShapeToString(graph.outputs[i].shape) + ")";
    }
    double max_ref = 0, max_diff = 0;
    size_t where = 0;
    for (size_t j = 0; j < ref[i].data.size(); ++j) {
      max_ref = std::max(max_ref, std::fabs(static_cast<double>(ref[i].data[j])));
      const double d = std::fabs(static_cast<double>(out[i].data[j]) - ref[i].data[j]);
      if (!(d <= max_diff)) {  // NaN counts as the largest difference
        max_diff = std::isnan(d) ? INFINITY : d;
        where = j;
      }
    }
    const double scale = std::max(1.0, max_ref);
    worst = std::max(worst, max_diff / scale);
    if (!(max_diff <= kRelativeTolerance * scale)) {
      return "output " + graph.outputs[i].name + ": max |diff| " + std::to_string(max_diff) +
             " at element " + std::to_string(where) + " (got " +
             std::to_string(out[i].data[where]) + ", reference " +
             std::to_string(ref[i].data[where]) + "), allowed " +
             std::to_string(kRelativeTolerance * scale);
    }
  }
  return "";
}

// Every built compiler but null; a test failure for each one this build requires but lacks.
std::vector<std::string> BuiltCompilers() {
  std::vector<std::string> names;
  for (const auto& info : AllCompilers()) {
    if (info.name != "null") names.push_back(info.name);
  }
  return test_support::BuiltAmong(names);
}

std::string PickReference(const std::vector<std::string>& built) {
  for (const char* preferred : {"identity", "onnxruntime"}) {
    if (std::find(built.begin(), built.end(), preferred) != built.end()) return preferred;
  }
  return built.front();
}

// Runs `cases` on `reference` and on every other compiler in `compilers`, each in its own
// process, and expects every output to match the reference's within the tolerance.
void ExpectAgreement(std::vector<Case> cases, const std::vector<std::string>& compilers,
                     const std::string& reference) {
  const bool need_onnx = std::any_of(compilers.begin(), compilers.end(), [](const std::string& n) {
    return FindCompiler(n).consumes_onnx;
  });
  uint64_t seed = 20240601;
  if (const char* env = std::getenv("NGB_CONFORMANCE_SEED")) seed = std::stoull(env);
  for (size_t i = 0; i < cases.size(); ++i) {
    Case& c = cases[i];
    for (size_t j = 0; j < c.graph.inputs.size(); ++j) {
      c.inputs.push_back(RandomNormal(c.graph.inputs[j].shape, seed + 1000 * i + j));
    }
    if (need_onnx) {
      try {
        c.onnx = ExportOnnx(c.graph);
      } catch (const std::exception& e) {
        ADD_FAILURE() << c.name << ": ExportOnnx failed: " << e.what();
      }
    }
  }
  std::printf(
      "reference: %s; compilers: %zu; cases: %zu; inputs seed %llu "
      "(NGB_CONFORMANCE_SEED)\n",
      reference.c_str(), compilers.size(), cases.size(), static_cast<unsigned long long>(seed));

  const std::vector<Outcome> ref = RunCompiler(reference, cases);
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(ref[i].status, Outcome::kOk)
        << "reference " << reference << " failed on " << cases[i].name << ": " << ref[i].error;
  }
  for (const std::string& name : compilers) {
    if (name == reference) continue;
    const std::vector<Outcome> got = RunCompiler(name, cases);
    double worst = 0;
    int compared = 0, refused = 0;
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      if (ref[i].status != Outcome::kOk) continue;
      SCOPED_TRACE(name + " on " + c.name);
      if (got[i].status == Outcome::kCompileError && !c.model) {
        ++refused;
        std::printf("  %s refuses %s: %s\n", name.c_str(), c.name.c_str(), got[i].error.c_str());
        continue;
      }
      if (got[i].status != Outcome::kOk) {
        ADD_FAILURE() << "failed: " << got[i].error;
        continue;
      }
      ++compared;
      const std::string diff = Compare(ref[i].outputs, got[i].outputs, c.graph, worst);
      EXPECT_TRUE(diff.empty()) << diff;
    }
    std::printf(
        "%s vs %s: %d cases compared, %d refused; largest relative difference %.3g "
        "(tolerance %.0e)\n",
        name.c_str(), reference.c_str(), compared, refused, worst, kRelativeTolerance);
    ::testing::Test::RecordProperty(name + "_max_rel_diff", std::to_string(worst));
  }
}

TEST(Conformance, EveryBuiltCompilerMatchesTheReference) {
  const std::vector<std::string> built = BuiltCompilers();
  if (HasFailure()) return;  // a required compiler is missing
  if (built.size() < 2) {
    GTEST_SKIP() << "needs two built compilers besides null; built: " << built.size()
                 << ", required: " << NGB_REQUIRED_COMPILERS;
  }
  std::vector<Case> cases = ModelCases();
  ASSERT_FALSE(cases.empty()) << "no synthetic experiment in configs/experiments.yaml";
  for (Case& c : OperatorCases()) cases.push_back(std::move(c));
  ExpectAgreement(std::move(cases), built, PickReference(built));
}

// Table IV: every architecture at batch 1, onnxruntime and openvino (where built) against
// identity. Other compilers are covered by the synthetic cases above; these graphs are large
// (TVM alone would spend minutes compiling them), so they are kept to the compilers issue 5 names.
TEST(Conformance, ArchitecturesMatchIdentity) {
  const std::vector<std::string> compilers =
      test_support::BuiltAmong({"identity", "onnxruntime", "openvino"});
  if (HasFailure()) return;  // a required compiler is missing
  if (compilers.size() < 2 || compilers.front() != "identity") {
    GTEST_SKIP() << "needs identity and onnxruntime or openvino built; required: "
                 << NGB_REQUIRED_COMPILERS;
  }
  std::vector<Case> cases;
  for (const std::string& name : FindFamily("architecture").variants) {
    ModelSpec spec;
    spec.family = "architecture";
    spec.name = spec.variant = name;
    cases.push_back({name, BuildModel(spec, 1), /*model=*/true, {}, {}});
  }
  ExpectAgreement(std::move(cases), compilers, "identity");
}

// External models: timm's own definitions, exported to ONNX by python/export_timm.py and
// imported as a user's .onnx file would be, give the same outputs on every built compiler.
TEST(Conformance, ExternalTimmModelsMatchTheReference) {
  const std::vector<std::string> built = BuiltCompilers();
  const std::string python = std::string(NGB_SOURCE_DIR) + "/.venv/bin/python";
  const std::string dir = ::testing::TempDir() + "/ngb_timm_" + std::to_string(::getpid());
  const std::string command = python + " " + NGB_SOURCE_DIR +
                              "/python/export_timm.py export resnet18 deit_tiny_patch16_224 "
                              "--batch-size 2 -o " + dir + " > /dev/null 2>&1";
  if (HasFailure()) return;  // a required compiler is missing
  if (built.size() < 2) GTEST_SKIP() << "needs two built compilers besides null";
  const std::string probe = python + " -c \"import sys; sys.path.insert(0, '" + NGB_SOURCE_DIR +
                            "/python'); import export_timm, onnx; export_timm.import_timm()\"" +
                            " > /dev/null 2>&1";
  if (std::system(probe.c_str()) != 0) GTEST_SKIP() << "timm or onnx not installed in .venv";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::vector<Case> cases;
  for (const std::string name : {"resnet18", "deit_tiny_patch16_224"}) {
    const std::string file = dir + "/" + name + "_b2.onnx";
    cases.push_back({name + " (timm, external)", ImportOnnxFile(file, 2), /*model=*/true, {}, {}});
    std::remove(file.c_str());
  }
  ExpectAgreement(std::move(cases), built, PickReference(built));
}

// The tolerance must be able to fail: a perturbation just above it is caught.
TEST(Conformance, CompareCatchesAPerturbationAboveTolerance) {
  Graph g;
  g.outputs = {{"y", {4}}};
  const std::vector<HostTensor> ref = {{{4}, {0.5f, -2.0f, 3.0f, 0.0f}}};
  std::vector<HostTensor> out = ref;
  double worst = 0;
  EXPECT_EQ(Compare(ref, out, g, worst), "");
  out[0].data[1] += static_cast<float>(2.5 * kRelativeTolerance * 3.0);
  EXPECT_NE(Compare(ref, out, g, worst), "");
  out = ref;
  out[0].data[3] = NAN;
  EXPECT_NE(Compare(ref, out, g, worst), "");
}

}  // namespace
}  // namespace ngraphbench
