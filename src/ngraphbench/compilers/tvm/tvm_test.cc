// The tvm module, loaded as a worker loads it: outputs against onnxruntime, the compile cache,
// --quick and the fallback when tuning runs out of time.
#include <gtest/gtest.h>
#include <malloc.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/host.h"
#include "ngraphbench/graph/onnx_io.h"
#include "ngraphbench/measure/quant_check.h"
#include "ngraphbench/models/builder.h"
#include "ngraphbench/models/zoo.h"
#include "conformance/compare_support.h"
#include "require_compiler.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

using test_support::CompileAndRun;
using test_support::Compiled;
using test_support::ExpectClose;

class Tvm : public test_support::CompilerModuleTest {
 protected:
  Tvm() : CompilerModuleTest("tvm") {}

  void TearDown() override {
    ::unsetenv("NGRAPHBENCH_TVM_COMPILE_SCRIPT");  // set by CacheKeyCoversTheScriptsModules
    ::unsetenv("NGRAPHBENCH_TVM_PYTHON");           // set by AFailedCompileLeavesNoCacheEntry
    CompilerModuleTest::TearDown();
  }

  static CompilerConfig Config(const std::string& compiler, Options options) {
    CompilerConfig config;
    config.compiler = compiler;
    config.threads = 1;
    config.opt_level = compiler == "tvm" ? "default" : "all";
    config.options = std::move(options);
    return config;
  }

  static Options TvmOptions(int64_t trials, int64_t timeout_s, int64_t search_s = 0) {
    return Options({{"target", "host"},
                    {"tuning_trials", std::to_string(trials)},
                    {"tuning_patience", "0"},
                    {"tuning_timeout_s", std::to_string(timeout_s)},
                    {"tuning_search_s", std::to_string(search_s)}});
  }

  Compiled RunTvm(const Graph& graph, const std::vector<HostTensor>& inputs,
                  int64_t trials = 0, int64_t timeout_s = 480, bool quick = false,
                  int64_t search_s = 0) {
    return CompileAndRun(*compiler_, Config("tvm", TvmOptions(trials, timeout_s, search_s)),
                         graph, inputs, cache_dir_, quick);
  }

  static std::vector<HostTensor> Inputs(const Graph& graph) {
    return test_support::RandomInputs(graph, 100);
  }
};

TEST_F(Tvm, VersionNamesTvmAndFfi) {
  EXPECT_EQ(compiler_->Version().rfind("tvm 0.", 0), 0u) << compiler_->Version();
  EXPECT_NE(compiler_->Version().find("tvm-ffi"), std::string::npos) << compiler_->Version();
}

TEST_F(Tvm, BlocksMatchOnnxRuntime) {
  NGB_REQUIRE_BUILT("onnxruntime");  // the reference
  auto ort = LoadCompiler("onnxruntime");
  const CompilerConfig ort_config =
      Config("onnxruntime",
             Options({{"inter_op_threads", "1"}, {"execution_mode", "sequential"}}));
  for (const auto& [family, width] : {std::make_pair("conv_block", 16),
                                      std::make_pair("mha_block", 64)}) {
    const Graph graph = BuildModel(SyntheticSpec(family, family, width, 2), 2);
    const auto inputs = Inputs(graph);
    const Compiled tvm = RunTvm(graph, inputs);
    const Compiled ref = CompileAndRun(*ort, ort_config, graph, inputs, "");
    ExpectClose(tvm.outputs, ref.outputs, family);
    EXPECT_EQ(tvm.settings.at("tuned"), "false");
    // Every function got the default CPU schedule, none kept TVM's plain loops.
    EXPECT_EQ(tvm.settings.at("schedule"), "default") << family;
    EXPECT_EQ(tvm.settings.at("threads"), "1");
    EXPECT_EQ(tvm.settings.at("target").rfind("llvm", 0), 0u) << tvm.settings.at("target");
  }
}

