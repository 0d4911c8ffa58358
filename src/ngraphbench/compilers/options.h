// Compiler settings: a plain schema (what a compiler accepts) and the validated values.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ngraphbench {

enum class OptionType { kInt, kString, kBool };

// One compiler-specific key of configs/<compiler>.yaml.
struct OptionSpec {
  std::string key;
  OptionType type;
  std::string default_value;
  std::vector<std::string> allowed;  // for kString: the accepted values; empty = any string
  std::string help;
  // Settings the SDK would accept but ngraphbench refuses because its rows would then be
  // mislabelled: for kString the values listed here, for kInt values above max_value.
  // refused_reason says why and what to use instead; config validation quotes it.
  std::vector<std::string> refused;
  std::string refused_reason;
  // For an option added after rows were measured: the value (canonical text) at which it does
  // what ngraphbench did before it existed. A run at that value leaves the option out of its
  // settings fingerprint, so those rows keep their config_hash. Empty: always fingerprinted.
  std::optional<std::string> neutral_value;
  int64_t min_value = 0;                                    // for kInt
  int64_t max_value = std::numeric_limits<int64_t>::max();  // for kInt
};

// Validated option values, keyed by OptionSpec::key, each stored in its canonical text form.
class Options {
 public:
  Options() = default;
  explicit Options(std::map<std::string, std::string> values) : values_(std::move(values)) {}

  int64_t Int(const std::string& key) const;
  bool Bool(const std::string& key) const;
  const std::string& String(const std::string& key) const;
  const std::map<std::string, std::string>& values() const { return values_; }

 private:
  std::map<std::string, std::string> values_;
};

// The resolved settings one compiler runs with (configs/<compiler>.yaml after validation).
struct CompilerConfig {
  std::string compiler;
  std::string device = "cpu";
  std::string precision = "fp32";
  int threads = 0;         // resolved: 0 in the YAML means "every available core"
  // Thread pinning of the worker (measure/machine.h AffinityCpus): "none", "compact" (the first
  // `threads` CPUs the process may use) or a CPU list such as "0-3" or "0,2,4".
  std::string affinity = "none";
  std::string opt_level;   // one of CompilerInfo::opt_levels
  Options options;         // compiler-specific keys
  std::string source;      // the file these settings came from, for messages
};

}  // namespace ngraphbench
