// The onnxruntime module against hand-written references, loaded as a worker loads it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ngraphbench/compilers/compile_helper.h"
#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/experiments/config.h"
#include "ngraphbench/graph/onnx_io.h"
#include "ngraphbench/measure/quant_check.h"
#include "ngraphbench/models/zoo.h"
#include "conformance/compare_support.h"
#include "require_compiler.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

class OnnxRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    NGB_REQUIRE_BUILT("onnxruntime");
    compiler_ = LoadCompiler("onnxruntime");
    config_.compiler = "onnxruntime";
    config_.threads = 1;
    config_.opt_level = "all";
    config_.options = Options({{"inter_op_threads", "1"}, {"execution_mode", "sequential"}});
  }

  HostTensor RunModel(const Graph& graph, const HostTensor& input) {
    const std::string onnx = ExportOnnx(graph);
    auto exe = compiler_->Compile(CompileRequest{graph, onnx, config_, ""});
    exe->SetInputs({input});
    exe->Run();
    auto outputs = exe->GetOutputs();
    EXPECT_EQ(outputs.size(), 1u);
    return outputs.at(0);
  }

  std::map<std::string, std::string> Settings(const Graph& graph) {
    const std::string onnx = ExportOnnx(graph);
    return compiler_->Compile(CompileRequest{graph, onnx, config_, ""})->EffectiveSettings();
  }

  std::unique_ptr<Compiler> compiler_;
  CompilerConfig config_;
};

TEST_F(OnnxRuntime, VersionComesFromTheLibrary) {
  EXPECT_EQ(compiler_->Version().rfind("onnxruntime 1.", 0), 0u) << compiler_->Version();
}

// `threads` is the intra-op pool ORT actually started (its worker threads plus the caller),
// not the configured value echoed back.
TEST_F(OnnxRuntime, ThreadsAreTheIntraOpPoolOrtStarted) {
  const Graph g = BuildModel(SyntheticSpec("linear", "linear", 64, 0), 1);
  for (int threads : {1, 2}) {
    config_.threads = threads;
    const auto settings = Settings(g);
    EXPECT_EQ(settings.at("threads"), std::to_string(threads));
    EXPECT_EQ(settings.at("threads_started"), std::to_string(threads - 1));
  }
  // 0 leaves the size to ORT (one thread per physical core): an echo would say 0.
  config_.threads = 0;
  EXPECT_GE(std::stoi(Settings(g).at("threads")), 1);
  // The inter-op pool of the parallel mode starts threads too, which cannot be told apart from
  // the intra-op pool's: then there is no "threads" at all.
  config_.threads = 2;
  config_.options = Options({{"inter_op_threads", "3"}, {"execution_mode", "parallel"}});
  const auto parallel = Settings(g);
  EXPECT_EQ(parallel.count("threads"), 0u);
  EXPECT_EQ(parallel.at("threads_started"), "3");  // (2 - 1) + (3 - 1)
}

