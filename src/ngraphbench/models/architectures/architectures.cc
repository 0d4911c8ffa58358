#include "ngraphbench/models/architectures.h"

#include <utility>

#include "ngraphbench/core/error.h"
#include "ngraphbench/models/architectures/common.h"

namespace ngraphbench {

namespace {

using FamilyBuilder = Graph (*)(const std::string&, int64_t);

// Table IV: five families, three sizes each, small to large.
const std::vector<std::pair<std::string, FamilyBuilder>>& Table() {
  using namespace architectures;
  static const std::vector<std::pair<std::string, FamilyBuilder>> table = {
      {"resnet18", BuildResNet},
      {"resnet50", BuildResNet},
      {"resnet101", BuildResNet},
      {"efficientnet_b0", BuildEfficientNet},
      {"efficientnet_b2", BuildEfficientNet},
      {"efficientnet_b4", BuildEfficientNet},
      {"deit_tiny_patch16_224", BuildDeit},
      {"deit_small_patch16_224", BuildDeit},
      {"deit_base_patch16_224", BuildDeit},
      {"swin_tiny_patch4_window7_224", BuildSwin},
      {"swin_small_patch4_window7_224", BuildSwin},
      {"swin_base_patch4_window7_224", BuildSwin},
      {"convnext_tiny", BuildConvNext},
      {"convnext_small", BuildConvNext},
      {"convnext_base", BuildConvNext},
  };
  return table;
}

}  // namespace

const std::vector<std::string>& ArchitectureNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& entry : Table()) out.push_back(entry.first);
    return out;
  }();
  return names;
}

Graph BuildArchitecture(const ModelSpec& spec, int64_t batch_size) {
  const std::string& name = spec.variant.empty() ? spec.name : spec.variant;
  for (const auto& [known, build] : Table()) {
    if (known == name) return build(name, batch_size);
  }
  std::string known;
  for (const auto& n : ArchitectureNames()) known += (known.empty() ? "" : ", ") + n;
  throw InputError("unknown architecture '" + name + "'; known architectures: " + known);
}

}  // namespace ngraphbench
