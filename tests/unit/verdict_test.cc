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

// A run that breaks every rule, with two degraded builds.
VerdictInput BreaksEveryRule() {
  VerdictInput in;
  in.window_s = 0.01;
  in.repeats = 3;
  in.cv = 2;
  in.processes = 1;
  in.ci_rel = 0.5;
  in.other_cpu_pct = 120;
  in.degraded = {"a", "b"};
  return in;
}

TEST(Verdict, AllReasonsInAFixedOrder) {
  const auto r = InvalidReasons(BreaksEveryRule(), Settings(), 0.5);
  ASSERT_EQ(r.size(), 8u);
  EXPECT_EQ(r[0].rfind("timed window", 0), 0u);
  EXPECT_EQ(r[1].rfind("3 timed runs", 0), 0u);
  EXPECT_EQ(r[2].rfind("1 process(es)", 0), 0u);
  EXPECT_EQ(r[3].rfind("interval +-50%", 0), 0u);
  EXPECT_EQ(r[4].rfind("cv 2", 0), 0u);
  EXPECT_EQ(r[5].rfind("other processes used 120%", 0), 0u);
  EXPECT_EQ(r[6], "degraded build: a");
  EXPECT_EQ(r[7], "degraded build: b");
}

TEST(Verdict, EachReasonHasItsRuleAndAdvice) {
  const VerdictInput in = BreaksEveryRule();
  using R = ValidityRule;
  EXPECT_EQ(BrokenRules(in, Settings(), 0.5),
            (std::vector<R>{R::kWindow, R::kRepeats, R::kProcesses, R::kInterval, R::kCv,
                            R::kOtherCpu, R::kDegraded, R::kDegraded}));
  EXPECT_EQ(BrokenRules(in, Settings(), 0.5).size(), InvalidReasons(in, Settings(), 0.5).size());
  EXPECT_TRUE(BrokenRules(Good(), Settings(), 0.5).empty());
  for (R rule : BrokenRules(in, Settings(), 0.5)) EXPECT_FALSE(ValidityAdvice(rule).empty());
  EXPECT_NE(ValidityAdvice(R::kInterval).find("threads"), std::string::npos);
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
