// ExecuTorch's event tracer's dump (ETDump, a flatbuffer) as ngraphbench's per-operator profile.
#pragma once

#include <cstddef>

#include "ngraphbench/compilers/compiler.h"

namespace ngraphbench {

// The profile of the `runs` executions recorded after `warmup` others in the ETDump `data` (as
// ETDumpGen::get_etdump_data() returns it): one kernel per operator left to ExecuTorch's CPU
// kernels and per XNNPACK operator inside the delegate calls, summed over the runs. Throws
// CompileError when the dump cannot be read or holds another number of executions.
KernelProfile ReadEtdump(const void* data, size_t size, int warmup, int runs);

}  // namespace ngraphbench
