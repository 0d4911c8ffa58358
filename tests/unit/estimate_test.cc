// Estimates of a run's wall time, and shards balanced by them.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/experiments/estimate.h"
#include "ngraphbench/measure/aggregate.h"  // kMinProcessWarmup

namespace ngraphbench {
namespace {

// A compiler's prior compile (its description's prior_compile_s), for a model of unknown nodes.
double PriorCompileS(const std::string& compiler) {
  return FindCompiler(compiler).prior_compile_s;
}

RunSpec Spec(const std::string& model, int64_t batch) {
  RunSpec run;
  run.run_id = model + "_b" + std::to_string(batch);
  run.experiment = "exp";
  run.model.name = model;
  run.batch_size = batch;
  run.warmup = 10;
  run.repeats = 100;
  run.max_time_s = 60;
  run.min_time_s = 0.5;
  run.timeout_s = 600;
  run.processes = 1;  // the figures below are one process's; Processes... tests more
  return run;
}

ResultRow Row(const std::string& model, int64_t batch, double latency_ms, double macs) {
  ResultRow row;
  row.run_id = model + "_b" + std::to_string(batch);
  row.experiment = "exp";
  row.model = model;
  row.batch_size = batch;
  row.status = kStatusOk;
  row.latency_mean_ms = latency_ms;
  row.macs = static_cast<int64_t>(macs);
  row.build_s = 0.1;
  row.compile_s = 0.4;
  row.first_run_ms = latency_ms;
  return row;
}

TEST(Estimate, OwnRowGivesItsTimedWindowAndCompileTime) {
  EstimateInputs in;
  in.compiler = "onnxruntime";
  ResultRow row = Row("m", 4, 10.0, 1e9);
  row.timed_window_s = 3.0;
  in.measured[row.run_id] = row;
  const RunCost cost = EstimateRun(Spec("m", 4), in);
  EXPECT_EQ(cost.source, "measured");
  // overhead kRunOverheadS + build 0.1 + compile 0.4 + first run 0.01 + latency 0.01 + warmup
  // 10 x 0.01 + timed window 3.0
  EXPECT_NEAR(cost.seconds, kRunOverheadS + 0.1 + 0.4 + 0.01 + 0.01 + 0.1 + 3.0, 1e-9);
}

// K processes each start, build, compile, run once and warm up (their share of the warmup
// runs, at least kMinProcessWarmup, within their share of the cap); their timed runs together
// are one process's.
TEST(Estimate, ProcessesEachPayTheirStartAndShareTheTimedRuns) {
  EstimateInputs in;
  in.compiler = "onnxruntime";
  ResultRow row = Row("m", 4, 10.0, 1e9);
  row.timed_window_s = 3.0;
  in.measured[row.run_id] = row;
  RunSpec run = Spec("m", 4);
  run.processes = 5;
  // per process: overhead kRunOverheadS + build 0.1 + compile 0.4 + first run 0.01 + latency
  // 0.01 + warmup 4 x 0.01 (a fifth of 10 is 2, below kMinProcessWarmup) + a fifth of the
  // timed window 0.6
  static_assert(kMinProcessWarmup == 4);
  EXPECT_NEAR(EstimateRun(run, in).seconds,
              5 * (kRunOverheadS + 0.1 + 0.4 + 0.01 + 0.01 + 0.04 + 0.6), 1e-9);
  // A slow model: the processes' timed runs share the 60 s cap (each keeps at least 3 timed
  // runs, 2.4 s here), and each warms up within a fifth of it.
  in.measured.clear();
  in.macs = {{"m", 1e9}, {"big", 1e11}};
  in.measured["m_b1"] = Row("m", 1, 2.0, 1e9);
  run = Spec("big", 4);
  run.processes = 5;
  // 0.8 s a batch: warmup min(4 x 0.8, 12) = 3.2 s; timed min(max(80, 0.5), 60) = 60 s in all
  // (more than 5 x 2.4 s): 12 s each
  EXPECT_NEAR(EstimateRun(run, in).seconds,
              5 * (kRunOverheadS + 0.1 + 0.4 + 0.002 + 0.8 + 3.2 + 12.0), 1e-6);
  run.warmup = 100;  // a fifth of a longer warmup: 20 x 0.8 s, then the cap's fifth, 12 s
  EXPECT_NEAR(EstimateRun(run, in).seconds,
              5 * (kRunOverheadS + 0.1 + 0.4 + 0.002 + 0.8 + 12.0 + 12.0), 1e-6);
}

TEST(Estimate, OtherBatchOfTheSameModelScalesByBatch) {
  EstimateInputs in;
  in.compiler = "onnxruntime";
  in.measured["m_b1"] = Row("m", 1, 10.0, 1e9);
  in.measured["m_b8"] = Row("m", 8, 80.0, 1e9);
  in.measured["other_b2"] = Row("other", 2, 1.0, 1e6);
  in.macs = {{"m", 1e9}, {"other", 1e6}};
  const RunCost cost = EstimateRun(Spec("m", 16), in);
  EXPECT_EQ(cost.source, "scaled from m_b8");  // the nearest batch size of the same model
  // latency 160 ms: warmup 1.6 s, 100 timed runs 16 s
  EXPECT_NEAR(cost.seconds, kRunOverheadS + 0.1 + 0.4 + 0.08 + 0.16 + 1.6 + 16.0, 1e-9);
}

TEST(Estimate, OtherModelScalesByMacsTimesBatchAndCapsAtMaxTime) {
  EstimateInputs in;
  in.compiler = "onnxruntime";
  in.measured["small_b1"] = Row("small", 1, 2.0, 1e9);
  in.macs = {{"small", 1e9}, {"big", 10e9}};
  RunCost cost = EstimateRun(Spec("big", 4), in);
  EXPECT_EQ(cost.source, "scaled from small_b1");
  // latency 2 ms x 40 = 80 ms: warmup 0.8 s, timed 8 s
  EXPECT_NEAR(cost.seconds, kRunOverheadS + 0.1 + 0.4 + 0.002 + 0.08 + 0.8 + 8.0, 1e-9);
  // Without the MACs of the run, another model cannot be scaled from: the prior.
  in.macs.erase("big");
  EXPECT_EQ(EstimateRun(Spec("big", 4), in).source, "prior");
  // Warmup stops at max_time_s; the timed runs too, but not before 10 of them (the harness's
  // kMinTimedRepeats); the whole run at its timeout.
  in.macs["big"] = 1e11;  // 0.8 s per batch
  cost = EstimateRun(Spec("big", 4), in);
  EXPECT_NEAR(cost.seconds, kRunOverheadS + 0.502 + 0.8 + 8.0 + 60.0, 1e-6);
  in.macs["big"] = 1e13;  // 80 s per batch: 10 timed runs alone pass the timeout
  EXPECT_EQ(EstimateRun(Spec("big", 4), in).seconds, 600.0);
}

TEST(Estimate, PriorWithoutRowsAndFailedRowsEndEarly) {
  EstimateInputs in;
  in.compiler = "tvm";
  in.threads = 2;
  in.macs = {{"m", 120e9}};
  const RunCost cost = EstimateRun(Spec("m", 1), in);
  EXPECT_EQ(cost.source, "prior");
  // 120 G MACs at 60 G/s/thread x 2 threads: 1 s per batch; warmup 10 s, 100 timed runs 60 s
  // cap; tvm's prior compile
  EXPECT_NEAR(cost.seconds, kRunOverheadS + PriorCompileS("tvm") + 1.0 + 10.0 + 60.0, 1e-9);
  ResultRow failed = Row("m", 1, 0, 0);
  failed.status = kStatusError;
  failed.latency_mean_ms.reset();
  in.measured[failed.run_id] = failed;
  EXPECT_EQ(EstimateRun(Spec("m", 1), in).source, "measured (error)");
  EXPECT_NEAR(EstimateRun(Spec("m", 1), in).seconds, kRunOverheadS + 0.1 + 0.4, 1e-9);
  failed.status = kStatusTimeout;
  in.measured[failed.run_id] = failed;
  EXPECT_EQ(EstimateRun(Spec("m", 1), in).seconds, 600.0);
}

EstimateInputs WithoutNodes(EstimateInputs in) {
  in.nodes.clear();
  return in;
}

// A compile takes longer for a larger graph (prior_compile_s_per_node): without rows, the prior
// charges each node of the model; scaled from another model's row, the nodes they differ in, to
// the first process only for a compiler whose later processes load the compile cache.
TEST(Estimate, CompileGrowsWithTheModelsNodes) {
  for (const std::string compiler : {"inductor", "executorch"}) {
    const double per_node = FindCompiler(compiler).prior_compile_s_per_node;
    ASSERT_GT(per_node, 0) << compiler;
    ASSERT_TRUE(FindCompiler(compiler).caches_compile) << compiler;
    EstimateInputs in;
    in.compiler = compiler;
    in.macs = {{"small", 1e6}, {"big", 1e6}};
    const double unknown = EstimateRun(Spec("big", 1), in).seconds;
    in.nodes = {{"small", 10}, {"big", 410}};
    EXPECT_EQ(EstimateRun(Spec("big", 1), in).source, "prior");
    EXPECT_NEAR(EstimateRun(Spec("big", 1), in).seconds - unknown, 410 * per_node, 1e-9)
        << compiler;
    RunSpec three = Spec("big", 1);
    three.processes = 3;
    three.stop = "fixed";
    EXPECT_NEAR(EstimateRun(three, in).seconds - EstimateRun(three, WithoutNodes(in)).seconds,
                410 * per_node, 1e-9)
        << compiler << ": the later processes load the cache";
    // Scaled from the small model's row: its build, compile and first run (0.1 + 0.4 + 0.001 s)
    // and 400 nodes more.
    in.measured["small_b1"] = Row("small", 1, 1.0, 1e6);
    const RunCost scaled = EstimateRun(Spec("big", 1), in);
    EXPECT_EQ(scaled.source, "scaled from small_b1");
    in.nodes.erase("small");
    EXPECT_NEAR(scaled.seconds - EstimateRun(Spec("big", 1), in).seconds, 400 * per_node, 1e-9)
        << compiler << ": the row's compile alone where its model's nodes are unknown";
    // A smaller model than the row's compiles in less, never below nothing.
    in.nodes = {{"small", 410}, {"big", 10}};
    EXPECT_NEAR(EstimateRun(Spec("big", 1), in).seconds -
                    EstimateRun(Spec("big", 1), WithoutNodes(in)).seconds,
                -std::min(0.501, 400 * per_node), 1e-9)
        << compiler;
  }
  // A compiler whose every process compiles pays the growth in each.
  EstimateInputs in;
  in.compiler = "onnxruntime";
  const double per_node = FindCompiler("onnxruntime").prior_compile_s_per_node;
  in.macs = {{"small", 1e6}, {"big", 1e6}};
  in.measured["small_b1"] = Row("small", 1, 1.0, 1e6);
  RunSpec three = Spec("big", 1);
  three.processes = 3;
  three.stop = "fixed";
  in.nodes = {{"small", 10}, {"big", 410}};
  EXPECT_NEAR(EstimateRun(three, in).seconds - EstimateRun(three, WithoutNodes(in)).seconds,
              3 * 400 * per_node, 1e-9);
}

// A compiler that tunes (tvm): the first run of a workload adds the config's tuning estimate,
// to the prior and to a row it is scaled from alike, once the tuning that row's own compile held
// is taken out of it.
TEST(Estimate, TuningAddsToTheFirstCompileOfAWorkload) {
  EstimateInputs in;
  in.compiler = "tvm";
  in.threads = 2;
  in.macs = {{"m", 40e9}, {"n", 40e9}};
  in.tuning_s = 300;
  in.tuning_trials = 60;
  const RunCost untuned_prior = [&] {
    RunSpec quick = Spec("m", 1);
    quick.quick = true;
    return EstimateRun(quick, in);
  }();
  EXPECT_EQ(untuned_prior.source, "prior");
  EXPECT_EQ(untuned_prior.tuning_s, 0.0);
  EXPECT_EQ(EstimateRun(Spec("m", 1), in).tuning_s, 300.0);
  EXPECT_NEAR(EstimateRun(Spec("m", 1), in).seconds - untuned_prior.seconds, 300.0, 1e-9);

  ResultRow quick_row = Row("n", 1, 1000.0, 40e9);
  quick_row.quick = true;
  in.measured[quick_row.run_id] = quick_row;
  const RunCost scaled = EstimateRun(Spec("m", 1), in);
  EXPECT_EQ(scaled.source, "scaled from n_b1");
  EXPECT_EQ(scaled.tuning_s, 300.0);
  // The run's own row measured with other settings (--quick) is only a row to scale from: the
  // run measures again, tuning included.
  ResultRow own_quick = Row("m", 1, 1000.0, 40e9);
  own_quick.quick = true;
  in.measured["m_b1 (config_hash q)"] = own_quick;
  const RunCost own = EstimateRun(Spec("m", 1), in);
  EXPECT_EQ(own.source, "scaled from m_b1 (measured with other settings)");
  EXPECT_EQ(own.tuning_s, 300.0);
  EXPECT_NEAR(own.seconds, scaled.seconds, 1e-9);
  in.measured.erase("m_b1 (config_hash q)");
  // A row whose first compile tuned for 250 s: its compile without them is what m's compiles.
  ResultRow tuned_row = quick_row;
  tuned_row.quick = false;
  tuned_row.compile_s = 250.4;
  tuned_row.compiler_settings = "cache_hit=false;trials_requested=60;tuning=ok;tuning_s=250";
  in.measured[quick_row.run_id] = tuned_row;
  EXPECT_NEAR(EstimateRun(Spec("m", 1), in).seconds, scaled.seconds, 1e-9);
  // On a cache hit its tuning_s is the original compile's, not in this compile_s.
  tuned_row.compile_s = 0.4;
  tuned_row.compiler_settings = "cache_hit=true;trials_requested=60;tuning=ok;tuning_s=250";
  in.measured[quick_row.run_id] = tuned_row;
  EXPECT_NEAR(EstimateRun(Spec("m", 1), in).seconds, scaled.seconds, 1e-9);
}

// The grid of a tuning sweep: conv_blocks at 2 widths x 3 depths x 2 batch sizes, as tvm runs it
// (not --quick, 3 processes, stop ci).
std::vector<RunSpec> ConvBlocksGrid() {
  ExperimentConfig e;
  e.name = "conv_blocks";
  e.family = "conv_block";
  e.widths = {16, 32};
  e.depths = {1, 2, 4};
  e.batch_sizes = {1, 8};
  e.processes = 3;
  e.max_processes = 10;
  e.stop = "ci";
  e.timeout_s = 900;
  return ExpandGrid(e, /*quick=*/false);
}

EstimateInputs TvmInputs() {
  EstimateInputs in;
  in.compiler = "tvm";
  in.threads = 2;
  in.tuning_trials = 200;
  in.tuning_s = 1000;
  return in;
}

double TuningOf(const std::vector<RunCost>& costs) {
  double sum = 0;
  for (const RunCost& cost : costs) sum += cost.tuning_s;
  return sum;
}

// A block of depth d stacks identical layers whose tuning tasks are those of depth 1: the 12
// runs are 4 workloads (width x batch size), each tuned by its first run, depth 1.
TEST(Estimate, ConvBlocksTuneOncePerWidthAndBatchSize) {
  const std::vector<RunSpec> runs = ConvBlocksGrid();
  ASSERT_EQ(runs.size(), 12u);
  const EstimateInputs in = TvmInputs();
  std::set<std::string> workloads;
  for (const RunSpec& run : runs) workloads.insert(TuningWorkload(run, "fp32", 2));
  EXPECT_EQ(workloads.size(), 4u);
  EXPECT_EQ(TuningWorkload(runs[0], "fp32", 2), "conv_blocks_w16 b1 fp32 threads=2");

  const std::vector<RunCost> costs = EstimateRuns(runs, in);
  std::vector<std::string> tuning_runs;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (costs[i].tuning_s > 0) tuning_runs.push_back(runs[i].run_id);
  }
  EXPECT_EQ(tuning_runs, (std::vector<std::string>{"conv_blocks_w16_d1_b1", "conv_blocks_w16_d1_b8",
                                                  "conv_blocks_w32_d1_b1",
                                                  "conv_blocks_w32_d1_b8"}));
  EXPECT_NEAR(TuningOf(costs), 4 * 1000.0, 1e-9);

