// The model zoo: graph builders for the synthetic blocks, single layers and architectures.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ngraphbench/graph/ir.h"

namespace ngraphbench {

// What to build. Which fields matter depends on the family.
struct ModelSpec {
  std::string family;  // a key of ModelFamilies()
  std::string name;    // unique model name, e.g. "conv_blocks_w64_d8" or "resnet50"
  int64_t width = 0;
  int64_t depth = 0;
  std::string variant;    // architectures: the timm model name
  std::string size;       // architectures: the size within the network family ("tiny", "50")
  std::string network;    // architectures: the network family ("resnet"); the row's `family`
  std::string onnx_path;  // family "onnx": the external model file; family "torch": its ONNX
                          // export (PrepareModel, models/torch_export.h)
  // Family "torch": the PyTorch source ("timm:<name>" or "<file>.py:<function>") and its input
  // shape without the batch dimension; after PrepareModel, the torch.export program (or why
  // there is none) and the parameter count counted from the module.
  std::string torch_source;
  std::vector<int64_t> input_shape;
  std::string torch_program, torch_program_error;
  int64_t exact_params = 0;
};

// How a family is parameterized; plain data used by config validation and grid expansion.
struct ModelFamily {
  std::string name;
  std::string description;
  bool uses_width = false;
  bool uses_depth = false;
  bool uses_models = false;  // experiment lists model names (architectures)
  std::vector<std::string> variants;  // accepted model names when uses_models
  std::function<Graph(const ModelSpec&, int64_t batch_size)> build;
};

const std::vector<ModelFamily>& ModelFamilies();
// Throws InputError naming the known families.
const ModelFamily& FindFamily(const std::string& name);

// A synthetic model's spec, named "<prefix>_w<width>_d<depth>" ("_d<depth>" only when depth > 0),
// as grid expansion names them with the experiment as the prefix.
ModelSpec SyntheticSpec(const std::string& family, const std::string& prefix, int64_t width,
                        int64_t depth);

// Builds the graph for one batch size. Weights come from a generator seeded by the model name,
// so every compiler and every batch size sees the same weights.
Graph BuildModel(const ModelSpec& spec, int64_t batch_size);

}  // namespace ngraphbench
