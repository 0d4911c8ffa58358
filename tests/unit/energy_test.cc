// RAPL energy from a fixture tree laid out like /sys/class/powercap.
#include "ngraphbench/measure/energy.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "ngraphbench/measure/sampler.h"
#include "temp_dir.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kRange = 262143328850;  // a common max_energy_range_uj

class EnergyTest : public test_support::TempDirTest {
 protected:
  EnergyTest() : TempDirTest("powercap_", /*create=*/false) {}

  void Domain(const std::string& dir, const std::string& name, int64_t energy_uj,
              std::optional<int64_t> range_uj = kRange) {
    fs::create_directories(dir_ / dir);
    std::ofstream(dir_ / dir / "name") << name << "\n";
    Counter(dir, energy_uj);
    if (range_uj) std::ofstream(dir_ / dir / "max_energy_range_uj") << *range_uj << "\n";
  }
  void Counter(const std::string& dir, int64_t energy_uj) {
    std::ofstream(dir_ / dir / "energy_uj") << energy_uj << "\n";
  }

  // Two packages, the first with a DRAM subdomain; the second counter about to wrap. Core,
  // psys and the MMIO interface's duplicate of package 0 must not be counted.
  void TwoPackages() {
    Domain("intel-rapl:0", "package-0", 1000000);
    Domain("intel-rapl:0:0", "core", 400000);
    Domain("intel-rapl:0:1", "dram", 500000);
    Domain("intel-rapl:1", "package-1", kRange - 329000);
    Domain("intel-rapl:2", "psys", 7000000);
    Domain("intel-rapl-mmio:0", "package-0", 1000000);
  }
  // The counters at the end of a window in which the machine used 4 J in the counted domains.
  void TwoPackagesLater() {
    Counter("intel-rapl:0", 3000000);     // +2 J
    Counter("intel-rapl:0:0", 90400000);  // +90 J, part of the package: not counted again
    Counter("intel-rapl:0:1", 1500000);   // +1 J
    Counter("intel-rapl:1", 671000);      // wrapped: +1 J
    Counter("intel-rapl:2", 57000000);    // +50 J, the whole platform: not counted
    Counter("intel-rapl-mmio:0", 9000000);
  }
};

TEST_F(EnergyTest, SumsPackagesAndDramAcrossAWrap) {
  TwoPackages();
  EnergyMeter meter(dir_.string());
  meter.Start();
  TwoPackagesLater();
  const EnergyReading r = meter.Stop();
  ASSERT_TRUE(r.joules.has_value()) << r.reason;
  EXPECT_DOUBLE_EQ(*r.joules, 4.0);
  EXPECT_EQ(r.reason, "");
}

TEST_F(EnergyTest, NoDomainsSaysSo) {
  EnergyMeter absent((dir_ / "missing").string());
  absent.Start();
  EnergyReading r = absent.Stop();
  EXPECT_FALSE(r.joules.has_value());
  EXPECT_EQ(r.reason, "no RAPL domains under " + (dir_ / "missing").string());

  Domain("intel-rapl:0", "psys", 1000);  // only the platform domain: nothing to sum
  EnergyMeter platform_only(dir_.string());
  platform_only.Start();
  r = platform_only.Stop();
  EXPECT_FALSE(r.joules.has_value());
  EXPECT_EQ(r.reason, "no RAPL domains under " + dir_.string());
}

TEST_F(EnergyTest, UnreadableCounterGivesTheReason) {
  TwoPackages();
  // A counter that cannot be read: here a directory, as root can read any file.
  fs::remove(dir_ / "intel-rapl:1" / "energy_uj");
  fs::create_directories(dir_ / "intel-rapl:1" / "energy_uj");
  EnergyMeter meter(dir_.string());
  meter.Start();
  const EnergyReading r = meter.Stop();
  EXPECT_FALSE(r.joules.has_value());
  EXPECT_EQ(r.reason.rfind("energy_uj not readable (", 0), 0u) << r.reason;
  EXPECT_NE(r.reason.find("intel-rapl:1/energy_uj"), std::string::npos) << r.reason;
}

// Since 2020 kernels make energy_uj readable by root only: the common case for a user. Root
// reads files whatever their mode, so as root the check runs in a child that becomes `nobody`.
TEST_F(EnergyTest, PermissionDeniedIsNamed) {
  TwoPackages();
  fs::permissions(dir_ / "intel-rapl:0" / "energy_uj", fs::perms::none);
  auto check = [&] {
    EnergyMeter meter(dir_.string());
    meter.Start();
    const EnergyReading r = meter.Stop();
    return !r.joules.has_value() && r.reason.rfind("energy_uj not readable (permission)", 0) !=
                                        std::string::npos;
  };
  if (::geteuid() != 0) {
    EXPECT_TRUE(check());
    return;
  }
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(3);
    ::_exit(check() ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: wrong reading or reason; 3: could not become nobody";
}

TEST_F(EnergyTest, WrapWithoutARangeIsNotGuessed) {
  Domain("intel-rapl:0", "package-0", 5000000, std::nullopt);
  EnergyMeter meter(dir_.string());
  meter.Start();
  Counter("intel-rapl:0", 1000);
  EnergyReading r = meter.Stop();
  EXPECT_FALSE(r.joules.has_value());
  EXPECT_NE(r.reason.find("wrapped and max_energy_range_uj is not readable"), std::string::npos)
      << r.reason;

  meter.Start();  // without a wrap the range is not needed
  Counter("intel-rapl:0", 2501000);
  r = meter.Stop();
  ASSERT_TRUE(r.joules.has_value()) << r.reason;
  EXPECT_DOUBLE_EQ(*r.joules, 2.5);
}

TEST_F(EnergyTest, TheSamplerReportsEnergyOverItsWindow) {
  TwoPackages();
  SystemSampler sampler(std::chrono::milliseconds(0), dir_.string());
  sampler.Start();
  TwoPackagesLater();
  SystemStats s = sampler.Stop();
  ASSERT_TRUE(s.energy_j_total.has_value()) << s.energy_note;
  EXPECT_DOUBLE_EQ(*s.energy_j_total, 4.0);
  EXPECT_EQ(s.energy_note, "");

  SystemSampler without(std::chrono::milliseconds(0), (dir_ / "missing").string());
  without.Start();
  s = without.Stop();
  EXPECT_FALSE(s.energy_j_total.has_value());
  EXPECT_EQ(s.energy_note, "energy: no RAPL domains under " + (dir_ / "missing").string());
}

}  // namespace
}  // namespace ngraphbench
