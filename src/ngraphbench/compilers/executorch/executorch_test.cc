// The executorch module, loaded as a worker loads it: outputs against onnxruntime, the program
// cache, what XNNPACK took (and Degraded() when it did not take everything), the thread pool,
// and what it refuses. Small models: each lowering takes seconds. Its ETDump profile is
// checked with every compiler's, in tests/conformance/compiler_profile_test.cc.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
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

class ExecuTorch : public test_support::CompilerModuleTest {
 protected:
  ExecuTorch() : CompilerModuleTest("executorch") {}

  static CompilerConfig Config(const std::string& compiler, int threads = 1) {
    CompilerConfig config;
    config.compiler = compiler;
    config.threads = threads;
    config.opt_level = "default";
    config.options = Options({{"route", std::string("auto")}});
    return config;
  }
};

TEST_F(ExecuTorch, VersionNamesExecuTorchAndXnnpack) {
  EXPECT_EQ(compiler_->Version().rfind("executorch 1.", 0), 0u) << compiler_->Version();
  EXPECT_NE(compiler_->Version().find("XNNPACK"), std::string::npos) << compiler_->Version();
}

// Refused before any compile subprocess starts, naming what it supports.
TEST_F(ExecuTorch, RefusesFp16AndCuda) {
  const Graph graph = BuildModel(SyntheticSpec("conv_block", "conv_block", 16, 1), 1);
  const std::string onnx = ExportOnnx(graph);
  CompilerConfig fp16 = Config("executorch");
  fp16.precision = "fp16";
  try {
    compiler_->Compile(CompileRequest{graph, onnx, fp16, cache_dir_});
    ADD_FAILURE() << "executorch compiled an fp16 config";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("fp16"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("fp32"), std::string::npos) << e.what();
  }
  CompilerConfig cuda = Config("executorch");
  cuda.device = "cuda";
  EXPECT_NE(compiler_->Unavailable(cuda).find("cpu"), std::string::npos);
  EXPECT_THROW(compiler_->Compile(CompileRequest{graph, onnx, cuda, cache_dir_}),
               UnavailableError);
  EXPECT_TRUE(fs::is_empty(cache_dir_)) << "a refused config left a cache entry";
}

// One conv block (Conv3x3 -> BatchNorm -> ReLU, width 16): XNNPACK takes all of it, the outputs
// match onnxruntime's, the pool has the configured threads, and compiling the same model again
// (with another thread count: not part of the program) loads the cached program.
TEST_F(ExecuTorch, ConvBlockIsAllXnnpackMatchesOnnxRuntimeAndIsCached) {
  NGB_REQUIRE_BUILT("onnxruntime");  // the reference
  const Graph graph = BuildModel(SyntheticSpec("conv_block", "conv_block", 16, 1), 2);
  const auto inputs = test_support::RandomInputs(graph, 100);

  const Compiled cold = CompileAndRun(*compiler_, Config("executorch", 1), graph, inputs,
                                      cache_dir_);
  const Compiled ref = OnnxRuntimeReference(graph, inputs);
  ExpectClose(cold.outputs, ref.outputs, "conv_block");
  EXPECT_EQ(cold.settings.at("cache_hit"), "false");
  EXPECT_EQ(cold.settings.at("threads"), "1");
  // Route auto: onnx2torch's module exports, so nothing falls back.
  EXPECT_EQ(cold.settings.at("module"), "onnx2torch");
  EXPECT_EQ(cold.settings.count("onnx2torch_failed"), 0u);
  EXPECT_EQ(cold.settings.at("xnnpack_fraction"), "1.0000");
  EXPECT_EQ(cold.settings.at("portable_ops"), "0");
  EXPECT_GE(std::stoi(cold.settings.at("xnnpack_ops")), 1);
  EXPECT_EQ(cold.settings.at("torch_compiled_with").rfind("2.", 0), 0u);
  ASSERT_EQ(std::distance(fs::directory_iterator(fs::path(cache_dir_) / "executorch"),
                          fs::directory_iterator()),
            1);

  const Compiled warm = CompileAndRun(*compiler_, Config("executorch", 2), graph, inputs,
                                      cache_dir_);
  EXPECT_EQ(warm.settings.at("cache_hit"), "true");
  EXPECT_EQ(warm.settings.at("cache_key"), cold.settings.at("cache_key"));
  EXPECT_EQ(warm.settings.at("threads"), "2");
  ExpectClose(warm.outputs, ref.outputs, "conv_block (cached, 2 threads)");
  // A program load, not a lowering.
  EXPECT_LT(warm.compile_s, std::min(2.0, cold.compile_s / 4))
      << "cold " << cold.compile_s << " s, cached " << warm.compile_s << " s";
}

