// The resolved run specification the scheduler writes for its workers: every field survives the
// file, and a file that is not such a spec is an InputError naming it.
#include "ngraphbench/runner/spec.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "ngraphbench/core/error.h"
#include "ngraphbench/models/zoo.h"
#include "ngraphbench/results/claim.h"
#include "ngraphbench/runner/launch.h"
#include "ngraphbench/runner/plan.h"
#include "require_compiler.h"
#include "temp_dir.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

// A spec whose every field differs from its default.
ResolvedRun FullSpec() {
  ResolvedRun s;
  RunSpec& r = s.run;
  r.run_id = "tiny_make_model_b4";
  r.experiment = "from_file";
  ModelSpec& m = r.model;
  m.family = "torch";
  m.name = "tiny_make_model";
  m.width = 64;
  m.depth = 3;
  m.variant = "resnet50";
  m.size = "50";
  m.network = "resnet";
  m.onnx_path = "/cache/torch/tiny_b4/model.onnx";
  m.torch_source = "models/tiny.py:make_model";
  m.input_shape = {3, 224, 224};
  m.torch_program = "/cache/torch/tiny_b4/program.pt2";
  m.torch_program_error = "torch.export failed: \"data-dependent\" branch\nat line 3";
  m.exact_params = 25557032;
  r.batch_size = 4;
  r.warmup = 3;
  r.repeats = 41;
  r.timeout_s = 123.5;
  r.max_time_s = 7.25;
  r.min_time_s = 0.1;  // not exact in binary: the text must keep every digit
  r.max_repeats = 999;
  r.stop = "ci";
  r.ci_rel_target = 0.015;
  r.ci_min_repeats = 31;
  r.processes = 7;
  r.max_processes = 13;
  r.timing_boundary = "end_to_end";
  r.quick = true;
  r.scenario = "offline";
  r.streams = 3;
  r.server.target_qps = 12.5;  // carried whatever the scenario: the spec is the run as resolved
  r.server.latency_bound_ms = 0.1;
  r.server.latency_percentile = 99.9;
  r.server.find_peak = true;
  r.server.arrival_seed = 18446744073709551615ULL;
  r.server.min_duration_s = 2.5;
  r.check.enabled = false;
  r.check.tolerance_fp32 = 2e-5;
  r.check.tolerance_bf16 = 0.07;
  r.check.tolerance_fp16 = 0.02;
  r.validity.max_ci_rel = 0.04;
  r.validity.min_processes = 4;
  r.validity.max_cv = 0.3;
  r.validity.max_other_cpu_pct = 25;
  r.validity.min_repeats = 11;
  CompilerConfig& c = s.config;
  c.compiler = "onnxruntime";
  c.device = "cuda";
  c.precision = "fp16";
  c.threads = 3;
  c.affinity = "0-2";
  c.opt_level = "extended";
  c.options = Options({{"execution_provider", "cuda"}, {"inter_op_threads", "2"}});
  c.source = "configs/onnxruntime.yaml";
  s.results_dir = "/data/results tree";
  s.device = "node-1.gpu_a";
  s.sample_ms = 25;
  s.config_hash = "0123456789abcdef";
  s.settings = {"warmup=3", "onnxruntime.options.inter_op_threads=2"};
  return s;
}

