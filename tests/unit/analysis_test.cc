// Derived metrics on small hand-computed tables, their intervals from process medians and the
// verdict on ranking reversals, and `analyze` on a results tree and on a zip.
#include <gtest/gtest.h>

#include <cstring>
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <sstream>

#include "ngraphbench/analysis/analyze.h"
#include "ngraphbench/analysis/csv_line.h"
#include "ngraphbench/analysis/load.h"
#include "ngraphbench/analysis/metrics.h"
#include "ngraphbench/core/csv_line.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/measure/repeat.h"
#include "ngraphbench/results/csv.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

// The baseline of these tests' runs (in the tree: BaselineCompiler(), compilers/registry.h).
const std::string kBaseline = "identity";

// A run with throughput `sps`, measured in 3 processes whose medians are 1% apart around its
// latency b / sps (so every interval is defined and the notes speak of baselines only).
RunPoint Point(const std::string& compiler, const std::string& model, int64_t batch,
               std::optional<double> sps, const std::string& status = kStatusOk,
               const std::string& experiment = "conv2d") {
  RunPoint p;
  p.device = "cpu0";
  p.compiler = compiler;
  p.experiment = experiment;
  p.model = model;
  p.family = experiment;
  p.batch_size = batch;
  p.status = status;
  p.throughput_sps = sps;
  if (sps) {
    const double latency_ms = static_cast<double>(batch) * 1e3 / *sps;
    p.latency_p50_ms = latency_ms;
    p.process_p50s_ms = {0.99 * latency_ms, latency_ms, 1.01 * latency_ms};
  }
  return p;
}

// An ok run whose processes' medians are `medians_ms`: latency_p50_ms is the middle one, the
// throughput b / latency.
RunPoint Measured(const std::string& compiler, const std::string& model, int64_t batch,
                  const std::vector<double>& medians_ms,
                  const std::string& experiment = "conv2d") {
  std::vector<double> sorted = medians_ms;
  std::sort(sorted.begin(), sorted.end());
  const double latency_ms = sorted[sorted.size() / 2];
  RunPoint p = Point(compiler, model, batch, static_cast<double>(batch) * 1e3 / latency_ms,
                     kStatusOk, experiment);
  p.process_p50s_ms = medians_ms;
  return p;
}

const ScalingRow& Find(const std::vector<ScalingRow>& rows, const std::string& compiler,
                       const std::string& model, int64_t batch) {
  for (const ScalingRow& row : rows) {
    if (row.compiler == compiler && row.model == model && row.batch_size == batch) return row;
  }
  throw std::runtime_error("no row " + compiler + "/" + model + "/b" + std::to_string(batch));
}

TEST(AnalysisMetrics, RatioDefinitions) {
  EXPECT_DOUBLE_EQ(RelativeThroughputRate(900, 150), 6.0);
  EXPECT_DOUBLE_EQ(AbsoluteScalingEfficiency(900, 150, 8), 0.75);
  EXPECT_DOUBLE_EQ(Speedup(900, 400), 2.25);
}

// identity: m b1=100 b8=400 b16=600; onnxruntime: m b1=150 b8=900 b16 crashed;
// tvm: m b8=800, no b1 run; openvino: m b1 timeout, b8=500; onnxruntime: m2 b1=50 (no identity);
// identity m3 b1 error, onnxruntime m3 b1=10.
std::vector<RunPoint> ScalingTable() {
  return {
      Point("identity", "m", 1, 100),        Point("identity", "m", 8, 400),
      Point("identity", "m", 16, 600),       Point("onnxruntime", "m", 1, 150),
      Point("onnxruntime", "m", 8, 900),     Point("onnxruntime", "m", 16, {}, kStatusCrashed),
      Point("tvm", "m", 8, 800),             Point("openvino", "m", 1, {}, kStatusTimeout),
      Point("openvino", "m", 8, 500),        Point("onnxruntime", "m2", 1, 50),
      Point("identity", "m3", 1, {}, kStatusError), Point("onnxruntime", "m3", 1, 10),
  };
}

TEST(AnalysisMetrics, ScalingOnHandTable) {
  const std::vector<ScalingRow> rows = ComputeScaling(ScalingTable(), kBaseline);
  ASSERT_EQ(rows.size(), 9u);  // the ok runs only

  const ScalingRow& ort8 = Find(rows, "onnxruntime", "m", 8);
  EXPECT_DOUBLE_EQ(ort8.throughput_sps, 900);
  EXPECT_DOUBLE_EQ(*ort8.batch1_throughput_sps, 150);
  EXPECT_DOUBLE_EQ(*ort8.rtr, 6.0);
  EXPECT_DOUBLE_EQ(*ort8.ase, 0.75);
  EXPECT_DOUBLE_EQ(*ort8.identity_throughput_sps, 400);
  EXPECT_DOUBLE_EQ(*ort8.speedup_vs_identity, 2.25);
  EXPECT_EQ(ort8.scaling_note, "");
  EXPECT_EQ(ort8.speedup_note, "");

  const ScalingRow& ort1 = Find(rows, "onnxruntime", "m", 1);
  EXPECT_DOUBLE_EQ(*ort1.rtr, 1.0);
  EXPECT_DOUBLE_EQ(*ort1.ase, 1.0);
  EXPECT_DOUBLE_EQ(*ort1.speedup_vs_identity, 1.5);

  const ScalingRow& id16 = Find(rows, "identity", "m", 16);
  EXPECT_DOUBLE_EQ(*id16.rtr, 6.0);
  EXPECT_DOUBLE_EQ(*id16.ase, 0.375);
  EXPECT_DOUBLE_EQ(*id16.speedup_vs_identity, 1.0);
}

TEST(AnalysisMetrics, MissingBaselinesGiveEmptyCellsAndReasons) {
  const std::vector<ScalingRow> rows = ComputeScaling(ScalingTable(), kBaseline);

  // No batch-1 run at all: RTR and ASE empty; the speedup is still defined.
  const ScalingRow& tvm8 = Find(rows, "tvm", "m", 8);
  EXPECT_FALSE(tvm8.batch1_throughput_sps);
  EXPECT_FALSE(tvm8.rtr);
  EXPECT_FALSE(tvm8.ase);
  EXPECT_EQ(tvm8.scaling_note, "no batch-1 run of tvm");
  EXPECT_DOUBLE_EQ(*tvm8.speedup_vs_identity, 2.0);

  // A batch-1 run that timed out is no baseline either, and the note says so.
  const ScalingRow& ov8 = Find(rows, "openvino", "m", 8);
  EXPECT_FALSE(ov8.rtr);
  EXPECT_EQ(ov8.scaling_note, "batch-1 run of openvino ended with status timeout");
  EXPECT_DOUBLE_EQ(*ov8.speedup_vs_identity, 1.25);

  // No identity run of the model.
  const ScalingRow& m2 = Find(rows, "onnxruntime", "m2", 1);
  EXPECT_FALSE(m2.identity_throughput_sps);
  EXPECT_FALSE(m2.speedup_vs_identity);
  EXPECT_EQ(m2.speedup_note, "no identity run at this batch size");
  EXPECT_DOUBLE_EQ(*m2.rtr, 1.0);

  // An identity run that failed.
  const ScalingRow& m3 = Find(rows, "onnxruntime", "m3", 1);
  EXPECT_FALSE(m3.speedup_vs_identity);
  EXPECT_EQ(m3.speedup_note, "identity run at this batch size ended with status error");

  // Identity's speedup at another experiment is not borrowed: the experiment is part of the key.
  std::vector<RunPoint> other = {Point("identity", "m", 1, 100, kStatusOk, "conv2d"),
                                 Point("tvm", "m", 1, 200, kStatusOk, "fully_connected")};
  EXPECT_FALSE(ComputeScaling(other, kBaseline)[1].speedup_vs_identity);
}

TEST(AnalysisMetrics, ScalingRejectsDuplicateRuns) {
  std::vector<RunPoint> runs = {Point("tvm", "m", 1, 100), Point("tvm", "m", 1, 120)};
  EXPECT_THROW(ComputeScaling(runs, kBaseline), std::invalid_argument);
}

TEST(AnalysisMetrics, BlocksSortedByWidthThenDepth) {
  std::vector<RunPoint> runs;
  for (int64_t width : {128, 64}) {
    for (int64_t depth : {8, 2}) {
      for (const char* compiler : {"tvm", "identity"}) {
        RunPoint p = Point(compiler, "conv_blocks_w" + std::to_string(width) + "_d" +
                                         std::to_string(depth),
                           1, std::string(compiler) == "tvm" ? 2.0 * depth : depth,
                           kStatusOk, "conv_blocks");
        p.width = width;
        p.depth = depth;
        runs.push_back(p);
      }
    }
  }
  runs.push_back(Point("tvm", "single", 1, 5));  // no width/depth: not a block
  const std::vector<ScalingRow> blocks = SelectBlocks(ComputeScaling(runs, kBaseline));
  ASSERT_EQ(blocks.size(), 8u);
  EXPECT_EQ(blocks[0].compiler, "identity");
  EXPECT_EQ(blocks[4].compiler, "tvm");
  EXPECT_EQ(blocks[4].model, "conv_blocks_w64_d2");
  EXPECT_EQ(blocks[5].model, "conv_blocks_w64_d8");
  EXPECT_EQ(blocks[6].model, "conv_blocks_w128_d2");
  EXPECT_DOUBLE_EQ(*blocks[5].speedup_vs_identity, 2.0);
}

RunPoint Invalid(RunPoint p, const std::string& reason) {
  p.valid = false;
  p.invalid_reason = reason;
  return p;
}

// identity: m b1=100, m b8=400 but invalid; tvm: m b1=200, m b8=1000, m2 b1=50 invalid,
// m b4=600 with an empty verdict (counts as valid), m b16=1200 whose batch-1 run is fine.
std::vector<RunPoint> InvalidTable() {
  RunPoint tvm1 = Point("tvm", "m", 1, 200);
  tvm1.valid = true;
  return {Point("identity", "m", 1, 100),
          Invalid(Point("identity", "m", 8, 400), "cv 0.3 > 0.1"),
          tvm1,
          Point("tvm", "m", 8, 1000),
          Point("tvm", "m", 4, 600),
          Invalid(Point("tvm", "m2", 1, 50), "other load 80%")};
}

TEST(AnalysisMetrics, InvalidRunsLeftOutByDefault) {
  const std::vector<RunPoint> runs = InvalidTable();
  EXPECT_TRUE(IsInvalid(runs[1]));
  EXPECT_FALSE(IsInvalid(runs[4]));                                                 // empty verdict
  EXPECT_FALSE(IsInvalid(Invalid(Point("tvm", "x", 1, {}, kStatusError), "n/a")));  // not ok

  const std::vector<ScalingRow> rows = ComputeScaling(runs, kBaseline);
  ASSERT_EQ(rows.size(), 4u);  // identity m b8 and tvm m2 b1 left out
  for (const ScalingRow& row : rows) {
    EXPECT_FALSE(row.compiler == "identity" && row.batch_size == 8);
    EXPECT_NE(row.model, "m2");
  }
  // As a baseline, an invalid run is no baseline either, and the note says why.
  const ScalingRow& tvm8 = Find(rows, "tvm", "m", 8);
  EXPECT_FALSE(tvm8.identity_throughput_sps);
  EXPECT_FALSE(tvm8.speedup_vs_identity);
  EXPECT_EQ(tvm8.speedup_note, "identity run at this batch size is invalid (cv 0.3 > 0.1)");
  EXPECT_DOUBLE_EQ(*tvm8.rtr, 5.0);
  // An empty verdict counts as valid.
  EXPECT_DOUBLE_EQ(*Find(rows, "tvm", "m", 4).ase, 0.75);

  // --include-invalid: every ok run counts.
  const std::vector<ScalingRow> all = ComputeScaling(runs, kBaseline, InvalidRuns::kInclude);
  ASSERT_EQ(all.size(), 6u);
  EXPECT_DOUBLE_EQ(*Find(all, "tvm", "m", 8).speedup_vs_identity, 2.5);
  EXPECT_EQ(Find(all, "tvm", "m", 8).speedup_note, "");
  EXPECT_DOUBLE_EQ(*Find(all, "identity", "m", 8).ase, 0.5);
  EXPECT_DOUBLE_EQ(Find(all, "tvm", "m2", 1).throughput_sps, 50);
}

