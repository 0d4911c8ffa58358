// The output check where a model's outputs do not depend on its input, end to end through the
// scheduler, the worker and its reference children. The model: a conv, a pool and a head whose
// weights are all 0 (as timm's gmlp_s16_224 at random init), whose every output is 0. The
// compiler that computes nothing: the `null` module under another name, `zeros`, described as
// a compiler rather than a test double, so that its check takes onnxruntime as the reference.
// Its outputs match the reference's exactly; the intermediate tensor before the head does not.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "integration/pipeline_fixture.h"
#include "ngraphbench/graph/onnx_io.h"
#include "ngraphbench/models/builder.h"
#include "ngraphbench/results/csv.h"
#include "require_compiler.h"

namespace ngraphbench {
namespace {

class ConstantOutputs : public Pipeline {
 protected:
  void SetUp() override {
    Pipeline::SetUp();
    NGB_REQUIRE_BUILT("onnxruntime");
    // A module folder beside the build's: its modules and descriptions, and `zeros`.
    const fs::path build = NGB_BINARY_DIR;
    modules_ = dir_ / "modules";
    fs::create_directories(modules_ / "compilers");
    for (const auto& e : fs::directory_iterator(build)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("libngraphbench_", 0) == 0 && e.path().extension() == ".so") {
        fs::create_symlink(e.path(), modules_ / name);
      }
    }
    for (const auto& e : fs::directory_iterator(build / "compilers")) {
      fs::copy_file(e.path(), modules_ / "compilers" / e.path().filename());
    }
    fs::create_symlink(build / "libngraphbench_null.so", modules_ / "libngraphbench_zeros.so");
    std::ifstream null_yaml(build / "compilers" / "null.yaml");
    std::ofstream zeros_yaml(modules_ / "compilers" / "zeros.yaml");
    for (std::string line; std::getline(null_yaml, line);) {
      if (line.rfind("name:", 0) == 0) line = "name: zeros";
      if (line.rfind("test_double:", 0) == 0) continue;
      zeros_yaml << line << "\n";
    }
    WriteModel("zero_head", 1.41421356f);
    WriteModel("dead", 0.0f);
    WriteModel("zero_classes", 1.41421356f, /*classes=*/5);
  }

  // input 1x3x8x8 -> Conv 4x3x3 (He weights times `conv_gain`) -> Relu -> GlobalAveragePool ->
  // 1x4 -> Linear `classes` with weights 0: its outputs are 0 whatever the input. No biases.
  void WriteModel(const std::string& name, float conv_gain, int64_t classes = 2) {
    GraphBuilder g(name);
    const std::string x = g.Input("input", {1, 3, 8, 8});
    const std::string r = g.Unary("Relu", g.Conv(x, 4, 3, 1, 1, 1, /*bias=*/false, conv_gain));
    const std::string p = g.AddNode("GlobalAveragePool", {r}, {1, 4, 1, 1});
    g.Output(g.Linear(g.Reshape(p, {1, 4}), classes, /*bias=*/false, /*gain=*/0.0f));
    std::ofstream(dir_ / (name + ".onnx"), std::ios::binary) << ExportOnnx(g.Finish());
  }

  Result Run(const std::string& model, const std::string& compiler) {
    return Ngb("run " + (dir_ / (model + ".onnx")).string() + " " + compiler + " --quick " +
               Common() + " --set processes=1");
  }
  Result RunZeros(const std::string& model) {
    ::setenv("NGRAPHBENCH_MODULE_DIR", modules_.c_str(), 1);
    const Result r = Run(model, "zeros");
    ::unsetenv("NGRAPHBENCH_MODULE_DIR");
    return r;
  }
  ResultRow RowOf(const std::string& compiler, const std::string& model) const {
    const fs::path dir = dir_ / "results" / "local" / compiler;
    return ReadRow(RowPath(dir.string(), model + "_b1"));
  }

