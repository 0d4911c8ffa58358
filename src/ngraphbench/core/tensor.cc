#include "ngraphbench/core/tensor.h"

#include <sched.h>

#include "ngraphbench/core/random.h"

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
  PortableRng rng(seed);
  for (float& v : t.data) v = static_cast<float>(rng.Normal() * stddev);
  return t;
}

uint64_t InputSeed(const std::string& run_id, const std::string& input_name) {
  return Fnv1a64(run_id + "/" + input_name);
}

uint64_t RedrawSeed(const std::string& run_id, const std::string& input_name) {
  return Fnv1a64("redraw:" + run_id + "/" + input_name);
}

uint64_t CalibrationSeed(int batch, const std::string& input_name) {
  return Fnv1a64("calibration:" + std::to_string(batch) + "/" + input_name);
}

int AvailableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  int n = CPU_COUNT(&set);
  return n > 0 ? n : 1;
}

}  // namespace ngraphbench
