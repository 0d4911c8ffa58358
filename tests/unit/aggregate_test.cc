// The statistics of a run over its processes' summaries, each function on its own.
#include "ngraphbench/measure/aggregate.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ngraphbench/measure/harness.h"  // kMinTimedRepeats
#include "ngraphbench/measure/sampler.h"  // kMinSamplerPeriods

namespace ngraphbench {
namespace {

// A process whose timed runs are `n` of `median_ms` (odd n: the median is exact).
ProcessSummary Process(int process, double median_ms, int n = 11, double window_s = 1) {
  ProcessSummary p;
  p.process = process;
  for (int i = 0; i < n; ++i) {
    p.latencies_ns.push_back(static_cast<int64_t>(median_ms * 1e6) + (i - n / 2) * 1000);
  }
  p.window_s = window_s;
  return p;
}

ValiditySettings Settings() {
  ValiditySettings s;
  s.max_ci_rel = 0.05;
  s.min_processes = 3;
  s.min_repeats = 10;
  s.max_other_cpu_pct = 50;
  s.max_stall_share = 0.1;
  return s;
}

RunFigures Good() {
  RunFigures f;
  f.window_s = 3;
  f.repeats = 33;
  f.cv = 0.01;
  f.other_cpu_pct = 2;
  f.interval_rel = 0.01;
  return f;
}

TEST(Aggregate, ShareOfRunSplitsTheTimedWorkAndKeepsAMedianPerProcess) {
  RunWork work;
  work.warmup = 10;
  work.repeats = 100;
  work.max_time_s = 30;
  work.min_time_s = 0.3;
  work.max_repeats = 1000;
  work.processes = 3;
  work.sample_period_ms = 10;
  const ProcessShare part = ShareOfRun(work, true);
  EXPECT_EQ(part.repeats, 34);  // ceil(100 / 3): the run's processes time at least `repeats`
  EXPECT_DOUBLE_EQ(part.max_time_s, 10);
  EXPECT_EQ(part.max_repeats, 334);
  EXPECT_EQ(part.min_timed_repeats, 4);  // ceil(10 / 3)
  EXPECT_EQ(part.warmup, 4);             // ceil(10 / 3), and kMinProcessWarmup
  // A third of min_time_s would hold fewer sampler periods than a CPU figure needs.
  EXPECT_DOUBLE_EQ(part.min_time_s, 1.2 * kMinSamplerPeriods * 10 / 1e3);

  const ProcessShare whole = ShareOfRun(work, false);
  EXPECT_EQ(whole.repeats, 100);
  EXPECT_DOUBLE_EQ(whole.max_time_s, 30);
  EXPECT_DOUBLE_EQ(whole.min_time_s, 0.3);
  EXPECT_EQ(whole.min_timed_repeats, kMinTimedRepeats);
  EXPECT_EQ(whole.warmup, 10);  // one process warms up in full

  work.processes = 50;  // every process still times a median of its own
  EXPECT_EQ(ShareOfRun(work, true).min_timed_repeats, 3);
  EXPECT_EQ(ShareOfRun(work, true).repeats, 2);

  // The warmup is shared too, but each process keeps kMinProcessWarmup runs (its latency is
  // still settling before them), and none warms up more than asked.
  static_assert(kMinProcessWarmup == 4);
  EXPECT_EQ(ShareOfRun(work, true).warmup, 4);
  work.processes = 2;
  EXPECT_EQ(ShareOfRun(work, true).warmup, 5);
  work.warmup = 100;
  EXPECT_EQ(ShareOfRun(work, true).warmup, 50);
  work.warmup = 2;
  EXPECT_EQ(ShareOfRun(work, true).warmup, 2);
  work.warmup = 0;
  EXPECT_EQ(ShareOfRun(work, true).warmup, 0);
}

TEST(Aggregate, PoolsTheTimedRunsAndTakesTheIntervalFromTheProcessMedians) {
  EXPECT_FALSE(PoolLatencies({}, 1).has_value());
  EXPECT_FALSE(PoolLatencies({ProcessSummary{}}, 1).has_value());  // measured nothing

  const std::vector<ProcessSummary> ps = {Process(0, 1.0), ProcessSummary{}, Process(2, 1.1),
                                          Process(3, 1.2)};
  const std::optional<PooledLatencies> pooled = PoolLatencies(ps, 1);
  ASSERT_TRUE(pooled.has_value());
  EXPECT_EQ(pooled->repeats, 33);
  EXPECT_DOUBLE_EQ(pooled->window_s, 3);
  ASSERT_EQ(pooled->process_p50s_ms.size(), 3u);  // the process that measured nothing has none
  EXPECT_NEAR(pooled->process_p50s_ms[1], 1.1, 1e-9);
  EXPECT_NEAR(pooled->stats.p50_ms, 1.1, 1e-9);
  const std::optional<Interval> expected = ReproductionInterval(pooled->stats.p50_ms,
                                                                pooled->process_p50s_ms);
  ASSERT_TRUE(pooled->interval && expected);
  EXPECT_DOUBLE_EQ(pooled->interval->low, expected->low);
  EXPECT_DOUBLE_EQ(pooled->interval->high, expected->high);
  ASSERT_TRUE(pooled->interval_rel.has_value());
  EXPECT_NEAR(*pooled->interval_rel,
              (expected->high - expected->low) / 2 / pooled->stats.p50_ms, 1e-12);

  // One process: no interval.
  const std::optional<PooledLatencies> one = PoolLatencies({Process(0, 2.0)}, 1);
  ASSERT_TRUE(one.has_value());
  EXPECT_FALSE(one->interval.has_value());
  EXPECT_FALSE(one->interval_rel.has_value());
}

TEST(Aggregate, RelHalfWidthNeedsAPositiveMedian) {
  EXPECT_DOUBLE_EQ(*RelHalfWidth(0.9, 1.1, 1.0), 0.1);
  EXPECT_FALSE(RelHalfWidth(0, 0, 0).has_value());
}

TEST(NextRepetition, MetMoreCapAndAHopelessSpread) {
  // Within the target: done, whatever the count.
  EXPECT_EQ(NextRepetition({1.0, 1.01, 0.99}, 0.02, 0.05, 3, 10), Repetition::kMet);
  EXPECT_EQ(NextRepetition({1.0, 1.01, 0.99}, 0.05, 0.05, 3, 10), Repetition::kMet);
  // Wider: another process, until the cap.
  EXPECT_EQ(NextRepetition({1.0, 1.1, 0.95}, 0.12, 0.05, 3, 10), Repetition::kMore);
  EXPECT_EQ(NextRepetition(std::vector<double>(10, 1.0), 0.06, 0.05, 3, 10), Repetition::kCap);
  // No interval yet (one process): more.
  EXPECT_EQ(NextRepetition({1.0}, std::nullopt, 0.05, 1, 10), Repetition::kMore);
  // A spread that would need 110 processes (sd 15%) stops at start + 2, not before.
  const std::vector<double> wide = {1.0, std::exp(0.15), std::exp(-0.15), 1.0, std::exp(0.15)};
  const double sd = LogSpreadOf(wide)->sd;
  ASSERT_GT(ProcessesForTarget(sd, 0.05), 20);
  EXPECT_EQ(NextRepetition({wide.begin(), wide.begin() + 4}, 0.3, 0.05, 3, 10), Repetition::kMore);
  EXPECT_EQ(NextRepetition(wide, 0.3, 0.05, 3, 10), Repetition::kSpread);
  // One that 20 processes would reach goes on to the cap.
  const std::vector<double> narrower = {1.0, std::exp(0.06), std::exp(-0.06), 1.0,
                                        std::exp(0.06)};
  ASSERT_LE(ProcessesForTarget(LogSpreadOf(narrower)->sd, 0.05), 20);
  EXPECT_EQ(NextRepetition(narrower, 0.09, 0.05, 3, 10), Repetition::kMore);
  EXPECT_STREQ(RepetitionReason(Repetition::kMet), "ci");
  EXPECT_STREQ(RepetitionReason(Repetition::kCap), "max_processes");
  EXPECT_STREQ(RepetitionReason(Repetition::kSpread), "spread");
}

TEST(Aggregate, NextProcessStopsOnceTheIntervalIsNarrowEnough) {
  const ValiditySettings s = Settings();
  // Two processes far apart: the interval is wide, another process.
  EXPECT_EQ(NextProcess({Process(0, 1.0), Process(1, 1.3)}, 1, 0.02, 2, 10, s),
            Repetition::kMore);
  // Four processes within 0.1 % of each other: met.
  EXPECT_EQ(NextProcess({Process(0, 1.000), Process(1, 1.001), Process(2, 0.999),
                         Process(3, 1.0005)},
                        1, 0.02, 2, 10, s),
            Repetition::kMet);
  // At the cap, not met.
  EXPECT_EQ(NextProcess({Process(0, 1.0), Process(1, 1.3)}, 1, 0.02, 2, 2, s), Repetition::kCap);
  // Nothing measured yet: more.
  EXPECT_EQ(NextProcess({}, 1, 0.02, 2, 10, s), Repetition::kMore);
}

// A run whose processes break a rule judged per process is invalid whatever more processes
// measure: it gets none ("invalid"). One that met its interval is still complete ("ci"), and a
// stall within max_stall_share, like the rules of the run as a whole, leaves it to the interval.
TEST(Aggregate, NextProcessAddsNoneToARunNoProcessCanMakeValid) {
  const ValiditySettings s = Settings();
  const std::vector<ProcessSummary> wide = {Process(0, 1.0), Process(1, 1.3), Process(2, 1.1)};
  ASSERT_EQ(NextProcess(wide, 1, 0.05, 3, 10, s), Repetition::kMore);
  EXPECT_FALSE(BreaksUnmendableRule(wide, s));

  std::vector<ProcessSummary> degraded = wide;
  degraded[1].degraded = {"executorch: 4 of 43 operator(s) left outside XNNPACK"};
  EXPECT_TRUE(BreaksUnmendableRule(degraded, s));
  EXPECT_EQ(NextProcess(degraded, 1, 0.05, 3, 10, s), Repetition::kInvalid);
  EXPECT_STREQ(RepetitionReason(Repetition::kInvalid), "invalid");

  std::vector<ProcessSummary> stalled = wide;
  stalled[2].stall_s = 0.2;  // 20 % of its 1 s window, over max_stall_share's 10 %
  EXPECT_EQ(NextProcess(stalled, 1, 0.05, 3, 10, s), Repetition::kInvalid);
  stalled[2].stall_s = 0.05;  // within it
  EXPECT_EQ(NextProcess(stalled, 1, 0.05, 3, 10, s), Repetition::kMore);

  std::vector<ProcessSummary> scenario = wide;
  scenario[0].scenario_reasons = {"find_peak: no rate met the latency bound"};
  EXPECT_EQ(NextProcess(scenario, 1, 0.05, 3, 10, s), Repetition::kInvalid);

  std::vector<ProcessSummary> met = {Process(0, 1.000), Process(1, 1.001), Process(2, 0.999)};
  met[0].degraded = {"threads: 2 asked, the SDK runs 1"};
  EXPECT_EQ(NextProcess(met, 1, 0.05, 3, 10, s), Repetition::kMet);
}

TEST(Aggregate, AnIntervalWiderThanAllowedIsExplainedInTheProcessesFigures) {
  const std::vector<ProcessSummary> wide = {Process(0, 1.0), Process(1, 1.3), Process(2, 1.1)};
  const std::optional<PooledLatencies> pooled = PoolLatencies(wide, 1);
  ASSERT_TRUE(pooled && pooled->interval_rel);
  ASSERT_GT(*pooled->interval_rel, 0.05);
  const std::string note = SpreadNote(*pooled, 0.05);
  EXPECT_EQ(note, DescribeProcessSpread(pooled->process_p50s_ms, 0.05));
  EXPECT_EQ(note.rfind("processes' medians spread", 0), 0u) << note;
  EXPECT_EQ(SpreadNote(*pooled, *pooled->interval_rel), "");  // within what is allowed
}

TEST(Aggregate, WeightedMeanNeedsEveryValueAndWeight) {
  EXPECT_DOUBLE_EQ(*WeightedMean({1.0, 4.0}, {3.0, 1.0}), 7.0 / 4);
  EXPECT_FALSE(WeightedMean({1.0, std::nullopt}, {1.0, 1.0}).has_value());
  EXPECT_FALSE(WeightedMean({1.0, 2.0}, {1.0, std::nullopt}).has_value());
  EXPECT_FALSE(WeightedMean({1.0}, {0.0}).has_value());
  EXPECT_FALSE(WeightedMean({}, {}).has_value());
  EXPECT_DOUBLE_EQ(*MaxOf({std::nullopt, 2.0, 1.0}), 2.0);
  EXPECT_FALSE(MaxOf({std::nullopt}).has_value());
}

TEST(Aggregate, AGoodRunIsValid) {
  const RunVerdict v = JudgeRun({Process(0, 1), Process(1, 1), Process(2, 1)}, Good(),
                                Settings(), 0.5, 100000);
  EXPECT_TRUE(v.valid());
  EXPECT_EQ(v.Reasons(), "");
}

TEST(Aggregate, StallsAreJudgedInEachProcessesOwnWindowAndNameIt) {
  std::vector<ProcessSummary> ps = {Process(0, 1, 11, 10), Process(1, 1, 11, 10),
                                    Process(2, 1, 11, 10)};
  // 2 s of process 1's 10 s window: over 10 % of it, though not of the run's 30 s.
  ps[1].stall_s = 2;
  RunFigures f = Good();
  f.window_s = 30;
  RunVerdict v = JudgeRun(ps, f, Settings(), 0.5, 100000);
  ASSERT_EQ(v.broken.size(), 1u);
  EXPECT_EQ(v.broken[0].rule, ValidityRule::kStall);
  EXPECT_EQ(v.broken[0].reason,
            "process 1: stalls took 2 s, 20% of the timed window > max_stall_share 10%");
  // Within the share: valid.
  ps[1].stall_s = 0.5;
  EXPECT_TRUE(JudgeRun(ps, f, Settings(), 0.5, 100000).valid());

  // A run measured whole in one process names none.
  ProcessSummary whole = Process(-1, 1, 11, 10);
  whole.stall_s = 5;
  f.window_s = 10;
  v = JudgeRun({whole}, f, Settings(), 0.5, 100000);
  ASSERT_FALSE(v.broken.empty());
  EXPECT_EQ(v.broken.back().reason,
            "stalls took 5 s, 50% of the timed window > max_stall_share 10%");
}

TEST(Aggregate, DegradedItemsAndScenarioReasonsCountOnceInFirstSeenOrder) {
  std::vector<ProcessSummary> ps = {Process(0, 1), Process(1, 1), Process(2, 1)};
  ps[0].degraded = {"tvm tuning=failed:timeout"};
  ps[1].degraded = {"threads: 4 asked, the SDK runs 2", "tvm tuning=failed:timeout"};
  ps[0].scenario_reasons = {"server: issued over 1 s < server_min_duration_s 2"};
  ps[2].scenario_reasons = {"server: issued over 1 s < server_min_duration_s 2",
                            "server: find_peak found no rate that met the bound, down to 1 QPS"};
  const RunVerdict v = JudgeRun(ps, Good(), Settings(), 0.5, 100000);
  EXPECT_FALSE(v.valid());
  ASSERT_EQ(v.broken.size(), 2u);
  EXPECT_EQ(v.Rules(), (std::vector<ValidityRule>{ValidityRule::kDegraded,
                                                   ValidityRule::kDegraded}));
  EXPECT_EQ(v.broken[0].reason, "degraded build: tvm tuning=failed:timeout");
  EXPECT_EQ(v.broken[1].reason, "degraded build: threads: 4 asked, the SDK runs 2");
  ASSERT_EQ(v.scenario_reasons.size(), 2u);
  // The rules' reasons first, the scenario's after them: the row's invalid_reason.
  EXPECT_EQ(v.Reasons(),
            "degraded build: tvm tuning=failed:timeout; degraded build: threads: 4 asked, the "
            "SDK runs 2; server: issued over 1 s < server_min_duration_s 2; server: find_peak "
            "found no rate that met the bound, down to 1 QPS");

  // Scenario reasons alone make the run invalid, with no rule of the verdict broken.
  ps[0].degraded.clear();
  ps[1].degraded.clear();
  const RunVerdict server = JudgeRun(ps, Good(), Settings(), 0.5, 100000);
  EXPECT_FALSE(server.valid());
  EXPECT_TRUE(server.Rules().empty());
}

TEST(Aggregate, TheRunsFiguresMeetTheRules) {
  const std::vector<ProcessSummary> ps = {Process(0, 1), Process(1, 1)};
  RunFigures f = Good();
  f.window_s = 0.2;
  f.repeats = 9;
  f.interval_rel = 0.08;
  f.other_cpu_pct = 90;
  RunVerdict v = JudgeRun(ps, f, Settings(), 0.5, 100000);
  EXPECT_EQ(v.Rules(), (std::vector<ValidityRule>{ValidityRule::kWindow, ValidityRule::kRepeats,
                                                   ValidityRule::kProcesses,
                                                   ValidityRule::kInterval,
                                                   ValidityRule::kOtherCpu}));
  // A window cut short by the ceiling on timed runs is no reason.
  f = Good();
  f.window_s = 0.2;
  v = JudgeRun({Process(0, 1), Process(1, 1), Process(2, 1)}, f, Settings(), 0.5, 33);
  EXPECT_TRUE(v.valid()) << v.Reasons();
  v = JudgeRun({Process(0, 1), Process(1, 1), Process(2, 1)}, f, Settings(), 0.5, 34);
  EXPECT_EQ(v.Rules(), std::vector<ValidityRule>{ValidityRule::kWindow});
}

}  // namespace
}  // namespace ngraphbench
