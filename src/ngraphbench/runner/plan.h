// Planning a sweep before it runs: what each compiler's runs cost (estimates, shards).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ngraphbench/compilers/options.h"
#include "ngraphbench/experiments/estimate.h"
#include "ngraphbench/experiments/grid.h"
#include "ngraphbench/runner/run.h"

namespace ngraphbench {

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

}  // namespace ngraphbench
