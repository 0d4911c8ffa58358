#include "ngraphbench/runner/launch.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/core/process.h"
#include "ngraphbench/core/subprocess.h"
#include "ngraphbench/results/cache_entry.h"  // kCacheBuildPrefix

namespace ngraphbench {

namespace {

using Clock = std::chrono::steady_clock;

std::string Tail(const std::string& path, size_t max_chars) {
  std::string text = ReadLogTail(path);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.size() > max_chars ? "..." + text.substr(text.size() - max_chars) : text;
}

constexpr const char* kWorkerLogPrefix = "worker-";
// The torch export folders of binaries before CacheEntryBuild: `.export-<pid>-XXXXXX`.
constexpr const char* kOldExportPrefix = ".export-";

// The outcome of a reaped worker, from its wait status and its log (removed now).
WorkerOutcome Reap(const StartedWorker& worker, int status) {
  WorkerOutcome outcome;
  outcome.pid = worker.pid;
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  outcome.log_tail = Tail(worker.log_path, 600);
  ::unlink(worker.log_path.c_str());
  return outcome;
}

}  // namespace

std::string TempTemplate(const std::string& results_dir, const std::string& prefix,
                         const std::string& suffix) {
  return TempNameTemplate(results_dir + "/.tmp", prefix, suffix);
}

SpecFile::SpecFile(const ResolvedRun& spec) {
  const std::string text = FormatResolvedRun(spec);
  std::string name = TempTemplate(spec.results_dir, kSpecFilePrefix, ".json");
  const int fd = ::mkstemps(name.data(), 5);
  if (fd < 0) {
    const int error = errno;
    ThrowFileError("cannot create a run specification in " + spec.results_dir + "/.tmp", error);
  }
  const UniqueFd closer(fd);
  path_ = name;
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : ENOSPC;  // a write of 0 bytes: no room for more
      ::unlink(path_.c_str());
      ThrowFileError("cannot write the run specification " + path_, error);
    }
    done += static_cast<size_t>(n);
  }
}

SpecFile::SpecFile(SpecFile&& other) noexcept : path_(std::move(other.path_)) {
  other.path_.clear();
}

SpecFile::~SpecFile() {
  if (!path_.empty()) ::unlink(path_.c_str());
}

std::string SelfExe() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "ngraphbench";
  buf[n] = '\0';
  return buf;
}

std::vector<std::string> WorkerCommand(const std::string& spec_path, int process) {
  return {SelfExe(), "worker", "--spec", spec_path, "--process", std::to_string(process)};
}

std::vector<std::string> ReferenceCommand(const std::string& spec_path,
                                          const std::string& reference, const std::string& out,
                                          bool probe) {
  std::vector<std::string> cmd = {SelfExe(), "worker", "--spec", spec_path,
                                  "--reference-compiler", reference, "--reference-out", out};
  if (probe) cmd.push_back("--reference-probe");
  return cmd;
}

std::vector<std::string> ReproduceCommand(const RunArgs& r, const std::string& run_id,
                                          int process) {
  std::vector<std::string> cmd = {SelfExe(), "worker", r.grid.experiment, r.compiler, run_id,
                                  "--device", r.device, "--results", r.results_dir,
                                  "--configs", r.grid.configs_dir,
                                  "--sample-ms", std::to_string(r.sample_ms)};
  // `threads: 0` means a share of the CPUs with --jobs: the worker resolves the same share.
  if (r.jobs > 1) cmd.insert(cmd.end(), {"--jobs", std::to_string(r.jobs)});
  if (r.grid.quick) cmd.push_back("--quick");
  if (!r.grid.input_shape.empty()) cmd.insert(cmd.end(), {"--input-shape", r.grid.input_shape});
  if (r.grid.warmup) cmd.insert(cmd.end(), {"--warmup", std::to_string(*r.grid.warmup)});
  if (r.grid.repeats) cmd.insert(cmd.end(), {"--repeats", std::to_string(*r.grid.repeats)});
  if (r.grid.stop) cmd.insert(cmd.end(), {"--stop", *r.grid.stop});
  if (r.grid.scenario) cmd.insert(cmd.end(), {"--scenario", *r.grid.scenario});
  if (r.grid.profile) cmd.push_back("--profile");
  for (const std::string& s : r.grid.settings) cmd.insert(cmd.end(), {"--set", s});
  if (r.grid.processes) {
    cmd.insert(cmd.end(), {"--processes", std::to_string(*r.grid.processes)});
  }
  cmd.insert(cmd.end(), {"--process", std::to_string(process)});
  return cmd;
}

