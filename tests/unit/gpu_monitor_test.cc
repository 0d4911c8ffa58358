// The GPU monitor against a stand-in NVML library (fixtures/fake_nvml.cc, whose figures are
// known) and against a fixture tree laid out like a Jetson's sysfs: no GPU needed.
#include "ngraphbench/measure/gpu_monitor.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "ngraphbench/measure/harness.h"
#include "ngraphbench/measure/sampler.h"
#include "temp_dir.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

class GpuMonitorTest : public test_support::TempDirTest {
 protected:
  GpuMonitorTest() : TempDirTest("sysfs_") {}

  void TearDown() override {
    TempDirTest::TearDown();
    for (const char* v : {"FAKE_NVML_INIT_FAIL", "FAKE_NVML_NO_ENERGY", "FAKE_NVML_NO_UTIL",
                          "FAKE_NVML_OTHER_PID"}) {
      ::unsetenv(v);
    }
  }

  // The stand-in NVML; an empty sysfs tree, so that only NVML can be the source.
  GpuMonitorSettings Fake(const std::string& library = FAKE_NVML) const {
    GpuMonitorSettings s;
    s.nvml_library = library;
    s.sysfs_root = dir_.string();
    return s;
  }
  GpuMonitorSettings NoNvml() const { return Fake((dir_ / "missing/libnvidia-ml.so.1").string()); }

  void Write(const std::string& rel, const std::string& text) {
    fs::create_directories((dir_ / rel).parent_path());
    std::ofstream(dir_ / rel) << text;
  }

  // Start, `samples` samples, Stop.
  static GpuStats Window(GpuMonitor& monitor, int samples) {
    monitor.Start();
    for (int i = 0; i < samples; ++i) monitor.Sample();
    return monitor.Stop();
  }
};

TEST_F(GpuMonitorTest, NvmlMeansPeaksAndEnergy) {
  GpuMonitor monitor(Fake());
  const GpuStats s = Window(monitor, 2);
  EXPECT_EQ(s.device, "Fake GPU 0");
  EXPECT_EQ(s.samples, 2);
  ASSERT_TRUE(s.gpu_util_pct.has_value()) << s.note;
  EXPECT_DOUBLE_EQ(*s.gpu_util_pct, 50.0);  // 40 % and 60 %
  ASSERT_TRUE(s.gpu_mem_mb.has_value()) << s.note;
  EXPECT_DOUBLE_EQ(*s.gpu_mem_mb, 1234.0);  // this process's peak, not the other's 500 MiB
  ASSERT_TRUE(s.gpu_power_w.has_value()) << s.note;
  EXPECT_DOUBLE_EQ(*s.gpu_power_w, 250.0);  // 200 W and 300 W
  ASSERT_TRUE(s.gpu_energy_j_total.has_value()) << s.note;
  EXPECT_DOUBLE_EQ(*s.gpu_energy_j_total, 5.0);  // 5000 mJ between the two reads
  EXPECT_EQ(s.note, "");

  // A second window on the same monitor starts from nothing.
  const GpuStats again = Window(monitor, 1);
  EXPECT_EQ(again.samples, 1);
  EXPECT_DOUBLE_EQ(*again.gpu_util_pct, 40.0);
  EXPECT_DOUBLE_EQ(*again.gpu_energy_j_total, 5.0);
}

// A library without the _v3 function: the unversioned one, with its two-field struct.
TEST_F(GpuMonitorTest, UnversionedProcessListIsReadWithItsOwnLayout) {
  GpuMonitor monitor(Fake(FAKE_NVML_V1));
  const GpuStats s = Window(monitor, 2);
  ASSERT_TRUE(s.gpu_mem_mb.has_value()) << s.note;
  EXPECT_DOUBLE_EQ(*s.gpu_mem_mb, 1234.0);
  EXPECT_EQ(s.note, "");
}

TEST_F(GpuMonitorTest, WithoutThisProcessInTheListTheDeviceMemoryIsTakenAndNamed) {
  ::setenv("FAKE_NVML_OTHER_PID", "1", 1);
  GpuMonitor monitor(Fake());
  const GpuStats s = Window(monitor, 2);
  ASSERT_TRUE(s.gpu_mem_mb.has_value()) << s.note;
  EXPECT_DOUBLE_EQ(*s.gpu_mem_mb, 8192.0);
  EXPECT_NE(s.note.find("gpu_mem_mb: the whole GPU's used memory"), std::string::npos) << s.note;
}

TEST_F(GpuMonitorTest, UnsupportedFiguresStayEmptyWithTheReason) {
  ::setenv("FAKE_NVML_NO_ENERGY", "1", 1);
  ::setenv("FAKE_NVML_NO_UTIL", "1", 1);
  GpuMonitor monitor(Fake());
  const GpuStats s = Window(monitor, 2);
  EXPECT_FALSE(s.gpu_energy_j_total.has_value());
  EXPECT_FALSE(s.gpu_util_pct.has_value());
  EXPECT_DOUBLE_EQ(*s.gpu_power_w, 250.0);  // the rest is still measured
  EXPECT_DOUBLE_EQ(*s.gpu_mem_mb, 1234.0);
  EXPECT_NE(s.note.find("gpu_energy_j: NVML: energy counter not supported on Fake GPU 0"),
            std::string::npos)
      << s.note;
  EXPECT_NE(s.note.find("gpu_util_pct: NVML on Fake GPU 0: Not Supported (3)"), std::string::npos)
      << s.note;
}

