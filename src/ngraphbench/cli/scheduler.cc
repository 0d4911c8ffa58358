// The scheduler: expands the grid, skips runs whose row exists, and runs one worker process per
// run. A worker that crashes or hangs costs one run, never the sweep. Several schedulers may share
// a results tree (two shells, or machines over NFS): each run is measured only under its claim
// (results/claim.h), so each is measured once, by whichever scheduler claims it first.
#include <fcntl.h>
#include <fmt/core.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
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

// The worker's log lives in <results_dir>/.tmp/, not /tmp: a sweep killed before the unlink leaves
// it inside its own results tree instead of piling up in the machine's /tmp. Its name holds the
// scheduler's host and pid, `worker-<host>-<pid>-XXXXXX.log`, so that the next `run` on this
// host can tell a leftover from the log of another scheduler's live worker.
WorkerOutcome RunWorker(const std::vector<std::string>& argv, double timeout_s,
                        const std::string& results_dir) {
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
  const char* log_path = log_template.c_str();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw EnvironmentError(std::string("cannot start a worker: fork failed: ") +
                                      std::strerror(errno));
  if (pid == 0) {
    // The worker: its own process group (so a timeout kills all it started), and it dies with
    // the scheduler, so a killed sweep leaves no worker writing behind it.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    ExecOrExit(argv);
  }
  ::close(log_fd);
  WorkerOutcome outcome;
  outcome.pid = pid;
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  while (true) {
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) throw EnvironmentError("waitpid failed for a worker");
    if (g_interrupt) {
      // The worker's process group (its reference child, a compile helper) gets SIGTERM, and
      // SIGKILL after a grace second.
      ::kill(-pid, SIGTERM);
      const auto grace = Clock::now() + std::chrono::seconds(1);
      while (::waitpid(pid, &status, WNOHANG) != pid && Clock::now() < grace) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);  // in case it had not made its own group yet
      ::waitpid(pid, &status, 0);
      outcome.interrupted = true;
      break;
    }
    if (Clock::now() >= deadline) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      outcome.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // A stop that signals every process of the sweep at once (Slurm's scancel or time limit, a
  // `kill` of the whole tree) may end the worker before this loop sees g_interrupt: a worker
  // that did not end cleanly while the scheduler was asked to stop was stopped, not crashed,
  // and gets no row (resume measures it again).
  if (g_interrupt && !outcome.timed_out && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    outcome.interrupted = true;
  }
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  outcome.log_tail = Tail(log_path, 600);
  ::unlink(log_path);
  // What the worker or its reference child could not remove because it was killed (the worker
  // itself may have ended normally after its child was).
  RemoveStaleWorkerModels(results_dir);
  return outcome;
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
        "--results or --device to keep both.",
        changed.size(), runs.size(), dir, Kinds(changed), list, dir));
  }
  if (!changed.empty()) {
    const std::string to = MoveAside(dir, changed);
    for (const auto& c : changed) seen[c.run].reset();
    std::cerr << fmt::format("moved {} row(s) that could not be resumed ({}) to {}\n",
                             changed.size(), Kinds(changed), to);
  }
  std::cerr << fmt::format("{} {} on {}: {} runs, {} to run, {} kept ({} ok{})\n",
                           args.grid.experiment, info.name, args.device, runs.size(), todo.size(),
                           kept_ok + kept_failed, kept_ok,
                           kept_failed ? fmt::format(", {} failed; --retry-failed reruns them",
                                                     kept_failed)
                                       : "");

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
  for (size_t i = 0; i < todo.size() && !g_interrupt; ++i) {
    const RunSpec& run = *todo[i];
    const std::string path = RowPath(dir, run.run_id);
    // One measurement per run, however many schedulers share the tree: the run is measured only
    // under its claim, held until its row is written (or released on the way out of an
    // interrupt or an error).
    ClaimHolder holder;
    std::optional<Claim> claim =
        TryClaim(RunClaimPath(dir, run.run_id), run.timeout_s + kClaimMarginS, &holder);
    if (!claim) {
      ++left_to_others;
      std::cerr << fmt::format("[{:>{}}/{}] {:<28} claimed by {}, left to it\n", i + 1, width,
                               todo.size(), run.run_id, holder.Describe());
      continue;
    }
    // Claimed: a scheduler that held the claim before us may have written the row since the
    // scan. Kept when it is such a row (another version of the file than the scan saw; with
    // other settings too: it is not overwritten behind that scheduler's back), or one the scan
    // would have kept.
    if (const std::optional<FileVersion> now = VersionOf(path)) {
      std::optional<ResultRow> theirs;
      try {
        theirs = ReadRow(path);
      } catch (const InputError&) {
        // Unreadable: measured again, as the scan decided.
      }
      const bool same = theirs && theirs->config_hash == ConfigHash(run, config, args.sample_ms);
      if (theirs && theirs->status != kStatusSkipped &&
          (now != seen[&run] || (same && (theirs->status == kStatusOk || !args.retry_failed)))) {
        claim->Release();
        ++done_by_others;
        if (!same || theirs->status != kStatusOk) ++failed;
        std::cerr << fmt::format(
            "[{:>{}}/{}] {:<28} measured by another scheduler ({}), kept\n", i + 1, width,
            todo.size(), run.run_id,
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
      std::cerr << fmt::format("[{:>{}}/{}] {:<28} skipped\n", i + 1, width, todo.size(),
                               run.run_id);
      continue;
    }
    WorkerArgs worker{args, run.run_id};
    const std::vector<std::string> argv = WorkerCommand(worker);
    const auto run_start = Clock::now();
    WorkerOutcome outcome = RunWorker(argv, run.timeout_s, args.results_dir);
    if (outcome.interrupted) {
      // No row for a run cut short: resume measures it again. Its temporary files go with it.
      RemoveStaleTempFiles(dir);
      RemoveStaleTempFiles(args.results_dir + "/.cache/reference");
      // A worker stopped right after writing its row (rows are written whole) leaves it.
      const bool row_written = VersionOf(path) != seen[&run];
      std::cerr << fmt::format("[{:>{}}/{}] {:<28} stopped ({})\n", i + 1, width, todo.size(),
                               run.run_id,
                               row_written ? "after its row was written: kept" : "no row written");
      break;
    }
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
    claim->Release();  // the row is on disk: others now see it and skip the run
    if (row.status == kStatusSkipped) {
      ++skipped;
    } else if (row.status != kStatusOk) {
      ++failed;
    }

    const double elapsed = std::chrono::duration<double>(Clock::now() - sweep_start).count();
    const double eta = elapsed / static_cast<double>(i + 1) * static_cast<double>(todo.size() - i - 1);
    if (row.status == kStatusOk && row.valid == false) ++invalid;
    std::string detail =
        row.status == kStatusOk
            ? fmt::format("p50 {:.3f} ms  {:.1f} samples/s{}", row.latency_p50_ms.value_or(0),
                          row.throughput_median_sps.value_or(0),
                          row.valid == false ? "  INVALID: " + row.invalid_reason : "")
            : row.error.substr(0, 160);
    std::cerr << fmt::format("[{:>{}}/{}] {:<28} {:<8} {:5.1f}s  {}  (elapsed {}, ETA {})\n", i + 1,
                             width, todo.size(), run.run_id, row.status,
                             std::chrono::duration<double>(Clock::now() - run_start).count(),
                             detail, FormatDuration(elapsed), FormatDuration(eta));
    if (row.status != kStatusOk && row.status != kStatusSkipped) {
      std::cerr << "  reproduce: " << Quote(argv) << "\n";
    }
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