TEST(AnalysisMetrics, InvalidRunsLeftOutOfRankings) {
  const std::string arch = kRankedExperiment;
  const std::vector<RunPoint> runs = {
      Point("identity", "a", 1, 300, kStatusOk, arch),
      Point("identity", "b", 1, 200, kStatusOk, arch),
      Invalid(Point("identity", "c", 1, 100, kStatusOk, arch), "cv 0.5 > 0.1"),
      Point("tvm", "a", 1, 100, kStatusOk, arch),
      Point("tvm", "b", 1, 200, kStatusOk, arch),
      Invalid(Point("tvm", "c", 1, 300, kStatusOk, arch), "too few runs"),
  };
  const std::vector<RankingRow> excluded = ComputeRankings(runs, kBaseline);
  ASSERT_EQ(excluded.size(), 1u);
  EXPECT_EQ(excluded[0].models, 2);
  EXPECT_EQ(excluded[0].reversed_pairs, 1);
  EXPECT_DOUBLE_EQ(*excluded[0].kendall_tau_b, -1.0);
  EXPECT_EQ(excluded[0].note, "not ranked, invalid run: c (identity, tvm)");

  const std::vector<RankingRow> included = ComputeRankings(runs, kBaseline, InvalidRuns::kInclude);
  ASSERT_EQ(included.size(), 1u);
  EXPECT_EQ(included[0].models, 3);
  EXPECT_EQ(included[0].reversed_pairs, 3);
  EXPECT_EQ(included[0].compiler_order, "c>b>a");
  EXPECT_EQ(included[0].note, "");
}

// `wrong`: the outputs were beyond the output check's tolerance. Its throughput is never used,
// not even when a RunPoint carries one, and not with invalid runs included.
TEST(AnalysisMetrics, WrongRunsNeverEnterSpeedups) {
  ResultRow row;
  row.status = kStatusWrong;
  row.throughput_median_sps = 500;
  EXPECT_FALSE(ToRunPoint(row).throughput_sps);

  const std::string arch = kRankedExperiment;
  const std::vector<RunPoint> runs = {
      Point("identity", "m", 1, 100, kStatusWrong),
      Point("identity", "m", 8, 400),
      Point("tvm", "m", 1, 300),
      Point("tvm", "m", 8, 900, kStatusWrong),
      Point("identity", "a", 1, 300, kStatusOk, arch),
      Point("identity", "b", 1, 200, kStatusOk, arch),
      Point("tvm", "a", 1, 100, kStatusWrong, arch),
      Point("tvm", "b", 1, 200, kStatusOk, arch),
  };
  for (InvalidRuns mode : {InvalidRuns::kExclude, InvalidRuns::kInclude}) {
    const std::vector<ScalingRow> rows = ComputeScaling(runs, kBaseline, mode);
    for (const ScalingRow& r : rows) {
      EXPECT_FALSE((r.compiler == "identity" && r.model == "m" && r.batch_size == 1) ||
                   (r.compiler == "tvm" && r.model == "m" && r.batch_size == 8) ||
                   (r.compiler == "tvm" && r.model == "a"))
          << r.compiler << " " << r.model << " b" << r.batch_size;
    }
    ASSERT_EQ(rows.size(), 5u);
    const ScalingRow& tvm1 = Find(rows, "tvm", "m", 1);
    EXPECT_FALSE(tvm1.speedup_vs_identity);
    EXPECT_EQ(tvm1.speedup_note, "identity run at this batch size ended with status wrong");
    const ScalingRow& id8 = Find(rows, "identity", "m", 8);
    EXPECT_FALSE(id8.ase);
    EXPECT_EQ(id8.scaling_note, "batch-1 run of identity ended with status wrong");

    const std::vector<RankingRow> ranking = ComputeRankings(runs, kBaseline, mode);
    ASSERT_EQ(ranking.size(), 1u);
    EXPECT_EQ(ranking[0].models, 1);
    EXPECT_EQ(ranking[0].note,
              "not ranked, no ok run of both compilers: a; fewer than 2 models ranked");
  }
}

// Two runs are compared only when threads, precision, timing_boundary and compute_device agree.
TEST(AnalysisMetrics, MismatchedSettingsLeaveCellsEmpty) {
  struct Case {
    const char* setting;
    void (*set)(RunPoint&);  // gives the run the other value
    const char* differ;      // baseline's value vs the run's
  };
  const Case cases[] = {
      {"threads", [](RunPoint& p) { p.threads = 2; }, "threads 1 vs 2 here"},
      {"precision", [](RunPoint& p) { p.precision = "bf16"; }, "precision fp32 vs bf16 here"},
      {"timing_boundary", [](RunPoint& p) { p.timing_boundary = "end_to_end"; },
       "timing_boundary compute vs end_to_end here"},
      {"compute_device", [](RunPoint& p) { p.compute_device = "cuda"; },
       "compute_device cpu vs cuda here"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.setting);
    auto usual = [](RunPoint p) {
      p.threads = 1;
      p.precision = "fp32";
      p.timing_boundary = "compute";
      p.compute_device = "cpu";
      return p;
    };
    const std::string arch = kRankedExperiment;
    RunPoint tvm8 = usual(Point("tvm", "m", 8, 800));
    c.set(tvm8);
    RunPoint tvm_b = usual(Point("tvm", "b", 1, 300, kStatusOk, arch));
    c.set(tvm_b);
    const std::vector<RunPoint> runs = {
        usual(Point("identity", "m", 1, 100)),
        usual(Point("identity", "m", 8, 400)),
        usual(Point("tvm", "m", 1, 200)),
        tvm8,
        usual(Point("identity", "a", 1, 300, kStatusOk, arch)),
        usual(Point("identity", "b", 1, 200, kStatusOk, arch)),
        usual(Point("identity", "c", 1, 100, kStatusOk, arch)),
        usual(Point("tvm", "a", 1, 100, kStatusOk, arch)),
        tvm_b,
        usual(Point("tvm", "c", 1, 200, kStatusOk, arch)),
    };
    EXPECT_EQ(SettingsDiffer(runs[0], runs[2]), "");
    EXPECT_EQ(SettingsDiffer(runs[1], tvm8), c.differ);

    const std::vector<ScalingRow> rows = ComputeScaling(runs, kBaseline);
    const ScalingRow& row = Find(rows, "tvm", "m", 8);
    EXPECT_FALSE(row.batch1_throughput_sps);
    EXPECT_FALSE(row.rtr);
    EXPECT_FALSE(row.ase);
    EXPECT_EQ(row.scaling_note, std::string("batch-1 run of tvm differs: ") + c.differ);
    EXPECT_FALSE(row.identity_throughput_sps);
    EXPECT_FALSE(row.speedup_vs_identity);
    EXPECT_EQ(row.speedup_note,
              std::string("identity run at this batch size differs: ") + c.differ);
    // The runs whose settings agree keep their numbers.
    EXPECT_DOUBLE_EQ(*Find(rows, "tvm", "m", 1).speedup_vs_identity, 2.0);
    EXPECT_DOUBLE_EQ(*Find(rows, "identity", "m", 8).ase, 0.5);

    const std::vector<RankingRow> ranking = ComputeRankings(runs, kBaseline);
    if (std::string(c.setting) == "precision") {
      // Two precisions of tvm are two rankings; identity has no bf16 runs, so its fp32 ones
      // stand in, each differing.
      ASSERT_EQ(ranking.size(), 2u);
      EXPECT_EQ(ranking[0].precision, "bf16");
      EXPECT_EQ(ranking[0].models, 0);
      EXPECT_EQ(ranking[0].note,
                "not ranked, no ok run of both compilers: a, c; not ranked, identity run "
                "differs: b (precision fp32 vs bf16 here); fewer than 2 models ranked");
      EXPECT_EQ(ranking[1].precision, "fp32");
      EXPECT_EQ(ranking[1].models, 2);
      EXPECT_EQ(ranking[1].identity_order, "a>c");
      EXPECT_EQ(ranking[1].note, "not ranked, no ok run of both compilers: b");
      continue;
    }
    ASSERT_EQ(ranking.size(), 1u);
    EXPECT_EQ(ranking[0].models, 2);
    EXPECT_EQ(ranking[0].identity_order, "a>c");
    EXPECT_EQ(ranking[0].note,
              std::string("not ranked, identity run differs: b (") + c.differ + ")");
  }
  // Several settings at once, and an unset one.
  RunPoint a = Point("identity", "m", 1, 1), b = Point("tvm", "m", 1, 1);
  a.threads = 4;
  b.precision = "fp16";
  EXPECT_EQ(SettingsDiffer(a, b), "threads 4 vs unset here, precision unset vs fp16 here");
}

// identity m: b1 10 ms (medians 9.8, 10, 10.2), b8 20 ms (19.6, 20, 20.4); tvm m b8 10 ms (9.9,
// 10, 10.1), tvm m b1 one process. The same spread of logs s on both identity runs: se = s sqrt(2
// / 3), df = 4 (Welch-Satterthwaite with equal variances and sizes), h = t_{0.975, 4} se.
TEST(AnalysisMetrics, IntervalsFromProcessMedians) {
  RunPoint identity8 = Measured("identity", "m", 8, {19.6, 20, 20.4});
  identity8.latency_p50_ci_low_ms = 19;
  identity8.latency_p50_ci_high_ms = 21;
  const std::vector<RunPoint> runs = {
      Measured("identity", "m", 1, {9.8, 10, 10.2}), identity8,
      Measured("tvm", "m", 1, {5}), Measured("tvm", "m", 8, {9.9, 10, 10.1})};
  const std::vector<ScalingRow> rows = ComputeScaling(runs, kBaseline);

  const ScalingRow& id8 = Find(rows, "identity", "m", 8);
  EXPECT_DOUBLE_EQ(*id8.ase, 0.5);  // the point: T(8) / (8 T(1)) = 400 / 800
  double mean = 0, sq = 0;
  for (double f : {0.98, 1.0, 1.02}) mean += std::log(f) / 3;
  for (double f : {0.98, 1.0, 1.02}) sq += (std::log(f) - mean) * (std::log(f) - mean);
  const double se = std::sqrt(sq / 2) * std::sqrt(2.0 / 3);
  const double h = 2.7764451051977934 * se;  // scipy.stats.t.ppf(0.975, 4)
  ASSERT_TRUE(id8.ase_ci);
  EXPECT_NEAR(id8.ase_ci->low, 0.5 * std::exp(-h), 1e-12);
  EXPECT_NEAR(id8.ase_ci->high, 0.5 * std::exp(h), 1e-12);
  EXPECT_NEAR(id8.ase_ci->low, 0.477833400486116, 1e-9);  // with scipy
  ASSERT_TRUE(id8.rtr_ci);
  EXPECT_NEAR(id8.rtr_ci->low, 8 * id8.ase_ci->low, 1e-12);  // RTR = b ASE
  EXPECT_NEAR(id8.rtr_ci->high, 8 * id8.ase_ci->high, 1e-12);
  EXPECT_EQ(id8.scaling_note, "");
  // The throughput's: b / the row's interval of L, bounds swapped.
  ASSERT_TRUE(id8.throughput_ci);
  EXPECT_DOUBLE_EQ(id8.throughput_ci->low, 8000.0 / 21);
  EXPECT_DOUBLE_EQ(id8.throughput_ci->high, 8000.0 / 19);
  // identity against itself: exactly 1.
  ASSERT_TRUE(id8.speedup_ci);
  EXPECT_EQ(id8.speedup_ci->low, 1.0);
  EXPECT_EQ(id8.speedup_ci->high, 1.0);

  // The speedup T_tvm / T_identity = L_identity / L_tvm = 20 / 10, Welch with unequal spreads;
  // scipy.stats.ttest_ind(log([19.6, 20, 20.4]), log([9.9, 10, 10.1]), equal_var=False).
  const ScalingRow& tvm8 = Find(rows, "tvm", "m", 8);
  EXPECT_DOUBLE_EQ(*tvm8.speedup_vs_identity, 2.0);
  ASSERT_TRUE(tvm8.speedup_ci);
  EXPECT_NEAR(tvm8.speedup_ci->low, 1.9185819661601182, 1e-9);
  EXPECT_NEAR(tvm8.speedup_ci->high, 2.0848731357595667, 1e-9);
  EXPECT_EQ(tvm8.speedup_note, "");
  EXPECT_FALSE(tvm8.throughput_ci);  // the row has no reproduction interval

  // One process at batch 1: the point values stay, their intervals are empty, the note says why.
  EXPECT_DOUBLE_EQ(*tvm8.ase, 0.5);  // 800 / (8 * 200) sps
  EXPECT_DOUBLE_EQ(*tvm8.rtr, 4);
  EXPECT_FALSE(tvm8.ase_ci);
  EXPECT_FALSE(tvm8.rtr_ci);
  EXPECT_EQ(tvm8.scaling_note, "interval: fewer than 2 processes (batch-1 run 1, this run 3)");
  const ScalingRow& tvm1 = Find(rows, "tvm", "m", 1);
  EXPECT_FALSE(tvm1.speedup_ci);
  EXPECT_EQ(tvm1.speedup_note, "interval: fewer than 2 processes (identity run 3, this run 1)");
  // A batch-1 run against itself needs no spread.
  ASSERT_TRUE(tvm1.ase_ci);
  EXPECT_EQ(tvm1.ase_ci->low, 1.0);
  EXPECT_EQ(tvm1.rtr_ci->high, 1.0);
  EXPECT_EQ(tvm1.scaling_note, "");

  // LatencyRatioInterval directly: a run without a median, and the notes joined.
  RunPoint no_median = runs[3];
  no_median.latency_p50_ms.reset();
  std::string note = "earlier";
  EXPECT_FALSE(LatencyRatioInterval(runs[1], "identity run", no_median, "this run", note));
  EXPECT_EQ(note, "earlier; interval: no latency_p50_ms in this run");
}

