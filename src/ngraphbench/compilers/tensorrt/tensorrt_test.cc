// The tensorrt module, loaded as a worker loads it. Its runs need an NVIDIA GPU, TensorRT's
// libraries and onnxruntime-gpu; everywhere else what is tested is how it refuses.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/graph/onnx_io.h"
#include "ngraphbench/measure/quant_check.h"
#include "ngraphbench/models/builder.h"
#include "ngraphbench/models/zoo.h"
#include "conformance/compare_support.h"
#include "require_compiler.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

class TensorRt : public test_support::CompilerModuleTest {
 protected:
  TensorRt() : CompilerModuleTest("tensorrt") {}

  static CompilerConfig Config(const std::string& precision) {
    CompilerConfig config;
    config.compiler = "tensorrt";
    config.device = "cuda";
    config.precision = precision;
    config.threads = 1;
    config.opt_level = "default";
    config.options = Options({{"workspace_mb", "1024"},
                              {"builder_optimization_level", "3"},
                              {"engine_cache", "true"}});
    return config;
  }
};

// Where TensorRT cannot run (no GPU, no TensorRT provider or libraries), precision int8 is
// refused as fp32 is, with the same reason: UnavailableError, which makes the run's rows
// `skipped`, naming why; and before anything is quantized.
TEST_F(TensorRt, Int8WhereTensorRtCannotRunIsRefusedBeforeQuantizing) {
  const std::string why = compiler_->Unavailable(Config("fp32"));
  if (why.empty()) GTEST_SKIP() << "TensorRT runs here";
  EXPECT_EQ(why.rfind("tensorrt: ", 0), 0u) << why;
  EXPECT_EQ(compiler_->Unavailable(Config("int8")), why);

  const Graph graph = BuildModel(SyntheticSpec("conv_block", "conv_blocks", 16, 1), 1);
  const std::string bytes = ExportOnnx(graph);
  const CompilerConfig config = Config("int8");
  try {
    compiler_->Compile({graph, bytes, config, cache_dir_});
    ADD_FAILURE() << "int8 compiled where TensorRT cannot run";
  } catch (const UnavailableError& e) {
    EXPECT_EQ(std::string(e.what()), why);
  }
  EXPECT_FALSE(fs::exists(fs::path(cache_dir_) / "onnxruntime-int8"))
      << "a model was quantized for a compile that was refused";
}

// Where it can: the QDQ model with symmetric int8 activations, built by TensorRT from its Q/DQ
// scales (explicit quantization), within the int8 bounds of fp32's outputs and not fp32's.
TEST_F(TensorRt, Int8RunsTheSymmetricQdqModelWithinTheBounds) {
  if (const std::string why = compiler_->Unavailable(Config("int8")); !why.empty()) {
    GTEST_SKIP() << why;
  }
  const Graph graph = BuildModel(SyntheticSpec("conv_block", "conv_blocks", 16, 1), 1);
  const std::string bytes = ExportOnnx(graph);
  const auto inputs = test_support::RandomInputs(graph, 100);
  const auto fp32 = test_support::OnnxRuntimeReference(graph, inputs).outputs;
  const test_support::Compiled int8 =
      test_support::CompileAndRun(*compiler_, Config("int8"), graph, inputs, cache_dir_);
  const QuantAccuracy a = CompareQuantized(int8.outputs, fp32);
  EXPECT_TRUE(WithinInt8Bounds(a)) << "cosine " << a.cosine << ", SNR " << a.snr_db;
  EXPECT_LT(a.snr_db, 80) << "the int8 outputs are fp32's";
  EXPECT_EQ(int8.settings.at("int8_mode"), "explicit_qdq");
  EXPECT_NE(int8.settings.at("quantization").find("a=int8/per_tensor/symmetric"),
            std::string::npos)
      << int8.settings.at("quantization");
  EXPECT_EQ(int8.settings.at("fallback_nodes"), "0");
}

}  // namespace
}  // namespace ngraphbench
