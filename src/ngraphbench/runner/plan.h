// The plan stage of a sweep: every compiler's settings and runs validated before anything runs
// (MakePlan), the runs set against the rows and parts already on disk (Resume), and the queue of
// the processes to measure (QueueProcesses). Also what the runs cost, for shards and estimates.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/compilers/options.h"
#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/experiments/estimate.h"
#include "ngraphbench/experiments/grid.h"
#include "ngraphbench/runner/claim.h"
#include "ngraphbench/runner/launch.h"
#include "ngraphbench/runner/parts.h"
#include "ngraphbench/runner/run.h"
#include "ngraphbench/runner/spec.h"

namespace ngraphbench {

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
  ResolvedRun spec;                  // what its workers read (its config_hash among it)
  // The spec's file while processes of the run may start here (written at the first, removed
  // once none is queued or running).
  std::optional<SpecFile> spec_file;
  std::optional<FileVersion> seen;   // the row file as the scan saw it
  int next_process = 0;              // the next process index this scheduler may hand out
  int queued = 0, running = 0;       // its processes waiting and running here
  bool failed = false;               // a process ended not ok: none is started after it
  bool dropped = false;              // decided: its queued processes left the progress count
  bool left_to_others = false;       // a process of it is another scheduler's
  bool finished = false;             // its row is written, here or by another scheduler
};

// One process of one run.
struct Task {
  RunState* state = nullptr;
  int process = 0;
};

// A compiler's settings for a sweep, resolved once: its config, `threads: auto` and `0` taken
// from the CPUs one worker gets (an equal share of `allowed`, the CPUs this process may use,
// under --jobs; every one of them otherwise), and the grid's runs with their worker timeouts (a
// run that tunes gets the tuning's cap on top of timeout_s). The plan, a worker started by hand
// (a reproduce: line), `expand`, `plan-budget` and `--budget` take their settings from here, and
// a probe or reproduce: line gets the resolved threads pinned (PinnedSettings).
struct SweepSettings {
  const CompilerInfo* info = nullptr;
  CompilerConfig config;
  std::vector<RunSpec> runs;
};
SweepSettings ResolveSweepSettings(const RunArgs& args, const std::string& compiler,
                                   const std::vector<int>& allowed);

// `settings` (the --set list) with `config`'s resolved threads pinned for its compiler, so that
// a child process started with them resolves the same threads whatever CPUs it may use.
std::vector<std::string> PinnedSettings(const std::vector<std::string>& settings,
                                        const CompilerConfig& config);

// The runs of shard `args.shard` of `runs`, balanced by the static estimate of `config` (no
// measured rows) counted at one thread: every shard of a sweep, started at any time on a node of
// any size, computes the same partition. Its estimate and the grid's into *shard_s and *total_s
// when given.
std::vector<RunSpec> ShardRuns(const std::vector<RunSpec>& runs, const RunArgs& args,
                               const CompilerConfig& config, double* shard_s, double* total_s);

// Validates everything about one compiler of the sweep before anything runs; `allowed` are the
// CPUs this process may use.
Plan MakePlan(const RunArgs& given, const std::string& compiler, const std::vector<int>& allowed);

// Resume: a row whose config_hash is the run's is kept (rerun with --retry-failed when not ok);
// every other run of `plans` gets a RunState in `states`, and the ok parts of an interrupted
// sweep stay and count as measured. Rows and parts with another config_hash, or unreadable, stop
// the sweep (InputError listing them) unless `replace_changed`: they are then moved to
// <dir>/.replaced/<UTC time>/ and measured again.
void Resume(std::deque<Plan>& plans, bool replace_changed, std::deque<RunState>& states);

// The ok parts, and whether one is not ok, of a run's parts on disk with the run's settings.
struct PartsOnDisk {
  std::vector<Part> parts;  // in process order
  int ok = 0;
  bool failed = false;
};
PartsOnDisk ReadParts(const RunState& st);

// How much of the sweep an interrupted one had measured already.
struct Resumed {
  size_t runs = 0, parts = 0;
};
// The fewest runs whose processes alternate at a time (QueueProcesses): 8 a job. A run's
// processes then end within minutes of each other instead of a whole sweep apart: on the 2-core
// VM the medians of one run's processes 30 minutes or more apart differed more than those under
// 10 minutes apart in 77 % of the traces' runs (sd of the log-ratios 5.7 % against 4.5 %).
size_t QueueWindow(int jobs);
// The processes to measure: each run's missing ones (0 .. processes - 1, less the parts on
// disk), window by window, and in rounds within a window: the first missing process of each of
// its runs, then the second, ... so that the processes of different runs, and of different
// compilers, alternate in time. A window is whole models (every compiler's runs of a model, at
// every batch size and scenario: the runs analyze compares, so that their processes are paired
// by pass), taken in the order of their first run and joined until it has `window` runs or more
// (the last window, if shorter, joins the one before). Counts each run in its plan's `todo`.
std::deque<Task> QueueProcesses(std::deque<RunState>& states, size_t window, Resumed* resumed);
// Queues a run's next process (stop ci) `window` - 1 processes from the front, or at the end of
// a shorter queue: it alternates with the runs measured beside it, not after the whole sweep;
// and never before a lower process of a run of the same model still queued, so that the model's
// runs stay paired by pass (ProcessesPairedInTime) whichever of them needs more processes.
void QueueAnotherProcess(std::deque<Task>& queue, const Task& task, size_t window);

// The spec of run `run_id` of `args.experiment` for `args.compiler`, resolved from the YAML as
// MakePlan resolves it: the form of a worker started by hand. The `reproduce:` line of a failed
// process names the experiment, not the spec's file, because it must work after the sweep
// ended, when the scheduler has removed the file; with the YAML unchanged it resolves the same
// run, config and config_hash (`args.jobs` says what `threads: 0` meant), and with an edited
// YAML what the user now asks for. Throws InputError when the run is not in the experiment.
ResolvedRun ResolveRunFromYaml(const RunArgs& args, const std::string& run_id);

// What the estimate needs of a model: multiply-accumulates of one sample, its kernels
// (DistinctKernels, graph/kernels.h) at batch 1, and its graph's nodes (what a compile's time
// grows with).
struct ModelFacts {
  double macs = 0;
  std::vector<uint64_t> kernels;
  int64_t nodes = 0;
};
// The facts of each model of `runs` (by model name), from <results_dir>/.cache/macs/ or built
// once and kept there; none for a model given as PyTorch code (built by the worker only).
std::map<std::string, ModelFacts> LoadModelFacts(const std::vector<RunSpec>& runs,
                                                 const std::string& results_dir);
// What EstimateRun needs for `args.compiler` on `args.device`; with `use_measured`, the rows in
// results/<device>/<compiler>/ too. Without them (shards) the estimate depends only on the grid
// and the config, so every process of a sweep, started at any time, computes the same.
EstimateInputs LoadEstimateInputs(const std::vector<RunSpec>& runs, const RunArgs& args,
                                  const CompilerConfig& config, bool use_measured);
// "H:MM:SS".
std::string FormatHours(double seconds);

}  // namespace ngraphbench