void ExpectSame(const ResolvedRun& a, const ResolvedRun& b) {
  EXPECT_EQ(a.settings, b.settings);
  const RunSpec& x = a.run;
  const RunSpec& y = b.run;
  EXPECT_EQ(x.run_id, y.run_id);
  EXPECT_EQ(x.experiment, y.experiment);
  EXPECT_EQ(x.model.family, y.model.family);
  EXPECT_EQ(x.model.name, y.model.name);
  EXPECT_EQ(x.model.width, y.model.width);
  EXPECT_EQ(x.model.depth, y.model.depth);
  EXPECT_EQ(x.model.variant, y.model.variant);
  EXPECT_EQ(x.model.size, y.model.size);
  EXPECT_EQ(x.model.network, y.model.network);
  EXPECT_EQ(x.model.onnx_path, y.model.onnx_path);
  EXPECT_EQ(x.model.torch_source, y.model.torch_source);
  EXPECT_EQ(x.model.input_shape, y.model.input_shape);
  EXPECT_EQ(x.model.torch_program, y.model.torch_program);
  EXPECT_EQ(x.model.torch_program_error, y.model.torch_program_error);
  EXPECT_EQ(x.model.exact_params, y.model.exact_params);
  EXPECT_EQ(x.batch_size, y.batch_size);
  EXPECT_EQ(x.warmup, y.warmup);
  EXPECT_EQ(x.repeats, y.repeats);
  EXPECT_EQ(x.timeout_s, y.timeout_s);
  EXPECT_EQ(x.max_time_s, y.max_time_s);
  EXPECT_EQ(x.min_time_s, y.min_time_s);
  EXPECT_EQ(x.max_repeats, y.max_repeats);
  EXPECT_EQ(x.stop, y.stop);
  EXPECT_EQ(x.scenario, y.scenario);
  EXPECT_EQ(x.streams, y.streams);
  EXPECT_EQ(x.server.target_qps, y.server.target_qps);
  EXPECT_EQ(x.server.latency_bound_ms, y.server.latency_bound_ms);
  EXPECT_EQ(x.server.latency_percentile, y.server.latency_percentile);
  EXPECT_EQ(x.server.find_peak, y.server.find_peak);
  EXPECT_EQ(x.server.arrival_seed, y.server.arrival_seed);
  EXPECT_EQ(x.server.min_duration_s, y.server.min_duration_s);
  EXPECT_EQ(x.ci_rel_target, y.ci_rel_target);
  EXPECT_EQ(x.ci_min_repeats, y.ci_min_repeats);
  EXPECT_EQ(x.processes, y.processes);
  EXPECT_EQ(x.max_processes, y.max_processes);
  EXPECT_EQ(x.timing_boundary, y.timing_boundary);
  EXPECT_EQ(x.quick, y.quick);
  EXPECT_EQ(x.check.enabled, y.check.enabled);
  EXPECT_EQ(x.check.tolerance_fp32, y.check.tolerance_fp32);
  EXPECT_EQ(x.check.tolerance_bf16, y.check.tolerance_bf16);
  EXPECT_EQ(x.check.tolerance_fp16, y.check.tolerance_fp16);
  EXPECT_EQ(x.validity.max_ci_rel, y.validity.max_ci_rel);
  EXPECT_EQ(x.validity.min_processes, y.validity.min_processes);
  EXPECT_EQ(x.validity.max_cv, y.validity.max_cv);
  EXPECT_EQ(x.validity.max_other_cpu_pct, y.validity.max_other_cpu_pct);
  EXPECT_EQ(x.validity.min_repeats, y.validity.min_repeats);
  EXPECT_EQ(a.config.compiler, b.config.compiler);
  EXPECT_EQ(a.config.device, b.config.device);
  EXPECT_EQ(a.config.precision, b.config.precision);
  EXPECT_EQ(a.config.threads, b.config.threads);
  EXPECT_EQ(a.config.affinity, b.config.affinity);
  EXPECT_EQ(a.config.opt_level, b.config.opt_level);
  EXPECT_EQ(a.config.options.values(), b.config.options.values());
  EXPECT_EQ(a.config.source, b.config.source);
  EXPECT_EQ(a.results_dir, b.results_dir);
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.sample_ms, b.sample_ms);
  EXPECT_EQ(a.config_hash, b.config_hash);
}

class Spec : public test_support::TempDirTest {
 protected:
  Spec() : TempDirTest("spec_") {}

  std::string Write(const std::string& name, const std::string& text) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  // The InputError that reading `path` throws; fails the test when there is none.
  std::string ReadError(const std::string& path) const {
    try {
      ReadResolvedRun(path);
    } catch (const InputError& e) {
      return e.what();
    }
    ADD_FAILURE() << path << " was read as a spec";
    return "";
  }
};

TEST_F(Spec, EveryFieldSurvivesTheText) {
  const ResolvedRun spec = FullSpec();
  ExpectSame(ParseResolvedRun(FormatResolvedRun(spec), "test"), spec);
  ResolvedRun unset = FullSpec();
  unset.run.validity.max_cv.reset();
  EXPECT_EQ(ParseResolvedRun(FormatResolvedRun(unset), "test").run.validity.max_cv, std::nullopt);
}

