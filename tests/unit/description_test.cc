// Compiler descriptions (compilers/<name>/compiler.yaml): strict parsing with messages that name
// the file, discovery of a folder of them, and the descriptions of this source tree as the
// registry sees them in the build tree.
#include "ngraphbench/compilers/description.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "temp_dir.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

const char* const kMinimal =
    "name: demo\n"
    "role: a test\n"
    "sdk: none\n"
    "devices: [cpu]\n"
    "precisions: [fp32]\n"
    "opt_levels: [default]\n"
    "enable_hint: always built\n"
    "operators: {no_column: a test}\n";

// kMinimal with `operators:` replaced by `operators` (YAML text after the key).
std::string WithOperators(const std::string& operators) {
  std::string text = kMinimal;
  return text.replace(text.find("operators: "), std::string::npos, "operators: " + operators + "\n");
}

// The message of the InputError that parsing `text` as .../demo/compiler.yaml throws.
std::string ErrorOf(const std::string& text, const std::string& path = "/src/demo/compiler.yaml") {
  try {
    ParseCompilerDescription(text, path);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted:\n" << text;
  return "";
}

void ExpectError(const std::string& text, const std::string& part) {
  const std::string m = ErrorOf(text);
  EXPECT_EQ(m.rfind("/src/demo/compiler.yaml: ", 0), 0u) << m;
  EXPECT_NE(m.find(part), std::string::npos) << "want '" << part << "' in: " << m;
}

TEST(Description, AMinimalOneTakesItsDefaults) {
  const CompilerInfo info = ParseCompilerDescription(kMinimal, "/src/demo/compiler.yaml");
  EXPECT_EQ(info.name, "demo");
  EXPECT_EQ(info.devices, std::vector<std::string>{"cpu"});
  EXPECT_FALSE(info.consumes_onnx);
  EXPECT_TRUE(info.options.empty());
  EXPECT_EQ(info.order, 1000);
  EXPECT_DOUBLE_EQ(info.prior_compile_s, 0.5);
  EXPECT_FALSE(info.op_column.has_value());
  EXPECT_EQ(info.no_op_column, "a test");
  // A build tree's copy is named after the compiler.
  EXPECT_EQ(ParseCompilerDescription(kMinimal, "build/compilers/demo.yaml").name, "demo");
}

// `scenarios:` lists what the module runs: single_stream always; offline where it has execution
// contexts. Left out, single_stream alone.
TEST(Description, ScenariosDefaultToSingleStreamAndAreChecked) {
  EXPECT_EQ(ParseCompilerDescription(kMinimal, "/src/demo/compiler.yaml").scenarios,
            std::vector<std::string>{"single_stream"});
  const CompilerInfo info = ParseCompilerDescription(
      std::string(kMinimal) + "scenarios: [single_stream, offline]\n", "/src/demo/compiler.yaml");
  EXPECT_EQ(info.scenarios, (std::vector<std::string>{"single_stream", "offline"}));
  ExpectError(std::string(kMinimal) + "scenarios: [single_stream, server]\n",
              "'scenarios' lists 'server'");
  ExpectError(std::string(kMinimal) + "scenarios: [offline]\n", "must list single_stream");
}

// The roles a compiler may hold, as data: the baseline, a reference of the output check (by
// rank, with its opt_level as a reference), the pipeline's test double. None by default.
TEST(Description, RolesAreDeclaredAndChecked) {
  const CompilerInfo none = ParseCompilerDescription(kMinimal, "/src/demo/compiler.yaml");
  EXPECT_FALSE(none.baseline);
  EXPECT_EQ(none.reference_rank, 0);
  EXPECT_EQ(none.reference_opt_level, "");
  EXPECT_FALSE(none.test_double);
  std::string two_levels = kMinimal;
  two_levels.replace(two_levels.find("opt_levels: [default]"), 21, "opt_levels: [all, disable]");
  const CompilerInfo roles = ParseCompilerDescription(
      two_levels + "baseline: true\nreference: {rank: 2, opt_level: disable}\n",
      "/src/demo/compiler.yaml");
  EXPECT_TRUE(roles.baseline);
  EXPECT_EQ(roles.reference_rank, 2);
  EXPECT_EQ(roles.reference_opt_level, "disable");
  EXPECT_TRUE(ParseCompilerDescription(std::string(kMinimal) + "test_double: true\n",
                                       "/src/demo/compiler.yaml")
                  .test_double);
  ExpectError(std::string(kMinimal) + "baseline: yes please\n", "'baseline' must be true or false");
  ExpectError(std::string(kMinimal) + "reference: {rank: 0}\n", "'reference.rank' is 0");
  ExpectError(std::string(kMinimal) + "reference: {opt_level: default}\n", "needs 'rank'");
  ExpectError(std::string(kMinimal) + "reference: {rank: 1, opt_level: fast}\n",
              "'reference.opt_level' is 'fast', not one of its opt_levels (default)");
  ExpectError(std::string(kMinimal) + "reference: {rank: 1, first: true}\n",
              "'reference.first' is not a known key here");
  ExpectError(std::string(kMinimal) + "test_double: true\nbaseline: true\n",
              "a test double that is also the baseline or a reference");
}

// Which compiler checks which: the references by rank, the first built one that is not the
// checked compiler itself; a reference checks itself only on another device than its first;
// a test double checks itself.
TEST(Description, TheReferenceIsChosenFromTheRolesAndWhatIsBuilt) {
  auto info = [](const std::string& name, int rank, std::vector<std::string> devices,
                 bool test_double = false) {
    CompilerInfo i;
    i.name = name;
    i.reference_rank = rank;
    i.devices = std::move(devices);
    i.test_double = test_double;
    return i;
  };
  // Declared out of rank order: the rank decides, not the order.
  const std::vector<CompilerInfo> all = {info("double", 0, {"cpu"}, true),
                                         info("second", 2, {"cpu", "cuda"}),
                                         info("first", 1, {"cpu", "cuda"}),
                                         info("other", 0, {"cpu", "cuda"})};
  const auto built = [](std::set<std::string> names) {
    return [names](const std::string& name) { return names.count(name) > 0; };
  };
  const auto every = built({"double", "first", "second", "other"});
  EXPECT_EQ(ChooseReference(all, "double", "cpu", every), "double");
  EXPECT_EQ(ChooseReference(all, "other", "cpu", every), "first");
  EXPECT_EQ(ChooseReference(all, "second", "cuda", every), "first");
  EXPECT_EQ(ChooseReference(all, "first", "cpu", every), "second");
  EXPECT_EQ(ChooseReference(all, "first", "cuda", every), "second");
  // The first reference not built: the next; the checked one itself on another device.
  const auto no_first = built({"second", "other"});
  EXPECT_EQ(ChooseReference(all, "other", "cuda", no_first), "second");
  EXPECT_EQ(ChooseReference(all, "second", "cuda", no_first), "second");
  EXPECT_EQ(ChooseReference(all, "second", "cpu", no_first), "first");  // unavailable: says so
  // None built: the first, whose missing module the reference child names.
  EXPECT_EQ(ChooseReference(all, "other", "cpu", built({"other"})), "first");
  EXPECT_EQ(ChooseReference(all, "first", "cpu", built({"first"})), "second");
  EXPECT_EQ(ChooseReference({info("other", 0, {"cpu"})}, "other", "cpu", every), "");
}

TEST(Description, OptionDefaultsAreStoredInCanonicalText) {
  const CompilerInfo info = ParseCompilerDescription(
      std::string(kMinimal) +
          "options:\n"
          "  - {key: n, type: int, default: 0x0c, neutral: 0x0d, help: h}\n"
          "  - {key: b, type: bool, default: yes, help: h}\n"
          "  - {key: s, type: string, default: \"\", help: h}\n"
          "  - {key: m, type: string, default: A, allowed: [A], refused: [B], "
          "refused_reason: why, help: h}\n"
          "  - {key: k, type: int, default: 1, min: 0, max: 1, refused_reason: why, help: h}\n",
      "/src/demo/compiler.yaml");
  ASSERT_EQ(info.options.size(), 5u);
  EXPECT_EQ(info.options[0].default_value, "12");
  EXPECT_EQ(info.options[0].neutral_value, "13");
  EXPECT_FALSE(info.options[1].neutral_value.has_value());
  EXPECT_EQ(info.options[0].min_value, 0);  // OptionSpec's own default
  EXPECT_EQ(info.options[1].default_value, "true");
  EXPECT_EQ(info.options[2].default_value, "");
  EXPECT_EQ(info.options[3].refused, std::vector<std::string>{"B"});
  EXPECT_EQ(info.options[4].max_value, 1);
  EXPECT_EQ(info.options[4].refused_reason, "why");
}

// `operators:`: the compiler's column of the operator table, checked against the table's rows
// and named forms (graph/ops.h).
TEST(Description, OperatorsGiveTheColumnOfTheOperatorTable) {
  const CompilerInfo all = ParseCompilerDescription(WithOperators("{unsupported: {}}"),
                                                    "/src/demo/compiler.yaml");
  ASSERT_TRUE(all.op_column.has_value());
  EXPECT_EQ(all.op_column->compiler, "demo");
  EXPECT_TRUE(all.op_column->unsupported.empty());
  EXPECT_TRUE(all.op_column->limits.empty());

  const CompilerInfo some = ParseCompilerDescription(
      WithOperators("\n  unsupported: {TopK: no sort, Celu: no converter}\n"
                    "  limits: [Gelu.tanh, Resize.nearest_ties]"),
      "/src/demo/compiler.yaml");
  ASSERT_TRUE(some.op_column.has_value());
  EXPECT_EQ(some.op_column->unsupported,
            (std::map<std::string, std::string>{{"Celu", "no converter"}, {"TopK", "no sort"}}));
  ASSERT_EQ(some.op_column->limits.size(), 2u);
  EXPECT_EQ(some.op_column->limits[0], FindOpForm("Gelu", "tanh"));
  EXPECT_EQ(some.op_column->limits[1], FindOpForm("Resize", "nearest_ties"));

  // What the column says is what the check refuses.
  const Graph graph = [] {
    Graph g;
    g.name = "topk";
    g.nodes.push_back(Node{"TopK", "t", {"x", "k"}, {"v", "i"}, {}});
    return g;
  }();
  EXPECT_EQ(RefusalOf(graph.nodes[0], graph, *some.op_column), "unsupported");
  EXPECT_EQ(RefusalOf(graph.nodes[0], graph, *all.op_column), "");
}

TEST(Description, OperatorsMistakesAreRefused) {
  const std::string m = std::string(kMinimal).substr(0, std::string(kMinimal).find("operators: "));
  ExpectError(m, "the top level needs 'operators'");
  ExpectError(WithOperators("[TopK]"), "'operators' must be a mapping: `unsupported:`");
  ExpectError(WithOperators("{unsupported: {Hardmax: x}}"),
              "'operators.unsupported' names 'Hardmax', which is not an operator of the table");
  ExpectError(WithOperators("{unsupported: [TopK]}"),
              "'operators.unsupported' must be a mapping of operator: why");
  ExpectError(WithOperators("{unsupported: {TopK: x, TopK: y}}"),
              "'operators.unsupported.TopK' is given twice");
  ExpectError(WithOperators("{limits: [Gelu.erf]}"),
              "'operators.limits' names 'Gelu.erf', which is not a form of graph/ops.cc (one of: "
              "Gelu.tanh, Resize.nearest_ties)");
  ExpectError(WithOperators("{unsupported: {Gelu: x}, limits: [Gelu.tanh]}"),
              "a form of an operator the compiler does not run at all");
  ExpectError(WithOperators("{no_column: why, limits: [Gelu.tanh]}"),
              "has `no_column` and a column");
  ExpectError(WithOperators("{no_column: why, colour: red}"), "'operators.colour' is not a known key");
}

// `prior_compile_s_per_node:` the estimate's compile prior grows with the model's graph; left
// out, it does not.
TEST(Description, PriorCompileGrowsPerNodeWhereTheDescriptionSays) {
  EXPECT_DOUBLE_EQ(
      ParseCompilerDescription(kMinimal, "/src/demo/compiler.yaml").prior_compile_s_per_node, 0);
  const CompilerInfo info = ParseCompilerDescription(
      std::string(kMinimal) + "prior_compile_s: 9\nprior_compile_s_per_node: 0.05\n",
      "/src/demo/compiler.yaml");
  EXPECT_DOUBLE_EQ(info.prior_compile_s, 9);
  EXPECT_DOUBLE_EQ(info.prior_compile_s_per_node, 0.05);
  ExpectError(std::string(kMinimal) + "prior_compile_s_per_node: -1\n",
              "'prior_compile_s_per_node' must be a number of seconds >= 0, got '-1'");
  ExpectError(std::string(kMinimal) + "prior_compile_s_per_node: [1]\n",
              "'prior_compile_s_per_node' must be a number of seconds >= 0");
}

// `prior_tuning:` names an int option of the description (the trial budget) and a cost per trial
// and per task.
TEST(Description, PriorTuningNamesAnIntOptionAndSecondsPerTrial) {
  const std::string m = std::string(kMinimal) +
                        "options:\n  - {key: trials, type: int, default: 8, help: h}\n"
                        "  - {key: name, type: string, default: x, help: h}\n";
  const CompilerInfo info = ParseCompilerDescription(
      m + "prior_tuning: {trials_option: trials, seconds_per_trial: 1.5, seconds_per_task: 20}\n",
      "/src/demo/compiler.yaml");
  EXPECT_EQ(info.tuning_trials_option, "trials");
  EXPECT_DOUBLE_EQ(info.prior_tuning_s_per_trial, 1.5);
  EXPECT_DOUBLE_EQ(info.prior_tuning_s_per_task, 20);
  EXPECT_TRUE(ParseCompilerDescription(kMinimal, "/src/demo/compiler.yaml")
                  .tuning_trials_option.empty());
  ExpectError(m + "prior_tuning: {trials_option: name, seconds_per_trial: 1, seconds_per_task: 1}\n",
              "'prior_tuning.trials_option' is 'name', not an int option of this compiler");
  ExpectError(m + "prior_tuning: {trials_option: budget, seconds_per_trial: 1, seconds_per_task: 1}\n",
              "'prior_tuning.trials_option' is 'budget', not an int option");
  ExpectError(m + "prior_tuning: {trials_option: trials, seconds_per_trial: 0, seconds_per_task: 1}\n",
              "'prior_tuning.seconds_per_trial' must be a number of seconds > 0, got '0'");
  ExpectError(m + "prior_tuning: {trials_option: trials}\n",
              "'prior_tuning' needs 'seconds_per_trial'");
  ExpectError(m + "prior_tuning: {trials_option: trials, seconds_per_trial: 1}\n",
              "'prior_tuning' needs 'seconds_per_task'");
  ExpectError(m + "prior_tuning: {trials_option: trials, seconds_per_trial: 1, seconds_per_task: x}\n",
              "'prior_tuning.seconds_per_task' must be a number of seconds > 0, got 'x'");
  EXPECT_TRUE(info.tuning_timeout_option.empty());
  EXPECT_EQ(ParseCompilerDescription(m + "prior_tuning: {trials_option: trials, seconds_per_trial: "
                                         "1, seconds_per_task: 1, timeout_option: trials}\n",
                                     "/src/demo/compiler.yaml")
                .tuning_timeout_option,
            "trials");
  ExpectError(m + "prior_tuning: {trials_option: trials, seconds_per_trial: 1, "
                  "seconds_per_task: 1, timeout_option: name}\n",
              "'prior_tuning.timeout_option' is 'name', not an int option of this compiler");
  // tvm's: a run that tunes has its worker's timeout extended by tuning_timeout_s.
  EXPECT_EQ(FindCompiler("tvm").tuning_timeout_option, "tuning_timeout_s");
}

TEST(Description, MistakesAreRefusedNamingTheFileAndTheKey) {
  const std::string m = kMinimal;
  ExpectError(m + "colour: red\n", "'colour' is not a known key here; allowed keys: name,");
  ExpectError("role: a test\nsdk: none\ndevices: [cpu]\nprecisions: [fp32]\n"
              "opt_levels: [default]\nenable_hint: x\noperators: {no_column: x}\n",
              "the top level needs 'name'");
  ExpectError(m + "name: other\n", "'name' is given twice");
  EXPECT_NE(ErrorOf(kMinimal, "/src/other/compiler.yaml")
                .find("'name' is 'demo', but the file describes compiler 'other'"),
            std::string::npos);
  ExpectError(std::string(kMinimal).replace(0, 10, "name: null"), "'name' is empty");
  ExpectError(std::string(kMinimal).replace(std::string(kMinimal).find("[cpu]"), 5, "cpu"),
              "'devices' must be a list of names");
  ExpectError(std::string(kMinimal).replace(std::string(kMinimal).find("[cpu]"), 5, "[]"),
              "'devices' must not be empty");
  ExpectError(std::string(kMinimal).replace(std::string(kMinimal).find("[cpu]"), 5, "[cpu, cpu]"),
              "'devices[1]' repeats 'cpu'");
  ExpectError(m + "consumes_onnx: maybe\n", "'consumes_onnx' must be true or false");
  ExpectError(m + "order: first\n", "'order' must be an integer");
  ExpectError(m + "options: {n: 1}\n", "'options' must be a list of mappings");
  ExpectError(m + "options:\n  - {key: n, type: float, default: 1, help: h}\n",
              "'options[0].type' is 'float'; allowed values: int, string, bool");
  ExpectError(m + "options:\n  - {key: n, type: int, default: one, help: h}\n",
              "'options[0].default' must be an integer, got 'one'");
  ExpectError(m + "options:\n  - {key: n, type: int, default: 9, max: 5, help: h}\n",
              "'options[0].default' is 9, outside the option's own range [0, 5]");
  ExpectError(m + "options:\n  - {key: n, type: int, default: 1, help: h, tip: t}\n",
              "'options[0].tip' is not a known key here");
  ExpectError(m + "options:\n  - {key: n, type: int, default: 1}\n", "'options[0]' needs 'help'");
  ExpectError(m + "options:\n  - {key: n, type: int, default: 1, allowed: [1], help: h}\n",
              "'options[0].allowed' applies to options of type string only");
  ExpectError(m + "options:\n  - {key: s, type: string, default: c, allowed: [a, b], help: h}\n",
              "'options[0].default' is 'c', not one of 'allowed': a, b");
  ExpectError(m + "options:\n  - {key: s, type: string, default: a, allowed: [a], neutral: b, "
                  "help: h}\n",
              "'options[0].neutral' is 'b', not one of 'allowed': a");
  ExpectError(m + "options:\n  - {key: s, type: string, default: a, refused: [b], help: h}\n",
              "lists 'refused' values without 'refused_reason'");
  ExpectError(m + "options:\n  - {key: s, type: string, default: a, refused_reason: r, help: h}\n",
              "'options[0].refused_reason' explains nothing");
  ExpectError(m + "options:\n  - {key: b, type: bool, default: false, help: h}\n"
                  "  - {key: b, type: bool, default: true, help: h}\n",
              "'options[1].key' repeats 'b'");
  ExpectError(m + "options:\n  - {key: Bad-Key, type: bool, default: true, help: h}\n",
              "'options[0].key' is 'Bad-Key'");
  ExpectError("[", "not valid YAML");
  ExpectError("", "the top level must be a mapping");
}

class DescriptionDir : public test_support::TempDirTest {
 protected:
  DescriptionDir() : TempDirTest("ngb_descriptions_") {}

  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  static std::string Named(const std::string& name, const std::string& extra = "") {
    std::string text = kMinimal;
    return text.replace(0, 10, "name: " + name) + extra;
  }
};

TEST_F(DescriptionDir, EveryDescriptionIsFoundInOrderThenByName) {
  Write("zeta.yaml", Named("zeta", "order: 1\n"));
  Write("beta.yaml", Named("beta"));
  Write("alpha.yaml", Named("alpha"));
  Write("notes.txt", "not a description");
  const std::vector<CompilerInfo> all = LoadCompilerDescriptions(dir_.string());
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].name, "zeta");
  EXPECT_EQ(all[1].name, "alpha");
  EXPECT_EQ(all[2].name, "beta");
}

