#include "ngraphbench/measure/harness.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ctime>
#include <thread>

#include "ngraphbench/core/error.h"
#include "ngraphbench/measure/verdict.h"

namespace ngraphbench {
namespace {

// Counts calls; each Run() sleeps for `run_time`.
class CountingExecutable : public Executable {
 public:
  explicit CountingExecutable(std::chrono::microseconds run_time) : run_time_(run_time) {}
  void SetInputs(const std::vector<HostTensor>&) override { ++set_inputs; }
  void Run() override {
    ++runs;
    std::this_thread::sleep_for(run_time_);
  }
  std::vector<HostTensor> GetOutputs() override {
    ++get_outputs;
    return {};
  }
  int set_inputs = 0, runs = 0, get_outputs = 0;

 private:
  std::chrono::microseconds run_time_;
};

// The process stopped (SIGSTOP) for 300 ms during its timed runs, by a child: the stop lands
// inside a run (its latency) or between two (a pause the harness keeps); either way it is seen.
TEST(Harness, AStopDuringTheTimedRunsIsSeenAsAStall) {
  CountingExecutable exe(std::chrono::microseconds(0));
  MeasureOptions options;
  options.warmup = 0;
  options.repeats = 100'000'000;
  options.max_repeats = 100'000'000;
  options.max_time = std::chrono::milliseconds(600);
  options.sample_period = std::chrono::milliseconds(0);
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const timespec before{0, 100'000'000}, stopped{0, 300'000'000};
    ::nanosleep(&before, nullptr);
    ::kill(parent, SIGSTOP);
    ::nanosleep(&stopped, nullptr);
    ::kill(parent, SIGCONT);
    ::_exit(0);
  }
  const Measurement m = Measure(exe, {}, options);
  int status = 0;
  ::waitpid(child, &status, 0);
  const Stalls stalls = FindStalls(m.latencies_ns, m.pauses_ns);
  EXPECT_EQ(stalls.runs + stalls.pauses, 1) << stalls.runs << " runs, " << stalls.pauses;
  EXPECT_GE(stalls.longest_ns, 250'000'000);
  EXPECT_GE(stalls.total_ns, 250'000'000);
  EXPECT_GT(m.latencies_ns.size(), 1000u);
}

// Without a stop, no pause between timed runs reaches a stall.
TEST(Harness, QuietTimedRunsHaveNoPauses) {
  CountingExecutable exe(std::chrono::microseconds(100));
  MeasureOptions options;
  options.warmup = 0;
  options.repeats = 200;
  const Measurement m = Measure(exe, {}, options);
  EXPECT_TRUE(m.pauses_ns.empty());
  EXPECT_EQ(FindStalls(m.latencies_ns, m.pauses_ns).total_ns, 0);
}

TEST(Harness, RunsFirstWarmupAndRepeatsInsideTheComputeBoundary) {
  CountingExecutable exe(std::chrono::microseconds(0));
  MeasureOptions options;
  options.warmup = 3;
  options.repeats = 7;
  const Measurement m = Measure(exe, {}, options);
  EXPECT_EQ(exe.runs, 1 + 3 + 7);
  EXPECT_EQ(exe.set_inputs, 1);  // placed once, outside the clock
  EXPECT_EQ(exe.get_outputs, 0);
  EXPECT_EQ(m.warmup_runs, 3);
  EXPECT_EQ(m.latencies_ns.size(), 7u);
}

TEST(Harness, EndToEndBoundaryCopiesEveryIteration) {
  CountingExecutable exe(std::chrono::microseconds(0));
  MeasureOptions options;
  options.warmup = 2;
  options.repeats = 5;
  options.boundary = TimingBoundary::kEndToEnd;
  Measure(exe, {}, options);
  EXPECT_EQ(exe.set_inputs, 1 + 1 + 2 + 5);
  EXPECT_EQ(exe.get_outputs, 1 + 2 + 5);
}

TEST(Harness, LatenciesAreWallTimeOfRun) {
  CountingExecutable exe(std::chrono::microseconds(2000));
  MeasureOptions options;
  options.warmup = 0;
  options.repeats = 5;
  const Measurement m = Measure(exe, {}, options);
  for (int64_t ns : m.latencies_ns) EXPECT_GE(ns, 2000000);
  EXPECT_GE(m.first_run_ms, 2.0);
}

TEST(Harness, TimeCapStopsWarmupAndTimedRunsEarly) {
  CountingExecutable exe(std::chrono::microseconds(5000));
  MeasureOptions options;
  options.warmup = 1000;
  options.repeats = 1000;
  options.max_time = std::chrono::milliseconds(60);
  const Measurement m = Measure(exe, {}, options);
  EXPECT_GE(m.warmup_runs, 1);
  EXPECT_LE(m.warmup_runs, 13);  // 60 ms of 5 ms runs
  EXPECT_GE(m.latencies_ns.size(), static_cast<size_t>(kMinTimedRepeats));
  EXPECT_LE(m.latencies_ns.size(), 13u);
}

TEST(Harness, TimeCapKeepsTheMinimumTimedRuns) {
  CountingExecutable exe(std::chrono::microseconds(3000));
  MeasureOptions options;
  options.warmup = 0;
  options.repeats = 50;
  options.max_time = std::chrono::microseconds(1);  // every run is over the cap
  EXPECT_EQ(Measure(exe, {}, options).latencies_ns.size(), static_cast<size_t>(kMinTimedRepeats));
  options.repeats = 4;  // asking for fewer than the minimum gets what was asked
  EXPECT_EQ(Measure(exe, {}, options).latencies_ns.size(), 4u);
}

TEST(Harness, TimingBoundaryNames) {
  EXPECT_EQ(ParseTimingBoundary("compute"), TimingBoundary::kCompute);
  EXPECT_EQ(ParseTimingBoundary("end_to_end"), TimingBoundary::kEndToEnd);
  EXPECT_THROW(ParseTimingBoundary("wall"), InputError);
}

}  // namespace
}  // namespace ngraphbench

