// experiments.yaml (experiments/config.cc) and the readers of core/yaml.h every config is read
// with; a compiler's config and --set are compiler_config_test.cc, the same executable.
#include "ngraphbench/experiments/config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ngraphbench/core/error.h"
#include "ngraphbench/experiments/resolve.h"
#include "temp_dir.h"
#include "unit/config_fixture.h"

namespace ngraphbench {
namespace {

const char* kValid = R"(
defaults:
  batch_sizes: [1, 2]
  warmup: 3
experiments:
  blocks:
    family: conv_block
    widths: [8]
    depths: [1, 2]
    repeats: 5
)";

TEST_F(ConfigTest, ValidFileAppliesDefaultsAndOverrides) {
  const ExperimentsFile file = LoadExperiments(Write(kValid));
  const ExperimentConfig& e = file.Find("blocks");
  EXPECT_EQ(e.family, "conv_block");
  EXPECT_EQ(e.batch_sizes, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(e.quick_batch_sizes, (std::vector<int64_t>{1, 8}));
  EXPECT_EQ(e.warmup, 3);
  EXPECT_EQ(e.repeats, 5);
  EXPECT_EQ(e.timing_boundary, "compute");
}

TEST_F(ConfigTest, UnknownExperimentNamesTheKnownOnes) {
  const ExperimentsFile file = LoadExperiments(Write(kValid));
  try {
    file.Find("nope");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("known experiments: blocks"), std::string::npos);
  }
}

TEST_F(ConfigTest, UnknownKeyNamesKeyAndAllowedKeys) {
  const std::string m = ExperimentsError(
      "experiments:\n  a:\n    family: conv2d\n    widths: [8]\n    widht: [3]\n");
  EXPECT_NE(m.find("experiments.a.widht"), std::string::npos) << m;
  EXPECT_NE(m.find("allowed keys"), std::string::npos) << m;
}

TEST_F(ConfigTest, WrongTypeEmptyListAndNegativeSize) {
  std::string m = ExperimentsError("experiments:\n  a:\n    family: conv2d\n    widths: abc\n");
  EXPECT_NE(m.find("experiments.a.widths' must be a list of positive integers"), std::string::npos)
      << m;
  m = ExperimentsError("experiments:\n  a:\n    family: conv2d\n    widths: []\n");
  EXPECT_NE(m.find("must not be empty"), std::string::npos) << m;
  m = ExperimentsError("experiments:\n  a:\n    family: conv2d\n    widths: [16, -4]\n");
  EXPECT_NE(m.find("experiments.a.widths[1]' must be >= 1, got -4"), std::string::npos) << m;
  m = ExperimentsError(
      "defaults:\n  repeats: ten\nexperiments:\n  a:\n    family: conv2d\n    widths: [8]\n");
  EXPECT_NE(m.find("defaults.repeats' must be an integer"), std::string::npos) << m;
}

TEST_F(ConfigTest, FamilyDecidesWhichKeysApply) {
  std::string m = ExperimentsError("experiments:\n  a:\n    family: conv_blocks\n    widths: [8]\n");
  EXPECT_NE(m.find("allowed values: conv_block"), std::string::npos) << m;
  m = ExperimentsError("experiments:\n  a:\n    family: conv_block\n    widths: [8]\n");
  EXPECT_NE(m.find("needs 'depths' for family conv_block"), std::string::npos) << m;
  m = ExperimentsError(
      "experiments:\n  a:\n    family: conv2d\n    widths: [8]\n    depths: [1]\n");
  EXPECT_NE(m.find("experiments.a.depths' does not apply to family conv2d"), std::string::npos)
      << m;
  m = ExperimentsError(
      "experiments:\n  a:\n    family: conv2d\n    widths: [8]\n    timing_boundary: wall\n");
  EXPECT_NE(m.find("allowed values: compute, end_to_end"), std::string::npos) << m;
}

TEST_F(ConfigTest, NotYamlOrMissingFile) {
  ExperimentsError("experiments: [unclosed\n");
  EXPECT_THROW(LoadExperiments("/nonexistent/experiments.yaml"), InputError);
}

TEST_F(ConfigTest, CheckAndValiditySettingsAreReadAndValidated) {
  const std::string path = Write(R"(
defaults:
  min_time_s: 1.5
  max_repeats: 500
  check: off
  check_tolerance: {fp32: 0.001, bf16: 0.1}
  processes: 7
  max_processes: 9
  validity: {max_ci_rel: 0.1, min_processes: 4, max_cv: 0.5, max_other_cpu_pct: 20,
             min_repeats: 30}
experiments:
  one:
    family: linear
    widths: [8]
    check: on
)");
  const ExperimentsFile file = LoadExperiments(path);
  const ExperimentConfig& e = file.Find("one");
  EXPECT_EQ(e.min_time_s, 1.5);
  EXPECT_EQ(e.max_repeats, 500);
  EXPECT_TRUE(e.check.enabled);  // the experiment's own value wins over `defaults`
  EXPECT_FALSE(file.defaults.check.enabled);
  EXPECT_EQ(e.check.tolerance_fp32, 0.001);
  EXPECT_EQ(e.check.tolerance_bf16, 0.1);
  EXPECT_EQ(e.check.tolerance_fp16, CheckSettings{}.tolerance_fp16);  // unset keeps the default
  EXPECT_EQ(e.processes, 7);
  EXPECT_EQ(e.max_processes, 9);
  EXPECT_EQ(e.validity.max_ci_rel, 0.1);
  EXPECT_EQ(e.validity.min_processes, 4);
  EXPECT_EQ(e.validity.max_cv, 0.5);
  EXPECT_EQ(e.validity.max_other_cpu_pct, 20);
  EXPECT_EQ(e.validity.min_repeats, 30);

  const std::string head = "experiments:\n  one:\n    family: linear\n    widths: [8]\n";
  EXPECT_NE(ExperimentsError(head + "    check: maybe\n")
                .find("'experiments.one.check' is 'maybe'; allowed values: on, off"),
            std::string::npos);
  EXPECT_NE(ExperimentsError(head + "    check_tolerance: {int8: 1}\n")
                .find("'experiments.one.check_tolerance.int8' is not a known key here"),
            std::string::npos);
  EXPECT_NE(ExperimentsError(head + "    check_tolerance: {fp32: 0}\n")
                .find("'experiments.one.check_tolerance.fp32' must be > 0"),
            std::string::npos);
  EXPECT_NE(ExperimentsError(head + "    validity: {max_cv: -1}\n")
                .find("'experiments.one.validity.max_cv' must be > 0"),
            std::string::npos);
  EXPECT_NE(ExperimentsError(head + "    validity: {min_runs: 3}\n")
                .find("'experiments.one.validity.min_runs' is not a known key here; allowed keys: "
                      "max_ci_rel, min_processes, max_cv, max_other_cpu_pct, min_repeats"),
            std::string::npos);
  EXPECT_NE(ExperimentsError(head + "    processes: 0\n")
                .find("'experiments.one.processes'"),
            std::string::npos);
  EXPECT_NE(ExperimentsError(head + "    processes: 1001\n")
                .find("'experiments.one.processes'"),
            std::string::npos);
}

TEST_F(ConfigTest, StopAutoAddsProcessesForSingleStreamOnlyAndNotUnderProcesses) {
  const test_support::ScratchDir scratch("cfgdir_");
  const std::string dir = scratch.path().string();
  std::ofstream(dir + "/experiments.yaml") << kValid;
  GridArgs args;
  args.experiment = "blocks";
  args.configs_dir = dir;
  ExperimentConfig e = ResolveExperiment(args);
  EXPECT_EQ(e.stop, "ci");
  EXPECT_EQ(e.processes, 3);
  EXPECT_EQ(e.max_processes, 10);
  EXPECT_DOUBLE_EQ(e.ci_rel_target, 0.05);
  // --processes K asks for exactly K.
  args.processes = 5;
  EXPECT_EQ(ResolveExperiment(args).stop, "fixed");
  args.stop = "ci";
  EXPECT_EQ(ResolveExperiment(args).stop, "ci");
  // Offline quotes the whole window's samples per second: fixed.
  args = GridArgs{};
  args.experiment = "blocks";
  args.configs_dir = dir;
  args.scenario = "offline";
  EXPECT_EQ(ResolveExperiment(args).stop, "fixed");
  // An explicit fixed stays.
  args.scenario.reset();
  args.stop = "fixed";
  EXPECT_EQ(ResolveExperiment(args).stop, "fixed");
}

TEST_F(ConfigTest, DuplicateKeysAreRefusedEverywhere) {
  const std::string given_twice = "' is given twice; each key may appear once in a mapping";
  std::string m = ExperimentsError(
      "experiments:\n  a:\n    family: conv2d\n    widths: [8]\nexperiments:\n  b:\n"
      "    family: conv2d\n    widths: [8]\n");
  EXPECT_NE(m.find("'experiments" + given_twice), std::string::npos) << m;
  m = ExperimentsError(
      "defaults:\n  warmup: 1\n  warmup: 2\nexperiments:\n  a:\n    family: conv2d\n"
      "    widths: [8]\n");
  EXPECT_NE(m.find("'defaults.warmup" + given_twice), std::string::npos) << m;
  m = ExperimentsError(
      "experiments:\n  a:\n    family: conv2d\n    widths: [8]\n  a:\n    family: conv2d\n"
      "    widths: [16]\n");
  EXPECT_NE(m.find("'experiments.a" + given_twice), std::string::npos) << m;
  m = ExperimentsError(
      "experiments:\n  a:\n    family: conv2d\n    widths: [8]\n    widths: [16]\n");
  EXPECT_NE(m.find("'experiments.a.widths" + given_twice), std::string::npos) << m;
  m = ExperimentsError(
      "experiments:\n  a:\n    family: conv2d\n    widths: [8]\n    check_tolerance:\n"
      "      fp32: 0.1\n      fp32: 0.2\n");
  EXPECT_NE(m.find("'experiments.a.check_tolerance.fp32" + given_twice), std::string::npos) << m;
  m = ExperimentsError(
      "experiments:\n  a:\n    family: conv2d\n    widths: [8]\n    validity:\n"
      "      max_cv: 0.1\n      max_cv: 0.2\n");
  EXPECT_NE(m.find("'experiments.a.validity.max_cv" + given_twice), std::string::npos) << m;
  m = CompilerError("threads: 1\nthreads: 2\n");
  EXPECT_NE(m.find("'threads" + given_twice), std::string::npos) << m;
  m = CompilerError("options:\n  execution_mode: parallel\n  execution_mode: sequential\n");
  EXPECT_NE(m.find("'options.execution_mode" + given_twice), std::string::npos) << m;
}

TEST_F(ConfigTest, KeysThatAreListsOrMappingsAreInputErrors) {
  std::string m = ExperimentsError(
      "[a, b]: 1\nexperiments:\n  a:\n    family: conv2d\n    widths: [8]\n");
  EXPECT_NE(m.find("the top level has a key that is a list; keys must be plain names"),
            std::string::npos)
      << m;
  m = ExperimentsError("experiments:\n  {x: 1}:\n    family: conv2d\n    widths: [8]\n");
  EXPECT_NE(m.find("'experiments' has a key that is a mapping"), std::string::npos) << m;
  m = ExperimentsError(
      "experiments:\n  a:\n    family: conv2d\n    widths: [8]\n    validity:\n"
      "      [max_cv]: 0.1\n");
  EXPECT_NE(m.find("'experiments.a.validity' has a key that is a list"), std::string::npos) << m;
  m = CompilerError("options:\n  [execution_mode]: parallel\n");
  EXPECT_NE(m.find("'options' has a key that is a list"), std::string::npos) << m;
}

TEST_F(ConfigTest, SizesAndCountsHaveCeilings) {
  const std::string exp = "experiments:\n  a:\n    family: ";
  std::string m = ExperimentsError(exp + "conv2d\n    widths: [8, 65537]\n");
  EXPECT_NE(m.find("'experiments.a.widths[1]' must be <= 65536, got 65537"), std::string::npos)
      << m;
  m = ExperimentsError(exp + "conv_block\n    widths: [8]\n    depths: [1025]\n");
  EXPECT_NE(m.find("'experiments.a.depths[0]' must be <= 1024, got 1025"), std::string::npos)
      << m;
  m = ExperimentsError(exp + "conv2d\n    widths: [8]\n    batch_sizes: [1, 65537]\n");
  EXPECT_NE(m.find("'experiments.a.batch_sizes[1]' must be <= 65536, got 65537"),
            std::string::npos)
      << m;
  m = ExperimentsError("defaults:\n  quick_batch_sizes: [100000]\n" + exp +
                       "conv2d\n    widths: [8]\n");
  EXPECT_NE(m.find("'defaults.quick_batch_sizes[0]' must be <= 65536"), std::string::npos) << m;
  for (const std::string key : {"repeats", "warmup", "max_repeats"}) {
    m = ExperimentsError(exp + "conv2d\n    widths: [8]\n    " + key + ": 10000001\n");
    EXPECT_NE(m.find("'experiments.a." + key + "' must be <= 10000000, got 10000001"),
              std::string::npos)
        << m;
  }
}

// A list of 200,000 widths is refused before yaml-cpp builds its nodes (7,000,000 took 3.3 GB),
// a value of megabytes is quoted by its first 80 bytes, and a name that is not UTF-8 (which no
// JSON file could hold) is refused naming its line.
TEST_F(ConfigTest, HugeListsHugeValuesAndBytesThatAreNotUtf8AreRefusedBriefly) {
  std::string widths = "experiments:\n  x:\n    family: linear\n    widths: [1";
  for (int i = 2; i <= 200'000; ++i) widths += "," + std::to_string(i);
  std::string m = ExperimentsError(widths + "]\n");
  EXPECT_NE(m.find("more than the 100000 a YAML file may hold"), std::string::npos) << m;
  const std::string huge(1'000'000, 'd');
  m = ExperimentsError("experiments:\n  x:\n    family: linear\n    description: [" + huge +
                       "]\n    widths: [8]\n");
  EXPECT_NE(m.find("'experiments.x.description' must be a string, got '[ddd"), std::string::npos)
      << m.substr(0, 300);
  EXPECT_NE(m.find("\u2026 (1000002 bytes)"), std::string::npos) << m.substr(0, 300);
  EXPECT_LT(m.size(), 400u);
  m = ExperimentsError("experiments:\n  x:\n    family: linear\n    widths: [" + huge + "]\n");
  EXPECT_LT(m.size(), 400u) << m.substr(0, 300);
  m = ExperimentsError("experiments:\n  tiny\xff:\n    family: linear\n    widths: [8]\n");
  EXPECT_NE(m.find("line 2 is not valid UTF-8"), std::string::npos) << m;
}

// A value listed twice would name two runs alike; a grid of billions of runs would exhaust the
// scheduler before anything ran.
TEST_F(ConfigTest, RepeatedListValuesAndHugeGridsAreRefused) {
  const std::string exp = "experiments:\n  a:\n    family: ";
  std::string m = ExperimentsError(exp + "conv2d\n    widths: [8, 16, 8]\n");
  EXPECT_NE(m.find("'experiments.a.widths[2]' repeats 8; list each value once"),
            std::string::npos)
      << m;
  m = ExperimentsError(exp + "architecture\n    models: [resnet18, resnet18]\n");
  EXPECT_NE(m.find("'experiments.a.models[1]' repeats 'resnet18'"), std::string::npos) << m;

  std::string widths, depths, batches;
  for (int i = 1; i <= 100; ++i) {
    widths += (i > 1 ? ", " : "") + std::to_string(i);
    depths += (i > 1 ? ", " : "") + std::to_string(i);
    batches += (i > 1 ? ", " : "") + std::to_string(i);
  }
  m = ExperimentsError(exp + "conv_block\n    widths: [" + widths + "]\n    depths: [" + depths +
                       "]\n    batch_sizes: [" + batches + "]\n");
  EXPECT_NE(m.find("expands to 1000000 runs, more than the 100000"), std::string::npos) << m;
}

TEST_F(ConfigTest, AttentionWidthsMustSplitIntoEqualHeads) {
  for (const std::string family : {"self_attention", "mha_block"}) {
    const std::string depths = family == "mha_block" ? "    depths: [1]\n" : "";
    const std::string m = ExperimentsError("experiments:\n  attn:\n    family: " + family +
                                           "\n    widths: [64, 129]\n" + depths);
    EXPECT_NE(m.find("'experiments.attn.widths' has width 129, which family " + family +
                     " cannot split into max(1, width/64) = 2 equal heads"),
              std::string::npos)
        << m;
    // Below one head's width, or divisible by the head count: accepted.
    const ExperimentsFile f = LoadExperiments(Write("experiments:\n  attn:\n    family: " +
                                                    family + "\n    widths: [16, 130, 768]\n" +
                                                    depths));
    EXPECT_EQ(f.experiments.at(0).widths, (std::vector<int64_t>{16, 130, 768}));
  }
}

// A number is finite (.inf would become a timeout no clock reaches) and within its bound; a
// value left empty says what it may be.
TEST_F(ConfigTest, NumbersAreFiniteAndEmptyValuesSayWhatIsAllowed) {
  const std::string base = "experiments:\n  a:\n    family: conv2d\n    widths: [8]\n";
  std::string m = ExperimentsError(base + "    timeout_s: .inf\n");
  EXPECT_NE(m.find("'experiments.a.timeout_s' must be a number, got '.inf'"), std::string::npos)
      << m;
  m = ExperimentsError(base + "    max_time_s: -0.5\n");
  EXPECT_NE(m.find("'experiments.a.max_time_s' must be >= 0, got -0.5"), std::string::npos) << m;
  m = ExperimentsError(base + "    stop:\n");
  EXPECT_NE(m.find("'experiments.a.stop' is empty (a bare null, ~ or nothing is YAML's empty "
                   "value); allowed values: auto, fixed, ci"),
            std::string::npos)
      << m;
  m = CompilerError("device: ~\n");
  EXPECT_NE(m.find("'device' is empty (a bare null, ~ or nothing is YAML's empty value); allowed "
                   "values: cpu"),
            std::string::npos)
      << m;
  EXPECT_EQ(LoadExperiments(Write(base + "    description: \"\"\n")).experiments.at(0).description,
            "");
}

// scenario and streams: read from defaults and experiments, `auto` as 0; the combinations that
// do not go together refused by CheckScenarioSettings.
TEST_F(ConfigTest, ScenarioAndStreamsAreReadAndValidated) {
  const ExperimentsFile file = LoadExperiments(Write(R"(
defaults:
  batch_sizes: [1]
  streams: 2
  scenario: offline
experiments:
  plain:
    family: conv2d
    widths: [8]
    scenario: single_stream
    streams: 1
  offline:
    family: conv2d
    widths: [8]
  auto:
    family: conv2d
    widths: [8]
    streams: auto
)"));
  EXPECT_EQ(file.Find("plain").scenario, "single_stream");
  EXPECT_EQ(file.Find("plain").streams, 1);
  EXPECT_EQ(file.Find("offline").scenario, "offline");
  EXPECT_EQ(file.Find("offline").streams, 2);
  EXPECT_EQ(file.Find("auto").streams, 0);
  EXPECT_EQ(ExperimentConfig().scenario, "single_stream");
  EXPECT_EQ(ExperimentConfig().streams, 1);

  const std::string base = "experiments:\n  e:\n    family: conv2d\n    widths: [8]\n";
  EXPECT_NE(ExperimentsError(base + "    scenario: batch\n").find("allowed values: "
                                                                  "single_stream, offline, server"),
            std::string::npos);
  EXPECT_NE(ExperimentsError(base + "    streams: 0\n").find("must be >= 1"), std::string::npos);
  EXPECT_NE(ExperimentsError(base + "    streams: many\n").find("positive integer or auto"),
            std::string::npos);
  EXPECT_NE(ExperimentsError(base + "    streams: 100000\n").find("must be <= 1024"),
            std::string::npos);

  ExperimentConfig e;
  EXPECT_NO_THROW(CheckScenarioSettings(e, "experiment 'e'"));
  e.streams = 2;
  try {
    CheckScenarioSettings(e, "experiment 'e'");
    ADD_FAILURE() << "streams without offline";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("streams 2 applies to scenarios offline and server only"),
              std::string::npos)
        << error.what();
  }
  e.scenario = "offline";
  EXPECT_NO_THROW(CheckScenarioSettings(e, "experiment 'e'"));
  e.stop = "ci";
  EXPECT_THROW(CheckScenarioSettings(e, "experiment 'e'"), InputError);
  e.stop = "fixed";
  e.profile = true;
  EXPECT_THROW(CheckScenarioSettings(e, "experiment 'e'"), InputError);
  EXPECT_THROW(CheckScenarioName("batch", "--scenario"), InputError);
  EXPECT_NO_THROW(CheckScenarioName("offline", "--scenario"));
  EXPECT_NO_THROW(CheckScenarioName("server", "--scenario"));
}

// The server settings: read, range-checked with the key named, refused under another scenario,
// and server refused without its rate and bound.
TEST_F(ConfigTest, ServerSettingsAreReadAndValidated) {
  const ExperimentsFile file = LoadExperiments(Write(R"(
defaults:
  batch_sizes: [1]
experiments:
  s:
    family: conv2d
    widths: [8]
    scenario: server
    streams: 2
    target_qps: 12.5
    latency_bound_ms: 50
    latency_percentile: 90
    find_peak: true
    arrival_seed: 7
    server_min_duration_s: 3
)"));
  const ExperimentConfig& s = file.Find("s");
  EXPECT_EQ(s.scenario, "server");
  EXPECT_DOUBLE_EQ(s.server.target_qps, 12.5);
  EXPECT_DOUBLE_EQ(s.server.latency_bound_ms, 50);
  EXPECT_DOUBLE_EQ(s.server.latency_percentile, 90);
  EXPECT_TRUE(s.server.find_peak);
  EXPECT_EQ(s.server.arrival_seed, std::optional<uint64_t>(7));
  EXPECT_DOUBLE_EQ(s.server.min_duration_s, 3);
  EXPECT_DOUBLE_EQ(ServerSettings().latency_percentile, 99);
  EXPECT_FALSE(ServerSettings().find_peak);

  const std::string base = "experiments:\n  e:\n    family: conv2d\n    widths: [8]\n";
  std::string m = ExperimentsError(base + "    target_qps: 0\n");
  EXPECT_NE(m.find("target_qps"), std::string::npos) << m;
  EXPECT_NE(m.find("must be > 0"), std::string::npos) << m;
  m = ExperimentsError(base + "    target_qps: 1e6\n");
  EXPECT_NE(m.find("must be <= 100000"), std::string::npos) << m;
  m = ExperimentsError(base + "    latency_percentile: 100\n");
  EXPECT_NE(m.find("latency_percentile' must be < 100"), std::string::npos) << m;
  m = ExperimentsError(base + "    find_peak: maybe\n");
  EXPECT_NE(m.find("must be true or false"), std::string::npos) << m;

  ExperimentConfig e;
  e.scenario = "server";
  try {
    CheckScenarioSettings(e, "experiment 'e'");
    ADD_FAILURE() << "server without target_qps and latency_bound_ms";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("needs target_qps"), std::string::npos)
        << error.what();
  }
  e.server.target_qps = 20;
  EXPECT_THROW(CheckScenarioSettings(e, "experiment 'e'"), InputError);  // no bound yet
  e.server.latency_bound_ms = 50;
  e.streams = 2;
  EXPECT_NO_THROW(CheckScenarioSettings(e, "experiment 'e'"));
  e.stop = "ci";
  EXPECT_THROW(CheckScenarioSettings(e, "experiment 'e'"), InputError);
  e.stop = "fixed";
  e.scenario = "offline";
  try {
    CheckScenarioSettings(e, "experiment 'e'");
    ADD_FAILURE() << "server settings under offline";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("apply to scenario server only"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace ngraphbench
