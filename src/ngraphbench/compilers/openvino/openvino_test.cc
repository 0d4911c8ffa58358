// The openvino module through its real entry point: what the generic conformance suite does not
// check — that configs/openvino.yaml maps onto the OpenVINO properties the compiled model reports,
// and that a wrong request fails as a CompileError naming what was wrong.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/experiments/config.h"
#include "ngraphbench/graph/onnx_io.h"
#include "ngraphbench/measure/quant_check.h"
#include "ngraphbench/models/builder.h"
#include "ngraphbench/models/zoo.h"
#include "conformance/compare_support.h"
#include "require_compiler.h"

namespace ngraphbench {
namespace {

using test_support::MaxAbsDiff;

// Y = relu(X · Wᵀ + B): small enough to check against a loop here.
Graph LinearRelu() {
  GraphBuilder b("openvino_test_linear");
  std::string y = b.Linear(b.Input("input", {4, 32}), 16);
  b.Output(b.Unary("Relu", y));
  return b.Finish();
}

HostTensor Reference(const Graph& graph, const HostTensor& x) {
  const Node& linear = graph.nodes.front();
  const HostTensor& w = graph.FindInitializer(linear.inputs[1])->tensor;
  const HostTensor& bias = graph.FindInitializer(linear.inputs[2])->tensor;
  const int64_t rows = x.shape[0], in = x.shape[1], out = w.shape[0];
  HostTensor y{{rows, out}, std::vector<float>(rows * out)};
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t o = 0; o < out; ++o) {
      double sum = bias.data[o];
      for (int64_t i = 0; i < in; ++i) sum += double(x.data[r * in + i]) * w.data[o * in + i];
      y.data[r * out + o] = sum > 0 ? static_cast<float>(sum) : 0.0f;
    }
  }
  return y;
}

class OpenVinoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    NGB_REQUIRE_BUILT("openvino");
    compiler_ = LoadCompiler("openvino");
    config_ = DefaultCompilerConfig(FindCompiler("openvino"));
    onnx_ = ExportOnnx(graph_);
    x_ = RandomNormal({4, 32}, 7);
  }

  std::unique_ptr<Executable> Compile() {
    return compiler_->Compile({graph_, onnx_, config_, ""});
  }

  // Runs once and returns the largest deviation from Reference().
  float RunError(Executable& executable) {
    executable.SetInputs({x_});
    executable.Run();
    return MaxAbsDiff(executable.GetOutputs().at(0), Reference(graph_, x_));
  }

  void SetOption(const std::string& key, const std::string& value) {
    auto values = config_.options.values();
    values[key] = value;
    config_.options = Options(values);
  }

  std::unique_ptr<Compiler> compiler_;
  const Graph graph_ = LinearRelu();
  CompilerConfig config_;
  std::string onnx_;
  HostTensor x_;
};

TEST_F(OpenVinoTest, ConfigFileMatchesTheRegistrySchema) {
  CompilerConfig config = LoadCompilerConfig(std::string(NGB_SOURCE_DIR) + "/configs/openvino.yaml",
                                             FindCompiler("openvino"));
  EXPECT_EQ(config.device, "cpu");
  EXPECT_EQ(config.precision, "fp32");
  EXPECT_EQ(config.options.String("performance_hint"), "LATENCY");
  EXPECT_EQ(config.options.Int("num_streams"), 0);
  EXPECT_EQ(config.options.String("cache_dir"), "");
}

TEST_F(OpenVinoTest, VersionNamesTheSdk) {
  EXPECT_EQ(compiler_->Version().rfind("openvino 20", 0), 0u) << compiler_->Version();
}

// On CPUs with AMX or AVX512_BF16, OpenVINO's default for fp32 models is bf16; fp32 must mean f32.
TEST_F(OpenVinoTest, Fp32RunsInF32AndMatchesTheReference) {
  config_.threads = 1;
  auto executable = Compile();
  EXPECT_LT(RunError(*executable), 1e-5f);
  const auto settings = executable->EffectiveSettings();
  EXPECT_EQ(settings.at("inference_precision"), "f32");
  EXPECT_EQ(settings.at("threads"), "1");
  EXPECT_EQ(settings.at("performance_hint"), "LATENCY");
  EXPECT_EQ(settings.at("num_streams"), "1");
  EXPECT_EQ(settings.at("execution_devices"), "CPU");
}

