#include "ngraphbench/experiments/config.h"

#include <yaml-cpp/yaml.h>

#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/core/yaml.h"
#include "ngraphbench/core/tensor.h"
#include "ngraphbench/graph/working_set.h"  // kMaxBatchSize, shared with model inputs
#include "ngraphbench/measure/machine.h"
#include "ngraphbench/models/synthetic.h"
#include "ngraphbench/models/torch_export.h"
#include "ngraphbench/models/zoo.h"

namespace ngraphbench {

namespace {

// Ceilings far above any real run, low enough that a typo (or a fuzzer) cannot wrap an int or
// ask for terabytes; each message states its ceiling.
constexpr int64_t kMaxThreads = 4096;
constexpr int64_t kMaxWidth = 65536;
constexpr int64_t kMaxDepth = 1024;
constexpr uint64_t kMaxRuns = 100'000;  // runs in one experiment's grid
constexpr int64_t kMaxRepeats = 10'000'000;  // repeats, warmup, max_repeats and the like
constexpr int64_t kMaxProcesses = 1000;      // processes, max_processes
constexpr int64_t kMaxStreams = 1024;        // offline: requests in flight, each a thread
constexpr double kMaxTargetQps = 100'000;     // server: queries per second

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// Validation context: the file and the key path, so every message can name both.
struct Where {
  std::string file;
  std::string path;
  Where operator/(const std::string& key) const {
    return {file, path.empty() ? key : path + "." + key};
  }
  [[noreturn]] void Fail(const std::string& what) const {
    throw InputError(file + ": " +
                     (path.empty() ? "the top level" : "'" + QuoteShort(path, 200) + "'") + " " +
                     what);
  }
};

// The keys of a mapping, in file order. yaml-cpp keeps every entry of a repeated key and lookups
// find the first, so a repeat would silently drop a setting: refused, as are keys that are lists
// or mappings (which as<std::string>() cannot convert).
std::vector<std::string> MapKeys(const YAML::Node& map, const Where& where) {
  if (!map.IsMap()) where.Fail("must be a mapping of keys to values");
  std::vector<std::string> keys;
  for (const auto& kv : map) {
    if (!kv.first.IsScalar()) {
      where.Fail("has a key that is " +
                 std::string(kv.first.IsSequence() ? "a list"
                             : kv.first.IsMap()    ? "a mapping"
                                                   : "empty") +
                 "; keys must be plain names");
    }
    const std::string key = kv.first.Scalar();
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) {
      (where / key).Fail("is given twice; each key may appear once in a mapping");
    }
    keys.push_back(key);
  }
  return keys;
}

void CheckKeys(const YAML::Node& map, const Where& where, const std::vector<std::string>& allowed) {
  for (const auto& key : MapKeys(map, where)) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      (where / key).Fail("is not a known key here; allowed keys: " + Join(allowed));
    }
  }
}

int64_t ToInt(const YAML::Node& node, const Where& where, int64_t min_value, int64_t max_value,
              const std::string& note = "") {
  int64_t v = 0;
  if (!node.IsScalar() || !YAML::convert<int64_t>::decode(node, v)) {
    where.Fail("must be an integer, got '" + QuoteShort(YAML::Dump(node)) + "'");
  }
  if (v < min_value) {
    where.Fail("must be >= " + std::to_string(min_value) + ", got " + std::to_string(v));
  }
  if (v > max_value) {
    where.Fail("must be <= " + std::to_string(max_value) + note + ", got " + std::to_string(v));
  }
  return v;
}

double ToDouble(const YAML::Node& node, const Where& where, double min_exclusive) {
  double v = 0;
  if (!node.IsScalar() || !YAML::convert<double>::decode(node, v)) {
    where.Fail("must be a number, got '" + QuoteShort(YAML::Dump(node)) + "'");
  }
  if (!(v > min_exclusive)) where.Fail("must be > " + std::to_string(min_exclusive));
  return v;
}

std::string ToString(const YAML::Node& node, const Where& where,
                     const std::vector<std::string>& allowed = {}) {
  if (!node.IsScalar()) where.Fail("must be a string, got '" + QuoteShort(YAML::Dump(node)) + "'");
  std::string v = node.as<std::string>();
  if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
    where.Fail("is '" + QuoteShort(v) + "'; allowed values: " + Join(allowed));
  }
  return v;
}

