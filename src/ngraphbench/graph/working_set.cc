#include "ngraphbench/graph/working_set.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <set>

#include "ngraphbench/core/error.h"

namespace ngraphbench {

namespace {

constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kLargestMaxWorkingSetMb = uint64_t{1} << 30;  // 1 PiB

uint64_t AddSaturating(uint64_t a, uint64_t b) { return a > kSaturated - b ? kSaturated : a + b; }

uint64_t ShapeBytes(const Shape& shape, uint64_t element_bytes) {
  uint64_t bytes = element_bytes;
  for (int64_t d : shape) {
    if (d <= 0) return 0;
    const auto n = static_cast<uint64_t>(d);
    bytes = bytes > kSaturated / n ? kSaturated : bytes * n;
  }
  return bytes;
}

std::string Mib(uint64_t bytes) {
  return bytes == kSaturated ? std::string("more than 16 EiB")
                             : fmt::format("{} MiB", (bytes + (uint64_t{1} << 20) - 1) >> 20);
}

// A cgroup's memory limit in bytes from its file ("max" or a number), none when unlimited.
uint64_t CgroupLimit(const char* path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text)) return kSaturated;
  uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && ptr == text.data() + text.size() && value > 0 ? value : kSaturated;
}

}  // namespace

WorkingSet EstimateWorkingSet(const Graph& graph) {
  WorkingSet ws;
  auto consider = [&](const std::string& name, const Shape& shape, uint64_t bytes) {
    if (bytes > ws.largest_bytes || ws.largest.empty()) {
      ws.largest = name;
      ws.largest_shape = shape;
      ws.largest_bytes = bytes;
    }
  };
  std::set<std::string> fixed;  // inputs and constants: alive throughout, counted once
  for (const Initializer& init : graph.initializers) {
    const uint64_t bytes = ShapeBytes(init.tensor.shape, init.dtype == DType::kInt64 ? 8 : 4);
    ws.constants_bytes = AddSaturating(ws.constants_bytes, bytes);
    consider(init.name, init.tensor.shape, bytes);
    fixed.insert(init.name);
  }
  for (const TensorSpec& in : graph.inputs) {
    const uint64_t bytes = ShapeBytes(in.shape, 4);
    ws.inputs_bytes = AddSaturating(ws.inputs_bytes, bytes);
    consider(in.name, in.shape, bytes);
    fixed.insert(in.name);
  }
  // The last node that reads each value; graph outputs are read "after" every node.
  const size_t end = graph.nodes.size();
  std::map<std::string, size_t> last_use;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (const std::string& v : graph.nodes[i].inputs) {
      if (!v.empty()) last_use[v] = i;
    }
  }
  for (const TensorSpec& out : graph.outputs) last_use[out.name] = end;
  std::map<size_t, uint64_t> freed_after;  // node index -> bytes whose last reader it is
  uint64_t alive = 0;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (const std::string& v : graph.nodes[i].outputs) {
      if (v.empty() || fixed.count(v)) continue;
      const auto shape = graph.value_shapes.find(v);
      if (shape == graph.value_shapes.end()) continue;
      const uint64_t bytes = ShapeBytes(shape->second, 4);
      consider(v, shape->second, bytes);
      alive = AddSaturating(alive, bytes);
      const auto use = last_use.find(v);
      // A value nothing reads is freed as soon as its node is done.
      const size_t freed = use == last_use.end() ? i : use->second;
      freed_after[freed] = AddSaturating(freed_after[freed], bytes);
    }
    ws.peak_values_bytes = std::max(ws.peak_values_bytes, alive);
    if (auto it = freed_after.find(i); it != freed_after.end() && alive != kSaturated) {
      alive -= std::min(alive, it->second);
    }
  }
  ws.total_bytes =
      AddSaturating(AddSaturating(ws.constants_bytes, ws.inputs_bytes), ws.peak_values_bytes);
  return ws;
}

