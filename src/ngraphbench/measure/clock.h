// The measuring clock, one for every timed boundary in measure/: steady_clock, read as integer
// nanoseconds. Compilers never time themselves.
#pragma once

#include <chrono>
#include <cstdint>

namespace ngraphbench {

using MeasureClock = std::chrono::steady_clock;

// Nanoseconds from `start` to `end`.
inline int64_t ElapsedNs(MeasureClock::time_point start, MeasureClock::time_point end) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
}

}  // namespace ngraphbench
