// The NVIDIA GPU over the timed window: utilization, memory and power sampled from the sampler
// thread, and the energy counter read when the window opens and when it closes.
//
// Two sources, tried in this order:
// - NVML, loaded at run time with dlopen (libnvidia-ml.so.1 ships with the driver, not with
//   CUDA), so that ngraphbench builds and runs on machines without a GPU and links nothing of
//   NVIDIA's. Which GPU: the first entry of CUDA_VISIBLE_DEVICES, an index or a GPU-/MIG- UUID;
//   index 0 when it is unset. An index is NVML's (PCI bus order), the same GPU as CUDA's index
//   when CUDA_DEVICE_ORDER=PCI_BUS_ID or the GPUs are all of one model.
// - On a Jetson (no NVML), the integrated GPU's load from sysfs. Its memory is the CPU's memory
//   (rss_peak_mb covers it), and no GPU-only power rail is read: those figures stay empty.
//
// Every figure is empty, never 0, when it is not measured; `note` says why.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace ngraphbench {

// The NVML library to load, overriding libnvidia-ml.so.1 (tests point it at a stand-in).
inline constexpr const char* kNvmlLibraryEnv = "NGRAPHBENCH_NVML_LIBRARY";
// The root under which the Jetson sysfs files are looked up, "/" unless set (tests point it at
// a fixture tree).
inline constexpr const char* kSysfsRootEnv = "NGRAPHBENCH_SYSFS_ROOT";

struct GpuMonitorSettings {
  std::string nvml_library = "libnvidia-ml.so.1";
  std::string sysfs_root = "/";
  // CUDA_VISIBLE_DEVICES as the process sees it; nullopt when unset.
  std::optional<std::string> visible_devices;
};

// The settings from this process's environment (NGRAPHBENCH_NVML_LIBRARY,
// NGRAPHBENCH_SYSFS_ROOT, CUDA_VISIBLE_DEVICES).
GpuMonitorSettings GpuMonitorSettingsFromEnvironment();

// The GPU that the first entry of a CUDA_VISIBLE_DEVICES value names: an index, or a UUID
// ("GPU-..." or "MIG-..."). Both empty when the value names none ("", "-1", "none").
struct VisibleDevice {
  std::optional<unsigned> index;
  std::string uuid;
};
VisibleDevice ParseVisibleDevices(const std::optional<std::string>& value);

struct GpuStats {
  std::string device;                  // the GPU's name, e.g. "NVIDIA H100 80GB HBM3"
  std::optional<double> gpu_util_pct;  // mean of the samples' utilization, percent
  // Peak over the samples, MiB: this process's memory on the GPU from NVML's list of running
  // processes; the whole device's used memory (and a note saying so) when this process is not
  // in that list, as in a container with its own PID namespace.
  std::optional<double> gpu_mem_mb;
  std::optional<double> gpu_power_w;         // mean of the samples' power draw, watts
  std::optional<double> gpu_energy_j_total;  // the energy counter's increase over the window
  int64_t samples = 0;
  std::string note;  // why a figure above is empty, "; "-joined
};

// The constructor finds the source (loads and initializes NVML, which can take a second on a
// GPU without persistence mode): build the monitor before the warmup, so that no idle gap
// separates the warmup from the timed runs. Start() opens a window (reads the energy counter),
// Sample() is called by the sampler thread every period, Stop() closes the window. Sample() may run
// concurrently with Stop(): a sample that ends after Stop() is dropped. Never throws.
class GpuMonitor {
 public:
  explicit GpuMonitor(GpuMonitorSettings settings);
  ~GpuMonitor();
  GpuMonitor(const GpuMonitor&) = delete;
  GpuMonitor& operator=(const GpuMonitor&) = delete;

  void Start();
  void Sample();
  GpuStats Stop();

 private:
  struct Nvml;
  void Open();
  bool OpenNvml(std::string* why);
  bool OpenJetson(std::string* why);
  std::optional<uint64_t> ReadEnergyMj();

  GpuMonitorSettings settings_;
  std::unique_ptr<Nvml> nvml_;  // set when NVML is the source
  std::string jetson_load_;     // the load file, when sysfs is the source
  std::string device_;
  std::string open_note_;  // why there is no source, or what it cannot measure

  std::optional<uint64_t> energy_start_mj_;
  std::string energy_note_;
  std::mutex mutex_;  // guards what follows, written by Sample() and read by Stop()
  bool open_window_ = false;
  int64_t samples_ = 0, util_samples_ = 0, power_samples_ = 0;
  int util_error_ = 0, power_error_ = 0, memory_error_ = 0;  // nvmlReturn_t, 0 = none
  double util_sum_ = 0, power_sum_w_ = 0;
  std::optional<double> process_mem_peak_mb_, device_mem_peak_mb_;
};

}  // namespace ngraphbench