std::vector<std::vector<int>> CpuSlices(const std::vector<int>& allowed, int jobs, int threads) {
  std::vector<std::vector<int>> slices(static_cast<size_t>(jobs));
  for (size_t k = 0; k < slices.size(); ++k) {
    for (size_t j = 0; j < static_cast<size_t>(threads); ++j) {
      slices[k].push_back(allowed[(k * static_cast<size_t>(threads) + j) % allowed.size()]);
    }
    std::sort(slices[k].begin(), slices[k].end());
    slices[k].erase(std::unique(slices[k].begin(), slices[k].end()), slices[k].end());
  }
  return slices;
}

StartedWorker StartWorker(const std::vector<std::string>& argv, double timeout_s,
                          const std::string& results_dir, const std::vector<int>& cpus) {
  std::string log_template = TempTemplate(results_dir, kWorkerLogPrefix, ".log");
  const int log_fd = ::mkstemps(log_template.data(), 4);
  if (log_fd < 0) {
    const int error = errno;
    ThrowFileError("cannot create a worker log in " + results_dir + "/.tmp", error);
  }
  // Made before the fork: the child only makes system calls until it execs (core/subprocess.h).
  // Not RunChild: the scheduler does not wait for a worker but polls it (PollWorker), several
  // at once, and pins it to its CPUs.
  const ExecCommand command(argv);
  cpu_set_t mask;
  CPU_ZERO(&mask);
  for (int cpu : cpus) CPU_SET(cpu, &mask);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(log_fd);
    ::unlink(log_template.c_str());
    throw EnvironmentError(std::string("cannot start a worker: fork failed: ") +
                           std::strerror(errno));
  }
  if (pid == 0) {
    // The worker: its own process group (so a timeout kills all it started), and it dies with
    // the scheduler, so a killed sweep leaves no worker writing behind it.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    if (!cpus.empty() && ::sched_setaffinity(0, sizeof(mask), &mask) != 0) {
      std::fprintf(stderr, "cannot pin the worker to its CPUs: %s\n", std::strerror(errno));
      ::_exit(127);
    }
    command.ExecOrExit();
  }
  ::close(log_fd);
  StartedWorker worker;
  worker.pid = pid;
  worker.log_path = log_template;
  worker.start = Clock::now();
  worker.deadline = worker.start + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(timeout_s));
  return worker;
}

std::optional<WorkerOutcome> PollWorker(const StartedWorker& worker) {
  int status = 0;
  const pid_t r = ::waitpid(worker.pid, &status, WNOHANG);
  if (r < 0 && errno != EINTR) throw EnvironmentError("waitpid failed for a worker");
  if (r == worker.pid) return Reap(worker, status);
  if (Clock::now() < worker.deadline) return std::nullopt;
  ::kill(-worker.pid, SIGKILL);
  ::kill(worker.pid, SIGKILL);
  ::waitpid(worker.pid, &status, 0);
  WorkerOutcome outcome = Reap(worker, status);
  outcome.timed_out = true;
  return outcome;
}

