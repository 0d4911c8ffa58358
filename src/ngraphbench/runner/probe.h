// The probe: a short-lived process that loads a compiler's module and says its SDK version and
// whether this machine can run its config, so that the scheduler never loads a vendor SDK.
#pragma once

#include <string>
#include <vector>

namespace ngraphbench {

inline constexpr const char* kProbeAvailable = "available";
inline constexpr const char* kProbeUnavailable = "unavailable: ";

struct ProbeResult {
  std::string version;      // the SDK's version (Compiler::Version)
  std::string unavailable;  // why this machine cannot run the config; empty when it can
};
// Asks a probe process (CmdProbe, run.h) about `compiler` with its config from `configs_dir` and
// the --set `settings` over it.
// Both fields are empty when the probe itself fails: the workers then report what fails.
ProbeResult Probe(const std::string& compiler, const std::string& configs_dir,
                  const std::vector<std::string>& settings);

}  // namespace ngraphbench
