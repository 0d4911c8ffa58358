// The runner's entry points, which the command line (cli/main.cc) calls: `run` (the scheduler,
// scheduler.cc), `worker` (one process of one run, worker.cc) and `probe` (probe.h). Each returns
// the process exit code and throws InputError for bad input (exit code 2).
#pragma once

#include <string>

#include "ngraphbench/experiments/resolve.h"

namespace ngraphbench {

struct RunArgs {
  GridArgs grid;
  std::string compiler;
  std::string device = "local";
  std::string results_dir = "results";
  bool retry_failed = false;
  // Rows measured with other settings (another config_hash) are moved to
  // <dir>/.replaced/<UTC time>/ and measured again, instead of stopping the run.
  bool replace_changed = false;
  int sample_ms = 10;  // sampler period; 0 = no sampler thread
  // "i/N": only part i of N of the grid (ShardIndices), balanced by the static estimate.
  std::string shard;
  // "ID[,ID...]" or "@FILE": only these runs of the grid (runner/budget.h).
  std::string runs;
  // A duration ("12h", "1h30m"): only the runs left to measure that fit it, in the order that
  // gives every compiler and curve results first (experiments/budget.h).
  std::string budget;
  // Workers running at once, each pinned to its own slice of the CPUs (launch.h).
  int jobs = 1;
  // With jobs > 1: allow slices that together need more CPUs than the process may use (they
  // then overlap) instead of refusing.
  bool oversubscribe = false;
  // --check: every check of the input, the configs and the results tree, then exit 0 with
  // nothing measured or written.
  bool check_only = false;
};

// `ngraphbench worker`: one process of one run, in one of two forms.
struct WorkerArgs {
  // The run's resolved specification (runner/spec.h): how the scheduler starts its workers, and
  // a worker its reference child.
  std::string spec_path;
  // Without one, by hand (the `reproduce:` line the scheduler prints for a process that
  // failed): the run `run_id` of `run`'s experiment and compiler, resolved from the YAML as
  // `run` resolves it (ResolveRunFromYaml, plan.h; `run.jobs` says what `threads: 0` means).
  RunArgs run;
  std::string run_id;
  // Set for the output check's reference child: run the model with this compiler on the run's
  // inputs and on the check's second draw, and write both outputs to reference_out
  // (core/tensor.h's tensor file), nothing else; with reference_probe, the outputs of the
  // graph's intermediate candidates (graph/intermediate.h) instead of the model's.
  std::string reference_compiler, reference_out;
  bool reference_probe = false;
  // The index of this worker among the run's processes: it measures its share of the timed runs
  // and writes them as the run's part `process` (runner/parts.h). -1: the whole run in this
  // one process, written as its row (a worker started by hand).
  int process = -1;
};

// <results_dir>/<device>/<compiler>, where a compiler's rows go. Throws InputError for a device
// label that is not one plain path component.
std::string RunDirectory(const std::string& results_dir, const std::string& device,
                         const std::string& compiler);
inline std::string RunDirectory(const RunArgs& args) {
  return RunDirectory(args.results_dir, args.device, args.compiler);
}

int CmdRun(const RunArgs& args);
int CmdWorker(const WorkerArgs& args);
// Prints the compiler's SDK version; with `configs_dir`, a second line: kProbeAvailable, or
// kProbeUnavailable and why this machine cannot run the compiler's config (Compiler::Unavailable).
int CmdProbe(const std::string& compiler, const std::string& configs_dir,
             const std::vector<std::string>& settings);

}  // namespace ngraphbench
