#include "ngraphbench/analysis/report.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>

#include "ngraphbench/analysis/analyze.h"
#include "ngraphbench/compilers/compile_helper.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/shell.h"

extern char** environ;

namespace ngraphbench {

int RunReport(const std::vector<std::string>& inputs, const std::string& out_dir,
              InvalidRuns invalid_runs, bool html_only) {
  RunAnalyze(inputs, out_dir, invalid_runs);
  const std::string python = EnvOr("NGRAPHBENCH_PYTHON", NGB_REPORT_PYTHON);
  std::vector<std::string> argv = {python, NGB_REPORT_SCRIPT, out_dir, "--results"};
  argv.insert(argv.end(), inputs.begin(), inputs.end());
  if (html_only) argv.push_back("--no-static");
  std::vector<char*> args;
  for (std::string& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, python.c_str(), nullptr, nullptr, args.data(), environ);
  if (error != 0) {
    throw EnvironmentError("report: cannot start " + python + " (" + std::strerror(error) +
                           "); set NGRAPHBENCH_PYTHON to a python with matplotlib and plotly, "
                           "or run ./setup.sh");
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // Exit status 2: the script refused its input and said why on stderr (python/report_html.py).
  if (WIFEXITED(status) && WEXITSTATUS(status) == kExitBadInput) {
    throw InputError("report: the inputs were refused (the message above); the analysis CSVs "
                     "are in " + out_dir);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw EnvironmentError("report: " + ShellCommandLine(argv) + " failed (" +
                           (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                              : "signal " + std::to_string(WTERMSIG(status))) +
                           "); the analysis CSVs are in " + out_dir);
  }
  return kExitOk;
}

}  // namespace ngraphbench
