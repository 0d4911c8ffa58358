// The scheduler: expands the grid, skips runs whose row exists, and runs one worker process per
// run. A worker that crashes or hangs costs one run, never the sweep (DESIGN.md §3).
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include <fmt/core.h>

#include "ngraphbench/cli/commands.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/results/csv.h"

namespace ngraphbench {

namespace {

using Clock = std::chrono::steady_clock;

struct WorkerOutcome {
  bool timed_out = false;
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal killed it
  std::string log_tail;
};

std::string Tail(const std::string& path, size_t max_chars) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.size() > max_chars ? "..." + text.substr(text.size() - max_chars) : text;
}

WorkerOutcome RunWorker(const std::vector<std::string>& argv, double timeout_s) {
  char log_path[] = "/tmp/ngraphbench-worker-XXXXXX";
  int log_fd = ::mkstemp(log_path);
  if (log_fd < 0) throw std::runtime_error("cannot create a worker log in /tmp");
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    // The worker: its own process group (so a timeout kills all it started), and it dies with
    // the scheduler, so a killed sweep leaves no worker writing behind it.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    std::fprintf(stderr, "cannot exec %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  ::close(log_fd);
  WorkerOutcome outcome;
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  while (true) {
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) throw std::runtime_error("waitpid failed");
    if (Clock::now() >= deadline) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      outcome.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  outcome.log_tail = Tail(log_path, 600);
  ::unlink(log_path);
  return outcome;
}

bool Exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

std::string FormatDuration(double seconds) {
  const int s = static_cast<int>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{}:{:02}", s / 60, s % 60);
}

std::string Quote(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

}  // namespace

int CmdRun(const RunArgs& args) {
  // Everything that can be wrong with the input is checked before anything runs or is written.
  const CompilerInfo& info = FindCompiler(args.compiler);
  const CompilerConfig config = ResolveCompilerConfig(args.grid.configs_dir, info);
  if (!IsBuilt(info.name)) {
    throw InputError("compiler '" + info.name + "' is not built (no " + ModulePath(info.name) +
                     "); " + info.enable_hint);
  }
  if (args.sample_ms < 0) throw InputError("--sample-ms must be >= 0");
  const std::vector<RunSpec> runs = ResolveGrid(args.grid);
  const std::string dir = RunDirectory(args);
  if (int removed = RemoveStaleTempFiles(dir)) {
    std::cerr << fmt::format("removed {} temporary file(s) an interrupted run left in {}\n",
                             removed, dir);
  }

  std::vector<const RunSpec*> todo;
  int kept_ok = 0, kept_failed = 0;
  for (const auto& run : runs) {
    const std::string path = RowPath(dir, run.run_id);
    if (Exists(path)) {
      bool ok = false;
      try {
        ok = ReadRow(path).status == kStatusOk;
      } catch (const InputError&) {
        todo.push_back(&run);  // unreadable: run it again; the new row replaces it atomically
        continue;
      }
      if (ok || !args.retry_failed) {
        (ok ? kept_ok : kept_failed)++;
        continue;
      }
    }
    todo.push_back(&run);
  }
  std::cerr << fmt::format("{} {} on {}: {} runs, {} to run, {} skipped ({} ok{})\n",
                           args.grid.experiment, info.name, args.device, runs.size(), todo.size(),
                           kept_ok + kept_failed, kept_ok,
                           kept_failed ? fmt::format(", {} failed; --retry-failed reruns them",
                                                     kept_failed)
                                       : "");

  const auto sweep_start = Clock::now();
  int failed = kept_failed;
  for (size_t i = 0; i < todo.size(); ++i) {
    const RunSpec& run = *todo[i];
    WorkerArgs worker{args, run.run_id};
    const std::vector<std::string> argv = WorkerCommand(worker);
    const auto run_start = Clock::now();
    WorkerOutcome outcome = RunWorker(argv, run.timeout_s);
    const std::string path = RowPath(dir, run.run_id);

    ResultRow row;
    const bool wrote_row = !outcome.timed_out && outcome.exit_code == 0 && Exists(path);
    if (wrote_row) {
      row = ReadRow(path);
    } else {
      row = BaseRow(run, args, config);
      if (outcome.timed_out) {
        row.status = kStatusTimeout;
        row.error = fmt::format("worker ran past the timeout of {} s and was killed",
                                run.timeout_s);
      } else {
        row.status = kStatusCrashed;
        row.error = outcome.signal ? fmt::format("worker killed by signal {} ({})",
                                                 outcome.signal, ::strsignal(outcome.signal))
                                   : fmt::format("worker exited with code {} without a row",
                                                 outcome.exit_code);
      }
      if (!outcome.log_tail.empty()) row.error += ": " + outcome.log_tail;
      WriteRow(path, row);
    }
    if (row.status != kStatusOk) ++failed;

    const double elapsed = std::chrono::duration<double>(Clock::now() - sweep_start).count();
    const double eta = elapsed / static_cast<double>(i + 1) * static_cast<double>(todo.size() - i - 1);
    std::string detail =
        row.status == kStatusOk
            ? fmt::format("p50 {:.3f} ms  {:.1f} samples/s", row.latency_p50_ms.value_or(0),
                          row.throughput_median_sps.value_or(0))
            : row.error.substr(0, 160);
    std::cerr << fmt::format("[{:>{}}/{}] {:<28} {:<8} {:5.1f}s  {}  (elapsed {}, ETA {})\n",
                             i + 1, std::to_string(todo.size()).size(), todo.size(), run.run_id,
                             row.status,
                             std::chrono::duration<double>(Clock::now() - run_start).count(),
                             detail, FormatDuration(elapsed), FormatDuration(eta));
    if (row.status != kStatusOk) {
      std::cerr << "  reproduce: " << Quote(argv) << "\n";
    }
  }
  std::cerr << fmt::format("done: {} runs, {} not ok; rows in {}\n", runs.size(), failed, dir);
  return failed ? kExitRunsFailed : kExitOk;
}

}  // namespace ngraphbench
