#include "ngraphbench/core/host.h"

#include <sys/utsname.h>

#include <fstream>

#include "ngraphbench/core/process.h"     // kMachineIdEnv
#include "ngraphbench/core/subprocess.h"  // EnvOr

namespace ngraphbench {

std::string HostCpuIdentity() {
  std::ifstream in("/proc/cpuinfo");
  // x86: the model name and flags lines. aarch64 has neither: its core types (each distinct
  // "CPU implementer" and "CPU part" line) and its "Features" line.
  std::string line, model, flags, cores;
  while (std::getline(in, line) && (model.empty() || flags.empty())) {
    if (model.empty() && line.rfind("model name", 0) == 0) model = line;
    if (flags.empty() && (line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0)) {
      flags = line;
    }
    if ((line.rfind("CPU implementer", 0) == 0 || line.rfind("CPU part", 0) == 0) &&
        cores.find(line + "\n") == std::string::npos) {
      cores += line + "\n";
    }
  }
  return model.empty() ? cores + flags : model + "\n" + flags;
}

std::string HostArch() {
  utsname u{};
  return ::uname(&u) == 0 ? u.machine : "";
}

std::string MachineIdentity() {
  return "machine_id=" + EnvOr(kMachineIdEnv, "") + "\n" + HostCpuIdentity();
}

}  // namespace ngraphbench
