// The launch stage: starting the runner's processes (this binary again, as a worker or a
// reference child, with the run's spec file), each worker in its own process group and, with
// --jobs, on its own slice of the CPUs; waiting for them under their deadlines; stopping them on
// an interrupt; and removing what killed ones left in <results>/.tmp/.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/runner/run.h"
#include "ngraphbench/runner/spec.h"

namespace ngraphbench {

// What the runner's processes write in <results_dir>/.tmp/ is named
// `<prefix><host>-<pid>-XXXXXX<suffix>` (core/process.h), `pid` the writing process's, so that
// the next `run` on this host tells what a killed process left from what a live one uses. This
// returns the name to hand to mkstemps or mkdtemp, with the folder made (they report a failure
// to make it).
std::string TempTemplate(const std::string& results_dir, const std::string& prefix,
                         const std::string& suffix);

// The folder, under <results_dir>/.tmp/, where a worker (or its reference child) writes a model
// too large for one protobuf as an .onnx file with external data for its compiler:
// `onnx-<host>-<pid>-XXXXXX`, `pid` the writing process's. It removes the folder when done; one
// left by a killed process is removed by the scheduler (that of a dead pid of this host).
constexpr const char* kWorkerModelPrefix = "onnx-";

// A run's spec (spec.h) in a file of its own, <results_dir>/.tmp/spec-<host>-<pid>-XXXXXX.json,
// removed when this goes: the scheduler keeps one per run while the run's processes may start,
// a worker started by hand one for its reference child. One that a killed process left is
// removed by RemoveStaleSpecFiles.
constexpr const char* kSpecFilePrefix = "spec-";
class SpecFile {
 public:
  // Throws EnvironmentError when the file cannot be written.
  explicit SpecFile(const ResolvedRun& spec);
  SpecFile(SpecFile&& other) noexcept;
  SpecFile& operator=(SpecFile&& other) = delete;
  SpecFile(const SpecFile&) = delete;
  SpecFile& operator=(const SpecFile&) = delete;
  ~SpecFile();

  const std::string& path() const { return path_; }

 private:
  std::string path_;  // empty once moved from
};

// Path of the running binary.
std::string SelfExe();

// The command line of process `process` of the run that `spec_path` specifies (spec.h).
std::vector<std::string> WorkerCommand(const std::string& spec_path, int process);
// The command line of a worker's reference child: the run of `spec_path` through `reference`,
// its outputs on the run's inputs and on the output check's second draw written to `out`; with
// `probe`, those of the graph's intermediate candidates instead (graph/intermediate.h).
std::vector<std::string> ReferenceCommand(const std::string& spec_path,
                                          const std::string& reference, const std::string& out,
                                          bool probe = false);
// The command line that reruns process `process` of run `run_id` of `args` by hand (the
// `reproduce:` line): the worker then resolves the run from the YAML (ResolveRunFromYaml,
// plan.h), as `run` did.
std::vector<std::string> ReproduceCommand(const RunArgs& args, const std::string& run_id,
                                          int process);

// The CPUs of each of `jobs` workers with `threads` each: slot k gets allowed[k*threads ..
// (k+1)*threads), wrapping around (so overlapping) when jobs x threads exceeds what there is.
std::vector<std::vector<int>> CpuSlices(const std::vector<int>& allowed, int jobs, int threads);

// A worker that was started and not yet reaped.
struct StartedWorker {
  pid_t pid = 0;
  std::string log_path;
  std::chrono::steady_clock::time_point start, deadline;
};

// How a reaped worker ended.
struct WorkerOutcome {
  pid_t pid = 0;
  bool interrupted = false;  // stopped because the scheduler was asked to stop
  bool timed_out = false;
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal killed it
  std::string log_tail;
};

// Starts `argv` as a worker with `timeout_s` to run. Its log lives in <results_dir>/.tmp/, not
// /tmp: a sweep killed before the unlink leaves it inside its own results tree instead of piling
// up in the machine's /tmp. Its name holds the scheduler's host and pid,
// `worker-<host>-<pid>-XXXXXX.log`, so that the next `run` on this host can tell a leftover from
// the log of another scheduler's live worker. With `cpus`, the worker may run only there (its
// slice with --jobs): set before exec, so every thread it and its SDK start inherits the mask.
StartedWorker StartWorker(const std::vector<std::string>& argv, double timeout_s,
                          const std::string& results_dir, const std::vector<int>& cpus);
// The outcome once `worker` has ended, or killed (with its process group) past its deadline;
// nullopt while it runs. Its log is read and removed then. What it left running or in the tree
// is CleanUpAfterWorkers's.
std::optional<WorkerOutcome> PollWorker(const StartedWorker& worker);
// On an interrupt: every worker's process group (its reference child, a compile helper) gets
// SIGTERM, and SIGKILL after one grace second shared by all.
std::vector<WorkerOutcome> StopWorkers(const std::vector<StartedWorker>& workers);

// Makes this process the subreaper of its descendants (PR_SET_CHILD_SUBREAPER): a process whose
// parent dies is then reparented to it rather than to init, so that one that left its process
// group and session (setsid, Python's start_new_session=True), which no kill of a process group
// reaches, still comes back to it to be ended. The scheduler and every worker call it first.
void BecomeSubreaper();

// Ends this process's children (SIGKILL, then reaped by pid), except the `keep_count` pids in
// `keep`, until none is left: with BecomeSubreaper, the children of a process ended here come
// back as its children, so whole trees go. Gives up on what has not died after about 5 s (a
// process stuck in the kernel). Returns how many it ended: a child that was ending already (a
// zombie, one in its exit, or one with a SIGKILL pending, as after a kill of its process group)
// is reaped but not counted.
// Only async-signal-safe system calls, no allocation: a worker calls it from its signal handlers.
int KillChildren(const pid_t* keep, size_t keep_count);

// After workers of the scheduler ended (reaped: done, timed out, crashed or stopped): ends what
// they left running (KillChildren: every child that is not one of the `live` workers is an
// orphan of theirs), then removes what they or their children left in the results tree
// (RemoveStaleWorkerModels, RemoveStaleCacheBuilds). Returns how many processes it ended.
int CleanUpAfterWorkers(const std::string& results_dir, const std::vector<pid_t>& live);

// Removes the worker logs in <results_dir>/.tmp/ of schedulers of this host that are gone (a
// SIGKILL leaves one behind); returns how many. Another host's logs are left to that host, and
// logs named before names held a host (`ngraphbench-worker-*`) go once a day old.
int RemoveStaleWorkerLogs(const std::string& results_dir);
// Removes the run specifications (spec.h) in <results_dir>/.tmp/ of processes of this host that
// are gone: a scheduler (or a worker started by hand) killed before it removed them. Returns how
// many.
int RemoveStaleSpecFiles(const std::string& results_dir);
// Removes the model folders (kWorkerModelPrefix) in <results_dir>/.tmp/ of processes of this
// host that are gone: a worker or reference child killed (timeout, signal, out of memory) before
// it removed its .onnx file and the weights beside it, which may take gigabytes. Returns how many.
int RemoveStaleWorkerModels(const std::string& results_dir);
// Removes the cache entries being written (results/cache_entry.h's CacheEntryBuild,
// `.build-<host>-<pid>-XXXXXX` in each folder of <results_dir>/.cache/: torch exports, tvm and
// inductor builds) of processes of this host that are gone, and the export folders that older
// binaries named `.export-<pid>-XXXXXX` in .cache/torch/. Returns how many.
int RemoveStaleCacheBuilds(const std::string& results_dir);

}  // namespace ngraphbench