// Reversals are significant only when both orderings are: identity's interval of L_A / L_B
// below 1 and the compiler's above 1. One ranking per batch size:
//   b1: a 10 vs b 20 ms under identity, 10 vs 5 under tvm, 1% spread    -> significant
//   b2: c 10 vs d 10.5 ms under identity with 10% spread (holds 1)      -> tie
//   b4: e and f of one process each                                     -> tie, intervals empty
TEST(AnalysisMetrics, ReversalsSignificantOrTie) {
  const std::string arch = kRankedExperiment;
  const std::vector<RunPoint> runs = {
      Measured("identity", "a", 1, {9.9, 10, 10.1}, arch),
      Measured("identity", "b", 1, {19.8, 20, 20.2}, arch),
      Measured("tvm", "a", 1, {9.9, 10, 10.1}, arch),
      Measured("tvm", "b", 1, {4.95, 5, 5.05}, arch),
      Measured("identity", "c", 2, {9, 10, 11}, arch),
      Measured("identity", "d", 2, {9.5, 10.5, 11.5}, arch),
      Measured("tvm", "c", 2, {19.8, 20, 20.2}, arch),
      Measured("tvm", "d", 2, {9.9, 10, 10.1}, arch),
      Measured("identity", "e", 4, {10}, arch),
      Measured("identity", "f", 4, {20}, arch),
      Measured("tvm", "e", 4, {20}, arch),
      Measured("tvm", "f", 4, {10}, arch),
  };
  const std::vector<RankingRow> rows = ComputeRankings(runs, kBaseline);
  ASSERT_EQ(rows.size(), 3u);
  for (const RankingRow& row : rows) {
    ASSERT_EQ(row.reversals.size(), 1u) << "b" << row.batch_size;
    EXPECT_EQ(row.reversed_pairs, 1);
    EXPECT_DOUBLE_EQ(*row.kendall_tau_b, -1.0);  // a point value still
  }

  const ReversedPair& clear = rows[0].reversals[0];
  EXPECT_EQ(clear.model_a, "a");
  EXPECT_TRUE(clear.significant);
  ASSERT_TRUE(clear.identity_ratio_ci);
  ASSERT_TRUE(clear.compiler_ratio_ci);
  EXPECT_LT(clear.identity_ratio_ci->high, 1);  // 10 / 20
  EXPECT_GT(clear.compiler_ratio_ci->low, 1);   // 10 / 5
  const std::optional<RatioEstimate> expected =
      CompareProcessMedians(10, {9.9, 10, 10.1}, 20, {19.8, 20, 20.2});
  EXPECT_DOUBLE_EQ(clear.identity_ratio_ci->low, expected->low);
  EXPECT_DOUBLE_EQ(clear.identity_ratio_ci->high, expected->high);
  EXPECT_EQ(clear.note, "");
  EXPECT_EQ(rows[0].significant_reversals, 1);
  EXPECT_EQ(rows[0].tied_reversals, 0);

  const ReversedPair& close = rows[1].reversals[0];
  EXPECT_EQ(close.model_a, "c");
  EXPECT_FALSE(close.significant);
  ASSERT_TRUE(close.identity_ratio_ci);
  EXPECT_LT(close.identity_ratio_ci->low, 1);
  EXPECT_GT(close.identity_ratio_ci->high, 1);
  EXPECT_GT(close.compiler_ratio_ci->low, 1);  // the compiler's order alone is clear
  EXPECT_EQ(rows[1].significant_reversals, 0);
  EXPECT_EQ(rows[1].tied_reversals, 1);

  const ReversedPair& one = rows[2].reversals[0];
  EXPECT_FALSE(one.significant);
  EXPECT_FALSE(one.identity_ratio_ci);
  EXPECT_FALSE(one.compiler_ratio_ci);
  EXPECT_EQ(one.note,
            "identity interval: fewer than 2 processes (e 1, f 1); compiler interval: fewer than "
            "2 processes (e 1, f 1)");
  EXPECT_EQ(rows[2].tied_reversals, 1);

  // The other side alone: identity's order is clear, the compiler's interval holds 1.
  ReversedPair pair = clear;
  JudgeReversal(runs[0], runs[1], Measured("tvm", "a", 1, {9, 10, 11}, arch),
                Measured("tvm", "b", 1, {9.5, 9.9, 10.9}, arch), pair);
  EXPECT_LT(pair.identity_ratio_ci->high, 1);
  EXPECT_LT(pair.compiler_ratio_ci->low, 1);
  EXPECT_FALSE(pair.significant);
}

TEST(AnalysisMetrics, KendallTauB) {
  // One discordant pair of six: (5 - 1) / 6.
  EXPECT_DOUBLE_EQ(*KendallTauB({4, 3, 2, 1}, {3, 4, 2, 1}), 4.0 / 6.0);
  EXPECT_DOUBLE_EQ(*KendallTauB({1, 2, 3}, {3, 2, 1}), -1.0);
  EXPECT_DOUBLE_EQ(*KendallTauB({1, 2, 3}, {10, 20, 30}), 1.0);
  // One pair tied in x: C = 5, D = 0, n0 = 6, n1 = 1, n2 = 0 -> 5 / sqrt(5 * 6)
  // (tau-a would give 5 / 6).
  EXPECT_NEAR(*KendallTauB({1, 2, 2, 3}, {1, 3, 2, 4}), 5.0 / std::sqrt(30.0), 1e-15);
  EXPECT_FALSE(KendallTauB({1, 1, 1}, {1, 2, 3}));  // 0/0
  EXPECT_FALSE(KendallTauB({1}, {1}));
  EXPECT_FALSE(KendallTauB({}, {}));
  EXPECT_THROW(KendallTauB({1, 2}, {1}), std::invalid_argument);
}

TEST(AnalysisMetrics, ReversedPairs) {
  const auto pairs = FindReversedPairs({"a", "b", "c", "d"}, {4, 3, 2, 1}, {3, 4, 2, 1});
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].model_a, "a");  // identity runs a faster
  EXPECT_EQ(pairs[0].model_b, "b");  // the compiler runs b faster
  EXPECT_EQ(pairs[0].identity_a_sps, 4);
  EXPECT_EQ(pairs[0].identity_b_sps, 3);
  EXPECT_EQ(pairs[0].compiler_a_sps, 3);
  EXPECT_EQ(pairs[0].compiler_b_sps, 4);
  // Ties are not reversals; listed in model order, model_a always identity's faster one.
  const auto tied = FindReversedPairs({"x", "y", "z"}, {1, 1, 3}, {4, 2, 1});
  ASSERT_EQ(tied.size(), 2u);
  EXPECT_EQ(tied[0].model_a, "z");
  EXPECT_EQ(tied[0].model_b, "x");
  EXPECT_EQ(tied[1].model_a, "z");
  EXPECT_EQ(tied[1].model_b, "y");
}

TEST(AnalysisMetrics, RankingsOfArchitectures) {
  const std::string arch = kRankedExperiment;
  std::vector<RunPoint> runs = {
      Point("identity", "resnet18", 1, 300, kStatusOk, arch),
      Point("identity", "resnet50", 1, 100, kStatusOk, arch),
      Point("identity", "deit_tiny", 1, 80, kStatusOk, arch),
      Point("identity", "swin_tiny", 1, {}, kStatusCrashed, arch),
      Point("tvm", "resnet18", 1, 500, kStatusOk, arch),
      Point("tvm", "resnet50", 1, 90, kStatusOk, arch),
      Point("tvm", "deit_tiny", 1, 120, kStatusOk, arch),
      Point("tvm", "swin_tiny", 1, 50, kStatusOk, arch),
      Point("onnxruntime", "resnet18", 1, 400, kStatusOk, arch),
      Point("tvm", "resnet18", 8, 900, kStatusOk, arch),  // no identity at batch 8
      Point("tvm", "other", 1, 1, kStatusOk, "conv2d"),   // not an architecture
  };
  const std::vector<RankingRow> rows = ComputeRankings(runs, kBaseline);
  ASSERT_EQ(rows.size(), 3u);

  const RankingRow& ort = rows[0];
  EXPECT_EQ(ort.compiler, "onnxruntime");
  EXPECT_EQ(ort.models, 1);
  EXPECT_FALSE(ort.kendall_tau_b);
  EXPECT_EQ(ort.note,
            "not ranked, no ok run of both compilers: deit_tiny, resnet50, swin_tiny; fewer than "
            "2 models ranked");

  const RankingRow& tvm = rows[1];
  EXPECT_EQ(tvm.compiler, "tvm");
  EXPECT_EQ(tvm.batch_size, 1);
  EXPECT_EQ(tvm.models, 3);
  EXPECT_EQ(tvm.pairs, 3);
  // Orders: identity resnet18 > resnet50 > deit_tiny, tvm resnet18 > deit_tiny > resnet50.
  EXPECT_DOUBLE_EQ(*tvm.kendall_tau_b, 1.0 / 3.0);
  EXPECT_EQ(tvm.identity_order, "resnet18>resnet50>deit_tiny");
  EXPECT_EQ(tvm.compiler_order, "resnet18>deit_tiny>resnet50");
  ASSERT_EQ(tvm.reversed_pairs, 1);
  EXPECT_EQ(tvm.reversals[0].model_a, "resnet50");
  EXPECT_EQ(tvm.reversals[0].model_b, "deit_tiny");
  EXPECT_EQ(tvm.note, "not ranked, no ok run of both compilers: swin_tiny");

  const RankingRow& tvm8 = rows[2];
  EXPECT_EQ(tvm8.batch_size, 8);
  EXPECT_FALSE(tvm8.kendall_tau_b);
  EXPECT_EQ(tvm8.models, 0);
  EXPECT_EQ(tvm8.note, "no identity run of architectures at this device and batch size");
}

