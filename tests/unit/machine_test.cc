// Machine context: read from a fixture /proc and /sys tree, hashed into machine_id, merged into
// machine.json.
#include "ngraphbench/measure/machine.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>

#include "ngraphbench/core/error.h"
#include "ngraphbench/measure/cpuinfo.h"
#include "temp_dir.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class MachineTest : public test_support::TempDirTest {
 protected:
  MachineTest() : TempDirTest("machine_", /*create=*/false) {}

  void Write(const std::string& path, const std::string& text) {
    const fs::path full = dir_ / path;
    fs::create_directories(full.parent_path());
    std::ofstream(full) << text;
  }

  // A 1-socket, 2-core, 4-thread x86 machine with one NVIDIA GPU.
  void WriteX86() {
    std::string cpuinfo;
    for (int cpu = 0; cpu < 4; ++cpu) {
      cpuinfo += "processor\t: " + std::to_string(cpu) +
                 "\nvendor_id\t: GenuineIntel\nmodel name\t: Test CPU 9000 @ 3.00GHz\n"
                 "physical id\t: 0\ncore id\t\t: " +
                 std::to_string(cpu % 2) + "\n\n";
      const std::string dir = "sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
      Write(dir + "physical_package_id", "0\n");
      Write(dir + "core_id", std::to_string(cpu % 2) + "\n");
    }
    Write("proc/cpuinfo", cpuinfo);
    Write("sys/devices/system/cpu/cpu4/online", "0\n");  // offline: no topology
    Write("sys/devices/system/cpu/smt/active", "1\n");
    Write("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
    Write("sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
    Write("proc/meminfo", "MemTotal:       16384256 kB\nMemFree:         1000000 kB\n");
    Write("proc/loadavg", "0.50 0.25 0.10 1/100 12345\n");
    Write("proc/driver/nvidia/version",
          "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC "
          "2023\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n");
    Write("proc/driver/nvidia/gpus/0000:01:00.0/information",
          "Model: \t\t NVIDIA H200\nIRQ:   \t\t 42\nGPU UUID: \t GPU-0000\n");
  }
};

TEST_F(MachineTest, DescribesAFixtureMachine) {
  WriteX86();
  const MachineInfo m = DescribeMachine(dir_.string());
  EXPECT_EQ(m.cpu_model, "Test CPU 9000 @ 3.00GHz");
  EXPECT_EQ(m.sockets, 1);
  EXPECT_EQ(m.cores, 2);
  EXPECT_EQ(m.threads, 4);
  EXPECT_EQ(m.smt_active, true);
  EXPECT_EQ(m.governor, "performance");
  EXPECT_EQ(m.turbo, false);  // no_turbo = 1
  EXPECT_EQ(m.mem_total_kb, 16384256);
  EXPECT_EQ(m.load_avg, (std::vector<double>{0.50, 0.25, 0.10}));
  EXPECT_EQ(m.gpus, (std::vector<std::string>{"NVIDIA H200"}));
  EXPECT_EQ(m.gpu_driver, "535.104.05");
  // From the process itself, not the fixture.
  EXPECT_FALSE(m.kernel.empty());
  EXPECT_FALSE(m.arch.empty());
  EXPECT_FALSE(m.compiler.empty());
  EXPECT_EQ(m.cpus_available, FormatCpuList(ProcessCpus()));
  EXPECT_TRUE(std::regex_match(m.machine_id, std::regex("[0-9a-f]{16}"))) << m.machine_id;
}

TEST_F(MachineTest, MissingFilesLeaveFieldsEmpty) {
  const MachineInfo m = DescribeMachine((dir_ / "does-not-exist").string());
  EXPECT_EQ(m.cpu_model, "");
  EXPECT_FALSE(m.sockets.has_value());
  EXPECT_FALSE(m.cores.has_value());
  EXPECT_FALSE(m.threads.has_value());
  EXPECT_FALSE(m.smt_active.has_value());
  EXPECT_FALSE(m.turbo.has_value());
  EXPECT_FALSE(m.mem_total_kb.has_value());
  EXPECT_EQ(m.governor, "");
  EXPECT_TRUE(m.load_avg.empty());
  EXPECT_TRUE(m.gpus.empty());
  EXPECT_EQ(m.gpu_driver, "");
  EXPECT_EQ(m.machine_id.size(), 16u);

  const json j = json::parse(MachineJson(m));
  EXPECT_TRUE(j.at("sockets").is_null());
  EXPECT_TRUE(j.at("turbo").is_null());
  EXPECT_EQ(j.at("governor"), "");
  EXPECT_EQ(j.at("machine_id"), m.machine_id);
}

TEST_F(MachineTest, UnparsableFilesLeaveFieldsEmpty) {
  Write("sys/devices/system/cpu/smt/active", "maybe\n");
  Write("sys/devices/system/cpu/cpu0/topology/physical_package_id", "zero\n");
  Write("sys/devices/system/cpu/cpu0/topology/core_id", "0\n");
  Write("proc/meminfo", "MemTotal: lots\n");
  Write("proc/loadavg", "high\n");
  Write("proc/driver/nvidia/version", "something else entirely\n");
  const MachineInfo m = DescribeMachine(dir_.string());
  EXPECT_FALSE(m.smt_active.has_value());
  EXPECT_FALSE(m.threads.has_value());
  EXPECT_FALSE(m.mem_total_kb.has_value());
  EXPECT_TRUE(m.load_avg.empty());
  EXPECT_EQ(m.gpu_driver, "");
}

TEST_F(MachineTest, TopologyFallsBackToCpuinfoAndAarch64HasNoModelName) {
  Write("proc/cpuinfo",
        "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n\n"
        "processor\t: 1\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n");
  Write("sys/devices/system/cpu/cpufreq/boost", "1\n");
  const MachineInfo m = DescribeMachine(dir_.string());
  EXPECT_EQ(m.cpu_model, "ARM Neoverse-N1");  // no Features line: no extensions to name
  EXPECT_EQ(m.threads, 2);
  EXPECT_FALSE(m.sockets.has_value());  // no "physical id" lines
  EXPECT_EQ(m.turbo, true);             // cpufreq/boost = 1
}

// aarch64's cpuinfo as a Graviton2 (Neoverse-N1) prints it: no model name, the MIDR fields and
// the Features line.
constexpr const char* kNeoverseN1 =
    "processor\t: 0\nBogoMIPS\t: 243.75\n"
    "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm "
    "lrcpc dcpop asimddp ssbs\n"
    "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\n"
    "CPU revision\t: 1\n\n"
    "processor\t: 1\nBogoMIPS\t: 243.75\n"
    "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm "
    "lrcpc dcpop asimddp ssbs\n"
    "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\n"
    "CPU revision\t: 1\n";

TEST_F(MachineTest, Aarch64CpuinfoNamesTheCoreAndItsVectorExtensions) {
  EXPECT_EQ(CpuName(kNeoverseN1), "ARM Neoverse-N1");
  EXPECT_EQ(VectorIsa(kNeoverseN1), "asimd asimdhp asimddp");
  EXPECT_EQ(CpuinfoArch(kNeoverseN1), "aarch64");
  Write("proc/cpuinfo", kNeoverseN1);
  const MachineInfo m = DescribeMachine(dir_.string());
  EXPECT_EQ(m.cpu_model, "ARM Neoverse-N1 (asimd asimdhp asimddp)");
  EXPECT_EQ(m.threads, 2);

  // Neoverse-V2 (Grace, Graviton4) with SVE2; a Jetson Orin's Cortex-A78AE; Ampere's own core.
  EXPECT_EQ(VectorIsa("Features\t: fp asimd asimddp sve i8mm bf16 sve2 svebf16 sme\n"),
            "asimd asimddp i8mm bf16 sve sve2 svebf16 sme");
  EXPECT_EQ(CpuName("CPU implementer\t: 0x41\nCPU part\t: 0xd42\n"), "ARM Cortex-A78AE");
  EXPECT_EQ(CpuName("CPU implementer\t: 0xc0\nCPU part\t: 0xac3\n"), "Ampere Ampere-1");
  // big.LITTLE: each core type once, in order; the board where the kernel names it.
  EXPECT_EQ(CpuName("processor : 0\nCPU implementer : 0x41\nCPU part : 0xd05\n\n"
                    "processor : 1\nCPU implementer : 0x41\nCPU part : 0xd05\n\n"
                    "processor : 2\nCPU implementer : 0x41\nCPU part : 0xd41\n"),
            "ARM Cortex-A55 + ARM Cortex-A78");
  EXPECT_EQ(CpuName("CPU implementer : 0x41\nCPU part : 0xd08\n"
                    "Model : Raspberry Pi 4 Model B Rev 1.4\n"),
            "ARM Cortex-A72 on Raspberry Pi 4 Model B Rev 1.4");
  // A part the table does not know keeps its numbers; so does a malformed one.
  EXPECT_EQ(ArmCoreName("0x41", "0xd99"), "implementer 0x41 part 0xd99");
  EXPECT_EQ(ArmCoreName("0x00", "0x051"), "QEMU max");  // the CPU qemu-user emulates
  EXPECT_EQ(ArmCoreName("0x00", "0x052"), "implementer 0x00 part 0x052");
  EXPECT_EQ(ArmCoreName("0x4g", "0xd0c"), "implementer 0x4g part 0xd0c");
}

TEST_F(MachineTest, X86CpuinfoIsReadAsBefore) {
  const std::string cpuinfo =
      "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Processor\n"
      "flags\t\t: fpu sse2 avx fma avx2 avx512f avx512bw avx512_vnni avx512_bf16 amx_tile\n";
  EXPECT_EQ(CpuName(cpuinfo), "Intel(R) Xeon(R) Processor");
  EXPECT_EQ(VectorIsa(cpuinfo), "avx avx2 fma avx512f avx512bw avx512_vnni avx512_bf16 amx_tile");
  EXPECT_EQ(CpuinfoArch(cpuinfo), "x86_64");
  EXPECT_EQ(CpuinfoArch("processor : 0\n"), "");
  WriteX86();
  EXPECT_EQ(DescribeMachine(dir_.string()).cpu_model, "Test CPU 9000 @ 3.00GHz");  // no ISA
}

// An ELF header of a 64-bit little-endian program for `machine` (62 x86-64, 183 aarch64).
std::string ElfHeader(int machine) {
  std::string header("\x7f" "ELF", 4);
  header += std::string{2, 1, 1};
  header.resize(18, '\0');
  header += static_cast<char>(machine & 0xff);
  header += static_cast<char>(machine >> 8);
  header.resize(64, '\0');
  return header;
}

TEST_F(MachineTest, EmulationIsSeenFromTheThreadsProgramOrAForeignCpuinfo) {
  EXPECT_EQ(ElfArch(ElfHeader(62)), "x86_64");
  EXPECT_EQ(ElfArch(ElfHeader(183)), "aarch64");
  EXPECT_EQ(ElfArch(ElfHeader(40)), "");  // 32-bit ARM's e_machine: not ours
  EXPECT_EQ(ElfArch("#!/bin/sh\n"), "");

  // A fixture without the links is native.
  WriteX86();
  EXPECT_EQ(Emulator(dir_.string()), "");
  // An aarch64 program on a CPU whose cpuinfo is x86's (qemu-user passes the host's through).
  Write("proc/self/exe", ElfHeader(183));
  EXPECT_EQ(Emulator(dir_.string()), "aarch64 on x86_64");
  Write("proc/self/exe", ElfHeader(62));
  EXPECT_EQ(Emulator(dir_.string()), "");
  // qemu-user: the thread's program is qemu, whatever cpuinfo says.
  fs::create_directories(dir_ / "proc/thread-self");
  fs::create_symlink("/usr/bin/qemu-aarch64-static", dir_ / "proc/thread-self/exe");
  EXPECT_EQ(Emulator(dir_.string()), "qemu-user");
  EXPECT_EQ(EmulatedReason("qemu-user"), "emulated CPU (qemu-user): timings mean nothing");
  // machine.json says so, with the host's CPU where cpuinfo is the host's (an aarch64 build
  // then also names the CPU qemu presents, by its MIDR).
  const std::string model = DescribeMachine(dir_.string()).cpu_model;
  EXPECT_NE(model.find("emulated by qemu-user"), std::string::npos) << model;
  EXPECT_NE(model.find("Test CPU 9000 @ 3.00GHz"), std::string::npos) << model;
}

TEST_F(MachineTest, MachineIdHashesTheMachineNotItsLoad) {
  WriteX86();
  const std::string id = DescribeMachine(dir_.string()).machine_id;
  EXPECT_EQ(DescribeMachine(dir_.string()).machine_id, id);
  Write("proc/loadavg", "9.00 9.00 9.00 5/100 999\n");
  EXPECT_EQ(DescribeMachine(dir_.string()).machine_id, id);
  Write("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave\n");
  const std::string other_governor = DescribeMachine(dir_.string()).machine_id;
  EXPECT_NE(other_governor, id);
  Write("proc/meminfo", "MemTotal:       8192000 kB\n");
  EXPECT_NE(DescribeMachine(dir_.string()).machine_id, other_governor);
}

TEST_F(MachineTest, MergeKeepsOtherMachinesAndReplacesItsOwnEntry) {
  WriteX86();
  MachineInfo m = DescribeMachine(dir_.string());
  const std::string first = MergeMachineFile(std::nullopt, "machine.json", m);
  json j = json::parse(first);
  ASSERT_TRUE(j.is_object());
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j.at(m.machine_id).at("cpu_model"), "Test CPU 9000 @ 3.00GHz");

  MachineInfo other = m;
  other.cpu_model = "Another CPU";
  other.machine_id = "00000000000000ff";
  j = json::parse(MergeMachineFile(first, "machine.json", other));
  EXPECT_EQ(j.size(), 2u);
  EXPECT_EQ(j.at(m.machine_id).at("cpu_model"), "Test CPU 9000 @ 3.00GHz");
  EXPECT_EQ(j.at("00000000000000ff").at("cpu_model"), "Another CPU");

  m.load_avg = {3, 2, 1};
  j = json::parse(MergeMachineFile(j.dump(), "machine.json", m));
  EXPECT_EQ(j.size(), 2u);
  EXPECT_EQ(j.at(m.machine_id).at("load_avg"), json({3.0, 2.0, 1.0}));
}