namespace ngraphbench {
namespace {

TEST(Harness, MinTimeExtendsTheTimedPhaseUpToMaxRepeats) {
  CountingExecutable exe(std::chrono::microseconds(1000));
  MeasureOptions options;
  options.warmup = 0;
  options.repeats = 5;
  options.min_time = std::chrono::milliseconds(60);
  const Measurement m = Measure(exe, {}, options);
  EXPECT_GT(m.latencies_ns.size(), 5u);  // 5 x 1 ms would be far shorter than 60 ms
  EXPECT_GE(m.system.window_s, 0.06);

  CountingExecutable fast(std::chrono::microseconds(0));
  options.min_time = std::chrono::seconds(30);
  options.max_repeats = 50;
  const Measurement capped = Measure(fast, {}, options);
  EXPECT_EQ(capped.latencies_ns.size(), 50u);  // the ceiling ends it long before 30 s
}

TEST(Harness, FirstOutputsAreCapturedOnlyWhenAsked) {
  CountingExecutable exe(std::chrono::microseconds(0));
  MeasureOptions options;
  options.warmup = 1;
  options.repeats = 3;
  options.capture_first_outputs = true;
  Measure(exe, {}, options);
  EXPECT_EQ(exe.get_outputs, 1);
}

TEST(Harness, CpuUtilizationIsEmptyWithAReasonForAWindowOfFewSamplerPeriods) {
  CountingExecutable exe(std::chrono::microseconds(0));
  MeasureOptions options;
  options.warmup = 0;
  options.repeats = 3;
  options.sample_period = std::chrono::milliseconds(10);
  const Measurement m = Measure(exe, {}, options);
  EXPECT_FALSE(m.system.cpu_util_pct.has_value());
  EXPECT_NE(m.system.note.find("fewer than 10 sampler periods"), std::string::npos)
      << m.system.note;

  CountingExecutable sleeping(std::chrono::microseconds(500));
  options.min_time = std::chrono::milliseconds(150);
  const Measurement longer = Measure(sleeping, {}, options);
  ASSERT_TRUE(longer.system.cpu_util_pct.has_value()) << longer.system.note;
  EXPECT_TRUE(longer.system.note.empty()) << longer.system.note;
  EXPECT_LT(*longer.system.cpu_util_pct, 50.0);  // the runs sleep: this process barely works
}

}  // namespace
}  // namespace ngraphbench

namespace ngraphbench {
namespace {

TEST(Harness, StopReasonsOfTheFixedRule) {
  CountingExecutable exe(std::chrono::microseconds(0));
  MeasureOptions options;
  options.warmup = 0;
  options.repeats = 7;
  EXPECT_EQ(Measure(exe, {}, options).stop_reason, "repeats");
  CountingExecutable slow(std::chrono::microseconds(20000));
  options.repeats = 1000;
  options.max_time = std::chrono::milliseconds(100);
  const Measurement capped = Measure(slow, {}, options);
  EXPECT_EQ(capped.stop_reason, "time");
  EXPECT_EQ(capped.latencies_ns.size(), static_cast<size_t>(kMinTimedRepeats));
  options.max_time = std::chrono::seconds(0);
  options.repeats = 5;
  options.min_time = std::chrono::seconds(30);
  options.max_repeats = 40;
  EXPECT_EQ(Measure(exe, {}, options).stop_reason, "max_repeats");
}

// A constant-time executable: its median's interval is narrow at once, so the ci rule stops
// as soon as it may (ci_min_repeats), long before a fixed count of 100000 would.
TEST(Harness, CiRuleStopsWhenTheIntervalIsNarrow) {
  CountingExecutable exe(std::chrono::microseconds(2000));
  MeasureOptions options;
  options.warmup = 0;
  options.repeats = 100000;
  options.stop = StopRule::kCi;
  options.ci_rel_target = 0.5;  // sleep_for's jitter stays well inside +-50%
  options.ci_min_repeats = 30;
  options.max_repeats = 100000;
  const Measurement m = Measure(exe, {}, options);
  EXPECT_EQ(m.stop_reason, "ci");
  EXPECT_GE(m.latencies_ns.size(), 30u);
  EXPECT_LT(m.latencies_ns.size(), 100u);

  // An unreachable target ends at the ceiling.
  options.ci_rel_target = 1e-12;
  options.max_repeats = 60;
  const Measurement ceiling = Measure(exe, {}, options);
  EXPECT_EQ(ceiling.stop_reason, "max_repeats");
  EXPECT_EQ(ceiling.latencies_ns.size(), 60u);
  EXPECT_THROW(ParseStopRule("adaptive"), InputError);
  EXPECT_EQ(ParseStopRule("ci"), StopRule::kCi);
}

}  // namespace
}  // namespace ngraphbench
