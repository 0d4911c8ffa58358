#include "ngraphbench/measure/heap.h"

#include <gtest/gtest.h>

#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ngraphbench {
namespace {

// Allocates, touches and frees a 4 MiB buffer `rounds` times, as a kernel's output buffer is in
// every iteration; returns the minor page faults per round.
double FaultsPerRound(int rounds) {
  constexpr size_t kSize = 4 << 20;
  const long before = MinorPageFaults();
  for (int i = 0; i < rounds; ++i) {
    volatile char* p = static_cast<volatile char*>(std::malloc(kSize));
    for (size_t j = 0; j < kSize; j += 4096) p[j] = 1;
    std::free(const_cast<char*>(p));
  }
  return static_cast<double>(MinorPageFaults() - before) / rounds;
}

TEST(Heap, PinnedThresholdsReuseFreedMemory) {
#if defined(__GLIBC__)
  // The unlucky state glibc can adapt into: each buffer mapped fresh, freed memory returned.
  ASSERT_EQ(mallopt(M_MMAP_THRESHOLD, 128 << 10), 1);
  ASSERT_EQ(mallopt(M_TRIM_THRESHOLD, 128 << 10), 1);
  const double unlucky = FaultsPerRound(20);
  ASSERT_GE(unlucky, 2) << "touching fresh pages must fault";

  EXPECT_EQ(PinHeapThresholds(), "glibc:mmap=32MiB,trim=off");
  FaultsPerRound(1);  // the heap grows once
  const double pinned = FaultsPerRound(20);
  EXPECT_LT(pinned, unlucky / 10) << "unlucky " << unlucky << ", pinned " << pinned;
#else
  GTEST_SKIP() << "glibc only";
#endif
}

}  // namespace
}  // namespace ngraphbench
