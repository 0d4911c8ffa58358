#include "ngraphbench/core/tensor.h"

#include <sched.h>

#include <random>

namespace ngraphbench {

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string ShapeToString(const Shape& shape) {
  if (shape.empty()) return "scalar";
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += 'x';
    out += std::to_string(shape[i]);
  }
  return out;
}

HostTensor RandomNormal(const Shape& shape, uint64_t seed, float stddev) {
  HostTensor t{shape, std::vector<float>(static_cast<size_t>(NumElements(shape)))};
  std::mt19937_64 gen(seed);
  std::normal_distribution<float> dist(0.0f, stddev);
  for (float& v : t.data) v = dist(gen);
  return t;
}

int AvailableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  int n = CPU_COUNT(&set);
  return n > 0 ? n : 1;
}

}  // namespace ngraphbench