// precision int8: the model is quantized (QDQ) on the calibration set, cached, and what runs is
// the quantized model: its outputs differ from fp32's (it is not fp32 run silently) but lie
// within the int8 bounds; a second compile loads the cache entry.
TEST_F(OnnxRuntime, Int8QuantizesOnceAndStaysWithinTheBounds) {
  const Graph g = BuildModel(SyntheticSpec("conv_block", "conv_blocks", 16, 1), 1);
  const std::string onnx = ExportOnnx(g);
  const fs::path cache = fs::temp_directory_path() /
                         ("ngb-ort-int8-test-" + std::to_string(::getpid()));
  const std::vector<HostTensor> x = {RandomNormal(g.inputs[0].shape, 7)};
  auto fp32 = compiler_->Compile(CompileRequest{g, onnx, config_, cache.string()});
  fp32->SetInputs(x);
  fp32->Run();
  const auto reference = fp32->GetOutputs();
  EXPECT_EQ(fp32->EffectiveSettings().count("quantization"), 0u);

  config_.precision = "int8";
  for (const char* hit : {"false", "true"}) {
    auto exe = compiler_->Compile(CompileRequest{g, onnx, config_, cache.string()});
    const auto settings = exe->EffectiveSettings();
    EXPECT_EQ(settings.at("quantize_cache_hit"), hit);
    EXPECT_EQ(settings.at("calibration_batches"), std::to_string(kCalibrationBatches));
    EXPECT_NE(settings.at("quantization").find("per_channel"), std::string::npos);
    EXPECT_GT(std::stoi(settings.at("qdq_nodes")), 0);
    // At opt_level all the session runs the convolution as an integer kernel (the census of its
    // optimized graph), on the CPU's integer instruction sets.
    EXPECT_NE(settings.at("int8_ops_by_type").find("QLinearConv:1"), std::string::npos)
        << settings.at("int8_ops_by_type");
    EXPECT_GE(std::stoi(settings.at("int8_kernels")), 1);
    EXPECT_EQ(settings.at("float_kernels"), "0");
    EXPECT_FALSE(settings.at("int8_isa").empty());
    EXPECT_TRUE(exe->Degraded().empty()) << exe->Degraded().front();
    EXPECT_TRUE(fs::exists(cache / "onnxruntime-int8" / settings.at("quantize_key") /
                           "quantized.onnx"))
        << "quantize_key " << settings.at("quantize_key") << " names no cache entry";
    exe->SetInputs(x);
    exe->Run();
    const QuantAccuracy a = CompareQuantized(exe->GetOutputs(), reference);
    EXPECT_TRUE(a.mismatch.empty()) << a.mismatch;
    EXPECT_TRUE(WithinInt8Bounds(a)) << "cosine " << a.cosine << ", SNR " << a.snr_db;
    EXPECT_LT(a.snr_db, 80) << "the int8 outputs are fp32's";
  }
  // Without graph optimizations the session runs DequantizeLinear and a float Conv: the same
  // quantized model (from the cache), now a degraded int8 build.
  config_.opt_level = "disable";
  {
    auto exe = compiler_->Compile(CompileRequest{g, onnx, config_, cache.string()});
    const auto settings = exe->EffectiveSettings();
    EXPECT_EQ(settings.at("quantize_cache_hit"), "true");
    EXPECT_EQ(settings.at("int8_kernels"), "0");
    EXPECT_EQ(settings.at("float_kernels"), "1");
    ASSERT_EQ(exe->Degraded().size(), 1u);
    EXPECT_NE(exe->Degraded()[0].find("no integer convolution or matrix product"),
              std::string::npos)
        << exe->Degraded()[0];
  }
  config_.opt_level = "all";
  config_.device = "cuda";
  try {
    compiler_->Compile(CompileRequest{g, onnx, config_, cache.string()});
    ADD_FAILURE() << "int8 on cuda compiled";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("int8 runs on device cpu only"), std::string::npos)
        << e.what();
  } catch (const UnavailableError&) {
    // No CUDA provider in this build: refused before int8 is looked at.
  }
  fs::remove_all(cache);
}

// Offline: two contexts of one session, each with its own inputs, run at once from two threads,
// give what a single-stream executable gives for the same inputs; the cores are split between
// them (threads 2, streams 2: a pool of 1, no pool threads, two calling threads).
TEST_F(OnnxRuntime, OfflineContextsRunConcurrentlyAndMatchTheSingleStream) {
  const Graph g = BuildModel(SyntheticSpec("conv_block", "conv_blocks", 16, 1), 1);
  const std::string onnx = ExportOnnx(g);
  const std::vector<HostTensor> x = {RandomNormal(g.inputs[0].shape, 1),
                                     RandomNormal(g.inputs[0].shape, 2)};
  config_.threads = 2;
  auto single = compiler_->Compile(CompileRequest{g, onnx, config_, ""});
  EXPECT_EQ(single->NewContext(), nullptr);  // compiled for one request at a time
  EXPECT_EQ(single->Streams(), 1);
  std::vector<HostTensor> expected;
  for (const HostTensor& input : x) {
    single->SetInputs({input});
    single->Run();
    expected.push_back(single->GetOutputs().at(0));
  }

  CompileRequest request{g, onnx, config_, ""};
  test_support::ExpectOfflineStreamsMatch(*compiler_, request, {{x[0]}, {x[1]}}, expected);
  EXPECT_GT(std::fabs(expected[0].data[0] - expected[1].data[0]), 0.0f);  // inputs differ

  // auto: one stream per thread, ONNX Runtime having no choice of its own.
  request.offline = true;
  request.streams = 0;
  EXPECT_EQ(compiler_->Compile(request)->Streams(), 2);
}

TEST_F(OnnxRuntime, FullyConnectedMatchesHandComputedProduct) {
  const Graph g = BuildModel(SyntheticSpec("linear", "linear", 64, 0), 3);
  const HostTensor x = RandomNormal({3, 64}, 7);
  const HostTensor y = RunModel(g, x);
  const auto& w = g.initializers[0].tensor.data;  // [out, in]
  const auto& b = g.initializers[1].tensor.data;
  ASSERT_EQ(y.shape, (Shape{3, 64}));
  for (int n = 0; n < 3; ++n) {
    for (int o = 0; o < 64; ++o) {
      double acc = b[o];
      for (int i = 0; i < 64; ++i) acc += double(x.data[n * 64 + i]) * w[o * 64 + i];
      EXPECT_NEAR(y.data[n * 64 + o], acc, 1e-4);
    }
  }
}

