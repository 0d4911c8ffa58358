// What `identity` and `torchscript` promise beyond agreeing with each other (which
// conformance_test.cc checks): unsupported operators and attribute values fail at compile time
// naming the operator and the compiler; threads and precision are applied; freezing folds
// BatchNorm into Conv. Both modules use the same LibTorch, so one process may load both; inputs,
// runs and comparisons are the conformance suite's (compare_support.h).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/experiments/config.h"
#include "ngraphbench/models/builder.h"
#include "ngraphbench/models/zoo.h"
#include "conformance/compare_support.h"
#include "require_compiler.h"

namespace ngraphbench {
namespace {

using Attrs = std::map<std::string, AttrValue>;
using test_support::Compare;
using test_support::RandomInputs;
using test_support::RunExecutable;

class TorchCompilerTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    NGB_REQUIRE_BUILT(GetParam());
    compiler_ = LoadCompiler(GetParam());
  }

  CompilerConfig Config() const { return DefaultCompilerConfig(FindCompiler(GetParam())); }

  std::unique_ptr<Executable> Compile(const Graph& graph, const CompilerConfig& config) {
    static const std::string kNoOnnx;
    return compiler_->Compile({graph, kNoOnnx, config, ""});
  }

  std::vector<HostTensor> RunOnce(const Graph& graph, const CompilerConfig& config) {
    return RunExecutable(*Compile(graph, config), RandomInputs(graph, 100));
  }

