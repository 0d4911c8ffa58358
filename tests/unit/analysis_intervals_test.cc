// The intervals of the derived metrics (analysis/metrics.h): RTR, ASE and speedups from the
// processes' medians, ratios paired by pass or not, ratios across machines, and reversals judged
// by both orderings' intervals; on hand-computed tables.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/analysis/metrics.h"
#include "unit/analysis_fixture.h"

namespace ngraphbench {
namespace {

using namespace analysis_testing;  // NOLINT: the shared runs of these files

// identity m: b1 10 ms (medians 9.8, 10, 10.2), b8 20 ms (19.6, 20, 20.4); tvm m b8 10 ms (9.9,
// 10, 10.1), tvm m b1 one process. No process times, so unpaired reproduction intervals. The same
// spread of logs s on both identity runs: h = t_{0.975, 4} sqrt(2 (2 c_3 s^2 / 3)), df = 4
// (Welch-Satterthwaite with equal variances and sizes), c_3 = 1.346.
TEST(AnalysisIntervals, IntervalsFromProcessMedians) {
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
  const double h = 2.7764451051977934 * std::sqrt(2 * 2 * 1.346 * (sq / 2) / 3);  // t.ppf(.975, 4)
  ASSERT_TRUE(id8.ase_ci);
  EXPECT_NEAR(id8.ase_ci->low, 0.5 * std::exp(-h), 1e-12);
  EXPECT_NEAR(id8.ase_ci->high, 0.5 * std::exp(h), 1e-12);
  EXPECT_NEAR(id8.ase_ci->low, 0.46414989490925396, 1e-9);  // with numpy and scipy
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

  // The speedup T_tvm / T_identity = L_identity / L_tvm = 20 / 10, unequal spreads: df 2.941
  // (Welch-Satterthwaite of c_3 s^2 / 3 on each side), h = t.ppf(0.975, df) sqrt(2 (va + vb)).
  const ScalingRow& tvm8 = Find(rows, "tvm", "m", 8);
  EXPECT_DOUBLE_EQ(*tvm8.speedup_vs_identity, 2.0);
  ASSERT_TRUE(tvm8.speedup_ci);
  EXPECT_NEAR(tvm8.speedup_ci->low, 1.8681656642310405, 1e-9);
  EXPECT_NEAR(tvm8.speedup_ci->high, 2.141137735580023, 1e-9);
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

// Runs measured pass by pass are compared pass by pass. The machine slows by 8 % in the third
// pass, both runs alike: identity 10, 10.1, 10.8 ms, tvm 5, 5.05, 5.4 ms. Welch sees both runs
// spread; the pairs' ratios are all 2.
TEST(AnalysisIntervals, RatioIntervalsPairedByPass) {
  std::vector<RunPoint> runs = {Measured("identity", "m", 1, {10, 10.1, 10.8}),
                                Measured("tvm", "m", 1, {5, 5.05, 5.4})};
  runs[0].process_ends_unix_ms = {100, 200, 300};  // passes of 100 ms
  runs[1].process_ends_unix_ms = {150, 250, 350};
  const ScalingRow paired = Find(ComputeScaling(runs, kBaseline), "tvm", "m", 1);
  ASSERT_TRUE(paired.speedup_ci);
  EXPECT_NEAR(paired.speedup_ci->low, *paired.speedup_vs_identity, 1e-12);
  EXPECT_NEAR(paired.speedup_ci->high, *paired.speedup_vs_identity, 1e-12);
  EXPECT_EQ(paired.speedup_note, "");

  // tvm measured after identity's sweep: the unpaired interval over both spreads, and a note.
  runs[1].process_ends_unix_ms = {400, 500, 600};
  const ScalingRow apart = Find(ComputeScaling(runs, kBaseline), "tvm", "m", 1);
  ASSERT_TRUE(apart.speedup_ci);
  std::string note;
  const std::optional<Interval> welch = RatioReproductionInterval(
      *runs[0].latency_p50_ms, runs[0].process_p50s_ms, *runs[1].latency_p50_ms,
      runs[1].process_p50s_ms, /*paired=*/false);
  EXPECT_DOUBLE_EQ(apart.speedup_ci->low, welch->low);
  EXPECT_DOUBLE_EQ(apart.speedup_ci->high, welch->high);
  EXPECT_LT(apart.speedup_ci->low, 1.9);
  EXPECT_EQ(apart.speedup_note,
            "interval unpaired: the identity run and this run were not measured pass by pass");

  // Rows without times (schema 12 and older): unpaired, without a note.
  runs[0].process_ends_unix_ms.clear();
  const ScalingRow untimed = Find(ComputeScaling(runs, kBaseline), "tvm", "m", 1);
  EXPECT_DOUBLE_EQ(untimed.speedup_ci->low, welch->low);
  EXPECT_EQ(untimed.speedup_note, "");

  // Two machines under one device label: the ratio is computed, and its note says so.
  runs[0].machine_id = "240c4d75284fa64a";
  runs[1].machine_id = "ede2c5a86163f308";
  const ScalingRow machines = Find(ComputeScaling(runs, kBaseline), "tvm", "m", 1);
  EXPECT_DOUBLE_EQ(*machines.speedup_vs_identity, *untimed.speedup_vs_identity);
  EXPECT_EQ(machines.speedup_note,
            "measured on different machines: identity run on 240c4d75284fa64a, this run on "
            "ede2c5a86163f308 (machine.json)");
  runs[1].machine_id = runs[0].machine_id;
  EXPECT_EQ(Find(ComputeScaling(runs, kBaseline), "tvm", "m", 1).speedup_note, "");
}

// Reversals are significant only when both orderings are: identity's interval of L_A / L_B
// below 1 and the compiler's above 1. One ranking per batch size:
//   b1: a 10 vs b 20 ms under identity, 10 vs 5 under tvm, 1% spread    -> significant
//   b2: c 10 vs d 10.5 ms under identity with 10% spread (holds 1)      -> tie
//   b4: e and f of one process each                                     -> tie, intervals empty
TEST(AnalysisIntervals, ReversalsSignificantOrTie) {
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
  const std::optional<Interval> expected =
      RatioReproductionInterval(10, {9.9, 10, 10.1}, 20, {19.8, 20, 20.2}, /*paired=*/false);
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

}  // namespace
}  // namespace ngraphbench