std::vector<WorkerOutcome> StopWorkers(const std::vector<StartedWorker>& workers) {
  for (const auto& w : workers) ::kill(-w.pid, SIGTERM);
  std::vector<std::optional<int>> statuses(workers.size());
  const auto grace = Clock::now() + std::chrono::seconds(1);
  for (bool all = false; !all && Clock::now() < grace;) {
    all = true;
    for (size_t i = 0; i < workers.size(); ++i) {
      int status = 0;
      if (!statuses[i] && ::waitpid(workers[i].pid, &status, WNOHANG) == workers[i].pid) {
        statuses[i] = status;
      }
      all = all && statuses[i].has_value();
    }
    if (!all) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::vector<WorkerOutcome> outcomes;
  for (size_t i = 0; i < workers.size(); ++i) {
    if (!statuses[i]) {
      ::kill(-workers[i].pid, SIGKILL);
      ::kill(workers[i].pid, SIGKILL);  // in case it had not made its own group yet
      int status = 0;
      ::waitpid(workers[i].pid, &status, 0);
      statuses[i] = status;
    }
    outcomes.push_back(Reap(workers[i], *statuses[i]));
    outcomes.back().interrupted = true;
  }
  return outcomes;
}

int RemoveStaleWorkerLogs(const std::string& results_dir) {
  namespace fs = std::filesystem;
  const auto now = fs::file_time_type::clock::now();
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(results_dir + "/.tmp", ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    bool stale = false;
    if (name.rfind(kWorkerLogPrefix, 0) == 0) {
      stale = TempNameWriterGone(name, kWorkerLogPrefix, ".log");
    } else if (name.rfind("ngraphbench-worker-", 0) == 0) {
      std::error_code time_ec;
      const auto mtime = fs::last_write_time(it->path(), time_ec);
      stale = !time_ec && now - mtime > std::chrono::hours(24);
    }
    std::error_code remove_ec;
    if (stale && fs::remove(it->path(), remove_ec)) ++removed;
  }
  return removed;
}

int RemoveStaleSpecFiles(const std::string& results_dir) {
  return RemoveTempNamesOfGoneWriters(results_dir + "/.tmp", kSpecFilePrefix, ".json");
}

int RemoveStaleWorkerModels(const std::string& results_dir) {
  return RemoveTempNamesOfGoneWriters(results_dir + "/.tmp", kWorkerModelPrefix, "");
}

int RemoveStaleCacheBuilds(const std::string& results_dir) {
  namespace fs = std::filesystem;
  int removed = 0;
  std::error_code ec;
  // Every cache folder, not a list of them: a compiler's cache is its own folder's business.
  for (fs::directory_iterator it(results_dir + "/.cache", ec), end; !ec && it != end;
       it.increment(ec)) {
    std::error_code dir_ec;
    if (!it->is_directory(dir_ec) || it->is_symlink(dir_ec)) continue;
    removed += RemoveTempNamesOfGoneWriters(it->path().string(), kCacheBuildPrefix, "");
  }
  return removed +
         RemoveTempNamesOfGoneWriters(results_dir + "/.cache/torch", kOldExportPrefix, "");
}

void BecomeSubreaper() {
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    // Linux before 3.4: orphans go to init as before; nothing else depends on it.
    std::fprintf(stderr, "cannot become a subreaper (%s): a process a worker starts in its own "
                 "session may outlive it\n", std::strerror(errno));
  }
}