TEST_F(OnnxRuntime, Conv2dMatchesDirectConvolution) {
  const Graph g = BuildModel(SyntheticSpec("conv2d", "conv2d", 16, 0), 2);
  const HostTensor x = RandomNormal({2, 16, 56, 56}, 11);
  const HostTensor y = RunModel(g, x);
  const auto& w = g.initializers[0].tensor.data;  // [16, 16, 3, 3]
  const auto& b = g.initializers[1].tensor.data;
  double max_err = 0;
  for (int n = 0; n < 2; ++n) {
    for (int o = 0; o < 16; ++o) {
      for (int h = 0; h < 56; h += 5) {
        for (int v = 0; v < 56; v += 3) {
          double acc = b[o];
          for (int c = 0; c < 16; ++c) {
            for (int kh = 0; kh < 3; ++kh) {
              for (int kw = 0; kw < 3; ++kw) {
                int ih = h + kh - 1, iw = v + kw - 1;
                if (ih < 0 || iw < 0 || ih >= 56 || iw >= 56) continue;
                acc += double(x.data[((n * 16 + c) * 56 + ih) * 56 + iw]) *
                       w[((o * 16 + c) * 3 + kh) * 3 + kw];
              }
            }
          }
          max_err = std::max(max_err, std::fabs(acc - y.data[((n * 16 + o) * 56 + h) * 56 + v]));
        }
      }
    }
  }
  EXPECT_LT(max_err, 1e-4);
}

// He-scaled weights keep depth-16 stacks finite and non-degenerate.
TEST_F(OnnxRuntime, DeepStacksStayFiniteAndNonZero) {
  for (const auto& [family, width, shape] :
       {std::make_tuple("conv_block", 16, Shape{1, 16, 56, 56}),
        std::make_tuple("mha_block", 64, Shape{1, 197, 64}),
        std::make_tuple("mha_block", 768, Shape{1, 197, 768})}) {
    const HostTensor y =
        RunModel(BuildModel(SyntheticSpec(family, family, width, 16), 1), RandomNormal(shape, 3));
    double sum = 0, sum_sq = 0;
    for (float v : y.data) {
      ASSERT_TRUE(std::isfinite(v)) << family;
      sum += v;
      sum_sq += double(v) * v;
    }
    const double n = static_cast<double>(y.data.size());
    const double std = std::sqrt(sum_sq / n - (sum / n) * (sum / n));
    EXPECT_GT(std, 1e-2) << family << " w" << width;
    EXPECT_LT(std, 1e2) << family << " w" << width;
  }
}

TEST_F(OnnxRuntime, ImportedModelComputesTheSameAsTheBuiltOne) {
  const Graph built = BuildModel(SyntheticSpec("mha_block", "mha_block", 64, 2), 2);
  const Graph imported = ImportOnnx(ExportOnnx(built), "mem");
  const HostTensor x = RandomNormal({2, 197, 64}, 5);
  EXPECT_EQ(RunModel(built, x).data, RunModel(imported, x).data);
}

// A model too large for one protobuf reaches ORT as a file with its weights beside it
// (CompileRequest::onnx_path); forced here on a small one, it computes what its bytes compute.
TEST_F(OnnxRuntime, ModelFileWithExternalDataComputesTheSameAsBytes) {
  const fs::path dir = fs::temp_directory_path() / ("ngb_ort_ext_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "model.onnx").string();
  const Graph g = BuildModel(SyntheticSpec("mha_block", "mha_block", 64, 2), 2);
  ASSERT_FALSE(ExportOnnxFile(g, path, /*force_external_data=*/true).empty());
  const HostTensor x = RandomNormal({2, 197, 64}, 5);

  const std::string no_bytes;
  CompileRequest request{g, no_bytes, config_, ""};
  request.onnx_path = path;
  auto exe = compiler_->Compile(request);
  exe->SetInputs({x});
  exe->Run();
  const auto outputs = exe->GetOutputs();
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].data, RunModel(g, x).data);
  fs::remove_all(dir);
}