  // Whatever the order, each workload tunes once, in its first run.
  std::vector<RunSpec> deepest_first(runs.rbegin(), runs.rend());
  const std::vector<RunCost> reversed = EstimateRuns(deepest_first, in);
  EXPECT_NEAR(TuningOf(reversed), 4 * 1000.0, 1e-9);
  EXPECT_GT(reversed[0].tuning_s, 0.0);  // conv_blocks_w32_d4_b8
  // Another batch size, precision or pool is another workload.
  EXPECT_NE(TuningWorkload(runs[0], "fp32", 2), TuningWorkload(runs[0], "fp32", 1));
  EXPECT_NE(TuningWorkload(runs[0], "fp32", 2), TuningWorkload(runs[0], "fp16", 2));
  RunSpec offline = runs[0];
  offline.scenario = kScenarioOffline;
  offline.streams = 2;
  EXPECT_EQ(PoolThreads(offline, 2), 1);
  // Models without stacked identical layers keep their depth-free name whole.
  RunSpec other = runs[0];
  other.model.family = "conv2d";
  other.model.name = "conv2d_w16_d1";
  EXPECT_EQ(TuningWorkload(other, "fp32", 2), "conv2d_w16_d1 b1 fp32 threads=2");
}

// The tuning is the first process's: later processes load the compiled library (and find the
// records), so a run of K processes adds the tuning once, not K times.
TEST(Estimate, TuningOncePerRunNotPerProcess) {
  EstimateInputs in = TvmInputs();
  RunSpec run = ConvBlocksGrid().front();
  run.timeout_s = 1e6;  // no process capped by it
  for (int64_t k : {1, 3, 5}) {
    run.processes = k;
    in.tuning_s = 1000;
    const double tuned = EstimateRun(run, in).seconds;
    in.tuning_s = 0;
    const double untuned = EstimateRun(run, in).seconds;
    EXPECT_NEAR(tuned - untuned, 1000.0, 1e-9) << k;
  }
  // Nor is the tuning under the run's timeout: the worker's deadline grows by the tuning's own.
  run.timeout_s = 900;
  in.tuning_s = 1000;
  EXPECT_GT(EstimateRun(run, in).seconds, 1000.0);
}

// tvm caches its compile by the model: the first process compiles, the later ones load it (the
// prior's kPriorCacheLoadS), where torchscript compiles in every process.
TEST(Estimate, LaterProcessesLoadTheCompileCache) {
  RunSpec run = Spec("m", 1);
  run.processes = 3;
  EstimateInputs in;
  in.compiler = "tvm";
  // latency 0.01 s (no MACs): warmup ceil(10 / 3) = 4 runs, 0.04 s, and each process times
  // its share of the 100 repeats as the harness rounds it (ShareOfRun): ceil(100 / 3) = 34
  // runs, 0.34 s
  const double rest = kRunOverheadS + 0.01 + 0.04 + 0.34;
  EXPECT_NEAR(EstimateRun(run, in).seconds,
              (PriorCompileS("tvm") + rest) + 2 * (kPriorCacheLoadS + rest), 1e-9);
  in.compiler = "torchscript";
  EXPECT_NEAR(EstimateRun(run, in).seconds,
              3 * (PriorCompileS("torchscript") + rest), 1e-9);

  // A measured row with its phases: the later processes' builds and compiles from them.
  in.compiler = "tvm";
  ResultRow row = Row("m", 1, 10.0, 1e9);  // build 0.1, compile 0.4, first run 0.01
  row.timed_window_s = 3.0;
  row.processes = 3;
  row.phases_s = {{"build", 0.3}, {"compile", 0.6}};  // the later two: 0.1 + 0.1 each
  in.measured[row.run_id] = row;
  EXPECT_NEAR(EstimateRun(run, in).seconds,
              (kRunOverheadS + 0.5 + 0.01 + 0.01 + 0.04 + 1.0) +
                  2 * (kRunOverheadS + 0.2 + 0.01 + 0.01 + 0.04 + 1.0),
              1e-9);
}

// Where the models' kernels are known, a run is charged for the kernels no run before it tuned,
// at the seconds per kernel, within the budget's time: models sharing kernels share their tuning.
TEST(Estimate, TuningIsChargedPerKernelNotTunedBefore) {
  std::vector<RunSpec> runs = ConvBlocksGrid();  // w16 d1,d2,d4 x b1,b8, then w32
  EstimateInputs in = TvmInputs();
  in.tuning_s_per_kernel = 30;
  in.kernels["conv_blocks_w16_d1"] = {1, 2};
  in.kernels["conv_blocks_w16_d2"] = {1, 2};     // a stack of the same layer: no new kernel
  in.kernels["conv_blocks_w16_d4"] = {1, 2, 3};  // one more, say
  in.kernels["conv_blocks_w32_d1"] = {4, 5};
  in.kernels["conv_blocks_w32_d2"] = {4, 5};
  std::vector<RunCost> costs = EstimateRuns(runs, in);
  std::map<std::string, double> tuning;
  for (size_t i = 0; i < runs.size(); ++i) tuning[runs[i].run_id] = costs[i].tuning_s;
  EXPECT_EQ(tuning["conv_blocks_w16_d1_b1"], 60.0);
  EXPECT_EQ(tuning["conv_blocks_w16_d2_b1"], 0.0);
  EXPECT_EQ(tuning["conv_blocks_w16_d4_b1"], 30.0);
  EXPECT_EQ(tuning["conv_blocks_w16_d1_b8"], 60.0);  // another batch size: other shapes
  EXPECT_EQ(tuning["conv_blocks_w32_d1_b1"], 60.0);
  EXPECT_EQ(tuning["conv_blocks_w32_d2_b1"], 0.0);
  // conv_blocks_w32_d4's kernels are unknown: charged the budget once per workload.
  EXPECT_EQ(tuning["conv_blocks_w32_d4_b1"], 1000.0);
  // The budget's time caps a run of many kernels.
  in.tuning_s_per_kernel = 600;
  EXPECT_EQ(EstimateRuns(runs, in)[0].tuning_s, 1000.0);

  // Rows that tuned give the seconds per kernel on this machine (the median of theirs and the
  // prior's, counted as kTuningPriorWeight rows), and their kernels are tuned.
  in.tuning_s_per_kernel = 30;
  for (const auto& [model, seconds, tasks] :
       {std::tuple{"conv_blocks_w16_d4", 180, 3}, std::tuple{"conv_blocks_w32_d2", 100, 2},
        std::tuple{"conv_blocks_w32_d1", 40, 1}}) {
    ResultRow row = Row(model, 8, 10.0, 1e9);
    row.family = "conv_block";
    row.precision = "fp32";
    row.threads = 2;
    row.quick = false;
    row.compiler_settings = fmt::format(
        "cache_hit=false;tasks_tuned={};trials_requested=200;tuning=ok;tuning_s={}", tasks,
        seconds);
    in.measured[row.run_id] = row;
  }
  costs = EstimateRuns(runs, in);
  for (size_t i = 0; i < runs.size(); ++i) tuning[runs[i].run_id] = costs[i].tuning_s;
  static_assert(kTuningPriorWeight == 3);
  // The median of 60, 50 and 40 s a kernel and three times the prior's 30: 35.
  EXPECT_EQ(tuning["conv_blocks_w16_d1_b1"], 2 * 35.0);
  EXPECT_EQ(tuning["conv_blocks_w16_d1_b8"], 0.0);       // tuned by the w16 d4 b8 row
  EXPECT_EQ(tuning["conv_blocks_w32_d1_b8"], 0.0);       // a row of its own
}

// A row on disk whose compile tuned this config's database: its workload is tuned, by whichever
// run of it the row is; a failed tuning, or one with another trial budget, is not.
TEST(Estimate, ARowThatTunedItsWorkloadMeansNoTuningForIt) {
  const std::vector<RunSpec> runs = ConvBlocksGrid();
  EstimateInputs in = TvmInputs();
  ResultRow row = Row("conv_blocks_w16_d2", 1, 10.0, 1e9);
  row.family = "conv_block";
  row.depth = 2;
  row.precision = "fp32";
  row.threads = 2;
  row.quick = false;
  row.compiler_settings = "cache_hit=false;trials_requested=200;tuning=ok;tuning_s=900";
  in.measured[row.run_id] = row;
  std::vector<RunCost> costs = EstimateRuns(runs, in);
  EXPECT_NEAR(TuningOf(costs), 3 * 1000.0, 1e-9);
  EXPECT_EQ(costs[0].tuning_s, 0.0);  // conv_blocks_w16_d1_b1: w16 b1 is tuned
  EXPECT_EQ(costs[2].source, "measured");  // the row's own run: what it took, its tuning in it
  EXPECT_EQ(costs[2].tuning_s, 0.0);

  for (const std::string settings :
       {"cache_hit=false;trials_requested=200;tuning=failed:timeout after 3600s;tuning_s=3600",
        "cache_hit=false;trials_requested=64;tuning=ok;tuning_s=300"}) {
    row.compiler_settings = settings;
    in.measured[row.run_id] = row;
    costs = EstimateRuns(runs, in);
    EXPECT_NEAR(TuningOf(costs), 4 * 1000.0, 1e-9) << settings;
    EXPECT_EQ(costs[0].tuning_s, 1000.0) << settings;
  }
  // A --quick row never tuned.
  row.compiler_settings = "cache_hit=false;trials_requested=200;tuning=ok;tuning_s=900";
  row.quick = true;
  in.measured[row.run_id] = row;
  EXPECT_EQ(EstimateRuns(runs, in)[0].tuning_s, 1000.0);
}

// With stop ci a run may take more processes than it starts with: the count of its own row, or
// of the row it is scaled from, within processes .. max_processes; stop fixed keeps its own.
TEST(Estimate, StopCiEstimatesTheProcessesARowTook) {
  EstimateInputs in;
  in.compiler = "onnxruntime";
  in.measured["n_b1"] = Row("n", 1, 10.0, 1e9);
  in.macs = {{"n", 1e9}, {"m", 1e9}};
  RunSpec run = Spec("m", 1);
  run.processes = 3;
  run.max_processes = 10;
  run.stop = "ci";
  const double three = EstimateRun(run, in).seconds;
  // overhead + build 0.1 + compile 0.4 + first run 0.01 + latency 0.01 + warmup 4 x 0.01 per
  // process; the timed runs (1 s for the 3 it starts with) a third each, ceil(100 / 3) = 34 runs
  // as the harness rounds them, and as much for each process added
  const double per_process = kRunOverheadS + 0.5 + 0.01 + 0.01 + 0.04 + 0.34;
  EXPECT_NEAR(three, 3 * per_process, 1e-9);
  in.measured["n_b1"].processes = 7;
  EXPECT_NEAR(EstimateRun(run, in).seconds, 7 * per_process, 1e-9);
  in.measured["n_b1"].processes = 25;
  EXPECT_NEAR(EstimateRun(run, in).seconds, 10 * per_process, 1e-9);
  run.stop = "fixed";
  EXPECT_NEAR(EstimateRun(run, in).seconds, three, 1e-9);
  // Scaled to 8 times the row's latency (n at batch 8 from its row at batch 1, 7 processes),
  // the count grows as the prior's does with latency: by 0.94 log10(8).
  in.measured["n_b1"].processes = 7;
  RunSpec b8 = Spec("n", 8);
  b8.processes = 3;
  b8.max_processes = 10;
  const double fixed_b8 = EstimateRun(b8, in).seconds;
  b8.stop = "ci";
  EXPECT_EQ(EstimateRun(b8, in).source, "scaled from n_b1");
  EXPECT_NEAR(EstimateRun(b8, in).seconds, fixed_b8 * (7 + 0.94 * std::log10(8.0)) / 3.0, 1e-9);
  // No row to go by: stop ci is estimated at the prior's processes for the run's latency (1 G
  // MACs at 60 G/s: 16.7 ms, 6.75 processes), each as one of the 3 of stop fixed (onnxruntime
  // compiles in every process); never fewer than the run starts with, nor more than its cap.
  in.measured.clear();
  run.stop = "fixed";
  const double fixed_prior = EstimateRun(run, in).seconds;
  run.stop = "ci";
  EXPECT_EQ(EstimateRun(run, in).source, "prior");
  const double latency_s = 1e9 / kPriorMacsPerSecond;
  EXPECT_NEAR(PriorCiProcesses(0.01), 5.6 + 0.94, 1e-12);
  EXPECT_NEAR(EstimateRun(run, in).seconds, fixed_prior * PriorCiProcesses(latency_s) / 3.0,
              1e-9);
  run.max_processes = 4;
  EXPECT_NEAR(EstimateRun(run, in).seconds, fixed_prior * 4.0 / 3.0, 1e-9);
  run.max_processes = 10;
  in.macs["m"] = 1e3;  // 1.7e-8 s a batch: the prior says 1.1 processes, the run starts with 3
  EXPECT_NEAR(PriorCiProcesses(1e-8), 5.6 - 5 * 0.94, 1e-12);
  run.stop = "fixed";
  const double fixed_tiny = EstimateRun(run, in).seconds;
  run.stop = "ci";
  EXPECT_NEAR(EstimateRun(run, in).seconds, fixed_tiny, 1e-9);
}

TEST(Shard, ParseNamesTheForm) {
  EXPECT_EQ(ParseShard("2/4").index, 2);
  EXPECT_EQ(ParseShard("2/4").count, 4);
  for (const char* bad : {"0/3", "4/3", "3", "a/b", "1/0", "-1/2", "1/", ""}) {
    try {
      ParseShard(bad);
      ADD_FAILURE() << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("expected i/N with 1 <= i <= N"), std::string::npos);
    }
  }
}

