#include "ngraphbench/experiments/config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/tensor.h"

namespace ngraphbench {
namespace {

class ConfigTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& text) {
    std::string path = ::testing::TempDir() + "/cfg_" + std::to_string(::getpid()) + "_" +
                       std::to_string(counter_++) + ".yaml";
    std::ofstream(path) << text;
    return path;
  }

  // The InputError message of loading `text` as experiments.yaml.
  std::string ExperimentsError(const std::string& text) {
    const std::string path = Write(text);
    try {
      LoadExperiments(path);
    } catch (const InputError& e) {
      std::string message = e.what();
      EXPECT_NE(message.find(path), std::string::npos) << message;  // names the file
      return message;
    }
    ADD_FAILURE() << "no error for:\n" << text;
    return "";
  }

  std::string CompilerError(const std::string& text) {
    const std::string path = Write(text);
    try {
      LoadCompilerConfig(path, FindCompiler("onnxruntime"));
    } catch (const InputError& e) {
      std::string message = e.what();
      EXPECT_NE(message.find(path), std::string::npos) << message;
      return message;
    }
    ADD_FAILURE() << "no error for:\n" << text;
    return "";
  }

  int counter_ = 0;
};

const char* kValid = R"(
defaults:
  batch_sizes: [1, 2]
  warmup: 3
experiments:
  blocks:
    family: conv_block
    widths: [8]
    depths: [1, 2]
    repeats: 5
)";

TEST_F(ConfigTest, ValidFileAppliesDefaultsAndOverrides) {
  const ExperimentsFile file = LoadExperiments(Write(kValid));
  const ExperimentConfig& e = file.Find("blocks");
  EXPECT_EQ(e.family, "conv_block");
  EXPECT_EQ(e.batch_sizes, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(e.quick_batch_sizes, (std::vector<int64_t>{1, 8}));
  EXPECT_EQ(e.warmup, 3);
  EXPECT_EQ(e.repeats, 5);
  EXPECT_EQ(e.timing_boundary, "compute");
}

TEST_F(ConfigTest, UnknownExperimentNamesTheKnownOnes) {
  const ExperimentsFile file = LoadExperiments(Write(kValid));
  try {
    file.Find("nope");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("known experiments: blocks"), std::string::npos);
  }
}

TEST_F(ConfigTest, UnknownKeyNamesKeyAndAllowedKeys) {
  const std::string m = ExperimentsError(
      "experiments:\n  a:\n    family: conv2d\n    widths: [8]\n    widht: [3]\n");
  EXPECT_NE(m.find("experiments.a.widht"), std::string::npos) << m;
  EXPECT_NE(m.find("allowed keys"), std::string::npos) << m;
}

TEST_F(ConfigTest, WrongTypeEmptyListAndNegativeSize) {
  std::string m = ExperimentsError("experiments:\n  a:\n    family: conv2d\n    widths: abc\n");
  EXPECT_NE(m.find("experiments.a.widths' must be a list of positive integers"), std::string::npos)
      << m;
  m = ExperimentsError("experiments:\n  a:\n    family: conv2d\n    widths: []\n");
  EXPECT_NE(m.find("must not be empty"), std::string::npos) << m;
  m = ExperimentsError("experiments:\n  a:\n    family: conv2d\n    widths: [16, -4]\n");
  EXPECT_NE(m.find("experiments.a.widths.[1]' must be >= 1, got -4"), std::string::npos) << m;
  m = ExperimentsError(
      "defaults:\n  repeats: ten\nexperiments:\n  a:\n    family: conv2d\n    widths: [8]\n");
  EXPECT_NE(m.find("defaults.repeats' must be an integer"), std::string::npos) << m;
}

TEST_F(ConfigTest, FamilyDecidesWhichKeysApply) {
  std::string m = ExperimentsError("experiments:\n  a:\n    family: conv_blocks\n    widths: [8]\n");
  EXPECT_NE(m.find("allowed values: conv_block"), std::string::npos) << m;
  m = ExperimentsError("experiments:\n  a:\n    family: conv_block\n    widths: [8]\n");
  EXPECT_NE(m.find("needs 'depths' for family conv_block"), std::string::npos) << m;
  m = ExperimentsError(
      "experiments:\n  a:\n    family: conv2d\n    widths: [8]\n    depths: [1]\n");
  EXPECT_NE(m.find("experiments.a.depths' does not apply to family conv2d"), std::string::npos)
      << m;
  m = ExperimentsError(
      "experiments:\n  a:\n    family: conv2d\n    widths: [8]\n    timing_boundary: wall\n");
  EXPECT_NE(m.find("allowed values: compute, end_to_end"), std::string::npos) << m;
}

TEST_F(ConfigTest, NotYamlOrMissingFile) {
  ExperimentsError("experiments: [unclosed\n");
  EXPECT_THROW(LoadExperiments("/nonexistent/experiments.yaml"), InputError);
}

TEST_F(ConfigTest, CompilerConfigValidatesCommonAndSpecificKeys) {
  const CompilerConfig c = LoadCompilerConfig(
      Write("threads: 3\nopt_level: basic\noptions:\n  execution_mode: parallel\n"),
      FindCompiler("onnxruntime"));
  EXPECT_EQ(c.threads, 3);
  EXPECT_EQ(c.opt_level, "basic");
  EXPECT_EQ(c.options.String("execution_mode"), "parallel");
  EXPECT_EQ(c.options.Int("inter_op_threads"), 1);  // the schema default

  EXPECT_EQ(LoadCompilerConfig(Write("threads: 0\n"), FindCompiler("onnxruntime")).threads,
            AvailableCores());

  std::string m = CompilerError("opt_level: max\n");
  EXPECT_NE(m.find("'opt_level' is 'max'; allowed values: all, extended, basic, disable"),
            std::string::npos)
      << m;
  m = CompilerError("options:\n  intra_threads: 2\n");
  EXPECT_NE(m.find("options.intra_threads' is not a known key"), std::string::npos) << m;
  m = CompilerError("threads: -2\n");
  EXPECT_NE(m.find("'threads' must be >= 0, got -2"), std::string::npos) << m;
  m = CompilerError("options:\n  execution_mode: 3d\n");
  EXPECT_NE(m.find("allowed values: sequential, parallel"), std::string::npos) << m;
  m = CompilerError("precision: fp8\n");
  EXPECT_NE(m.find("allowed values: fp32"), std::string::npos) << m;
}

TEST(Registry, UnknownCompilerNamesTheKnownOnes) {
  try {
    FindCompiler("tensorflow");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("known compilers: null, onnxruntime"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ngraphbench