// A GroupNorm with one group as exporters write it: a mean and a variance over a whole sample's
// C*H*W values (200,704 here, poolformer's first stage), broadcast back over them. One serial
// fp32 running sum of that many values drifts past the tolerance (6.4e-4 against 4.8e-4 here
// before the default schedule split such sums into parallel partial sums).
TEST_F(Tvm, WholeSampleNormalizationIsAccurateAndScheduled) {
  NGB_REQUIRE_BUILT("onnxruntime");  // the reference
  Graph g;
  g.name = "whole_sample_norm";
  const Shape x_shape{1, 64, 56, 56}, stat{1, 1, 1, 1};
  g.inputs = {{"x", x_shape}};
  g.outputs = {{"y", x_shape}};
  auto node = [&](const std::string& op, std::vector<std::string> in, const std::string& out,
                  const Shape& shape, std::map<std::string, AttrValue> attrs = {}) {
    g.nodes.push_back(Node{op, out + "_node", std::move(in), {out}, std::move(attrs)});
    g.value_shapes[out] = shape;
  };
  Initializer eps;
  eps.name = "eps";
  eps.is_parameter = false;
  eps.tensor.shape = {};
  eps.tensor.data = {1e-5f};
  g.initializers.push_back(eps);
  g.value_shapes["x"] = x_shape;
  g.value_shapes["eps"] = {};
  const std::map<std::string, AttrValue> over_sample = {
      {"axes", std::vector<int64_t>{1, 2, 3}}, {"keepdims", int64_t{1}}};
  node("ReduceMean", {"x"}, "mean", stat, over_sample);
  node("Sub", {"x", "mean"}, "centered", x_shape);
  node("Mul", {"centered", "centered"}, "squared", x_shape);
  node("ReduceMean", {"squared"}, "var", stat, over_sample);
  node("Add", {"var", "eps"}, "var_eps", stat);
  node("Sqrt", {"var_eps"}, "std", stat);
  node("Div", {"centered", "std"}, "y", x_shape);
  std::vector<HostTensor> inputs = Inputs(g);
  for (float& v : inputs[0].data) v = 30.0f + 0.5f * v;  // a mean far from 0: a sum loses digits

  auto ort = LoadCompiler("onnxruntime");
  const Compiled ref = CompileAndRun(
      *ort,
      Config("onnxruntime",
             Options({{"inter_op_threads", "1"}, {"execution_mode", "sequential"}})),
      g, inputs, "");
  const Compiled tvm = RunTvm(g, inputs);
  ExpectClose(tvm.outputs, ref.outputs, "whole-sample norm");
  EXPECT_EQ(tvm.settings.at("schedule"), "default");
}

// A Pad after a Conv lands in the Conv's function as an epilogue larger than the Conv's output
// (HGNetV2's TorchScript export pads a Conv's output ahead of a ceil_mode MaxPool). Computed
// under the Conv's tile loop it covered only what the tiles produce: the border stayed unwritten,
// and the result was whatever the allocator's memory held. glibc's perturbation fills every
// allocation with garbage here, so a read of unwritten memory shows in the outputs.
TEST_F(Tvm, PadAfterConvWritesItsBorder) {
  NGB_REQUIRE_BUILT("onnxruntime");  // the reference
  GraphBuilder b("pad_after_conv");
  const std::string x = b.Input("x", {1, 16, 28, 28});
  const std::string conv = b.Unary("Relu", b.Conv(x, 16, 3, 1, 1));
  const std::string pads = b.Int64Constant("pads", {0, 0, 0, 0, 0, 0, 1, 1});
  b.Output(b.AddNode("Pad", {conv, pads}, {1, 16, 29, 29}));
  const Graph g = b.Finish();
  const auto inputs = Inputs(g);
  auto ort = LoadCompiler("onnxruntime");
  const Compiled ref = CompileAndRun(
      *ort,
      Config("onnxruntime",
             Options({{"inter_op_threads", "1"}, {"execution_mode", "sequential"}})),
      g, inputs, "");
  ASSERT_EQ(::mallopt(M_PERTURB, 0xa5), 1);
  const Compiled tvm = RunTvm(g, inputs);
  ::mallopt(M_PERTURB, 0);
  ExpectClose(tvm.outputs, ref.outputs, "pad after conv");
  EXPECT_EQ(tvm.settings.at("schedule"), "default");
}