// precision int8: the XNNPACK quantizer (PT2E) quantizes the conv block on the calibration set and
// XNNPACK takes every operator, the quantize/dequantize pairs included (its integer operators):
// the outputs differ from fp32's (it is not fp32 run silently) but lie within the int8 bounds;
// a second compile loads the program.
TEST_F(ExecuTorch, Int8ConvBlockIsQuantizedAndAllXnnpack) {
  NGB_REQUIRE_BUILT("onnxruntime");  // the reference
  const Graph graph = BuildModel(SyntheticSpec("conv_block", "conv_block", 16, 1), 2);
  const auto inputs = test_support::RandomInputs(graph, 100);
  const Compiled ref = OnnxRuntimeReference(graph, inputs);
  const std::string onnx = ExportOnnx(graph);
  CompilerConfig config = Config("executorch");
  config.precision = "int8";
  for (const char* hit : {"false", "true"}) {
    auto exe = compiler_->Compile(CompileRequest{graph, onnx, config, cache_dir_});
    const auto settings = exe->EffectiveSettings();
    EXPECT_EQ(settings.at("cache_hit"), hit);
    EXPECT_EQ(settings.at("calibration_batches"), std::to_string(kCalibrationBatches));
    EXPECT_EQ(settings.at("quantization").rfind("pt2e:xnnpack:w=int8/per_channel", 0), 0u)
        << settings.at("quantization");
    EXPECT_GT(std::stoi(settings.at("qdq_nodes")), 0);
    EXPECT_GT(std::stoi(settings.at("xnnpack_qdq_ops")), 0);
    EXPECT_EQ(settings.at("portable_qdq_ops"), "0");
    EXPECT_EQ(settings.at("xnnpack_fraction"), "1.0000");
    EXPECT_TRUE(exe->Degraded().empty());
    const QuantAccuracy a =
        CompareQuantized(test_support::RunExecutable(*exe, inputs, 1), ref.outputs);
    EXPECT_TRUE(a.mismatch.empty()) << a.mismatch;
    EXPECT_TRUE(WithinInt8Bounds(a)) << "cosine " << a.cosine << ", SNR " << a.snr_db;
    EXPECT_LT(a.snr_db, 80) << "the int8 outputs are fp32's";
  }
}

// A model with nothing the quantizer annotates (no convolution or linear layer) cannot be
// quantized: the compile fails naming why, and leaves no cache entry, rather than run fp32 as
// int8.
TEST_F(ExecuTorch, Int8RefusesAModelTheQuantizerLeavesFloat) {
  GraphBuilder b("relu_only");
  b.Output(b.Unary("Relu", b.Input("x", {2, 16, 8, 8})));
  const Graph graph = b.Finish();
  const std::string onnx = ExportOnnx(graph);
  CompilerConfig config = Config("executorch");
  config.precision = "int8";
  // One route: auto would try the traced module too, which fails the same way.
  config.options = Options({{"route", std::string("onnx2torch")}});
  try {
    compiler_->Compile(CompileRequest{graph, onnx, config, cache_dir_});
    ADD_FAILURE() << "executorch compiled a model its quantizer left float as int8";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("the XNNPACK quantizer annotated no operator of the "
                                         "model"),
              std::string::npos)
        << e.what();
  }
  const fs::path entries = fs::path(cache_dir_) / "executorch";
  EXPECT_TRUE(!fs::exists(entries) || fs::is_empty(entries)) << "a failed compile left an entry";
}

// An attention block at int8: the projections become linear layers (as for inductor) that the
// quantizer annotates, and XNNPACK takes every quantize and dequantize; onnx2torch's Expand stays
// outside XNNPACK as at fp32 (degraded, the test below), and the outputs lie within the bounds.
TEST_F(ExecuTorch, Int8AttentionKeepsTheQuantizedOperatorsInXnnpack) {
  NGB_REQUIRE_BUILT("onnxruntime");  // the reference
  const Graph graph = BuildModel(SyntheticSpec("mha_block", "mha_block", 64, 1), 1);
  const auto inputs = test_support::RandomInputs(graph, 7);
  const std::string onnx = ExportOnnx(graph);
  CompilerConfig config = Config("executorch");
  config.precision = "int8";
  auto exe = compiler_->Compile(CompileRequest{graph, onnx, config, cache_dir_});
  const auto settings = exe->EffectiveSettings();
  EXPECT_GT(std::stoi(settings.at("xnnpack_qdq_ops")), 0);
  EXPECT_EQ(settings.at("portable_qdq_ops"), "0");
  for (const std::string& why : exe->Degraded()) {
    EXPECT_EQ(why.find("quantize"), std::string::npos) << why;
  }
  const QuantAccuracy a = CompareQuantized(test_support::RunExecutable(*exe, inputs, 1),
                                           OnnxRuntimeReference(graph, inputs).outputs);
  EXPECT_TRUE(a.mismatch.empty()) << a.mismatch;
  EXPECT_TRUE(WithinInt8Bounds(a)) << "cosine " << a.cosine << ", SNR " << a.snr_db;
  EXPECT_LT(a.snr_db, 80) << "the int8 outputs are fp32's";
}

