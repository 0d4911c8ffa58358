#include "ngraphbench/experiments/resolve.h"

#include <fmt/core.h>

#include <algorithm>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/graph/onnx_io.h"
#include "ngraphbench/models/torch_export.h"
#include "ngraphbench/models/zoo.h"

namespace ngraphbench {

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

ExperimentConfig ResolveExperiment(const GridArgs& args) {
  const std::string experiments_path = args.configs_dir + "/experiments.yaml";
  ExperimentsFile file = LoadExperiments(experiments_path);
  ExperimentConfig e;
  if (EndsWith(args.experiment, ".onnx")) {
    // An external model named on the command line: one-model experiment with the defaults.
    // Its file is checked below, with every external model.
    e = file.defaults;
    e.name = "onnx";
    e.family = "onnx";
    e.description = "external model " + args.experiment;
    e.models = {args.experiment};
  } else if (IsTorchSource(args.experiment)) {
    // A model given as PyTorch code: a one-model experiment with the defaults.
    e = file.defaults;
    e.name = e.family = "torch";
    e.description = "PyTorch model " + args.experiment;
    e.models = {args.experiment};
    if (args.input_shape.empty()) {
      throw InputError("'" + args.experiment +
                       "' needs --input-shape: its input without the batch dimension, e.g. "
                       "--input-shape 3,224,224");
    }
    e.input_shape = ParseInputShape(args.input_shape);
  } else {
    e = file.Find(args.experiment);
  }
  if (!args.input_shape.empty() && !IsTorchSource(args.experiment)) {
    throw InputError("--input-shape applies to PyTorch models named on the command line "
                     "(timm:<name>, <file>.py:<function>) only; '" + args.experiment +
                     "' is not one (an experiment of family torch sets input_shape in its YAML)");
  }
  // --set over the YAML, then the named flags (--warmup, --repeats ...) over both.
  ApplyExperimentSettings(args.settings, e);
  if (args.warmup) e.warmup = *args.warmup;
  if (args.repeats) {
    if (*args.repeats < 1) throw InputError("--repeats must be >= 1");
    e.repeats = *args.repeats;
  }
  if (args.stop) {
    if (*args.stop != "auto" && *args.stop != "fixed" && *args.stop != "ci") {
      throw InputError("--stop is '" + *args.stop + "'; allowed: auto, fixed, ci");
    }
    e.stop = *args.stop;
  }
  if (args.processes) {
    if (*args.processes < 1 || *args.processes > 1000) {
      throw InputError(fmt::format("--processes is {}; it must be 1 to 1000 (worker processes "
                                   "that share a run's timed runs)",
                                   *args.processes));
    }
    e.processes = *args.processes;
    e.max_processes = std::max(e.max_processes, e.processes);
  }
  if (args.profile) e.profile = true;
  if (args.scenario) {
    CheckScenarioName(*args.scenario, "--scenario");
    e.scenario = *args.scenario;
  }
  if (e.scenario == kScenarioServer) {
    // One worker process: one load generator, whose queries one percentile judges, and
    // find_peak's steps each depend on the last. The processes rule of the verdict goes with
    // it (the percentile against the bound is what a server run quotes).
    if (args.processes && *args.processes != 1) {
      throw InputError(fmt::format("--processes is {}, and scenario server runs in one worker "
                                   "process (one load generator; find_peak's steps depend on "
                                   "each other); leave --processes out",
                                   *args.processes));
    }
    e.processes = e.max_processes = 1;
    e.validity.min_processes = 1;
  }
  // auto: processes are added while the interval is wider than the target where the run quotes
  // a median latency (single_stream); offline and server quote what the whole window served.
  // --processes K asks for exactly K processes: auto then adds none.
  if (e.stop == "auto") {
    e.stop = e.scenario == kScenarioSingleStream && !args.processes ? "ci" : "fixed";
  }
  CheckScenarioSettings(e, "experiment '" + e.name + "'");
  if (args.timeout_s) {
    if (!(*args.timeout_s > 0)) throw InputError("--timeout must be > 0 seconds");
    e.timeout_s = *args.timeout_s;
  }
  if (e.family == "onnx") {
    // Check every external model now, so a bad file stops the run before anything is written.
    for (const auto& path : e.models) {
      if (!FileExists(path)) throw InputError("ONNX file '" + path + "' does not exist");
      const int64_t fixed = OnnxFixedBatchSize(path);
      if (fixed > 0 && e.models.size() == 1) {
        // A model exported at one batch size runs at that size only.
        e.batch_sizes = e.quick_batch_sizes = {fixed};
      }
      // As the worker will build it (models/zoo.cc): imported, its operators checked, and its
      // working set estimated at the grid's largest batch size, the one that needs the most.
      ModelSpec spec;
      spec.family = "onnx";
      spec.name = spec.onnx_path = path;
      std::vector<int64_t> sizes = e.batch_sizes;
      sizes.insert(sizes.end(), e.quick_batch_sizes.begin(), e.quick_batch_sizes.end());
      BuildModel(spec, *std::max_element(sizes.begin(), sizes.end()));
    }
  }
  if (e.family == "torch") {
    // Names and files checked now; the export (and its errors, as error rows) is the worker's.
    for (const auto& model : e.models) ParseTorchSource(model);
  }
  return e;
}

std::vector<RunSpec> ResolveGrid(const GridArgs& args) {
  return ExpandGrid(ResolveExperiment(args), args.quick);
}

CompilerConfig ResolveCompilerConfig(const std::string& configs_dir, const CompilerInfo& info,
                                     int all_cores, const std::vector<std::string>& settings) {
  const std::string path = configs_dir + "/" + info.name + ".yaml";
  if (FileExists(path)) return LoadCompilerConfig(path, info, all_cores, settings);
  CompilerConfig c = ParseCompilerConfig("", path, info, all_cores, settings);
  c.source = "(defaults)";
  return c;
}

}  // namespace ngraphbench