TEST_F(Tvm, SecondCompileLoadsTheCachedLibrary) {
  const Graph graph = BuildModel(SyntheticSpec("conv_block", "conv_block", 16, 1), 1);
  const auto inputs = Inputs(graph);
  const Compiled first = RunTvm(graph, inputs);
  const Compiled second = RunTvm(graph, inputs);
  EXPECT_EQ(first.settings.at("cache_hit"), "false");
  EXPECT_EQ(second.settings.at("cache_hit"), "true");
  EXPECT_EQ(first.settings.at("cache_key"), second.settings.at("cache_key"));
  // The first compile runs TVM's Python compiler (seconds); the second only loads a library.
  EXPECT_LT(second.compile_s * 10, first.compile_s)
      << "first " << first.compile_s << " s, second " << second.compile_s << " s";
  EXPECT_EQ(first.outputs[0].data, second.outputs[0].data);

  // Another batch size is another model: its own entry, not the cached one.
  const Graph batch2 = BuildModel(SyntheticSpec("conv_block", "conv_block", 16, 1), 2);
  const Compiled other = RunTvm(batch2, Inputs(batch2));
  EXPECT_EQ(other.settings.at("cache_hit"), "false");
  EXPECT_NE(other.settings.at("cache_key"), first.settings.at("cache_key"));
}

// Offline: two contexts, each a Relax VM of the one library with its own inputs, run at once
// from two threads (each thread with a TVM pool of its own, threads 2 / streams 2 = 1 each) and
// compute what the single-stream VM computes; the single-stream executable has no contexts.
TEST_F(Tvm, OfflineContextsRunConcurrentlyAndMatchTheSingleStream) {
  const Graph graph = BuildModel(SyntheticSpec("linear", "linear", 32, 0), 2);
  const std::string bytes = ExportOnnx(graph);
  const std::vector<std::vector<HostTensor>> inputs = {test_support::RandomInputs(graph, 1),
                                                       test_support::RandomInputs(graph, 2)};
  CompilerConfig config = Config("tvm", TvmOptions(0, 480));
  auto single = compiler_->Compile({graph, bytes, config, cache_dir_});
  EXPECT_EQ(single->NewContext(), nullptr);
  std::vector<HostTensor> expected;
  for (const auto& in : inputs) expected.push_back(test_support::RunExecutable(*single, in).at(0));

  config.threads = 2;
  test_support::ExpectOfflineStreamsMatch(*compiler_, {graph, bytes, config, cache_dir_}, inputs,
                                         expected);
}

// A cache entry is complete or absent (compile_helper.h's CacheEntryBuild): a compile that fails
// (here its python cannot run) leaves neither a partial <key>/ folder, which a later run would
// find half-written, nor the folder it was written in.
TEST_F(Tvm, AFailedCompileLeavesNoCacheEntry) {
  ::setenv("NGRAPHBENCH_TVM_PYTHON", "/bin/false", 1);
  const Graph graph = BuildModel(SyntheticSpec("linear", "linear", 8, 0), 1);
  const std::string bytes = ExportOnnx(graph);
  const CompileRequest request{graph, bytes, Config("tvm", TvmOptions(0, 480)), cache_dir_};
  EXPECT_THROW(compiler_->Compile(request), CompileError);
  ::unsetenv("NGRAPHBENCH_TVM_PYTHON");
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(fs::path(cache_dir_) / "tvm")) {
    left.push_back(e.path().filename().string());
  }
  EXPECT_EQ(left, std::vector<std::string>{});
}

// The cache key covers the modules the compile script imports from its folder (tvm_*.py):
// a changed default schedule in tvm_schedules.py is a new build, not the cached one.
TEST_F(Tvm, CacheKeyCoversTheScriptsModules) {
  const fs::path scripts = fs::path(cache_dir_) / "python";
  fs::create_directories(scripts);
  // The script and every module beside it (tvm_*.py), as the compiler finds them.
  for (const auto& entry :
       fs::directory_iterator(fs::path(NGB_SOURCE_DIR) / "src/ngraphbench/compilers/tvm")) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("tvm_", 0) == 0 && entry.path().extension() == ".py") {
      fs::copy_file(entry.path(), scripts / name);
    }
  }
  ::setenv("NGRAPHBENCH_TVM_COMPILE_SCRIPT", (scripts / "tvm_compile.py").c_str(), 1);
  const Graph graph = BuildModel(SyntheticSpec("conv_block", "conv_block", 16, 1), 1);
  const auto inputs = Inputs(graph);
  const Compiled first = RunTvm(graph, inputs);
  const Compiled again = RunTvm(graph, inputs);
  std::ofstream(scripts / "tvm_schedules.py", std::ios::app) << "\n# another schedule\n";
  const Compiled changed = RunTvm(graph, inputs);
  ::unsetenv("NGRAPHBENCH_TVM_COMPILE_SCRIPT");
  EXPECT_EQ(first.settings.at("cache_hit"), "false");
  EXPECT_EQ(again.settings.at("cache_hit"), "true");
  EXPECT_EQ(changed.settings.at("cache_hit"), "false");
  EXPECT_NE(changed.settings.at("cache_key"), first.settings.at("cache_key"));
  EXPECT_EQ(changed.outputs[0].data, first.outputs[0].data);
}

