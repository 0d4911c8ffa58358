#include "ngraphbench/models/weights_cache.h"

#include <cstring>
#include <vector>

namespace ngraphbench {

namespace {

constexpr const char kMagic[] = "ngraphbench-weights 1\n";

bool IsFloatWeight(const Initializer& init) {
  return init.dtype == DType::kFloat32 && !init.tensor.data.empty();
}

void PutU64(std::string& out, uint64_t v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof(v));
}

bool GetU64(const std::string& in, size_t& at, uint64_t& v) {
  if (in.size() - at < sizeof(v)) return false;
  std::memcpy(&v, in.data() + at, sizeof(v));
  at += sizeof(v);
  return true;
}

}  // namespace

bool DrawsWeights(const ModelSpec& spec) {
  return spec.family != "onnx" && spec.family != "torch";
}

uint64_t WeightsBytes(const Graph& graph) {
  uint64_t n = sizeof(kMagic) - 1;
  for (const Initializer& init : graph.initializers) {
    if (!IsFloatWeight(init)) continue;
    n += 2 * sizeof(uint64_t) + init.name.size() + init.tensor.data.size() * sizeof(float);
  }
  return n;
}

std::string FormatWeights(const Graph& graph) {
  std::string out;
  out.reserve(static_cast<size_t>(WeightsBytes(graph)));
  out.append(kMagic, sizeof(kMagic) - 1);
  for (const Initializer& init : graph.initializers) {
    if (!IsFloatWeight(init)) continue;
    PutU64(out, init.name.size());
    out += init.name;
    PutU64(out, init.tensor.data.size());
    out.append(reinterpret_cast<const char*>(init.tensor.data.data()),
               init.tensor.data.size() * sizeof(float));
  }
  return out;
}

bool FillWeights(const std::string& bytes, Graph& graph) {
  if (bytes.size() != WeightsBytes(graph) ||
      bytes.compare(0, sizeof(kMagic) - 1, kMagic) != 0) {
    return false;
  }
  // Checked whole before anything is copied, so a mismatch leaves the graph as it was.
  struct Span {
    Initializer* init;
    size_t offset;
  };
  std::vector<Span> spans;
  size_t at = sizeof(kMagic) - 1;
  for (Initializer& init : graph.initializers) {
    if (!IsFloatWeight(init)) continue;
    uint64_t name_size = 0, count = 0;
    if (!GetU64(bytes, at, name_size) || name_size != init.name.size() ||
        bytes.compare(at, name_size, init.name) != 0) {
      return false;
    }
    at += name_size;
    if (!GetU64(bytes, at, count) || count != init.tensor.data.size() ||
        (bytes.size() - at) / sizeof(float) < count) {
      return false;
    }
    spans.push_back({&init, at});
    at += count * sizeof(float);
  }
  if (at != bytes.size()) return false;
  for (const Span& s : spans) {
    std::memcpy(s.init->tensor.data.data(), bytes.data() + s.offset,
                s.init->tensor.data.size() * sizeof(float));
  }
  return true;
}

}  // namespace ngraphbench
