// The scheduler: expands the grid, skips runs whose row exists, and runs one worker process per
// run. A worker that crashes or hangs costs one run, never the sweep. Several schedulers may share
// a results tree (two shells, or machines over NFS): each run is measured only under its claim
// (results/claim.h), so each is measured once, by whichever scheduler claims it first.
#include <fcntl.h>
#include <sched.h>
#include <fmt/core.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <deque>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/experiments/estimate.h"
#include "ngraphbench/experiments/fingerprint.h"
#include "ngraphbench/experiments/resolve.h"
#include "ngraphbench/measure/machine.h"
#include "ngraphbench/results/claim.h"
#include "ngraphbench/results/csv.h"
#include "ngraphbench/measure/repeat.h"
#include "ngraphbench/runner/launch.h"
#include "ngraphbench/runner/parts.h"
#include "ngraphbench/runner/plan.h"
#include "ngraphbench/runner/probe.h"
#include "ngraphbench/runner/run.h"
#include "ngraphbench/runner/worker.h"

namespace ngraphbench {

namespace {

using Clock = std::chrono::steady_clock;

// The signal (SIGINT, SIGTERM) that asked the sweep to stop, 0 while none did. Process-wide by
// nature: a signal handler can only set a flag.
volatile std::sig_atomic_t g_interrupt = 0;
void OnInterrupt(int signal) { g_interrupt = signal; }

struct WorkerOutcome {
  pid_t pid = 0;
  bool interrupted = false;  // stopped because the scheduler was asked to stop
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

constexpr const char* kWorkerLogPrefix = "worker-";

// The pid in `name`, when it reads `<prefix><pid>-XXXXXX<suffix>` (a name mkstemps or mkdtemp
// made from a pid), or -1.
long TempNamePid(const std::string& name, const std::string& prefix, const std::string& suffix) {
  const size_t tail = 7 + suffix.size();  // "-XXXXXX" and the suffix
  if (name.rfind(prefix, 0) != 0 || name.size() <= prefix.size() + tail ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return -1;
  }
  const std::string pid_text = name.substr(prefix.size(), name.size() - prefix.size() - tail);
  if (pid_text.empty() || pid_text.find_first_not_of("0123456789") != std::string::npos ||
      pid_text.size() >= 10) {
    return -1;
  }
  return std::stol(pid_text);
}

// Removes the model folders (kWorkerModelPrefix) in <results_dir>/.tmp/ of processes of this host
// that are gone: a worker or reference child killed (timeout, signal, out of memory) before it
// removed its .onnx file and the weights beside it, which may take gigabytes. Returns how many.
int RemoveStaleWorkerModels(const std::string& results_dir) {
  namespace fs = std::filesystem;
  const std::string prefix = std::string(kWorkerModelPrefix) + HostTag() + "-";
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(results_dir + "/.tmp", ec), end; !ec && it != end;
       it.increment(ec)) {
    const long pid = TempNamePid(it->path().filename().string(), prefix, "");
    std::error_code remove_ec;
    if (pid > 0 && !LocalProcessAlive(pid) && fs::remove_all(it->path(), remove_ec) > 0) {
      ++removed;
    }
  }
  return removed;
}

// A worker that was started and not yet reaped.
struct StartedWorker {
  pid_t pid = 0;
  std::string log_path;
  Clock::time_point start, deadline;
};

// The worker's log lives in <results_dir>/.tmp/, not /tmp: a sweep killed before the unlink leaves
// it inside its own results tree instead of piling up in the machine's /tmp. Its name holds the
// scheduler's host and pid, `worker-<host>-<pid>-XXXXXX.log`, so that the next `run` on this
// host can tell a leftover from the log of another scheduler's live worker. With `cpus`, the
// worker may run only there (its slice with --jobs): set before exec, so every thread it and its
// SDK start inherits the mask.
StartedWorker StartWorker(const std::vector<std::string>& argv, double timeout_s,
                          const std::string& results_dir, const std::vector<int>& cpus) {
  const std::string tmp_dir = results_dir + "/.tmp";
  std::error_code ec;
  std::filesystem::create_directories(tmp_dir, ec);  // mkstemps reports a failure
  std::string log_template = tmp_dir + "/" + kWorkerLogPrefix + HostTag() + "-" +
                             std::to_string(::getpid()) + "-XXXXXX.log";
  const int log_fd = ::mkstemps(log_template.data(), 4);
  if (log_fd < 0) {
    throw EnvironmentError("cannot create a worker log in " + tmp_dir + ": " +
                           std::strerror(errno));
  }
  // Made before the fork: the child only makes system calls until it execs.
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
    ExecOrExit(argv);
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

// The outcome of a reaped worker, from its wait status and its log (removed now).
WorkerOutcome Collect(const StartedWorker& worker, int status, const std::string& results_dir) {
  WorkerOutcome outcome;
  outcome.pid = worker.pid;
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  outcome.log_tail = Tail(worker.log_path, 600);
  ::unlink(worker.log_path.c_str());
  // What the worker or its reference child could not remove because it was killed (the worker
  // itself may have ended normally after its child was). Live workers' folders stay: their pids
  // are alive.
  RemoveStaleWorkerModels(results_dir);
  return outcome;
}

// The outcome once `worker` has ended, or killed (with its process group) past its deadline;
// nullopt while it runs.
std::optional<WorkerOutcome> PollWorker(const StartedWorker& worker,
                                        const std::string& results_dir) {
  int status = 0;
  const pid_t r = ::waitpid(worker.pid, &status, WNOHANG);
  if (r < 0 && errno != EINTR) throw EnvironmentError("waitpid failed for a worker");
  if (r == worker.pid) return Collect(worker, status, results_dir);
  if (Clock::now() < worker.deadline) return std::nullopt;
  ::kill(-worker.pid, SIGKILL);
  ::kill(worker.pid, SIGKILL);
  ::waitpid(worker.pid, &status, 0);
  WorkerOutcome outcome = Collect(worker, status, results_dir);
  outcome.timed_out = true;
  return outcome;
}

// On an interrupt: every worker's process group (its reference child, a compile helper) gets
// SIGTERM, and SIGKILL after one grace second shared by all.
std::vector<WorkerOutcome> StopWorkers(const std::vector<StartedWorker>& workers,
                                       const std::string& results_dir) {
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
    outcomes.push_back(Collect(workers[i], *statuses[i], results_dir));
    outcomes.back().interrupted = true;
  }
  return outcomes;
}

// The CPUs of each of `jobs` workers with `threads` each: slot k gets allowed[k*threads ..
// (k+1)*threads), wrapping around (so overlapping) when jobs x threads exceeds what there is.
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

bool Exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

std::optional<std::string> ReadIfExists(const std::string& path) {
  if (!Exists(path)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string FormatDuration(double seconds) {
  const int s = static_cast<int>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{}:{:02}", s / 60, s % 60);
}

// This process's own command line, as the user typed it (for "resume with: ...").
std::string OwnCommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\0', start);
    if (end == std::string::npos) end = text.size();
    std::string arg = text.substr(start, end - start);
    if (arg.empty() || arg.find_first_of(" '\"$\\") != std::string::npos) {
      std::string quoted = "'";
      for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      arg = quoted + "'";
    }
    out += (out.empty() ? "" : " ") + arg;
    start = end + 1;
  }
  return out;
}

// SIGINT and SIGTERM set g_interrupt while a sweep runs; the previous handlers come back after.
class InterruptScope {
 public:
  InterruptScope() {
    struct sigaction action {};
    action.sa_handler = OnInterrupt;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &old_int_);
    ::sigaction(SIGTERM, &action, &old_term_);
  }
  ~InterruptScope() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

std::string Quote(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

// A row on disk that the run's settings do not reproduce.
struct Changed {
  const RunSpec* run;
  std::string why;
  bool unreadable = false;  // the row could not be read at all (why says how)
  int process = -1;         // a part of the run (runner/parts.h) rather than its row
};

// What differs between an existing row and the run's settings, in the settings a user edits.
std::string Difference(const ResultRow& row, const RunSpec& run, const CompilerConfig& config) {
  std::vector<std::string> diffs;
  auto differs = [&](const std::string& what, const std::string& was, const std::string& now) {
    if (was != now) diffs.push_back(what + " " + (was.empty() ? "(empty)" : was) + " -> " + now);
  };
  differs("quick", row.quick ? (*row.quick ? "true" : "false") : "", run.quick ? "true" : "false");
  differs("precision", row.precision, config.precision);
  differs("threads", row.threads ? std::to_string(*row.threads) : "",
          std::to_string(config.threads));
  differs("affinity", row.affinity, config.affinity);
  differs("opt_level", row.opt_level, config.opt_level);
  differs("timing_boundary", row.timing_boundary, run.timing_boundary);
  if (diffs.empty()) diffs.push_back("other settings");
  std::string out;
  for (const auto& d : diffs) out += (out.empty() ? "" : ", ") + d;
  return out + " (config_hash " + row.config_hash + ")";
}

// "2 measured with other settings, 1 unreadable", for the rows in `changed`.
std::string Kinds(const std::vector<Changed>& changed) {
  size_t unreadable = 0;
  for (const auto& c : changed) unreadable += c.unreadable;
  std::vector<std::string> kinds;
  if (changed.size() > unreadable) {
    kinds.push_back(std::to_string(changed.size() - unreadable) + " measured with other settings");
  }
  if (unreadable) kinds.push_back(std::to_string(unreadable) + " unreadable");
  return kinds.size() == 2 ? kinds[0] + ", " + kinds[1] : kinds[0];
}

std::string UtcStamp() {
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", std::gmtime(&now));
  return buf;
}

// Moves the rows and traces of `changed` into <dir>/.replaced/<UTC time>/; nothing is deleted.
std::string MoveAside(const std::string& dir, const std::vector<Changed>& changed) {
  namespace fs = std::filesystem;
  const fs::path to = fs::path(dir) / ".replaced" / UtcStamp();
  fs::create_directories(to);
  for (const auto& c : changed) {
    const std::vector<std::string> paths =
        c.process < 0 ? std::vector<std::string>{RowPath(dir, c.run->run_id),
                                                 LatenciesPath(dir, c.run->run_id)}
                      : std::vector<std::string>{PartRowPath(dir, c.run->run_id, c.process),
                                                 PartLatenciesPath(dir, c.run->run_id, c.process)};
    for (const std::string& path : paths) {
      if (fs::exists(path)) fs::rename(path, to / fs::path(path).filename());
    }
  }
  return to.string();
}

// Removes the worker logs in <results_dir>/.tmp/ of schedulers of this host that are gone (a
// SIGKILL leaves one behind); returns how many. Another host's logs are left to that host, and
// logs named before names held a host (`ngraphbench-worker-*`) go once a day old.
int RemoveStaleWorkerLogs(const std::string& results_dir) {
  namespace fs = std::filesystem;
  const std::string this_host = HostTag();
  const std::string prefix = std::string(kWorkerLogPrefix) + this_host + "-";
  const auto now = fs::file_time_type::clock::now();
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(results_dir + "/.tmp", ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    bool stale = false;
    // worker-<host>-<pid>-XXXXXX.log: the pid sits between the host and the random part.
    if (const long pid = TempNamePid(name, prefix, ".log"); pid >= 0) {
      stale = !LocalProcessAlive(pid);
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

// machine.json is read, merged and written by every `run` that measures: two schedulers (of two
// machines sharing the tree) doing so at once would each write the file without the other's
// entry. A claim-style lock serializes them; it is held for milliseconds, so a wait of seconds
// means a holder that died, whose lock is recovered once stale (at once on this host).
constexpr double kMachineLockStaleS = 8;
constexpr double kMachineLockWaitS = 10;

void UpdateMachineFile(const std::string& machine_path, const MachineInfo& machine) {
  const std::string lock_path =
      std::filesystem::path(machine_path).parent_path().string() + "/.machine.json.lock";
  const auto deadline = Clock::now() + std::chrono::duration<double>(kMachineLockWaitS);
  ClaimHolder holder;
  std::optional<Claim> lock = TryClaim(lock_path, kMachineLockStaleS, &holder);
  while (!lock) {
    if (Clock::now() >= deadline) {
      throw EnvironmentError(fmt::format(
          "{} has been locked by {} for over {} s ({}); if that process is gone, remove the lock",
          machine_path, holder.Describe(), kMachineLockWaitS, lock_path));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    lock = TryClaim(lock_path, kMachineLockStaleS, &holder);
  }
  WriteFileAtomic(machine_path,
                  MergeMachineFile(ReadIfExists(machine_path), machine_path, machine));
}

// What identifies one version of a row file: a row is replaced by rename, so a row written
// since it was looked at has another inode (or at least another mtime or size).
struct FileVersion {
  dev_t dev = 0;
  ino_t ino = 0;
  int64_t mtime_ns = 0;
  off_t size = 0;
  bool operator==(const FileVersion& o) const {
    return dev == o.dev && ino == o.ino && mtime_ns == o.mtime_ns && size == o.size;
  }
  bool operator!=(const FileVersion& o) const { return !(*this == o); }
};

std::optional<FileVersion> VersionOf(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileVersion{st.st_dev, st.st_ino,
                     int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec, st.st_size};
}

// A run's claim is stale to other hosts after its timeout (when its worker is killed) plus this
// margin: the row write after it, and clocks that differ between machines and the file server.
constexpr double kClaimMarginS = 120;

}  // namespace

namespace {

// One compiler of the sweep: its settings, where its rows go, its runs, what the probe said.
struct Plan {
  RunArgs args;  // args.compiler is this plan's one compiler
  const CompilerInfo* info = nullptr;
  CompilerConfig config;
  std::string dir;
  std::vector<RunSpec> runs;
  // One slice of CPUs per worker slot with --jobs; empty with one job (the worker inherits this
  // process's mask and pins itself by its config's `affinity`).
  std::vector<std::vector<int>> slices;
  bool overlapping = false;
  std::string shard_note;
  std::string unavailable, probed_version;
  int kept_ok = 0, kept_failed = 0;
  size_t todo = 0;
};

// A run to measure in this sweep, and where its processes stand.
struct RunState {
  Plan* plan = nullptr;
  const RunSpec* run = nullptr;
  std::string hash;                  // the run's config_hash
  std::optional<FileVersion> seen;   // the row file as the scan saw it
  int next_process = 0;              // the next process index this scheduler may hand out
  int queued = 0, running = 0;       // its processes waiting and running here
  bool failed = false;               // a process ended not ok: none is started after it
  bool left_to_others = false;       // a process of it is another scheduler's
  bool finished = false;             // its row is written, here or by another scheduler
};

// One process of one run.
struct Task {
  RunState* state = nullptr;
  int process = 0;
};

// Validates everything about one compiler of the sweep before anything runs; `allowed` are the
// CPUs this process may use.
Plan MakePlan(const RunArgs& given, const std::string& compiler, const std::vector<int>& allowed) {
  Plan plan;
  plan.args = given;
  plan.args.compiler = compiler;
  RunArgs& args = plan.args;
  plan.info = &FindCompiler(compiler);
  const CompilerInfo& info = *plan.info;
  // With --jobs N the workers share the CPUs this process may use, so `threads: 0` (every core)
  // means an equal share of them; each worker is told the same (--cores), so that its config,
  // and its row's config_hash, are the ones resume compares against.
  if (args.jobs > 1) args.cores = std::max(1, static_cast<int>(allowed.size()) / args.jobs);
  plan.config = ResolveCompilerConfig(args.grid.configs_dir, info, args.cores);
  const CompilerConfig& config = plan.config;
  if (!IsBuilt(info.name)) {
    throw InputError("compiler '" + info.name + "' is not built (no " + ModulePath(info.name) +
                     "); " + info.enable_hint);
  }
  if (args.jobs > 1) {
    if (config.affinity != "none" && config.affinity != "compact") {
      // A CPU list pins every worker to the same CPUs: the workers would share them after all.
      throw InputError(fmt::format(
          "{} pins workers to CPUs {} (affinity), which cannot be split among --jobs {} "
          "workers; remove `affinity` (or set it to compact or none) to let --jobs give each "
          "worker its own CPUs, or run without --jobs",
          config.source, config.affinity, args.jobs));
    }
    const int64_t needed = int64_t{args.jobs} * config.threads;
    plan.overlapping = needed > static_cast<int64_t>(allowed.size());
    if (plan.overlapping && !args.oversubscribe) {
      throw InputError(fmt::format(
          "--jobs {} with threads {} ({}) needs {} CPUs, but this process may use {} ({}); "
          "lower --jobs or threads, or add --oversubscribe to run them anyway on overlapping "
          "CPUs",
          args.jobs, config.threads, config.source, needed, allowed.size(),
          FormatCpuList(allowed)));
    }
    plan.slices = CpuSlices(allowed, args.jobs, config.threads);
  }
  plan.runs = ResolveGrid(args.grid);
  if (!args.shard.empty()) {
    const ShardSpec shard = ParseShard(args.shard);
    const size_t grid_size = plan.runs.size();
    double shard_s = 0, total_s = 0;
    // The static estimate only (no measured rows): every shard of a sweep computes the same
    // partition, whenever it starts.
    plan.runs = SelectShard(plan.runs, shard, LoadEstimateInputs(plan.runs, args, config, false),
                            &shard_s, &total_s);
    plan.shard_note =
        fmt::format(" (shard {}: {} of the grid's {} runs, about {} of {})", args.shard,
                    plan.runs.size(), grid_size, FormatHours(shard_s), FormatHours(total_s));
  }
  plan.dir = RunDirectory(args);
  return plan;
}

// Resume: a row whose config_hash is the run's is kept (rerun with --retry-failed when not ok);
// a row or a part with another config_hash, or unreadable, goes to `changed`. Every other run
// gets a RunState; the ok parts of an interrupted sweep stay and count as measured.
void Scan(Plan& plan, std::vector<Changed>& changed, std::deque<RunState>& states) {
  const RunArgs& args = plan.args;
  for (const RunSpec& run : plan.runs) {
    const std::string path = RowPath(plan.dir, run.run_id);
    RunState state;
    state.plan = &plan;
    state.run = &run;
    state.hash = ConfigHash(run, plan.config, args.sample_ms);
    state.seen = VersionOf(path);
    if (Exists(path)) {
      ResultRow row;
      bool measure = true;
      try {
        row = ReadRow(path);
        if (row.config_hash != state.hash) {
          changed.push_back({&run, Difference(row, run, plan.config)});
        } else if (row.status != kStatusSkipped) {
          // Skipped: the machine lacked something (a GPU, a provider); asked again every sweep.
          const bool ok = row.status == kStatusOk;
          if (ok || !args.retry_failed) {
            (ok ? plan.kept_ok : plan.kept_failed)++;
            measure = false;
          } else {
            RemoveParts(plan.dir, run.run_id);  // measured anew from its first process
          }
        }
      } catch (const InputError& e) {
        changed.push_back({&run, std::string("unreadable: ") + e.what(), /*unreadable=*/true});
      }
      if (!measure) continue;
    }
    for (int process : PartIndices(plan.dir, run.run_id)) {
      try {
        const Part part = ReadPart(plan.dir, run.run_id, process);
        if (part.row.config_hash != state.hash) {
          changed.push_back({&run,
                             fmt::format("process {}: {}", process,
                                         Difference(part.row, run, plan.config)),
                             false, process});
        }
      } catch (const InputError& e) {
        changed.push_back({&run, fmt::format("process {}: unreadable: {}", process, e.what()),
                           /*unreadable=*/true, process});
      }
    }
    states.push_back(state);
  }
}

// The ok parts, and whether one is not ok, of a run's parts on disk with the run's settings.
struct PartsOnDisk {
  std::vector<Part> parts;  // in process order
  int ok = 0;
  bool failed = false;
};

PartsOnDisk ReadParts(const RunState& st) {
  PartsOnDisk out;
  for (int process : PartIndices(st.plan->dir, st.run->run_id)) {
    Part part;
    try {
      part = ReadPart(st.plan->dir, st.run->run_id, process);
    } catch (const InputError&) {
      continue;  // being replaced by its writer, or damaged: the scan of a later sweep says so
    }
    if (part.row.config_hash != st.hash) continue;
    if (part.row.status == kStatusOk) {
      ++out.ok;
    } else {
      out.failed = true;
    }
    out.parts.push_back(std::move(part));
  }
  return out;
}

}  // namespace

int CmdRun(const RunArgs& given) {
  // Everything that can be wrong with the input is checked before anything runs or is written.
  if (given.jobs < 1) {
    throw InputError(fmt::format("--jobs is {}; it must be at least 1 (1 runs one worker at a "
                                 "time)",
                                 given.jobs));
  }
  if (given.sample_ms < 0) throw InputError("--sample-ms must be >= 0");
  const std::vector<int> allowed = ProcessCpus();
  if (given.jobs > static_cast<int>(allowed.size()) && !given.oversubscribe) {
    throw InputError(fmt::format(
        "--jobs {} is more than the {} CPUs this process may use ({}), and each worker needs one "
        "of its own; use --jobs {} or fewer, or add --oversubscribe to run them anyway on "
        "overlapping CPUs",
        given.jobs, allowed.size(), FormatCpuList(allowed), allowed.size()));
  }
  // `run conv_blocks onnxruntime,openvino`: the compilers' processes interleave in time.
  std::vector<std::string> compilers;
  for (size_t start = 0; start <= given.compiler.size();) {
    const size_t end = std::min(given.compiler.find(',', start), given.compiler.size());
    const std::string name = given.compiler.substr(start, end - start);
    if (name.empty()) {
      throw InputError("'" + given.compiler + "' names an empty compiler; list compilers as "
                       "a,b (see `ngraphbench list --compilers`)");
    }
    if (std::find(compilers.begin(), compilers.end(), name) != compilers.end()) {
      throw InputError("compiler '" + name + "' is named twice in '" + given.compiler + "'");
    }
    compilers.push_back(name);
    start = end + 1;
  }
  std::deque<Plan> plans;
  for (const std::string& name : compilers) plans.push_back(MakePlan(given, name, allowed));
  const RunArgs& args = plans.front().args;  // what the compilers share
  const std::string device_dir = args.results_dir + "/" + args.device;
  // This machine's entry in machine.json, merged now (and thrown away) so that a malformed file
  // stops the run before anything is written; the rows link to it by machine_id. The file is
  // written later by UpdateMachineFile.
  const MachineInfo machine = DescribeMachine();
  const std::string machine_path = device_dir + "/machine.json";
  MergeMachineFile(ReadIfExists(machine_path), machine_path, machine);
  for (const Plan& plan : plans) {
    if (int removed = RemoveStaleTempFiles(plan.dir) + RemoveStaleTempFiles(plan.dir + "/.claims") +
                      RemoveStaleTempFiles(PartsDirectory(plan.dir))) {
      std::cerr << fmt::format("removed {} temporary file(s) an interrupted run left in {}\n",
                               removed, plan.dir);
    }
  }
  if (int removed = RemoveStaleTempFiles(device_dir)) {
    std::cerr << fmt::format("removed {} temporary file(s) an interrupted run left in {}\n",
                             removed, device_dir);
  }
  if (int removed = RemoveStaleWorkerLogs(args.results_dir)) {
    std::cerr << fmt::format("removed {} worker log(s) a killed run left in {}/.tmp\n", removed,
                             args.results_dir);
  }
  if (int removed = RemoveStaleWorkerModels(args.results_dir)) {
    std::cerr << fmt::format("removed {} ONNX model folder(s) a killed worker left in {}/.tmp\n",
                             removed, args.results_dir);
  }

  std::deque<RunState> states;  // stable addresses: tasks point into it
  std::vector<Changed> changed;
  std::map<const Plan*, std::vector<Changed>> changed_by_plan;
  size_t grid_runs = 0;
  for (Plan& plan : plans) {
    std::vector<Changed> mine;
    Scan(plan, mine, states);
    grid_runs += plan.runs.size();
    changed.insert(changed.end(), mine.begin(), mine.end());
    changed_by_plan[&plan] = std::move(mine);
  }
  if (!changed.empty() && !args.replace_changed) {
    std::string list;
    for (size_t i = 0; i < changed.size() && i < 5; ++i) {
      list += "\n  " + changed[i].run->run_id + ": " + changed[i].why;
    }
    if (changed.size() > 5) list += fmt::format("\n  ... and {} more", changed.size() - 5);
    std::string where;
    for (const Plan& plan : plans) {
      if (!changed_by_plan[&plan].empty()) where += (where.empty() ? "" : " and ") + plan.dir;
    }
    std::set<const RunSpec*> runs_changed;
    for (const auto& c : changed) runs_changed.insert(c.run);
    throw InputError(fmt::format(
        "{} of the {} runs already have rows in {} that cannot be resumed ({}):{}\n"
        "Nothing was run. Add --replace-changed to move those rows (and their traces) to "
        "<dir>/.replaced/<time>/ and measure them again with these settings, or write to "
        "another --results or --device to keep both.{}",
        runs_changed.size(), grid_runs, where, Kinds(changed), list,
        list.find(": threads ") == std::string::npos
            ? ""
            : "\n`threads: 0` (or unset) means every core the run may use, and with --jobs N an "
              "equal share of them: rows measured with another --jobs resume with that --jobs."));
  }
  for (Plan& plan : plans) {
    const std::vector<Changed>& mine = changed_by_plan[&plan];
    if (mine.empty()) continue;
    const std::string to = MoveAside(plan.dir, mine);
    for (RunState& st : states) {
      for (const auto& c : mine) {
        if (c.run == st.run && c.process < 0) st.seen.reset();
      }
    }
    std::cerr << fmt::format("moved {} row(s) that could not be resumed ({}) to {}\n",
                             mine.size(), Kinds(mine), to);
  }

  // The processes to measure: each run's missing ones (0 .. processes - 1, less the parts on
  // disk), in rounds: the first missing process of every run, then the second, ... so that the
  // processes of different runs, and of different compilers, alternate in time.
  std::vector<std::vector<int>> missing(states.size());
  size_t resumed_runs = 0, resumed_parts = 0;
  for (size_t i = 0; i < states.size(); ++i) {
    RunState& st = states[i];
    st.plan->todo++;
    const PartsOnDisk on_disk = ReadParts(st);
    std::set<int> have;
    for (const Part& p : on_disk.parts) {
      have.insert(p.process);
      st.next_process = std::max(st.next_process, p.process + 1);
    }
    st.next_process = std::max<int>(st.next_process, static_cast<int>(st.run->processes));
    if (!have.empty()) {
      ++resumed_runs;
      resumed_parts += have.size();
    }
    if (on_disk.failed) continue;  // decided already: merged once the sweep starts
    for (int p = 0; p < st.run->processes; ++p) {
      if (!have.count(p)) missing[i].push_back(p);
    }
  }
  // Within a round, the compilers alternate run by run (the same model's runs side by side).
  std::vector<size_t> order(states.size());
  {
    std::map<const Plan*, size_t> seen_of_plan, plan_index;
    std::vector<std::pair<size_t, size_t>> key(states.size());
    for (size_t i = 0; i < states.size(); ++i) {
      const Plan* plan = states[i].plan;
      if (!plan_index.count(plan)) plan_index[plan] = plan_index.size();
      key[i] = {seen_of_plan[plan]++, plan_index[plan]};
      order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return key[x] < key[y]; });
  }
  std::deque<Task> queue;
  for (size_t round = 0;; ++round) {
    bool any = false;
    for (const size_t i : order) {
      if (round < missing[i].size()) {
        queue.push_back({&states[i], missing[i][round]});
        states[i].queued++;
        any = true;
      }
    }
    if (!any) break;
  }
  for (const Plan& plan : plans) {
    std::cerr << fmt::format(
        "{} {} on {}{}: {} runs, {} to run, {} kept ({} ok{})\n", args.grid.experiment,
        plan.info->name, args.device, plan.shard_note, plan.runs.size(), plan.todo,
        plan.kept_ok + plan.kept_failed, plan.kept_ok,
        plan.kept_failed
            ? fmt::format(", {} failed; --retry-failed reruns them", plan.kept_failed)
            : "");
  }
  if (!states.empty()) {
    const RunSpec& first = *states.front().run;
    std::cerr << fmt::format(
        "{} worker process(es) per run{}, {} in all{}\n", first.processes,
        first.stop == "ci" ? fmt::format(" (up to {} until the interval is within +-{:.3g}%)",
                                         first.max_processes, first.ci_rel_target * 100)
                           : "",
        queue.size(),
        resumed_parts ? fmt::format("; {} process(es) of {} run(s) already measured are kept",
                                    resumed_parts, resumed_runs)
                      : "");
  }
  for (const Plan& plan : plans) {
    if (plan.slices.empty()) continue;
    std::string where;
    for (const auto& slice : plan.slices) {
      where += (where.empty() ? "" : " | ") + FormatCpuList(slice);
    }
    std::cerr << fmt::format(
        "{} workers at once, {} thread(s) each, on CPUs {}{}\n", args.jobs, plan.config.threads,
        where,
        plan.overlapping ? fmt::format(" (--oversubscribe: {} CPUs asked of the {} allowed; the "
                                       "workers' CPUs overlap)",
                                       int64_t{args.jobs} * plan.config.threads, allowed.size())
                         : "");
  }

  if (!states.empty()) {
    // Merged again under the lock: another scheduler may have added its machine since.
    UpdateMachineFile(machine_path, machine);
    ::setenv(kMachineIdEnv, machine.machine_id.c_str(), 1);  // the workers inherit it
  }
  // A compiler config this machine cannot run at all (a GPU device without a GPU, a provider
  // missing from the SDK's build) is found out once, by a probe process, and its runs get
  // `skipped` rows without a worker each.
  for (Plan& plan : plans) {
    if (plan.todo == 0 || plan.config.device == "cpu") continue;
    const ProbeResult probe = Probe(plan.info->name, args.grid.configs_dir);
    plan.unavailable = probe.unavailable;
    plan.probed_version = probe.version;
    if (!plan.unavailable.empty()) {
      std::cerr << fmt::format("{} (device {}) cannot run on this machine: {}; its runs are "
                               "skipped\n",
                               plan.info->name, plan.config.device, plan.unavailable);
    }
  }
  const auto sweep_start = Clock::now();
  int failed = 0;
  for (const Plan& plan : plans) failed += plan.kept_failed;
  int skipped = 0;
  int invalid = 0;
  size_t done = 0;  // runs whose row this sweep wrote
  // Runs another scheduler sharing the tree holds (left to it) or measured since the scan
  // (kept): neither is measured here.
  int left_to_others = 0, done_by_others = 0;
  const InterruptScope interrupt_scope;
  // The progress lines count processes as they finish (in another order than the queue's with
  // --jobs); stop `ci` may add processes as it goes.
  size_t reported = 0, total_tasks = queue.size();
  auto counter = [&] {
    const int width = static_cast<int>(std::to_string(total_tasks).size());
    return fmt::format("[{:>{}}/{}]", ++reported, width, total_tasks);
  };
  // For the ETA: the workers' wall time so far, and how many ran.
  double worker_s = 0;
  size_t workers_ran = 0;
  std::string unavailable_reasons;

  // A process whose worker is running, in worker slot `slot` (its plan's slices[slot]).
  struct Active {
    Task task;
    size_t slot;
    std::optional<Claim> claim;  // held until its part is written
    std::vector<std::string> argv;
    StartedWorker worker;
  };
  std::vector<Active> active;
  // Whatever ends the sweep with workers still running (an error writing a row) takes them
  // along; their claims are released as `active` goes.
  struct KillOnExit {
    std::vector<Active>& active;
    ~KillOnExit() {
      for (const Active& a : active) {
        ::kill(-a.worker.pid, SIGKILL);
        ::kill(a.worker.pid, SIGKILL);
        ::waitpid(a.worker.pid, nullptr, 0);
        ::unlink(a.worker.log_path.c_str());
      }
    }
  } kill_on_exit{active};
  std::vector<bool> slot_busy(static_cast<size_t>(args.jobs), false);

  // The run's row from its parts, written under the run's claim (another scheduler that shares
  // a run's processes may finish its last part at the same moment): the trace first, the row
  // last, then the parts go.
  auto write_row = [&](RunState& st, const std::string& reason) {
    const Plan& plan = *st.plan;
    const RunSpec& run = *st.run;
    const std::string path = RowPath(plan.dir, run.run_id);
    ClaimHolder holder;
    std::optional<Claim> claim = TryClaim(RunClaimPath(plan.dir, run.run_id),
                                          run.timeout_s + kClaimMarginS, &holder);
    if (!claim || VersionOf(path) != st.seen) {
      st.finished = true;
      ++done_by_others;
      std::cerr << fmt::format("{:<28} written by another scheduler, kept\n", run.run_id);
      return;
    }
    const PartsOnDisk on_disk = ReadParts(st);
    if (on_disk.parts.empty()) return;  // nothing of it measured here or elsewhere
    const ResultRow row = MergeParts(run, on_disk.parts, reason);
    std::vector<std::vector<int64_t>> traces;
    for (const Part& p : on_disk.parts) {
      if (!p.latencies_ns.empty()) traces.push_back(p.latencies_ns);
    }
    if (!traces.empty()) WriteProcessLatencies(LatenciesPath(plan.dir, run.run_id), traces);
    WriteRow(path, row);
    RemoveParts(plan.dir, run.run_id);
    claim->Release();  // the row is on disk: others now see it and skip the run
    st.finished = true;
    ++done;
    if (row.status == kStatusSkipped) {
      ++skipped;
    } else if (row.status != kStatusOk) {
      ++failed;
    } else if (row.valid == false) {
      ++invalid;
    }
    std::string detail = row.error.substr(0, 160);
    if (row.status == kStatusOk) {
      const std::optional<double> rel = IntervalRelHalfWidth(row);
      detail = fmt::format("p50 {:.4g} ms {}  {:.1f} samples/s  ({} process{}{}){}",
                           row.latency_p50_ms.value_or(0),
                           rel ? fmt::format("+-{:.2g}%", *rel * 100) : "(no interval)",
                           row.throughput_median_sps.value_or(0), row.processes.value_or(0),
                           row.processes.value_or(0) == 1 ? "" : "es",
                           reason == "fixed" ? "" : ", " + reason,
                           row.valid == false ? "  INVALID: " + row.invalid_reason : "");
    }
    std::cerr << fmt::format("  = {:<28} {} {:<8} {}\n", run.run_id, plan.info->name,
                             row.status, detail);
  };

  // After a process of the run ended (or at the start): once none of its processes is queued or
  // running here, the run is either complete (its row is written), or, with stop `ci`, given
  // another process, or waits for processes another scheduler measures (it writes the row).
  auto settle = [&](RunState& st) {
    if (st.finished || st.running > 0) return;
    const RunSpec& run = *st.run;
    const PartsOnDisk on_disk = ReadParts(st);
    // A process that did not end ok decides the run: its row now, no process after it.
    if (on_disk.failed) return write_row(st, run.stop == "ci" ? "ci" : "fixed");
    if (st.queued > 0) return;
    if (on_disk.ok < run.processes) return;  // the rest are another scheduler's, or stopped
    if (run.stop != "ci") return write_row(st, "fixed");
    const ResultRow merged = MergeParts(run, on_disk.parts, "ci");
    const std::optional<double> rel = IntervalRelHalfWidth(merged);
    if (rel && *rel <= run.ci_rel_target) return write_row(st, "ci");
    if (on_disk.ok >= run.max_processes) return write_row(st, "max_processes");
    queue.push_back({&st, st.next_process++});
    st.queued++;
    total_tasks++;
  };
  for (RunState& st : states) settle(st);  // complete or decided before this sweep began

  // A process whose worker has ended (or was killed past its timeout): its part, its line.
  auto finish = [&](Active& a, const WorkerOutcome& outcome) {
    RunState& st = *a.task.state;
    const Plan& plan = *st.plan;
    const RunSpec& run = *st.run;
    const std::string path = PartRowPath(plan.dir, run.run_id, a.task.process);
    ResultRow row;
    const bool wrote_part = !outcome.timed_out && outcome.exit_code == 0 && Exists(path);
    if (wrote_part) {
      row = ParseRowCsv(ReadFileCapped(path, kMaxRowBytes, "result file"), path);
    } else {
      row = BaseRow(run, plan.args, plan.config);
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
    a.claim->Release();  // the part is on disk
    st.running--;
    if (row.status != kStatusOk) st.failed = true;
    if (row.status == kStatusSkipped && unavailable_reasons.empty()) {
      unavailable_reasons = row.error;
    }

    const double run_s = std::chrono::duration<double>(Clock::now() - a.worker.start).count();
    worker_s += run_s;
    ++workers_ran;
    const std::string number = counter();
    const double elapsed = std::chrono::duration<double>(Clock::now() - sweep_start).count();
    // The processes left, each taking the mean worker's time so far, args.jobs at once.
    const double eta = static_cast<double>(total_tasks - reported) * worker_s /
                       static_cast<double>(workers_ran) / args.jobs;
    const std::string detail =
        row.status == kStatusOk
            ? fmt::format("p50 {:.4g} ms", row.latency_p50_ms.value_or(0))
            : row.error.substr(0, 160);
    std::cerr << fmt::format("{} {:<28} {} p{} {:<8} {:5.1f}s  {}  (elapsed {}, ETA {})\n",
                             number, run.run_id, plan.info->name, a.task.process, row.status,
                             run_s, detail, FormatDuration(elapsed), FormatDuration(eta));
    if (row.status != kStatusOk && row.status != kStatusSkipped) {
      std::cerr << "  reproduce: " << Quote(a.argv) << "\n";
    }
    settle(st);
  };

  while (true) {
    // Start workers while a slot is free; processes that need none (claimed by another
    // scheduler, measured since the scan, of a run that is decided or skipped) go at once.
    while (!g_interrupt && !queue.empty() && active.size() < slot_busy.size()) {
      const Task task = queue.front();
      queue.pop_front();
      RunState& st = *task.state;
      Plan& plan = *st.plan;
      const RunSpec& run = *st.run;
      st.queued--;
      if (st.finished || st.failed) {
        --total_tasks;
        settle(st);
        continue;
      }
      // A row another scheduler wrote since the scan: the run is theirs.
      if (VersionOf(RowPath(plan.dir, run.run_id)) != st.seen) {
        st.finished = true;
        --total_tasks;
        ++done_by_others;
        std::cerr << fmt::format("{:<28} measured by another scheduler, kept\n", run.run_id);
        continue;
      }
      // One measurement per process, however many schedulers share the tree: each process is
      // measured only under its claim, held until its part is written (or released on the way
      // out of an interrupt or an error).
      ClaimHolder holder;
      std::optional<Claim> claim =
          TryClaim(PartClaimPath(plan.dir, run.run_id, task.process),
                   run.timeout_s + kClaimMarginS, &holder);
      if (!claim || Exists(PartRowPath(plan.dir, run.run_id, task.process))) {
        if (claim) claim->Release();
        --total_tasks;
        if (!claim) {
          st.left_to_others = true;
          std::cerr << fmt::format("{:<28} p{} claimed by {}, left to it\n", run.run_id,
                                   task.process, holder.Describe());
        }
        settle(st);
        continue;
      }
      if (!plan.unavailable.empty()) {
        ResultRow row = BaseRow(run, plan.args, plan.config);
        row.status = kStatusSkipped;
        row.error = plan.unavailable;
        row.compiler_version = plan.probed_version;
        WriteRow(PartRowPath(plan.dir, run.run_id, task.process), row);
        claim->Release();
        --total_tasks;
        st.failed = true;
        unavailable_reasons = plan.unavailable;
        settle(st);  // a part not ok: the run is decided, its row written now
        continue;
      }
      const size_t slot = static_cast<size_t>(
          std::find(slot_busy.begin(), slot_busy.end(), false) - slot_busy.begin());
      WorkerArgs worker_args{plan.args, run.run_id};
      worker_args.process = task.process;
      Active a{task, slot, std::move(claim), WorkerCommand(worker_args), {}};
      st.running++;
      a.worker = StartWorker(a.argv, run.timeout_s, args.results_dir,
                             plan.slices.empty() ? std::vector<int>{} : plan.slices[slot]);
      slot_busy[slot] = true;
      active.push_back(std::move(a));
    }
    if (active.empty()) break;  // all done, or interrupted between processes

    bool ended = false;
    for (size_t k = 0; k < active.size();) {
      if (std::optional<WorkerOutcome> outcome = PollWorker(active[k].worker, args.results_dir)) {
        slot_busy[active[k].slot] = false;
        Active a = std::move(active[k]);
        active.erase(active.begin() + static_cast<std::ptrdiff_t>(k));
        ended = true;
        // A stop that signals every process of the sweep at once (Slurm's scancel or time limit,
        // a kill of the whole process tree) may end a worker before this loop sees the
        // scheduler's own signal: a worker killed by SIGTERM or SIGINT gets a moment for that
        // signal to arrive, and one that did not end cleanly while the scheduler is asked to
        // stop was stopped, not crashed: no part (resume measures that process again).
        if (!outcome->timed_out &&
            (outcome->signal == SIGTERM || outcome->signal == SIGINT) && !g_interrupt) {
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        if (g_interrupt && !outcome->timed_out && outcome->exit_code != 0) {
          RemoveStaleTempFiles(PartsDirectory(a.task.state->plan->dir));
          RemoveStaleTempFiles(args.results_dir + "/.cache/reference");
          std::cerr << fmt::format("{} {:<28} p{} stopped (nothing written)\n", counter(),
                                   a.task.state->run->run_id, a.task.process);
          a.task.state->running--;
          continue;
        }
        finish(a, *outcome);
      } else {
        ++k;
      }
    }
    if (g_interrupt && !active.empty()) {
      std::vector<StartedWorker> workers;
      for (const Active& a : active) workers.push_back(a.worker);
      StopWorkers(workers, args.results_dir);
      // No part for a process cut short: resume measures it again. Its temporary files go too.
      for (const Plan& plan : plans) RemoveStaleTempFiles(PartsDirectory(plan.dir));
      RemoveStaleTempFiles(args.results_dir + "/.cache/reference");
      for (const Active& a : active) {
        std::cerr << fmt::format("{} {:<28} p{} stopped (nothing written)\n", counter(),
                                 a.task.state->run->run_id, a.task.process);
      }
      active.clear();  // reaped: their claims go with them
      break;
    }
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (const RunState& st : states) left_to_others += !st.finished && st.left_to_others;
  const size_t by_others = static_cast<size_t>(left_to_others + done_by_others);
  const std::string others =
      by_others == 0 ? ""
                     : fmt::format("; other schedulers: {} left to them, {} measured by them",
                                   left_to_others, done_by_others);
  std::string dirs;
  for (const Plan& plan : plans) dirs += (dirs.empty() ? "" : ", ") + plan.dir;
  if (const int signal = g_interrupt) {
    g_interrupt = 0;
    std::cerr << fmt::format(
        "interrupted by {}: {} of {} runs measured now, {} left ({} not ok so far){}; rows in {}\n"
        "resume with: {}\n",
        signal == SIGINT ? "SIGINT" : "SIGTERM", done, states.size(),
        states.size() - done - by_others, failed, others, dirs, OwnCommandLine());
    return kExitInterrupted + signal;
  }
  std::cerr << fmt::format(
      "done: {} runs, {} not ok, {} measured now ok but invalid{}{}; rows in {}\n", grid_runs,
      failed, invalid,
      skipped ? fmt::format(", {} skipped (this machine cannot run them: {})", skipped,
                            unavailable_reasons.empty() ? "see each row's error"
                                                        : unavailable_reasons)
              : "",
      others, dirs);
  return failed ? kExitRunsFailed : kExitOk;
}

}  // namespace ngraphbench
