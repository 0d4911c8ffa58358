// Child processes: the one place where ngraphbench starts a program and waits for it (compile and
// export scripts, the report script, probe processes, a worker's reference child), and the exec
// step that the worker launcher (runner/launch.h), which does not wait, shares with it.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace ngraphbench {

// $name, or `fallback` when it is unset or empty.
std::string EnvOr(const char* name, const std::string& fallback);

// The last non-empty line of a text (a log): what a script says went wrong.
std::string LastLine(const std::string& text);

// A command made ready to exec before a fork: the child of a fork may only make
// async-signal-safe calls (no allocation), so every string it needs is built here. `argv[0]` is
// looked up on the PATH when it holds no '/'. `env`: NAME=value entries on top of this process's
// environment (replacing a variable of the same name); without any, the child keeps environ.
class ExecCommand {
 public:
  explicit ExecCommand(std::vector<std::string> argv, std::vector<std::string> env = {});
  ExecCommand(const ExecCommand&) = delete;
  ExecCommand& operator=(const ExecCommand&) = delete;

  // In the child: execs the command. When that fails, writes its errno to `error_fd` (when >= 0)
  // or else "cannot exec <argv0>: <reason>" to stderr, and exits 127. Async-signal-safe.
  [[noreturn]] void ExecOrExit(int error_fd = -1) const;

  const std::vector<std::string>& argv() const { return argv_; }

 private:
  std::vector<std::string> argv_, env_;
  std::vector<char*> args_, envp_;  // null-terminated; envp_ empty: environ
};

// Where a child's stdout or stderr goes.
enum class ChildOutput {
  kInherit,  // this process's stream
  kDiscard,  // /dev/null
  kLog,      // ChildOptions::log_fd
  kCapture,  // into ChildResult (and on_output)
};

struct ChildOptions {
  std::string dir;  // working directory; empty: this process's (the environment: ExecCommand)
  ChildOutput out = ChildOutput::kInherit, err = ChildOutput::kInherit;
  int log_fd = -1;  // for kLog: a descriptor the caller opened (and closes)
  // kCapture keeps the first capture_limit bytes of each stream (the rest is read and dropped,
  // ChildResult::truncated), so that a chatty child cannot exhaust this process.
  size_t capture_limit = size_t{1} << 20;
  // Called with each chunk of a captured stream as it comes (stderr: `is_err`), on this thread.
  std::function<void(bool is_err, const char* data, size_t size)> on_output;
  // Zero: no limit. Past it the child (its process group, with own_group) gets SIGKILL.
  std::chrono::milliseconds timeout{0};
  // The child leads a process group of its own, so that a timeout kills what it started too.
  // Without it the child stays in this process's group (a timeout of this process kills it).
  bool own_group = false;
  // The child gets SIGKILL when the thread that started it ends (PR_SET_PDEATHSIG: RunChild
  // waits on that thread), as workers do with the scheduler: a killed process leaves no child
  // working behind it.
  bool die_with_parent = true;
};

struct ChildResult {
  int start_error = 0;  // the errno when the child could not be started (nothing else is set)
  int exit_code = -1;   // when it exited
  int signal = 0;       // when a signal ended it
  bool timed_out = false;
  std::string out, err;  // the captured streams
  bool truncated = false;

  bool started() const { return start_error == 0; }
  bool ok() const { return started() && exit_code == 0; }
  // The exit status, or -signal: the value RunProcess returns.
  int status() const { return signal != 0 ? -signal : exit_code; }
  // "exit status N", "signal N", "timed out" or "could not start: <reason>" for a message.
  std::string Describe() const;
};

// Starts `command` with `options` and waits for it (and for its captured streams to close).
// Never throws for the child's own failure: a program that cannot be started gives
// start_error (ENOENT for a missing program; a failed fork, or a working directory that cannot be
// entered, gives its errno too). Throws EnvironmentError only when no pipe can be made.
ChildResult RunChild(const ExecCommand& command, const ChildOptions& options = {});

// The storage-failure mapping for every script ngraphbench runs: throws StorageError(message)
// when `status` (ChildResult::status(), RunProcess's value) is kExitStorageFailed, i.e. the
// script could not write because the storage failed (core/error.h), so that the sweep stops
// rather than blaming the run. Does nothing otherwise.
void ThrowIfStorageFailed(int status, const std::string& message);

// Runs argv with stdout and stderr appended to `log`; returns the exit status (or -signal). The
// helper dies with its worker and stays in its process group. `env`: NAME=value entries that the
// helper gets on top of this process's environment (replacing a variable of the same name).
// Throws CompileError "<who>: cannot start <argv0>: <reason> (<fix>)" when it cannot be started
// (`fix`: how to point it at the right program).
int RunProcess(const std::vector<std::string>& argv, const std::string& log,
               const std::string& who, const std::string& fix,
               const std::vector<std::string>& env = {});

}  // namespace ngraphbench
