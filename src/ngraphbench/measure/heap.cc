#include "ngraphbench/measure/heap.h"

#include <sys/resource.h>

#include <climits>
#include <stdexcept>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ngraphbench {

std::string PinHeapThresholds() {
#if defined(__GLIBC__)
  constexpr int kMmapThreshold = 32 << 20;  // DEFAULT_MMAP_THRESHOLD_MAX on 64-bit glibc
  if (mallopt(M_MMAP_THRESHOLD, kMmapThreshold) != 1 || mallopt(M_TRIM_THRESHOLD, INT_MAX) != 1) {
    throw std::runtime_error("mallopt refused the heap thresholds");
  }
  return "glibc:mmap=32MiB,trim=off";
#else
  return "default";
#endif
}

long MinorPageFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

}  // namespace ngraphbench