// An int8 run and the fp32 run of the same compiler and model are two runs: each has its own
// batch scaling, speedups over identity only at its own precision, and the int8 run its speedup
// over fp32 with the interval of the two runs' process medians.
TEST(AnalysisMetrics, PrecisionIsPartOfARunsIdentity) {
  auto at = [](RunPoint p, const std::string& precision) {
    p.precision = precision;
    return p;
  };
  RunPoint int8_1 = at(Measured("onnxruntime", "m", 1, {4.9, 5, 5.1}), "int8");
  int8_1.check_cosine = 0.9998;
  int8_1.check_snr_db = 34.5;
  const std::vector<RunPoint> runs = {
      at(Measured("identity", "m", 1, {19.6, 20, 20.4}), "fp32"),
      at(Measured("onnxruntime", "m", 1, {9.8, 10, 10.2}), "fp32"),
      at(Measured("onnxruntime", "m", 8, {39, 40, 41}), "fp32"),
      int8_1,
      at(Measured("onnxruntime", "m", 8, {19.5, 20, 20.5}), "int8"),
      at(Measured("openvino", "m", 1, {6}), "int8"),  // one process; no fp32 run
  };
  const std::vector<ScalingRow> scaling = ComputeScaling(runs, kBaseline);
  ASSERT_EQ(scaling.size(), 6u);
  auto find = [&](const std::string& compiler, int64_t batch, const std::string& precision) {
    for (const ScalingRow& row : scaling) {
      if (row.compiler == compiler && row.batch_size == batch && row.precision == precision) {
        return row;
      }
    }
    throw std::runtime_error("no row");
  };
  // Batch scaling within a precision: int8 b8 over int8 b1 (ASE = 5 / 20).
  EXPECT_DOUBLE_EQ(*find("onnxruntime", 8, "int8").ase, 0.25);
  EXPECT_DOUBLE_EQ(*find("onnxruntime", 8, "fp32").ase, 0.25);
  EXPECT_DOUBLE_EQ(*find("onnxruntime", 1, "fp32").speedup_vs_identity, 2.0);
  // No identity run at int8: the note names the precision, no number is made up.
  const ScalingRow int8_row = find("onnxruntime", 1, "int8");
  EXPECT_FALSE(int8_row.speedup_vs_identity);
  EXPECT_EQ(int8_row.speedup_note,
            "identity run at this batch size differs: precision fp32 vs int8 here");

  const std::vector<PrecisionRow> rows = ComputePrecisionSpeedups(runs);
  ASSERT_EQ(rows.size(), 3u);  // the runs not at fp32, identity's at fp32 none
  const PrecisionRow& ort1 = rows[0];
  EXPECT_EQ(ort1.compiler, "onnxruntime");
  EXPECT_EQ(ort1.batch_size, 1);
  EXPECT_EQ(ort1.precision, "int8");
  EXPECT_DOUBLE_EQ(*ort1.speedup_vs_fp32, 2.0);  // 10 ms / 5 ms
  EXPECT_DOUBLE_EQ(*ort1.fp32_latency_p50_ms, 10);
  EXPECT_DOUBLE_EQ(*ort1.latency_p50_ms, 5);
  EXPECT_DOUBLE_EQ(*ort1.check_cosine, 0.9998);
  EXPECT_DOUBLE_EQ(*ort1.check_snr_db, 34.5);
  EXPECT_EQ(ort1.note, "");
  // The same interval as any ratio of two runs' latencies (fp32 over int8).
  std::string note;
  const std::optional<Interval> expected =
      LatencyRatioInterval(runs[1], "fp32 run", runs[3], "this run", note);
  ASSERT_TRUE(ort1.speedup_ci);
  EXPECT_DOUBLE_EQ(ort1.speedup_ci->low, expected->low);
  EXPECT_DOUBLE_EQ(ort1.speedup_ci->high, expected->high);
  EXPECT_LT(ort1.speedup_ci->low, 2.0);
  EXPECT_GT(ort1.speedup_ci->high, 2.0);
  EXPECT_DOUBLE_EQ(*rows[1].speedup_vs_fp32, 2.0);  // b8: 40 ms / 20 ms
  const PrecisionRow& ov = rows[2];
  EXPECT_EQ(ov.compiler, "openvino");
  EXPECT_FALSE(ov.speedup_vs_fp32);
  EXPECT_FALSE(ov.fp32_latency_p50_ms);
  EXPECT_EQ(ov.note, "no fp32 run of openvino");

  // The fp32 run must agree in its other settings.
  std::vector<RunPoint> threads = runs;
  threads[1].threads = 2;
  EXPECT_EQ(ComputePrecisionSpeedups(threads)[0].note,
            "fp32 run of onnxruntime differs: threads 2 vs unset here");
  // Two runs of one precision are still one too many.
  std::vector<RunPoint> twice = runs;
  twice.push_back(runs[3]);
  EXPECT_THROW(ComputePrecisionSpeedups(twice), std::invalid_argument);
  EXPECT_THROW(ComputeScaling(twice, kBaseline), std::invalid_argument);
}

// ---- Loading and `analyze` end to end over real files ----

class AnalyzeFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("ngb_analysis_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  static ResultRow Row(const std::string& compiler, const std::string& experiment,
                       const std::string& model, int64_t batch, std::optional<double> sps,
                       const std::string& status = kStatusOk) {
    ResultRow row;
    row.run_id = model + "_b" + std::to_string(batch);
    row.experiment = experiment;
    row.model = model;
    row.family = experiment;
    row.batch_size = batch;
    row.compiler = compiler;
    row.device = "cpu0";
    row.precision = "fp32";
    row.status = status;
    row.throughput_median_sps = sps;
    if (sps) {  // one process, as rows of schema 4 and older read
      row.latency_p50_ms = static_cast<double>(batch) * 1e3 / *sps;
      row.processes = 1;
      row.process_p50s_ms = {*row.latency_p50_ms};
    }
    if (status != kStatusOk) row.error = "worker died\nwith signal 11";
    return row;
  }

  // `row` measured in processes whose medians are `medians_ms` (the middle one the row's
  // median, its throughput b / median), with the reproduction interval they give.
  static ResultRow Processes(ResultRow row, const std::vector<double>& medians_ms) {
    std::vector<double> sorted = medians_ms;
    std::sort(sorted.begin(), sorted.end());
    row.latency_p50_ms = sorted[sorted.size() / 2];
    row.throughput_median_sps = static_cast<double>(row.batch_size) * 1e3 / *row.latency_p50_ms;
    row.processes = static_cast<int64_t>(medians_ms.size());
    row.process_p50s_ms = medians_ms;
    const std::optional<Interval> ci = ReproductionInterval(*row.latency_p50_ms, medians_ms);
    row.latency_p50_ci_low_ms = ci->low;
    row.latency_p50_ci_high_ms = ci->high;
    return row;
  }

  // Writes rows (and a trace beside each, which analyze must skip) as results/cpu0/<compiler>/.
  void WriteTree(const fs::path& results, const std::vector<ResultRow>& rows) {
    for (const ResultRow& row : rows) {
      const std::string dir = (results / row.device / row.compiler).string();
      WriteRow(RowPath(dir, row.run_id), row);
      WriteLatencies(LatenciesPath(dir, row.run_id), {1000, 1100, 1050});
    }
  }

  // Zips every file under `dir` as "results/<relative path>", in reverse path order so the
  // archive order differs from the directory walk.
  static void Zip(const fs::path& dir, const fs::path& archive, bool stored = false) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
    std::sort(files.rbegin(), files.rend());
    int error = 0;
    zip_t* zip = zip_open(archive.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
    ASSERT_NE(zip, nullptr) << "zip_open error " << error;
    std::vector<std::string> contents;
    contents.reserve(files.size());  // zip_close reads the buffers: they must not move
    for (const fs::path& file : files) {
      contents.push_back(ReadText(file));
      zip_source_t* source =
          zip_source_buffer(zip, contents.back().data(), contents.back().size(), 0);
      ASSERT_NE(source, nullptr);
      const std::string name = "results/" + fs::relative(file, dir).generic_string();
      const zip_int64_t index = zip_file_add(zip, name.c_str(), source, ZIP_FL_ENC_UTF_8);
      ASSERT_GE(index, 0) << zip_strerror(zip);
      if (stored) ASSERT_EQ(zip_set_file_compression(zip, index, ZIP_CM_STORE, 0), 0);
    }
    ASSERT_EQ(zip_close(zip), 0);
  }

  static std::string ReadText(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  // The message of the InputError that `f` throws; fails the test when none is thrown.
  template <typename F>
  static std::string InputErrorOf(F f) {
    try {
      f();
    } catch (const InputError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no InputError thrown";
    return "";
  }

  fs::path root_;
};

TEST_F(AnalyzeFiles, DirectoryAndZipGiveByteIdenticalCsvs) {
  const std::string arch = kRankedExperiment;
  WriteTree(root_ / "results",
            {Row("identity", "conv2d", "conv2d_w64", 1, 1000),
             Row("identity", "conv2d", "conv2d_w64", 8, 4000),
             Row("tvm", "conv2d", "conv2d_w64", 1, 1500),
             Row("tvm", "conv2d", "conv2d_w64", 8, 12000.5),
             Row("tvm", "conv2d", "conv2d_w64", 16, {}, kStatusCrashed),
             Row("identity", arch, "resnet18", 1, 300), Row("identity", arch, "resnet50", 1, 100),
             Row("identity", arch, "deit_tiny", 1, 80), Row("tvm", arch, "resnet18", 1, 500),
             Row("tvm", arch, "resnet50", 1, 90), Row("tvm", arch, "deit_tiny", 1, 120)});
  const fs::path archive = root_ / "results_raw.zip";
  Zip(root_ / "results", archive);

  // The repository root (holding results/), and the zip.
  ASSERT_EQ(RunAnalyze({root_.string()}, (root_ / "from_dir").string()), kExitOk);
  ASSERT_EQ(RunAnalyze({archive.string()}, (root_ / "from_zip").string()), kExitOk);
  for (const char* name :
       {kScalingCsv, kBlocksCsv, kRankingCsv, kReversalsCsv, kFailuresCsv, kInvalidCsv}) {
    EXPECT_EQ(ReadText(root_ / "from_dir" / name), ReadText(root_ / "from_zip" / name)) << name;
  }

  // And the content is the metrics, not just equal.
  const std::string scaling = ReadText(root_ / "from_zip" / kScalingCsv);
  // One process a run: the intervals are empty and the notes say why (a run against itself, at
  // batch 1 or as identity, is exactly 1).
  EXPECT_NE(scaling.find("cpu0,conv2d,tvm,fp32,conv2d_w64,conv2d,,,8,12000.5,,,1500,"
                         "8.000333333333334,"
                         ",,1.0000416666666667,,,4000,3.000125,,,\"interval: fewer than 2 "
                         "processes (batch-1 run 1, this run 1)\",\"interval: fewer than 2 "
                         "processes (identity run 1, this run 1)\"\n"),
            std::string::npos)
      << scaling;
  EXPECT_NE(scaling.find("cpu0,conv2d,identity,fp32,conv2d_w64,conv2d,,,1,1000,,,1000,1,1,1,1,1,1,"
                         "1000,"
                         "1,1,1,,\n"),
            std::string::npos)
      << scaling;
  EXPECT_EQ(std::count(scaling.begin(), scaling.end(), '\n'), 11);  // header + 10 ok runs
  EXPECT_EQ(ReadText(root_ / "from_zip" / kFailuresCsv),
            "device,experiment,compiler,precision,model,batch_size,status,error\n"
            "cpu0,conv2d,tvm,fp32,conv2d_w64,16,crashed,worker died with signal 11\n");
  EXPECT_EQ(ReadText(root_ / "from_zip" / kReversalsCsv),
            "device,batch_size,compiler,precision,model_a,model_b,identity_a_sps,identity_b_sps,"
            "compiler_a_sps,compiler_b_sps,identity_latency_ratio_ci_low,"
            "identity_latency_ratio_ci_high,compiler_latency_ratio_ci_low,"
            "compiler_latency_ratio_ci_high,verdict,note\n"
            "cpu0,1,tvm,fp32,resnet50,deit_tiny,100,80,90,120,,,,,tie,"
            "\"identity interval: fewer than "
            "2 processes (resnet50 1, deit_tiny 1); compiler interval: fewer than 2 processes "
            "(resnet50 1, deit_tiny 1)\"\n");
  EXPECT_EQ(ReadText(root_ / "from_zip" / kRankingCsv),
            "device,batch_size,compiler,precision,models_ranked,pairs,reversed_pairs,"
            "significant_reversals,"
            "tied_reversals,kendall_tau_b,compiler_order,identity_order,note\n"
            "cpu0,1,tvm,fp32,3,3,1,0,1,0.3333333333333333,resnet18>deit_tiny>resnet50,"
            "resnet18>resnet50>deit_tiny,\n");

  // ReadRunLatencies reads the trace beside the row in the zip, and tells a missing one apart.
  const std::vector<LoadedRun> runs = LoadRuns(archive.string());
  ASSERT_FALSE(runs.empty());
  EXPECT_EQ(*ReadRunLatencies(runs[0]), (std::vector<int64_t>{1000, 1100, 1050}));
  LoadedRun missing = runs[0];
  missing.trace = "results/cpu0/nope.latencies.csv";
  EXPECT_FALSE(ReadRunLatencies(missing));
}

// Rows of several processes through the files: each interval lands in its columns.
TEST_F(AnalyzeFiles, IntervalsInTheCsvs) {
  const std::string arch = kRankedExperiment;
  ResultRow block_identity = Row("identity", "conv_blocks", "conv_blocks_w8_d2", 1, {});
  ResultRow block_tvm = Row("tvm", "conv_blocks", "conv_blocks_w8_d2", 1, {});
  for (ResultRow* row : {&block_identity, &block_tvm}) {
    row->width = 8;
    row->depth = 2;
  }
  WriteTree(root_ / "results",
            {Processes(Row("identity", "conv2d", "c", 1, {}), {9.8, 10, 10.2}),
             Processes(Row("identity", "conv2d", "c", 8, {}), {19.6, 20, 20.4}),
             Processes(Row("tvm", "conv2d", "c", 1, {}), {4.9, 5, 5.1}),
             Processes(Row("tvm", "conv2d", "c", 8, {}), {9.9, 10, 10.1}),
             Processes(block_identity, {19.6, 20, 20.4}), Processes(block_tvm, {9.9, 10, 10.1}),
             Processes(Row("identity", arch, "a", 1, {}), {9.9, 10, 10.1}),
             Processes(Row("identity", arch, "b", 1, {}), {19.8, 20, 20.2}),
             Processes(Row("tvm", arch, "a", 1, {}), {9.9, 10, 10.1}),
             Processes(Row("tvm", arch, "b", 1, {}), {4.95, 5, 5.05})});
  ASSERT_EQ(RunAnalyze({root_.string()}, (root_ / "out").string()), kExitOk);

  // The line of (compiler, model, batch) in a CSV, cell by column name.
  auto cells = [&](const char* file, const std::string& compiler, const std::string& model,
                   const std::string& batch) {
    std::istringstream in(ReadText(root_ / "out" / file));
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> header = CsvSplitLine(line);
    std::map<std::string, std::string> found;
    while (std::getline(in, line)) {
      const std::vector<std::string> values = CsvSplitLine(line);
      std::map<std::string, std::string> row;
      for (size_t i = 0; i < header.size() && i < values.size(); ++i) row[header[i]] = values[i];
      if (row["compiler"] == compiler && row["model"] == model && row["batch_size"] == batch) {
        found = row;
      }
    }
    EXPECT_FALSE(found.empty()) << file << ": no " << compiler << " " << model << " b" << batch;
    return found;
  };
  auto number = [](const std::string& text) { return text.empty() ? NAN : std::stod(text); };

  std::map<std::string, std::string> id8 = cells(kScalingCsv, "identity", "c", "8");
  EXPECT_EQ(id8["ase"], "0.5");
  EXPECT_NEAR(number(id8["ase_ci_low"]), 0.477833400486116, 1e-9);  // as in the test above
  EXPECT_NEAR(number(id8["ase_ci_high"]), 0.5231949038005016, 1e-9);
  EXPECT_NEAR(number(id8["rtr_ci_low"]), 8 * 0.477833400486116, 1e-8);
  const std::optional<Interval> repro = ReproductionInterval(20, {19.6, 20, 20.4});
  EXPECT_NEAR(number(id8["throughput_ci_low_sps"]), 8000 / repro->high, 1e-5);  // 9 digits
  EXPECT_NEAR(number(id8["throughput_ci_high_sps"]), 8000 / repro->low, 1e-5);
  EXPECT_EQ(id8["speedup_ci_low"], "1");
  EXPECT_EQ(id8["scaling_note"], "");

  std::map<std::string, std::string> tvm8 = cells(kScalingCsv, "tvm", "c", "8");
  EXPECT_EQ(tvm8["speedup_vs_identity"], "2");
  EXPECT_NEAR(number(tvm8["speedup_ci_low"]), 1.9185819661601182, 1e-9);
  EXPECT_NEAR(number(tvm8["speedup_ci_high"]), 2.0848731357595667, 1e-9);
  EXPECT_EQ(tvm8["speedup_note"], "");

  std::map<std::string, std::string> block = cells(kBlocksCsv, "tvm", "conv_blocks_w8_d2", "1");
  EXPECT_NEAR(number(block["speedup_ci_low"]), 1.9185819661601182, 1e-9);
  EXPECT_NEAR(number(block["throughput_ci_low_sps"]),
              1000 / ReproductionInterval(10, {9.9, 10, 10.1})->high, 1e-6);

  EXPECT_EQ(ReadText(root_ / "out" / kRankingCsv).substr(
                ReadText(root_ / "out" / kRankingCsv).find('\n') + 1),
            "cpu0,1,tvm,fp32,2,1,1,1,0,-1,b>a,a>b,\n");
  const std::string reversals = ReadText(root_ / "out" / kReversalsCsv);
  EXPECT_NE(reversals.find("cpu0,1,tvm,fp32,a,b,100,50,100,200,"), std::string::npos) << reversals;
  EXPECT_NE(reversals.find(",significant,\n"), std::string::npos) << reversals;
}

TEST_F(AnalyzeFiles, InvalidAndWrongRowsInTheirOwnFiles) {
  ResultRow invalid = Row("identity", "conv2d", "c", 8, 400);
  invalid.valid = false;
  invalid.invalid_reason = "cv 0.31 > 0.1; other_cpu_pct 90 > 50";
  ResultRow wrong = Row("tvm", "conv2d", "c", 1, 900, kStatusWrong);
  wrong.error = "max abs err 0.5 > tolerance 1e-4";
  ResultRow valid = Row("identity", "conv2d", "c", 1, 100);
  valid.valid = true;
  WriteTree(root_ / "results", {valid, invalid, wrong, Row("tvm", "conv2d", "c", 8, 1000)});

  ASSERT_EQ(RunAnalyze({root_.string()}, (root_ / "out").string()), kExitOk);
  EXPECT_EQ(ReadText(root_ / "out" / kInvalidCsv),
            "device,experiment,compiler,precision,model,batch_size,run_id,invalid_reason,left_out\n"
            "cpu0,conv2d,identity,fp32,c,8,c_b8,cv 0.31 > 0.1; other_cpu_pct 90 > 50,true\n");
  EXPECT_EQ(ReadText(root_ / "out" / kFailuresCsv),
            "device,experiment,compiler,precision,model,batch_size,status,error\n"
            "cpu0,conv2d,tvm,fp32,c,1,wrong,max abs err 0.5 > tolerance 1e-4\n");
  const std::string scaling = ReadText(root_ / "out" / kScalingCsv);
  EXPECT_EQ(scaling.substr(scaling.find('\n') + 1),
            "cpu0,conv2d,identity,fp32,c,conv2d,,,1,100,,,100,1,1,1,1,1,1,100,1,1,1,,\n"
            "cpu0,conv2d,tvm,fp32,c,conv2d,,,8,1000,,,,,,,,,,,,,,"
            "batch-1 run of tvm ended with status "
            "wrong,identity run at this batch size is invalid (cv 0.31 > 0.1; other_cpu_pct 90 > "
            "50)\n");

  ASSERT_EQ(RunAnalyze({root_.string()}, (root_ / "all").string(), InvalidRuns::kInclude), kExitOk);
  const std::string all = ReadText(root_ / "all" / kScalingCsv);
  EXPECT_NE(all.find("cpu0,conv2d,identity,fp32,c,conv2d,,,8,400,,,100,4,,,0.5,,,400,1,1,1,"
                     "\"interval: "
                     "fewer than 2 processes (batch-1 run 1, this run 1)\",\n"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("cpu0,conv2d,tvm,fp32,c,conv2d,,,8,1000,,,,,,,,,,400,2.5,,,"
                     ""), std::string::npos)
      << all;
  EXPECT_NE(ReadText(root_ / "all" / kInvalidCsv)
                .find(",c_b8,cv 0.31 > 0.1; other_cpu_pct 90 > 50,false\n"),
            std::string::npos);
}

// An offline row stands beside the single-stream row of the same model and batch size: the
// batch-scaling metrics are computed from the single-stream rows alone, as if it were not
// there, and the tree is not refused for holding two runs of one model and batch size.
TEST_F(AnalyzeFiles, OfflineRowsStayOutOfTheBatchScalingMetrics) {
  const std::vector<ResultRow> single = {Row("identity", "conv2d", "c", 1, 100),
                                         Row("identity", "conv2d", "c", 8, 400)};
  WriteTree(root_ / "single", single);
  ASSERT_EQ(RunAnalyze({(root_ / "single").string()}, (root_ / "a").string()), kExitOk);
  ResultRow offline = Row("identity", "conv2d", "c", 1, 50);
  offline.run_id = "c_b1_offline_s2";
  offline.scenario = "offline";
  offline.streams = 2;
  offline.samples_per_s = 40;
  std::vector<ResultRow> both = single;
  both.push_back(offline);
  WriteTree(root_ / "both", both);
  ASSERT_EQ(RunAnalyze({(root_ / "both").string()}, (root_ / "b").string()), kExitOk);
  EXPECT_EQ(ReadText(root_ / "b" / kScalingCsv), ReadText(root_ / "a" / kScalingCsv));
  EXPECT_EQ(ReadText(root_ / "b" / kRankingCsv), ReadText(root_ / "a" / kRankingCsv));
}

TEST_F(AnalyzeFiles, BadInputsNameTheFile) {
  const std::string missing = (root_ / "nope").string();
  EXPECT_NE(InputErrorOf([&] { LoadRuns(missing); }).find(missing), std::string::npos);

  fs::create_directories(root_ / "empty" / "cpu0");
  EXPECT_NE(InputErrorOf([&] { LoadRuns((root_ / "empty").string()); }).find("not a results tree"),
            std::string::npos);

  const fs::path garbage = root_ / "garbage.zip";
  std::ofstream(garbage) << "this is not a zip archive";
  EXPECT_NE(InputErrorOf([&] { LoadRuns(garbage.string()); }).find(garbage.string()),
            std::string::npos);

  // A real archive cut in half.
  WriteTree(root_ / "tree", {Row("tvm", "conv2d", "c", 1, 10), Row("tvm", "conv2d", "c", 2, 20)});
  Zip(root_ / "tree", root_ / "whole.zip");
  const std::string bytes = ReadText(root_ / "whole.zip");
  const fs::path cut = root_ / "cut.zip";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  EXPECT_NE(InputErrorOf([&] { LoadRuns(cut.string()); }).find(cut.string()), std::string::npos);
  EXPECT_EQ(LoadRuns((root_ / "whole.zip").string()).size(), 2u);

  // A row that is not a result row.
  const fs::path bad = root_ / "tree" / "cpu0" / "tvm" / "c_b4.csv";
  std::ofstream(bad) << "schema_version,run_id\n1,c_b4\n";
  EXPECT_NE(InputErrorOf([&] { LoadRuns((root_ / "tree").string()); }).find(bad.string()),
            std::string::npos);
  fs::remove(bad);

  // An ok row without a throughput.
  WriteTree(root_ / "tree", {Row("tvm", "conv2d", "c", 4, {})});
  const std::string message = InputErrorOf([&] { LoadRuns((root_ / "tree").string()); });
  EXPECT_NE(message.find("c_b4.csv"), std::string::npos) << message;
  EXPECT_NE(message.find("throughput_median_sps"), std::string::npos) << message;
}

TEST_F(AnalyzeFiles, SameRunInTwoInputsIsAnError) {
  WriteTree(root_ / "a", {Row("tvm", "conv2d", "c", 1, 10)});
  WriteTree(root_ / "b", {Row("tvm", "conv2d", "c", 1, 11)});
  const std::string message =
      InputErrorOf([&] { LoadRuns({(root_ / "a").string(), (root_ / "b").string()}); });
  EXPECT_NE(message.find("same run"), std::string::npos) << message;
  EXPECT_THROW(RunAnalyze({}, (root_ / "out").string()), InputError);
}

// An int8 tree and the fp32 tree of the same runs are analyzed together: every table tells the
// precisions apart, and precision_speedup.csv holds int8 over fp32 with its interval and the
// output check's measures.
TEST_F(AnalyzeFiles, Int8AndFp32TreesTogether) {
  auto int8 = [](ResultRow row) {
    row.precision = "int8";
    row.check_cosine = 0.9998;
    row.check_snr_db = 34.25;
    return row;
  };
  WriteTree(root_ / "fp32",
            {Processes(Row("identity", "conv2d", "c", 1, {}), {19.6, 20, 20.4}),
             Processes(Row("onnxruntime", "conv2d", "c", 1, {}), {9.8, 10, 10.2})});
  WriteTree(root_ / "int8",
            {int8(Processes(Row("onnxruntime", "conv2d", "c", 1, {}), {4.9, 5, 5.1})),
             int8(Row("openvino", "conv2d", "c", 1, {}, kStatusWrong))});
  const std::vector<std::string> inputs = {(root_ / "fp32").string(), (root_ / "int8").string()};
  ASSERT_EQ(LoadRuns(inputs).size(), 4u);
  ASSERT_EQ(RunAnalyze(inputs, (root_ / "out").string()), kExitOk);

  const std::string scaling = ReadText(root_ / "out" / kScalingCsv);
  EXPECT_NE(scaling.find("cpu0,conv2d,onnxruntime,fp32,c,conv2d,,,1,100,"), std::string::npos)
      << scaling;
  EXPECT_NE(scaling.find("cpu0,conv2d,onnxruntime,int8,c,conv2d,,,1,200,"), std::string::npos)
      << scaling;
  EXPECT_NE(scaling.find("identity run at this batch size differs: precision fp32 vs int8 here"),
            std::string::npos)
      << scaling;
  EXPECT_EQ(ReadText(root_ / "out" / kFailuresCsv),
            "device,experiment,compiler,precision,model,batch_size,status,error\n"
            "cpu0,conv2d,openvino,int8,c,1,wrong,worker died with signal 11\n");

  const std::string precision = ReadText(root_ / "out" / kPrecisionCsv);
  // The figures as the rows read back (9 significant digits).
  std::optional<RunPoint> fp32, quantized;
  for (const LoadedRun& run : LoadRuns(inputs)) {
    if (run.row.compiler != "onnxruntime") continue;
    (run.row.precision == "int8" ? quantized : fp32) = ToRunPoint(run.row);
  }
  ASSERT_TRUE(fp32 && quantized);
  std::string note;
  const Interval ci = *LatencyRatioInterval(*fp32, "a", *quantized, "b", note);
  const std::string line = Line()
                               .Add(std::string("cpu0"))
                               .Add(std::string("conv2d"))
                               .Add(std::string("onnxruntime"))
                               .Add(std::string("int8"))
                               .Add(std::string("c"))
                               .Add(std::string("conv2d"))
                               .Add(std::string())
                               .Add(std::string())
                               .Add(int64_t{1})
                               .Add(5.0)
                               .Add(*quantized->latency_p50_ci_low_ms)
                               .Add(*quantized->latency_p50_ci_high_ms)
                               .Add(10.0)
                               .Add(*fp32->latency_p50_ci_low_ms)
                               .Add(*fp32->latency_p50_ci_high_ms)
                               .Add(200.0)
                               .Add(100.0)
                               .Add(2.0)
                               .Add(ci.low)
                               .Add(ci.high)
                               .Add(0.9998)
                               .Add(34.25)
                               .Add(std::string())
                               .Add(std::string())
                               .Add(std::string())
                               .Add(std::string())
                               .End();
  EXPECT_EQ(precision.substr(precision.find('\n') + 1), line);
  EXPECT_EQ(precision.substr(0, precision.find('\n')).rfind(
                "device,experiment,compiler,precision,model,family,width,depth,batch_size,", 0),
            0u);
}

}  // namespace
}  // namespace ngraphbench

