// A sampler thread that watches this process over the timed window: CPU time and RSS.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <thread>

namespace ngraphbench {

struct SystemStats {
  double cpu_util_pct = 0;       // process CPU time / wall time, percent of one core
  double cpu_util_norm_pct = 0;  // the same divided by the available cores
  double rss_start_mb = 0;       // RSS when the window opened
  double rss_peak_mb = 0;        // highest RSS seen during the window (sampled, and at both ends)
  int64_t samples = 0;
};

// Resident set size of this process in MiB, from /proc/self/statm.
double CurrentRssMb();
// CPU time (user + system, all threads) of this process in ns.
int64_t ProcessCpuNs();

// Start() opens the window, Stop() closes it. With a zero period no thread is started and
// only the two ends are read: the "sampler off" mode used to measure the sampler's own cost.
// The thread sleeps between samples, so it takes a core only for microseconds per period.
class SystemSampler {
 public:
  explicit SystemSampler(std::chrono::milliseconds period) : period_(period) {}
  ~SystemSampler();

  void Start();
  SystemStats Stop();

 private:
  void Loop();

  std::chrono::milliseconds period_;
  std::thread thread_;
  std::atomic<bool> running_{false};
  std::atomic<int64_t> peak_rss_kb_{0};
  std::atomic<int64_t> samples_{0};
  int64_t cpu_start_ns_ = 0;
  std::chrono::steady_clock::time_point wall_start_;
  double rss_start_mb_ = 0;
};

}  // namespace ngraphbench