// Self-attention: onnx2torch's Expand of the attention's broadcast stays outside XNNPACK, in
// ExecuTorch's CPU kernels. The outputs are still right; the fraction says how much XNNPACK
// took, and Degraded() names what it left.
TEST_F(ExecuTorch, AttentionLeftPartlyToCpuKernelsIsDegradedButRight) {
  NGB_REQUIRE_BUILT("onnxruntime");
  const Graph graph = BuildModel(SyntheticSpec("mha_block", "mha_block", 64, 1), 1);
  const auto inputs = test_support::RandomInputs(graph, 7);
  const std::string onnx = ExportOnnx(graph);
  const CompilerConfig config = Config("executorch");
  auto exe = compiler_->Compile(CompileRequest{graph, onnx, config, cache_dir_});
  // A second run without new inputs computes the same (the inputs are outside the memory plan,
  // executorch_compile.py; planned, a later subgraph overwrote them: 2.3 off).
  const Compiled ref = OnnxRuntimeReference(graph, inputs);
  ExpectClose(test_support::RunExecutable(*exe, inputs, 1), ref.outputs, "mha_block, one run");
  ExpectClose(test_support::RunExecutable(*exe, inputs, 3), ref.outputs, "mha_block, 3 runs");
  const auto settings = exe->EffectiveSettings();
  const double fraction = std::stod(settings.at("xnnpack_fraction"));
  const std::vector<std::string> degraded = exe->Degraded();
  if (settings.at("portable_ops") == "0") {
    // A later executorch whose XNNPACK takes everything: then nothing may be degraded.
    EXPECT_EQ(fraction, 1.0);
    EXPECT_TRUE(degraded.empty());
  } else {
    EXPECT_GT(fraction, 0.5);
    EXPECT_LT(fraction, 1.0);
    ASSERT_EQ(degraded.size(), 1u);
    EXPECT_NE(degraded[0].find("outside XNNPACK"), std::string::npos) << degraded[0];
    EXPECT_NE(degraded[0].find(settings.at("portable_by_op")), std::string::npos) << degraded[0];
  }
  // Its profile: XNNPACK's operators and the runtime's kernels (their `native_call_<operator>`
  // events), never the runtime's events around them, which enclose those and would count their
  // time twice.
  const std::optional<KernelProfile> profile = exe->Profile(3);
  ASSERT_TRUE(profile.has_value());
  int runtime_kernels = 0;
  for (const ProfiledKernel& k : profile->kernels) {
    EXPECT_NE(k.name, "OPERATOR_CALL");
    EXPECT_NE(k.name, "DELEGATE_CALL");
    EXPECT_NE(k.name, "Method::execute");
    if (k.device == "ExecuTorch CPU kernels") {
      ++runtime_kernels;
      EXPECT_EQ(k.name.rfind("native_call_", 0), 0u) << k.name;
    }
  }
  EXPECT_EQ(runtime_kernels > 0, settings.at("portable_ops") != "0");
}

