// The C heap of a worker, made to behave the same in every run. glibc's malloc adapts its mmap
// and trim thresholds to what the process allocated and freed before, so two processes running
// the same kernels can differ in whether an op's output buffer is reused heap memory or fresh
// pages that fault on first touch: bench/torch_vs_python.sh measured 1,500-9,000 minor faults per
// iteration in one process and none in the other, 5-15 % of the latency. A worker fixes both
// thresholds before building the model, so buffers under 32 MiB come from the heap and freed
// memory stays mapped; larger buffers are mapped fresh per allocation, as glibc always does.
#pragma once

#include <string>

namespace ngraphbench {

// Fixes glibc's M_MMAP_THRESHOLD (32 MiB, its largest) and M_TRIM_THRESHOLD (never trim); this
// also turns off their adaptation. Returns what it set ("glibc:mmap=32MiB,trim=off"), or
// "default" where the C library is not glibc.
std::string PinHeapThresholds();

// Minor page faults of this process so far (getrusage).
long MinorPageFaults();

}  // namespace ngraphbench
