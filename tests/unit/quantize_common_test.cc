// The quantization both onnxruntime and openvino share (compilers/quantize_common), with a
// stand-in for their Python tools: a shell script that checks what it is given and writes what
// the real ones write. No SDK, so it runs on every build.
#include <gtest/gtest.h>

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "ngraphbench/compilers/quantize_common/int8_census.h"
#include "ngraphbench/compilers/quantize_common/quantize_common.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/tensor.h"
#include "ngraphbench/graph/ir.h"
#include "temp_dir.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

// Checks its arguments (--onnx MODEL --out-dir DIR --calibration FILE...), each calibration file
// present, copies the model to DIR/quantized.onnx and writes meta.json last, counting the files;
// with the model "fail" it fails as a tool would, saying why last.
constexpr const char* kFakeTool = R"(set -e
[ "$1" = --onnx ] && [ "$3" = --out-dir ] && [ "$5" = --calibration ] || exit 3
model=$2; out=$4; shift 5
if grep -q fail "$model"; then echo "ModuleNotFoundError: No module named 'nncf'" >&2; exit 1; fi
n=0
for f in "$@"; do [ -s "$f" ] || exit 4; n=$((n + 1)); done
cp "$model" "$out/quantized.onnx"
printf '{"scheme": "fake", "calibration_batches": %d}' "$n" > "$out/meta.json"
)";

class QuantizeCommon : public test_support::TempDirTest {
 protected:
  QuantizeCommon() : TempDirTest("ngb_quantize_common_test_") {}

  void SetUp() override {
    TempDirTest::SetUp();
    std::ofstream(dir_ / "fake_quantize.sh") << kFakeTool;
    tool_.who = "fakesdk";
    tool_.python = "/bin/sh";
    tool_.script = (dir_ / "fake_quantize.sh").string();
    tool_.fix = "set NGRAPHBENCH_FAKE_PYTHON";
    tool_.sdk_version = "1.0";
    tool_.outputs = {"quantized.onnx"};
    graph_.inputs = {{"x", {2, 3}}};
  }

  CompileRequest Request(const std::string& cache_dir) {
    CompileRequest request{graph_, onnx_, config_, cache_dir};
    return request;
  }

  static size_t Entries(const fs::path& dir) {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
    return n;
  }

  QuantizeTool tool_;
  Graph graph_;
  std::string onnx_ = "model bytes";
  CompilerConfig config_;
};

// Quantized once into the cache, found there the second time; the calibration set went to the
// tool (every batch) and is not kept; another SDK version is another entry.
TEST_F(QuantizeCommon, QuantizesOnceIntoTheCache) {
  const fs::path cache = dir_ / "cache";
  QuantizeScratch scratch;
  const QuantizedModel first = QuantizeModel(Request(cache.string()), tool_, scratch);
  EXPECT_FALSE(first.cache_hit);
  EXPECT_EQ(first.entry, cache / "fakesdk-int8" / first.key);
  EXPECT_EQ(first.meta.value("calibration_batches", 0), kCalibrationBatches);
  std::ifstream model(first.entry / "quantized.onnx");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(model), {}), onnx_);
  for (const auto& file : fs::directory_iterator(first.entry)) {
    EXPECT_EQ(file.path().filename().string().rfind("calibration-", 0), std::string::npos)
        << file.path();
  }
  EXPECT_EQ(Entries(cache / "fakesdk-int8"), 1u);  // no build folder left beside it

  const QuantizedModel second = QuantizeModel(Request(cache.string()), tool_, scratch);
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.key, first.key);

  tool_.sdk_version = "1.1";
  const QuantizedModel other = QuantizeModel(Request(cache.string()), tool_, scratch);
  EXPECT_FALSE(other.cache_hit);
  EXPECT_NE(other.key, first.key);
}

