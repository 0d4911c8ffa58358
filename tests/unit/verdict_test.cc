// The validity rules, each on its own and together.
#include "ngraphbench/measure/verdict.h"

#include <gtest/gtest.h>

#include <limits>

#include "ngraphbench/measure/sampler.h"

namespace ngraphbench {
namespace {

VerdictInput Good() {
  VerdictInput in;
  in.window_s = 1.0;
  in.repeats = 100;
  in.cv = 0.05;
  in.other_cpu_pct = 3;
  in.processes = 5;
  in.ci_rel = 0.01;
  return in;
}

ValiditySettings Settings() {
  ValiditySettings s;
  s.max_ci_rel = 0.05;
  s.min_processes = 3;
  s.max_cv = 0.25;
  s.max_other_cpu_pct = 50;
  s.min_repeats = 10;
  return s;
}

TEST(Verdict, AGoodRunIsValid) { EXPECT_TRUE(InvalidReasons(Good(), Settings(), 0.5).empty()); }

TEST(Verdict, EachRuleNamesItsValueAndThreshold) {
  VerdictInput in = Good();
  in.window_s = 0.2;
  auto r = InvalidReasons(in, Settings(), 0.5);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], "timed window 0.2 s < min_time_s 0.5");

  in.reached_max_repeats = true;  // the ceiling on timed runs, not a short measurement, ended it
  EXPECT_TRUE(InvalidReasons(in, Settings(), 0.5).empty());

  in = Good();
  in.repeats = 9;
  r = InvalidReasons(in, Settings(), 0.5);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], "9 timed runs < min_repeats 10");

  in = Good();
  in.processes = 2;
  r = InvalidReasons(in, Settings(), 0.5);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], "2 process(es) < min_processes 3");

  in = Good();
  in.ci_rel = 0.072;
  r = InvalidReasons(in, Settings(), 0.5);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], "interval +-7.2% > max_ci_rel 5%");

  in = Good();
  in.cv = 0.3;
  r = InvalidReasons(in, Settings(), 0.5);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], "cv 0.3 > max_cv 0.25");
  ValiditySettings no_cv = Settings();
  no_cv.max_cv.reset();  // the default: jitter is a column, no verdict
  EXPECT_TRUE(InvalidReasons(in, no_cv, 0.5).empty());

  in = Good();
  in.other_cpu_pct = 73;
  r = InvalidReasons(in, Settings(), 0.5);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], "other processes used 73% of a core > max_other_cpu_pct 50");

  in = Good();
  in.degraded = {"tvm tuning=failed:timeout"};
  r = InvalidReasons(in, Settings(), 0.5);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], "degraded build: tvm tuning=failed:timeout");
}

TEST(Verdict, ThresholdsAreInclusiveAndUnmeasuredFiguresAreNoVerdict) {
  VerdictInput in = Good();
  in.window_s = 0.5;
  in.repeats = 10;
  in.cv = 0.25;
  in.other_cpu_pct = 50;
  in.processes = 3;
  in.ci_rel = 0.05;
  EXPECT_TRUE(InvalidReasons(in, Settings(), 0.5).empty());
  in.other_cpu_pct.reset();  // /proc/stat unreadable
  EXPECT_TRUE(InvalidReasons(in, Settings(), 0.5).empty());
  in.ci_rel = std::numeric_limits<double>::quiet_NaN();  // a NaN interval is no pass
  EXPECT_EQ(InvalidReasons(in, Settings(), 0.5).size(), 1u);
  in.ci_rel = 0.05;
  in.cv = std::numeric_limits<double>::quiet_NaN();  // a NaN CV is no pass
  EXPECT_EQ(InvalidReasons(in, Settings(), 0.5).size(), 1u);
}

// The window of the drill a quiet machine once called valid: about 10,000 timed runs of 1 ms
// and one run of 40 s (the worker was stopped inside it), a mean of 4.36 ms against a median of
// 1 ms; or the same stop between two runs, where no latency shows it.
std::vector<int64_t> QuietRuns(size_t n) {
  std::vector<int64_t> ns(n);
  for (size_t i = 0; i < n; ++i) ns[i] = 1'000'000 + static_cast<int64_t>(i % 7) * 10'000;
  return ns;
}

