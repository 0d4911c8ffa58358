#include "ngraphbench/core/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "ngraphbench/core/error.h"

namespace ngraphbench {

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::string LastLine(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  }
  return last;
}

ExecCommand::ExecCommand(std::vector<std::string> argv, std::vector<std::string> env)
    : argv_(std::move(argv)), env_(std::move(env)) {
  if (argv_.empty()) throw std::invalid_argument("ExecCommand: empty argv");
  for (const auto& a : argv_) args_.push_back(const_cast<char*>(a.c_str()));
  args_.push_back(nullptr);
  if (env_.empty()) return;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const auto replaced = [&](const std::string& set) {
      const size_t eq = set.find('=');
      return entry.size() > eq && entry.compare(0, eq + 1, set, 0, eq + 1) == 0;
    };
    if (std::none_of(env_.begin(), env_.end(), replaced)) envp_.push_back(*e);
  }
  for (const auto& e : env_) envp_.push_back(const_cast<char*>(e.c_str()));
  envp_.push_back(nullptr);
}

namespace {

// write(2) of a NUL-terminated string, for the child (no stdio after a fork).
void WriteString(int fd, const char* s) { (void)!::write(fd, s, std::strlen(s)); }

}  // namespace

void ExecCommand::ExecOrExit(int error_fd) const {
  if (envp_.empty()) {
    ::execvp(args_[0], args_.data());
  } else {
    ::execvpe(args_[0], args_.data(), envp_.data());
  }
  const int e = errno;
  if (error_fd >= 0) {
    (void)!::write(error_fd, &e, sizeof e);
  } else {
    WriteString(STDERR_FILENO, "cannot exec ");
    WriteString(STDERR_FILENO, args_[0]);
    WriteString(STDERR_FILENO, ": ");
    WriteString(STDERR_FILENO, ::strerror(e));  // glibc's table: no allocation for a known errno
    WriteString(STDERR_FILENO, "\n");
  }
  ::_exit(127);
}

std::string ChildResult::Describe() const {
  if (!started()) return std::string("could not start: ") + std::strerror(start_error);
  if (timed_out) return "timed out";
  if (signal != 0) return "signal " + std::to_string(signal);
  return "exit status " + std::to_string(exit_code);
}

namespace {

// The two ends of a pipe, closed when this goes.
struct Pipe {
  int fd[2] = {-1, -1};
  void Make(const char* what) {
    if (::pipe2(fd, O_CLOEXEC) != 0) {
      throw EnvironmentError(std::string("cannot make a pipe for ") + what + ": " +
                             std::strerror(errno));
    }
  }
  void Close(int end) {
    if (fd[end] >= 0) ::close(fd[end]);
    fd[end] = -1;
  }
  ~Pipe() {
    Close(0);
    Close(1);
  }
};

// In the child, before its exec: points `target` (1 or 2) where `how` says. Async-signal-safe;
// false with errno set when it cannot.
bool Redirect(ChildOutput how, int target, int log_fd, int pipe_fd) {
  switch (how) {
    case ChildOutput::kInherit:
      return true;
    case ChildOutput::kDiscard: {
      const int fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
      return fd >= 0 && ::dup2(fd, target) >= 0;
    }
    case ChildOutput::kLog:
      return ::dup2(log_fd, target) >= 0;
    case ChildOutput::kCapture:
      return ::dup2(pipe_fd, target) >= 0;
  }
  return true;
}

}  // namespace

