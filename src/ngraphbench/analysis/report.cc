#include "ngraphbench/analysis/report.h"

#include <cerrno>
#include <cstring>
#include <iostream>

#include "ngraphbench/analysis/analyze.h"
#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/shell.h"
#include "ngraphbench/core/subprocess.h"

namespace ngraphbench {

int RunReport(const std::vector<std::string>& inputs, const std::string& out_dir,
              InvalidRuns invalid_runs, bool html_only) {
  RunAnalyze(inputs, out_dir, invalid_runs);
  const std::string python = EnvOr("NGRAPHBENCH_PYTHON", NGB_REPORT_PYTHON);
  std::vector<std::string> argv = {python, NGB_REPORT_SCRIPT, out_dir, "--results"};
  argv.insert(argv.end(), inputs.begin(), inputs.end());
  argv.insert(argv.end(), {"--baseline", BaselineCompiler()});
  if (html_only) argv.push_back("--no-static");
  // The script's stdout and stderr come back through this process's streams, and so through
  // their terminal filter (core/terminal.h): its messages name files from the inputs.
  ChildOptions options;
  options.out = options.err = ChildOutput::kCapture;
  options.capture_limit = 0;  // relayed, not kept
  options.on_output = [](bool is_err, const char* data, size_t size) {
    std::ostream& stream = is_err ? std::cerr : std::cout;
    stream.write(data, static_cast<std::streamsize>(size));
    stream.flush();
  };
  options.die_with_parent = false;
  const ChildResult result = RunChild(ExecCommand(argv), options);
  if (!result.started()) {
    throw EnvironmentError("report: cannot start " + python + " (" +
                           std::strerror(result.start_error) +
                           "); set NGRAPHBENCH_PYTHON to a python with matplotlib and plotly, "
                           "or run ./setup.sh");
  }
  // Exit status 2: the script refused its input and said why on stderr (python/report_html.py).
  if (result.exit_code == kExitBadInput) {
    throw InputError("report: the inputs were refused (the message above); the analysis CSVs "
                     "are in " + out_dir);
  }
  if (!result.ok()) {
    throw EnvironmentError("report: " + ShellCommandLine(argv) + " failed (" + result.Describe() +
                           "); the analysis CSVs are in " + out_dir);
  }
  return kExitOk;
}

}  // namespace ngraphbench
