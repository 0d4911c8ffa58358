// The inductor module, loaded as a worker loads it: outputs against onnxruntime, the package
// cache, and what it refuses. One tiny model: an AOTInductor compile takes tens of seconds.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/tensor.h"
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
using test_support::OnnxRuntimeReference;

class Inductor : public test_support::CompilerModuleTest {
 protected:
  Inductor() : CompilerModuleTest("inductor") {}

  static CompilerConfig Config(const std::string& compiler, Options options) {
    CompilerConfig config;
    config.compiler = compiler;
    config.threads = 1;
    config.opt_level = "default";
    config.options = std::move(options);
    return config;
  }

  static Options InductorOptions(const std::string& route = "onnx2torch") {
    return Options({{"max_autotune", "false"}, {"freezing", "true"}, {"route", route}});
  }

  static std::vector<HostTensor> Inputs(const Graph& graph) {
    return test_support::RandomInputs(graph, 100);
  }
};

TEST_F(Inductor, VersionNamesTorchAndAotInductor) {
  EXPECT_EQ(compiler_->Version().rfind("torch 2.", 0), 0u) << compiler_->Version();
  EXPECT_NE(compiler_->Version().find("AOTInductor"), std::string::npos) << compiler_->Version();
}

// Refused before any compile subprocess starts, naming what it supports.
TEST_F(Inductor, RefusesFp16NamingFp32) {
  const Graph graph = BuildModel(SyntheticSpec("conv_block", "conv_block", 16, 1), 1);
  CompilerConfig config = Config("inductor", InductorOptions());
  config.precision = "fp16";
  const std::string onnx = ExportOnnx(graph);
  try {
    compiler_->Compile(CompileRequest{graph, onnx, config, cache_dir_});
    ADD_FAILURE() << "inductor compiled an fp16 config";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("fp16"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("fp32"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_empty(cache_dir_)) << "a refused config left a cache entry";
}

// One conv block (Conv3x3 -> BatchNorm -> ReLU, width 16): the package's outputs match
// onnxruntime's, and compiling the same model again loads the cached package. Offline with
// threads 2 split between 2 streams compiles for 1 thread a stream, the same package (so no
// second compile of tens of seconds), loaded with a runner per stream: two contexts run at once
// from two threads, each on its own inputs, and match onnxruntime.
TEST_F(Inductor, ConvBlockMatchesOnnxRuntimeIsCachedAndRunsOffline) {
  NGB_REQUIRE_BUILT("onnxruntime");  // the reference
  const Graph graph = BuildModel(SyntheticSpec("conv_block", "conv_block", 16, 1), 2);
  const auto inputs = Inputs(graph);
  const CompilerConfig config = Config("inductor", InductorOptions());

  const Compiled cold = CompileAndRun(*compiler_, config, graph, inputs, cache_dir_);
  const Compiled ref = OnnxRuntimeReference(graph, inputs);
  ExpectClose(cold.outputs, ref.outputs, "conv_block");
  EXPECT_EQ(cold.settings.at("cache_hit"), "false");
  EXPECT_EQ(cold.settings.at("threads"), "1");
  EXPECT_EQ(cold.settings.at("compiled_threads"), "1");
  EXPECT_EQ(cold.settings.at("max_autotune"), "false");
  EXPECT_EQ(cold.settings.at("freezing"), "true");
  EXPECT_EQ(cold.settings.at("torch_compiled_with").rfind("2.", 0), 0u)
      << cold.settings.at("torch_compiled_with");
  // One package entry and nothing else: Inductor's own caches (its vector-ISA probes, which
  // every compile on the machine reuses, and the compile's scratch) are not kept in it.
  std::vector<std::string> entries;
  for (const auto& e : fs::directory_iterator(fs::path(cache_dir_) / "inductor")) {
    entries.push_back(e.path().filename().string());
  }
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0], cold.settings.at("cache_key"));
  EXPECT_GT(std::stod(cold.settings.at("vec_isa_s")), 0) << "every compile probes the ISAs";

  const Compiled warm = CompileAndRun(*compiler_, config, graph, inputs, cache_dir_);
  EXPECT_EQ(warm.settings.at("cache_hit"), "true");
  EXPECT_EQ(warm.settings.at("cache_key"), cold.settings.at("cache_key"));
  ExpectClose(warm.outputs, ref.outputs, "conv_block (cached)");
  // A package load, not a compile: well under the cold compile and a few seconds at most.
  EXPECT_LT(warm.compile_s, std::min(5.0, cold.compile_s / 4))
      << "cold " << cold.compile_s << " s, cached " << warm.compile_s << " s";

  CompilerConfig two = config;
  two.threads = 2;
  const std::string onnx = ExportOnnx(graph);
  CompileRequest request{graph, onnx, two, cache_dir_};
  request.offline = true;
  request.streams = 2;
  auto offline = compiler_->Compile(request);
  ASSERT_EQ(offline->Streams(), 2);
  const auto settings = offline->EffectiveSettings();
  EXPECT_EQ(settings.at("cache_hit"), "true");
  EXPECT_EQ(settings.at("streams"), "2");
  EXPECT_EQ(settings.at("compiled_threads"), "1");
  EXPECT_EQ(settings.at("threads_per_stream"), "1");
  EXPECT_EQ(settings.at("threads"), "2");
  const std::vector<std::vector<HostTensor>> stream_inputs = {
      test_support::RandomInputs(graph, 1), test_support::RandomInputs(graph, 2)};
  const auto outputs = test_support::RunContextsConcurrently(*offline, stream_inputs);
  ASSERT_EQ(outputs.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    ExpectClose(outputs[i], OnnxRuntimeReference(graph, stream_inputs[i]).outputs,
                "offline stream " + std::to_string(i));
  }
}