TEST_F(Spec, AFileRoundTripsAndGoesWithItsHolder) {
  ResolvedRun spec = FullSpec();
  spec.results_dir = (dir_ / "results").string();
  std::string path;
  {
    const SpecFile file(spec);
    path = file.path();
    // <results>/.tmp/spec-<host>-<pid>-XXXXXX.json: what the stale-file cleanup parses.
    EXPECT_EQ(fs::path(path).parent_path(), dir_ / "results" / ".tmp");
    const std::string name = fs::path(path).filename().string();
    const std::string prefix =
        std::string(kSpecFilePrefix) + HostTag() + "-" + std::to_string(::getpid()) + "-";
    EXPECT_EQ(name.rfind(prefix, 0), 0u) << name;
    EXPECT_EQ(name.size(), prefix.size() + 6 + 5) << name;  // XXXXXX and .json
    ExpectSame(ReadResolvedRun(path), spec);
    SpecFile other(spec);
    const std::string other_path = other.path();
    EXPECT_NE(other_path, path);
    {
      const SpecFile moved(std::move(other));
      EXPECT_EQ(moved.path(), other_path);
    }
    EXPECT_FALSE(fs::exists(other_path));  // the moved-to file removes it, and only it
    EXPECT_TRUE(fs::exists(path));
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(fs::is_empty(dir_ / "results" / ".tmp"));
}

TEST_F(Spec, AMalformedFileIsAnInputErrorNamingIt) {
  const std::string good = FormatResolvedRun(FullSpec());
  const std::string not_json = Write("not_json.json", good.substr(0, good.size() / 2));
  EXPECT_NE(ReadError(not_json).find(not_json), std::string::npos) << ReadError(not_json);

  const std::string array = Write("array.json", "[1, 2]");
  EXPECT_NE(ReadError(array).find(array), std::string::npos);

  std::string text = good;
  text.replace(text.find("\"run_id\""), 8, "\"run_name\"");
  const std::string missing = Write("missing.json", text);
  EXPECT_NE(ReadError(missing).find(missing), std::string::npos);
  EXPECT_NE(ReadError(missing).find("run.run_id: missing"), std::string::npos)
      << ReadError(missing);

  text = good;
  text.replace(text.find("\"batch_size\": 4"), 15, "\"batch_size\": \"4\"");
  const std::string wrong_type = Write("wrong_type.json", text);
  EXPECT_NE(ReadError(wrong_type).find(wrong_type), std::string::npos);
  EXPECT_NE(ReadError(wrong_type).find("run.batch_size"), std::string::npos)
      << ReadError(wrong_type);

  text = good;
  text.replace(text.find("\"ngraphbench_spec\": 3"), 21, "\"ngraphbench_spec\": 99");
  const std::string other_format = Write("other_format.json", text);
  EXPECT_NE(ReadError(other_format).find(other_format), std::string::npos);
  EXPECT_NE(ReadError(other_format).find("format 99"), std::string::npos)
      << ReadError(other_format);

  const std::string absent = (dir_ / "absent.json").string();
  EXPECT_NE(ReadError(absent).find(absent), std::string::npos);
}

// The timeout a run's workers get: the experiment's timeout_s, and for a run that tunes (tvm with
// a trial budget, not --quick) the tuning's cap on top, so that a tuning within its own budget
// is never killed as a hung worker.
TEST(Plan, ARunThatTunesHasTheTuningCapAddedToItsTimeout) {
  NGB_REQUIRE_BUILT("tvm");
  const test_support::ScratchDir scratch("plan_");
  const fs::path& dir = scratch.path();
  std::ofstream(dir / "experiments.yaml")
      << "defaults:\n  timeout_s: 900\n  batch_sizes: [1]\n  quick_batch_sizes: [1]\n"
      << "experiments:\n  tiny:\n    family: linear\n    widths: [8]\n";
  std::ofstream(dir / "tvm.yaml") << "options:\n  tuning_trials: 16\n  tuning_timeout_s: 300\n";
  RunArgs args;
  args.grid.experiment = "tiny";
  args.grid.configs_dir = dir.string();
  args.results_dir = (dir / "results").string();
  const auto timeout = [](const RunArgs& a) {
    return MakePlan(a, "tvm", {0}).runs.at(0).timeout_s;
  };
  EXPECT_DOUBLE_EQ(timeout(args), 1200);
  RunArgs quick = args;
  quick.grid.quick = true;
  EXPECT_DOUBLE_EQ(timeout(quick), 900);
  RunArgs untuned = args;
  untuned.grid.settings = {"options.tuning_trials=0"};
  EXPECT_DOUBLE_EQ(timeout(untuned), 900);
}

// The estimate's facts of a model (MACs, kernels, graph nodes) are built once per results tree
// and read back from its cache; an entry that is not what this build writes (an older one
// without the nodes, a damaged one) is built again and replaced.
TEST(Plan, ModelFactsKeepTheGraphsNodesInTheResultsTreesCache) {
  const test_support::ScratchDir scratch("facts_");
  const std::string results = (scratch.path() / "results").string();
  RunSpec run;
  run.model.family = "conv_block";
  run.model.name = "conv_blocks_w8_d3";
  run.model.width = 8;
  run.model.depth = 3;
  run.batch_size = 4;
  const int64_t nodes = static_cast<int64_t>(BuildModel(run.model, 1).nodes.size());
  ASSERT_GE(nodes, 3);
  const ModelFacts built = LoadModelFacts({run}, results).at(run.model.name);
  EXPECT_EQ(built.nodes, nodes);
  EXPECT_GT(built.macs, 0);
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(fs::path(results) / ".cache" / "macs")) {
    entries.push_back(e.path());
  }
  ASSERT_EQ(entries.size(), 1u);
  const auto lines = [](const fs::path& file) {
    std::vector<std::string> out;
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  };
  std::vector<std::string> entry = lines(entries[0]);
  ASSERT_EQ(entry.size(), 3u);
  EXPECT_EQ(entry[2], std::to_string(nodes));
  // What the cache says is what the estimate gets.
  std::ofstream(entries[0]) << entry[0] << "\n" << entry[1] << "\n7\n";
  EXPECT_EQ(LoadModelFacts({run}, results).at(run.model.name).nodes, 7);
  // An entry of two lines (MACs and kernels, no nodes) or with a third line that is not a
  // count is built again and replaced.
  for (const std::string& damaged :
       {entry[0] + "\n" + entry[1] + "\n", entry[0] + "\n" + entry[1] + "\n-3\n",
        entry[0] + "\n" + entry[1] + "\n9\n9\n"}) {
    std::ofstream(entries[0]) << damaged;
    EXPECT_EQ(LoadModelFacts({run}, results).at(run.model.name).nodes, nodes) << damaged;
    EXPECT_EQ(lines(entries[0]), entry) << damaged;
  }
}

}  // namespace
}  // namespace ngraphbench
