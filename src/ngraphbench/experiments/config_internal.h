// What the three parts of experiments/config.h share, and no other module includes:
// config.cc (experiments.yaml: its run settings, grids and scenarios), settings.cc (--set) and
// compiler_config.cc (configs/<compiler>.yaml).
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ngraphbench/core/yaml.h"
#include "ngraphbench/experiments/config.h"

namespace ngraphbench {

// The run settings an experiment may set itself or inherit from `defaults` (config.cc).
extern const std::vector<std::string> kRunSettingKeys;
// The keys of a compiler's config; `options` is set one entry at a time, options.<key>
// (compiler_config.cc).
extern const std::vector<std::string> kCompilerKeys;

// Where a value from --set is named in messages, as a file would be.
inline const Where kSetTop{"--set", ""};

inline bool Contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

// The run settings of `map` (a mapping checked against kRunSettingKeys) applied to `e`.
void ApplyRunSettings(const YAML::Node& map, const Where& where, ExperimentConfig& e);
// Refuses a grid of more runs than one experiment may hold (a few lists of a few hundred values
// would make billions).
void CheckGridSize(const ExperimentConfig& e, const Where& where);

// One --set item, parsed.
struct Setting {
  std::string text;               // as given
  std::string compiler;           // the compiler it is for; empty: every one
  std::vector<std::string> path;  // the key's components after the compiler's name
  bool experiment = false;        // a run setting, else a compiler's
  YAML::Node value;
};

// Throws InputError as ValidateSettings (config.h) describes, but for a compiler the command
// does not run.
std::vector<Setting> ParseSettings(const std::vector<std::string>& settings);
// The settings of one kind (`experiment`'s, else those of `compiler`) as the mapping a YAML file
// would hold: {threads: 1, options: {...}}.
YAML::Node SettingsMap(const std::vector<Setting>& settings, bool experiment,
                       const std::string& compiler);

}  // namespace ngraphbench