  // Expects Compile() to throw a CompileError whose message names the compiler and `what`.
  void ExpectRefused(const Graph& graph, const std::string& what) {
    try {
      Compile(graph, Config());
      ADD_FAILURE() << GetParam() << " compiled a graph it should refuse (" << what << ")";
    } catch (const CompileError& e) {
      EXPECT_NE(std::string(e.what()).find(GetParam()), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  }

  std::unique_ptr<Compiler> compiler_;
};

Graph OneNode(const std::string& op, Attrs attrs) {
  GraphBuilder g("one_node");
  std::string x = g.Input("input", {2, 3, 8, 8});
  g.Output(g.AddNode(op, {x}, {2, 3, 4, 4}, std::move(attrs)));
  return g.Finish();
}

Graph ConvBlocks(int64_t depth) {
  ModelSpec spec{"conv_block", "conv_blocks_w16_d" + std::to_string(depth), 16, depth};
  return BuildModel(spec, 2);
}

// Every missing operator is named at once, with its count.
TEST_P(TorchCompilerTest, RefusesUnsupportedOperatorsAtCompileTimeAllAtOnce) {
  GraphBuilder g("missing_ops");
  std::string x = g.Input("input", {2, 3, 8, 8});
  x = g.Unary("Hardmax", g.Unary("Relu", g.Unary("Hardmax", x)));
  g.Output(g.Unary("LpNormalization", x));
  ExpectRefused(g.Finish(), "unsupported operators for " + GetParam() +
                                ": Hardmax (2), LpNormalization (1)");
}

// Nodes whose attributes are not supported are all reported in one error, each with its reason.
TEST_P(TorchCompilerTest, ReportsEveryNodeThatCannotRun) {
  GraphBuilder g("bad_nodes");
  std::string x = g.Input("input", {2, 3, 8, 8});
  x = g.AddNode("MaxPool", {x}, {2, 3, 4, 4},
                {{"kernel_shape", std::vector<int64_t>{2, 2}},
                 {"strides", std::vector<int64_t>{2, 2}},
                 {"storage_order", int64_t{1}}});
  x = g.Unary("Relu", x);
  g.Output(g.AddNode("Resize", {x, "", g.Buffer("scales", {{4}, {1, 1, 2, 2}})}, {2, 3, 8, 8},
                     {{"mode", std::string("cubic")},
                      {"coordinate_transformation_mode", std::string("asymmetric")}}));
  const Graph graph = g.Finish();
  for (const char* what : {"2 nodes cannot run", "storage_order", "'asymmetric'"}) {
    ExpectRefused(graph, what);
  }
}

TEST_P(TorchCompilerTest, RefusesUnsupportedAttributeValues) {
  const Attrs pool = {{"kernel_shape", std::vector<int64_t>{2, 2}},
                      {"strides", std::vector<int64_t>{2, 2}}};
  Attrs storage_order = pool;
  storage_order["storage_order"] = int64_t{1};
  ExpectRefused(OneNode("MaxPool", storage_order), "storage_order");
  Attrs asymmetric = pool;
  asymmetric["pads"] = std::vector<int64_t>{0, 0, 1, 1};
  ExpectRefused(OneNode("MaxPool", asymmetric), "asymmetric pads");
  Attrs unknown = pool;
  unknown["auto_pad"] = std::string("SOMETIMES");
  ExpectRefused(OneNode("AveragePool", unknown), "SOMETIMES");
  // An attribute the op does not know could change the result: refused, not ignored.
  Attrs extra = pool;
  extra["sparsity"] = int64_t{1};
  ExpectRefused(OneNode("MaxPool", extra), "sparsity");
}

// device cuda on a CPU-only LibTorch: the machine cannot run it (UnavailableError, a `skipped`
// row), said before anything is built (Unavailable) and again by Compile().
TEST_P(TorchCompilerTest, RefusesADeviceThisBuildLacks) {
  if (compiler_->Version().find("(CPU)") == std::string::npos) GTEST_SKIP() << "CUDA build";
  CompilerConfig config = Config();
  config.device = "cuda";
  const std::string why = compiler_->Unavailable(config);
  EXPECT_EQ(why.rfind(GetParam() + ": device 'cuda': ", 0), 0u) << why;
  try {
    Compile(ConvBlocks(1), config);
    ADD_FAILURE() << "compiled for cuda on a CPU-only LibTorch";
  } catch (const UnavailableError& e) {
    EXPECT_EQ(std::string(e.what()), why);
  }
  EXPECT_TRUE(compiler_->Unavailable(Config()).empty());
}

TEST_P(TorchCompilerTest, AppliesAndReportsThreads) {
  for (int threads : {1, 2}) {
    CompilerConfig config = Config();
    config.threads = threads;
    auto exe = Compile(ConvBlocks(1), config);
    EXPECT_EQ(exe->EffectiveSettings().at("threads"), std::to_string(threads));
  }
}

TEST_P(TorchCompilerTest, ReducedPrecisionStaysCloseToFp32) {
  const Graph graph = ConvBlocks(2);
  const std::vector<HostTensor> fp32 = RunOnce(graph, Config());
  // bf16 keeps 8 mantissa bits (relative step 2^-8 ~ 0.4%), fp16 11 bits; two conv layers of
  // 144-term sums stay within a few steps of the fp32 result.
  for (const auto& [precision, tolerance] : {std::pair<std::string, double>{"bf16", 5e-2},
                                             std::pair<std::string, double>{"fp16", 1e-2}}) {
    CompilerConfig config = Config();
    config.precision = precision;
    const std::vector<HostTensor> low = RunOnce(graph, config);
    double worst = 0;
    const std::string diff = Compare(fp32, low, graph, worst, tolerance);
    EXPECT_GT(worst, 0.0) << precision << " gave bit-identical fp32 results: not applied";
    EXPECT_TRUE(diff.empty()) << precision << ": " << diff;
  }
}

TEST_P(TorchCompilerTest, HandlesSeveralOutputsIncludingAGraphInput) {
  GraphBuilder g("two_outputs");
  std::string x = g.Input("input", {2, 5});
  g.Output(g.Unary("Relu", x));
  g.Output(g.Unary("Sigmoid", x));
  g.Output(x);
  const Graph graph = g.Finish();
  auto exe = Compile(graph, Config());
  const HostTensor in = RandomNormal({2, 5}, 3);
  const std::vector<HostTensor> out = RunExecutable(*exe, {in}, /*runs=*/2);
  ASSERT_EQ(out.size(), 3u);
  for (size_t i = 0; i < in.data.size(); ++i) {
    EXPECT_FLOAT_EQ(out[0].data[i], std::max(0.0f, in.data[i]));
    EXPECT_NEAR(out[1].data[i], 1.0f / (1.0f + std::exp(-in.data[i])), 1e-6f);
    EXPECT_EQ(out[2].data[i], in.data[i]);
  }
}

TEST_P(TorchCompilerTest, RejectsInputsOfTheWrongShape) {
  auto exe = Compile(ConvBlocks(1), Config());
  EXPECT_THROW(exe->SetInputs({RandomNormal({1, 16, 56, 56}, 1)}), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(LibTorch, TorchCompilerTest, ::testing::Values("identity", "torchscript"),
                         [](const auto& info) { return info.param; });

// Eager PyTorch runs Conv, BatchNorm and ReLU as three kernels per block; freezing folds the
// BatchNorm into the convolution's weights.
TEST(TorchScript, FreezingFoldsBatchNormIntoConv) {
  NGB_REQUIRE_BUILT("identity");
  NGB_REQUIRE_BUILT("torchscript");
  const Graph graph = ConvBlocks(2);
  static const std::string kNoOnnx;
  auto identity = LoadCompiler("identity");
  auto eager =
      identity->Compile({graph, kNoOnnx, DefaultCompilerConfig(FindCompiler("identity")), ""});
  EXPECT_EQ(eager->EffectiveSettings().at("ops"), "BatchNormalization:2,Conv:2,Relu:2");

  auto torchscript = LoadCompiler("torchscript");
  CompilerConfig config = DefaultCompilerConfig(FindCompiler("torchscript"));
  config.options = Options({{"freeze", "false"}, {"optimize_for_inference", "false"}});
  auto traced = torchscript->Compile({graph, kNoOnnx, config, ""});
  EXPECT_NE(traced->EffectiveSettings().at("ops").find("aten::batch_norm:2"), std::string::npos)
      << traced->EffectiveSettings().at("ops");

  config.options = Options({{"freeze", "true"}, {"optimize_for_inference", "false"}});
  auto frozen = torchscript->Compile({graph, kNoOnnx, config, ""});
  const std::string ops = frozen->EffectiveSettings().at("ops");
  EXPECT_EQ(ops.find("batch_norm"), std::string::npos) << ops;
  EXPECT_NE(ops.find("aten::_convolution:2"), std::string::npos) << ops;
}

// Offline: two contexts of one executable, each on its own inputs, run at once from two threads
// (identity: each on its own value slots; torchscript: the one module's forward), compute what
// one request at a time computes; the cores are split between them (threads 2, streams 2: 1
// thread each).
TEST_P(TorchCompilerTest, OfflineContextsRunConcurrentlyAndMatchTheSingleStream) {
  const Graph graph = ConvBlocks(2);
  CompilerConfig config = Config();
  config.threads = 2;
  const std::vector<std::vector<HostTensor>> inputs = {RandomInputs(graph, 1),
                                                       RandomInputs(graph, 2)};
  std::vector<HostTensor> expected;
  {
    auto single = Compile(graph, config);
    EXPECT_EQ(single->NewContext(), nullptr);  // compiled for one request at a time
    EXPECT_EQ(single->Streams(), 1);
    for (const auto& in : inputs) expected.push_back(RunExecutable(*single, in).at(0));
  }
  static const std::string kNoOnnx;
  CompileRequest request{graph, kNoOnnx, config, ""};
  test_support::ExpectOfflineStreamsMatch(*compiler_, request, inputs, expected);
  // auto: one stream per thread.
  request.offline = true;
  request.streams = 0;
  EXPECT_EQ(compiler_->Compile(request)->Streams(), 2);
}

}  // namespace
}  // namespace ngraphbench
