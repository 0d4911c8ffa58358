// The settings fingerprint: the same settings give the same hash, and every setting that
// changes the measurement changes it.
#include "ngraphbench/experiments/fingerprint.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/experiments/config.h"
#include "ngraphbench/models/zoo.h"

namespace ngraphbench {
namespace {

RunSpec BaseRun() {
  RunSpec run;
  run.run_id = "conv2d_w16_b1";
  run.experiment = "conv2d";
  run.model = SyntheticSpec("conv2d", "conv2d", 16, 0);
  run.batch_size = 1;
  run.warmup = 10;
  run.repeats = 100;
  run.max_time_s = 60;
  run.min_time_s = 0.5;
  run.max_repeats = 100000;
  run.timing_boundary = "compute";
  return run;
}

CompilerConfig BaseConfig() {
  CompilerConfig c;
  c.compiler = "onnxruntime";
  c.device = "cpu";
  c.precision = "fp32";
  c.threads = 2;
  c.opt_level = "all";
  c.options = Options({{"execution_mode", "sequential"}, {"inter_op_threads", "1"}});
  return c;
}

TEST(Fingerprint, SameSettingsSameHash) {
  const std::string h = ConfigHash(BaseRun(), BaseConfig(), 10);
  EXPECT_TRUE(std::regex_match(h, std::regex("[0-9a-f]{16}"))) << h;
  EXPECT_EQ(h, ConfigHash(BaseRun(), BaseConfig(), 10));
  // Where results go, the timeout and the validity thresholds do not change the measurement.
  RunSpec run = BaseRun();
  run.timeout_s = 12345;
  run.validity.max_cv = 0.01;
  run.validity.min_repeats = 999;
  CompilerConfig config = BaseConfig();
  config.source = "/elsewhere/onnxruntime.yaml";
  EXPECT_EQ(h, ConfigHash(run, config, 10));
}

// A user's .onnx file is fingerprinted by its content: a re-export of the same size is another
// model (resume must not keep its rows, nor the output check use its cached reference).
TEST(Fingerprint, AnOnnxFileIsHashedByItsContent) {
  const std::string path =
      ::testing::TempDir() + "/ngb_fingerprint_model_" + std::to_string(::getpid()) + ".onnx";
  auto write = [&](const std::string& bytes) { std::ofstream(path, std::ios::trunc) << bytes; };
  RunSpec run = BaseRun();
  run.model.family = "onnx";
  run.model.onnx_path = path;
  write("first model bytes");
  const std::string first = ConfigHash(run, BaseConfig(), 10);
  EXPECT_EQ(first, ConfigHash(run, BaseConfig(), 10));
  write("other model bytes");  // the same size
  const std::string other = ConfigHash(run, BaseConfig(), 10);
  EXPECT_NE(first, other);
  write("first model bytes");
  EXPECT_EQ(first, ConfigHash(run, BaseConfig(), 10));
  std::remove(path.c_str());
}

TEST(Fingerprint, EverySettingThatChangesTheMeasurementChangesTheHash) {
  const std::string base = ConfigHash(BaseRun(), BaseConfig(), 10);
  const std::vector<std::pair<std::string, std::function<void(RunSpec&, CompilerConfig&, int&)>>>
      changes = {
          {"experiment", [](RunSpec& r, CompilerConfig&, int&) { r.experiment = "other"; }},
          {"model width", [](RunSpec& r, CompilerConfig&,
                             int&) { r.model = SyntheticSpec("conv2d", "conv2d", 32, 0); }},
          {"model depth", [](RunSpec& r, CompilerConfig&, int&) { r.model.depth = 2; }},
          {"batch size", [](RunSpec& r, CompilerConfig&, int&) { r.batch_size = 8; }},
          {"warmup", [](RunSpec& r, CompilerConfig&, int&) { r.warmup = 5; }},
          {"repeats", [](RunSpec& r, CompilerConfig&, int&) { r.repeats = 50; }},
          {"max_time_s", [](RunSpec& r, CompilerConfig&, int&) { r.max_time_s = 5; }},
          {"min_time_s", [](RunSpec& r, CompilerConfig&, int&) { r.min_time_s = 1; }},
          {"max_repeats", [](RunSpec& r, CompilerConfig&, int&) { r.max_repeats = 1000; }},
          {"timing boundary",
           [](RunSpec& r, CompilerConfig&, int&) { r.timing_boundary = "end_to_end"; }},
          {"quick", [](RunSpec& r, CompilerConfig&, int&) { r.quick = true; }},
          {"stop ci", [](RunSpec& r, CompilerConfig&, int&) { r.stop = "ci"; }},
          {"stop ci, other target",
           [](RunSpec& r, CompilerConfig&, int&) {
             r.stop = "ci";
             r.ci_rel_target = 0.05;
           }},
          {"check off", [](RunSpec& r, CompilerConfig&, int&) { r.check.enabled = false; }},
          {"fp32 tolerance",
           [](RunSpec& r, CompilerConfig&, int&) { r.check.tolerance_fp32 = 1e-3; }},
          {"bf16 tolerance",
           [](RunSpec& r, CompilerConfig&, int&) { r.check.tolerance_bf16 = 1e-3; }},
          {"fp16 tolerance",
           [](RunSpec& r, CompilerConfig&, int&) { r.check.tolerance_fp16 = 1e-3; }},
          {"compiler", [](RunSpec&, CompilerConfig& c, int&) { c.compiler = "openvino"; }},
          {"device", [](RunSpec&, CompilerConfig& c, int&) { c.device = "cuda"; }},
          {"precision", [](RunSpec&, CompilerConfig& c, int&) { c.precision = "bf16"; }},
          {"threads", [](RunSpec&, CompilerConfig& c, int&) { c.threads = 1; }},
          {"affinity", [](RunSpec&, CompilerConfig& c, int&) { c.affinity = "compact"; }},
          {"opt_level", [](RunSpec&, CompilerConfig& c, int&) { c.opt_level = "disable"; }},
          {"an option",
           [](RunSpec&, CompilerConfig& c, int&) {
             c.options = Options({{"execution_mode", "parallel"}, {"inter_op_threads", "1"}});
           }},
          {"sampler period", [](RunSpec&, CompilerConfig&, int& ms) { ms = 0; }},
          {"processes", [](RunSpec& r, CompilerConfig&, int&) { r.processes = 1; }},
          {"scenario offline",
           [](RunSpec& r, CompilerConfig&, int&) { r.scenario = "offline"; }},
          {"offline, 2 streams",
           [](RunSpec& r, CompilerConfig&, int&) {
             r.scenario = "offline";
             r.streams = 2;
           }},
          {"offline, streams auto",
           [](RunSpec& r, CompilerConfig&, int&) {
             r.scenario = "offline";
             r.streams = 0;
           }},
          {"server",
           [](RunSpec& r, CompilerConfig&, int&) {
             r.scenario = "server";
             r.server.target_qps = 20;
             r.server.latency_bound_ms = 50;
           }},
          {"server, another rate",
           [](RunSpec& r, CompilerConfig&, int&) {
             r.scenario = "server";
             r.server.target_qps = 30;
             r.server.latency_bound_ms = 50;
           }},
          {"server, another bound",
           [](RunSpec& r, CompilerConfig&, int&) {
             r.scenario = "server";
             r.server.target_qps = 20;
             r.server.latency_bound_ms = 100;
           }},
          {"server, p90",
           [](RunSpec& r, CompilerConfig&, int&) {
             r.scenario = "server";
             r.server.target_qps = 20;
             r.server.latency_bound_ms = 50;
             r.server.latency_percentile = 90;
           }},
          {"server, find_peak",
           [](RunSpec& r, CompilerConfig&, int&) {
             r.scenario = "server";
             r.server.target_qps = 20;
             r.server.latency_bound_ms = 50;
             r.server.find_peak = true;
           }},
          {"server, a seed",
           [](RunSpec& r, CompilerConfig&, int&) {
             r.scenario = "server";
             r.server.target_qps = 20;
             r.server.latency_bound_ms = 50;
             r.server.arrival_seed = 1;
           }},
          {"server, another minimum duration",
           [](RunSpec& r, CompilerConfig&, int&) {
             r.scenario = "server";
             r.server.target_qps = 20;
             r.server.latency_bound_ms = 50;
             r.server.min_duration_s = 30;
           }},
      };
  std::set<std::string> seen = {base};
  for (const auto& [what, change] : changes) {
    RunSpec run = BaseRun();
    CompilerConfig config = BaseConfig();
    int sample_ms = 10;
    change(run, config, sample_ms);
    const std::string h = ConfigHash(run, config, sample_ms);
    EXPECT_NE(h, base) << what;
    EXPECT_TRUE(seen.insert(h).second) << what << " collides with another change";
  }
}

TEST(Fingerprint, TextNamesEachSetting) {
  const std::string text = FingerprintText(BaseRun(), BaseConfig(), 10);
  for (const char* key :
       {"batch_size=1\n", "quick=false\n", "compiler.threads=2\n", "compiler.precision=fp32\n",
        "compiler.options.execution_mode=sequential\n", "timing_boundary=compute\n", "check=on\n",
        "sample_ms=10\n"}) {
    EXPECT_NE(text.find(key), std::string::npos) << key << " in\n" << text;
  }
}

// Every row measured before scenarios was one stream: single_stream leaves the scenario out of
// the text (CompilerDescriptionsKeepTheHashesOfExistingRows pins the hashes themselves), and
// offline names it with its streams.
TEST(Fingerprint, OnlyAnotherScenarioThanSingleStreamIsInTheText) {
  RunSpec run = BaseRun();
  const std::string single = FingerprintText(run, BaseConfig(), 10);
  EXPECT_EQ(single.find("scenario"), std::string::npos) << single;
  EXPECT_EQ(single.find("streams"), std::string::npos) << single;
  run.scenario = "offline";
  run.streams = 0;
  const std::string offline = FingerprintText(run, BaseConfig(), 10);
  EXPECT_NE(offline.find("timing_boundary=compute\nscenario=offline\nstreams=auto\n"),
            std::string::npos)
      << offline;
}

TEST(Fingerprint, CiSettingsMatterOnlyUnderTheCiRule) {
  RunSpec run = BaseRun();
  const std::string fixed = ConfigHash(run, BaseConfig(), 10);
  run.ci_rel_target = 0.2;
  run.ci_min_repeats = 99;
  run.max_processes = 50;
  EXPECT_EQ(ConfigHash(run, BaseConfig(), 10), fixed);
}

// The hashes rows already on disk carry: computed with the compiler list that was compiled into
// registry.cc before compilers described themselves in compiler.yaml. The same option keys,
// defaults and canonical text must give the same hashes, or every existing row would be rerun
// on resume. Compilers added since have no rows to keep and are not listed.
// An option added later (OptionSpec::neutral_value) counts only away from its neutral value:
// tvm's tuning_patience 0 keeps the rows of before; 8 is another setting.
TEST(Fingerprint, AnOptionAtItsNeutralValueIsLeftOut) {
  RunSpec run = BaseRun();
  CompilerConfig config = DefaultCompilerConfig(FindCompiler("tvm"), 2);
  std::map<std::string, std::string> values = config.options.values();
  values["tuning_patience"] = "0";
  config.options = Options(values);
  EXPECT_EQ(FingerprintText(run, config, 10).find("tuning_patience"), std::string::npos);
  const std::string before = ConfigHash(run, config, 10);
  values["tuning_patience"] = "8";
  config.options = Options(values);
  EXPECT_NE(FingerprintText(run, config, 10).find("compiler.options.tuning_patience=8"),
            std::string::npos);
  EXPECT_NE(ConfigHash(run, config, 10), before);
}

TEST(Fingerprint, CompilerDescriptionsKeepTheHashesOfExistingRows) {
  const std::map<std::string, std::pair<std::string, std::string>> expected = {
      // name: {defaults of the description, configs/<name>.yaml}, both with 2 cores
      // null's rows are the pipeline tests', never results: its hash changed with alloc_mb,
      // profile_fail and degrade_batch.
      {"null", {"6718a84dab94012a", "6718a84dab94012a"}},
      {"onnxruntime", {"43e50f6d3a82acad", "43e50f6d3a82acad"}},
      {"tensorrt", {"8ffb06ede5a33e66", "8ffb06ede5a33e66"}},
      {"identity", {"73e99af43433ab9b", "73e99af43433ab9b"}},
      {"torchscript", {"b4b829232cac27d3", "b4b829232cac27d3"}},
      {"openvino", {"251bdacd4b7b7280", "251bdacd4b7b7280"}},
      // tvm's were bdc2d1d9139c387c while it was untuned by default; tuned by default (200
      // trials, patience 8, timeout 3600 s) it measures another library, and its rows measured
      // with the old defaults are measured again on resume.
      {"tvm", {"1f358f6b1340fdea", "1f358f6b1340fdea"}},
  };
  for (const auto& [name, hashes] : expected) {
    const CompilerInfo& info = FindCompiler(name);
    RunSpec run = BaseRun();
    run.processes = 1;  // how those rows were measured
    // And at threads 2, every core of 2, the default then; `threads: auto` now resolves to 1
    // there, a setting of its own whose rows are new.
    CompilerConfig defaults = DefaultCompilerConfig(info, 2);
    ASSERT_EQ(defaults.threads, 1) << name;
    defaults.threads = 2;
    EXPECT_EQ(ConfigHash(run, defaults, 10), hashes.first)
        << name << " defaults:\n" << FingerprintText(run, defaults, 10);
    CompilerConfig shipped =
        LoadCompilerConfig(std::string(NGB_SOURCE_DIR) + "/configs/" + name + ".yaml", info, 2);
    shipped.threads = 2;
    EXPECT_EQ(ConfigHash(run, shipped, 10), hashes.second)
        << name << " configs/" << name << ".yaml:\n" << FingerprintText(run, shipped, 10);
  }
}

}  // namespace
}  // namespace ngraphbench