// What a compiler compiles: the run's own request without a tool; with one, the same request
// reading the quantized model's file (no bytes), the config's precision replaced where asked,
// everything else as the run gave it.
TEST_F(QuantizeCommon, TheModelToCompileIsTheRequestOrItsQuantizedModel) {
  const fs::path cache = dir_ / "cache";
  QuantizeScratch scratch;
  config_.precision = "int8";
  CompileRequest request = Request(cache.string());
  request.quick = true;
  request.cold = false;
  request.offline = true;
  request.streams = 3;

  const ModelToCompile as_is(request, std::nullopt, scratch, "quantized.onnx");
  EXPECT_EQ(&as_is.request(), &request);
  EXPECT_EQ(as_is.quantized(), nullptr);

  const ModelToCompile quantized(request, tool_, scratch, "quantized.onnx", "fp32");
  ASSERT_NE(quantized.quantized(), nullptr);
  const CompileRequest& model = quantized.request();
  EXPECT_TRUE(model.onnx.empty());
  EXPECT_EQ(model.onnx_path, (quantized.quantized()->entry / "quantized.onnx").string());
  EXPECT_EQ(model.config.precision, "fp32");
  EXPECT_EQ(request.config.precision, "int8");  // the run's own config is left as it is
  EXPECT_EQ(&model.graph, &request.graph);
  EXPECT_EQ(model.cache_dir, cache.string());
  EXPECT_TRUE(model.quick);
  EXPECT_FALSE(model.cold);
  EXPECT_TRUE(model.offline);
  EXPECT_EQ(model.streams, 3);

  const ModelToCompile same_precision(request, tool_, scratch, "quantized.onnx");
  EXPECT_EQ(same_precision.request().config.precision, "int8");
  EXPECT_TRUE(same_precision.quantized()->cache_hit);
}

// Without a cache directory the model is quantized into a temporary folder that stays while the
// scratch lives (an executable may read it again) and goes with it: nothing is left behind.
TEST_F(QuantizeCommon, WithoutACacheNothingIsLeftBehind) {
  const fs::path tmp = dir_ / "tmp";
  fs::create_directories(tmp);
  const char* old = std::getenv("TMPDIR");
  const std::optional<std::string> saved = old ? std::optional<std::string>(old) : std::nullopt;
  ::setenv("TMPDIR", tmp.c_str(), 1);
  {
    QuantizeScratch scratch;
    const QuantizedModel q = QuantizeModel(Request(""), tool_, scratch);
    EXPECT_FALSE(q.cache_hit);
    EXPECT_TRUE(fs::exists(q.entry / "quantized.onnx"));
    EXPECT_EQ(q.entry.parent_path().parent_path(), tmp);
    // A second quantization gets a folder of its own, never the first one's entry.
    const QuantizedModel again = QuantizeModel(Request(""), tool_, scratch);
    EXPECT_FALSE(again.cache_hit);
    EXPECT_NE(again.entry.parent_path(), q.entry.parent_path());
    EXPECT_EQ(Entries(tmp), 2u);
  }
  if (saved) {
    ::setenv("TMPDIR", saved->c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
  EXPECT_EQ(Entries(tmp), 0u);
}

// A tool that fails: CompileError naming the compiler and the tool's last line, no entry in the
// cache (a later run quantizes again), and no temporary folder once the scratch goes.
TEST_F(QuantizeCommon, AFailingToolIsACompileErrorAndLeavesNothing) {
  onnx_ = "fail";
  const fs::path cache = dir_ / "cache";
  QuantizeScratch scratch;
  try {
    QuantizeModel(Request(cache.string()), tool_, scratch);
    ADD_FAILURE() << "no CompileError";
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()),
              "fakesdk: compiling failed (ModuleNotFoundError: No module named 'nncf')");
  }
  EXPECT_EQ(Entries(cache / "fakesdk-int8"), 0u);
}

// ONNX Runtime's optimized graph of a QDQ conv block at opt_level all: the convolution is an
// integer kernel, the quantize and dequantize ops are no kernel of either kind.
TEST(Int8Census, OrtCountsIntegerOpsAndTheFloatComputeLeft) {
  const Int8Census c = OrtInt8Census(
      {{"QLinearConv", 2}, {"QLinearAdd", 1}, {"QuantizeLinear", 1}, {"DequantizeLinear", 1},
       {"MatMulIntegerToFloat", 1}, {"Gemm", 1}, {"Relu", 3}, {"DynamicQuantizeLinear", 1}},
      "all");
  EXPECT_EQ(c.int8_compute, 3);
  EXPECT_EQ(c.float_compute, 1);
  EXPECT_EQ(FormatCounts(c.int8_by_name), "MatMulIntegerToFloat:1 QLinearAdd:1 QLinearConv:2");
  EXPECT_EQ(FormatCounts(c.float_by_name), "Gemm:1");
  EXPECT_EQ(c.degraded, "");
}

