#include "ngraphbench/experiments/grid.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/measure/aggregate.h"
#include "ngraphbench/models/torch_export.h"

namespace ngraphbench {

namespace {

std::string Stem(const std::string& path) {
  std::string name = path.substr(path.rfind('/') + 1);
  const size_t dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

// "resnet50" -> resnet, 50; "efficientnet_b2" -> efficientnet, b2;
// "deit_small_patch16_224" -> deit, small.
void SplitArchitectureName(const std::string& name, std::string& network, std::string& size) {
  const size_t underscore = name.find('_');
  if (underscore != std::string::npos) {
    network = name.substr(0, underscore);
    const size_t next = name.find('_', underscore + 1);
    size = name.substr(underscore + 1, next == std::string::npos ? next : next - underscore - 1);
    return;
  }
  const size_t digits = name.find_first_of("0123456789");
  network = name.substr(0, digits);
  size = digits == std::string::npos ? "" : name.substr(digits);
}

std::vector<ModelSpec> Models(const ExperimentConfig& e) {
  std::vector<ModelSpec> models;
  if (!e.models.empty()) {
    for (const auto& m : e.models) {
      ModelSpec spec;
      spec.family = e.family;
      if (e.family == "onnx") {
        spec.onnx_path = m;
        spec.name = Stem(m);
      } else if (e.family == "torch") {
        spec.torch_source = m;
        spec.input_shape = e.input_shape;
        spec.name = TorchModelName(ParseTorchSource(m));
      } else {
        spec.variant = m;
        spec.name = m;
        SplitArchitectureName(m, spec.network, spec.size);
      }
      models.push_back(spec);
    }
    return models;
  }
  const std::vector<int64_t> depths = e.depths.empty() ? std::vector<int64_t>{0} : e.depths;
  for (int64_t width : e.widths) {
    for (int64_t depth : depths) {
      models.push_back(SyntheticSpec(e.family, e.name, width, depth));
    }
  }
  return models;
}

}  // namespace

RunWork WorkOf(const RunSpec& run, double sample_period_ms) {
  RunWork work;
  work.warmup = run.warmup;
  work.repeats = run.repeats;
  work.max_time_s = run.max_time_s;
  work.min_time_s = run.min_time_s;
  work.max_repeats = run.max_repeats;
  work.processes = std::max<int64_t>(1, run.processes);
  work.sample_period_ms = sample_period_ms;
  return work;
}

std::string ServerRunIdSuffix(int64_t streams, const ServerSettings& server) {
  std::string qps = fmt::format("{:g}", server.target_qps);
  std::replace(qps.begin(), qps.end(), '.', 'p');
  return "_server_s" + StreamsName(streams) + (server.find_peak ? "_peak" : "_q" + qps);
}

std::string PrecisionRunIdSuffix(const std::string& precision) {
  if (precision == "fp32") return "";
  if (std::find(kRunIdPrecisions.begin(), kRunIdPrecisions.end(), precision) ==
      kRunIdPrecisions.end()) {
    throw InputError("precision '" + precision +
                     "' has no run id suffix; run ids know fp32, bf16, fp16 and int8");
  }
  return "_" + precision;
}

void SetRunPrecision(std::vector<RunSpec>& runs, const std::string& precision) {
  const std::string suffix = PrecisionRunIdSuffix(precision);
  for (RunSpec& run : runs) run.run_id += suffix;
}

std::string SeedRunId(const std::string& run_id) {
  for (const std::string& precision : kRunIdPrecisions) {
    const std::string suffix = "_" + precision;
    if (run_id.size() > suffix.size() &&
        run_id.compare(run_id.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return run_id.substr(0, run_id.size() - suffix.size());
    }
  }
  return run_id;
}

std::vector<RunSpec> ExpandGrid(const ExperimentConfig& e, bool quick) {
  std::vector<RunSpec> runs;
  std::map<std::string, std::string> run_models;  // run id -> the model that named it
  for (const ModelSpec& model : Models(e)) {
    for (int64_t batch : quick ? e.quick_batch_sizes : e.batch_sizes) {
      RunSpec run;
      // A run id names files and stands on printed command lines: a model file's name may hold
      // anything, so the id keeps only safe characters (the row's `model` keeps the name).
      run.run_id = SafeName(model.name) + "_b" + std::to_string(batch);
      if (e.scenario == kScenarioOffline) run.run_id += "_offline_s" + StreamsName(e.streams);
      if (e.scenario == kScenarioServer) run.run_id += ServerRunIdSuffix(e.streams, e.server);
      run.experiment = e.name;
      run.model = model;
      run.batch_size = batch;
      run.warmup = e.warmup;
      run.repeats = e.repeats;
      run.timeout_s = e.timeout_s;
      run.max_time_s = quick ? e.quick_max_time_s : e.max_time_s;
      run.min_time_s = e.min_time_s;
      run.max_repeats = std::max(e.max_repeats, run.repeats);
      run.stop = e.stop;
      run.ci_rel_target = e.ci_rel_target;
      run.ci_min_repeats = e.ci_min_repeats;
      run.processes = e.processes;
      run.max_processes = std::max(e.max_processes, e.processes);
      run.timing_boundary = e.timing_boundary;
      run.quick = quick;
      run.profile = e.profile;
      run.scenario = e.scenario;
      run.streams = e.streams;
      run.server = e.server;
      run.check = e.check;
      run.validity = e.validity;
      const std::string source = model.onnx_path.empty() ? model.torch_source.empty()
                                                               ? model.name
                                                               : model.torch_source
                                                         : model.onnx_path;
      if (auto [it, added] = run_models.emplace(run.run_id, source); !added) {
        // Two files of one name in different folders, or names that differ only in characters
        // a run id leaves out: one row would overwrite the other.
        throw InputError("experiment '" + e.name + "': models '" + it->second + "' and '" +
                         source + "' would both be run '" + run.run_id +
                         "'; rename one of them (run ids keep letters, digits, '.', '_' and '-')");
      }
      runs.push_back(run);
    }
  }
  return runs;
}

}  // namespace ngraphbench