// A model too large for one protobuf reaches TVM as a file with its weights beside it
// (CompileRequest::onnx_path); forced here on a small one. It computes what its bytes compute,
// and its cache entry is keyed on the weights in the side file too.
TEST_F(Tvm, ModelFileWithExternalDataMatchesBytesAndKeysOnTheData) {
  const fs::path dir = fs::path(cache_dir_) / "model";
  fs::create_directories(dir);
  const std::string path = (dir / "model.onnx").string();
  const Graph graph = BuildModel(SyntheticSpec("linear", "linear", 64, 0), 2);
  const std::string data = ExportOnnxFile(graph, path, /*force_external_data=*/true);
  ASSERT_FALSE(data.empty());
  const auto inputs = Inputs(graph);
  const CompilerConfig config = Config("tvm", TvmOptions(0, 480));
  const std::string no_bytes;
  auto by_path = [&] {
    CompileRequest request{graph, no_bytes, config, cache_dir_};
    request.onnx_path = path;
    auto exe = compiler_->Compile(request);
    exe->SetInputs(inputs);
    exe->Run();
    Compiled c;
    c.outputs = exe->GetOutputs();
    c.settings = exe->EffectiveSettings();
    return c;
  };
  const Compiled from_file = by_path();
  const Compiled from_bytes = RunTvm(graph, inputs);
  EXPECT_EQ(from_file.settings.at("cache_hit"), "false");
  EXPECT_EQ(from_file.outputs[0].data, from_bytes.outputs[0].data);
  EXPECT_TRUE(fs::exists(path)) << "the caller's model file is the caller's to remove";

  // Other weights in the side file, the same .onnx: another model, not the cached one.
  {
    std::fstream f(data, std::ios::in | std::ios::out | std::ios::binary);
    const float changed = 0.5f;
    f.write(reinterpret_cast<const char*>(&changed), sizeof changed);
  }
  const Compiled changed = by_path();
  EXPECT_EQ(changed.settings.at("cache_hit"), "false");
  EXPECT_NE(changed.settings.at("cache_key"), from_file.settings.at("cache_key"));
  EXPECT_NE(changed.outputs[0].data, from_file.outputs[0].data);
}