namespace {

// Parses the decimal number at `p` (up to a non-digit); -1 when there is none.
long ParseDecimal(const char* p) {
  long value = -1;
  for (; *p >= '0' && *p <= '9'; ++p) value = (value < 0 ? 0 : value * 10) + (*p - '0');
  return value;
}

// What ListChildren collects, one /proc entry at a time.
struct ChildList {
  pid_t parent;
  const pid_t* keep;
  size_t keep_count;
  pid_t* out;
  bool* running;
  size_t max, count;
};

// Whether the process whose /proc/<pid>/stat reads `fields` from its state on (field 3) ends
// already without us: a zombie, a process in its exit (PF_EXITING in field 9, its flags), or one
// with a SIGKILL pending (field 31, its pending signals: a kill of its process group, such as the
// scheduler's of a timed-out worker, puts it there before kill() returns). Such a process is
// reaped but not counted as one this cleanup ended.
bool AlreadyEnding(const char* fields) {
  constexpr unsigned long kExiting = 0x4;           // PF_EXITING
  constexpr unsigned long kSigkill = 1UL << (SIGKILL - 1);
  const char state = fields[0];
  if (state == 'Z' || state == 'X' || state == 'x') return true;
  unsigned long flags = 0, pending = 0;
  int field = 3;
  for (const char* c = fields; *c; ++c) {
    if (*c != ' ') continue;
    ++field;
    const long value = ParseDecimal(c + 1);
    if (field == 9) flags = value < 0 ? 0 : static_cast<unsigned long>(value);
    if (field == 31) {
      pending = value < 0 ? 0 : static_cast<unsigned long>(value);
      break;
    }
  }
  return (flags & kExiting) != 0 || (pending & kSigkill) != 0;
}

// Adds /proc entry `name` to the ChildList `list` when it is a child of its parent (ppid, field 4
// of /proc/<pid>/stat) and not one to keep. Stack buffers only (async-signal-safe).
void AddIfChild(const char* name, void* list) {
  ChildList& children = *static_cast<ChildList*>(list);
  const long pid = ParseDecimal(name);
  if (pid <= 0 || children.count == children.max) return;
  // "/proc/<pid>/stat", built by hand: snprintf is not async-signal-safe.
  char path[32] = "/proc/";
  size_t len = 6;
  for (const char* c = name; *c && len < sizeof path - 6; ++c) path[len++] = *c;
  for (const char* c = "/stat"; *c; ++c) path[len++] = *c;
  path[len] = '\0';
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  char text[512];
  const ssize_t got = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (got <= 0) return;
  text[got] = '\0';
  // "<pid> (<comm>) <state> <ppid> ...": the command name may hold ')' itself.
  const char* close_paren = nullptr;
  for (const char* c = text; *c; ++c) {
    if (*c == ')') close_paren = c;
  }
  if (!close_paren || close_paren[1] != ' ' || !close_paren[2] || close_paren[3] != ' ' ||
      ParseDecimal(close_paren + 4) != children.parent) {
    return;
  }
  for (size_t k = 0; k < children.keep_count; ++k) {
    if (children.keep[k] == pid) return;
  }
  children.running[children.count] = !AlreadyEnding(close_paren + 2);
  children.out[children.count++] = static_cast<pid_t>(pid);
}

// The children of process `parent` other than `keep`, up to `max` in `out`, with whether each
// runs (not a zombie) in `running`; returns how many. Async-signal-safe.
size_t ListChildren(pid_t parent, const pid_t* keep, size_t keep_count, pid_t* out,
                    bool* running, size_t max) {
  const int dir = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return 0;
  ChildList list{parent, keep, keep_count, out, running, max, 0};
  ForEachDirEntry(dir, AddIfChild, &list);
  ::close(dir);
  return list.count;
}

long MonotonicMs() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

}  // namespace

int KillChildren(const pid_t* keep, size_t keep_count) {
  const pid_t self = ::getpid();
  const long give_up = MonotonicMs() + 5000;
  int ended = 0;
  constexpr size_t kBatch = 256;
  pid_t children[kBatch];
  bool running[kBatch];
  while (MonotonicMs() < give_up) {
    const size_t n = ListChildren(self, keep, keep_count, children, running, kBatch);
    if (n == 0) break;
    for (size_t i = 0; i < n; ++i) {
      ::kill(children[i], SIGKILL);
      ended += running[i];
    }
    // Reaped one by one, by pid: a wait for any child would take the scheduler's live workers'
    // statuses from it. Their own children come back as children meanwhile: the next round.
    for (size_t i = 0; i < n; ++i) {
      while (::waitpid(children[i], nullptr, WNOHANG) == 0 && MonotonicMs() < give_up) {
        const timespec pause{0, 2 * 1000 * 1000};
        ::nanosleep(&pause, nullptr);
      }
    }
  }
  return ended;
}

int CleanUpAfterWorkers(const std::string& results_dir, const std::vector<pid_t>& live) {
  const int ended = KillChildren(live.data(), live.size());
  // Once nothing that could still write there runs: what the workers or their children could not
  // remove because they were killed (a worker may have ended normally after its child was).
  // Live workers' folders stay: their pids are alive.
  RemoveStaleWorkerModels(results_dir);
  RemoveStaleCacheBuilds(results_dir);
  return ended;
}

}  // namespace ngraphbench