bool ToBool(const YAML::Node& node, const Where& where) {
  bool v = false;
  if (!node.IsScalar() || !YAML::convert<bool>::decode(node, v)) {
    where.Fail("must be true or false, got '" + QuoteShort(YAML::Dump(node)) + "'");
  }
  return v;
}

// `unique`: a grid's values (widths, batch sizes), each naming runs; not a shape's dimensions.
std::vector<int64_t> ToPositiveIntList(const YAML::Node& node, const Where& where,
                                       int64_t max_value, bool unique = true) {
  if (!node.IsSequence()) where.Fail("must be a list of positive integers");
  if (node.size() == 0) where.Fail("must not be empty");
  std::vector<int64_t> out;
  std::set<int64_t> seen;
  for (size_t i = 0; i < node.size(); ++i) {
    const Where item = where / ("[" + std::to_string(i) + "]");
    out.push_back(ToInt(node[i], item, 1, max_value));
    // A value listed twice would name two runs alike: one row would overwrite the other.
    if (unique && !seen.insert(out.back()).second) {
      item.Fail("repeats " + std::to_string(out.back()) + "; list each value once");
    }
  }
  return out;
}

std::vector<std::string> ToStringList(const YAML::Node& node, const Where& where) {
  if (!node.IsSequence()) where.Fail("must be a list of names");
  if (node.size() == 0) where.Fail("must not be empty");
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (size_t i = 0; i < node.size(); ++i) {
    const Where item = where / ("[" + std::to_string(i) + "]");
    out.push_back(ToString(node[i], item));
    if (!seen.insert(out.back()).second) {
      item.Fail("repeats '" + QuoteShort(out.back()) + "'; list each once");
    }
  }
  return out;
}