TEST(Shard, UnionIsTheGridWithoutOverlapAndTotalsAreBalanced) {
  std::vector<double> costs;
  std::vector<std::string> ids;
  for (int i = 0; i < 37; ++i) {
    costs.push_back(1.0 + (i * 7919 % 101));  // uneven costs
    ids.push_back("r" + std::to_string(i));
  }
  for (int n : {1, 2, 3, 5}) {
    std::multiset<size_t> all;
    double lo = 1e30, hi = 0;
    for (int i = 1; i <= n; ++i) {
      const std::vector<size_t> part = ShardIndices(costs, ids, {i, n});
      EXPECT_TRUE(std::is_sorted(part.begin(), part.end()));
      double sum = 0;
      for (size_t k : part) {
        all.insert(k);
        sum += costs[k];
      }
      lo = std::min(lo, sum);
      hi = std::max(hi, sum);
      EXPECT_EQ(part, ShardIndices(costs, ids, {i, n}));  // deterministic
    }
    EXPECT_EQ(all.size(), costs.size()) << n;
    EXPECT_EQ(std::set<size_t>(all.begin(), all.end()).size(), costs.size()) << n;
    // Dealt largest first to the lightest shard: no shard exceeds another by more than the
    // largest single cost.
    EXPECT_LE(hi - lo, 101.0) << n;
  }
}