// One baseline at most, and a rank of its own for each reference.
TEST_F(DescriptionDir, TheRolesOfOneCompilerAreHeldByOne) {
  Write("one.yaml", Named("one", "baseline: true\nreference: {rank: 1}\n"));
  Write("two.yaml", Named("two", "reference: {rank: 2}\n"));
  EXPECT_EQ(LoadCompilerDescriptions(dir_.string()).size(), 2u);
  for (const auto& [extra, why] :
       {std::pair<std::string, std::string>{"baseline: true\n", "both declare `baseline: true`"},
        {"reference: {rank: 1}\n", "both declare `reference: {rank: 1}`"}}) {
    Write("three.yaml", Named("three", extra));
    try {
      LoadCompilerDescriptions(dir_.string());
      ADD_FAILURE() << extra;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("one.yaml and three.yaml " + why), std::string::npos)
          << e.what();
    }
  }
}

TEST_F(DescriptionDir, AnEmptyFolderOrABadDescriptionIsAnInputError) {
  try {
    LoadCompilerDescriptions(dir_.string());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no compiler descriptions"), std::string::npos);
  }
  Write("good.yaml", Named("good"));
  Write("bad.yaml", Named("bad", "devices: [cpu]\n"));
  try {
    LoadCompilerDescriptions(dir_.string());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find((dir_ / "bad.yaml").string() + ": 'devices' is given twice"),
              std::string::npos)
        << e.what();
  }
}

