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

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class MachineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ("machine_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void Write(const std::string& path, const std::string& text) {
    const fs::path full = root_ / path;
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

  fs::path root_;
};

TEST_F(MachineTest, DescribesAFixtureMachine) {
  WriteX86();
  const MachineInfo m = DescribeMachine(root_.string());
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
  const MachineInfo m = DescribeMachine((root_ / "does-not-exist").string());
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
  const MachineInfo m = DescribeMachine(root_.string());
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
  const MachineInfo m = DescribeMachine(root_.string());
  EXPECT_EQ(m.cpu_model, "implementer 0x41 part 0xd0c");
  EXPECT_EQ(m.threads, 2);
  EXPECT_FALSE(m.sockets.has_value());  // no "physical id" lines
  EXPECT_EQ(m.turbo, true);             // cpufreq/boost = 1
}

TEST_F(MachineTest, MachineIdHashesTheMachineNotItsLoad) {
  WriteX86();
  const std::string id = DescribeMachine(root_.string()).machine_id;
  EXPECT_EQ(DescribeMachine(root_.string()).machine_id, id);
  Write("proc/loadavg", "9.00 9.00 9.00 5/100 999\n");
  EXPECT_EQ(DescribeMachine(root_.string()).machine_id, id);
  Write("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave\n");
  const std::string other_governor = DescribeMachine(root_.string()).machine_id;
  EXPECT_NE(other_governor, id);
  Write("proc/meminfo", "MemTotal:       8192000 kB\n");
  EXPECT_NE(DescribeMachine(root_.string()).machine_id, other_governor);
}

TEST_F(MachineTest, MergeKeepsOtherMachinesAndReplacesItsOwnEntry) {
  WriteX86();
  MachineInfo m = DescribeMachine(root_.string());
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
  const MachineInfo m = DescribeMachine(root_.string());
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
  const MachineInfo m = DescribeMachine(root_.string());
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
