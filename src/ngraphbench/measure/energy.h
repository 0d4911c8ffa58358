// Energy over the timed window from the RAPL counters that Linux exposes in /sys/class/powercap
// (Intel, and AMD since Zen): every package domain intel-rapl:N and the DRAM subdomains
// intel-rapl:N:M named "dram", summed. The other subdomains (core, uncore) are parts of their
// package and psys covers the whole platform, so they are left out: nothing is counted twice.
//
// The counters are per package, not per process: they include everything else running on the
// machine (read other_cpu_pct beside them). Each counter wraps at max_energy_range_uj; one wrap
// per window is handled, so a window must be shorter than a full range (minutes to hours at
// typical power).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ngraphbench {

inline constexpr const char* kPowercapRoot = "/sys/class/powercap";

struct EnergyReading {
  std::optional<double> joules;  // package + DRAM over the window
  std::string reason;            // why joules is empty, e.g. "no RAPL domains under ..."
};

// Start() snapshots every domain's counter when the window opens, Stop() when it closes.
// Not thread-safe; one window at a time. Never throws.
class EnergyMeter {
 public:
  explicit EnergyMeter(std::string powercap_root = kPowercapRoot)
      : root_(std::move(powercap_root)) {}

  // Finds the domains, then reads their counters (the last thing it does, so that the window
  // starts right after).
  void Start();
  // Reads the counters again: the energy since Start(), or why there is none.
  EnergyReading Stop();

 private:
  struct Domain {
    std::string dir;                      // <root>/intel-rapl:0, <root>/intel-rapl:0:1
    std::optional<int64_t> max_range_uj;  // where energy_uj wraps
    int64_t start_uj = 0;
  };

  std::string root_;
  std::vector<Domain> domains_;
  std::string reason_;  // set by Start() when no reading is possible
};

}  // namespace ngraphbench
