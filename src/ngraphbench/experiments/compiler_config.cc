// configs/<compiler>.yaml (ParseCompilerConfig): a compiler's config validated against its
// description's schema, with the compiler keys of --set over it.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <set>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/core/yaml.h"
#include "ngraphbench/experiments/config.h"
#include "ngraphbench/experiments/config_internal.h"
#include "ngraphbench/measure/machine.h"

namespace ngraphbench {

namespace {

// Far above any real machine, low enough that a typo cannot wrap an int.
constexpr int64_t kMaxThreads = 4096;

}  // namespace

const std::vector<std::string> kCompilerKeys = {"device",   "precision", "threads",
                                                "affinity", "opt_level", "options"};

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
  if (root["device"]) c.device = ReadOneOf(root["device"], at("device"), info.devices);
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
                           "); its precisions: " + JoinNames(info.precisions) +
                           ". docs/compilers.md, Quantization, lists the compilers with int8");
    }
    c.precision = ReadOneOf(precision, at("precision"), info.precisions);
  }
  // auto (or unset): AutoThreads; 0: every core; else the number.
  const bool auto_threads = root["threads"] && root["threads"].IsScalar() &&
                            root["threads"].Scalar() == "auto";
  if (root["threads"] && !auto_threads) {
    const int64_t threads = ReadInt(root["threads"], at("threads"), 0, kMaxThreads,
                                  " (or auto: every core but one; 0: every core)");
    c.threads = threads == 0 ? (all_cores > 0 ? all_cores : AvailableCores())
                             : static_cast<int>(threads);
  }
  if (root["affinity"]) {
    c.affinity = ReadString(root["affinity"], at("affinity"), /*may_be_empty=*/true);
    std::vector<int> cpus;
    try {
      cpus = AffinityCpus(c.affinity, c.threads, ProcessCpus());
    } catch (const InputError& e) {
      throw InputError(top_of("affinity").file + ": " + e.what());
    }
    // threads auto, 0 or unset: with a CPU list, one thread per listed CPU.
    const bool every_core = !root["threads"] || auto_threads ||
                            ReadInt(root["threads"], at("threads"), 0, kMaxThreads) == 0;
    if (c.affinity != "compact" && !cpus.empty() && every_core) {
      c.threads = static_cast<int>(cpus.size());
    }
  }
  if (root["opt_level"]) {
    c.opt_level = ReadOneOf(root["opt_level"], at("opt_level"), info.opt_levels);
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
                    JoinNames(keys) + " (<compiler>.options.<key> sets one compiler's)");
        }
      }
    }
    CheckKeys(options, file_top / "options", keys);
    for (const auto& spec : info.options) {
      if (!options[spec.key]) continue;
      const Where where = top_of("options." + spec.key) / "options" / spec.key;
      switch (spec.type) {
        case OptionType::kInt: {
          const int64_t v = ReadInt(options[spec.key], where, spec.min_value);
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
          values[spec.key] = ReadBool(options[spec.key], where) ? "true" : "false";
          break;
        case OptionType::kString: {
          const std::string v = ReadString(options[spec.key], where, /*may_be_empty=*/true);
          if (std::find(spec.refused.begin(), spec.refused.end(), v) != spec.refused.end()) {
            where.Fail("is '" + QuoteShort(v) + "', refused: " + spec.refused_reason +
                       "; allowed values: " + JoinNames(spec.allowed));
          }
          if (!spec.allowed.empty()) ReadOneOf(options[spec.key], where, spec.allowed);
          values[spec.key] = v;
          break;
        }
      }
    }
  }
  c.options = Options(std::move(values));
  return c;
}

}  // namespace ngraphbench
