#include "ngraphbench/measure/sampler.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "ngraphbench/core/tensor.h"

namespace ngraphbench {

namespace {

int64_t RssKb() {
  // statm: size resident shared ... in pages. Read with plain syscalls: cheap and allocation-free.
  int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[128];
  ssize_t n = ::read(fd, buf, sizeof(buf) - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  long size = 0, resident = 0;
  if (std::sscanf(buf, "%ld %ld", &size, &resident) != 2) return 0;
  static const long page_kb = ::sysconf(_SC_PAGESIZE) / 1024;
  return static_cast<int64_t>(resident) * page_kb;
}

void UpdatePeak(std::atomic<int64_t>& peak, int64_t value) {
  int64_t prev = peak.load();
  while (value > prev && !peak.compare_exchange_weak(prev, value)) {
  }
}

}  // namespace

double CurrentRssMb() { return static_cast<double>(RssKb()) / 1024.0; }

int64_t ProcessCpuNs() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

SystemSampler::~SystemSampler() {
  running_ = false;
  if (thread_.joinable()) thread_.join();
}

void SystemSampler::Start() {
  const int64_t rss = RssKb();
  rss_start_mb_ = static_cast<double>(rss) / 1024.0;
  peak_rss_kb_ = rss;
  samples_ = 0;
  if (period_.count() > 0) {
    running_ = true;
    thread_ = std::thread([this] { Loop(); });
  }
  wall_start_ = std::chrono::steady_clock::now();
  cpu_start_ns_ = ProcessCpuNs();
}

void SystemSampler::Loop() {
  while (running_) {
    std::this_thread::sleep_for(period_);
    UpdatePeak(peak_rss_kb_, RssKb());
    ++samples_;
  }
}

SystemStats SystemSampler::Stop() {
  const int64_t cpu_end_ns = ProcessCpuNs();
  const auto wall_end = std::chrono::steady_clock::now();
  running_ = false;
  if (thread_.joinable()) thread_.join();
  UpdatePeak(peak_rss_kb_, RssKb());
  SystemStats s;
  const double wall_ns =
      static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                              wall_end - wall_start_)
                              .count());
  s.cpu_util_pct =
      wall_ns > 0 ? 100.0 * static_cast<double>(cpu_end_ns - cpu_start_ns_) / wall_ns : 0.0;
  s.cpu_util_norm_pct = s.cpu_util_pct / AvailableCores();
  s.rss_start_mb = rss_start_mb_;
  s.rss_peak_mb = static_cast<double>(peak_rss_kb_.load()) / 1024.0;
  s.samples = samples_.load();
  return s;
}

}  // namespace ngraphbench