  fs::path modules_;
};

// The outputs match (error 0), but the tensor before the head, which the check compares in a
// second compile of the graph cut there, does not: the row is `wrong`, and says where.
TEST_F(ConstantOutputs, ACompileThatComputesNothingIsCaughtOnTheTensorBeforeTheHead) {
  const Result r = RunZeros("zero_head");
  EXPECT_EQ(r.code, 1) << r.output;
  const ResultRow row = RowOf("zeros", "zero_head");
  EXPECT_EQ(row.status, "wrong") << row.error;
  EXPECT_EQ(row.check_reference, "onnxruntime");
  EXPECT_EQ(*row.check_max_rel_err, 0.0);  // the model's outputs alone would pass
  EXPECT_EQ(row.check_verdict, "fail");
  ASSERT_FALSE(row.check_tensor.empty());
  EXPECT_NE(row.error.find("outputs differ from onnxruntime's at the intermediate tensor '" +
                           row.check_tensor + "'"),
            std::string::npos)
      << row.error;
  EXPECT_NE(row.error.find("the reference's are all 0 on two draws of inputs"), std::string::npos)
      << row.error;
  EXPECT_NE(row.error.find("> tolerance 0.0001 (fp32)"), std::string::npos) << row.error;
}

// Nothing the reference computes depends on the input (the conv's weights are 0 too): the row
// stays ok, its verdict inconclusive, and the notes, its progress line and the summary say so.
TEST_F(ConstantOutputs, NoTensorThatDependsOnTheInputIsInconclusive) {
  const Result r = RunZeros("dead");
  EXPECT_EQ(r.code, 0) << r.output;
  const ResultRow row = RowOf("zeros", "dead");
  EXPECT_EQ(row.status, "ok") << row.error;
  EXPECT_EQ(row.check_verdict, "inconclusive");
  EXPECT_TRUE(row.check_tensor.empty());
  EXPECT_NE(row.notes.find("output check inconclusive: the model's outputs do not depend on its "
                           "input (the reference's are all 0 on two draws of inputs), nor does "
                           "any of the 4 tensors nearest them"),
            std::string::npos)
      << row.notes;
  EXPECT_NE(row.notes.find("a compile that ignored its input would pass it"), std::string::npos)
      << row.notes;
  EXPECT_NE(r.output.find("CHECK INCONCLUSIVE"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 measured now ok with an inconclusive output check"),
            std::string::npos)
      << r.output;
}

// A compiler that computes the model passes on the same tensor.
TEST_F(ConstantOutputs, ARightCompilePassesOnTheTensorBeforeTheHead) {
  NGB_REQUIRE_BUILT("identity");  // onnxruntime's reference
  const Result r = Run("zero_head", "onnxruntime");
  EXPECT_EQ(r.code, 0) << r.output;
  const ResultRow row = RowOf("onnxruntime", "zero_head");
  EXPECT_EQ(row.status, "ok") << row.error;
  EXPECT_EQ(row.check_verdict, "pass");
  EXPECT_FALSE(row.check_tensor.empty());
  EXPECT_NE(row.notes.find("output check on the intermediate tensor '" + row.check_tensor + "'"),
            std::string::npos)
      << row.notes;
  EXPECT_EQ(r.output.find("CHECK INCONCLUSIVE"), std::string::npos) << r.output;
}

// int8: a classifier (1 x 5) whose outputs do not depend on the input agrees with the reference
// on its top class whatever ran, so the row quotes no top-1/top-5 agreement, and its cosine and
// SNR are those of the intermediate tensor the check judged, not the outputs' trivial 1 and inf.
TEST_F(ConstantOutputs, AnInt8RowQuotesTheAccuracyOfTheTensorItJudged) {
  NGB_REQUIRE_BUILT("identity");  // onnxruntime's reference
  const Result r = Ngb("run " + (dir_ / "zero_classes.onnx").string() + " onnxruntime --quick " +
                       Common() + " --set processes=1 --set precision=int8");
  EXPECT_EQ(r.code, 0) << r.output;
  const ResultRow row =
      ReadRow(RowPath((dir_ / "results" / "local" / "onnxruntime").string(), "zero_classes_b1_int8"));
  EXPECT_EQ(row.status, "ok") << row.error;
  EXPECT_EQ(row.check_verdict, "pass");
  ASSERT_FALSE(row.check_tensor.empty());
  EXPECT_FALSE(row.check_top1_agreement.has_value());
  EXPECT_FALSE(row.check_top5_agreement.has_value());
  ASSERT_TRUE(row.check_cosine.has_value());
  ASSERT_TRUE(row.check_snr_db.has_value());
  EXPECT_GE(*row.check_cosine, 0.99);
  EXPECT_LT(*row.check_cosine, 1.0);  // quantized: not the zero outputs' exact match
  EXPECT_TRUE(std::isfinite(*row.check_snr_db)) << *row.check_snr_db;
  EXPECT_NE(row.notes.find("output check on the intermediate tensor '" + row.check_tensor + "'"),
            std::string::npos)
      << row.notes;
}

}  // namespace
}  // namespace ngraphbench
