#include "ngraphbench/runner/probe.h"

#include <cstdio>
#include <iostream>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/shell.h"
#include "ngraphbench/experiments/resolve.h"
#include "ngraphbench/runner/launch.h"
#include "ngraphbench/runner/run.h"

namespace ngraphbench {

ProbeResult Probe(const std::string& compiler, const std::string& configs_dir,
                  const std::vector<std::string>& settings) {
  std::vector<std::string> argv = {SelfExe(), "probe", compiler, "--configs", configs_dir};
  for (const std::string& s : settings) argv.insert(argv.end(), {"--set", s});
  const std::string cmd = ShellCommandLine(argv) + " 2>/dev/null";
  std::string out;
  if (FILE* pipe = ::popen(cmd.c_str(), "r")) {
    char buf[1024];
    while (std::fgets(buf, sizeof(buf), pipe)) out += buf;
    if (::pclose(pipe) != 0) return {};
  }
  const size_t eol = out.find('\n');
  if (eol == std::string::npos) return {};
  ProbeResult result{out.substr(0, eol), ""};
  const std::string rest = out.substr(eol + 1);
  if (rest.rfind(kProbeUnavailable, 0) == 0) {
    result.unavailable = rest.substr(std::string(kProbeUnavailable).size());
    while (!result.unavailable.empty() && result.unavailable.back() == '\n') {
      result.unavailable.pop_back();
    }
  }
  return result;
}

int CmdProbe(const std::string& compiler, const std::string& configs_dir,
             const std::vector<std::string>& settings) {
  std::unique_ptr<Compiler> loaded = LoadCompiler(compiler);
  std::cout << loaded->Version() << "\n";
  if (!configs_dir.empty()) {
    const CompilerConfig config =
        ResolveCompilerConfig(configs_dir, FindCompiler(compiler), 0, settings);
    const std::string why = loaded->Unavailable(config);
    std::cout << (why.empty() ? std::string(kProbeAvailable) : kProbeUnavailable + why) << "\n";
  }
  return kExitOk;
}

}  // namespace ngraphbench