namespace ngraphbench {
namespace {

// Hostile inputs found by a fuzzing campaign.
TEST_F(AnalyzeFiles, AZipEntryClaimingGigabytesIsRefusedBeforeReading) {
  WriteTree(root_ / "results", {Row("identity", "conv2d", "conv2d_w64", 1, 1000)});
  const fs::path zip = root_ / "big.zip";
  Zip(root_ / "results", zip);
  // Rewrite every uncompressed size in the central directory (signature PK\1\2, size at +24)
  // to 3 GiB; the bytes themselves stay small.
  std::string bytes = ReadText(zip);
  const uint32_t huge = 3u << 30;
  int patched = 0;
  for (size_t at = bytes.find("PK\x01\x02"); at != std::string::npos;
       at = bytes.find("PK\x01\x02", at + 4)) {
    std::memcpy(&bytes[at + 24], &huge, sizeof(huge));
    ++patched;
  }
  ASSERT_GT(patched, 0);
  std::ofstream(zip, std::ios::binary) << bytes;
  const std::string error = InputErrorOf([&] { LoadRuns(zip.string()); });
  EXPECT_NE(error.find("the entry claims 3221225472 bytes"), std::string::npos) << error;
}

TEST_F(AnalyzeFiles, AnOutputPathThatIsAFileIsBadInput) {
  WriteTree(root_ / "results", {Row("identity", "conv2d", "conv2d_w64", 1, 1000)});
  std::ofstream(root_ / "taken") << "a file";
  const std::string error = InputErrorOf(
      [&] { RunAnalyze({(root_ / "results").string()}, (root_ / "taken").string(), {}); });
  EXPECT_NE(error.find("is an existing file; give a directory"), std::string::npos) << error;
  EXPECT_EQ(ReadText(root_ / "taken"), "a file");
}

// A digit changed inside a stored (uncompressed) entry still decompresses: only the CRC tells.
// Such an archive is refused, for a row when it is loaded and for a trace when it is read.
TEST_F(AnalyzeFiles, EntriesWithAWrongCrcAreRefused) {
  WriteTree(root_ / "tree", {Row("tvm", "conv2d", "c", 1, 123456.5)});
  Zip(root_ / "tree", root_ / "good.zip", /*stored=*/true);
  const std::string bytes = ReadText(root_ / "good.zip");
  ASSERT_EQ(LoadRuns((root_ / "good.zip").string()).size(), 1u);

  auto damaged = [&](const std::string& from, const std::string& to, const std::string& name) {
    std::string copy = bytes;
    const size_t at = copy.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    EXPECT_EQ(copy.find(from, at + 1), std::string::npos) << from << " is not unique";
    copy.replace(at, from.size(), to);
    const fs::path path = root_ / name;
    std::ofstream(path, std::ios::binary) << copy;
    return path.string();
  };
  const std::string row = damaged("123456.5", "923456.5", "row.zip");
  const std::string message = InputErrorOf([&] { LoadRuns(row); });
  EXPECT_NE(message.find("c_b1.csv: corrupt entry (CRC error)"), std::string::npos) << message;

  const std::string trace = damaged("2,1050", "2,9050", "trace.zip");
  const std::vector<LoadedRun> runs = LoadRuns(trace);
  ASSERT_EQ(runs.size(), 1u);
  const std::string trace_message = InputErrorOf([&] { ReadRunLatencies(runs[0]); });
  EXPECT_NE(trace_message.find("CRC error"), std::string::npos) << trace_message;
  EXPECT_EQ(*ReadRunLatencies(LoadRuns((root_ / "good.zip").string())[0]),
            (std::vector<int64_t>{1000, 1100, 1050}));
}

}  // namespace
}  // namespace ngraphbench

// ---- Offline and server beside single stream (analysis/scenarios.h) ----

