#include "compare_support.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include "ngraphbench/core/error.h"
#include "ngraphbench/experiments/config.h"
#include "ngraphbench/graph/onnx_io.h"

namespace ngraphbench::test_support {

namespace {

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

// Child: loads the module, runs `cases` from `first` on, appending each outcome to `path` as
// soon as it is known (so that a crash loses only the case it happened in), exits.
[[noreturn]] void ChildMain(const std::string& name, const std::vector<Case>& cases, size_t first,
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
  for (size_t i = first; i < cases.size(); ++i) {
    Outcome o;
    if (compiler) {
      o = RunCase(*compiler, FindCompiler(name), cases[i]);
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
    std::fflush(f);
  }
  std::fclose(f);
  std::_Exit(0);  // no static destructors, no gtest teardown in the child
}

// Reads the outcomes a child wrote, in order, until the file ends or is truncated.
std::vector<Outcome> ReadOutcomes(const std::string& path) {
  std::vector<Outcome> outcomes;
  FILE* f = std::fopen(path.c_str(), "rb");
  while (f) {
    Outcome o;
    uint64_t n = 0;
    bool ok = ReadPod(f, o.status) && ReadPod(f, n) && n < (uint64_t{1} << 24);
    o.error.resize(ok ? n : 0);
    ok = ok && ReadBytes(f, o.error.data(), n) && ReadPod(f, n) && n < 1024;
    o.outputs.resize(ok ? n : 0);
    for (HostTensor& t : o.outputs) {
      uint64_t rank = 0, count = 0;
      ok = ok && ReadPod(f, rank) && rank < 16;
      t.shape.resize(ok ? rank : 0);
      ok = ok && ReadBytes(f, t.shape.data(), rank * sizeof(int64_t)) && ReadPod(f, count) &&
           count < (uint64_t{1} << 32);
      t.data.resize(ok ? count : 0);
      ok = ok && ReadBytes(f, t.data.data(), count * sizeof(float));
    }
    if (!ok) break;
    outcomes.push_back(std::move(o));
  }
  if (f) std::fclose(f);
  return outcomes;
}

}  // namespace

std::string CacheDir() {
  const char* env = std::getenv("NGB_CONFORMANCE_CACHE");
  return env && *env ? env : "/tmp/ngb_conformance_cache";
}

std::vector<HostTensor> RandomInputs(const Graph& graph, uint64_t seed) {
  std::vector<HostTensor> inputs;
  for (size_t j = 0; j < graph.inputs.size(); ++j) {
    inputs.push_back(RandomNormal(graph.inputs[j].shape, seed + j));
  }
  return inputs;
}

std::vector<HostTensor> RunExecutable(Executable& exe, const std::vector<HostTensor>& inputs,
                                      int runs) {
  exe.SetInputs(inputs);
  for (int i = 0; i < runs; ++i) exe.Run();
  return exe.GetOutputs();
}

Outcome RunCase(Compiler& compiler, const CompilerInfo& info, const Case& c) {
  Outcome outcome;
  try {
    const CompilerConfig config = DefaultCompilerConfig(info);
    static const std::string kNoOnnx;
    // quick: what the cases check is what a compiler computes, not what tuning or autotuning
    // buys (tvm's default tunes for about 15 minutes a model).
    CompileRequest request{c.graph, info.consumes_onnx ? c.onnx : kNoOnnx, config, CacheDir(),
                           /*quick=*/true};
    std::unique_ptr<Executable> exe;
    try {
      exe = compiler.Compile(request);
    } catch (const CompileError& e) {
      outcome.status = Outcome::kCompileError;
      outcome.error = e.what();
      return outcome;
    }
    outcome.outputs = RunExecutable(*exe, c.inputs, /*runs=*/2);
    outcome.status = Outcome::kOk;
  } catch (const std::exception& e) {
    outcome.status = Outcome::kFailed;
    outcome.error = e.what();
  }
  return outcome;
}

std::vector<Outcome> RunCompiler(const std::string& name, const std::vector<Case>& cases) {
  const std::string path =
      ::testing::TempDir() + "ngb_conformance_" + std::to_string(::getpid()) + "_" + name + ".bin";
  std::vector<Outcome> outcomes;
  while (outcomes.size() < cases.size()) {
    const size_t first = outcomes.size();
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) ChildMain(name, cases, first, path);
    int wstatus = 0;
    const bool waited = pid > 0 && ::waitpid(pid, &wstatus, 0) == pid;
    std::vector<Outcome> got = ReadOutcomes(path);
    std::remove(path.c_str());
    for (auto& o : got) {
      if (outcomes.size() < cases.size()) outcomes.push_back(std::move(o));
    }
    if (waited && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) {
      if (outcomes.size() < cases.size()) {  // cannot happen: the child writes every case
        Outcome o;
        o.error = "the child running " + name + " wrote no result";
        outcomes.resize(cases.size(), o);
      }
      break;
    }
    const std::string why =
        pid < 0 ? "fork failed"
        : !waited ? "waitpid failed"
        : WIFSIGNALED(wstatus)
            ? "the child running " + name + " died of signal " + std::to_string(WTERMSIG(wstatus))
            : "the child running " + name + " exited with status " +
                  std::to_string(WEXITSTATUS(wstatus));
    if (pid < 0 || !waited) {
      Outcome o;
      o.error = why;
      outcomes.resize(cases.size(), o);
      break;
    }
    Outcome crashed;
    crashed.status = Outcome::kCrashed;
    crashed.error = why + " on " + cases[outcomes.size()].name;
    outcomes.push_back(crashed);
  }
  return outcomes;
}

std::string Compare(const std::vector<HostTensor>& ref, const std::vector<HostTensor>& out,
                    const Graph& graph, double& worst, double tolerance) {
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
    if (!(max_diff <= tolerance * scale)) {
      return "output " + graph.outputs[i].name + ": max |diff| " + std::to_string(max_diff) +
             " at element " + std::to_string(where) + " (got " +
             std::to_string(out[i].data[where]) + ", reference " +
             std::to_string(ref[i].data[where]) + "), allowed " +
             std::to_string(tolerance * scale);
    }
  }
  return "";
}