// Settings an experiment may set itself or inherit from `defaults`.
void ApplyRunSettings(const YAML::Node& map, const Where& where, ExperimentConfig& e) {
  if (map["batch_sizes"]) {
    e.batch_sizes = ToPositiveIntList(map["batch_sizes"], where / "batch_sizes", kMaxBatchSize);
  }
  if (map["quick_batch_sizes"]) {
    e.quick_batch_sizes =
        ToPositiveIntList(map["quick_batch_sizes"], where / "quick_batch_sizes", kMaxBatchSize);
  }
  if (map["warmup"]) e.warmup = ToInt(map["warmup"], where / "warmup", 0, kMaxRepeats);
  if (map["repeats"]) e.repeats = ToInt(map["repeats"], where / "repeats", 1, kMaxRepeats);
  if (map["timeout_s"]) e.timeout_s = ToDouble(map["timeout_s"], where / "timeout_s", 0);
  if (map["max_time_s"]) e.max_time_s = ToDouble(map["max_time_s"], where / "max_time_s", -1);
  if (map["quick_max_time_s"]) {
    e.quick_max_time_s = ToDouble(map["quick_max_time_s"], where / "quick_max_time_s", -1);
  }
  if (map["timing_boundary"]) {
    e.timing_boundary =
        ToString(map["timing_boundary"], where / "timing_boundary", {"compute", "end_to_end"});
  }
  if (map["min_time_s"]) e.min_time_s = ToDouble(map["min_time_s"], where / "min_time_s", -1);
  if (map["max_repeats"]) {
    e.max_repeats = ToInt(map["max_repeats"], where / "max_repeats", 1, kMaxRepeats);
  }
  if (map["stop"]) e.stop = ToString(map["stop"], where / "stop", {"auto", "fixed", "ci"});
  if (map["ci_rel_target"]) {
    e.ci_rel_target = ToDouble(map["ci_rel_target"], where / "ci_rel_target", 0);
  }
  if (map["ci_min_repeats"]) {
    e.ci_min_repeats = ToInt(map["ci_min_repeats"], where / "ci_min_repeats", 6, kMaxRepeats);
  }
  if (map["processes"]) {
    e.processes = ToInt(map["processes"], where / "processes", 1, kMaxProcesses);
  }
  if (map["max_processes"]) {
    e.max_processes = ToInt(map["max_processes"], where / "max_processes", 1, kMaxProcesses);
  }
  if (map["scenario"]) {
    const Where w = where / "scenario";
    e.scenario = ToString(map["scenario"], w);
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
      w.Fail("must be a positive integer or auto, got '" + QuoteShort(YAML::Dump(streams)) + "'");
    } else {
      e.streams = ToInt(streams, w, 1, kMaxStreams);
    }
  }
  ServerSettings& server = e.server;
  if (map["target_qps"]) {
    server.target_qps = ToDouble(map["target_qps"], where / "target_qps", 0);
    if (server.target_qps > kMaxTargetQps) {
      (where / "target_qps")
          .Fail(fmt::format("must be <= {:g} (the queue of a run far above capacity is held in "
                            "memory), got {:g}",
                            kMaxTargetQps, server.target_qps));
    }
  }
  if (map["latency_bound_ms"]) {
    server.latency_bound_ms = ToDouble(map["latency_bound_ms"], where / "latency_bound_ms", 0);
  }
  if (map["latency_percentile"]) {
    const Where w = where / "latency_percentile";
    server.latency_percentile = ToDouble(map["latency_percentile"], w, 0);
    if (!(server.latency_percentile < 100)) {
      w.Fail(fmt::format("must be < 100 (e.g. 99 for p99), got {:g}", server.latency_percentile));
    }
  }
  if (map["find_peak"]) server.find_peak = ToBool(map["find_peak"], where / "find_peak");
  if (map["arrival_seed"]) {
    server.arrival_seed = static_cast<uint64_t>(
        ToInt(map["arrival_seed"], where / "arrival_seed", 0, INT64_MAX));
  }
  if (map["server_min_duration_s"]) {
    server.min_duration_s =
        ToDouble(map["server_min_duration_s"], where / "server_min_duration_s", -1);
  }
  if (map["check"]) {
    const std::string v = ToString(map["check"], where / "check", {"on", "off"});
    e.check.enabled = v == "on";
  }
  if (map["profile"]) {
    e.profile = ToString(map["profile"], where / "profile", {"on", "off"}) == "on";
  }
  if (const YAML::Node tol = map["check_tolerance"]) {
    const Where w = where / "check_tolerance";
    CheckKeys(tol, w, {"fp32", "bf16", "fp16"});
    if (tol["fp32"]) e.check.tolerance_fp32 = ToDouble(tol["fp32"], w / "fp32", 0);
    if (tol["bf16"]) e.check.tolerance_bf16 = ToDouble(tol["bf16"], w / "bf16", 0);
    if (tol["fp16"]) e.check.tolerance_fp16 = ToDouble(tol["fp16"], w / "fp16", 0);
  }
  if (const YAML::Node v = map["validity"]) {
    const Where w = where / "validity";
    CheckKeys(v, w,
              {"max_ci_rel", "min_processes", "max_cv", "max_other_cpu_pct", "min_repeats",
               "max_stall_share"});
    if (v["max_ci_rel"]) e.validity.max_ci_rel = ToDouble(v["max_ci_rel"], w / "max_ci_rel", 0);
    if (v["min_processes"]) {
      e.validity.min_processes =
          ToInt(v["min_processes"], w / "min_processes", 1, kMaxProcesses);
    }
    if (v["max_cv"]) e.validity.max_cv = ToDouble(v["max_cv"], w / "max_cv", 0);
    if (v["max_other_cpu_pct"]) {
      e.validity.max_other_cpu_pct = ToDouble(v["max_other_cpu_pct"], w / "max_other_cpu_pct", 0);
    }
    if (v["min_repeats"]) {
      e.validity.min_repeats = ToInt(v["min_repeats"], w / "min_repeats", 1, kMaxRepeats);
    }
    if (v["max_stall_share"]) {
      const Where share = w / "max_stall_share";
      e.validity.max_stall_share = ToDouble(v["max_stall_share"], share, 0);
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

// The keys of a compiler's config; `options` is set one entry at a time, options.<key>.
const std::vector<std::string> kCompilerKeys = {"device",   "precision", "threads",
                                                "affinity", "opt_level", "options"};
// Run settings whose value is a mapping, which --set may also set one entry at a time.
const std::vector<std::string> kNestedRunKeys = {"check_tolerance", "validity"};
// Where a value from --set is named in messages, as a file would be.
const Where kSetTop{"--set", ""};

bool Contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

// One --set item, parsed.
struct Setting {
  std::string text;               // as given
  std::string compiler;           // the compiler it is for; empty: every one
  std::vector<std::string> path;  // the key's components after the compiler's name
  bool experiment = false;        // a run setting, else a compiler's
  YAML::Node value;
};

std::vector<Setting> ParseSettings(const std::vector<std::string>& settings) {
  std::vector<Setting> parsed;
  std::set<std::string> keys;
  for (const std::string& text : settings) {
    const size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw InputError("--set '" + text + "' is not KEY=VALUE (e.g. --set threads=1, --set "
                       "warmup=5, --set openvino.precision=bf16)");
    }
    const std::string key = text.substr(0, eq);
    Setting s;
    s.text = text;
    for (size_t start = 0;;) {
      const size_t dot = key.find('.', start);
      s.path.push_back(key.substr(start, dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    if (s.path.size() > 1) {
      for (const CompilerInfo& info : AllCompilers()) {
        if (info.name == s.path[0]) s.compiler = info.name;
      }
      if (!s.compiler.empty()) s.path.erase(s.path.begin());
    }
    const std::string& head = s.path[0];
    const bool compiler_key =
        Contains(kCompilerKeys, head) && s.path.size() == (head == "options" ? 2u : 1u);
    s.experiment = s.compiler.empty() && Contains(kRunSettingKeys, head) &&
                   (s.path.size() == 1 || (s.path.size() == 2 && Contains(kNestedRunKeys, head)));
    if (!compiler_key && !s.experiment) {
      throw InputError(
          "--set '" + text + "': '" + key + "' is not a known key; allowed keys: " +
          Join(kRunSettingKeys) + " (validity.<key>, check_tolerance.<key>) for the experiment; " +
          "device, precision, threads, affinity, opt_level, options.<key> for every compiler, " +
          "or <compiler>.<key> for one");
    }
    if (!keys.insert(key).second) {
      throw InputError("--set '" + key + "' is given twice; give each key once");
    }
    try {
      s.value = YAML::Load(text.substr(eq + 1));
    } catch (const YAML::Exception& e) {
      throw InputError("--set '" + text + "': the value is not valid YAML: " + e.what());
    }
    parsed.push_back(std::move(s));
  }
  return parsed;
}

// The settings of one kind as the mapping a YAML file would hold: {threads: 1, options: {...}}.
YAML::Node SettingsMap(const std::vector<Setting>& settings, bool experiment,
                       const std::string& compiler) {
  YAML::Node map(YAML::NodeType::Map);
  for (const Setting& s : settings) {
    if (s.experiment != experiment || (!s.compiler.empty() && s.compiler != compiler)) continue;
    if (s.path.size() == 1) {
      map[s.path[0]] = s.value;
    } else {
      if (!map[s.path[0]].IsMap()) map[s.path[0]] = YAML::Node(YAML::NodeType::Map);
      map[s.path[0]][s.path[1]] = s.value;
    }
  }
  return map;
}

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

}  // namespace

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

void ValidateSettings(const std::vector<std::string>& settings,
                      const std::vector<std::string>& compilers) {
  for (const Setting& s : ParseSettings(settings)) {
    if (!s.compiler.empty() && !Contains(compilers, s.compiler)) {
      throw InputError("--set '" + s.text + "' is for compiler " + s.compiler +
                       ", which this command does not run (it runs " + Join(compilers) + ")");
    }
  }
}

std::vector<std::string> SettingsFor(const std::vector<std::string>& settings,
                                     const std::string& compiler) {
  std::vector<std::string> applied;
  for (const Setting& s : ParseSettings(settings)) {
    if (s.compiler.empty() || s.compiler == compiler) applied.push_back(s.text);
  }
  return applied;
}

void ApplyExperimentSettings(const std::vector<std::string>& settings, ExperimentConfig& e) {
  const YAML::Node map = SettingsMap(ParseSettings(settings), /*experiment=*/true, "");
  if (map.size() == 0) return;
  ApplyRunSettings(map, kSetTop, e);
  CheckGridSize(e, kSetTop / "batch_sizes");
}

const ExperimentConfig& ExperimentsFile::Find(const std::string& name) const {
  std::vector<std::string> known;
  for (const auto& e : experiments) {
    if (e.name == name) return e;
    known.push_back(e.name);
  }
  throw InputError("unknown experiment '" + name + "' (in " + path +
                   "); known experiments: " + Join(known));
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
    if (!node["family"]) where.Fail("needs a 'family'");
    std::vector<std::string> families;
    for (const auto& f : ModelFamilies()) families.push_back(f.name);
    e.family = ToString(node["family"], where / "family", families);
    const ModelFamily& family = FindFamily(e.family);
    if (node["description"]) e.description = ToString(node["description"], where / "description");

    auto field = [&](const char* key, bool used) {
      if (used && !node[key]) where.Fail(std::string("needs '") + key + "' for family " + e.family);
      if (!used && node[key]) {
        (where / key).Fail("does not apply to family " + e.family);
      }
      return used;
    };
    if (field("widths", family.uses_width)) {
      e.widths = ToPositiveIntList(node["widths"], where / "widths", kMaxWidth);
    }
    if (field("depths", family.uses_depth)) {
      e.depths = ToPositiveIntList(node["depths"], where / "depths", kMaxDepth);
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
      e.models = ToStringList(node["models"], where / "models");
      if (!family.variants.empty()) {
        for (size_t i = 0; i < e.models.size(); ++i) {
          ToString(node["models"][i], where / "models" / ("[" + std::to_string(i) + "]"),
                   family.variants);
        }
      }
    }
    if (field("input_shape", e.family == "torch")) {
      e.input_shape = ToPositiveIntList(node["input_shape"], where / "input_shape", kMaxWidth,
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

int AutoThreads(int all_cores) {
  return std::max(1, (all_cores > 0 ? all_cores : AvailableCores()) - 1);
}

CompilerConfig DefaultCompilerConfig(const CompilerInfo& info, int all_cores) {
  CompilerConfig c;
  c.compiler = info.name;
  c.device = info.devices.front();
  c.precision = info.precisions.front();
  c.threads = AutoThreads(all_cores);
  c.opt_level = info.opt_levels.front();
  std::map<std::string, std::string> values;
  for (const auto& spec : info.options) values[spec.key] = spec.default_value;
  c.options = Options(std::move(values));
  c.source = "(defaults)";
  return c;
}

CompilerConfig LoadCompilerConfig(const std::string& path, const CompilerInfo& info,
                                  int all_cores, const std::vector<std::string>& settings) {
  return ParseCompilerConfig(ReadFileCapped(path, kMaxConfigBytes, "config file"), path, info,
                             all_cores, settings);
}

CompilerConfig ParseCompilerConfig(const std::string& text, const std::string& path,
                                   const CompilerInfo& info, int all_cores,
                                   const std::vector<std::string>& settings) {
  CompilerConfig c = DefaultCompilerConfig(info, all_cores);
  c.source = path;
  YAML::Node root = LoadYaml(text, path);
  const Where file_top{path, ""};
  if (!root.IsNull()) CheckKeys(root, file_top, kCompilerKeys);
  if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  // --set over the file: each key is then validated, and named in messages, as from --set.
  std::set<std::string> from_set;
  const YAML::Node set = SettingsMap(ParseSettings(settings), /*experiment=*/false, info.name);
  for (const auto& kv : set) {
    const std::string key = kv.first.Scalar();
    if (key != "options") {
      root[key] = kv.second;
      from_set.insert(key);
      continue;
    }
    if (!root["options"] || root["options"].IsNull()) {
      root["options"] = YAML::Node(YAML::NodeType::Map);
    } else if (!root["options"].IsMap()) {
      continue;  // the file's own error, reported below
    }
    for (const auto& option : kv.second) {
      root["options"][option.first.Scalar()] = option.second;
      from_set.insert("options." + option.first.Scalar());
    }
  }
  auto top_of = [&](const std::string& key) { return from_set.count(key) ? kSetTop : file_top; };
  auto at = [&](const std::string& key) { return top_of(key) / key; };
  if (root["device"]) c.device = ToString(root["device"], at("device"), info.devices);
  if (root["precision"]) {
    // int8 where the compiler has no quantization path: refused here, never run as fp32.
    const YAML::Node& precision = root["precision"];
    if (precision.IsScalar() && precision.Scalar() == "int8" &&
        std::find(info.precisions.begin(), info.precisions.end(), "int8") ==
            info.precisions.end()) {
      at("precision").Fail("is 'int8', but " + info.name + " has no quantization path (" +
                           (info.no_int8.empty()
                                ? std::string("no static int8 quantization with calibration is "
                                              "built for it")
                                : info.no_int8) +
                           "); its precisions: " + Join(info.precisions) +
                           ". docs/compilers.md, Quantization, lists the compilers with int8");
    }
    c.precision = ToString(precision, at("precision"), info.precisions);
  }
  // auto (or unset): AutoThreads; 0: every core; else the number.
  const bool auto_threads = root["threads"] && root["threads"].IsScalar() &&
                            root["threads"].Scalar() == "auto";
  if (root["threads"] && !auto_threads) {
    const int64_t threads = ToInt(root["threads"], at("threads"), 0, kMaxThreads,
                                  " (or auto: every core but one; 0: every core)");
    c.threads = threads == 0 ? (all_cores > 0 ? all_cores : AvailableCores())
                             : static_cast<int>(threads);
  }
  if (root["affinity"]) {
    c.affinity = ToString(root["affinity"], at("affinity"));
    std::vector<int> cpus;
    try {
      cpus = AffinityCpus(c.affinity, c.threads, ProcessCpus());
    } catch (const InputError& e) {
      throw InputError(top_of("affinity").file + ": " + e.what());
    }
    // threads auto, 0 or unset: with a CPU list, one thread per listed CPU.
    const bool every_core = !root["threads"] || auto_threads ||
                            ToInt(root["threads"], at("threads"), 0, kMaxThreads) == 0;
    if (c.affinity != "compact" && !cpus.empty() && every_core) {
      c.threads = static_cast<int>(cpus.size());
    }
  }
  if (root["opt_level"]) {
    c.opt_level = ToString(root["opt_level"], at("opt_level"), info.opt_levels);
  }
  std::map<std::string, std::string> values = c.options.values();
  if (const YAML::Node options = root["options"]; options && !options.IsNull()) {
    std::vector<std::string> keys;
    for (const auto& spec : info.options) keys.push_back(spec.key);
    const Where options_top = (set["options"] ? kSetTop : file_top) / "options";
    if (keys.empty()) options_top.Fail("is not used by compiler " + info.name);
    if (options.IsMap()) {
      for (const auto& kv : options) {  // a key from --set is named as such
        const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
        if (from_set.count("options." + key) && !Contains(keys, key)) {
          (kSetTop / "options" / key)
              .Fail("is not an option of compiler " + info.name + "; its options: " +
                    Join(keys) + " (<compiler>.options.<key> sets one compiler's)");
        }
      }
    }
    CheckKeys(options, file_top / "options", keys);
    for (const auto& spec : info.options) {
      if (!options[spec.key]) continue;
      const Where where = top_of("options." + spec.key) / "options" / spec.key;
      switch (spec.type) {
        case OptionType::kInt: {
          const int64_t v =
              ToInt(options[spec.key], where, spec.min_value, std::numeric_limits<int64_t>::max());
          if (v > spec.max_value) {
            const std::string range =
                "must be <= " + std::to_string(spec.max_value) + ", got " + std::to_string(v);
            where.Fail(spec.refused_reason.empty() ? range
                                                   : range + "; refused: " + spec.refused_reason);
          }
          values[spec.key] = std::to_string(v);
          break;
        }
        case OptionType::kBool:
          values[spec.key] = ToBool(options[spec.key], where) ? "true" : "false";
          break;
        case OptionType::kString: {
          const std::string v = ToString(options[spec.key], where);
          if (std::find(spec.refused.begin(), spec.refused.end(), v) != spec.refused.end()) {
            where.Fail("is '" + QuoteShort(v) + "', refused: " + spec.refused_reason +
                       "; allowed values: " + Join(spec.allowed));
          }
          values[spec.key] = ToString(options[spec.key], where, spec.allowed);
          break;
        }
      }
    }
  }
  c.options = Options(std::move(values));
  return c;
}

}  // namespace ngraphbench
