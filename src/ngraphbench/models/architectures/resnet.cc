// ResNet-18/50/101 as timm's resnet.py builds them (the torchvision layout): 7x7 stem and max
// pool, four stages of BasicBlock or Bottleneck, 1x1 conv + BN projection shortcuts.
#include <stdexcept>

#include "ngraphbench/models/architectures/common.h"

namespace ngraphbench::architectures {

namespace {

struct ResNetConfig {
  bool bottleneck;
  std::vector<int64_t> blocks;  // per stage
};

ResNetConfig ConfigFor(const std::string& name) {
  if (name == "resnet18") return {false, {2, 2, 2, 2}};
  if (name == "resnet50") return {true, {3, 4, 6, 3}};
  if (name == "resnet101") return {true, {3, 4, 23, 3}};
  throw std::invalid_argument("not a ResNet: " + name);
}

// The last conv of each residual branch gets a small gain: with random weights and fixed
// BatchNorm statistics nothing renormalizes the residual sum, and unit-gain branches would
// double its variance per block (2^33 over resnet101). timm zero-initializes that BN instead.
constexpr float kBranchOutGain = 0.5f;

std::string ConvBn(GraphBuilder& g, const std::string& x, int64_t out, int64_t kernel,
                   int64_t stride, float gain = 1.41421356f) {
  return g.BatchNorm(g.Conv(x, out, kernel, stride, kernel / 2, 1, /*bias=*/false, gain));
}

std::string Block(GraphBuilder& g, const std::string& x, bool bottleneck, int64_t planes,
                  int64_t stride) {
  const int64_t in = g.ShapeOf(x)[1];
  const int64_t out = bottleneck ? planes * 4 : planes;
  std::string y;
  if (bottleneck) {
    y = g.Unary("Relu", ConvBn(g, x, planes, 1, 1));
    y = g.Unary("Relu", ConvBn(g, y, planes, 3, stride));
    y = ConvBn(g, y, out, 1, 1, kBranchOutGain);
  } else {
    y = g.Unary("Relu", ConvBn(g, x, planes, 3, stride));
    y = ConvBn(g, y, out, 3, 1, kBranchOutGain);
  }
  std::string shortcut = x;
  if (stride != 1 || in != out) shortcut = ConvBn(g, x, out, 1, stride, 1.0f);
  return g.Unary("Relu", g.Binary("Add", y, shortcut));
}

}  // namespace

Graph BuildResNet(const std::string& name, int64_t batch_size) {
  const ResNetConfig config = ConfigFor(name);
  GraphBuilder g(name);
  std::string x = ImageInput(g, batch_size);
  x = g.Unary("Relu", ConvBn(g, x, 64, 7, 2));
  const Shape& s = g.ShapeOf(x);
  x = g.AddNode("MaxPool", {x}, {s[0], s[1], s[2] / 2, s[3] / 2},
                {{"kernel_shape", std::vector<int64_t>{3, 3}},
                 {"strides", std::vector<int64_t>{2, 2}},
                 {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  for (size_t stage = 0; stage < config.blocks.size(); ++stage) {
    const int64_t planes = int64_t{64} << stage;
    for (int64_t i = 0; i < config.blocks[stage]; ++i) {
      const int64_t stride = stage > 0 && i == 0 ? 2 : 1;
      x = Block(g, x, config.bottleneck, planes, stride);
    }
  }
  x = g.Linear(GlobalAvgPool(g, x), kNumClasses, /*bias=*/true, /*gain=*/1.0f);
  g.Output(x);
  return g.Finish();
}

}  // namespace ngraphbench::architectures