Compiled CompileAndRun(Compiler& compiler, const CompilerConfig& config, const Graph& graph,
                       const std::vector<HostTensor>& inputs, const std::string& cache_dir,
                       bool quick) {
  const std::string onnx = ExportOnnx(graph);
  const auto start = std::chrono::steady_clock::now();
  auto exe = compiler.Compile(CompileRequest{graph, onnx, config, cache_dir, quick});
  Compiled c;
  c.compile_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  exe->SetInputs(inputs);
  exe->Run();
  c.outputs = exe->GetOutputs();
  c.settings = exe->EffectiveSettings();
  return c;
}

Compiled OnnxRuntimeReference(const Graph& graph, const std::vector<HostTensor>& inputs) {
  CompilerConfig config;
  config.compiler = "onnxruntime";
  config.threads = 1;
  config.opt_level = "all";
  config.options = Options({{"inter_op_threads", "1"}, {"execution_mode", "sequential"}});
  auto ort = LoadCompiler("onnxruntime");
  return CompileAndRun(*ort, config, graph, inputs, "");
}

void ExpectClose(const std::vector<HostTensor>& got, const std::vector<HostTensor>& want,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].shape, want[i].shape) << what;
    double max_ref = 0, max_err = 0;
    for (size_t j = 0; j < want[i].data.size(); ++j) {
      max_ref = std::max(max_ref, std::fabs(double(want[i].data[j])));
      max_err = std::max(max_err, std::fabs(double(got[i].data[j]) - want[i].data[j]));
    }
    EXPECT_GT(max_ref, 1e-3) << what << ": a reference of zeros proves nothing";
    EXPECT_LE(max_err, kRelativeTolerance * std::max(1.0, max_ref)) << what << " output " << i;
  }
}

float MaxAbsDiff(const HostTensor& a, const HostTensor& b) {
  EXPECT_EQ(a.shape, b.shape);
  float diff = 0;
  for (size_t i = 0; i < a.data.size() && i < b.data.size(); ++i) {
    diff = std::max(diff, std::fabs(a.data[i] - b.data[i]));
  }
  return diff;
}

std::vector<std::vector<HostTensor>> RunContextsConcurrently(
    Executable& exe, const std::vector<std::vector<HostTensor>>& inputs, int runs) {
  std::vector<std::unique_ptr<RunContext>> contexts;
  for (const std::vector<HostTensor>& in : inputs) {
    contexts.push_back(exe.NewContext());
    if (!contexts.back()) {
      ADD_FAILURE() << "the executable gave no execution context";
      return {};
    }
    contexts.back()->SetInputs(in);
  }
  std::vector<std::thread> threads;
  for (const auto& context : contexts) {
    threads.emplace_back([&context, runs] {
      for (int run = 0; run < runs; ++run) context->Run();
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<std::vector<HostTensor>> outputs;
  for (const auto& context : contexts) outputs.push_back(context->GetOutputs());
  return outputs;
}

std::map<std::string, std::string> ExpectOfflineStreamsMatch(
    Compiler& compiler, CompileRequest request, const std::vector<std::vector<HostTensor>>& inputs,
    const std::vector<HostTensor>& expected) {
  EXPECT_EQ(request.config.threads, 2);
  request.offline = true;
  request.streams = 2;
  auto offline = compiler.Compile(request);
  EXPECT_EQ(offline->Streams(), 2);
  auto settings = offline->EffectiveSettings();
  EXPECT_EQ(settings.at("streams"), "2");
  EXPECT_EQ(settings.at("threads_per_stream"), "1");
  EXPECT_EQ(settings.at("threads"), "2");
  const auto outputs = RunContextsConcurrently(*offline, inputs, /*runs=*/10);
  if (outputs.size() != expected.size()) {
    ADD_FAILURE() << outputs.size() << " streams' outputs for " << expected.size() << " expected";
    return {};
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    EXPECT_LT(MaxAbsDiff(outputs[i].at(0), expected[i]), 1e-5f) << "stream " << i;
  }
  return settings;
}

}  // namespace ngraphbench::test_support