// Precision int8: the QDQ model of ONNX Runtime's quantizer, from the same cache entry as the
// onnxruntime compiler's, compiled by Relax. It computes what the QDQ model computes (ONNX
// Runtime's integer kernels on the same model agree), its outputs are not fp32's, and both
// blocks' lie within the int8 bounds of fp32's (the attention block's since its elementwise
// operators, Softmax and products stay float: 18 dB before). What its kernels compute in is
// counted from the compiled functions: Relax dequantizes to float32 before every convolution and
// matrix product, so the row is degraded and says so.
TEST_F(Tvm, Int8CompilesTheQdqModelAndSaysItsKernelsRanInFloat) {
  NGB_REQUIRE_BUILT("onnxruntime");  // the quantizer, and the references
  auto ort = LoadCompiler("onnxruntime");
  CompilerConfig ort_config =
      Config("onnxruntime", Options({{"inter_op_threads", "1"}, {"execution_mode", "sequential"}}));
  ort_config.precision = "int8";
  struct Case {
    const char* family;
    const char* experiment;
    int width;
    int float_kernels;  // Conv; the attention's 4 projections and its 2 products
  };
  for (const Case& c :
       {Case{"conv_block", "conv_blocks", 16, 1}, Case{"mha_block", "mha_blocks", 64, 6}}) {
    const Graph graph = BuildModel(SyntheticSpec(c.family, c.experiment, c.width, 1), 1);
    const std::string bytes = ExportOnnx(graph);
    const auto inputs = Inputs(graph);
    CompilerConfig config = Config("tvm", TvmOptions(0, 480));
    config.precision = "int8";
    auto exe = compiler_->Compile({graph, bytes, config, cache_dir_});
    exe->SetInputs(inputs);
    exe->Run();
    const std::vector<HostTensor> outputs = exe->GetOutputs();
    const auto settings = exe->EffectiveSettings();
    EXPECT_EQ(settings.at("quantize_cache_hit"), "false") << c.family;
    EXPECT_NE(settings.at("quantization").find("a=uint8/per_tensor/asymmetric"),
              std::string::npos)
        << settings.at("quantization");
    EXPECT_EQ(settings.at("int8_kernels"), "0") << c.family;
    EXPECT_EQ(settings.at("float_kernels"), std::to_string(c.float_kernels)) << c.family;
    EXPECT_GT(std::stoi(settings.at("int8_io_functions")), 0) << c.family;
    const std::vector<std::string> degraded = exe->Degraded();
    ASSERT_EQ(degraded.size(), 1u) << c.family;
    EXPECT_EQ(degraded[0].rfind("tvm: quantized model ran float kernels: " +
                                    settings.at("float_kernels") + " of " +
                                    settings.at("float_kernels"),
                                0),
              0u)
        << degraded[0];

    // The onnxruntime compiler's int8 compile of the same model finds the entry tvm made, and
    // its integer kernels compute what TVM's float ones do, but for values on a rounding
    // boundary of a requantization.
    const test_support::Compiled ort_int8 =
        test_support::CompileAndRun(*ort, ort_config, graph, inputs, cache_dir_);
    EXPECT_EQ(ort_int8.settings.at("quantize_cache_hit"), "true") << c.family;
    EXPECT_EQ(ort_int8.settings.at("quantize_key"), settings.at("quantize_key")) << c.family;
    const QuantAccuracy same = CompareQuantized(outputs, ort_int8.outputs);
    EXPECT_GT(same.snr_db, 25) << c.family << ": against ONNX Runtime's int8, cosine "
                               << same.cosine << ", SNR " << same.snr_db;

    const QuantAccuracy a =
        CompareQuantized(outputs, test_support::OnnxRuntimeReference(graph, inputs).outputs);
    EXPECT_TRUE(a.mismatch.empty()) << c.family << ": " << a.mismatch;
    EXPECT_LT(a.snr_db, 80) << c.family << ": the int8 outputs are fp32's";
    EXPECT_TRUE(WithinInt8Bounds(a)) << c.family << ": cosine " << a.cosine << ", SNR "
                                     << a.snr_db;
  }
}

TEST_F(Tvm, QuickRunsNeverTune) {
  const Graph graph = BuildModel(SyntheticSpec("conv_block", "conv_block", 16, 1), 1);
  const Compiled c = RunTvm(graph, Inputs(graph), /*trials=*/64, 480, /*quick=*/true);
  EXPECT_EQ(c.settings.at("tuning"), "skipped:quick");
  EXPECT_EQ(c.settings.at("tuned"), "false");
  EXPECT_EQ(c.settings.at("trials"), "0");
  EXPECT_EQ(c.settings.at("trials_requested"), "64");
}

