// The scheduler of a sweep (`ngraphbench run`): plan (plan.h: validate every compiler's settings
// and runs, set them against the rows on disk, queue the processes to measure), then, while
// processes are queued or running, claim (claim.h: each process is measured only under its
// claim, so schedulers sharing a results tree measure it once), launch (launch.h: one worker
// process each, in its own process group, with its deadline) and collect (collect.h: its part,
// the run's row once its processes are in). A worker that crashes or hangs costs one process of
// one run, never the sweep; a results tree whose storage fails (a full disk) stops the sweep with
// exit 3 and no row, since no compiler is to blame for it.
#include <fmt/core.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/core/shell.h"
#include "ngraphbench/core/process.h"
#include "ngraphbench/measure/machine.h"
#include "ngraphbench/measure/verdict.h"
#include "ngraphbench/results/claim.h"
#include "ngraphbench/results/csv.h"
#include "ngraphbench/runner/budget.h"
#include "ngraphbench/runner/claim.h"
#include "ngraphbench/runner/collect.h"
#include "ngraphbench/runner/launch.h"
#include "ngraphbench/runner/parts.h"
#include "ngraphbench/runner/plan.h"
#include "ngraphbench/runner/probe.h"
#include "ngraphbench/runner/run.h"
#include "ngraphbench/runner/worker.h"