// The build tree holds a copy of every compiler folder's description (CMake's configure step),
// built or not, and the registry lists them in their `order`.
TEST(Registry, KnowsEveryCompilerFolderOfTheSourceTree) {
  std::vector<std::string> folders;
  for (const auto& entry : fs::directory_iterator(fs::path(NGB_SOURCE_DIR) / "src" /
                                                  "ngraphbench" / "compilers")) {
    if (fs::exists(entry.path() / "compiler.yaml")) {
      folders.push_back(entry.path().filename().string());
      const CompilerInfo source = LoadCompilerDescription((entry.path() / "compiler.yaml").string());
      EXPECT_EQ(source.name, folders.back());
      EXPECT_EQ(source.options.size(), FindCompiler(source.name).options.size()) << source.name;
    }
  }
  EXPECT_EQ(folders.size(), AllCompilers().size());
  // In the order their `order:` gives, then by name.
  std::vector<std::pair<int, std::string>> ordered;
  for (const std::string& name : folders) {
    const fs::path path = fs::path(NGB_SOURCE_DIR) / "src/ngraphbench/compilers" / name /
                          "compiler.yaml";
    ordered.emplace_back(LoadCompilerDescription(path.string()).order, name);
  }
  std::sort(ordered.begin(), ordered.end());
  std::vector<std::string> registry;
  for (const auto& info : AllCompilers()) registry.push_back(info.name);
  for (size_t i = 0; i < ordered.size() && i < registry.size(); ++i) {
    EXPECT_EQ(registry[i], ordered[i].second) << i;
  }
}