uint64_t MachineMemoryBytes() {
  static const uint64_t bytes = [] {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGE_SIZE);
    uint64_t ram = pages > 0 && page > 0
                       ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page)
                       : kSaturated;
    // cgroup v2, then v1: a container may be given less than the machine has.
    ram = std::min(ram, CgroupLimit("/sys/fs/cgroup/memory.max"));
    ram = std::min(ram, CgroupLimit("/sys/fs/cgroup/memory/memory.limit_in_bytes"));
    return ram;
  }();
  return bytes;
}

uint64_t MaxWorkingSetBytes() {
  static const uint64_t bytes = [] {
    const char* text = std::getenv("NGRAPHBENCH_MAX_WORKING_SET_MB");
    if (text == nullptr || *text == '\0') return MachineMemoryBytes() / 4;
    uint64_t mb = 0;
    const char* end = text + std::strlen(text);
    const auto [ptr, ec] = std::from_chars(text, end, mb);
    if (ec != std::errc() || ptr != end || mb < 1 || mb > kLargestMaxWorkingSetMb) {
      throw InputError(fmt::format(
          "NGRAPHBENCH_MAX_WORKING_SET_MB='{}' is not a whole number of MiB from 1 to {} (the "
          "default is a quarter of this machine's memory, {})",
          text, kLargestMaxWorkingSetMb, Mib(MachineMemoryBytes() / 4)));
    }
    return mb << 20;
  }();
  return bytes;
}

uint64_t WorkerMemoryLimitBytes() {
  const uint64_t ceiling = MaxWorkingSetBytes();
  return ceiling > kSaturated / 3 ? kSaturated : 3 * ceiling;
}

void CheckWorkingSet(const Graph& graph, const std::string& source) {
  const std::string where = "model '" + source + "': ";
  for (const TensorSpec& in : graph.inputs) {
    const std::string what = where + "input '" + in.name + "' of shape [" +
                             fmt::format("{}", fmt::join(in.shape, ", ")) + "]";
    for (int64_t d : in.shape) {
      if (d < 1) throw InputError(what + " has a dimension " + std::to_string(d) + "; each must be >= 1");
    }
    if (!in.shape.empty() && in.shape[0] > kMaxBatchSize) {
      throw InputError(fmt::format("{} has a batch size of {}; the most is {}", what,
                                   in.shape[0], kMaxBatchSize));
    }
    int64_t sample = 1;
    for (size_t i = 1; i < in.shape.size(); ++i) {
      if (in.shape[i] > kMaxSampleElements / sample) {
        throw InputError(fmt::format(
            "{} holds more than 2^28 elements per sample (every dimension but the first); a "
            "model input may hold at most {}",
            what, kMaxSampleElements));
      }
      sample *= in.shape[i];
    }
  }
  const WorkingSet ws = EstimateWorkingSet(graph);
  const uint64_t ceiling = MaxWorkingSetBytes();
  if (ws.total_bytes > ceiling) {
    throw InputError(fmt::format(
        "{}needs at least {} of memory (weights and constants {}, inputs {}, intermediate "
        "values alive at once {}; the largest tensor is '{}' of shape [{}], {}), over the {} a "
        "model may take on this machine ({}; set NGRAPHBENCH_MAX_WORKING_SET_MB to allow more, "
        "or run a smaller batch size)",
        where, Mib(ws.total_bytes), Mib(ws.constants_bytes), Mib(ws.inputs_bytes),
        Mib(ws.peak_values_bytes), ws.largest, fmt::join(ws.largest_shape, ", "),
        Mib(ws.largest_bytes), Mib(ceiling),
        std::getenv("NGRAPHBENCH_MAX_WORKING_SET_MB") ? "NGRAPHBENCH_MAX_WORKING_SET_MB"
                                                      : "a quarter of its memory"));
  }
}

}  // namespace ngraphbench