TEST_F(OpenVinoTest, RepeatedRunsGiveTheSameOutput) {
  auto executable = Compile();
  executable->SetInputs({x_});
  executable->Run();
  const HostTensor first = executable->GetOutputs().at(0);
  executable->Run();
  EXPECT_EQ(executable->GetOutputs().at(0).data, first.data);
}

TEST_F(OpenVinoTest, OneStreamAndThreadsAreApplied) {
  config_.threads = 2;
  SetOption("num_streams", "1");
  auto executable = Compile();
  EXPECT_LT(RunError(*executable), 1e-5f);
  const auto settings = executable->EffectiveSettings();
  EXPECT_EQ(settings.at("performance_hint"), "LATENCY");
  EXPECT_EQ(settings.at("num_streams"), "1");
  EXPECT_EQ(settings.at("threads"), "2");
}

// configs/openvino.yaml cannot ask for several streams (config_test); a config made in code that
// does is refused by the module too, from the streams OpenVINO reports: one synchronous request
// would be timed on a model compiled for several.
TEST_F(OpenVinoTest, SeveralStreamsAreACompileError) {
  config_.threads = 2;
  SetOption("num_streams", "2");
  try {
    Compile();
    FAIL() << "num_streams 2 compiled";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("num_streams 2"), std::string::npos) << e.what();
  }
}

// Offline: the THROUGHPUT hint with num_streams = streams, whatever the config's hint; one
// infer request per stream, run at once from two threads, each on its own inputs, computing
// what the reference computes. num_streams in the config is refused with offline: the run's
// streams set it.
TEST_F(OpenVinoTest, OfflineStreamsRunConcurrentlyUnderTheThroughputHint) {
  config_.threads = 2;
  CompileRequest request{graph_, onnx_, config_, ""};
  const std::vector<HostTensor> x = {RandomNormal({4, 32}, 11), RandomNormal({4, 32}, 12)};
  const auto settings = test_support::ExpectOfflineStreamsMatch(
      *compiler_, request, {{x[0]}, {x[1]}}, {Reference(graph_, x[0]), Reference(graph_, x[1])});
  EXPECT_EQ(settings.at("performance_hint"), "THROUGHPUT");
  EXPECT_EQ(settings.at("num_streams"), "2");

  // auto: OpenVINO's optimal number of infer requests.
  request.offline = true;
  request.streams = 0;
  auto chosen = compiler_->Compile(request);
  EXPECT_EQ(std::to_string(chosen->Streams()),
            chosen->EffectiveSettings().at("optimal_infer_requests"));
  // A single-stream model has no contexts to give.
  EXPECT_EQ(Compile()->NewContext(), nullptr);

  SetOption("num_streams", "1");
  CompileRequest with_option{graph_, onnx_, config_, ""};
  with_option.offline = true;
  with_option.streams = 2;
  EXPECT_THROW(compiler_->Compile(with_option), CompileError);
}

TEST_F(OpenVinoTest, AutoDeviceReportsThePickedDevicesSettings) {
  config_.device = "auto";
  config_.threads = 1;
  auto executable = Compile();
  EXPECT_LT(RunError(*executable), 1e-5f);
  const auto settings = executable->EffectiveSettings();
  EXPECT_EQ(settings.at("inference_precision"), "f32");
  EXPECT_EQ(settings.at("threads"), "1");
}

// bf16 either runs in bf16 (within bf16 rounding of an fp32 reference) or, on a CPU without
// bf16 arithmetic, fails naming the precision; never a silent fp32 run labelled bf16.
TEST_F(OpenVinoTest, Bf16RunsInBf16OrFailsClearly) {
  config_.precision = "bf16";
  std::unique_ptr<Executable> executable;
  try {
    executable = Compile();
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("bf16"), std::string::npos) << e.what();
    return;
  }
  EXPECT_EQ(executable->EffectiveSettings().at("inference_precision"), "bf16");
  const float error = RunError(*executable);
  EXPECT_LT(error, 0.1f);
  EXPECT_GT(error, 1e-5f) << "bf16 should round the 32-term dot products";
}

