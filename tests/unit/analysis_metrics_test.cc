// Derived metrics on small hand-computed tables, their intervals from process medians and the
// verdict on ranking reversals (part of analysis_test).
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
#include "unit/analysis_fixture.h"

namespace ngraphbench {
namespace {

using namespace analysis_testing;  // NOLINT: the shared runs and fixture of these files

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

}  // namespace
}  // namespace ngraphbench