// The tuning weighs on the shard that holds a workload's first run; the shards are still the
// grid without overlap, and their totals the grid's, tuned once per workload.
TEST(Shard, TuningWorkloadsKeepThePartition) {
  const std::vector<RunSpec> runs = ConvBlocksGrid();
  const EstimateInputs in = TvmInputs();
  const std::vector<RunCost> costs = EstimateRuns(runs, in);
  double grid_s = 0;
  for (const RunCost& cost : costs) grid_s += cost.seconds;
  for (int n : {1, 2, 3, 5}) {
    std::multiset<std::string> all;
    double sum = 0;
    for (int i = 1; i <= n; ++i) {
      double shard_s = 0, total_s = 0;
      const std::vector<RunSpec> part = SelectShard(runs, {i, n}, in, &shard_s, &total_s);
      EXPECT_NEAR(total_s, grid_s, 1e-6) << n;
      double expected = 0;
      for (const RunSpec& run : part) {
        all.insert(run.run_id);
        const size_t at = static_cast<size_t>(
            std::find_if(runs.begin(), runs.end(),
                         [&](const RunSpec& r) { return r.run_id == run.run_id; }) -
            runs.begin());
        expected += costs[at].seconds;
      }
      EXPECT_NEAR(shard_s, expected, 1e-6) << i << "/" << n;
      sum += shard_s;
    }
    EXPECT_EQ(all.size(), runs.size()) << n;
    EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), runs.size()) << n;
    EXPECT_NEAR(sum, grid_s, 1e-6) << n;
  }
  EXPECT_NEAR(TuningOf(costs), 4 * 1000.0, 1e-9);
}

}  // namespace
}  // namespace ngraphbench
