// --set KEY=VALUE (config.h): parsed and split by what it sets, the experiment (applied here) or
// a compiler's config (applied by compiler_config.cc over the file).
#include <yaml-cpp/yaml.h>

#include <set>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/yaml.h"
#include "ngraphbench/experiments/config.h"
#include "ngraphbench/experiments/config_internal.h"

namespace ngraphbench {

namespace {

// Run settings whose value is a mapping, which --set may also set one entry at a time.
const std::vector<std::string> kNestedRunKeys = {"check_tolerance", "validity"};

}  // namespace

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
      throw InputError("--set '" + text + "': '" + key + "' is not a known key; allowed keys: " +
                       JoinNames(kRunSettingKeys) +
                       " (validity.<key>, check_tolerance.<key>) for the experiment; device, "
                       "precision, threads, affinity, opt_level, options.<key> for every "
                       "compiler, or <compiler>.<key> for one");
    }
    if (!keys.insert(key).second) {
      throw InputError("--set '" + key + "' is given twice; give each key once");
    }
    s.value = LoadYaml(text.substr(eq + 1), "--set '" + text + "'");
    parsed.push_back(std::move(s));
  }
  return parsed;
}

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

void ValidateSettings(const std::vector<std::string>& settings,
                      const std::vector<std::string>& compilers) {
  for (const Setting& s : ParseSettings(settings)) {
    if (!s.compiler.empty() && !Contains(compilers, s.compiler)) {
      throw InputError("--set '" + s.text + "' is for compiler " + s.compiler +
                       ", which this command does not run (it runs " + JoinNames(compilers) + ")");
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

std::string SettingsPrecision(const std::vector<std::string>& settings) {
  for (const Setting& s : ParseSettings(settings)) {
    if (!s.compiler.empty() || s.experiment || s.path != std::vector<std::string>{"precision"}) {
      continue;
    }
    return ReadString(s.value, kSetTop / "precision");
  }
  return "";
}

void ApplyExperimentSettings(const std::vector<std::string>& settings, ExperimentConfig& e) {
  const YAML::Node map = SettingsMap(ParseSettings(settings), /*experiment=*/true, "");
  if (map.size() == 0) return;
  ApplyRunSettings(map, kSetTop, e);
  CheckGridSize(e, kSetTop / "batch_sizes");
}

}  // namespace ngraphbench