TEST_F(GpuMonitorTest, NoSampleInTheWindowIsNamed) {
  GpuMonitor monitor(Fake());
  const GpuStats s = Window(monitor, 0);
  EXPECT_FALSE(s.gpu_util_pct.has_value());
  EXPECT_FALSE(s.gpu_mem_mb.has_value());
  EXPECT_FALSE(s.gpu_power_w.has_value());
  EXPECT_DOUBLE_EQ(*s.gpu_energy_j_total, 5.0);  // read at the two ends, not sampled
  EXPECT_NE(s.note.find("gpu: no sample in the timed window"), std::string::npos) << s.note;
}

TEST_F(GpuMonitorTest, MissingLibraryLeavesEverythingEmpty) {
  GpuMonitor monitor(NoNvml());
  const GpuStats s = Window(monitor, 3);
  EXPECT_FALSE(s.gpu_util_pct.has_value());
  EXPECT_FALSE(s.gpu_mem_mb.has_value());
  EXPECT_FALSE(s.gpu_power_w.has_value());
  EXPECT_FALSE(s.gpu_energy_j_total.has_value());
  EXPECT_EQ(s.samples, 0);
  const std::string lib = (dir_ / "missing/libnvidia-ml.so.1").string();
  EXPECT_EQ(s.note.rfind("gpu: no NVIDIA GPU measured: NVML: " + lib + " not loadable", 0), 0u)
      << s.note;
  EXPECT_NE(s.note.find("; Jetson: no GPU load file under " + dir_.string()), std::string::npos)
      << s.note;
}

TEST_F(GpuMonitorTest, FailedInitLeavesEverythingEmpty) {
  ::setenv("FAKE_NVML_INIT_FAIL", "1", 1);
  GpuMonitor monitor(Fake());
  const GpuStats s = Window(monitor, 2);
  EXPECT_FALSE(s.gpu_util_pct.has_value());
  EXPECT_FALSE(s.gpu_energy_j_total.has_value());
  EXPECT_NE(s.note.find("NVML: nvmlInit_v2 failed: Driver Not Loaded (9)"), std::string::npos)
      << s.note;
}

TEST_F(GpuMonitorTest, CudaVisibleDevicesPicksTheGpu) {
  EXPECT_EQ(ParseVisibleDevices(std::nullopt).index, 0u);
  EXPECT_EQ(ParseVisibleDevices(std::string("1")).index, 1u);
  EXPECT_EQ(ParseVisibleDevices(std::string(" 3,0")).index, 3u);
  EXPECT_EQ(ParseVisibleDevices(std::string("GPU-fake-1,0")).uuid, "GPU-fake-1");
  EXPECT_EQ(ParseVisibleDevices(std::string("MIG-abc")).uuid, "MIG-abc");
  for (const char* none : {"", "-1", "none"}) {
    const VisibleDevice d = ParseVisibleDevices(std::string(none));
    EXPECT_FALSE(d.index.has_value()) << none;
    EXPECT_EQ(d.uuid, "") << none;
  }

  GpuMonitorSettings settings = Fake();
  settings.visible_devices = "1";
  GpuMonitor by_index(settings);
  EXPECT_EQ(Window(by_index, 1).device, "Fake GPU 1");
  settings.visible_devices = "GPU-fake-1";
  GpuMonitor by_uuid(settings);
  EXPECT_EQ(Window(by_uuid, 1).device, "Fake GPU 1");
  settings.visible_devices = "5";
  GpuMonitor absent(settings);
  GpuStats s = Window(absent, 1);
  EXPECT_FALSE(s.gpu_util_pct.has_value());
  EXPECT_NE(s.note.find("no GPU with index 5: Invalid Argument (2)"), std::string::npos) << s.note;
  settings.visible_devices = "";
  GpuMonitor hidden(settings);
  s = Window(hidden, 1);
  EXPECT_FALSE(s.gpu_util_pct.has_value());
  EXPECT_NE(s.note.find("CUDA_VISIBLE_DEVICES= names no GPU"), std::string::npos) << s.note;
}

