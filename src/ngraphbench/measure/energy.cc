#include "ngraphbench/measure/energy.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace ngraphbench {

namespace {

namespace fs = std::filesystem;

// A counter file's value, or why it cannot be read. Plain syscalls: errno tells a permission
// problem (energy_uj is root-only since Linux 5.10) from a missing file.
std::optional<int64_t> ReadCounter(const std::string& path, std::string* why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    *why = (err == EACCES || err == EPERM)
               ? std::string("not readable (permission)")
               : std::string("not readable (") + std::strerror(err) + ")";
    return std::nullopt;
  }
  char buf[64];
  const ssize_t n = ::read(fd, buf, sizeof(buf) - 1);
  const int err = errno;
  ::close(fd);
  if (n <= 0) {
    *why = n < 0 && (err == EACCES || err == EPERM)
               ? std::string("not readable (permission)")
               : std::string("not readable (") + (n < 0 ? std::strerror(err) : "empty") + ")";
    return std::nullopt;
  }
  buf[n] = '\0';
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(buf, &end, 10);
  while (*end == '\n' || *end == ' ') ++end;
  if (errno != 0 || end == buf || *end != '\0' || v < 0) {
    *why = "not a counter value";
    return std::nullopt;
  }
  return v;
}

// A domain's `name` file: package-0, dram, core, uncore, psys; empty when unreadable.
// "intel-rapl:0" (a package) -> 1, "intel-rapl:0:1" (one of its subdomains) -> 2, any other
// name -> 0.
int RaplDepth(const std::string& name) {
  const std::string prefix = "intel-rapl";
  if (name.rfind(prefix, 0) != 0) return 0;
  int depth = 0;
  for (size_t at = prefix.size(); at < name.size(); ++depth) {
    if (name[at] != ':') return 0;
    const size_t end = std::min(name.find(':', at + 1), name.size());
    if (end == at + 1 || !std::all_of(name.begin() + at + 1, name.begin() + end,
                                      [](char c) { return c >= '0' && c <= '9'; })) {
      return 0;
    }
    at = end;
  }
  return depth;
}

std::string ReadName(const fs::path& dir) {
  const int fd = ::open((dir / "name").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char buf[64];
  const ssize_t n = ::read(fd, buf, sizeof(buf) - 1);
  ::close(fd);
  if (n <= 0) return "";
  std::string name(buf, static_cast<size_t>(n));
  while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
  return name;
}

}  // namespace

void EnergyMeter::Start() {
  domains_.clear();
  reason_.clear();
  std::vector<fs::path> dirs;
  std::error_code ec;
  for (fs::directory_iterator it(root_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::string domain = ReadName(it->path());
    // Packages ("package-0"; psys is the whole platform and would count them twice) and DRAM.
    const int depth = RaplDepth(name);
    if ((depth == 1 && domain.rfind("package", 0) == 0) || (depth == 2 && domain == "dram")) {
      dirs.push_back(it->path());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  if (dirs.empty()) {
    reason_ = "no RAPL domains under " + root_;
    return;
  }
  for (const fs::path& dir : dirs) {
    Domain d;
    d.dir = dir.string();
    std::string why;
    d.max_range_uj = ReadCounter(d.dir + "/max_energy_range_uj", &why);
    domains_.push_back(std::move(d));
  }
  // All domains or none: a sum over some packages would understate the machine's energy.
  for (Domain& d : domains_) {
    std::string why;
    const std::optional<int64_t> uj = ReadCounter(d.dir + "/energy_uj", &why);
    if (!uj) {
      reason_ = "energy_uj " + why + ": " + d.dir + "/energy_uj";
      domains_.clear();
      return;
    }
    d.start_uj = *uj;
  }
}

EnergyReading EnergyMeter::Stop() {
  EnergyReading reading;
  if (domains_.empty()) {
    reading.reason = reason_.empty() ? "Start() was not called" : reason_;
    return reading;
  }
  std::vector<int64_t> end_uj;
  for (const Domain& d : domains_) {
    std::string why;
    const std::optional<int64_t> uj = ReadCounter(d.dir + "/energy_uj", &why);
    if (!uj) {
      reading.reason = "energy_uj " + why + " at the end of the window: " + d.dir + "/energy_uj";
      return reading;
    }
    end_uj.push_back(*uj);
  }
  int64_t total_uj = 0;
  for (size_t i = 0; i < domains_.size(); ++i) {
    const Domain& d = domains_[i];
    int64_t delta = end_uj[i] - d.start_uj;
    if (delta < 0) {  // the counter wrapped around once
      if (!d.max_range_uj) {
        reading.reason = d.dir + "/energy_uj wrapped and max_energy_range_uj is not readable";
        return reading;
      }
      delta += *d.max_range_uj;
    }
    total_uj += delta;
  }
  reading.joules = static_cast<double>(total_uj) / 1e6;
  return reading;
}

}  // namespace ngraphbench