// The tree's roles: one baseline, references, and for every compiler a reference of the
// registry that is not the test double of another, never itself on its own first device.
TEST(Registry, TheTreeDeclaresTheRolesTheRunsNeed) {
  const CompilerInfo& baseline = FindCompiler(BaselineCompiler());
  EXPECT_TRUE(baseline.baseline);
  EXPECT_FALSE(baseline.test_double);
  for (const CompilerInfo& info : AllCompilers()) {
    for (const std::string& device : info.devices) {
      const std::string reference = ReferenceCompilerFor(info.name, device);
      SCOPED_TRACE(info.name + " on " + device + ": " + reference);
      const CompilerInfo& r = FindCompiler(reference);
      EXPECT_TRUE(r.reference_rank > 0 || (info.test_double && r.name == info.name));
      if (!info.test_double && r.name == info.name) EXPECT_NE(device, info.devices.front());
      const auto& precisions = r.precisions;
      EXPECT_NE(std::find(precisions.begin(), precisions.end(), "fp32"), precisions.end());
    }
  }
}

// What the compiled-in registry said before descriptions, for the two compilers with the most
// varied options: config validation must accept and refuse exactly what it did.
TEST(Registry, DescriptionsSayWhatTheCompiledInRegistrySaid) {
  const CompilerInfo& ort = FindCompiler("onnxruntime");
  EXPECT_EQ(ort.role, "software-level optimization");
  EXPECT_EQ(ort.sdk, "ONNX Runtime C/C++ API");
  EXPECT_TRUE(ort.consumes_onnx);
  EXPECT_EQ(ort.devices, (std::vector<std::string>{"cpu", "cuda"}));
  EXPECT_EQ(ort.precisions, (std::vector<std::string>{"fp32", "int8"}));
  EXPECT_EQ(ort.opt_levels, (std::vector<std::string>{"all", "extended", "basic", "disable"}));
  ASSERT_EQ(ort.options.size(), 2u);
  EXPECT_EQ(ort.options[0].key, "inter_op_threads");
  EXPECT_EQ(ort.options[0].type, OptionType::kInt);
  EXPECT_EQ(ort.options[0].default_value, "1");
  EXPECT_EQ(ort.options[1].key, "execution_mode");
  EXPECT_EQ(ort.options[1].default_value, "sequential");
  EXPECT_EQ(ort.options[1].allowed, (std::vector<std::string>{"sequential", "parallel"}));
  EXPECT_EQ(ort.enable_hint,
            "run ./setup.sh (installs the onnxruntime wheel and headers), or configure with "
            "-DNGB_ORT_LIBRARY=<libonnxruntime.so> -DNGB_ORT_INCLUDE_DIR=<headers>");

  const CompilerInfo& ov = FindCompiler("openvino");
  EXPECT_EQ(ov.devices, (std::vector<std::string>{"cpu", "gpu", "auto"}));
  EXPECT_EQ(ov.precisions, (std::vector<std::string>{"fp32", "bf16", "fp16", "int8"}));
  EXPECT_EQ(ov.opt_levels, std::vector<std::string>{"default"});
  ASSERT_EQ(ov.options.size(), 3u);
  const OptionSpec& hint = ov.options[0];
  EXPECT_EQ(hint.key, "performance_hint");
  EXPECT_EQ(hint.default_value, "LATENCY");
  EXPECT_EQ(hint.allowed, std::vector<std::string>{"LATENCY"});
  EXPECT_EQ(hint.refused, std::vector<std::string>{"THROUGHPUT"});
  // Since scenario offline, the reason points there rather than to benchmark_app.
  const std::string one_sync_request =
      "scenario single_stream times one synchronous infer request per run, and OpenVINO's "
      "throughput mode (performance_hint THROUGHPUT, num_streams > 1) only pays off with several "
      "requests in flight, so the row would be mislabelled; use performance_hint LATENCY with "
      "num_streams 0 or 1, and scenario offline (--scenario offline, streams N or auto), which "
      "compiles under THROUGHPUT with num_streams = streams, to measure throughput mode";
  EXPECT_EQ(hint.refused_reason, one_sync_request);
  const OptionSpec& streams = ov.options[1];
  EXPECT_EQ(streams.key, "num_streams");
  EXPECT_EQ(streams.default_value, "0");
  EXPECT_EQ(streams.min_value, 0);
  EXPECT_EQ(streams.max_value, 1);
  EXPECT_EQ(streams.refused_reason, one_sync_request);
  EXPECT_EQ(ov.options[2].key, "cache_dir");
  EXPECT_EQ(ov.options[2].default_value, "");
  EXPECT_EQ(ov.enable_hint,
            "run ./setup.sh (scripts/setup/openvino.sh installs the openvino wheel), or configure "
            "with -DOpenVINO_DIR=$(python -c 'from openvino.utils import get_cmake_path; "
            "print(get_cmake_path())')");

  // The sweep estimate's priors, formerly a list of names in experiments/estimate.cc.
  EXPECT_DOUBLE_EQ(FindCompiler("tvm").prior_compile_s, 3.1);
  EXPECT_DOUBLE_EQ(FindCompiler("tvm").prior_compile_s_per_node, 0.047);
  EXPECT_DOUBLE_EQ(ov.prior_compile_s, 0.11);
  EXPECT_DOUBLE_EQ(ort.prior_compile_s, 0.092);
  EXPECT_DOUBLE_EQ(ort.prior_compile_s_per_node, 0.0046);
}

