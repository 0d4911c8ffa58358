// The subcommands of `ngraphbench` that are not the runner (runner/run.h): dry runs, listings and
// exports. main.cc parses the command line into these arguments; each function returns the
// process exit code and throws InputError for bad input (exit code 2).
#pragma once

#include <string>

#include "ngraphbench/experiments/resolve.h"
#include "ngraphbench/runner/run.h"

namespace ngraphbench {

int CmdExpand(const GridArgs& args);
// `expand --estimate` (each run's expected wall time and the total, experiments/estimate.h)
// and `expand --shard i/N` (the runs of that shard), for `args.compiler` on `args.device`.
int CmdExpandPlan(const RunArgs& args, bool estimate);
int CmdList(bool experiments, bool models, bool compilers, const std::string& configs_dir);
int CmdListExperimentNames(const std::string& configs_dir);
int CmdExport(const GridArgs& args, const std::string& run_id, const std::string& out_path,
              const std::string& results_dir);
// `profile <experiment> <run_id> <compiler>`: the `top` kernels of the run's profile
// (<results>/<device>/<compiler>/<run_id>.profile.csv), its summary and its time by operator
// class (analysis/profiles.h).
int CmdProfile(const std::string& experiment, const std::string& run_id,
               const std::string& compiler, const std::string& device,
               const std::string& results_dir, size_t top);

}  // namespace ngraphbench
