// Estimates of a run's wall time, and shards balanced by them.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "ngraphbench/core/error.h"
#include "ngraphbench/experiments/estimate.h"

namespace ngraphbench {
namespace {

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
  // overhead 0.5 + build 0.1 + compile 0.4 + first run 0.01 + latency 0.01 + warmup 10 x 0.01
  // + timed window 3.0
  EXPECT_NEAR(cost.seconds, 0.5 + 0.1 + 0.4 + 0.01 + 0.01 + 0.1 + 3.0, 1e-9);
}

// K processes each start, build, compile, run once and warm up (within their share of the
// cap); their timed runs together are one process's.
TEST(Estimate, ProcessesEachPayTheirStartAndShareTheTimedRuns) {
  EstimateInputs in;
  in.compiler = "onnxruntime";
  ResultRow row = Row("m", 4, 10.0, 1e9);
  row.timed_window_s = 3.0;
  in.measured[row.run_id] = row;
  RunSpec run = Spec("m", 4);
  run.processes = 5;
  // per process: overhead 0.5 + build 0.1 + compile 0.4 + first run 0.01 + latency 0.01 +
  // warmup 0.1 + a fifth of the timed window 0.6
  EXPECT_NEAR(EstimateRun(run, in).seconds, 5 * (0.5 + 0.1 + 0.4 + 0.01 + 0.01 + 0.1 + 0.6),
              1e-9);
  // A slow model: the processes' timed runs share the 60 s cap (each keeps at least 3 timed
  // runs, 2.4 s here), and each warms up within a fifth of it.
  in.measured.clear();
  in.macs = {{"m", 1e9}, {"big", 1e11}};
  in.measured["m_b1"] = Row("m", 1, 2.0, 1e9);
  run = Spec("big", 4);
  run.processes = 5;
  // 0.8 s a batch: warmup min(8, 12) = 8 s; timed min(max(80, 0.5), 60) = 60 s in all (more
  // than 5 x 2.4 s): 12 s each
  EXPECT_NEAR(EstimateRun(run, in).seconds, 5 * (0.5 + 0.1 + 0.4 + 0.002 + 0.8 + 8.0 + 12.0),
              1e-6);
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
  EXPECT_NEAR(cost.seconds, 0.5 + 0.1 + 0.4 + 0.08 + 0.16 + 1.6 + 16.0, 1e-9);
}

TEST(Estimate, OtherModelScalesByMacsTimesBatchAndCapsAtMaxTime) {
  EstimateInputs in;
  in.compiler = "onnxruntime";
  in.measured["small_b1"] = Row("small", 1, 2.0, 1e9);
  in.macs = {{"small", 1e9}, {"big", 10e9}};
  RunCost cost = EstimateRun(Spec("big", 4), in);
  EXPECT_EQ(cost.source, "scaled from small_b1");
  // latency 2 ms x 40 = 80 ms: warmup 0.8 s, timed 8 s
  EXPECT_NEAR(cost.seconds, 0.5 + 0.1 + 0.4 + 0.002 + 0.08 + 0.8 + 8.0, 1e-9);
  // Without the MACs of the run, another model cannot be scaled from: the prior.
  in.macs.erase("big");
  EXPECT_EQ(EstimateRun(Spec("big", 4), in).source, "prior");
  // Warmup stops at max_time_s; the timed runs too, but not before 10 of them (the harness's
  // kMinTimedRepeats); the whole run at its timeout.
  in.macs["big"] = 1e11;  // 0.8 s per batch
  cost = EstimateRun(Spec("big", 4), in);
  EXPECT_NEAR(cost.seconds, 0.5 + 0.502 + 0.8 + 8.0 + 60.0, 1e-6);
  in.macs["big"] = 1e13;  // 80 s per batch: 10 timed runs alone pass the timeout
  EXPECT_EQ(EstimateRun(Spec("big", 4), in).seconds, 600.0);
}

TEST(Estimate, PriorWithoutRowsAndFailedRowsEndEarly) {
  EstimateInputs in;
  in.compiler = "tvm";
  in.threads = 2;
  in.macs = {{"m", 40e9}};
  const RunCost cost = EstimateRun(Spec("m", 1), in);
  EXPECT_EQ(cost.source, "prior");
  // 40 G MACs at 20 G/s/thread x 2 threads: 1 s per batch; warmup 10 s, 100 timed runs 60 s cap
  EXPECT_NEAR(cost.seconds, 0.5 + 10.0 + 1.0 + 10.0 + 60.0, 1e-9);
  ResultRow failed = Row("m", 1, 0, 0);
  failed.status = kStatusError;
  failed.latency_mean_ms.reset();
  in.measured[failed.run_id] = failed;
  EXPECT_EQ(EstimateRun(Spec("m", 1), in).source, "measured (error)");
  EXPECT_NEAR(EstimateRun(Spec("m", 1), in).seconds, 0.5 + 0.1 + 0.4, 1e-9);
  failed.status = kStatusTimeout;
  in.measured[failed.run_id] = failed;
  EXPECT_EQ(EstimateRun(Spec("m", 1), in).seconds, 600.0);
}

// A compiler that tunes (tvm): a run not --quick adds the config's tuning estimate to the prior's
// compile time and to that of a --quick row it is scaled from; a row that tuned, or the run's
// own row, already holds what its compile took.
TEST(Estimate, TuningAddsToCompilesThatDidNotTune) {
  EstimateInputs in;
  in.compiler = "tvm";
  in.threads = 2;
  in.macs = {{"m", 40e9}, {"n", 40e9}};
  in.tuning_s = 300;
  const RunCost untuned_prior = [&] {
    RunSpec quick = Spec("m", 1);
    quick.quick = true;
    return EstimateRun(quick, in);
  }();
  EXPECT_EQ(untuned_prior.source, "prior");
  EXPECT_NEAR(EstimateRun(Spec("m", 1), in).seconds - untuned_prior.seconds, 300.0, 1e-9);

  ResultRow quick_row = Row("n", 1, 1000.0, 40e9);
  quick_row.quick = true;
  in.measured[quick_row.run_id] = quick_row;
  const RunCost scaled = EstimateRun(Spec("m", 1), in);
  EXPECT_EQ(scaled.source, "scaled from n_b1");
  ResultRow tuned_row = quick_row;
  tuned_row.quick = false;
  in.measured[quick_row.run_id] = tuned_row;
  EXPECT_NEAR(scaled.seconds - EstimateRun(Spec("m", 1), in).seconds, 300.0, 1e-9);
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

}  // namespace
}  // namespace ngraphbench
