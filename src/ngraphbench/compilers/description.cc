#include "ngraphbench/compilers/description.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/core/yaml.h"

namespace ngraphbench {

namespace {

namespace fs = std::filesystem;

// A name that ends up in a file name, a CMake variable (NGB_WITH_<NAME>) or a config key.
bool PlainName(const std::string& s) {
  if (s.empty() || !(s[0] >= 'a' && s[0] <= 'z')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// devices, precisions, opt_levels, scenarios: the first entry is the compiler's default.
std::vector<std::string> DefaultFirst(const YAML::Node& node, const Where& where) {
  std::vector<std::string> out = ReadNameList(node, where, /*may_be_empty=*/true);
  if (out.empty()) where.Fail("must not be empty (its first entry is the default)");
  return out;
}

// A cost in seconds, below a million; > 0, or >= 0 when `may_be_zero`.
double Seconds(const YAML::Node& node, const Where& where, bool may_be_zero) {
  double v = 0;
  if (!node.IsScalar() || !YAML::convert<double>::decode(node, v) ||
      !(may_be_zero ? v >= 0 : v > 0) || !(v < 1e6)) {
    where.Fail(std::string("must be a number of seconds ") + (may_be_zero ? ">= 0" : "> 0") +
               ", got '" + Shown(node) + "'");
  }
  return v;
}

const std::vector<std::string> kTopKeys = {
    "name",           "order",           "role",           "sdk",
    "consumes_onnx",  "devices",         "precisions",     "opt_levels",
    "options",        "enable_hint",     "prior_compile_s", "prior_compile_s_per_node",
    "caches_compile", "operators",       "prior_tuning",   "scenarios",
    "baseline",       "reference",       "test_double",    "no_int8"};
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
    info.no_op_column = ReadString(node["no_column"], where / "no_column");
    return;
  }
  OpColumn column;
  column.compiler = info.name;
  if (const YAML::Node unsupported = node["unsupported"]; unsupported && !unsupported.IsNull()) {
    const Where w = where / "unsupported";
    if (!unsupported.IsMap()) w.Fail("must be a mapping of operator: why the compiler lacks it");
    for (const auto& entry : unsupported) {
      const std::string op = ReadString(entry.first, w);
      if (column.unsupported.count(op)) (w / op).Fail("is given twice; give each operator once");
      if (!FindOp(op)) {
        w.Fail("names '" + QuoteShort(op) + "', which is not an operator of the table "
               "(`ngraphbench list --ops`)");
      }
      column.unsupported[op] = ReadString(entry.second, w / op);
    }
  }
  if (node["limits"]) {
    const Where w = where / "limits";
    for (const std::string& entry : ReadNameList(node["limits"], w, /*may_be_empty=*/true)) {
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
  spec.key = ReadString(Required(node, "key", where), where / "key");
  if (!PlainName(spec.key)) {
    (where / "key")
        .Fail("is '" + QuoteShort(spec.key) + "'; a key is lowercase letters, digits and _");
  }
  const std::string type =
      ReadOneOf(Required(node, "type", where), where / "type", {"int", "string", "bool"});
  spec.type = type == "int"      ? OptionType::kInt
              : type == "string" ? OptionType::kString
                                 : OptionType::kBool;
  spec.help = ReadString(Required(node, "help", where), where / "help");

  auto only_for = [&](const char* key, OptionType t, const char* type_name) {
    if (node[key] && spec.type != t) {
      (where / key).Fail(std::string("applies to options of type ") + type_name + " only");
    }
  };
  only_for("allowed", OptionType::kString, "string");
  only_for("refused", OptionType::kString, "string");
  only_for("min", OptionType::kInt, "int");
  only_for("max", OptionType::kInt, "int");
  if (node["allowed"]) {
    spec.allowed = ReadNameList(node["allowed"], where / "allowed", /*may_be_empty=*/true);
  }
  if (node["refused"]) {
    spec.refused = ReadNameList(node["refused"], where / "refused", /*may_be_empty=*/true);
  }
  if (node["min"]) spec.min_value = ReadInt(node["min"], where / "min");
  if (node["max"]) spec.max_value = ReadInt(node["max"], where / "max");
  if (node["refused_reason"]) {
    spec.refused_reason = ReadString(node["refused_reason"], where / "refused_reason");
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
  // (experiments/compiler_config.cc): the resolved options, and so every row's config_hash, are
  // made of these strings.
  auto canonical = [&](const YAML::Node& value, const Where& at) -> std::string {
    switch (spec.type) {
      case OptionType::kInt: {
        const int64_t v = ReadInt(value, at);
        if (v < spec.min_value || v > spec.max_value) {
          at.Fail("is " + std::to_string(v) + ", outside the option's own range [" +
                  std::to_string(spec.min_value) + ", " +
                  (node["max"] ? std::to_string(spec.max_value) : std::string("no maximum")) +
                  "]");
        }
        return std::to_string(v);
      }
      case OptionType::kBool:
        return ReadBool(value, at) ? "true" : "false";
      case OptionType::kString: {
        std::string v = ReadString(value, at, /*may_be_empty=*/true);
        if (!spec.allowed.empty() &&
            std::find(spec.allowed.begin(), spec.allowed.end(), v) == spec.allowed.end()) {
          at.Fail("is '" + QuoteShort(v) + "', not one of 'allowed': " + JoinNames(spec.allowed));
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
  info.name = ReadString(Required(root, "name", top), top / "name");
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
    const int64_t order = ReadInt(root["order"], top / "order");
    if (order < -1'000'000 || order > 1'000'000) {
      (top / "order").Fail("is " + std::to_string(order) + "; give a number from -1000000 to "
                           "1000000 (the compilers of this tree use 0 to 60, in steps of 10)");
    }
    info.order = static_cast<int>(order);
  }
  info.role = ReadString(Required(root, "role", top), top / "role");
  info.sdk = ReadString(Required(root, "sdk", top), top / "sdk");
  if (root["consumes_onnx"]) {
    info.consumes_onnx = ReadBool(root["consumes_onnx"], top / "consumes_onnx");
  }
  info.devices = DefaultFirst(Required(root, "devices", top), top / "devices");
  info.precisions = DefaultFirst(Required(root, "precisions", top), top / "precisions");
  info.opt_levels = DefaultFirst(Required(root, "opt_levels", top), top / "opt_levels");
  info.enable_hint = ReadString(Required(root, "enable_hint", top), top / "enable_hint");
  if (root["no_int8"]) info.no_int8 = ReadString(root["no_int8"], top / "no_int8");
  if (root["scenarios"]) {
    const Where w = top / "scenarios";
    info.scenarios = DefaultFirst(root["scenarios"], w);
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
    info.prior_compile_s =
        Seconds(root["prior_compile_s"], top / "prior_compile_s", /*may_be_zero=*/true);
  }
  if (root["prior_compile_s_per_node"]) {
    info.prior_compile_s_per_node = Seconds(root["prior_compile_s_per_node"],
                                            top / "prior_compile_s_per_node",
                                            /*may_be_zero=*/true);
  }
  if (const YAML::Node caches = root["caches_compile"]) {
    if (!caches.IsScalar() || (caches.Scalar() != "true" && caches.Scalar() != "false")) {
      (top / "caches_compile")
          .Fail("must be true or false, got '" + Shown(caches) + "'");
    }
    info.caches_compile = caches.Scalar() == "true";
  }
  ParseOperators(Required(root, "operators", top), top / "operators", info);
  if (root["baseline"]) info.baseline = ReadBool(root["baseline"], top / "baseline");
  if (root["test_double"]) info.test_double = ReadBool(root["test_double"], top / "test_double");
  if (const YAML::Node reference = root["reference"]) {
    const Where w = top / "reference";
    CheckKeys(reference, w, {"rank", "opt_level"});
    const int64_t rank = ReadInt(Required(reference, "rank", w), w / "rank");
    if (rank < 1 || rank > 1000) {
      (w / "rank").Fail("is " + std::to_string(rank) + "; give 1 for the first choice of "
                        "reference, 2 for the next, ... (up to 1000)");
    }
    info.reference_rank = static_cast<int>(rank);
    if (reference["opt_level"]) {
      info.reference_opt_level = ReadString(reference["opt_level"], w / "opt_level");
      if (std::find(info.opt_levels.begin(), info.opt_levels.end(), info.reference_opt_level) ==
          info.opt_levels.end()) {
        (w / "opt_level")
            .Fail("is '" + info.reference_opt_level + "', not one of its opt_levels (" +
                  JoinNames(info.opt_levels) + ")");
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
        ReadString(Required(tuning, "trials_option", w), w / "trials_option");
    if (tuning["timeout_option"]) {
      info.tuning_timeout_option = ReadString(tuning["timeout_option"], w / "timeout_option");
    }
    info.prior_tuning_s_per_trial = Seconds(Required(tuning, "seconds_per_trial", w),
                                            w / "seconds_per_trial", /*may_be_zero=*/false);
    info.prior_tuning_s_per_task = Seconds(Required(tuning, "seconds_per_task", w),
                                           w / "seconds_per_task", /*may_be_zero=*/false);
  }
  if (const YAML::Node options = root["options"]; options && !options.IsNull()) {
    const Where w = top / "options";
    if (!options.IsSequence()) {
      w.Fail("must be a list of mappings, one per option (- key: ..., type: ..., default: ...)");
    }
    for (size_t i = 0; i < options.size(); ++i) {
      info.options.push_back(ParseOption(options[i], w[i]));
      for (size_t j = 0; j < i; ++j) {
        if (info.options[j].key == info.options[i].key) {
          (w[i] / "key").Fail("repeats '" + info.options[i].key + "'; describe each option once");
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
