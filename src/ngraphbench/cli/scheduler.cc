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
#include <map>
#include <sstream>
#include <thread>

#include "ngraphbench/cli/commands.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/experiments/fingerprint.h"
#include "ngraphbench/measure/machine.h"
#include "ngraphbench/results/claim.h"
#include "ngraphbench/results/csv.h"

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
  std::vector<std::string> parts;
  if (changed.size() > unreadable) {
    parts.push_back(std::to_string(changed.size() - unreadable) + " measured with other settings");
  }
  if (unreadable) parts.push_back(std::to_string(unreadable) + " unreadable");
  return parts.size() == 2 ? parts[0] + ", " + parts[1] : parts[0];
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
    for (const std::string& path :
         {RowPath(dir, c.run->run_id), LatenciesPath(dir, c.run->run_id)}) {
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

int CmdRun(const RunArgs& given) {
  // Everything that can be wrong with the input is checked before anything runs or is written.
  RunArgs args = given;
  if (args.jobs < 1) {
    throw InputError(fmt::format("--jobs is {}; it must be at least 1 (1 runs one worker at a "
                                 "time)",
                                 args.jobs));
  }
  const CompilerInfo& info = FindCompiler(args.compiler);
  // With --jobs N the workers share the CPUs this process may use, so `threads: 0` (every core)
  // means an equal share of them; each worker is told the same (--cores), so that its config,
  // and its row's config_hash, are the ones resume compares against.
  const std::vector<int> allowed = ProcessCpus();
  if (args.jobs > static_cast<int>(allowed.size()) && !args.oversubscribe) {
    throw InputError(fmt::format(
        "--jobs {} is more than the {} CPUs this process may use ({}), and each worker needs one "
        "of its own; use --jobs {} or fewer, or add --oversubscribe to run them anyway on "
        "overlapping CPUs",
        args.jobs, allowed.size(), FormatCpuList(allowed), allowed.size()));
  }
  if (args.jobs > 1) {
    args.cores = std::max(1, static_cast<int>(allowed.size()) / args.jobs);
  }
  const CompilerConfig config = ResolveCompilerConfig(args.grid.configs_dir, info, args.cores);
  if (!IsBuilt(info.name)) {
    throw InputError("compiler '" + info.name + "' is not built (no " + ModulePath(info.name) +
                     "); " + info.enable_hint);
  }
  // One slice of CPUs per worker slot. Empty with one job: the worker inherits this process's
  // mask and pins itself by its config's `affinity`, as without --jobs.
  std::vector<std::vector<int>> slices;
  bool overlapping = false;
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
    overlapping = needed > static_cast<int64_t>(allowed.size());
    if (overlapping && !args.oversubscribe) {
      throw InputError(fmt::format(
          "--jobs {} with threads {} ({}) needs {} CPUs, but this process may use {} ({}); "
          "lower --jobs or threads, or add --oversubscribe to run them anyway on overlapping "
          "CPUs",
          args.jobs, config.threads, config.source, needed, allowed.size(),
          FormatCpuList(allowed)));
    }
    slices = CpuSlices(allowed, args.jobs, config.threads);
  }
  if (args.sample_ms < 0) throw InputError("--sample-ms must be >= 0");
  std::vector<RunSpec> runs = ResolveGrid(args.grid);
  std::string shard_note;
  if (!args.shard.empty()) {
    const ShardSpec shard = ParseShard(args.shard);
    const size_t grid_size = runs.size();
    double shard_s = 0, total_s = 0;
    // The static estimate only (no measured rows): every shard of a sweep computes the same
    // partition, whenever it starts.
    runs = SelectShard(runs, shard, LoadEstimateInputs(runs, args, config, false), &shard_s,
                       &total_s);
    shard_note = fmt::format(" (shard {}: {} of the grid's {} runs, about {} of {})", args.shard,
                             runs.size(), grid_size, FormatHours(shard_s), FormatHours(total_s));
  }
  const std::string dir = RunDirectory(args);
  // This machine's entry in machine.json, merged now (and thrown away) so that a malformed file
  // stops the run before anything is written; the rows link to it by machine_id. The file is
  // written later by UpdateMachineFile.
  const MachineInfo machine = DescribeMachine();
  const std::string machine_path = args.results_dir + "/" + args.device + "/machine.json";
  MergeMachineFile(ReadIfExists(machine_path), machine_path, machine);
  const std::string device_dir = args.results_dir + "/" + args.device;
  if (int removed = RemoveStaleTempFiles(dir) + RemoveStaleTempFiles(dir + "/.claims") +
                    RemoveStaleTempFiles(device_dir)) {
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

  // Resume: a row whose config_hash is the run's is kept (rerun with --retry-failed when not
  // ok); a row made with other settings is never silently kept or overwritten.
  std::vector<const RunSpec*> todo;
  std::vector<Changed> changed;
  int kept_ok = 0, kept_failed = 0;
  // Each row as this scan saw it: one that differs later was written by another scheduler
  // sharing the tree.
  std::map<const RunSpec*, std::optional<FileVersion>> seen;
  for (const auto& run : runs) {
    const std::string path = RowPath(dir, run.run_id);
    seen[&run] = VersionOf(path);
    if (!Exists(path)) {
      todo.push_back(&run);
      continue;
    }
    ResultRow row;
    try {
      row = ReadRow(path);
    } catch (const InputError& e) {
      changed.push_back({&run, std::string("unreadable: ") + e.what(), /*unreadable=*/true});
      todo.push_back(&run);
      continue;
    }
    if (row.config_hash != ConfigHash(run, config, args.sample_ms)) {
      changed.push_back({&run, Difference(row, run, config)});
      todo.push_back(&run);
      continue;
    }
    // Skipped: the machine lacked something (a GPU, a provider); asked again on every sweep.
    if (row.status == kStatusSkipped) {
      todo.push_back(&run);
      continue;
    }
    const bool ok = row.status == kStatusOk;
    if (ok || !args.retry_failed) {
      (ok ? kept_ok : kept_failed)++;
      continue;
    }
    todo.push_back(&run);
  }
  if (!changed.empty() && !args.replace_changed) {
    std::string list;
    for (size_t i = 0; i < changed.size() && i < 5; ++i) {
      list += "\n  " + changed[i].run->run_id + ": " + changed[i].why;
    }
    if (changed.size() > 5) list += fmt::format("\n  ... and {} more", changed.size() - 5);
    throw InputError(fmt::format(
        "{} of the {} runs already have rows in {} that cannot be resumed ({}):{}\n"
        "Nothing was run. Add --replace-changed to move those rows (and their traces) to "
        "{}/.replaced/<time>/ and measure them again with these settings, or write to another "
        "--results or --device to keep both.{}",
        changed.size(), runs.size(), dir, Kinds(changed), list, dir,
        list.find(": threads ") == std::string::npos
            ? ""
            : "\n`threads: 0` (or unset) means every core the run may use, and with --jobs N an "
              "equal share of them: rows measured with another --jobs resume with that --jobs."));
  }
  if (!changed.empty()) {
    const std::string to = MoveAside(dir, changed);
    for (const auto& c : changed) seen[c.run].reset();
    std::cerr << fmt::format("moved {} row(s) that could not be resumed ({}) to {}\n",
                             changed.size(), Kinds(changed), to);
  }
  std::cerr << fmt::format("{} {} on {}{}: {} runs, {} to run, {} kept ({} ok{})\n",
                           args.grid.experiment, info.name, args.device, shard_note, runs.size(),
                           todo.size(),
                           kept_ok + kept_failed, kept_ok,
                           kept_failed ? fmt::format(", {} failed; --retry-failed reruns them",
                                                     kept_failed)
                                       : "");

  if (!slices.empty()) {
    std::string where;
    for (const auto& slice : slices) where += (where.empty() ? "" : " | ") + FormatCpuList(slice);
    std::cerr << fmt::format(
        "{} workers at once, {} thread(s) each, on CPUs {}{}\n", args.jobs, config.threads, where,
        overlapping ? fmt::format(" (--oversubscribe: {} CPUs asked of the {} allowed; the "
                                  "workers' CPUs overlap)",
                                  int64_t{args.jobs} * config.threads, allowed.size())
                    : "");
  }

  if (!todo.empty()) {
    // Merged again under the lock: another scheduler may have added its machine since.
    UpdateMachineFile(machine_path, machine);
    ::setenv(kMachineIdEnv, machine.machine_id.c_str(), 1);  // the workers inherit it
  }
  // A compiler config this machine cannot run at all (a GPU device without a GPU, a provider
  // missing from the SDK's build) is found out once, by a probe process, and its runs get
  // `skipped` rows without a worker each.
  std::string unavailable, probed_version;
  if (!todo.empty() && config.device != "cpu") {
    const ProbeResult probe = Probe(info.name, args.grid.configs_dir);
    unavailable = probe.unavailable;
    probed_version = probe.version;
    if (!unavailable.empty()) {
      std::cerr << fmt::format("{} (device {}) cannot run on this machine: {}; its runs are "
                               "skipped\n",
                               info.name, config.device, unavailable);
    }
  }
  const auto sweep_start = Clock::now();
  int failed = kept_failed;
  int skipped = 0;
  int invalid = 0;
  size_t done = 0;
  // Runs another scheduler sharing the tree holds (left to it) or measured since the todo list
  // was made (kept): neither is measured here.
  int left_to_others = 0, done_by_others = 0;
  const InterruptScope interrupt_scope;
  const int width = static_cast<int>(std::to_string(todo.size()).size());
  // The progress lines count the runs as they finish (in another order than todo's with --jobs).
  size_t reported = 0;
  auto counter = [&] { return fmt::format("[{:>{}}/{}]", ++reported, width, todo.size()); };
  // For the ETA: the workers' wall time so far, and how many ran.
  double worker_s = 0;
  size_t workers_ran = 0;

  // A run whose worker is running, in worker slot `slot` (slices[slot] with --jobs).
  struct Active {
    const RunSpec* run;
    size_t slot;
    std::optional<Claim> claim;  // held until its row is written
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

  // The row of a run whose worker has ended (or was killed past its timeout), and its line.
  auto finish = [&](Active& a, const WorkerOutcome& outcome) {
    const RunSpec& run = *a.run;
    const std::string path = RowPath(dir, run.run_id);
    ++done;
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
    a.claim->Release();  // the row is on disk: others now see it and skip the run
    if (row.status == kStatusSkipped) {
      ++skipped;
    } else if (row.status != kStatusOk) {
      ++failed;
    }

    const double run_s = std::chrono::duration<double>(Clock::now() - a.worker.start).count();
    worker_s += run_s;
    ++workers_ran;
    const std::string number = counter();
    const double elapsed = std::chrono::duration<double>(Clock::now() - sweep_start).count();
    // The runs left, each taking the mean worker's time so far, args.jobs at once.
    const double eta = static_cast<double>(todo.size() - reported) * worker_s /
                       static_cast<double>(workers_ran) / args.jobs;
    if (row.status == kStatusOk && row.valid == false) ++invalid;
    std::string detail =
        row.status == kStatusOk
            ? fmt::format("p50 {:.3f} ms  {:.1f} samples/s{}", row.latency_p50_ms.value_or(0),
                          row.throughput_median_sps.value_or(0),
                          row.valid == false ? "  INVALID: " + row.invalid_reason : "")
            : row.error.substr(0, 160);
    std::cerr << fmt::format("{} {:<28} {:<8} {:5.1f}s  {}  (elapsed {}, ETA {})\n", number,
                             run.run_id, row.status, run_s, detail, FormatDuration(elapsed),
                             FormatDuration(eta));
    if (row.status != kStatusOk && row.status != kStatusSkipped) {
      std::cerr << "  reproduce: " << Quote(a.argv) << "\n";
    }
  };

  size_t next = 0;
  while (true) {
    // Start workers while a slot is free; runs that need none (claimed by another scheduler,
    // measured since the scan, skipped) are reported at once.
    while (!g_interrupt && next < todo.size() && active.size() < slot_busy.size()) {
      const RunSpec& run = *todo[next++];
      const std::string path = RowPath(dir, run.run_id);
      // One measurement per run, however many schedulers share the tree: the run is measured
      // only under its claim, held until its row is written (or released on the way out of an
      // interrupt or an error).
      ClaimHolder holder;
      std::optional<Claim> claim =
          TryClaim(RunClaimPath(dir, run.run_id), run.timeout_s + kClaimMarginS, &holder);
      if (!claim) {
        ++left_to_others;
        std::cerr << fmt::format("{} {:<28} claimed by {}, left to it\n", counter(), run.run_id,
                                 holder.Describe());
        continue;
      }
      // Claimed: a scheduler that held the claim before us may have written the row since the
      // scan. Kept when it is such a row (another version of the file than the scan saw; with
      // other settings too: it is not overwritten behind that scheduler's back), or one the
      // scan would have kept.
      if (const std::optional<FileVersion> now = VersionOf(path)) {
        std::optional<ResultRow> theirs;
        try {
          theirs = ReadRow(path);
        } catch (const InputError&) {
          // Unreadable: measured again, as the scan decided.
        }
        const bool same =
            theirs && theirs->config_hash == ConfigHash(run, config, args.sample_ms);
        if (theirs && theirs->status != kStatusSkipped &&
            (now != seen[&run] ||
             (same && (theirs->status == kStatusOk || !args.retry_failed)))) {
          claim->Release();
          ++done_by_others;
          if (!same || theirs->status != kStatusOk) ++failed;
          std::cerr << fmt::format(
              "{} {:<28} measured by another scheduler ({}), kept\n", counter(), run.run_id,
              same ? theirs->status : "with other settings, config_hash " + theirs->config_hash);
          continue;
        }
      }
      if (!unavailable.empty()) {
        ResultRow row = BaseRow(run, args, config);
        row.status = kStatusSkipped;
        row.error = unavailable;
        row.compiler_version = probed_version;
        WriteRow(path, row);
        claim->Release();
        ++done;
        ++skipped;
        std::cerr << fmt::format("{} {:<28} skipped\n", counter(), run.run_id);
        continue;
      }
      const size_t slot = static_cast<size_t>(
          std::find(slot_busy.begin(), slot_busy.end(), false) - slot_busy.begin());
      Active a{&run, slot, std::move(claim), WorkerCommand(WorkerArgs{args, run.run_id}), {}};
      a.worker = StartWorker(a.argv, run.timeout_s, args.results_dir,
                             slices.empty() ? std::vector<int>{} : slices[slot]);
      slot_busy[slot] = true;
      active.push_back(std::move(a));
    }
    if (active.empty()) break;  // all done, or interrupted between runs

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
        // stop was stopped, not crashed: no row (resume measures it again).
        if (!outcome->timed_out &&
            (outcome->signal == SIGTERM || outcome->signal == SIGINT) && !g_interrupt) {
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        if (g_interrupt && !outcome->timed_out && outcome->exit_code != 0) {
          RemoveStaleTempFiles(dir);
          RemoveStaleTempFiles(args.results_dir + "/.cache/reference");
          std::cerr << fmt::format("{} {:<28} stopped (no row written)\n", counter(),
                                   a.run->run_id);
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
      // No row for a run cut short: resume measures it again. Its temporary files go with it.
      RemoveStaleTempFiles(dir);
      RemoveStaleTempFiles(args.results_dir + "/.cache/reference");
      for (const Active& a : active) {
        std::cerr << fmt::format("{} {:<28} stopped (no row written)\n", counter(),
                                 a.run->run_id);
      }
      active.clear();  // reaped: their claims go with them
      break;
    }
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const size_t by_others = static_cast<size_t>(left_to_others + done_by_others);
  const std::string others =
      by_others == 0 ? ""
                     : fmt::format("; other schedulers: {} left to them, {} measured by them",
                                   left_to_others, done_by_others);
  if (const int signal = g_interrupt) {
    g_interrupt = 0;
    std::cerr << fmt::format(
        "interrupted by {}: {} of {} runs measured now, {} left ({} not ok so far){}; rows in {}\n"
        "resume with: {}\n",
        signal == SIGINT ? "SIGINT" : "SIGTERM", done, todo.size(), todo.size() - done - by_others,
        failed, others, dir, OwnCommandLine());
    return kExitInterrupted + signal;
  }
  std::cerr << fmt::format(
      "done: {} runs, {} not ok, {} measured now ok but invalid{}{}; rows in {}\n", runs.size(),
      failed, invalid,
      skipped ? fmt::format(", {} skipped (this machine cannot run them: {})", skipped,
                            unavailable.empty() ? "see each row's error" : unavailable)
              : "",
      others, dir);
  return failed ? kExitRunsFailed : kExitOk;
}

}  // namespace ngraphbench
