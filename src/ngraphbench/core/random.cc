#include "ngraphbench/core/random.h"

#include <cmath>
#include <cstdio>

namespace ngraphbench {

uint64_t Fnv1a64Update(uint64_t hash, const char* data, size_t size) {
  for (size_t i = 0; i < size; ++i) {
    hash ^= static_cast<unsigned char>(data[i]);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

uint64_t Fnv1a64(const std::string& text) {
  return Fnv1a64Update(kFnv1a64Basis, text.data(), text.size());
}

std::string Hex64(uint64_t value) {
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(value));
  return hex;
}

std::string Fnv1a64Hex(const std::string& text) { return Hex64(Fnv1a64(text)); }

double PortableRng::Normal() {
  const double u1 = 1.0 - Uniform();
  const double u2 = Uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

}  // namespace ngraphbench
