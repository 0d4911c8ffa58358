// A sampler thread that watches this process over the timed window: CPU time and RSS, and the
// NVIDIA GPU when the run computes on one; and the machine's RAPL energy counters (and the
// GPU's), read when the window opens and when it closes.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "ngraphbench/measure/energy.h"
#include "ngraphbench/measure/gpu_monitor.h"

namespace ngraphbench {

struct SystemStats {
  // Process CPU time (all threads except the sampler's own) / wall time, percent of one core,
  // and the same divided by the available cores. Empty when the window holds fewer than
  // kMinSamplerPeriods sampler periods: too short for the figure to mean anything.
  std::optional<double> cpu_util_pct, cpu_util_norm_pct;
  // CPU time of everything else over the window (busy time from /proc/stat, steal included, less
  // this process's CPU time), percent of one core: of the whole machine, or of the CPUs this
  // process may run on when it is pinned to fewer. Empty when /proc/stat is unreadable.
  std::optional<double> other_cpu_pct;
  double rss_start_mb = 0;       // RSS when the window opened
  double rss_peak_mb = 0;        // highest RSS seen during the window (sampled, and at both ends)
  double window_s = 0;           // wall time of the window
  int64_t samples = 0;
  std::string note;  // why a figure above is empty
  // RAPL package + DRAM energy over the window, joules (measure/energy.h); empty, with the
  // reason in energy_note, where the machine does not expose it.
  std::optional<double> energy_j_total;
  std::string energy_note;
  // The GPU over the window (measure/gpu_monitor.h); all empty, with no note, when the sampler
  // was not asked to watch one.
  GpuStats gpu;
};

// The fewest sampler periods a window must hold for cpu_util_pct to be reported.
constexpr int kMinSamplerPeriods = 10;

// Busy CPU time in ns from a /proc/stat text (user, nice, system, irq, softirq and steal; idle
// and iowait excluded), in USER_HZ ticks converted with `ns_per_tick`: system-wide from the `cpu`
// line, or the sum of the `cpu<N>` lines of `cpus` when given. nullopt when a line needed is
// missing or unparsable.
std::optional<int64_t> ParseProcStatBusyNs(const std::string& proc_stat, int64_t ns_per_tick,
                                           const std::vector<int>& cpus = {});

// Resident set size of this process in MiB, from /proc/self/statm.
double CurrentRssMb();
// CPU time (user + system, all threads) of this process in ns.
int64_t ProcessCpuNs();

// Start() opens the window, Stop() closes it. With a zero period no thread is started and
// only the two ends are read: the "sampler off" mode used to measure the sampler's own cost.
// The thread sleeps between samples, so it takes a core only for microseconds per period.
// Energy is read at the two ends only, outside the clock, from `powercap_root`. With `gpu` the
// thread also samples the GPU (tens of microseconds of NVML calls per period, on the sampler's
// core and outside its CPU figures, like its own RSS reads); the constructor then loads NVML.
class SystemSampler {
 public:
  explicit SystemSampler(std::chrono::milliseconds period,
                         std::string powercap_root = kPowercapRoot,
                         std::optional<GpuMonitorSettings> gpu = std::nullopt)
      : period_(period),
        energy_(std::move(powercap_root)),
        gpu_(gpu ? std::make_unique<GpuMonitor>(std::move(*gpu)) : nullptr) {}
  ~SystemSampler();

  void Start();
  SystemStats Stop();

 private:
  void Loop();

  std::chrono::milliseconds period_;
  EnergyMeter energy_;
  std::unique_ptr<GpuMonitor> gpu_;  // null unless the run computes on an NVIDIA GPU
  std::thread thread_;
  std::atomic<bool> running_{false};
  std::atomic<int64_t> peak_rss_kb_{0};
  std::atomic<int64_t> samples_{0};
  std::atomic<int64_t> sampler_cpu_ns_{0};  // the sampler thread's own CPU time
  int64_t cpu_start_ns_ = 0;
  std::optional<int64_t> busy_start_ns_;
  std::vector<int> cpus_;  // the CPUs other_cpu_pct counts; empty = all
  std::chrono::steady_clock::time_point wall_start_;
  double rss_start_mb_ = 0;
};

}  // namespace ngraphbench
