// experiments.yaml (ParseExperiments): the experiments, their run settings, grids and scenarios.
// --set is settings.cc, a compiler's config compiler_config.cc.
#include "ngraphbench/experiments/config.h"

#include <yaml-cpp/yaml.h>

#include <fmt/core.h>

#include <algorithm>
#include <cstdint>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/core/yaml.h"
#include "ngraphbench/experiments/config_internal.h"
#include "ngraphbench/graph/working_set.h"  // kMaxBatchSize, shared with model inputs
#include "ngraphbench/models/synthetic.h"
#include "ngraphbench/models/torch_export.h"
#include "ngraphbench/models/zoo.h"

namespace ngraphbench {

namespace {

// Ceilings far above any real run, low enough that a typo (or a fuzzer) cannot wrap an int or
// ask for terabytes; each message states its ceiling.
constexpr int64_t kMaxWidth = 65536;
constexpr int64_t kMaxDepth = 1024;
constexpr uint64_t kMaxRuns = 100'000;  // runs in one experiment's grid
constexpr int64_t kMaxRepeats = 10'000'000;  // repeats, warmup, max_repeats and the like
constexpr int64_t kMaxProcesses = 1000;      // processes, max_processes
constexpr int64_t kMaxStreams = 1024;        // offline: requests in flight, each a thread
constexpr double kMaxTargetQps = 100'000;     // server: queries per second

}  // namespace

void ApplyRunSettings(const YAML::Node& map, const Where& where, ExperimentConfig& e) {
  if (map["batch_sizes"]) {
    e.batch_sizes = ReadPositiveIntList(map["batch_sizes"], where / "batch_sizes", kMaxBatchSize);
  }
  if (map["quick_batch_sizes"]) {
    e.quick_batch_sizes =
        ReadPositiveIntList(map["quick_batch_sizes"], where / "quick_batch_sizes", kMaxBatchSize);
  }
  if (map["warmup"]) e.warmup = ReadInt(map["warmup"], where / "warmup", 0, kMaxRepeats);
  if (map["repeats"]) e.repeats = ReadInt(map["repeats"], where / "repeats", 1, kMaxRepeats);
  if (map["timeout_s"]) e.timeout_s = ReadPositive(map["timeout_s"], where / "timeout_s");
  if (map["max_time_s"]) e.max_time_s = ReadNonNegative(map["max_time_s"], where / "max_time_s");
  if (map["quick_max_time_s"]) {
    e.quick_max_time_s = ReadNonNegative(map["quick_max_time_s"], where / "quick_max_time_s");
  }
  if (map["timing_boundary"]) {
    e.timing_boundary =
        ReadOneOf(map["timing_boundary"], where / "timing_boundary", {"compute", "end_to_end"});
  }
  if (map["min_time_s"]) e.min_time_s = ReadNonNegative(map["min_time_s"], where / "min_time_s");
  if (map["max_repeats"]) {
    e.max_repeats = ReadInt(map["max_repeats"], where / "max_repeats", 1, kMaxRepeats);
  }
  if (map["stop"]) e.stop = ReadOneOf(map["stop"], where / "stop", {"auto", "fixed", "ci"});
  if (map["ci_rel_target"]) {
    e.ci_rel_target = ReadPositive(map["ci_rel_target"], where / "ci_rel_target");
  }
  if (map["ci_min_repeats"]) {
    e.ci_min_repeats = ReadInt(map["ci_min_repeats"], where / "ci_min_repeats", 6, kMaxRepeats);
  }
  if (map["processes"]) {
    e.processes = ReadInt(map["processes"], where / "processes", 1, kMaxProcesses);
  }
  if (map["max_processes"]) {
    e.max_processes = ReadInt(map["max_processes"], where / "max_processes", 1, kMaxProcesses);
  }
  if (map["scenario"]) {
    const Where w = where / "scenario";
    e.scenario = ReadString(map["scenario"], w, /*may_be_empty=*/true);
    try {
      CheckScenarioName(e.scenario, "");
    } catch (const InputError& error) {
      w.Fail(error.what());
    }
  }
  if (const YAML::Node streams = map["streams"]) {
    const Where w = where / "streams";
    int64_t n = 0;
    if (streams.IsScalar() && streams.Scalar() == "auto") {
      e.streams = 0;
    } else if (!streams.IsScalar() || !YAML::convert<int64_t>::decode(streams, n)) {
      w.Fail("must be a positive integer or auto, got '" + Shown(streams) + "'");
    } else {
      e.streams = ReadInt(streams, w, 1, kMaxStreams);
    }
  }
  ServerSettings& server = e.server;
  if (map["target_qps"]) {
    server.target_qps = ReadPositive(map["target_qps"], where / "target_qps");
    if (server.target_qps > kMaxTargetQps) {
      (where / "target_qps")
          .Fail(fmt::format("must be <= {:g} (the queue of a run far above capacity is held in "
                            "memory), got {:g}",
                            kMaxTargetQps, server.target_qps));
    }
  }
  if (map["latency_bound_ms"]) {
    server.latency_bound_ms = ReadPositive(map["latency_bound_ms"], where / "latency_bound_ms");
  }
  if (map["latency_percentile"]) {
    const Where w = where / "latency_percentile";
    server.latency_percentile = ReadPositive(map["latency_percentile"], w);
    if (!(server.latency_percentile < 100)) {
      w.Fail(fmt::format("must be < 100 (e.g. 99 for p99), got {:g}", server.latency_percentile));
    }
  }
  if (map["find_peak"]) server.find_peak = ReadBool(map["find_peak"], where / "find_peak");
  if (map["arrival_seed"]) {
    server.arrival_seed = static_cast<uint64_t>(
        ReadInt(map["arrival_seed"], where / "arrival_seed", 0, INT64_MAX));
  }
  if (map["server_min_duration_s"]) {
    server.min_duration_s =
        ReadNonNegative(map["server_min_duration_s"], where / "server_min_duration_s");
  }
  if (map["check"]) {
    const std::string v = ReadOneOf(map["check"], where / "check", {"on", "off"});
    e.check.enabled = v == "on";
  }
  if (map["profile"]) {
    e.profile = ReadOneOf(map["profile"], where / "profile", {"on", "off"}) == "on";
  }
  if (const YAML::Node tol = map["check_tolerance"]) {
    const Where w = where / "check_tolerance";
    CheckKeys(tol, w, {"fp32", "bf16", "fp16"});
    if (tol["fp32"]) e.check.tolerance_fp32 = ReadPositive(tol["fp32"], w / "fp32");
    if (tol["bf16"]) e.check.tolerance_bf16 = ReadPositive(tol["bf16"], w / "bf16");
    if (tol["fp16"]) e.check.tolerance_fp16 = ReadPositive(tol["fp16"], w / "fp16");
  }
  if (const YAML::Node v = map["validity"]) {
    const Where w = where / "validity";
    CheckKeys(v, w,
              {"max_ci_rel", "min_processes", "max_cv", "max_other_cpu_pct", "min_repeats",
               "max_stall_share"});
    if (v["max_ci_rel"]) e.validity.max_ci_rel = ReadPositive(v["max_ci_rel"], w / "max_ci_rel");
    if (v["min_processes"]) {
      e.validity.min_processes =
          ReadInt(v["min_processes"], w / "min_processes", 1, kMaxProcesses);
    }
    if (v["max_cv"]) e.validity.max_cv = ReadPositive(v["max_cv"], w / "max_cv");
    if (v["max_other_cpu_pct"]) {
      e.validity.max_other_cpu_pct = ReadPositive(v["max_other_cpu_pct"], w / "max_other_cpu_pct");
    }
    if (v["min_repeats"]) {
      e.validity.min_repeats = ReadInt(v["min_repeats"], w / "min_repeats", 1, kMaxRepeats);
    }
    if (v["max_stall_share"]) {
      const Where share = w / "max_stall_share";
      e.validity.max_stall_share = ReadPositive(v["max_stall_share"], share);
      if (!(e.validity.max_stall_share <= 1)) share.Fail("must be at most 1 (the whole window)");
    }
  }
}

const std::vector<std::string> kRunSettingKeys = {
    "batch_sizes",   "quick_batch_sizes", "warmup",          "repeats",         "timeout_s",
    "max_time_s",    "quick_max_time_s",  "min_time_s",      "max_repeats",     "stop",
    "ci_rel_target", "ci_min_repeats",    "check",           "check_tolerance", "timing_boundary",
    "validity",      "processes",         "max_processes",   "profile",         "scenario",
    "streams",       "target_qps",        "latency_bound_ms", "latency_percentile", "find_peak",
    "arrival_seed",  "server_min_duration_s"};

// At most kMaxRuns runs in one experiment's grid: a few lists of a few hundred values would
// make billions.
void CheckGridSize(const ExperimentConfig& e, const Where& where) {
  const uint64_t models = e.models.empty() ? std::max<size_t>(1, e.widths.size()) *
                                                 std::max<size_t>(1, e.depths.size())
                                           : e.models.size();
  const uint64_t runs = models * std::max(e.batch_sizes.size(), e.quick_batch_sizes.size());
  if (runs > kMaxRuns) {
    where.Fail("expands to " + std::to_string(runs) + " runs, more than the " +
               std::to_string(kMaxRuns) + " one experiment may hold; split it into several");
  }
}

void CheckScenarioName(const std::string& scenario, const std::string& where) {
  const std::string prefix = where.empty() ? "" : where + " ";
  if (scenario != kScenarioSingleStream && scenario != kScenarioOffline &&
      scenario != kScenarioServer) {
    throw InputError(prefix + "is '" + scenario + "'; allowed values: single_stream, offline, "
                     "server");
  }
}

void CheckScenarioSettings(const ExperimentConfig& e, const std::string& where) {
  const ServerSettings defaults;
  const ServerSettings& server = e.server;
  if (e.scenario != kScenarioServer &&
      (server.target_qps != defaults.target_qps ||
       server.latency_bound_ms != defaults.latency_bound_ms ||
       server.latency_percentile != defaults.latency_percentile ||
       server.find_peak != defaults.find_peak || server.arrival_seed ||
       server.min_duration_s != defaults.min_duration_s)) {
    throw InputError(where + ": target_qps, latency_bound_ms, latency_percentile, find_peak, "
                     "arrival_seed and server_min_duration_s apply to scenario server only, and "
                     "the scenario is " + e.scenario + "; set scenario: server (--scenario "
                     "server), or leave them out");
  }
  if (e.scenario == kScenarioSingleStream) {
    if (e.streams != 1) {
      throw InputError(where + ": streams " + StreamsName(e.streams) + " applies to scenarios "
                       "offline and server only, and the scenario is " + e.scenario + "; set "
                       "scenario: offline (--scenario offline), or leave streams out");
    }
    return;
  }
  if (e.stop == "ci") {
    throw InputError(where + ": stop ci decides on one stream's median latency, and scenario " +
                     e.scenario + " keeps several requests in flight; use stop fixed with " +
                     e.scenario);
  }
  if (e.profile) {
    throw InputError(where + ": profile on profiles one request at a time, which scenario " +
                     e.scenario + " does not run; profile the model under single_stream");
  }
  if (e.scenario != kScenarioServer) return;
  if (!(server.target_qps > 0) || !(server.latency_bound_ms > 0)) {
    throw InputError(where + ": scenario server needs target_qps (queries per second; with "
                     "find_peak, where the search starts) and latency_bound_ms (the bound the "
                     "latency_percentile must meet), e.g. --set target_qps=20 --set "
                     "latency_bound_ms=50");
  }
}

std::string StreamsName(int64_t streams) {
  return streams == 0 ? "auto" : std::to_string(streams);
}

const ExperimentConfig& ExperimentsFile::Find(const std::string& name) const {
  std::vector<std::string> known;
  for (const auto& e : experiments) {
    if (e.name == name) return e;
    known.push_back(e.name);
  }
  throw InputError("unknown experiment '" + name + "' (in " + path +
                   "); known experiments: " + JoinNames(known));
}

ExperimentsFile LoadExperiments(const std::string& path) {
  return ParseExperiments(ReadFileCapped(path, kMaxConfigBytes, "config file"), path);
}

ExperimentsFile ParseExperiments(const std::string& text, const std::string& path) {
  YAML::Node root = LoadYaml(text, path);
  const Where top{path, ""};
  if (!root.IsMap()) throw InputError(path + ": must be a mapping with 'experiments'");
  CheckKeys(root, top, {"defaults", "experiments"});

  ExperimentConfig defaults;
  defaults.batch_sizes = {1, 2, 4, 8, 16, 32, 64};
  defaults.quick_batch_sizes = {1, 8};
  if (root["defaults"]) {
    CheckKeys(root["defaults"], top / "defaults", kRunSettingKeys);
    ApplyRunSettings(root["defaults"], top / "defaults", defaults);
  }
  if (!root["experiments"] || !root["experiments"].IsMap() || root["experiments"].size() == 0) {
    (top / "experiments").Fail("must be a non-empty mapping of experiment names to settings");
  }
  MapKeys(root["experiments"], top / "experiments");  // plain, unrepeated experiment names

  ExperimentsFile file;
  file.path = path;
  file.defaults = defaults;
  std::vector<std::string> family_keys = {"family",  "description", "widths",
                                          "depths",  "models",      "input_shape"};
  std::vector<std::string> allowed = family_keys;
  allowed.insert(allowed.end(), kRunSettingKeys.begin(), kRunSettingKeys.end());
  for (const auto& kv : root["experiments"]) {
    ExperimentConfig e = defaults;
    e.name = kv.first.Scalar();
    const Where where = top / "experiments" / e.name;
    const YAML::Node& node = kv.second;
    CheckKeys(node, where, allowed);
    std::vector<std::string> families;
    for (const auto& f : ModelFamilies()) families.push_back(f.name);
    e.family = ReadOneOf(Required(node, "family", where), where / "family", families);
    const ModelFamily& family = FindFamily(e.family);
    if (node["description"]) {
      e.description = ReadString(node["description"], where / "description", /*may_be_empty=*/true);
    }

    auto field = [&](const char* key, bool used) {
      if (used && !node[key]) where.Fail(std::string("needs '") + key + "' for family " + e.family);
      if (!used && node[key]) {
        (where / key).Fail("does not apply to family " + e.family);
      }
      return used;
    };
    if (field("widths", family.uses_width)) {
      e.widths = ReadPositiveIntList(node["widths"], where / "widths", kMaxWidth);
    }
    if (field("depths", family.uses_depth)) {
      e.depths = ReadPositiveIntList(node["depths"], where / "depths", kMaxDepth);
    }
    if (e.family == "self_attention" || e.family == "mha_block") {
      // synthetic.cc splits width into heads = max(1, width/kHeadDim) equal heads.
      for (const int64_t width : e.widths) {
        const int64_t heads = std::max<int64_t>(1, width / kHeadDim);
        if (width % heads != 0) {
          const std::string head = std::to_string(kHeadDim);
          (where / "widths")
              .Fail("has width " + std::to_string(width) + ", which family " + e.family +
                    " cannot split into max(1, width/" + head + ") = " + std::to_string(heads) +
                    " equal heads; use a width below " + head +
                    " or one divisible by its head count (e.g. a multiple of " + head + ")");
        }
      }
    }
    if (field("models", family.uses_models)) {
      // A family's variants first: a name that is not one is answered with the list.
      if (!family.variants.empty() && node["models"].IsSequence()) {
        for (size_t i = 0; i < node["models"].size(); ++i) {
          ReadOneOf(node["models"][i], (where / "models")[i], family.variants);
        }
      }
      e.models = ReadNameList(node["models"], where / "models");
    }
    if (field("input_shape", e.family == "torch")) {
      e.input_shape = ReadPositiveIntList(node["input_shape"], where / "input_shape", kMaxWidth,
                                        /*unique=*/false);
      try {
        CheckTorchInputShape(e.input_shape, "it");
      } catch (const InputError& error) {
        (where / "input_shape").Fail(std::string(error.what()).substr(3));  // "it has ..."
      }
    }
    ApplyRunSettings(node, where, e);
    CheckGridSize(e, where);
    file.experiments.push_back(std::move(e));
  }
  return file;
}

}  // namespace ngraphbench