// The model's part of the key above (compile_helper.h): pieces digest as the whole they make,
// and one changed byte, or one more zero, changes it.
TEST(ContentDigest, PiecesDigestAsTheWholeAndEveryByteCounts) {
  std::string bytes(100, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 37 + 11);
  const std::string whole = ContentDigest().Add(bytes).Hex();
  EXPECT_EQ(whole.size(), 32u);
  for (size_t piece : {1, 7, 31, 32, 33, 64}) {
    ContentDigest digest;
    for (size_t at = 0; at < bytes.size(); at += piece) digest.Add(bytes.substr(at, piece));
    EXPECT_EQ(digest.Hex(), whole) << piece;
  }
  std::set<std::string> seen = {whole};
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string changed = bytes;
    changed[i] ^= 1;
    EXPECT_TRUE(seen.insert(ContentDigest().Add(changed).Hex()).second) << i;
  }
  EXPECT_TRUE(seen.insert(ContentDigest().Add(bytes + '\0').Hex()).second);
  EXPECT_NE(ContentDigest().Hex(), ContentDigest().Add(std::string(1, '\0')).Hex());
}

// The placement of nodes on execution providers comes from ORT's own session log (the same
// capture tensorrt counts its fallback nodes with): on the CPU build every node is on the CPU
// provider, and the count is that of the session's graph after ORT's optimizations.
TEST_F(OnnxRuntime, NodePlacementIsReadFromTheSessionLog) {
  const Graph g = BuildModel(SyntheticSpec("conv_block", "conv_block", 8, 2), 1);
  EXPECT_EQ(Settings(g).count("nodes"), 0u);  // not asked for on the CPU
  ::setenv("NGRAPHBENCH_ORT_LOG_PLACEMENT", "1", 1);
  const auto settings = Settings(g);
  ::unsetenv("NGRAPHBENCH_ORT_LOG_PLACEMENT");
  ASSERT_EQ(settings.count("nodes"), 1u);
  const std::string nodes = settings.at("nodes");
  ASSERT_EQ(nodes.rfind("CPUExecutionProvider:", 0), 0u) << nodes;
  EXPECT_EQ(nodes.find(','), std::string::npos) << nodes;
  EXPECT_GE(std::stoi(nodes.substr(nodes.find(':') + 1)), 2) << nodes;
  // Still computes: the verbose session log is over once the session exists.
  const HostTensor x = RandomNormal({1, 8, 56, 56}, 3);
  ::setenv("NGRAPHBENCH_ORT_LOG_PLACEMENT", "1", 1);
  const HostTensor logged = RunModel(g, x);
  ::unsetenv("NGRAPHBENCH_ORT_LOG_PLACEMENT");
  EXPECT_EQ(logged.data, RunModel(g, x).data);
}

// device cuda on a machine without onnxruntime-gpu or without a GPU: a reason, not a crash, and
// Compile() throws UnavailableError (the worker's `skipped` row) rather than a CompileError.
TEST_F(OnnxRuntime, CudaWithoutGpuProviderIsUnavailableWithTheReason) {
  config_.device = "cuda";
  const std::string why = compiler_->Unavailable(config_);
  if (fs::exists("/dev/nvidia0") && why.empty()) GTEST_SKIP() << "this machine has a GPU";
  ASSERT_FALSE(why.empty());
  EXPECT_TRUE(why.find("CUDAExecutionProvider is not in this build") != std::string::npos ||
              why.find("no NVIDIA GPU found") != std::string::npos ||
              why.find("does not load") != std::string::npos)
      << why;
  const Graph g = BuildModel(SyntheticSpec("linear", "linear", 8, 0), 1);
  const std::string onnx = ExportOnnx(g);
  EXPECT_THROW(compiler_->Compile(CompileRequest{g, onnx, config_, ""}), UnavailableError);
  config_.device = "cpu";
  EXPECT_TRUE(compiler_->Unavailable(config_).empty());
}

// tensorrt is built with onnxruntime; without its provider, libraries or a GPU it says why.
TEST(TensorRt, UnavailableWithoutItsProviderNamesWhatIsMissing) {
  NGB_REQUIRE_BUILT("tensorrt");
  auto compiler = LoadCompiler("tensorrt");
  EXPECT_NE(compiler->Version().find("via onnxruntime TensorRT EP (onnxruntime 1."),
            std::string::npos)
      << compiler->Version();
  CompilerConfig config = DefaultCompilerConfig(FindCompiler("tensorrt"));
  const std::string why = compiler->Unavailable(config);
  if (fs::exists("/dev/nvidia0") && why.empty()) GTEST_SKIP() << "this machine has a GPU";
  ASSERT_FALSE(why.empty());
  EXPECT_EQ(why.rfind("tensorrt: ", 0), 0u) << why;
  const Graph g = BuildModel(SyntheticSpec("linear", "linear", 8, 0), 1);
  const std::string onnx = ExportOnnx(g);
  try {
    compiler->Compile(CompileRequest{g, onnx, config, ""});
    ADD_FAILURE() << "compiled without " << why;
  } catch (const UnavailableError& e) {
    EXPECT_EQ(std::string(e.what()), why);
  }
}

}  // namespace
}  // namespace ngraphbench