// A Resize to constant sizes, as timm's ghostnetv2_100 has: onnx2torch's module reads the sizes
// from its operand at run time, which torch.export cannot guard on (GuardOnDataDependentSymNode,
// which route onnx2torch stops at). Route auto falls back to tracing the module, whose program
// matches onnxruntime, and says so in the settings, also when a later process loads it.
TEST_F(ExecuTorch, AutoRouteTracesTheModuleWhereItsExportFails) {
  NGB_REQUIRE_BUILT("onnxruntime");  // the reference
  GraphBuilder b("resize_sizes");
  const std::string x = b.Input("input", {1, 3, 4, 5});
  const std::string conv = b.Conv(x, 4, 3, 1, 1);
  b.Output(b.AddNode("Resize", {conv, "", "", b.Int64Constant("sizes", {1, 4, 8, 10})},
                     {1, 4, 8, 10},
                     {{"mode", std::string("nearest")},
                      {"coordinate_transformation_mode", std::string("asymmetric")},
                      {"nearest_mode", std::string("floor")}}));
  const Graph graph = b.Finish();
  const auto inputs = test_support::RandomInputs(graph, 3);
  const Compiled got = CompileAndRun(*compiler_, Config("executorch"), graph, inputs, cache_dir_);
  ExpectClose(got.outputs, OnnxRuntimeReference(graph, inputs).outputs, "resize_sizes");
  EXPECT_EQ(got.settings.at("module"), "onnx2torch_traced");
  EXPECT_EQ(got.settings.at("route"), "auto");
  ASSERT_TRUE(got.settings.count("onnx2torch_failed"));
  EXPECT_NE(got.settings.at("onnx2torch_failed").find("GuardOnDataDependentSymNode"),
            std::string::npos)
      << got.settings.at("onnx2torch_failed");
  // Another process of the run loads the program, and says how it was made.
  const Compiled again =
      CompileAndRun(*compiler_, Config("executorch"), graph, inputs, cache_dir_);
  EXPECT_EQ(again.settings.at("cache_hit"), "true");
  EXPECT_EQ(again.settings.at("module"), "onnx2torch_traced");
}

// Offline: two contexts of one executable (two loads of the cached .pte), each on its own
// inputs, run at once from two threads, compute what one request at a time computes; the pool
// has one thread per stream (threads 2, streams 2). auto is one stream per thread; more than
// one thread per stream is refused, naming the one shared pool and what runs instead.
TEST_F(ExecuTorch, OfflineContextsRunConcurrentlyAndMatchTheSingleStream) {
  const Graph graph = BuildModel(SyntheticSpec("conv_block", "conv_block", 16, 1), 2);
  const std::string onnx = ExportOnnx(graph);
  const std::vector<std::vector<HostTensor>> inputs = {test_support::RandomInputs(graph, 1),
                                                       test_support::RandomInputs(graph, 2)};
  std::vector<HostTensor> expected;
  {
    auto single = compiler_->Compile(CompileRequest{graph, onnx, Config("executorch", 2),
                                                    cache_dir_});
    EXPECT_EQ(single->NewContext(), nullptr);  // compiled for one request at a time
    EXPECT_EQ(single->Streams(), 1);
    EXPECT_EQ(single->EffectiveSettings().count("streams"), 0u);
    for (const auto& in : inputs) {
      expected.push_back(test_support::RunExecutable(*single, in, 1).at(0));
    }
  }
  CompileRequest request{graph, onnx, Config("executorch", 2), cache_dir_};
  const auto settings =
      test_support::ExpectOfflineStreamsMatch(*compiler_, request, inputs, expected);
  EXPECT_EQ(settings.at("cache_hit"), "true");  // the single stream's program
  // auto: one stream per thread.
  request.offline = true;
  request.streams = 0;
  EXPECT_EQ(compiler_->Compile(request)->Streams(), 2);
  // One stream on threads 2 would be two threads per stream, as would threads 4 on 2 streams.
  for (const auto& [threads, streams] : {std::pair{2, 1}, std::pair{4, 2}}) {
    CompileRequest wide{graph, onnx, Config("executorch", threads), cache_dir_};
    wide.offline = true;
    wide.streams = streams;
    try {
      compiler_->Compile(wide);
      ADD_FAILURE() << "executorch compiled offline with threads " << threads << ", streams "
                    << streams;
    } catch (const CompileError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("2 threads per stream"), std::string::npos) << what;
      EXPECT_NE(what.find("one process-wide thread pool"), std::string::npos) << what;
      EXPECT_NE(what.find("streams: auto"), std::string::npos) << what;
    }
  }
  // One thread, one stream: the single stream's pool, served as a context.
  CompileRequest one{graph, onnx, Config("executorch", 1), cache_dir_};
  one.offline = true;
  one.streams = 1;
  auto exe = compiler_->Compile(one);
  EXPECT_EQ(exe->Streams(), 1);
  EXPECT_EQ(exe->EffectiveSettings().at("threads"), "1");
  const auto outputs = test_support::RunContextsConcurrently(*exe, {inputs[0]}, /*runs=*/3);
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_LT(test_support::MaxAbsDiff(outputs[0].at(0), expected[0]), 1e-5f);
}

}  // namespace
}  // namespace ngraphbench