// precision int8: the x86 Inductor quantizer (PT2E) quantizes the conv block on the calibration
// set, and Inductor lowers it to oneDNN's integer convolution: the outputs differ from fp32's (it
// is not fp32 run silently) but lie within the int8 bounds; a second compile loads the package,
// whose entry is not the fp32 one; the torchscript route quantizes too. Without freezing, and
// on cuda, int8 is refused before any compile.
TEST_F(Inductor, Int8QuantizesWithTheX86QuantizerIntoIntegerKernels) {
  NGB_REQUIRE_BUILT("onnxruntime");  // the reference
  const Graph graph = BuildModel(SyntheticSpec("conv_block", "conv_block", 16, 1), 2);
  const auto inputs = Inputs(graph);
  const Compiled ref = OnnxRuntimeReference(graph, inputs);
  const std::string onnx = ExportOnnx(graph);
  CompilerConfig config = Config("inductor", InductorOptions());
  config.precision = "int8";
  std::string key;
  for (const char* hit : {"false", "true"}) {
    auto exe = compiler_->Compile(CompileRequest{graph, onnx, config, cache_dir_});
    const auto settings = exe->EffectiveSettings();
    EXPECT_EQ(settings.at("cache_hit"), hit);
    EXPECT_EQ(settings.at("calibration_batches"), std::to_string(kCalibrationBatches));
    EXPECT_EQ(settings.at("quantization").rfind("pt2e:x86_inductor:w=int8/per_channel", 0), 0u)
        << settings.at("quantization");
    EXPECT_GT(std::stoi(settings.at("qdq_nodes")), 0);
    EXPECT_EQ(settings.at("int8_kernels"), "1");  // the one convolution
    EXPECT_EQ(settings.at("int8_kernels_by_name").rfind("qconv", 0), 0u)
        << settings.at("int8_kernels_by_name");
    EXPECT_TRUE(exe->Degraded().empty());
    const QuantAccuracy a =
        CompareQuantized(test_support::RunExecutable(*exe, inputs, 1), ref.outputs);
    EXPECT_TRUE(a.mismatch.empty()) << a.mismatch;
    EXPECT_TRUE(WithinInt8Bounds(a)) << "cosine " << a.cosine << ", SNR " << a.snr_db;
    EXPECT_LT(a.snr_db, 80) << "the int8 outputs are fp32's";
    if (key.empty()) key = settings.at("cache_key");
    EXPECT_EQ(settings.at("cache_key"), key);
  }
  // The torchscript route's program (PyTorch's TorchScript converter: aten.convolution, its
  // weights lifted constants) quantizes the same way, the batch norm folded into the
  // convolution.
  CompilerConfig traced = config;
  traced.options = Options({{"max_autotune", "false"}, {"freezing", "true"},
                            {"route", "torchscript"}});
  auto exe = compiler_->Compile(CompileRequest{graph, onnx, traced, cache_dir_});
  EXPECT_EQ(exe->EffectiveSettings().at("module"), "torchscript");
  EXPECT_EQ(exe->EffectiveSettings().at("int8_kernels"), "1");
  const QuantAccuracy a =
      CompareQuantized(test_support::RunExecutable(*exe, inputs, 1), ref.outputs);
  EXPECT_TRUE(WithinInt8Bounds(a)) << "cosine " << a.cosine << ", SNR " << a.snr_db;
  EXPECT_LT(a.snr_db, 80) << "the int8 outputs are fp32's";
  exe.reset();

  const auto refused = [&](const CompilerConfig& c, const std::string& want) {
    try {
      compiler_->Compile(CompileRequest{graph, onnx, c, cache_dir_});
      ADD_FAILURE() << "inductor compiled int8 where it should refuse: " << want;
    } catch (const CompileError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  };
  CompilerConfig unfrozen = config;
  unfrozen.options = Options({{"max_autotune", "false"}, {"freezing", "false"},
                              {"route", "onnx2torch"}});
  refused(unfrozen, "needs options.freezing true");
  CompilerConfig cuda = config;
  cuda.device = "cuda";
  refused(cuda, "int8 runs on device cpu only");
  // Two entries, the int8 packages of the two routes: the refusals compiled nothing.
  EXPECT_EQ(std::distance(fs::directory_iterator(fs::path(cache_dir_) / "inductor"),
                          fs::directory_iterator()),
            2);
}

// An attention block at int8: its four projections, MatMul and Add of constants in ONNX, become
// linear layers (inductor_compile.py, constant_matmuls_to_linear), which the quantizer annotates
// and Inductor lowers to oneDNN's integer matrix product, one call each; the attention's own
// products (of two activations) stay float, as the quantizer's default recipe leaves them.
TEST_F(Inductor, Int8AttentionProjectionsRunAsIntegerLinearKernels) {
  NGB_REQUIRE_BUILT("onnxruntime");  // the reference
  const Graph graph = BuildModel(SyntheticSpec("mha_block", "mha_block", 64, 1), 1);
  const auto inputs = Inputs(graph);
  const std::string onnx = ExportOnnx(graph);
  CompilerConfig config = Config("inductor", InductorOptions());
  config.precision = "int8";
  auto exe = compiler_->Compile(CompileRequest{graph, onnx, config, cache_dir_});
  const auto settings = exe->EffectiveSettings();
  EXPECT_EQ(settings.at("matmuls_to_linear"), "4");
  EXPECT_EQ(settings.at("int8_kernels_by_name"), "qlinear_pointwise_tensor:4");
  EXPECT_TRUE(exe->Degraded().empty());
  const QuantAccuracy a = CompareQuantized(test_support::RunExecutable(*exe, inputs, 1),
                                           OnnxRuntimeReference(graph, inputs).outputs);
  EXPECT_TRUE(a.mismatch.empty()) << a.mismatch;
  EXPECT_TRUE(WithinInt8Bounds(a)) << "cosine " << a.cosine << ", SNR " << a.snr_db;
  EXPECT_LT(a.snr_db, 80) << "the int8 outputs are fp32's";
}

// A model with nothing the quantizer annotates (no convolution or linear layer) cannot be
// quantized: the compile fails naming why, and leaves no cache entry, rather than run fp32 as
// int8.
TEST_F(Inductor, Int8RefusesAModelTheQuantizerLeavesFloat) {
  GraphBuilder b("relu_only");
  b.Output(b.Unary("Relu", b.Input("x", {2, 16, 8, 8})));
  const Graph graph = b.Finish();
  const std::string onnx = ExportOnnx(graph);
  CompilerConfig config = Config("inductor", InductorOptions());
  config.precision = "int8";
  try {
    compiler_->Compile(CompileRequest{graph, onnx, config, cache_dir_});
    ADD_FAILURE() << "inductor compiled a model its quantizer left float as int8";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("the x86 Inductor quantizer annotated no operator of "
                                         "the model"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("would run fp32"), std::string::npos) << e.what();
  }
  const fs::path entries = fs::path(cache_dir_) / "inductor";
  EXPECT_TRUE(!fs::exists(entries) || fs::is_empty(entries)) << "a failed compile left an entry";
}

// The torchscript route (option `route`): the model IR traced as the torchscript compiler traces
// it, exported by PyTorch's TorchScript converter. A Conv -> GlobalMaxPool model, whose
// GlobalMaxPool onnx2torch has no converter for: with `auto`, onnx2torch fails and the package
// is compiled by the torchscript route, which matches onnxruntime; the row names the route taken
// and why onnx2torch failed.
TEST_F(Inductor, AutoRouteTakesTheTorchScriptRouteWhereOnnx2TorchFails) {
  NGB_REQUIRE_BUILT("onnxruntime");  // the reference
  GraphBuilder b("conv_global_max_pool");
  const std::string x = b.Input("x", {2, 3, 8, 8});
  const std::string conv = b.Conv(x, 4, 3, 1, 1);
  b.Output(b.AddNode("GlobalMaxPool", {b.Unary("Relu", conv)}, {2, 4, 1, 1}));
  const Graph graph = b.Finish();
  const auto inputs = Inputs(graph);
  const Compiled got = CompileAndRun(*compiler_, Config("inductor", InductorOptions("auto")),
                                     graph, inputs, cache_dir_);
  ExpectClose(got.outputs, OnnxRuntimeReference(graph, inputs).outputs, "conv_global_max_pool");
  EXPECT_EQ(got.settings.at("module"), "torchscript");
  EXPECT_EQ(got.settings.at("route"), "auto");
  ASSERT_TRUE(got.settings.count("onnx2torch_failed"));
  EXPECT_NE(got.settings.at("onnx2torch_failed").find("GlobalMaxPool"), std::string::npos)
      << got.settings.at("onnx2torch_failed");
  // The failure is recorded in the cache: a later process takes the torchscript route's cached
  // package at once, with the same reason, rather than failing the conversion again.
  std::vector<std::string> failed;
  for (const auto& e : fs::directory_iterator(fs::path(cache_dir_) / "inductor")) {
    const std::string name = e.path().filename().string();
    if (name.size() > 7 && name.compare(name.size() - 7, 7, "-failed") == 0) failed.push_back(name);
  }
  ASSERT_EQ(failed.size(), 1u);
  // A reason no conversion would give: seen again only if the record was read.
  std::ofstream(fs::path(cache_dir_) / "inductor" / failed[0] / "reason.txt") << "as recorded";
  const Compiled again = CompileAndRun(*compiler_, Config("inductor", InductorOptions("auto")),
                                       graph, inputs, cache_dir_);
  EXPECT_EQ(again.settings.at("module"), "torchscript");
  EXPECT_EQ(again.settings.at("cache_hit"), "true");
  EXPECT_EQ(again.settings.at("onnx2torch_failed"), "as recorded");
}

// device cuda: where this LibTorch or this machine cannot run it (a CPU wheel, no GPU),
// Unavailable() says why and Compile() throws UnavailableError (a `skipped` row) before any
// compile subprocess starts; where it can, the conv block compiled for the GPU matches
// onnxruntime on the CPU.
TEST_F(Inductor, CudaIsUnavailableWithTheReasonOrMatchesOnnxRuntime) {
  const Graph graph = BuildModel(SyntheticSpec("conv_block", "conv_block", 16, 1), 2);
  const auto inputs = Inputs(graph);
  CompilerConfig config = Config("inductor", InductorOptions());
  config.device = "cuda";
  const std::string why = compiler_->Unavailable(config);
  if (!why.empty()) {
    EXPECT_EQ(why.rfind("inductor: device 'cuda'", 0), 0u) << why;
    const std::string onnx = ExportOnnx(graph);
    try {
      compiler_->Compile(CompileRequest{graph, onnx, config, cache_dir_});
      ADD_FAILURE() << "inductor compiled for cuda where it said: " << why;
    } catch (const UnavailableError& e) {
      EXPECT_NE(std::string(e.what()).find("cuda"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(fs::is_empty(cache_dir_)) << "an unavailable config left a cache entry";
    return;
  }
  NGB_REQUIRE_BUILT("onnxruntime");  // the reference
  const Compiled gpu = CompileAndRun(*compiler_, config, graph, inputs, cache_dir_);
  const Compiled ref = OnnxRuntimeReference(graph, inputs);
  ExpectClose(gpu.outputs, ref.outputs, "conv_block on cuda");
  EXPECT_EQ(gpu.settings.at("device"), "cuda:0");
}

}  // namespace
}  // namespace ngraphbench