ChildResult RunChild(const ExecCommand& command, const ChildOptions& options) {
  using Clock = std::chrono::steady_clock;
  ChildResult result;
  Pipe exec_error, out, err;
  // A failed step in the child writes its errno here; a successful exec closes the pipe.
  exec_error.Make(command.argv()[0].c_str());
  if (options.out == ChildOutput::kCapture) out.Make(command.argv()[0].c_str());
  if (options.err == ChildOutput::kCapture) err.Make(command.argv()[0].c_str());
  const char* dir = options.dir.empty() ? nullptr : options.dir.c_str();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    result.start_error = errno;
    return result;
  }
  if (pid == 0) {
    // Only async-signal-safe calls until the exec: this process may have other threads.
    if (options.own_group) ::setpgid(0, 0);
    if (options.die_with_parent) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
    }
    if (!Redirect(options.out, STDOUT_FILENO, options.log_fd, out.fd[1]) ||
        !Redirect(options.err, STDERR_FILENO, options.log_fd, err.fd[1]) ||
        (dir != nullptr && ::chdir(dir) != 0)) {
      const int e = errno;
      (void)!::write(exec_error.fd[1], &e, sizeof e);
      ::_exit(127);
    }
    command.ExecOrExit(exec_error.fd[1]);
  }
  // Also here, so that a kill of the group cannot come before the child made it.
  if (options.own_group) ::setpgid(pid, pid);
  exec_error.Close(1);
  out.Close(1);
  err.Close(1);
  int start_error = 0;
  ssize_t n;
  while ((n = ::read(exec_error.fd[0], &start_error, sizeof start_error)) < 0 && errno == EINTR) {
  }
  if (n != static_cast<ssize_t>(sizeof start_error)) start_error = 0;  // exec succeeded
  if (start_error != 0) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.start_error = start_error;
    return result;
  }

  const bool limited = options.timeout.count() > 0;
  const Clock::time_point deadline = Clock::now() + options.timeout;
  const auto remaining_ms = [&]() -> int {
    if (!limited) return -1;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return static_cast<int>(std::max<long long>(0, std::min<long long>(left, 100)));
  };
  const auto kill_child = [&] {
    result.timed_out = true;
    if (options.own_group) ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
  };

  // The captured streams, until both close (or the time is up).
  pollfd fds[2] = {{out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}};
  std::string* kept[2] = {&result.out, &result.err};
  char buffer[4096];
  while ((fds[0].fd >= 0 || fds[1].fd >= 0) && !result.timed_out) {
    if (limited && Clock::now() >= deadline) {
      kill_child();
      break;
    }
    const int ready = ::poll(fds, 2, remaining_ms());
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t got = ::read(fds[i].fd, buffer, sizeof(buffer));
      if (got > 0) {
        const size_t size = static_cast<size_t>(got);
        std::string& keep = *kept[i];
        const size_t room = options.capture_limit - std::min(options.capture_limit, keep.size());
        keep.append(buffer, std::min(room, size));
        if (size > room) result.truncated = true;
        if (options.on_output) options.on_output(i == 1, buffer, size);
      } else if (got == 0 || errno != EINTR) {
        fds[i].fd = -1;  // closed with its Pipe
      }
    }
  }

  int status = 0;
  while (true) {
    const pid_t r = ::waitpid(pid, &status, limited && !result.timed_out ? WNOHANG : 0);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) break;
    if (r == 0) {
      if (Clock::now() >= deadline) {
        kill_child();
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(std::min(remaining_ms(), 5)));
      }
    }
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

void ThrowIfStorageFailed(int status, const std::string& message) {
  if (status == kExitStorageFailed) throw StorageError(message, 0);
}

int RunProcess(const std::vector<std::string>& argv, const std::string& log,
               const std::string& who, const std::string& fix,
               const std::vector<std::string>& env) {
  const ExecCommand command(argv, env);
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  int error = fd < 0 ? errno : 0;
  ChildResult result;
  if (fd >= 0) {
    ChildOptions options;
    options.out = options.err = ChildOutput::kLog;
    options.log_fd = fd;
    try {
      result = RunChild(command, options);
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
    error = result.start_error;
  }
  if (error != 0) {
    throw CompileError(who + ": cannot start " + argv[0] + ": " + std::strerror(error) + " (" +
                       fix + ")");
  }
  return result.status();
}

}  // namespace ngraphbench
