// What /proc/cpuinfo says of the CPU on x86-64 and on aarch64, and whether this process runs
// under an emulator (qemu-user) that makes its timings meaningless. The parsers are functions of
// the file's text, so that either architecture's cpuinfo is tested on any build. Implemented
// beside DescribeMachine (machine.cc), whose cpu_model they make.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ngraphbench {

// The CPU's name. x86: its "model name". aarch64, whose cpuinfo has no name: each core type's
// "CPU implementer" and "CPU part" (the MIDR_EL1 fields) named from Arm's tables, e.g.
// "ARM Neoverse-N1"; a big.LITTLE SoC's types in order of appearance, joined by " + "
// ("ARM Cortex-A55 + ARM Cortex-A78"); a part missing from the tables as "implementer 0x41
// part 0xd99". Raspberry Pi kernels' "Model" and others' "Hardware" come first where present.
// Empty when none of these keys is there.
std::string CpuName(const std::string& cpuinfo);

// The name of one MIDR implementer/part pair, as CpuName gives it ("0x41", "0xd0c" ->
// "ARM Neoverse-N1"; unknown -> "implementer 0x41 part 0xd99").
std::string ArmCoreName(const std::string& implementer, const std::string& part);

// The vector and matrix extensions the CPU reports, in a fixed order: from x86's "flags"
// (e.g. "avx2 fma avx512f avx512_bf16 amx_tile") or aarch64's "Features" (e.g. "asimd asimddp
// i8mm bf16 sve sve2 sme"); empty when there is no such line.
std::string VectorIsa(const std::string& cpuinfo);

// The architecture a cpuinfo text describes: "x86_64" (vendor_id, flags), "aarch64" (CPU
// implementer, Features) or "" when it says neither.
std::string CpuinfoArch(const std::string& cpuinfo);

// The architecture of an ELF program's header ("x86_64", "aarch64", "" for anything else).
std::string ElfArch(const std::string& header);

// The emulator this process runs under, or "" when it runs natively, read under `root`:
// - "qemu-user" when the kernel's link to this thread's program (proc/thread-self/exe) names
//   a qemu binary: qemu-user rewrites proc/self/exe to the emulated program, not that one;
// - otherwise "<program arch> on <cpu arch>" when proc/self/exe is a program of another
//   architecture than the CPU proc/cpuinfo describes (an emulator passing the host's cpuinfo
//   through, as qemu-user does).
// A fixture tree without those links is native.
std::string Emulator(const std::string& root = "/");

// The validity reason of a row measured under `emulator`, e.g. "emulated CPU (qemu-user):
// timings mean nothing".
std::string EmulatedReason(const std::string& emulator);

// MIDR_EL1 as this aarch64 CPU (or the CPU an emulator presents) reports it to user space
// (the kernel emulates the read where HWCAP_CPUID says so); nullopt elsewhere.
std::optional<uint64_t> ReadMidr();

}  // namespace ngraphbench
