// Models given as PyTorch code (family torch): how sources, input shapes and their experiments
// are read and checked. Their export through every compiler is tests/torch_models/.
#include "ngraphbench/models/torch_export.h"

#include <gtest/gtest.h>

#include <string>

#include "ngraphbench/core/error.h"
#include "ngraphbench/experiments/config.h"
#include "ngraphbench/experiments/fingerprint.h"
#include "ngraphbench/experiments/grid.h"

namespace ngraphbench {
namespace {

const std::string kFactory = NGB_SOURCE_DIR "/examples/tiny_convnet.py";

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no InputError";
}

TEST(TorchSource, RecognizesBothForms) {
  EXPECT_TRUE(IsTorchSource("timm:resnet18"));
  EXPECT_TRUE(IsTorchSource("models/net.py:make"));
  EXPECT_FALSE(IsTorchSource("conv_blocks"));
  EXPECT_FALSE(IsTorchSource("model.onnx"));
}

TEST(TorchSource, ParsesTimmNamesAndFactories) {
  const TorchSource timm = ParseTorchSource("timm:vit_base_patch16_224.augreg_in1k");
  EXPECT_EQ(timm.timm, "vit_base_patch16_224.augreg_in1k");
  EXPECT_EQ(TorchModelName(timm), "timm_vit_base_patch16_224.augreg_in1k");
  const TorchSource factory = ParseTorchSource(kFactory + ":make_model");
  EXPECT_EQ(factory.file, kFactory);
  EXPECT_EQ(factory.function, "make_model");
  EXPECT_EQ(TorchModelName(factory), "tiny_convnet_make_model");
}

TEST(TorchSource, NamesWhatIsWrong) {
  EXPECT_NE(ErrorOf([] { ParseTorchSource("timm:"); }).find("not a timm model name"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { ParseTorchSource("timm:res net"); }).find("not a timm model name"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { ParseTorchSource("/nonexistent/net.py:make"); }).find("does not exist"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { ParseTorchSource(kFactory + ":make-model"); })
                .find("not a Python function name"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { ParseTorchSource(kFactory + ":"); }).find("not a Python function name"),
            std::string::npos);
}

TEST(TorchSource, InputShapes) {
  EXPECT_EQ(ParseInputShape("3,224,224"), (std::vector<int64_t>{3, 224, 224}));
  EXPECT_EQ(ParseInputShape("197"), (std::vector<int64_t>{197}));
  for (const char* bad : {"", "3,,4", "3,x", "-3,4", "3, 4", "99999999999999"}) {
    EXPECT_NE(ErrorOf([bad] { ParseInputShape(bad); }).find("not a list of positive integers"),
              std::string::npos)
        << bad;
  }
  EXPECT_NE(ErrorOf([] { ParseInputShape("0,4"); }).find("must be >= 1"), std::string::npos);
  EXPECT_NE(ErrorOf([] { ParseInputShape("1,1,1,1,1,1,1"); }).find("1 to 6"), std::string::npos);
  EXPECT_NE(ErrorOf([] { ParseInputShape("65536,65536"); }).find("2^28"), std::string::npos);
}

ExperimentsFile Parse(const std::string& experiment) {
  return ParseExperiments("experiments:\n  mine:\n" + experiment, "experiments.yaml");
}

TEST(TorchSource, ExperimentsNeedAnInputShape) {
  const ExperimentsFile file = Parse("    family: torch\n    models: [timm:resnet18, '" + kFactory +
                                     ":make_model']\n    input_shape: [3, 32, 32]\n");
  const std::vector<RunSpec> runs = ExpandGrid(file.Find("mine"), /*quick=*/true);
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[0].run_id, "timm_resnet18_b1");
  EXPECT_EQ(runs[2].run_id, "tiny_convnet_make_model_b1");
  EXPECT_EQ(runs[2].model.torch_source, kFactory + ":make_model");
  EXPECT_EQ(runs[2].model.input_shape, (std::vector<int64_t>{3, 32, 32}));

  EXPECT_NE(ErrorOf([] { Parse("    family: torch\n    models: [timm:resnet18]\n"); })
                .find("needs 'input_shape' for family torch"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] {
              Parse("    family: conv_block\n    widths: [8]\n    depths: [1]\n"
                    "    input_shape: [3]\n");
            }).find("'experiments.mine.input_shape' does not apply"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] {
              Parse("    family: torch\n    models: [timm:resnet18]\n"
                    "    input_shape: [1, 1, 1, 1, 1, 1, 1]\n");
            }).find("'experiments.mine.input_shape' has 7 dimensions"),
            std::string::npos);
}

TEST(TorchSource, FingerprintCoversSourceAndShape) {
  const ExperimentsFile file = Parse("    family: torch\n    models: ['" + kFactory +
                                     ":make_model']\n    input_shape: [3, 32, 32]\n");
  RunSpec run = ExpandGrid(file.Find("mine"), true).front();
  CompilerConfig config;
  const std::string text = FingerprintText(run, config, 10);
  EXPECT_NE(text.find("model.torch_source=" + kFactory + ":make_model"), std::string::npos);
  EXPECT_NE(text.find("model.input_shape=3,32,32"), std::string::npos);
  EXPECT_NE(text.find("model.torch_digest="), std::string::npos);
  run.model.input_shape = {3, 64, 64};
  EXPECT_NE(FingerprintText(run, config, 10), text);
}

}  // namespace
}  // namespace ngraphbench