namespace ngraphbench {

namespace {

// The signal (SIGINT, SIGTERM) that asked the sweep to stop, 0 while none did. Process-wide by
// nature: a signal handler can only set a flag.
volatile std::sig_atomic_t g_interrupt = 0;
void OnInterrupt(int signal) { g_interrupt = signal; }

// This process's own command line, as the user typed it (for "resume with: ...").
std::string OwnCommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> argv;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\0', start);
    if (end == std::string::npos) end = text.size();
    argv.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return ShellCommandLine(argv);
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

// Why the sweep stopped for its storage (IsStorageFailure): what could not be written, and its
// errno (0 when a worker saw it).
struct StorageStop {
  std::string what;
  int error_number = 0;
};

// The last line of a worker's log without its "error: ", or what an empty log means.
std::string WorkerFailure(const std::string& log_tail) {
  std::string line = log_tail.substr(log_tail.rfind('\n') + 1);
  if (line.rfind("error: ", 0) == 0) line.erase(0, 7);
  return line.empty() ? "its log is empty (no room left for it either?)" : line;
}

// The sweep's last words when the results tree's storage failed, for kExitEnvironment: what
// failed, what the sweep did (`progress`, may be empty), what to free or fix, and how to resume.
int StopForStorage(const StorageStop& stop, const std::string& results_dir,
                   const std::string& progress) {
  std::cerr << fmt::format("stopped: the results tree's storage failed: {}\n{}{}; then resume "
                           "with: {}\n",
                           stop.what, progress.empty() ? "" : progress + "\n",
                           StorageAdvice(stop.error_number, results_dir), OwnCommandLine());
  return kExitEnvironment;
}

// The sweep, as CmdRun describes it.
int RunSweep(const RunArgs& given) {
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
  ValidateSettings(given.grid.settings, compilers);
  // This machine's entry in machine.json, merged now (and thrown away) so that a malformed file
  // stops the run before anything is written; the rows link to it by machine_id. The file is
  // written later by UpdateMachineFile. It and the claims are checked before the plans are made:
  // with --shard, planning writes the MAC counts' cache.
  const std::string device_dir =
      std::filesystem::path(RunDirectory(given.results_dir, given.device, compilers.front()))
          .parent_path()
          .string();
  const MachineInfo machine = DescribeMachine();
  const std::string machine_path = device_dir + "/machine.json";
  CheckMachineFile(machine_path, machine);
  for (const std::string& name : compilers) {
    CheckClaimFiles(RunDirectory(given.results_dir, given.device, name));
  }
  std::deque<Plan> plans;
  for (const std::string& name : compilers) plans.push_back(MakePlan(given, name, allowed));
  if (given.check_only) return kExitOk;
  const RunArgs& args = plans.front().args;  // what the compilers share
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
  if (int removed = RemoveStaleSpecFiles(args.results_dir)) {
    std::cerr << fmt::format("removed {} run specification(s) a killed run left in {}/.tmp\n",
                             removed, args.results_dir);
  }
  if (int removed = RemoveStaleWorkerModels(args.results_dir)) {
    std::cerr << fmt::format("removed {} ONNX model folder(s) a killed worker left in {}/.tmp\n",
                             removed, args.results_dir);
  }
  if (int removed = RemoveStaleCacheBuilds(args.results_dir)) {
    std::cerr << fmt::format("removed {} unfinished cache entr(y/ies) a killed worker left in "
                             "{}/.cache\n",
                             removed, args.results_dir);
  }

  std::deque<RunState> states;  // stable addresses: tasks point into it
  Resume(plans, args.replace_changed, states);
  FitToBudget(plans, states, std::cerr);  // --budget: the runs left to measure that fit it
  size_t grid_runs = 0;
  for (const Plan& plan : plans) grid_runs += plan.runs.size();
  Resumed resumed;
  const size_t window = QueueWindow(args.jobs);
  std::deque<Task> queue = QueueProcesses(states, window, &resumed);
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
        resumed.parts ? fmt::format("; {} process(es) of {} run(s) already measured are kept",
                                    resumed.parts, resumed.runs)
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
  // Before any child starts: what a worker started comes back here when the worker dies, even
  // from a session of its own, and is ended (CleanUpAfterWorkers) instead of living on.
  BecomeSubreaper();
  // A compiler config this machine cannot run at all (a GPU device without a GPU, a provider
  // missing from the SDK's build) is found out once, by a probe process, and its runs get
  // `skipped` rows without a worker each.
  for (Plan& plan : plans) {
    if (plan.todo == 0 || plan.config.device == "cpu") continue;
    const ProbeResult probe = Probe(plan.info->name, args.grid.configs_dir,
                                    PinnedSettings(args.grid.settings, plan.config));
    plan.unavailable = probe.unavailable;
    plan.probed_version = probe.version;
    if (!plan.unavailable.empty()) {
      std::cerr << fmt::format("{} (device {}) cannot run on this machine: {}; its runs are "
                               "skipped\n",
                               plan.info->name, plan.config.device, plan.unavailable);
    }
  }
  Collector collect(queue, args.jobs, window);
  Tally& tally = collect.tally();
  for (const Plan& plan : plans) tally.failed += plan.kept_failed;
  // Runs another scheduler sharing the tree holds (left to it): not measured here.
  int left_to_others = 0;
  const InterruptScope interrupt_scope;

  std::vector<RunningProcess> active;
  // Whatever ends the sweep with workers still running (an error writing a row) takes them
  // along, and what they started; their claims are released as `active` goes.
  struct KillOnExit {
    std::vector<RunningProcess>& active;
    const std::string& results_dir;
    ~KillOnExit() {
      for (const RunningProcess& a : active) {
        ::kill(-a.worker.pid, SIGKILL);
        ::kill(a.worker.pid, SIGKILL);
        ::waitpid(a.worker.pid, nullptr, 0);
        ::unlink(a.worker.log_path.c_str());
      }
      CleanUpAfterWorkers(results_dir, {});
    }
  } kill_on_exit{active, args.results_dir};
  // After workers ended: what they left running (their orphans, reparented here) goes, and what
  // they left in the tree. Every other child of this process is a live worker.
  const auto clean_up_after_workers = [&] {
    std::vector<pid_t> live;
    for (const RunningProcess& a : active) live.push_back(a.worker.pid);
    if (const int ended = CleanUpAfterWorkers(args.results_dir, live)) {
      std::cerr << fmt::format("ended {} process(es) that ended workers had started and left "
                               "behind\n",
                               ended);
    }
  };
  std::vector<bool> slot_busy(static_cast<size_t>(args.jobs), false);
  for (RunState& st : states) collect.Settle(st);  // complete or decided before this sweep began
  // Set when a write to the results tree, the scheduler's or a worker's, failed for its storage
  // (a full disk): the sweep then stops as on an interrupt, writes no row for the processes cut
  // short (a row would blame the compiler) and exits 3; a resume measures them.
  std::optional<StorageStop> storage;

  while (true) {
    bool ended = false;
    try {
      // Start workers while a slot is free; processes that need none (claimed by another
      // scheduler, measured since the scan, of a run that is decided or skipped) go at once.
      while (!g_interrupt && !storage && !queue.empty() && active.size() < slot_busy.size()) {
        const Task task = queue.front();
        queue.pop_front();
        RunState& st = *task.state;
        Plan& plan = *st.plan;
        const RunSpec& run = *st.run;
        st.queued--;
        if (st.finished || st.failed) {  // decided: this process left the count then
          collect.Settle(st);
          continue;
        }
        // A row another scheduler wrote since the scan: the run is theirs.
        if (VersionOf(RowPath(plan.dir, run.run_id)) != st.seen) {
          collect.Drop();
          collect.TakenByOthers(st);
          collect.Settle(st);  // its spec file goes once none of its processes runs here
          continue;
        }
        // One measurement per process, however many schedulers share the tree: each process is
        // measured only under its claim, held until its part is written (or released on the way
        // out of an interrupt or an error).
        ClaimHolder holder;
        std::optional<Claim> claim = ClaimProcess(plan.dir, run, task.process, &holder);
        if (!claim || FileExists(PartRowPath(plan.dir, run.run_id, task.process))) {
          if (claim) claim->Release();
          collect.Drop();
          st.left_to_others = true;  // being measured, or measured, by another scheduler
          if (!claim) {
            std::cerr << fmt::format("{:<28} p{} claimed by {}, left to it\n", run.run_id,
                                     task.process, holder.Describe());
          }
          collect.Settle(st);
          continue;
        }
        // The row again, now that the process is claimed and has no part: another scheduler
        // writes a row before it removes the parts, so a part missing because it was merged
        // meanwhile shows here as the row, and the process is not measured twice.
        if (VersionOf(RowPath(plan.dir, run.run_id)) != st.seen) {
          claim->Release();
          collect.Drop();
          collect.TakenByOthers(st);
          collect.Settle(st);
          continue;
        }
        if (!plan.unavailable.empty()) {
          ResultRow row = BaseRow(st.spec);
          row.status = kStatusSkipped;
          row.error = plan.unavailable;
          row.compiler_version = plan.probed_version;
          WriteRow(PartRowPath(plan.dir, run.run_id, task.process), row);
          claim->Release();
          collect.Drop();
          st.failed = true;
          collect.Decided(st);
          tally.unavailable_reasons = plan.unavailable;
          collect.Settle(st);  // a part not ok: the run is decided, its row written now
          continue;
        }
        const size_t slot = static_cast<size_t>(
            std::find(slot_busy.begin(), slot_busy.end(), false) - slot_busy.begin());
        // The run's spec, written once for all its processes (and their reference children).
        if (!st.spec_file) st.spec_file.emplace(st.spec);
        RunningProcess a{task, slot, std::move(claim), {}};
        st.running++;
        a.worker = StartWorker(WorkerCommand(st.spec_file->path(), task.process), run.timeout_s,
                               args.results_dir,
                               plan.slices.empty() ? std::vector<int>{} : plan.slices[slot]);
        slot_busy[slot] = true;
        active.push_back(std::move(a));
      }
      if (active.empty()) break;  // all done, or interrupted between processes

      for (size_t k = 0; k < active.size();) {
        if (std::optional<WorkerOutcome> outcome = PollWorker(active[k].worker)) {
          slot_busy[active[k].slot] = false;
          RunningProcess a = std::move(active[k]);
          active.erase(active.begin() + static_cast<std::ptrdiff_t>(k));
          ended = true;
          clean_up_after_workers();
          // A stop that signals every process of the sweep at once (Slurm's scancel or time limit,
          // a kill of the whole process tree) may end a worker before this loop sees the
          // scheduler's own signal: a worker killed by SIGTERM or SIGINT gets a moment for that
          // signal to arrive, and one that did not end cleanly while the scheduler is asked to
          // stop was stopped, not crashed: no part (resume measures that process again).
          if (!outcome->timed_out &&
              (outcome->signal == SIGTERM || outcome->signal == SIGINT) && !g_interrupt) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
          }
          // A worker that could not write for its storage wrote no row, and gets none: the
          // sweep stops. Others that fail meanwhile may have hit the same full disk: no row
          // either, as on an interrupt.
          const bool no_room = !outcome->timed_out && outcome->exit_code == kExitStorageFailed;
          if (no_room && !storage) {
            storage = StorageStop{fmt::format("the worker of {} p{} could not write: {}",
                                              a.task.state->run->run_id, a.task.process,
                                              WorkerFailure(outcome->log_tail)),
                                  0};
          }
          if ((g_interrupt || storage) && !outcome->timed_out && outcome->exit_code != 0) {
            RemoveStaleTempFiles(PartsDirectory(a.task.state->plan->dir));
            RemoveStaleTempFiles(args.results_dir + "/.cache/reference");
            std::cerr << fmt::format("{} {:<28} p{} stopped (nothing written){}\n",
                                     collect.Counter(), a.task.state->run->run_id, a.task.process,
                                     no_room ? ": its worker could not write" : "");
            a.task.state->running--;
            continue;  // its claim goes with `a`
          }
          collect.Finish(a, *outcome);
        } else {
          ++k;
        }
      }
    } catch (const StorageError& e) {
      // The scheduler's own write (a claim, a part or row it writes, a spec file, a worker's
      // log): nothing half-written, since each write is atomic or removed when it fails.
      if (!storage) storage = StorageStop{e.what(), e.error_number()};
    }
    if (storage && active.empty()) break;
    if ((g_interrupt || storage) && !active.empty()) {
      std::vector<StartedWorker> workers;
      for (const RunningProcess& a : active) workers.push_back(a.worker);
      StopWorkers(workers);
      // No part for a process cut short: resume measures it again. Its temporary files go too.
      for (const Plan& plan : plans) RemoveStaleTempFiles(PartsDirectory(plan.dir));
      RemoveStaleTempFiles(args.results_dir + "/.cache/reference");
      for (const RunningProcess& a : active) {
        std::cerr << fmt::format("{} {:<28} p{} stopped (nothing written)\n", collect.Counter(),
                                 a.task.state->run->run_id, a.task.process);
      }
      active.clear();  // reaped: their claims go with them
      clean_up_after_workers();
      break;
    }
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (const RunState& st : states) left_to_others += !st.finished && st.left_to_others;
  const size_t by_others = static_cast<size_t>(left_to_others + tally.done_by_others);
  const std::string others =
      by_others == 0 ? ""
                     : fmt::format("; other schedulers: {} left to them, {} measured by them",
                                   left_to_others, tally.done_by_others);
  std::string dirs;
  for (const Plan& plan : plans) dirs += (dirs.empty() ? "" : ", ") + plan.dir;
  if (storage) {
    return StopForStorage(
        *storage, args.results_dir,
        fmt::format("{} of {} runs measured now, {} left ({} not ok so far){}; rows in {}",
                    tally.done, states.size(), states.size() - tally.done - by_others,
                    tally.failed, others, dirs));
  }
  if (const int signal = g_interrupt) {
    g_interrupt = 0;
    std::cerr << fmt::format(
        "interrupted by {}: {} of {} runs measured now, {} left ({} not ok so far){}; rows in {}\n"
        "resume with: {}\n",
        signal == SIGINT ? "SIGINT" : "SIGTERM", tally.done, states.size(),
        states.size() - tally.done - by_others, tally.failed, others, dirs, OwnCommandLine());
    return kExitInterrupted + signal;
  }
  std::cerr << fmt::format(
      "done: {} runs, {} not ok, {} measured now ok but invalid{}{}{}; rows in {}\n", grid_runs,
      tally.failed, tally.invalid,
      tally.inconclusive
          ? fmt::format(", {} measured now ok with an inconclusive output check (nothing the "
                        "reference computes near the outputs depends on the input)",
                        tally.inconclusive)
          : "",
      tally.skipped
          ? fmt::format(", {} skipped (this machine cannot run them: {})", tally.skipped,
                        tally.unavailable_reasons.empty() ? "see each row's error"
                                                          : tally.unavailable_reasons)
          : "",
      others, dirs);
  if (const std::string time = collect.TimeSummary(); !time.empty()) {
    std::cerr << "  time: " << time << "\n";
  }
  // What would make the invalid rows valid, most frequent first.
  std::vector<std::pair<int, ValidityRule>> broken;
  for (const auto& [rule, count] : tally.invalid_by_rule) broken.emplace_back(count, rule);
  std::stable_sort(broken.begin(), broken.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [count, rule] : broken) {
    std::cerr << fmt::format("  invalid: {} run{}: {}\n", count, count == 1 ? "" : "s",
                             ValidityAdvice(rule, tally.interval_invalid_threads));
  }
  return tally.failed ? kExitRunsFailed : kExitOk;
}

}  // namespace

// A full or failing disk stops the sweep (exit 3) with what to free and how to resume, wherever
// the write was; within the loop of processes, RunSweep stops its workers first.
int CmdRun(const RunArgs& given) {
  try {
    return RunSweep(given);
  } catch (const StorageError& e) {
    return StopForStorage({e.what(), e.error_number()}, given.results_dir, "");
  }
}

}  // namespace ngraphbench