// precision int8: NNCF quantizes a conv block on the calibration set, once (a second compile
// finds its cache entry); OpenVINO runs it with FakeQuantize layers, and its outputs differ from
// fp32's (it is not fp32 run silently) but lie within the int8 bounds.
TEST_F(OpenVinoTest, Int8QuantizesWithNncfOnceAndStaysWithinTheBounds) {
  const Graph g = BuildModel(SyntheticSpec("conv_block", "conv_blocks", 16, 1), 1);
  const std::string onnx = ExportOnnx(g);
  const auto cache = std::filesystem::temp_directory_path() /
                     ("ngb_openvino_int8_" + std::to_string(::getpid()));
  config_.threads = 1;
  const std::vector<HostTensor> x = {RandomNormal(g.inputs[0].shape, 7)};
  auto fp32 = compiler_->Compile({g, onnx, config_, cache.string()});
  fp32->SetInputs(x);
  fp32->Run();
  const auto reference = fp32->GetOutputs();
  config_.precision = "int8";
  for (const char* hit : {"false", "true"}) {
    auto exe = compiler_->Compile({g, onnx, config_, cache.string()});
    const auto settings = exe->EffectiveSettings();
    EXPECT_EQ(settings.at("quantize_cache_hit"), hit);
    EXPECT_EQ(settings.at("calibration_batches"), std::to_string(kCalibrationBatches));
    EXPECT_GT(std::stoi(settings.at("fake_quantize_nodes")), 0);
    // The execution graph runs the one convolution as an integer kernel ("..._I8").
    EXPECT_EQ(settings.at("int8_kernels"), "1");
    EXPECT_EQ(settings.at("float_kernels"), "0");
    EXPECT_NE(settings.at("int8_primitives").find("8:1"), std::string::npos)
        << settings.at("int8_primitives");
    EXPECT_EQ(settings.count("float_primitives"), 0u);
    EXPECT_TRUE(exe->Degraded().empty()) << exe->Degraded().front();
    EXPECT_TRUE(std::filesystem::exists(cache / "openvino-int8" / settings.at("quantize_key") /
                                        "quantized.xml"))
        << "quantize_key " << settings.at("quantize_key") << " names no cache entry";
    exe->SetInputs(x);
    exe->Run();
    const QuantAccuracy a = CompareQuantized(exe->GetOutputs(), reference);
    EXPECT_TRUE(a.mismatch.empty()) << a.mismatch;
    EXPECT_TRUE(WithinInt8Bounds(a)) << "cosine " << a.cosine << ", SNR " << a.snr_db;
    EXPECT_LT(a.snr_db, 80) << "the int8 outputs are fp32's";
  }
  std::filesystem::remove_all(cache);
}

TEST_F(OpenVinoTest, CacheDirReceivesTheCompiledModel) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ngb_openvino_cache_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  SetOption("cache_dir", dir.string());
  auto compiled = Compile();
  EXPECT_LT(RunError(*compiled), 1e-5f);
  EXPECT_EQ(compiled->EffectiveSettings().at("cache_hit"), "false");
  ASSERT_TRUE(std::filesystem::exists(dir));
  EXPECT_FALSE(std::filesystem::is_empty(dir));
  auto loaded = Compile();
  EXPECT_LT(RunError(*loaded), 1e-5f);
  EXPECT_EQ(loaded->EffectiveSettings().at("cache_hit"), "true");  // now loaded from the cache
  std::filesystem::remove_all(dir);
}

