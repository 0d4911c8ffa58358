#include "ngraphbench/measure/sampler.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "ngraphbench/core/tensor.h"
#include "ngraphbench/measure/machine.h"

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

int64_t ThreadCpuNs() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// Busy time of `cpus` (all CPUs when empty) from /proc/stat.
std::optional<int64_t> SystemBusyNs(const std::vector<int>& cpus) {
  int fd = ::open("/proc/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  // The aggregate `cpu` line comes first; the per-CPU lines follow it (about 100 bytes each).
  std::string text(cpus.empty() ? 512 : 256 + 128 * static_cast<size_t>(cpus.back() + 1), '\0');
  size_t filled = 0;
  for (ssize_t n; filled < text.size() - 1 &&
                  (n = ::read(fd, &text[filled], text.size() - 1 - filled)) > 0;) {
    filled += static_cast<size_t>(n);
  }
  ::close(fd);
  if (filled == 0) return std::nullopt;
  text.resize(filled);
  static const int64_t ns_per_tick = 1000000000LL / ::sysconf(_SC_CLK_TCK);
  return ParseProcStatBusyNs(text, ns_per_tick, cpus);
}

void UpdatePeak(std::atomic<int64_t>& peak, int64_t value) {
  int64_t prev = peak.load();
  while (value > prev && !peak.compare_exchange_weak(prev, value)) {
  }
}

}  // namespace

namespace {

// Busy ticks of the /proc/stat line that starts at `line` after its label.
std::optional<unsigned long long> BusyTicks(const char* fields_text) {
  unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
                     steal = 0;
  const int fields = std::sscanf(fields_text, "%llu %llu %llu %llu %llu %llu %llu %llu", &user,
                                 &nice, &system, &idle, &iowait, &irq, &softirq, &steal);
  if (fields < 4) return std::nullopt;
  // guest time is already counted in user (proc(5)).
  return user + nice + system + irq + softirq + steal;
}

}  // namespace

std::optional<int64_t> ParseProcStatBusyNs(const std::string& proc_stat, int64_t ns_per_tick,
                                           const std::vector<int>& cpus) {
  if (cpus.empty()) {
    if (proc_stat.rfind("cpu ", 0) != 0) return std::nullopt;
    const auto busy = BusyTicks(proc_stat.c_str() + 4);
    if (!busy) return std::nullopt;
    return static_cast<int64_t>(*busy) * ns_per_tick;
  }
  unsigned long long total = 0;
  for (int cpu : cpus) {
    const std::string label = "\ncpu" + std::to_string(cpu) + " ";
    const size_t at = proc_stat.find(label);
    if (at == std::string::npos) return std::nullopt;
    const auto busy = BusyTicks(proc_stat.c_str() + at + label.size());
    if (!busy) return std::nullopt;
    total += *busy;
  }
  return static_cast<int64_t>(total) * ns_per_tick;
}

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
  sampler_cpu_ns_ = 0;
  if (gpu_) gpu_->Start();  // before the thread that samples it starts
  if (period_.count() > 0) {
    running_ = true;
    thread_ = std::thread([this] { Loop(); });
  }
  // Pinned to some of the machine's CPUs (affinity, or a slice of --jobs): the others' load is
  // not this run's neighbours'; only the CPUs it may run on are counted.
  cpus_.clear();
  const std::vector<int> mine = ProcessCpus();
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (!mine.empty() && online > 0 && static_cast<long>(mine.size()) < online) cpus_ = mine;
  busy_start_ns_ = SystemBusyNs(cpus_);
  energy_.Start();
  wall_start_ = std::chrono::steady_clock::now();
  cpu_start_ns_ = ProcessCpuNs();
}

void SystemSampler::Loop() {
  while (running_) {
    std::this_thread::sleep_for(period_);
    UpdatePeak(peak_rss_kb_, RssKb());
    if (gpu_) gpu_->Sample();
    ++samples_;
    sampler_cpu_ns_ = ThreadCpuNs();
  }
}

SystemStats SystemSampler::Stop() {
  const int64_t cpu_end_ns = ProcessCpuNs();
  const auto wall_end = std::chrono::steady_clock::now();
  const EnergyReading energy = energy_.Stop();
  // Before the join, which waits up to a period: the GPU's energy counter is read now.
  GpuStats gpu = gpu_ ? gpu_->Stop() : GpuStats();
  const std::optional<int64_t> busy_end_ns = SystemBusyNs(cpus_);
  running_ = false;
  if (thread_.joinable()) thread_.join();
  UpdatePeak(peak_rss_kb_, RssKb());
  SystemStats s;
  const int64_t wall_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(wall_end - wall_start_).count();
  s.window_s = static_cast<double>(wall_ns) / 1e9;
  // The sampler thread's CPU time is its own cost, not the runtime's: left out. (It is read at
  // its last sample, so at most one sample's work before cpu_end_ns is attributed to it.)
  const int64_t own_cpu_ns = cpu_end_ns - cpu_start_ns_ - sampler_cpu_ns_.load();
  if (period_.count() > 0 && wall_ns < kMinSamplerPeriods * period_.count() * 1000000LL) {
    s.note = "cpu_util: the timed window (" + std::to_string(wall_ns / 1000000) +
             " ms) holds fewer than " + std::to_string(kMinSamplerPeriods) + " sampler periods";
  } else if (wall_ns > 0) {
    s.cpu_util_pct = 100.0 * static_cast<double>(own_cpu_ns) / static_cast<double>(wall_ns);
    s.cpu_util_norm_pct = *s.cpu_util_pct / AvailableCores();
  }
  if (busy_start_ns_ && busy_end_ns && wall_ns > 0) {
    const int64_t all_ns = cpu_end_ns - cpu_start_ns_;
    const int64_t other_ns = *busy_end_ns - *busy_start_ns_ - all_ns;
    s.other_cpu_pct =
        100.0 * static_cast<double>(other_ns > 0 ? other_ns : 0) / static_cast<double>(wall_ns);
  }
  s.rss_start_mb = rss_start_mb_;
  s.rss_peak_mb = static_cast<double>(peak_rss_kb_.load()) / 1024.0;
  s.samples = samples_.load();
  s.energy_j_total = energy.joules;
  if (!energy.joules) s.energy_note = "energy: " + energy.reason;
  s.gpu = std::move(gpu);
  return s;
}

}  // namespace ngraphbench