TEST_F(MachineTest, MalformedMachineFileIsAnInputErrorNamingIt) {
  const MachineInfo m = DescribeMachine(dir_.string());
  for (const std::string text : {"", "{not json", "[1, 2]", R"({"abc": 3})"}) {
    try {
      MergeMachineFile(text, "results/local/machine.json", m);
      ADD_FAILURE() << "no error for '" << text << "'";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("results/local/machine.json: "), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("machine_id"), std::string::npos) << e.what();
    }
  }
}

// A small file nested deep, or one whose values blow up when indented, never becomes a large
// file: it is refused while parsing (before the nesting is built), and what is written is at
// most what the tool reads back.
TEST_F(MachineTest, DeepOrBloatedMachineFilesAreRefusedAndNeverRewrittenLarger) {
  const MachineInfo m = DescribeMachine(dir_.string());
  const auto refused = [&](const std::string& text, const std::string& why) {
    try {
      MergeMachineFile(text, "results/local/machine.json", m);
      ADD_FAILURE() << "no error for " << text.size() << " bytes: " << text.substr(0, 60);
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("results/local/machine.json: "), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
      EXPECT_LT(std::string(e.what()).size(), 1000u);
    }
  };
  for (const size_t depth : {20'000, 100'000}) {
    refused(R"({"x": {"a": )" + std::string(depth, '[') + std::string(depth, ']') + "}}",
            "nested deeper");
  }
  refused(R"({"x": {"a": {"b": 1}}})", "an object");
  // 3.5 MB of one-digit numbers: under the ceiling as read, about 20 MB once indented.
  std::string bloated = R"({"x": {"a": [0)";
  while (bloated.size() < (size_t{7} << 19)) bloated += ",0";
  refused(bloated + "]}}", "more than the 4194304");
  // A file with a key of megabytes names it by a short prefix.
  refused(R"({")" + std::string(1 << 20, 'k') + R"(": 3})", "kkkk\u2026");
  // What the tool writes is read back as it was.
  const std::string written = MergeMachineFile(std::nullopt, "machine.json", m);
  EXPECT_EQ(MergeMachineFile(written, "machine.json", m), written);
}

TEST_F(MachineTest, ThisMachine) {
  const MachineInfo m = DescribeMachine();
  ASSERT_TRUE(m.threads.has_value());
  EXPECT_GE(*m.threads, 1);
  EXPECT_GE(static_cast<size_t>(*m.threads), ProcessCpus().size());
  EXPECT_FALSE(m.cpus_available.empty());
  EXPECT_EQ(DescribeMachine().machine_id, m.machine_id);
  std::cout << MachineJson(m) << "\n";  // what machine.json records here
}

}  // namespace
}  // namespace ngraphbench