// Orin: the devfreq device whose device-tree node is ga10b; load in per-mille.
TEST_F(GpuMonitorTest, JetsonLoadFromDevfreq) {
  Write("sys/class/devfreq/17000000.ga10b/device/of_node/name", std::string("ga10b\0", 6));
  Write("sys/class/devfreq/17000000.ga10b/device/load", "456\n");
  Write("sys/class/devfreq/3d00000.emc/device/of_node/name", "emc");  // not the GPU
  Write("sys/class/devfreq/3d00000.emc/device/load", "999\n");
  GpuMonitor monitor(NoNvml());
  monitor.Start();
  monitor.Sample();
  const GpuStats one = monitor.Stop();
  EXPECT_EQ(one.device, "Jetson integrated GPU (ga10b)");
  ASSERT_TRUE(one.gpu_util_pct.has_value()) << one.note;
  EXPECT_DOUBLE_EQ(*one.gpu_util_pct, 45.6);

  monitor.Start();
  monitor.Sample();
  Write("sys/class/devfreq/17000000.ga10b/device/load", "544\n");
  monitor.Sample();
  const GpuStats two = monitor.Stop();
  EXPECT_DOUBLE_EQ(*two.gpu_util_pct, 50.0);
  // Shared memory and no GPU-only power rail: empty, and said why.
  EXPECT_FALSE(two.gpu_mem_mb.has_value());
  EXPECT_FALSE(two.gpu_power_w.has_value());
  EXPECT_FALSE(two.gpu_energy_j_total.has_value());
  EXPECT_NE(two.note.find("gpu_mem_mb: a Jetson's GPU shares the CPU's memory"), std::string::npos)
      << two.note;
}

// Older L4T releases: the fixed gpu.0 path.
TEST_F(GpuMonitorTest, JetsonLoadFromTheOlderPath) {
  Write("sys/devices/gpu.0/load", "1000\n");
  GpuMonitor monitor(NoNvml());
  const GpuStats s = Window(monitor, 1);
  EXPECT_EQ(s.device, "Jetson integrated GPU (gpu)");
  ASSERT_TRUE(s.gpu_util_pct.has_value()) << s.note;
  EXPECT_DOUBLE_EQ(*s.gpu_util_pct, 100.0);
}

// The sampler thread drives the monitor: samples every period, the counter at the two ends.
TEST_F(GpuMonitorTest, TheSamplerThreadSamplesTheGpu) {
  SystemSampler sampler(std::chrono::milliseconds(2), (dir_ / "no_powercap").string(), Fake());
  sampler.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  const SystemStats s = sampler.Stop();
  ASSERT_GE(s.gpu.samples, 2) << s.gpu.note;
  EXPECT_LE(s.gpu.samples, s.samples + 1);
  ASSERT_TRUE(s.gpu.gpu_util_pct.has_value()) << s.gpu.note;
  EXPECT_GE(*s.gpu.gpu_util_pct, 40.0);
  EXPECT_LE(*s.gpu.gpu_util_pct, 60.0);
  EXPECT_DOUBLE_EQ(*s.gpu.gpu_mem_mb, 1234.0);
  EXPECT_DOUBLE_EQ(*s.gpu.gpu_energy_j_total, 5.0);
  EXPECT_EQ(s.gpu.note, "");

  // A CPU run: no monitor, every GPU figure empty and no note.
  SystemSampler cpu(std::chrono::milliseconds(2), (dir_ / "no_powercap").string());
  cpu.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const SystemStats c = cpu.Stop();
  EXPECT_FALSE(c.gpu.gpu_util_pct.has_value());
  EXPECT_FALSE(c.gpu.gpu_mem_mb.has_value());
  EXPECT_FALSE(c.gpu.gpu_power_w.has_value());
  EXPECT_FALSE(c.gpu.gpu_energy_j_total.has_value());
  EXPECT_EQ(c.gpu.note, "");
  EXPECT_EQ(c.gpu.samples, 0);
}

// Each Run() sleeps 2 ms.
class SleepingExecutable : public Executable {
 public:
  void SetInputs(const std::vector<HostTensor>&) override {}
  void Run() override { std::this_thread::sleep_for(std::chrono::milliseconds(2)); }
  std::vector<HostTensor> GetOutputs() override { return {}; }
};

// MeasureOptions::gpu reaches the sampler: the GPU is watched over the timed runs only.
TEST_F(GpuMonitorTest, MeasureWatchesTheGpuWhenAsked) {
  SleepingExecutable exe;
  MeasureOptions options;
  options.warmup = 2;
  options.repeats = 20;
  options.sample_period = std::chrono::milliseconds(2);
  options.gpu = Fake();
  const Measurement m = Measure(exe, {}, options);
  ASSERT_GE(m.system.gpu.samples, 2) << m.system.gpu.note;
  EXPECT_DOUBLE_EQ(*m.system.gpu.gpu_energy_j_total, 5.0);
  EXPECT_DOUBLE_EQ(*m.system.gpu.gpu_mem_mb, 1234.0);

  options.gpu.reset();  // a CPU run
  const Measurement cpu = Measure(exe, {}, options);
  EXPECT_FALSE(cpu.system.gpu.gpu_util_pct.has_value());
  EXPECT_FALSE(cpu.system.gpu.gpu_energy_j_total.has_value());
  EXPECT_EQ(cpu.system.gpu.note, "");
}

}  // namespace
}  // namespace ngraphbench