// Every compiler has a column of the operator table or says why not; `list --ops` shows one
// for every compiler but the test doubles, from its own description: "?" cells and its reason
// below the table where it keeps no column.
TEST(Registry, EveryCompilerHasAColumnOrSaysWhyNot) {
  std::vector<std::string> listed, checked;
  for (const CompilerInfo& info : AllCompilers()) {
    EXPECT_NE(info.op_column.has_value(), !info.no_op_column.empty()) << info.name;
    if (!info.test_double) listed.push_back(info.name);
    if (info.op_column) checked.push_back(info.name);
  }
  std::vector<std::string> names;
  for (const OpColumn& column : OpTableColumns()) names.push_back(column.compiler);
  EXPECT_EQ(names, checked);
  const std::vector<OpColumn> columns = ListedOpColumns();
  names.clear();
  for (const OpColumn& column : columns) names.push_back(column.compiler);
  EXPECT_EQ(names, listed);
  const std::string markdown = FormatOpTable(columns, true);
  const std::string text = FormatOpTable(columns, false);
  std::string header = "| operator | importer |";
  for (const OpColumn& column : columns) {
    header += " " + column.compiler + " |";
    const CompilerInfo& info = FindCompiler(column.compiler);
    EXPECT_EQ(column.unchecked, info.no_op_column) << column.compiler;
    if (column.unchecked.empty()) continue;
    EXPECT_NE(markdown.find("- `" + column.compiler + "`: " + column.unchecked + "\n"),
              std::string::npos)
        << column.compiler;
    EXPECT_NE(text.find("  " + column.compiler + ": " + column.unchecked + "\n"),
              std::string::npos)
        << column.compiler;
  }
  EXPECT_NE(markdown.find(header + " notes |\n"), std::string::npos) << header;
  const OpColumn& tvm = *FindCompiler("tvm").op_column;
  EXPECT_EQ(tvm.unsupported.size(), 2u);
  EXPECT_TRUE(tvm.unsupported.count("Celu") && tvm.unsupported.count("TopK"));
  EXPECT_EQ(tvm.limits.size(), 2u);
  const OpColumn& ov = *FindCompiler("openvino").op_column;
  EXPECT_EQ(ov.unsupported.size(), 1u);
  EXPECT_TRUE(ov.unsupported.count("ReduceLogSumExp"));
}

}  // namespace
}  // namespace ngraphbench