TEST(Verdict, AStallInsideATimedRunOrBetweenTwoIsSeenAndJudged) {
  std::vector<int64_t> runs = QuietRuns(10'000);
  runs[5'000] = 40'004'000'000;
  const Stalls inside = FindStalls(runs, {});
  EXPECT_EQ(inside.runs, 1);
  EXPECT_EQ(inside.pauses, 0);
  EXPECT_EQ(inside.total_ns, 40'004'000'000);
  EXPECT_EQ(inside.median_ns, 1'030'000);
  const double window_s = 50.0;
  EXPECT_EQ(DescribeStalls(inside, window_s),
            "stalls: 1 timed run over 20x the median (1.03 ms) and 100 ms, the longest 40 s; "
            "40 s in all, 80% of the 50 s timed window");
  VerdictInput in = Good();
  in.window_s = window_s;
  in.stall_s = static_cast<double>(inside.total_ns) / 1e9;
  std::vector<BrokenRule> broken = JudgeValidity(in, Settings(), 0.5);
  ASSERT_EQ(broken.size(), 1u);
  EXPECT_EQ(broken[0].rule, ValidityRule::kStall);
  EXPECT_EQ(broken[0].reason,
            "stalls took 40 s, 80% of the timed window > max_stall_share 10%");

  // Between two runs: only the harness's pauses show it.
  const Stalls between = FindStalls(QuietRuns(10'000), {40'000'000'000, 150'000'000});
  EXPECT_EQ(between.runs, 0);
  EXPECT_EQ(between.pauses, 2);
  EXPECT_EQ(between.longest_ns, 40'000'000'000);
  EXPECT_NE(DescribeStalls(between, window_s).find("2 pauses between timed runs"),
            std::string::npos);

  // Where parts are merged, each process's own reason carries over as a stall.
  in = Good();
  in.stalled = {"process 2: stalls took 40 s, 80% of the timed window > max_stall_share 10%"};
  broken = JudgeValidity(in, Settings(), 0.5);
  ASSERT_EQ(broken.size(), 1u);
  EXPECT_EQ(broken[0].rule, ValidityRule::kStall);
  EXPECT_EQ(broken[0].reason, in.stalled[0]);
}

// What is no stall: a slow run under 100 ms, or under 20x the median (a model of 10 ms whose run
// took 150 ms); and stalls within max_stall_share of the window are noted, not invalid.
TEST(Verdict, JitterIsNoStallAndAShortStallOnlyANote) {
  std::vector<int64_t> runs = QuietRuns(1'000);
  runs[10] = 99'000'000;  // 99x the median, but under 100 ms
  EXPECT_EQ(FindStalls(runs, {99'000'000}).runs + FindStalls(runs, {99'000'000}).pauses, 0);
  std::vector<int64_t> slow(1'000, 10'000'000);
  slow[10] = 150'000'000;  // 15x a median of 10 ms
  EXPECT_EQ(FindStalls(slow, {}).runs, 0);
  slow[10] = 250'000'000;  // 25x
  EXPECT_EQ(FindStalls(slow, {}).runs, 1);
  EXPECT_EQ(FindStalls({}, {}).total_ns, 0);
  EXPECT_EQ(DescribeStalls(FindStalls(QuietRuns(100), {}), 1.0), "");

  VerdictInput in = Good();
  in.window_s = 10;
  in.stall_s = 1.0;  // 10%: at the threshold, still valid
  EXPECT_TRUE(InvalidReasons(in, Settings(), 0.5).empty());
  in.stall_s = 1.01;
  EXPECT_EQ(BrokenRules(in, Settings(), 0.5), std::vector<ValidityRule>{ValidityRule::kStall});
  ValiditySettings lenient = Settings();
  lenient.max_stall_share = 0.5;
  EXPECT_TRUE(InvalidReasons(in, lenient, 0.5).empty());
}

// A run that breaks every rule, with two degraded builds.
VerdictInput BreaksEveryRule() {
  VerdictInput in;
  in.window_s = 0.01;
  in.repeats = 3;
  in.cv = 2;
  in.processes = 1;
  in.ci_rel = 0.5;
  in.other_cpu_pct = 120;
  in.stall_s = 0.005;
  in.degraded = {"a", "b"};
  return in;
}

TEST(Verdict, AllReasonsInAFixedOrder) {
  const auto r = InvalidReasons(BreaksEveryRule(), Settings(), 0.5);
  ASSERT_EQ(r.size(), 9u);
  EXPECT_EQ(r[0].rfind("timed window", 0), 0u);
  EXPECT_EQ(r[1].rfind("3 timed runs", 0), 0u);
  EXPECT_EQ(r[2].rfind("1 process(es)", 0), 0u);
  EXPECT_EQ(r[3].rfind("interval +-50%", 0), 0u);
  EXPECT_EQ(r[4].rfind("cv 2", 0), 0u);
  EXPECT_EQ(r[5].rfind("other processes used 120%", 0), 0u);
  EXPECT_EQ(r[6].rfind("stalls took 0.005 s, 50%", 0), 0u);
  EXPECT_EQ(r[7], "degraded build: a");
  EXPECT_EQ(r[8], "degraded build: b");
}

TEST(Verdict, EachReasonHasItsRuleAndAdvice) {
  const VerdictInput in = BreaksEveryRule();
  using R = ValidityRule;
  EXPECT_EQ(BrokenRules(in, Settings(), 0.5),
            (std::vector<R>{R::kWindow, R::kRepeats, R::kProcesses, R::kInterval, R::kCv,
                            R::kOtherCpu, R::kStall, R::kDegraded, R::kDegraded}));
  EXPECT_EQ(BrokenRules(in, Settings(), 0.5).size(), InvalidReasons(in, Settings(), 0.5).size());
  EXPECT_TRUE(BrokenRules(Good(), Settings(), 0.5).empty());
  for (R rule : BrokenRules(in, Settings(), 0.5)) EXPECT_FALSE(ValidityAdvice(rule).empty());
  EXPECT_NE(ValidityAdvice(R::kInterval).find("fewer threads"), std::string::npos);
  EXPECT_NE(ValidityAdvice(R::kInterval, 4).find("fewer threads"), std::string::npos);
  // Rows already at one thread: fewer threads is no advice.
  EXPECT_EQ(ValidityAdvice(R::kInterval, 1).find("fewer threads"), std::string::npos);
  EXPECT_NE(ValidityAdvice(R::kInterval, 1).find("max_processes"), std::string::npos);
}

TEST(Verdict, ProcStatBusyTimeCountsStealButNotIdleOrIowait) {
  // user nice system idle iowait irq softirq steal guest guest_nice
  const std::string stat = "cpu  100 20 30 5000 70 1 2 7 50 0\ncpu0 50 10 15 2500 35 0 1 3 25 0\n";
  EXPECT_EQ(ParseProcStatBusyNs(stat, 10000000), (100 + 20 + 30 + 1 + 2 + 7) * 10000000LL);
  EXPECT_FALSE(ParseProcStatBusyNs("intr 5\n", 10000000).has_value());
  EXPECT_FALSE(ParseProcStatBusyNs("cpu  x\n", 10000000).has_value());
}

// A pinned run (affinity, or a --jobs slice) counts only the CPUs it may run on: a neighbour on
// another CPU is not "other load" on its own.
TEST(Verdict, ProcStatBusyTimeOfSomeCpusSumsTheirLines) {
  const std::string stat =
      "cpu  300 0 30 5000 0 0 0 0 0 0\ncpu0 100 0 10 2500 0 0 0 0 0 0\n"
      "cpu1 200 0 20 2500 0 0 0 0 0 0\ncpu10 7 0 0 1 0 0 0 0 0 0\nintr 5\n";
  EXPECT_EQ(ParseProcStatBusyNs(stat, 10, {0}), 110 * 10);
  EXPECT_EQ(ParseProcStatBusyNs(stat, 10, {1}), 220 * 10);
  EXPECT_EQ(ParseProcStatBusyNs(stat, 10, {0, 1}), 330 * 10);
  EXPECT_EQ(ParseProcStatBusyNs(stat, 10, {10}), 7 * 10);  // not cpu1's line
  EXPECT_FALSE(ParseProcStatBusyNs(stat, 10, {2}).has_value());
}

}  // namespace
}  // namespace ngraphbench
