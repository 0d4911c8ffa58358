#include "ngraphbench/compilers/onnxruntime/placement.h"

#include <regex>

namespace ngraphbench::ort {

bool ParsePlacementMessage(const std::string& message, Placement& into) {
  static const std::regex line(R"(placed on \[([A-Za-z0-9_]+)\]\. Number of nodes: ([0-9]+))");
  std::smatch m;
  if (!std::regex_search(message, m, line)) return false;
  into[m[1].str()] += std::stoll(m[2].str());
  return true;
}

std::string FormatPlacement(const Placement& placement) {
  std::string out;
  for (const auto& [provider, nodes] : placement) {
    out += (out.empty() ? "" : ",") + provider + ":" + std::to_string(nodes);
  }
  return out;
}

int64_t NodesOutside(const Placement& placement, const std::string& provider) {
  int64_t n = 0;
  for (const auto& [p, nodes] : placement) {
    if (p != provider) n += nodes;
  }
  return n;
}

}  // namespace ngraphbench::ort
