#include "ngraphbench/runner/probe.h"

#include <iostream>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/subprocess.h"
#include "ngraphbench/experiments/resolve.h"
#include "ngraphbench/runner/launch.h"
#include "ngraphbench/runner/run.h"

namespace ngraphbench {

ProbeResult Probe(const std::string& compiler, const std::string& configs_dir,
                  const std::vector<std::string>& settings) {
  std::vector<std::string> argv = {SelfExe(), "probe", compiler, "--configs", configs_dir};
  for (const std::string& s : settings) argv.insert(argv.end(), {"--set", s});
  // Its stdout, at most a few lines (CmdProbe); its stderr goes nowhere.
  ChildOptions options;
  options.out = ChildOutput::kCapture;
  options.err = ChildOutput::kDiscard;
  options.capture_limit = size_t{64} << 10;
  const ChildResult child = RunChild(ExecCommand(argv), options);
  if (!child.ok()) return {};
  const std::string& out = child.out;
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
