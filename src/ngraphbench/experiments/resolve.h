// From what the command line names (an experiment, overrides, a configs folder) to what runs: the
// experiment validated, its grid of runs, and a compiler's config. Shared by the runner's plan
// (runner/plan.h; its workers read the spec it resolved, runner/spec.h), expand and export.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/experiments/config.h"
#include "ngraphbench/experiments/grid.h"

namespace ngraphbench {

// What selects a grid of runs: shared by run, a worker started by hand, expand and export.
struct GridArgs {
  std::string experiment;  // a name in experiments.yaml, a path to an .onnx file, or a PyTorch
                           // model: timm:<name> or <file>.py:<function>
  std::string input_shape;  // a PyTorch model's input without the batch dimension: "3,224,224"
  bool quick = false;
  std::string configs_dir = "configs";
  std::optional<int64_t> warmup, repeats;  // override the experiment's settings
  std::optional<double> timeout_s;
  std::optional<std::string> stop;  // overrides the experiment's `stop` rule
  std::optional<int64_t> processes;  // overrides the experiment's `processes`
  std::optional<std::string> scenario;  // overrides the experiment's `scenario`
  bool profile = false;  // --profile: a profiling pass in every run (the experiment's `profile`)
  std::vector<std::string> settings;  // --set KEY=VALUE, in order (experiments/config.h)
};

// The experiment `args` names, with command-line overrides applied, validated.
ExperimentConfig ResolveExperiment(const GridArgs& args);
// The runs of that experiment.
std::vector<RunSpec> ResolveGrid(const GridArgs& args);
// configs/<compiler>.yaml validated against the registry, or the defaults if it does not exist,
// with the compiler keys of `settings` (--set) over it; threads 0 resolves to `all_cores`
// (AvailableCores() when 0).
CompilerConfig ResolveCompilerConfig(const std::string& configs_dir, const CompilerInfo& info,
                                     int all_cores = 0,
                                     const std::vector<std::string>& settings = {});

}  // namespace ngraphbench