// A target of another architecture is cross compiled (tvm_compile.py links with its cross g++,
// scripts/aarch64_check.sh runs such a library emulated): never tuned here, where its candidates
// cannot run, and its library never loaded into this process. Where the cross g++ is missing, the
// error names its Debian package. Nothing of a failed compile is cached.
TEST_F(Tvm, ATargetOfAnotherArchitectureIsCrossCompiledNeverTunedOrLoadedHere) {
  const std::string other = HostArch() == "aarch64" ? "x86_64" : "aarch64";
  const std::string target = R"({"kind": "llvm", "mtriple": ")" + other + R"(-linux-gnu"})";
  const Graph graph = BuildModel(SyntheticSpec("conv2d", "conv2d", 16, 1), 1);
  const auto compile_error = [&](int64_t trials) -> std::string {
    std::map<std::string, std::string> values = TvmOptions(trials, 480).values();
    values["target"] = target;
    try {
      CompileAndRun(*compiler_, Config("tvm", Options(values)), graph, Inputs(graph),
                    cache_dir_);
    } catch (const CompileError& e) {
      return e.what();
    }
    return "(compiled and ran)";
  };
  const std::string tuned = compile_error(8);
  EXPECT_NE(tuned.find("tuning measures its candidates on this machine"), std::string::npos)
      << tuned;
  const std::string untuned = compile_error(0);
  const std::string package = other == "aarch64" ? "g++-aarch64-linux-gnu" : "g++-x86-64-linux-gnu";
  const bool linked = untuned.find("built a library for " + other) != std::string::npos;
  EXPECT_TRUE(linked || untuned.find("apt-get install " + package) != std::string::npos)
      << untuned;
  EXPECT_TRUE(linked || fs::is_empty(fs::path(cache_dir_) / "tvm"))
      << "a compile that failed left a cache entry";
}

// A tuning that completes: the search, cut at its own time (tuning_search_s, here 1 s: past
// it once every task has measured its first candidates) with most of its budget unspent, the
// records it found re-measured against the default schedules, then the tuned and the untuned
// library timed side by side; the row runs the faster one and says which, with both times, and
// the outputs are right either way. The cached entry keeps that choice: a cut search is kept
// like a completed one.
TEST_F(Tvm, ATunedRunKeepsTheFasterOfTheTunedAndUntunedLibraries) {
  const Graph graph = BuildModel(SyntheticSpec("conv_block", "conv_block", 16, 1), 1);
  const auto inputs = Inputs(graph);
  const int64_t trials = 64;
  const Compiled c = RunTvm(graph, inputs, trials, /*timeout_s=*/600, false, /*search_s=*/1);
  const auto& s = c.settings;
  ASSERT_EQ(s.at("tuning"), "ok") << s.at("tuning");
  EXPECT_GE(std::stoi(s.at("trials")), 1);
  EXPECT_LT(std::stoi(s.at("trials")), trials);
  EXPECT_EQ(s.at("search_cut"), "true");
  EXPECT_EQ(s.at("tasks_cut"), s.at("tasks"));
  EXPECT_EQ(s.at("tasks_tuned"), s.at("tasks"));
  const double tuned_ms = std::stod(s.at("tuned_ms"));
  const double untuned_ms = std::stod(s.at("untuned_ms"));
  EXPECT_GT(tuned_ms, 0);
  EXPECT_GT(untuned_ms, 0);
  EXPECT_EQ(s.at("kept"), tuned_ms < untuned_ms ? "tuned" : "untuned");
  EXPECT_EQ(s.at("tuned"), s.at("kept") == "tuned" ? "true" : "false");
  ExpectClose(c.outputs, test_support::OnnxRuntimeReference(graph, inputs).outputs, "tuned run");
  const Compiled again = RunTvm(graph, inputs, trials, 600, false, 1);
  EXPECT_EQ(again.settings.at("cache_hit"), "true");
  EXPECT_EQ(again.settings.at("kept"), s.at("kept"));
  EXPECT_EQ(again.outputs[0].data, c.outputs[0].data);
}

// Tuning that cannot finish in its budget falls back to the untuned build and says so.
TEST_F(Tvm, TuningOverBudgetFallsBackToTheUntunedBuild) {
  const Graph graph = BuildModel(SyntheticSpec("conv_block", "conv_block", 16, 1), 1);
  const auto inputs = Inputs(graph);
  const Compiled untuned = RunTvm(graph, inputs);
  const Compiled c = RunTvm(graph, inputs, /*trials=*/64, /*timeout_s=*/1);
  EXPECT_EQ(c.settings.at("tuning").rfind("failed:timeout", 0), 0u) << c.settings.at("tuning");
  EXPECT_EQ(c.settings.at("tuned"), "false");
  EXPECT_EQ(c.settings.at("cache_hit"), "false");
  EXPECT_EQ(c.outputs[0].data, untuned.outputs[0].data);
  // A failed tuning is not cached: the next compile tries again.
  const Compiled again = RunTvm(graph, inputs, 64, 1);
  EXPECT_EQ(again.settings.at("cache_hit"), "false");
}

}  // namespace
}  // namespace ngraphbench
