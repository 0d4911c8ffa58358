// The subcommands of `ngraphbench`. main.cc parses the command line into these structs; each
// function returns the process exit code and throws InputError for bad input (exit code 2).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/experiments/config.h"
#include "ngraphbench/experiments/estimate.h"
#include "ngraphbench/experiments/grid.h"
#include "ngraphbench/experiments/resolve.h"
#include "ngraphbench/results/row.h"

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
  // Workers running at once, each pinned to its own slice of the CPUs (scheduler.cc).
  int jobs = 1;
  // With jobs > 1: allow slices that together need more CPUs than the process may use (they
  // then overlap) instead of refusing.
  bool oversubscribe = false;
  // What `threads: 0` (every core) means: the size of the worker's slice of the CPUs, which the
  // scheduler hands each worker (--cores) so that both resolve the same config, and so the same
  // config_hash. 0: AvailableCores(), as without --jobs.
  int cores = 0;
};

struct WorkerArgs {
  RunArgs run;
  std::string run_id;
  // Set for the output check's reference child: run the model once with this compiler and
  // write its outputs to reference_out (measure/check.h's tensor file), nothing else.
  std::string reference_compiler, reference_out;
  // The index of this worker among the run's processes: it measures its share of the timed runs
  // and writes them as the run's part `process` (results/parts.h). -1: the whole run in this
  // one process, written as its row (a worker started by hand).
  int process = -1;
};

// results/<device>/<compiler>
std::string RunDirectory(const RunArgs& args);
// The command line that reruns one run in a worker, for messages and the scheduler.
std::vector<std::string> WorkerCommand(const WorkerArgs& args);

int CmdRun(const RunArgs& args);
int CmdWorker(const WorkerArgs& args);
// Prints the compiler's SDK version; with `configs_dir`, a second line: kProbeAvailable, or
// kProbeUnavailable and why this machine cannot run the compiler's config (Compiler::Unavailable).
int CmdProbe(const std::string& compiler, const std::string& configs_dir);
int CmdExpand(const GridArgs& args);
// `expand --estimate` (each run's expected wall time and the total, experiments/estimate.h)
// and `expand --shard i/N` (the runs of that shard), for `args.compiler` on `args.device`.
int CmdExpandPlan(const RunArgs& args, bool estimate);

// Multiply-accumulates of one sample of each model of `runs` (by model name), from
// <results_dir>/.cache/macs/ or built once and kept there.
std::map<std::string, double> ModelMacs(const std::vector<RunSpec>& runs,
                                        const std::string& results_dir);
// What EstimateRun needs for `args.compiler` on `args.device`; with `use_measured`, the rows in
// results/<device>/<compiler>/ too. Without them (shards) the estimate depends only on the grid
// and the config, so every process of a sweep, started at any time, computes the same.
EstimateInputs LoadEstimateInputs(const std::vector<RunSpec>& runs, const RunArgs& args,
                                  const CompilerConfig& config, bool use_measured);
// "H:MM:SS".
std::string FormatHours(double seconds);
int CmdList(bool experiments, bool models, bool compilers, const std::string& configs_dir);
int CmdListExperimentNames(const std::string& configs_dir);
int CmdExport(const GridArgs& args, const std::string& run_id, const std::string& out_path,
              const std::string& results_dir);

// The folder, under <results_dir>/.tmp/, where a worker (or its reference child) writes a model
// too large for one protobuf as an .onnx file with external data for its compiler:
// `onnx-<host>-<pid>-XXXXXX`, `pid` the writing process's. It removes the folder when done; one
// left by a killed process is removed by the scheduler (that of a dead pid of this host).
constexpr const char* kWorkerModelPrefix = "onnx-";

// The identity and provenance columns of a run, before anything is measured.
ResultRow BaseRow(const RunSpec& run, const RunArgs& args, const CompilerConfig& config);

// Path of the running binary.
std::string SelfExe();

inline constexpr const char* kProbeAvailable = "available";
inline constexpr const char* kProbeUnavailable = "unavailable: ";

struct ProbeResult {
  std::string version;      // the SDK's version (Compiler::Version)
  std::string unavailable;  // why this machine cannot run the config; empty when it can
};
// Asks a probe process (the scheduler never loads a vendor SDK) about `compiler` with its config
// from `configs_dir`. Both fields are empty when the probe itself fails: the workers then report
// what fails.
ProbeResult Probe(const std::string& compiler, const std::string& configs_dir);

// In a forked child: replaces the process with argv (argv[0] a path), or says why it cannot on
// stderr and exits 127.
[[noreturn]] void ExecOrExit(const std::vector<std::string>& argv);

}  // namespace ngraphbench