// A run's later processes import the model its first process compiled: a cold compile exports
// the blob, a compile that is not cold imports it (cache_hit) and computes what the cold one
// computed, a cold compile never imports it, and a blob that does not import is compiled again
// and replaced. Also for a model given by path, and in the offline scenario's streams.
TEST_F(OpenVinoTest, LaterProcessesImportTheCompiledModelAndComputeTheSame) {
  namespace fs = std::filesystem;
  const fs::path cache = fs::temp_directory_path() /
                         ("ngb_openvino_blobs_" + std::to_string(::getpid()));
  const fs::path model_dir = cache.string() + "_model";
  fs::remove_all(cache);
  fs::remove_all(model_dir);
  fs::create_directories(model_dir);
  const std::string path = (model_dir / "model.onnx").string();
  ASSERT_FALSE(ExportOnnxFile(graph_, path, /*force_external_data=*/true).empty());
  config_.threads = 2;
  const auto entries = [&] {
    std::vector<fs::path> found;
    for (const auto& e : fs::directory_iterator(cache / "openvino")) found.push_back(e.path());
    return found;
  };
  const std::string no_bytes;
  for (const bool by_path : {false, true}) {
    for (const bool offline : {false, true}) {
      SCOPED_TRACE(std::string(by_path ? "by path" : "bytes") + (offline ? ", offline" : ""));
      fs::remove_all(cache);
      double store_s = -1;  // the last compile's CacheStoreSeconds()
      const auto compile = [&](bool cold) {
        CompileRequest request{graph_, by_path ? no_bytes : onnx_, config_, cache.string()};
        if (by_path) request.onnx_path = path;
        request.offline = offline;
        request.streams = offline ? 2 : 1;
        request.cold = cold;
        auto executable = compiler_->Compile(request);
        std::unique_ptr<RunContext> context = executable->NewContext();
        RunContext& run = offline ? *context : *executable;
        run.SetInputs({x_});
        run.Run();
        store_s = executable->CacheStoreSeconds();
        return std::make_pair(executable->EffectiveSettings().at("cache_hit"),
                              run.GetOutputs().at(0));
      };

      const auto [first_hit, first] = compile(/*cold=*/true);
      EXPECT_EQ(first_hit, "false");
      EXPECT_GT(store_s, 0.0);  // the export, which compile_s leaves out
      EXPECT_LT(MaxAbsDiff(first, Reference(graph_, x_)), 1e-5f);
      ASSERT_EQ(entries().size(), 1u);
      const fs::path blob = entries()[0] / "model.blob";
      ASSERT_TRUE(fs::exists(blob));

      const auto [later_hit, later] = compile(/*cold=*/false);
      EXPECT_EQ(later_hit, "true");
      EXPECT_EQ(store_s, 0.0);  // imported: nothing stored
      ASSERT_EQ(later.shape, first.shape);
      EXPECT_LE(MaxAbsDiff(later, first), 1e-6f);

      EXPECT_EQ(compile(/*cold=*/true).first, "false");  // a cold compile does not import it

      std::ofstream(blob, std::ios::trunc) << "not a compiled model";
      const auto [damaged_hit, recompiled] = compile(/*cold=*/false);
      EXPECT_EQ(damaged_hit, "false");
      EXPECT_LE(MaxAbsDiff(recompiled, first), 1e-6f);
      EXPECT_EQ(compile(/*cold=*/false).first, "true");  // the blob was replaced
      EXPECT_EQ(entries().size(), 1u);
    }
  }
  // Another thread count is another entry: the blob carries the compiled model's properties.
  config_.threads = 1;
  CompileRequest one_thread{graph_, onnx_, config_, cache.string()};
  one_thread.cold = false;
  auto executable = compiler_->Compile(one_thread);
  EXPECT_EQ(executable->EffectiveSettings().at("cache_hit"), "false");
  EXPECT_EQ(executable->EffectiveSettings().at("threads"), "1");
  EXPECT_EQ(entries().size(), 2u);
  // Without a cache folder (a compile outside a run) nothing is cached.
  EXPECT_EQ(Compile()->EffectiveSettings().at("cache_hit"), "false");
  fs::remove_all(cache);
  fs::remove_all(model_dir);
}

TEST_F(OpenVinoTest, UnreadableOnnxIsACompileError) {
  onnx_ = "not an onnx model";
  EXPECT_THROW(Compile(), CompileError);
  onnx_.clear();
  EXPECT_THROW(Compile(), CompileError);
}

TEST_F(OpenVinoTest, MissingDeviceIsACompileErrorNamingIt) {
  config_.device = "gpu";
  try {
    Compile();
    GTEST_SKIP() << "this machine has an OpenVINO GPU device";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("GPU"), std::string::npos) << e.what();
  }
}

// A model too large for one protobuf reaches OpenVINO as a file with its weights beside it
// (CompileRequest::onnx_path); forced here on a small one, it computes what its bytes compute.
TEST_F(OpenVinoTest, ModelFileWithExternalDataComputesTheSameAsBytes) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ngb_ov_ext_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "model.onnx").string();
  ASSERT_FALSE(ExportOnnxFile(graph_, path, /*force_external_data=*/true).empty());

  const std::string no_bytes;
  CompileRequest request{graph_, no_bytes, config_, ""};
  request.onnx_path = path;
  auto from_file = compiler_->Compile(request);
  from_file->SetInputs({x_});
  from_file->Run();
  auto from_bytes = Compile();
  from_bytes->SetInputs({x_});
  from_bytes->Run();
  EXPECT_EQ(from_file->GetOutputs().at(0).data, from_bytes->GetOutputs().at(0).data);
  EXPECT_LT(MaxAbsDiff(from_file->GetOutputs().at(0), Reference(graph_, x_)), 1e-5f);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ngraphbench
