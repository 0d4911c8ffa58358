#include "ngraphbench/compilers/onnxruntime/placement.h"

#include <algorithm>
#include <cctype>

namespace ngraphbench::ort {

bool ParsePlacementMessage(const std::string& message, Placement& into) {
  // "... placed on [<provider>]. Number of nodes: <n>": a provider name of letters, digits and
  // underscores, the count in digits.
  const std::string before = "placed on [", between = "]. Number of nodes: ";
  const auto word = [](unsigned char c) { return std::isalnum(c) || c == '_'; };
  const auto digit = [](unsigned char c) { return std::isdigit(c) != 0; };
  for (size_t at = message.find(before); at != std::string::npos;
       at = message.find(before, at + 1)) {
    const size_t name = at + before.size();
    const size_t name_end = message.find(between, name);
    if (name_end == std::string::npos || name_end == name ||
        !std::all_of(message.begin() + name, message.begin() + name_end, word)) {
      continue;
    }
    const size_t count = name_end + between.size();
    size_t count_end = count;
    while (count_end < message.size() && digit(message[count_end])) ++count_end;
    if (count_end == count) continue;
    into[message.substr(name, name_end - name)] +=
        std::stoll(message.substr(count, count_end - count));
    return true;
  }
  return false;
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
