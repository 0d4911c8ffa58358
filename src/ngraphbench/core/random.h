// Portable pseudo-random numbers and string hashes: the same values from every standard library,
// compiler and machine, so that inputs, weights and the output check's reference are
// reproducible anywhere (std::hash and std::normal_distribution are implementation-defined).
//
// Algorithms (documented so that any language can reproduce them):
//   - Fnv1a64(text): 64-bit FNV-1a over the bytes of `text` (offset basis 0xcbf29ce484222325,
//     prime 0x100000001b3).
//   - PortableRng: SplitMix64 (Steele, Lea, Flood 2014): state += 0x9e3779b97f4a7c15, then
//     z = state; z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9; z = (z ^ (z >> 27)) *
//     0x94d049bb133111eb; return z ^ (z >> 31). The seed is the initial state.
//   - Uniform(): the top 53 bits of the next value times 2^-53, in [0, 1).
//   - Normal(): Box-Muller with u1 = 1 - Uniform() (in (0, 1]) and u2 = Uniform() from two
//     consecutive values: sqrt(-2 ln u1) * cos(2 pi u2), in double, one value per pair (the sine
//     half is discarded, so every value costs exactly two draws).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ngraphbench {

uint64_t Fnv1a64(const std::string& text);
// Fnv1a64(text) as 16 lowercase hex digits: the ids of settings, machines and cache entries.
std::string Fnv1a64Hex(const std::string& text);
// Fnv1a64 over data that comes in pieces: start from kFnv1a64Basis, feed each piece in order,
// then Hex64 the result (the same digits Fnv1a64Hex gives for the pieces joined).
constexpr uint64_t kFnv1a64Basis = 0xcbf29ce484222325ULL;
uint64_t Fnv1a64Update(uint64_t hash, const char* data, size_t size);
std::string Hex64(uint64_t value);

class PortableRng {
 public:
  explicit PortableRng(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  double Normal();

 private:
  uint64_t state_;
};

}  // namespace ngraphbench
