#include "ngraphbench/compilers/description.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <tuple>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/core/yaml.h"

namespace ngraphbench {

namespace {

namespace fs = std::filesystem;

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// The file and the key path, so that every message names both (as in experiments/config.cc).
struct Where {
  std::string file;
  std::string path;
  Where operator/(const std::string& key) const {
    return {file, path.empty() ? key : key[0] == '[' ? path + key : path + "." + key};
  }
  [[noreturn]] void Fail(const std::string& what) const {
    throw InputError(file + ": " +
                     (path.empty() ? "the top level" : "'" + QuoteShort(path, 200) + "'") + " " +
                     what);
  }
};

// A name that ends up in a file name, a CMake variable (NGB_WITH_<NAME>) or a config key.
bool PlainName(const std::string& s) {
  if (s.empty() || !(s[0] >= 'a' && s[0] <= 'z')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// Refuses keys outside `allowed`, keys given twice (yaml-cpp would keep the first silently) and
// keys that are not plain scalars.
void CheckKeys(const YAML::Node& map, const Where& where, const std::vector<std::string>& allowed) {
  if (!map.IsMap()) where.Fail("must be a mapping of keys to values");
  std::set<std::string> seen;
  for (const auto& kv : map) {
    if (!kv.first.IsScalar()) where.Fail("has a key that is not a plain name");
    const std::string key = kv.first.Scalar();
    if (!seen.insert(key).second) (where / key).Fail("is given twice; give each key once");
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      (where / key).Fail("is not a known key here; allowed keys: " + Join(allowed));
    }
  }
}

YAML::Node Required(const YAML::Node& map, const std::string& key, const Where& where) {
  const YAML::Node node = map[key];
  if (!node) where.Fail("needs '" + key + "'");
  return node;
}

std::string ToString(const YAML::Node& node, const Where& where, bool may_be_empty = false) {
  if (node.IsNull()) {
    where.Fail("is empty (a bare null, ~ or nothing is YAML's empty value); quote the text, "
               "e.g. \"null\" or \"\"");
  }
  if (!node.IsScalar()) {
    where.Fail("must be a string, got '" + QuoteShort(YAML::Dump(node)) +
               "' (write \"\" for an empty one)");
  }
  if (!may_be_empty && node.Scalar().empty()) where.Fail("must not be empty");
  return node.Scalar();
}

int64_t ToInt(const YAML::Node& node, const Where& where) {
  int64_t v = 0;
  if (!node.IsScalar() || !YAML::convert<int64_t>::decode(node, v)) {
    where.Fail("must be an integer, got '" + QuoteShort(YAML::Dump(node)) + "'");
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

std::vector<std::string> ToNameList(const YAML::Node& node, const Where& where) {
  if (!node.IsSequence()) where.Fail("must be a list of names, e.g. [cpu, cuda]");
  std::vector<std::string> out;
  for (size_t i = 0; i < node.size(); ++i) {
    const Where item = where / ("[" + std::to_string(i) + "]");
    out.push_back(ToString(node[i], item));
    if (std::count(out.begin(), out.end(), out.back()) > 1) {
      item.Fail("repeats '" + QuoteShort(out.back()) + "'; list each once");
    }
  }
  return out;
}

std::vector<std::string> ToNonEmptyNameList(const YAML::Node& node, const Where& where) {
  std::vector<std::string> out = ToNameList(node, where);
  if (out.empty()) where.Fail("must not be empty (its first entry is the default)");
  return out;
}

const std::vector<std::string> kTopKeys = {
    "name",       "order",      "role",    "sdk",         "consumes_onnx",  "devices",
    "precisions", "opt_levels", "options", "enable_hint", "prior_compile_s", "caches_compile", "operators", "prior_tuning",
    "scenarios", "baseline", "reference", "test_double", "no_int8"};
// `operators:` of a description: its column of the operator table, or why it has none.
//   operators:
//     unsupported: {Celu: why the compiler lacks it, ...}   (may be absent: it runs every op)
//     limits: [Gelu.tanh, ...]                              (forms of graph/ops.h's OpForms())
//   operators: {no_column: why}
void ParseOperators(const YAML::Node& node, const Where& where, CompilerInfo& info) {
  if (!node.IsMap()) {
    where.Fail("must be a mapping: `unsupported:` (operator: why) and `limits:` (Op.form) for "
               "the compiler's column of the operator table, or `no_column:` with why it has "
               "none");
  }
  CheckKeys(node, where, {"unsupported", "limits", "no_column"});
  if (node["no_column"]) {
    if (node["unsupported"] || node["limits"]) {
      where.Fail("has `no_column` and a column (`unsupported`, `limits`); give one or the other");
    }
    info.no_op_column = ToString(node["no_column"], where / "no_column");
    return;
  }
  OpColumn column;
  column.compiler = info.name;
  if (const YAML::Node unsupported = node["unsupported"]; unsupported && !unsupported.IsNull()) {
    const Where w = where / "unsupported";
    if (!unsupported.IsMap()) w.Fail("must be a mapping of operator: why the compiler lacks it");
    for (const auto& entry : unsupported) {
      const std::string op = ToString(entry.first, w);
      if (column.unsupported.count(op)) (w / op).Fail("is given twice; give each operator once");
      if (!FindOp(op)) {
        w.Fail("names '" + QuoteShort(op) + "', which is not an operator of the table "
               "(`ngraphbench list --ops`)");
      }
      column.unsupported[op] = ToString(entry.second, w / op);
    }
  }
  if (node["limits"]) {
    const Where w = where / "limits";
    for (const std::string& entry : ToNameList(node["limits"], w)) {
      const size_t dot = entry.find('.');
      const OpForm* form = dot == std::string::npos
                               ? nullptr
                               : FindOpForm(entry.substr(0, dot), entry.substr(dot + 1));
      if (!form) {
        std::string known;
        for (const OpForm& f : OpForms()) known += (known.empty() ? "" : ", ") + f.op + "." + f.name;
        w.Fail("names '" + QuoteShort(entry) +
               "', which is not a form of graph/ops.cc (one of: " + known + ")");
      }
      if (column.unsupported.count(form->op)) {
        w.Fail("names '" + QuoteShort(entry) +
               "', a form of an operator the compiler does not run at all");
      }
      column.limits.push_back(form);
    }
  }
  info.op_column = std::move(column);
}

const std::vector<std::string> kOptionKeys = {"key",     "type",    "default", "help",
                                              "allowed", "refused", "min",     "max",
                                              "refused_reason",     "neutral"};

OptionSpec ParseOption(const YAML::Node& node, const Where& where) {
  CheckKeys(node, where, kOptionKeys);
  OptionSpec spec;
  spec.key = ToString(Required(node, "key", where), where / "key");
  if (!PlainName(spec.key)) {
    (where / "key")
        .Fail("is '" + QuoteShort(spec.key) + "'; a key is lowercase letters, digits and _");
  }
  const std::string type = ToString(Required(node, "type", where), where / "type");
  if (type == "int") {
    spec.type = OptionType::kInt;
  } else if (type == "string") {
    spec.type = OptionType::kString;
  } else if (type == "bool") {
    spec.type = OptionType::kBool;
  } else {
    (where / "type").Fail("is '" + QuoteShort(type) + "'; allowed values: int, string, bool");
  }
  spec.help = ToString(Required(node, "help", where), where / "help");

  auto only_for = [&](const char* key, OptionType t, const char* type_name) {
    if (node[key] && spec.type != t) {
      (where / key).Fail(std::string("applies to options of type ") + type_name + " only");
    }
  };
  only_for("allowed", OptionType::kString, "string");
  only_for("refused", OptionType::kString, "string");
  only_for("min", OptionType::kInt, "int");
  only_for("max", OptionType::kInt, "int");
  if (node["allowed"]) spec.allowed = ToNameList(node["allowed"], where / "allowed");
  if (node["refused"]) spec.refused = ToNameList(node["refused"], where / "refused");
  if (node["min"]) spec.min_value = ToInt(node["min"], where / "min");
  if (node["max"]) spec.max_value = ToInt(node["max"], where / "max");
  if (node["refused_reason"]) {
    spec.refused_reason = ToString(node["refused_reason"], where / "refused_reason");
  }
  // A reason needs something it explains: the refused strings, or the values above max.
  if (!spec.refused.empty() && spec.refused_reason.empty()) {
    where.Fail("lists 'refused' values without 'refused_reason'; say why they are refused and "
               "what to use instead");
  }
  if (!spec.refused_reason.empty() && spec.refused.empty() && !node["max"]) {
    (where / "refused_reason")
        .Fail("explains nothing: give it with 'refused' (type string) or 'max' (type int, the "
              "values above max are refused)");
  }
  for (const auto& v : spec.refused) {
    if (std::find(spec.allowed.begin(), spec.allowed.end(), v) != spec.allowed.end()) {
      (where / "refused")
          .Fail("lists '" + QuoteShort(v) + "', which 'allowed' also lists; give it in one");
    }
  }
  if (spec.min_value > spec.max_value) {
    where.Fail("has min " + std::to_string(spec.min_value) + " above max " +
               std::to_string(spec.max_value));
  }

  // The default (and the neutral value) in the canonical text config validation stores
  // (experiments/config.cc): the resolved options, and so every row's config_hash, are made of
  // these strings.
  auto canonical = [&](const YAML::Node& value, const Where& at) -> std::string {
    switch (spec.type) {
      case OptionType::kInt: {
        const int64_t v = ToInt(value, at);
        if (v < spec.min_value || v > spec.max_value) {
          at.Fail("is " + std::to_string(v) + ", outside the option's own range [" +
                  std::to_string(spec.min_value) + ", " +
                  (node["max"] ? std::to_string(spec.max_value) : std::string("no maximum")) +
                  "]");
        }
        return std::to_string(v);
      }
      case OptionType::kBool:
        return ToBool(value, at) ? "true" : "false";
      case OptionType::kString: {
        std::string v = ToString(value, at, /*may_be_empty=*/true);
        if (!spec.allowed.empty() &&
            std::find(spec.allowed.begin(), spec.allowed.end(), v) == spec.allowed.end()) {
          at.Fail("is '" + QuoteShort(v) + "', not one of 'allowed': " + Join(spec.allowed));
        }
        if (std::find(spec.refused.begin(), spec.refused.end(), v) != spec.refused.end()) {
          at.Fail("is '" + QuoteShort(v) + "', which 'refused' lists");
        }
        return v;
      }
    }
    return "";
  };
  spec.default_value = canonical(Required(node, "default", where), where / "default");
  if (node["neutral"]) spec.neutral_value = canonical(node["neutral"], where / "neutral");
  return spec;
}

// The name a description at `path` must carry.
std::string ExpectedName(const std::string& path) {
  const fs::path p(path);
  if (p.filename() == "compiler.yaml") return p.parent_path().filename().string();
  return p.stem().string();
}

}  // namespace

CompilerInfo ParseCompilerDescription(const std::string& text, const std::string& path) {
  const YAML::Node root = LoadYaml(text, path);
  const Where top{path, ""};
  if (!root.IsMap()) {
    top.Fail("must be a mapping with name, role, sdk, devices, precisions, opt_levels and "
             "enable_hint");
  }
  CheckKeys(root, top, kTopKeys);

  CompilerInfo info;
  info.name = ToString(Required(root, "name", top), top / "name");
  const std::string expected = ExpectedName(path);
  if (info.name != expected) {
    (top / "name").Fail("is '" + info.name + "', but the file describes compiler '" + expected +
                        "' (its folder src/ngraphbench/compilers/" + expected +
                        "/ or build/compilers/" + expected + ".yaml); they must agree");
  }
  if (!PlainName(info.name)) {
    (top / "name").Fail("is '" + info.name + "'; a compiler name is lowercase letters, digits and "
                        "_, starting with a letter");
  }
  if (root["order"]) {
    const int64_t order = ToInt(root["order"], top / "order");
    if (order < -1'000'000 || order > 1'000'000) {
      (top / "order").Fail("is " + std::to_string(order) + "; give a number from -1000000 to "
                           "1000000 (the compilers of this tree use 0 to 60, in steps of 10)");
    }
    info.order = static_cast<int>(order);
  }
  info.role = ToString(Required(root, "role", top), top / "role");
  info.sdk = ToString(Required(root, "sdk", top), top / "sdk");
  if (root["consumes_onnx"]) {
    info.consumes_onnx = ToBool(root["consumes_onnx"], top / "consumes_onnx");
  }
  info.devices = ToNonEmptyNameList(Required(root, "devices", top), top / "devices");
  info.precisions = ToNonEmptyNameList(Required(root, "precisions", top), top / "precisions");
  info.opt_levels = ToNonEmptyNameList(Required(root, "opt_levels", top), top / "opt_levels");
  info.enable_hint = ToString(Required(root, "enable_hint", top), top / "enable_hint");
  if (root["no_int8"]) info.no_int8 = ToString(root["no_int8"], top / "no_int8");
  if (root["scenarios"]) {
    const Where w = top / "scenarios";
    info.scenarios = ToNonEmptyNameList(root["scenarios"], w);
    for (const std::string& scenario : info.scenarios) {
      if (scenario != "single_stream" && scenario != "offline") {
        w.Fail("lists '" + scenario + "'; a module runs single_stream and, with execution "
               "contexts, offline");
      }
    }
    if (std::find(info.scenarios.begin(), info.scenarios.end(), "single_stream") ==
        info.scenarios.end()) {
      w.Fail("must list single_stream: every module runs one request at a time");
    }
  }
  if (root["prior_compile_s"]) {
    const Where w = top / "prior_compile_s";
    double v = 0;
    if (!root["prior_compile_s"].IsScalar() ||
        !YAML::convert<double>::decode(root["prior_compile_s"], v) || !(v >= 0 && v < 1e6)) {
      w.Fail("must be a number of seconds >= 0, got '" + YAML::Dump(root["prior_compile_s"]) +
             "'");
    }
    info.prior_compile_s = v;
  }
  if (const YAML::Node caches = root["caches_compile"]) {
    if (!caches.IsScalar() || (caches.Scalar() != "true" && caches.Scalar() != "false")) {
      (top / "caches_compile")
          .Fail("must be true or false, got '" + QuoteShort(YAML::Dump(caches)) + "'");
    }
    info.caches_compile = caches.Scalar() == "true";
  }
  ParseOperators(Required(root, "operators", top), top / "operators", info);
  if (root["baseline"]) info.baseline = ToBool(root["baseline"], top / "baseline");
  if (root["test_double"]) info.test_double = ToBool(root["test_double"], top / "test_double");
  if (const YAML::Node reference = root["reference"]) {
    const Where w = top / "reference";
    CheckKeys(reference, w, {"rank", "opt_level"});
    const int64_t rank = ToInt(Required(reference, "rank", w), w / "rank");
    if (rank < 1 || rank > 1000) {
      (w / "rank").Fail("is " + std::to_string(rank) + "; give 1 for the first choice of "
                        "reference, 2 for the next, ... (up to 1000)");
    }
    info.reference_rank = static_cast<int>(rank);
    if (reference["opt_level"]) {
      info.reference_opt_level = ToString(reference["opt_level"], w / "opt_level");
      if (std::find(info.opt_levels.begin(), info.opt_levels.end(), info.reference_opt_level) ==
          info.opt_levels.end()) {
        (w / "opt_level")
            .Fail("is '" + info.reference_opt_level + "', not one of its opt_levels (" +
                  Join(info.opt_levels) + ")");
      }
    }
  }
  if (info.test_double && (info.baseline || info.reference_rank > 0)) {
    top.Fail("declares a test double that is also the baseline or a reference: it computes "
             "nothing, so it can be neither");
  }
  if (const YAML::Node tuning = root["prior_tuning"]) {
    const Where w = top / "prior_tuning";
    CheckKeys(tuning, w, {"trials_option", "seconds_per_trial", "seconds_per_task",
                          "timeout_option"});
    info.tuning_trials_option =
        ToString(Required(tuning, "trials_option", w), w / "trials_option");
    if (tuning["timeout_option"]) {
      info.tuning_timeout_option = ToString(tuning["timeout_option"], w / "timeout_option");
    }
    const auto seconds_of = [&](const char* key) {
      double v = 0;
      const YAML::Node seconds = Required(tuning, key, w);
      if (!seconds.IsScalar() || !YAML::convert<double>::decode(seconds, v) ||
          !(v > 0 && v < 1e6)) {
        (w / key).Fail("must be a number of seconds > 0, got '" +
                       QuoteShort(YAML::Dump(seconds)) + "'");
      }
      return v;
    };
    info.prior_tuning_s_per_trial = seconds_of("seconds_per_trial");
    info.prior_tuning_s_per_task = seconds_of("seconds_per_task");
  }
  if (const YAML::Node options = root["options"]; options && !options.IsNull()) {
    const Where w = top / "options";
    if (!options.IsSequence()) {
      w.Fail("must be a list of mappings, one per option (- key: ..., type: ..., default: ...)");
    }
    for (size_t i = 0; i < options.size(); ++i) {
      info.options.push_back(ParseOption(options[i], w / ("[" + std::to_string(i) + "]")));
      for (size_t j = 0; j < i; ++j) {
        if (info.options[j].key == info.options[i].key) {
          (w / ("[" + std::to_string(i) + "]") / "key")
              .Fail("repeats '" + info.options[i].key + "'; describe each option once");
        }
      }
    }
  }
  for (const auto& named : {std::pair{&info.tuning_trials_option, "trials_option"},
                            std::pair{&info.tuning_timeout_option, "timeout_option"}}) {
    const std::string& key = *named.first;
    if (key.empty()) continue;
    const auto it = std::find_if(info.options.begin(), info.options.end(),
                                 [&key](const OptionSpec& o) { return o.key == key; });
    if (it == info.options.end() || it->type != OptionType::kInt) {
      (top / "prior_tuning" / named.second)
          .Fail("is '" + key + "', not an int option of this compiler");
    }
  }
  return info;
}

CompilerInfo LoadCompilerDescription(const std::string& path) {
  return ParseCompilerDescription(ReadFileCapped(path, kMaxConfigBytes, "compiler description"),
                                  path);
}

std::vector<CompilerInfo> LoadCompilerDescriptions(const std::string& dir) {
  std::vector<std::string> paths;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".yaml" && it->is_regular_file(ec)) {
      paths.push_back(it->path().string());
    }
  }
  if (paths.empty()) {
    throw InputError("no compiler descriptions (<name>.yaml) in " + dir +
                     ": CMake writes them there when it configures the build tree; rerun "
                     "cmake (or ./setup.sh), and run ngraphbench from its build folder");
  }
  std::vector<CompilerInfo> out;
  for (const auto& path : paths) out.push_back(LoadCompilerDescription(path));
  std::sort(out.begin(), out.end(), [](const CompilerInfo& a, const CompilerInfo& b) {
    return std::tie(a.order, a.name) < std::tie(b.order, b.name);
  });
  // The roles that only one compiler may hold.
  for (size_t i = 0; i < out.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (out[i].baseline && out[j].baseline) {
        throw InputError(dir + ": " + out[j].name + ".yaml and " + out[i].name +
                         ".yaml both declare `baseline: true`; one compiler is the baseline");
      }
      if (out[i].reference_rank > 0 && out[i].reference_rank == out[j].reference_rank) {
        throw InputError(dir + ": " + out[j].name + ".yaml and " + out[i].name +
                         ".yaml both declare `reference: {rank: " +
                         std::to_string(out[i].reference_rank) + "}`; give each reference a "
                         "rank of its own");
      }
    }
  }
  return out;
}

}  // namespace ngraphbench