namespace ngraphbench {
namespace {

// A single-stream run of `sps` samples/s whose p99 is 1.5 times its median.
RunPoint Single(const std::string& compiler, const std::string& model, int64_t batch,
                double sps) {
  RunPoint p = Point(compiler, model, batch, sps);
  p.run_id = model + "_b" + std::to_string(batch);
  p.latency_p99_ms = 1.5 * *p.latency_p50_ms;
  return p;
}

// An offline run at batch size 1 with `streams` streams: `sps` samples/s over the window, and
// each request's latency (p50, p99).
RunPoint Offline(const std::string& compiler, const std::string& model, int64_t streams,
                 double sps, double p50_ms, double p99_ms, const std::string& run_id = "") {
  RunPoint p = Point(compiler, model, 1, std::nullopt);  // ok: no batch / latency throughput
  p.scenario = "offline";
  p.run_id = run_id.empty() ? model + "_b1_offline_s" + std::to_string(streams) : run_id;
  p.streams = streams;
  p.samples_per_s = sps;
  p.latency_p50_ms = p50_ms;
  p.latency_p99_ms = p99_ms;
  return p;
}

const RoadsRow& Road(const std::vector<RoadsRow>& rows, const std::string& compiler, int64_t k) {
  for (const RoadsRow& row : rows) {
    if (row.compiler == compiler && row.in_flight == k) return row;
  }
  throw std::runtime_error("no row " + compiler + " k=" + std::to_string(k));
}

// onnxruntime: batch 1, 2, 4 at 100, 180, 300 samples/s; 2, 4, 8 streams at 190, 250, 400.
// openvino: batch 2 on 2 threads, 2 streams on 1. tvm: 2 streams invalid. identity: 2 streams
// measured twice (explicitly and as auto). inductor: its offline runs crashed. torchscript: no
// offline run at all.
std::vector<RunPoint> RoadsTable() {
  std::vector<RunPoint> runs = {
      Single("onnxruntime", "m", 1, 100),          Single("onnxruntime", "m", 2, 180),
      Single("onnxruntime", "m", 4, 300),          Offline("onnxruntime", "m", 2, 190, 10.5, 12),
      Offline("onnxruntime", "m", 4, 250, 16, 20), Offline("onnxruntime", "m", 8, 400, 20, 30),
      Single("openvino", "m", 2, 200),             Offline("openvino", "m", 2, 150, 13, 15),
      Single("tvm", "m", 2, 100),                  Offline("tvm", "m", 2, 120, 16, 18),
      Single("identity", "m", 2, 100),             Offline("identity", "m", 2, 150, 13, 15),
      Offline("identity", "m", 2, 160, 12, 14, "m_b1_offline_sauto"),
      Single("inductor", "m", 1, 100),             Single("torchscript", "m", 1, 100),
      Single("torchscript", "m", 2, 150),
  };
  for (RunPoint& run : runs) {
    if (run.compiler == "openvino") run.threads = run.scenario == "offline" ? 1 : 2;
    if (run.compiler == "tvm" && run.scenario == "offline") {
      run.valid = false;
      run.invalid_reason = "cv 0.3 > 0.1";
    }
  }
  // inductor's offline runs crashed, its auto one before it said how many streams it serves.
  for (const std::string id : {"m_b1_offline_s4", "m_b1_offline_sauto"}) {
    runs.push_back(Point("inductor", "m", 1, std::nullopt, kStatusCrashed));
    runs.back().scenario = "offline";
    runs.back().run_id = id;
    if (id == "m_b1_offline_s4") runs.back().streams = 4;
  }
  return runs;
}

TEST(AnalysisScenarios, BatchingAgainstConcurrencyOnHandTable) {
  const std::vector<RoadsRow> rows = CompareRoads(RoadsTable());
  // identity 2; inductor 1, 4; onnxruntime 1, 2, 4, 8; openvino 2; tvm 2; no torchscript.
  ASSERT_EQ(rows.size(), 9u);
  EXPECT_EQ(rows.front().compiler, "identity");
  EXPECT_EQ(rows.back().compiler, "tvm");

  const RoadsRow& one = Road(rows, "onnxruntime", 1);
  EXPECT_EQ(one.batching_run_id, "m_b1");
  EXPECT_DOUBLE_EQ(*one.batching_sps, 100);
  EXPECT_FALSE(one.concurrency_sps);
  EXPECT_FALSE(one.concurrency_over_batching);
  EXPECT_EQ(one.better, "");
  EXPECT_EQ(one.note, "no offline run at batch size 1 with 1 stream");

  const RoadsRow& two = Road(rows, "onnxruntime", 2);
  EXPECT_EQ(two.concurrency_run_id, "m_b1_offline_s2");
  EXPECT_DOUBLE_EQ(*two.batching_sps, 180);
  EXPECT_DOUBLE_EQ(*two.batching_latency_p50_ms, 2000.0 / 180);
  EXPECT_DOUBLE_EQ(*two.batching_latency_p99_ms, 1.5 * 2000.0 / 180);
  EXPECT_DOUBLE_EQ(*two.concurrency_sps, 190);
  EXPECT_DOUBLE_EQ(*two.concurrency_latency_p50_ms, 10.5);
  EXPECT_DOUBLE_EQ(*two.concurrency_latency_p99_ms, 12);
  EXPECT_DOUBLE_EQ(*two.concurrency_over_batching, 190.0 / 180);
  EXPECT_EQ(two.better, "concurrency");
  EXPECT_EQ(two.note, "");

  const RoadsRow& four = Road(rows, "onnxruntime", 4);
  EXPECT_DOUBLE_EQ(*four.concurrency_over_batching, 250.0 / 300);
  EXPECT_EQ(four.better, "batching");

  // No batch of 8 measured: its own numbers stand, nothing is extrapolated.
  const RoadsRow& eight = Road(rows, "onnxruntime", 8);
  EXPECT_FALSE(eight.batching_sps);
  EXPECT_DOUBLE_EQ(*eight.concurrency_sps, 400);
  EXPECT_FALSE(eight.concurrency_over_batching);
  EXPECT_EQ(eight.note, "no single_stream run at batch size 8");

  const RoadsRow& openvino = Road(rows, "openvino", 2);
  EXPECT_DOUBLE_EQ(*openvino.batching_sps, 200);
  EXPECT_DOUBLE_EQ(*openvino.concurrency_sps, 150);
  EXPECT_FALSE(openvino.concurrency_over_batching);
  EXPECT_EQ(openvino.note, "the two runs differ (single_stream's first): threads 2 vs 1");

  const RoadsRow& tvm = Road(rows, "tvm", 2);
  EXPECT_EQ(tvm.concurrency_run_id, "m_b1_offline_s2");
  EXPECT_FALSE(tvm.concurrency_sps);
  EXPECT_EQ(tvm.note, "offline run at batch size 1 with 2 streams is invalid (cv 0.3 > 0.1)");
  const RoadsRow& tvm_kept = Road(CompareRoads(RoadsTable(), InvalidRuns::kInclude), "tvm", 2);
  EXPECT_DOUBLE_EQ(*tvm_kept.concurrency_over_batching, 1.2);
  EXPECT_EQ(tvm_kept.note, "");

  // Two offline runs served 2 streams: the first by run id is compared, and the note says so.
  const RoadsRow& identity = Road(rows, "identity", 2);
  EXPECT_EQ(identity.concurrency_run_id, "m_b1_offline_s2");
  EXPECT_DOUBLE_EQ(*identity.concurrency_over_batching, 1.5);
  EXPECT_EQ(identity.note, "2 streams also measured by m_b1_offline_sauto; compared: "
                           "m_b1_offline_s2");

  EXPECT_EQ(Road(rows, "inductor", 4).note,
            "no single_stream run at batch size 4; offline run at batch size 1 with 4 streams "
            "ended with status crashed");
  EXPECT_EQ(Road(rows, "inductor", 1).note, "no offline run at batch size 1 with 1 stream");
}

TEST(AnalysisScenarios, OfflineRunsSortedAndInvalidLeftOut) {
  std::vector<RunPoint> runs = RoadsTable();
  runs.push_back(Offline("onnxruntime", "m", 2, 300, 12, 14, "m_b2_offline_s2"));
  runs.back().batch_size = 2;
  const std::vector<RunPoint> offline = SelectOfflineRuns(runs);
  std::vector<std::string> order;
  for (const RunPoint& run : offline) order.push_back(run.compiler + "/" + run.run_id);
  EXPECT_EQ(order, (std::vector<std::string>{
                       "identity/m_b1_offline_s2", "identity/m_b1_offline_sauto",
                       "onnxruntime/m_b1_offline_s2", "onnxruntime/m_b1_offline_s4",
                       "onnxruntime/m_b1_offline_s8", "onnxruntime/m_b2_offline_s2",
                       "openvino/m_b1_offline_s2"}));
  EXPECT_EQ(SelectOfflineRuns(runs, InvalidRuns::kInclude).size(), 8u);  // tvm's too
}

// A find_peak run at batch 2: 20 QPS met, 80 broken, 40 met (the peak, the row's step).
ResultRow PeakRow() {
  ResultRow row;
  row.run_id = "m_b2_server_s2_peak";
  row.device = "cpu0";
  row.experiment = "conv2d";
  row.compiler = "onnxruntime";
  row.model = "m";
  row.batch_size = 2;
  row.scenario = "server";
  row.streams = 2;
  row.status = kStatusOk;
  row.target_qps = 40;
  row.achieved_qps = 39.5;
  row.samples_per_s = 79;
  row.latency_p50_ms = 10;
  row.latency_percentile = 99;
  row.latency_at_percentile_ms = 45;
  row.latency_bound_ms = 50;
  row.bound_met = true;
  row.queries_issued = 400;
  row.queries_completed = 400;
  row.valid = true;
  row.peak_qps = 40;
  row.peak_steps = 3;
  return row;
}

std::vector<ServerStep> PeakSteps() {
  return {{1, 20, 20, 5, 9, true, true, "", 200, 200},
          {2, 80, 60, 30, 120, false, true, "", 800, 700},
          {3, 40, 39.5, 10, 45, true, true, "", 400, 400}};
}

TEST(AnalysisScenarios, ServerCurveIsTheStepsOrTheRowsOwnPoint) {
  const std::vector<ServerPoint> curve = ServerCurve(PeakRow(), PeakSteps());
  ASSERT_EQ(curve.size(), 3u);
  EXPECT_EQ(curve[1].step, 2);
  EXPECT_DOUBLE_EQ(curve[1].samples_per_s, 120);  // batch 2 x 60 QPS
  EXPECT_FALSE(curve[1].bound_met);
  EXPECT_EQ(curve[1].queries_completed, 700);
  EXPECT_EQ(curve[1].latency_bound_ms, 50);
  EXPECT_EQ(curve[1].latency_percentile, 99);
  EXPECT_EQ(std::vector<bool>({curve[0].reported, curve[1].reported, curve[2].reported}),
            std::vector<bool>({false, false, true}));

  // A find_peak row without its steps file: the reported step only, and why.
  const std::vector<ServerPoint> alone = ServerCurve(PeakRow(), std::nullopt);
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_FALSE(alone[0].step);
  EXPECT_TRUE(alone[0].reported);
  EXPECT_DOUBLE_EQ(alone[0].samples_per_s, 79);
  EXPECT_DOUBLE_EQ(alone[0].latency_at_percentile_ms, 45);
  EXPECT_EQ(alone[0].note, "no m_b2_server_s2_peak.server_steps.csv beside the row: the reported "
                           "step only (of 3)");

  // A run at one rate is one point, with the row's verdict.
  ResultRow fixed = PeakRow();
  fixed.run_id = "m_b2_server_s2_q40";
  fixed.peak_qps.reset();
  fixed.peak_steps.reset();
  fixed.valid = false;
  fixed.invalid_reason = "cv 0.5 > 0.1";
  const std::vector<ServerPoint> one = ServerCurve(fixed, std::nullopt);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_FALSE(one[0].valid);
  EXPECT_EQ(one[0].invalid_reason, "cv 0.5 > 0.1");
  EXPECT_EQ(one[0].note, "");
}

// analyze over a tree with offline and server runs: their CSVs, the same from a zip, and none
// for a tree without them.
TEST_F(AnalyzeFiles, OfflineAndServerCsvs) {
  std::vector<ResultRow> rows = {Row("identity", "conv2d", "c", 1, 100),
                                 Row("identity", "conv2d", "c", 2, 160)};
  WriteTree(root_ / "single", rows);
  ASSERT_EQ(RunAnalyze({(root_ / "single").string()}, (root_ / "a").string()), kExitOk);
  for (const char* file : {kBatchVsStreamsCsv, kOfflineRunsCsv, kServerRunsCsv, kServerStepsCsv}) {
    EXPECT_FALSE(fs::exists(root_ / "a" / file)) << file;
  }

  ResultRow offline = Row("identity", "conv2d", "c", 1, {});
  offline.run_id = "c_b1_offline_s2";
  offline.scenario = "offline";
  offline.streams = 2;
  offline.threads_per_stream = 1;
  offline.samples_per_s = 250;
  offline.latency_p50_ms = 8;
  offline.latency_p99_ms = 12;
  offline.cpu_util_pct = 190;
  offline.valid = true;
  rows.push_back(offline);
  ResultRow peak = PeakRow();
  peak.compiler = "identity";
  peak.model = "c";
  peak.run_id = "c_b2_server_s2_peak";
  rows.push_back(peak);
  WriteTree(root_ / "both", rows);
  const std::string dir = (root_ / "both" / "cpu0" / "identity").string();
  WriteFileAtomic(ServerStepsPath(dir, peak.run_id), FormatServerStepsCsv(PeakSteps()));
  ASSERT_EQ(RunAnalyze({(root_ / "both").string()}, (root_ / "b").string()), kExitOk);
  // The single-stream metrics do not move.
  EXPECT_EQ(ReadText(root_ / "b" / kScalingCsv), ReadText(root_ / "a" / kScalingCsv));

  EXPECT_EQ(ReadText(root_ / "b" / kBatchVsStreamsCsv),
            "device,experiment,compiler,precision,model,samples_in_flight,batching_run_id,"
            "batching_sps,"
            "batching_latency_p50_ms,batching_latency_p99_ms,concurrency_run_id,"
            "concurrency_sps,concurrency_latency_p50_ms,concurrency_latency_p99_ms,"
            "concurrency_over_batching,better,note\n"
            "cpu0,conv2d,identity,fp32,c,1,c_b1,100,10,,,,,,,,"
            "no offline run at batch size 1 with 1 "
            "stream\n"
            "cpu0,conv2d,identity,fp32,c,2,c_b2,160,12.5,,c_b1_offline_s2,250,8,12,1.5625,"
            "concurrency,\n");
  EXPECT_EQ(ReadText(root_ / "b" / kOfflineRunsCsv),
            "device,experiment,compiler,precision,model,batch_size,run_id,streams,"
            "samples_in_flight,"
            "threads,threads_per_stream,samples_per_s,latency_p50_ms,latency_p99_ms,"
            "cpu_util_pct,valid\n"
            "cpu0,conv2d,identity,fp32,c,1,c_b1_offline_s2,2,2,,1,250,8,12,190,true\n");
  EXPECT_EQ(ReadText(root_ / "b" / kServerRunsCsv),
            "device,experiment,compiler,precision,model,batch_size,run_id,streams,threads,"
            "find_peak,"
            "target_qps,achieved_qps,samples_per_s,latency_p50_ms,latency_percentile,"
            "latency_at_percentile_ms,latency_bound_ms,bound_met,queries_issued,"
            "queries_completed,valid,invalid_reason,peak_qps,peak_steps\n"
            "cpu0,conv2d,identity,,c,2,c_b2_server_s2_peak,2,,true,40,39.5,79,10,99,45,50,true,"
            "400,400,true,,40,3\n");
  EXPECT_EQ(ReadText(root_ / "b" / kServerStepsCsv),
            "device,experiment,compiler,precision,model,batch_size,run_id,streams,step,target_qps,"
            "achieved_qps,samples_per_s,latency_p50_ms,latency_percentile,"
            "latency_at_percentile_ms,latency_bound_ms,bound_met,valid,invalid_reason,"
            "queries_issued,queries_completed,reported,note\n"
            "cpu0,conv2d,identity,,c,2,c_b2_server_s2_peak,2,1,20,20,40,5,99,9,50,true,true,,200,"
            "200,false,\n"
            "cpu0,conv2d,identity,,c,2,c_b2_server_s2_peak,2,2,80,60,120,30,99,120,50,false,true,"
            ",800,700,false,\n"
            "cpu0,conv2d,identity,,c,2,c_b2_server_s2_peak,2,3,40,39.5,79,10,99,45,50,true,true,,"
            "400,400,true,\n");

  Zip(root_ / "both", root_ / "both.zip");
  ASSERT_EQ(RunAnalyze({(root_ / "both.zip").string()}, (root_ / "z").string()), kExitOk);
  for (const char* file : {kBatchVsStreamsCsv, kOfflineRunsCsv, kServerRunsCsv, kServerStepsCsv}) {
    EXPECT_EQ(ReadText(root_ / "z" / file), ReadText(root_ / "b" / file)) << file;
  }

  // Analyzed again into the same folder without such runs: none of their files is left.
  ASSERT_EQ(RunAnalyze({(root_ / "single").string()}, (root_ / "z").string()), kExitOk);
  for (const char* file : {kBatchVsStreamsCsv, kOfflineRunsCsv, kServerRunsCsv, kServerStepsCsv}) {
    EXPECT_FALSE(fs::exists(root_ / "z" / file)) << file;
  }
}

// An ok offline row carries samples_per_s, not throughput_median_sps; a server row its rate and
// latency at the percentile.
TEST_F(AnalyzeFiles, OfflineAndServerRowsCarryTheirOwnThroughput) {
  ResultRow offline = Row("identity", "conv2d", "c", 1, {});
  offline.run_id = "c_b1_offline_s2";
  offline.scenario = "offline";
  offline.streams = 2;
  WriteTree(root_ / "tree", {offline});
  std::string message = InputErrorOf([&] { LoadRuns((root_ / "tree").string()); });
  EXPECT_NE(message.find("c_b1_offline_s2.csv: an ok offline row whose samples_per_s is empty"),
            std::string::npos)
      << message;
  offline.samples_per_s = 250;
  ResultRow server = PeakRow();
  server.achieved_qps.reset();
  WriteTree(root_ / "tree", {offline, server});
  message = InputErrorOf([&] { LoadRuns((root_ / "tree").string()); });
  EXPECT_NE(message.find("m_b2_server_s2_peak.csv: an ok server row without samples_per_s, "
                         "achieved_qps"),
            std::string::npos)
      << message;
  fs::remove(root_ / "tree" / "cpu0" / "onnxruntime" / "m_b2_server_s2_peak.csv");
  EXPECT_EQ(LoadRuns((root_ / "tree").string()).size(), 1u);
}

// A model named like a spreadsheet formula is written into every CSV with a single quote in
// front (text cells only: negative numbers stay numbers), and the loader reads the name back.
TEST_F(AnalyzeFiles, FormulaLikeNamesAreGuardedInEveryCsv) {
  const std::string evil = "=cmd|' -C calc'!A0";
  ResultRow ok = Row("identity", "conv2d", evil, 1, 1000.0);
  ok.run_id = "evil_b1";
  ResultRow crashed = Row("identity", "conv2d", "@other", 1, {}, kStatusCrashed);
  crashed.run_id = "other_b1";
  crashed.error = "-1 is not a shape";
  WriteTree(root_ / "tree", {ok, crashed});
  const std::vector<LoadedRun> runs = LoadRuns((root_ / "tree").string());
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].row.model, evil);
  EXPECT_EQ(runs[1].row.model, "@other");
  EXPECT_EQ(runs[1].row.error, "-1 is not a shape");
  EXPECT_NE(ReadText(root_ / "tree" / "cpu0" / "identity" / "evil_b1.csv").find(",'=cmd|"),
            std::string::npos);

