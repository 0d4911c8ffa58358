#include "ngraphbench/analysis/report.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "ngraphbench/analysis/analyze.h"
#include "ngraphbench/compilers/compile_helper.h"
#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/shell.h"

extern char** environ;

namespace ngraphbench {

namespace {

// Copies what arrives on `out_fd` to `out` and on `err_fd` to `err` until both end, then closes
// them.
void Relay(int out_fd, std::ostream& out, int err_fd, std::ostream& err) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::ostream* streams[2] = {&out, &err};
  int open = 2;
  char buffer[4096];
  while (open > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof(buffer));
      if (n > 0) {
        streams[i]->write(buffer, n);
        streams[i]->flush();
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  for (const pollfd& fd : fds) {
    if (fd.fd >= 0) ::close(fd.fd);
  }
}

}  // namespace

int RunReport(const std::vector<std::string>& inputs, const std::string& out_dir,
              InvalidRuns invalid_runs, bool html_only) {
  RunAnalyze(inputs, out_dir, invalid_runs);
  const std::string python = EnvOr("NGRAPHBENCH_PYTHON", NGB_REPORT_PYTHON);
  std::vector<std::string> argv = {python, NGB_REPORT_SCRIPT, out_dir, "--results"};
  argv.insert(argv.end(), inputs.begin(), inputs.end());
  argv.insert(argv.end(), {"--baseline", BaselineCompiler()});
  if (html_only) argv.push_back("--no-static");
  std::vector<char*> args;
  for (std::string& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  // The script's stdout and stderr come back through this process's streams, and so through
  // their terminal filter (core/terminal.h): its messages name files from the inputs.
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    throw EnvironmentError(std::string("report: cannot make a pipe (") + std::strerror(errno) +
                           ")");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, python.c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (error != 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    throw EnvironmentError("report: cannot start " + python + " (" + std::strerror(error) +
                           "); set NGRAPHBENCH_PYTHON to a python with matplotlib and plotly, "
                           "or run ./setup.sh");
  }
  Relay(out_pipe[0], std::cout, err_pipe[0], std::cerr);
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
