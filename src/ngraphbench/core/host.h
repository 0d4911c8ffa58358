// What a cache key holds of this machine, so that code compiled for one CPU is never loaded on
// another that shares the cache directory.
#pragma once

#include <string>

namespace ngraphbench {

// The CPU's model name and flags (/proc/cpuinfo): what host code generation depends on (it picks
// the host's vector ISA), so that code compiled for this CPU is not reused on another one that
// shares the cache directory.
std::string HostCpuIdentity();

// The architecture this process runs as (uname's machine: x86_64, aarch64). Under qemu-user, the
// emulated one.
std::string HostArch();

// What a cache key holds of this machine for code compiled for it (an SDK's blob or optimized
// model that may carry this CPU's instruction set or layout): the machine_id the scheduler hands
// its workers ($NGB_MACHINE_ID, measure/machine.h) when set, and HostCpuIdentity(), so that a
// results tree shared between machines never gives one machine another's build.
std::string MachineIdentity();

}  // namespace ngraphbench
