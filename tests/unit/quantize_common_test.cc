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

}  // namespace
}  // namespace ngraphbench
