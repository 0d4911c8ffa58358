#include "ngraphbench/models/zoo.h"

#include <stdexcept>

#include "ngraphbench/core/error.h"
#include "ngraphbench/graph/onnx_io.h"
#include "ngraphbench/graph/ops.h"
#include "ngraphbench/graph/working_set.h"
#include "ngraphbench/models/architectures.h"
#include "ngraphbench/models/synthetic.h"

namespace ngraphbench {

namespace {

Graph ImportExternal(const ModelSpec& spec, int64_t batch_size) {
  if (spec.onnx_path.empty()) {
    // Family "torch" before PrepareModel: a caller's mistake, not the user's.
    throw std::logic_error("model " + spec.name + " has no ONNX file; PrepareModel exports it");
  }
  Graph graph = ImportOnnxFile(spec.onnx_path, batch_size);
  // Every operator the IR does not know, named at once, before any compiler sees the model.
  CheckImportable(graph, spec.onnx_path);
  return graph;
}

}  // namespace

const std::vector<ModelFamily>& ModelFamilies() {
  static const std::vector<ModelFamily> families = {
      {"conv_block", "depth x [Conv3x3 -> BatchNorm -> ReLU], input [b, width, 56, 56]", true,
       true, false, {}, BuildConvBlocks},
      {"mha_block", "depth x [multi-head self-attention -> ReLU], input [b, 197, width]", true,
       true, false, {}, BuildMhaBlocks},
      {"conv2d", "one Conv3x3 width->width, input [b, width, 56, 56]", true, false, false, {},
       BuildConv2d},
      {"linear", "one linear layer width->width, input [b, width]", true, false, false, {},
       BuildFullyConnected},
      {"self_attention", "one multi-head self-attention layer, input [b, 197, width]", true,
       false, false, {}, BuildSelfAttention},
      {"architecture",
       "Table IV: ResNet, EfficientNet, DeiT, Swin, ConvNeXt (timm definitions), input "
       "[b, 3, 224, 224]",
       false, false, true, ArchitectureNames(), BuildArchitecture},
      {"onnx",
       "external .onnx files, imported into the IR (batch dimension set per run; params = the "
       "file's weight count)",
       false, false, true, {}, ImportExternal},
      {"torch",
       "models given as PyTorch code: timm:<name> or <file>.py:<function>, with an input_shape "
       "(without the batch dimension); exported per batch size (params counted from the module)",
       false, false, true, {}, ImportExternal},
  };
  return families;
}

const ModelFamily& FindFamily(const std::string& name) {
  std::string known;
  for (const auto& family : ModelFamilies()) {
    if (family.name == name) return family;
    known += (known.empty() ? "" : ", ") + family.name;
  }
  throw InputError("unknown model family '" + name + "'; known families: " + known);
}

ModelSpec SyntheticSpec(const std::string& family, const std::string& prefix, int64_t width,
                        int64_t depth) {
  ModelSpec spec;
  spec.family = family;
  spec.width = width;
  spec.depth = depth;
  spec.name = prefix + "_w" + std::to_string(width);
  if (depth > 0) spec.name += "_d" + std::to_string(depth);
  return spec;
}

Graph BuildModel(const ModelSpec& spec, int64_t batch_size) {
  Graph graph = FindFamily(spec.family).build(spec, batch_size);
  // Before a run allocates its inputs and a compiler its values: a model that cannot fit is
  // refused here, not found out by exhausting the machine.
  CheckWorkingSet(graph, spec.onnx_path.empty() ? spec.name : spec.onnx_path);
  return graph;
}

}  // namespace ngraphbench