// The same model without graph optimizations runs DequantizeLinear -> Conv: float kernels on
// dequantized values, which is no int8 build; an integer elementwise op alone does not make one.
TEST(Int8Census, OrtWithNoIntegerConvolutionOrProductIsDegraded) {
  const Int8Census c = OrtInt8Census(
      {{"Conv", 2}, {"MatMul", 1}, {"QLinearAdd", 1}, {"DequantizeLinear", 6}}, "disable");
  EXPECT_EQ(c.int8_compute, 0);
  EXPECT_EQ(c.float_compute, 3);
  EXPECT_EQ(FormatCounts(c.int8_by_name), "QLinearAdd:1");
  EXPECT_NE(c.degraded.find("graph optimization level disable"), std::string::npos) << c.degraded;
  EXPECT_NE(c.degraded.find("its 3 convolutions and matrix products run in float (Conv:2 "
                            "MatMul:1)"),
            std::string::npos)
      << c.degraded;
  EXPECT_NE(c.degraded.find("at opt_level extended and all"), std::string::npos) << c.degraded;
  // At opt_level all there is no level to suggest.
  const Int8Census all = OrtInt8Census({{"FusedConv", 1}}, "all");
  EXPECT_NE(all.degraded.find("its 1 convolution or matrix product runs in float (FusedConv:1)"),
            std::string::npos)
      << all.degraded;
  EXPECT_EQ(all.degraded.find("extended and all"), std::string::npos) << all.degraded;
  EXPECT_NE(OrtInt8Census({}, "all").degraded.find("no convolution or matrix product at all"),
            std::string::npos);
}

// OpenVINO's execution graph: compute layers by runtime precision (any case), listed by their
// implementation; other layers (a fused eltwise, reorders) count for neither.
TEST(Int8Census, OpenVinoCountsComputeLayersByRuntimePrecision) {
  const Int8Census c = OpenVinoInt8Census({{"Convolution", "U8", "brgconv_avx512_amx_I8"},
                                           {"Convolution", "i8", "brgconv_avx512_amx_I8"},
                                           {"FullyConnected", "u8", "brgemm_avx512_amx_I8"},
                                           {"MatMul", "f32", "brgemm_avx512_FP32"},
                                           {"Eltwise", "u8", "jit_avx512_I8"},
                                           {"Reorder", "f32", "ref_any"}});
  EXPECT_EQ(c.int8_compute, 3);
  EXPECT_EQ(c.float_compute, 1);
  EXPECT_EQ(FormatCounts(c.int8_by_name), "brgconv_avx512_amx_I8:2 brgemm_avx512_amx_I8:1");
  EXPECT_EQ(FormatCounts(c.float_by_name), "brgemm_avx512_FP32:1");
  EXPECT_EQ(c.degraded, "");
}

TEST(Int8Census, OpenVinoWithEveryComputeLayerInFloatIsDegraded) {
  const Int8Census c = OpenVinoInt8Census({{"Convolution", "f32", "brgconv_avx512_FP32"},
                                           {"FullyConnected", "bf16", ""},
                                           {"Eltwise", "u8", "jit_avx512_I8"}});
  EXPECT_EQ(c.int8_compute, 0);
  EXPECT_NE(c.degraded.find("runs no convolution or matrix product in integer"),
            std::string::npos)
      << c.degraded;
  EXPECT_NE(c.degraded.find("(FullyConnected/unknown:1 brgconv_avx512_FP32:1)"),
            std::string::npos)
      << c.degraded;
}

// A list stays one value of "k=v;k=v": what would split it becomes '_'.
TEST(Int8Census, FormatCountsKeepsTheSettingsEncoding) {
  EXPECT_EQ(FormatCounts({}), "");
  EXPECT_EQ(FormatCounts({{"a;b=c:d e", 2}, {"x", 1}}), "a_b_c_d_e:2 x:1");
  EXPECT_EQ(CensusError("RuntimeError: k=v; line\nnext"), "RuntimeError: k:v, line next");
  EXPECT_EQ(CensusError(std::string(300, 'x')).size(), 200u);
}

// The integer instruction sets among the CPU's vector ISAs, in a fixed order.
TEST(Int8Census, Int8IsaPicksTheIntegerInstructionSets) {
  EXPECT_EQ(Int8Isa("avx avx2 fma avx512f avx512bw avx512_vnni avx_vnni avx512_bf16 amx_tile "
                    "amx_int8"),
            "avx2 avx512bw avx512_vnni avx_vnni amx_int8");
  EXPECT_EQ(Int8Isa("asimd asimddp i8mm bf16 sve"), "asimddp i8mm");
  EXPECT_EQ(Int8Isa("avx fma"), "none");
  EXPECT_EQ(Int8Isa(""), "none");
}

}  // namespace
}  // namespace ngraphbench