  ASSERT_EQ(RunAnalyze({(root_ / "tree").string()}, (root_ / "out").string()), kExitOk);
  const std::string scaling = ReadText(root_ / "out" / kScalingCsv);
  EXPECT_NE(scaling.find(",'=cmd|' -C calc'!A0,"), std::string::npos) << scaling;
  const std::string failures = ReadText(root_ / "out" / kFailuresCsv);
  EXPECT_NE(failures.find(",'@other,1,crashed,'-1 is not a shape"), std::string::npos)
      << failures;
  for (const std::string& text : {scaling, failures}) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      for (const std::string& cell : CsvSplitLine(line)) {
        EXPECT_TRUE(cell.empty() || std::string("=+-@").find(cell[0]) == std::string::npos)
            << cell;
      }
    }
  }
  // Numbers are cells of their own kind, never guarded.
  EXPECT_EQ(Line().Add(std::string("-x")).Add(-5.0).Add(int64_t{-3}).End(), "'-x,-5,-3\n");
}

// Values no measurement can have stop analyze (and compare, report: the same loader) with the
// file, the column and what would be right; the row as written loads.
TEST_F(AnalyzeFiles, ImplausibleValuesAreRefusedNamingTheColumn) {
  const ResultRow good = Processes(Row("identity", "conv2d", "c", 4, 1000.0), {4.0, 4.1, 3.9});
  const fs::path tree = root_ / "tree";
  const std::string file = "c_b4.csv";
  WriteTree(tree, {good});
  ASSERT_EQ(LoadRuns(tree.string()).size(), 1u);
  struct Case {
    const char* what;
    std::function<void(ResultRow&)> change;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"infinite median", [](ResultRow& r) { r.latency_p50_ms = INFINITY; },
       "latency_p50_ms is inf; expected a finite number > 0"},
      {"negative median", [](ResultRow& r) { r.latency_p50_ms = -5; },
       "latency_p50_ms is -5; expected a finite number > 0"},
      {"NaN throughput", [](ResultRow& r) { r.throughput_mean_sps = NAN; },
       "throughput_mean_sps is nan; expected a finite number > 0"},
      {"infinite interval",
       [](ResultRow& r) {
         r.latency_p50_ci_low_ms = -INFINITY;
         r.latency_p50_ci_high_ms = INFINITY;
       },
       "latency_p50_ci_low_ms is -inf; expected a finite number >= 0"},
      {"interval beside the median",
       [](ResultRow& r) {
         r.latency_p50_ci_low_ms = 1;
         r.latency_p50_ci_high_ms = 2;
       },
       "the interval latency_p50_ci_low_ms 1 to latency_p50_ci_high_ms 2 does not hold "
       "latency_p50_ms 4; expected low <= latency_p50_ms <= high"},
      {"half an interval", [](ResultRow& r) { r.latency_p50_within_ci_high_ms.reset(); },
       "does not hold latency_p50_ms"},
      {"quantiles out of order", [](ResultRow& r) { r.latency_max_ms = 1; },
       "latency_p50_ms 4 is above latency_max_ms 1; expected min <= p50"},
      {"huge batch", [](ResultRow& r) { r.batch_size = INT64_MAX; },
       "batch_size is 9223372036854775807; expected an integer from 1 to 65536"},
  };
  for (const Case& c : cases) {
    ResultRow row = good;
    row.latency_p50_within_ci_low_ms = 3.95;
    row.latency_p50_within_ci_high_ms = 4.05;
    row.latency_max_ms = 9;
    c.change(row);
    fs::remove_all(tree);
    WriteTree(tree, {row});
    const std::string message = InputErrorOf([&] { LoadRuns(tree.string()); });
    EXPECT_NE(message.find(file + ": "), std::string::npos) << c.what << ": " << message;
    EXPECT_NE(message.find(c.expected), std::string::npos) << c.what << ": " << message;
  }
}

// A bad steps file stops analyze naming the file, from a tree and from a zip; a missing one
// leaves the run its reported step.
TEST_F(AnalyzeFiles, BadServerStepsFilesNameTheFile) {
  const ResultRow peak = PeakRow();
  WriteTree(root_ / "tree", {peak});
  const std::string steps = ServerStepsPath((root_ / "tree" / "cpu0" / "onnxruntime").string(),
                                            peak.run_id);
  ASSERT_EQ(RunAnalyze({(root_ / "tree").string()}, (root_ / "missing").string()), kExitOk);
  EXPECT_NE(ReadText(root_ / "missing" / kServerStepsCsv)
                .find("no m_b2_server_s2_peak.server_steps.csv beside the row"),
            std::string::npos);

  std::ofstream(steps) << "step,qps\n1,2\n";
  std::string message =
      InputErrorOf([&] { RunAnalyze({(root_ / "tree").string()}, (root_ / "out").string()); });
  EXPECT_NE(message.find("server steps '" + steps + "' has the header 'step,qps'"),
            std::string::npos)
      << message;
  EXPECT_FALSE(fs::exists(root_ / "out" / kScalingCsv));  // read before anything is written

  std::vector<ServerStep> two = PeakSteps();
  two.pop_back();
  WriteFileAtomic(steps, FormatServerStepsCsv(two));
  message =
      InputErrorOf([&] { RunAnalyze({(root_ / "tree").string()}, (root_ / "out").string()); });
  EXPECT_NE(message.find("server steps '" + steps + "' holds 2 steps, but its row's peak_steps "
                         "is 3"),
            std::string::npos)
      << message;

  std::string text = FormatServerStepsCsv(PeakSteps());
  text.replace(text.find(",true,true,,400,400"), 19, ",true,maybe,,400,400");
  std::ofstream(steps, std::ios::trunc) << text;
  Zip(root_ / "tree", root_ / "tree.zip");
  message = InputErrorOf(
      [&] { RunAnalyze({(root_ / "tree.zip").string()}, (root_ / "out").string()); });
  EXPECT_NE(message.find((root_ / "tree.zip").string() +
                         ":results/cpu0/onnxruntime/m_b2_server_s2_peak.server_steps.csv' line 4: "
                         "valid is 'maybe'"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace ngraphbench
