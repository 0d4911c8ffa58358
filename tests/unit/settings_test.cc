// A run's settings are resolved once (ResolveSweepSettings): the plan, the probe, `expand`,
// shards and reproduce: lines see the same threads, and a shard's partition does not depend on
// the machine that computes it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ngraphbench/experiments/config.h"
#include "ngraphbench/experiments/resolve.h"
#include "ngraphbench/models/zoo.h"
#include "ngraphbench/runner/model.h"
#include "ngraphbench/runner/plan.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

std::vector<int> Cpus(int n) {
  std::vector<int> cpus;
  for (int i = 0; i < n; ++i) cpus.push_back(i);
  return cpus;
}

RunArgs Args(const std::string& experiment) {
  RunArgs args;
  args.grid.experiment = experiment;
  args.grid.configs_dir = NGB_SOURCE_DIR "/configs";
  args.results_dir = NGB_BINARY_DIR "/settings_test_results";
  fs::create_directories(args.results_dir);
  return args;
}

std::vector<std::string> Ids(const std::vector<RunSpec>& runs) {
  std::vector<std::string> ids;
  for (const RunSpec& run : runs) ids.push_back(run.run_id);
  return ids;
}

// Two nodes, of 2 and of 16 cores, each compute their shard of conv2d for openvino (`threads:
// auto`: 1 thread on one, 15 on the other): the same partition.
TEST(ShardRuns, TheSamePartitionOnNodesOfDifferentSizes) {
  RunArgs args = Args("conv2d");
  args.compiler = "openvino";
  const SweepSettings small = ResolveSweepSettings(args, "openvino", Cpus(2));
  const SweepSettings large = ResolveSweepSettings(args, "openvino", Cpus(16));
  ASSERT_EQ(small.config.threads, 1);
  ASSERT_EQ(large.config.threads, 15);
  std::vector<std::string> all;
  for (const char* shard : {"1/3", "2/3", "3/3"}) {
    args.shard = shard;
    const std::vector<std::string> on_small =
        Ids(ShardRuns(small.runs, args, small.config, nullptr, nullptr));
    EXPECT_EQ(on_small, Ids(ShardRuns(large.runs, args, large.config, nullptr, nullptr)))
        << shard;
    all.insert(all.end(), on_small.begin(), on_small.end());
  }
  EXPECT_EQ(all.size(), small.runs.size());
}

// Under --jobs 2 on 8 CPUs a worker gets 4 of them, so `threads: auto` is 3; the probe and a
// reproduce: line, started with the pinned settings wherever they run, resolve 3 too.
TEST(ResolveSweepSettings, JobsThreadsReachTheProbeAndReproduceLines) {
  RunArgs args = Args("conv2d");
  args.jobs = 2;
  args.grid.settings = {"threads=auto", "warmup=3"};
  const SweepSettings plan = ResolveSweepSettings(args, "onnxruntime", Cpus(8));
  EXPECT_EQ(plan.config.threads, AutoThreads(4));
  const std::vector<std::string> pinned = PinnedSettings(args.grid.settings, plan.config);
  EXPECT_EQ(pinned, (std::vector<std::string>{"warmup=3", "onnxruntime.threads=3"}));
  RunArgs child = args;
  child.jobs = 1;
  child.grid.settings = pinned;
  EXPECT_EQ(ResolveSweepSettings(child, "onnxruntime", Cpus(16)).config.threads, 3);
  EXPECT_EQ(ResolveSweepSettings(child, "onnxruntime", Cpus(2)).config.threads, 3);
  // A compiler-scoped threads setting is replaced, not given twice.
  EXPECT_EQ(PinnedSettings({"onnxruntime.threads=0"}, plan.config),
            (std::vector<std::string>{"onnxruntime.threads=3"}));
}

// A run that tunes gets the tuning's cap on its worker's timeout, wherever it is resolved; a
// --quick run never tunes.
TEST(ResolveSweepSettings, TuningRunsGetTheTuningCapOnTheirTimeout) {
  RunArgs args = Args("conv2d");
  const SweepSettings tvm = ResolveSweepSettings(args, "tvm", Cpus(2));
  const SweepSettings ort = ResolveSweepSettings(args, "onnxruntime", Cpus(2));
  ASSERT_FALSE(tvm.runs.empty());
  EXPECT_EQ(tvm.runs.front().timeout_s,
            ort.runs.front().timeout_s + tvm.config.options.Int("tuning_timeout_s"));
  args.grid.quick = true;
  EXPECT_EQ(ResolveSweepSettings(args, "tvm", Cpus(2)).runs.front().timeout_s,
            ResolveSweepSettings(args, "onnxruntime", Cpus(2)).runs.front().timeout_s);
}

// A compiler's precision, set for every compiler or for one, suffixes its runs' ids (fp32's are
// the grid's); the run of each precision draws the same inputs.
TEST(ResolveSweepSettings, RunIdsCarryTheCompilersPrecision) {
  RunArgs args = Args("conv2d");
  args.grid.quick = true;
  const std::vector<std::string> grid = Ids(ResolveGrid(args.grid));
  args.grid.settings = {"openvino.precision=int8"};
  const SweepSettings ov = ResolveSweepSettings(args, "openvino", Cpus(2));
  const SweepSettings ort = ResolveSweepSettings(args, "onnxruntime", Cpus(2));
  ASSERT_EQ(ov.runs.size(), grid.size());
  for (size_t i = 0; i < grid.size(); ++i) {
    EXPECT_EQ(ov.runs[i].run_id, grid[i] + "_int8");
    EXPECT_EQ(ort.runs[i].run_id, grid[i]);
  }
  args.grid.settings = {"precision=bf16"};
  EXPECT_EQ(ResolveSweepSettings(args, "openvino", Cpus(2)).runs.front().run_id,
            grid.front() + "_bf16");
  const Graph graph = BuildModel(ov.runs.front().model, 1);
  const std::vector<HostTensor> int8 = worker::RunInputs(graph, ov.runs.front());
  const std::vector<HostTensor> fp32 = worker::RunInputs(graph, ort.runs.front());
  ASSERT_FALSE(int8.empty());
  EXPECT_EQ(int8.front().data, fp32.front().data);
  EXPECT_EQ(worker::RedrawnInputs(graph, ov.runs.front()).front().data,
            worker::RedrawnInputs(graph, ort.runs.front()).front().data);
}

}  // namespace
}  // namespace ngraphbench
