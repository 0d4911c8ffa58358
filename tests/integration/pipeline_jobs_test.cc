// End to end with the `null` compiler and --jobs: workers at once, each on its own CPUs,
// oversubscription refused unless asked, crashes, hangs and resume (pipeline_fixture.h).
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "integration/pipeline_fixture.h"
#include "integration/scheduler_output.h"

namespace ngraphbench {
namespace {

// The CPUs this process may use: what the scheduler splits among --jobs workers.
size_t AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return ::sched_getaffinity(0, sizeof(set), &set) == 0 ? static_cast<size_t>(CPU_COUNT(&set))
                                                        : 1;
}

TEST_F(Pipeline, JobsRunWorkersAtOnceEachOnItsOwnCpus) {
  if (AllowedCpus() < 2) GTEST_SKIP() << "needs 2 CPUs";
  // 2 processes a run (what is tested is the slots, not the interval), each timing 10 of its
  // 20 timed runs: 0.75 s a process (10 x 75 ms, busy waiting on the clock: as long under load
  // as without), well above a worker's start, its 2 warmup runs and its output check.
  extra_defaults_ = "  processes: 2\n";
  WriteExperiments(20, 20);
  std::ofstream(dir_ / "configs" / "null.yaml") << "threads: 1\noptions:\n  sleep_us: 75000\n";
  const auto start = std::chrono::steady_clock::now();
  const Result r = Ngb("run tiny null --jobs 2 " + Common());
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("2 workers at once, 1 thread(s) each, on CPUs "), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("[12/12] "), std::string::npos) << r.output;
  EXPECT_EQ(MeasuredProcesses(r.output).size(), 12u) << r.output;
  EXPECT_EQ(WrittenRows(r.output).size(), 6u) << r.output;
  EXPECT_NE(r.output.find("done: 6 runs, 0 not ok"), std::string::npos) << r.output;
  std::set<std::string> cpus;
  double timed_s = 0;
  for (const std::string id : {"tiny_w8_b1", "tiny_w8_b2", "tiny_w8_b4", "tiny_w16_b1",
                               "tiny_w16_b2", "tiny_w16_b4"}) {
    const ResultRow row = Row(id);
    EXPECT_EQ(row.status, "ok") << row.error;
    EXPECT_EQ(row.threads, 1);
    EXPECT_EQ(row.processes, 2);
    EXPECT_EQ(row.repeats, 20);
    EXPECT_EQ(ReadLatencies(LatenciesPath(RunDir(), id)).size(), 20u);
    EXPECT_FALSE(row.affinity_cpus.empty());
    EXPECT_EQ(row.affinity_cpus.find_first_not_of("0123456789"), std::string::npos)
        << "not one CPU: " << row.affinity_cpus;
    cpus.insert(row.affinity_cpus);
    timed_s += row.timed_window_s.value_or(0);
  }
  EXPECT_EQ(cpus.size(), 2u) << "both slots' CPUs are used";
  // The timed windows add up to more than the sweep's wall time only if some ran at once (run
  // one after another they would fit in it): overlap, without a bound on how fast.
  EXPECT_GT(timed_s, wall_s) << r.output;
  EXPECT_TRUE(fs::is_empty(dir_ / "results" / ".tmp"));  // every worker's log removed
}

TEST_F(Pipeline, JobsThatOversubscribeTheCpusAreRefusedUnlessAsked) {
  const size_t n = AllowedCpus();
  auto expect_bad = [&](const std::string& args, const std::vector<std::string>& messages) {
    const Result r = Ngb(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
    for (const auto& m : messages) EXPECT_NE(r.output.find(m), std::string::npos) << m << "\n" << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "results")) << args;
  };
  std::ofstream(dir_ / "configs" / "null.yaml") << "threads: " << n << "\noptions:\n  sleep_us: 0\n";
  expect_bad("run tiny null --jobs 2 " + Common(),
             {"--jobs 2 with threads " + std::to_string(n), "needs " + std::to_string(2 * n) +
              " CPUs", "may use " + std::to_string(n), "--oversubscribe"});
  expect_bad("run tiny null --jobs 0 " + Common(), {"--jobs is 0; it must be at least 1"});
  const std::string more = std::to_string(n + 1);
  expect_bad("run tiny null --jobs " + more + " " + Common(),
             {"--jobs " + more + " is more than the " + std::to_string(n) + " CPUs",
              "--oversubscribe"});
  // A CPU list pins every worker to the same CPUs: it and --jobs would fight.
  std::ofstream(dir_ / "configs" / "null.yaml") << "affinity: \"0\"\noptions:\n  sleep_us: 0\n";
  expect_bad("run tiny null --jobs 2 " + Common(), {"affinity", "--jobs 2", "run without --jobs"});

  std::ofstream(dir_ / "configs" / "null.yaml") << "threads: " << n << "\noptions:\n  sleep_us: 0\n";
  const Result r = Ngb("run tiny null --quick --jobs 2 --oversubscribe " + Common());
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("--oversubscribe: " + std::to_string(2 * n) + " CPUs asked of the " +
                          std::to_string(n) + " allowed; the workers' CPUs overlap"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(Row("tiny_w8_b1").status, "ok");
  EXPECT_EQ(Row("tiny_w16_b1").status, "ok");
}

TEST_F(Pipeline, CrashAndHangWithJobsEachLeaveARowAndTheSweepCompletes) {
  WriteNull("  crash_batch: 2\n  hang_batch: 4\n");
  const Result r = Ngb("run tiny null --timeout 2 --jobs 2 " + Common());
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("done: 6 runs, 4 not ok"), std::string::npos) << r.output;
  for (const std::string w : {"8", "16"}) {
    EXPECT_EQ(Row("tiny_w" + w + "_b1").status, "ok");
    const ResultRow crashed = Row("tiny_w" + w + "_b2");
    EXPECT_EQ(crashed.status, "crashed");
    EXPECT_NE(crashed.error.find("signal 6"), std::string::npos) << crashed.error;
    const ResultRow hung = Row("tiny_w" + w + "_b4");
    EXPECT_EQ(hung.status, "timeout");
    EXPECT_NE(hung.error.find("timeout of 2 s"), std::string::npos) << hung.error;
  }
  EXPECT_TRUE(fs::is_empty(RunDir() / ".claims"));
  EXPECT_TRUE(fs::is_empty(dir_ / "results" / ".tmp"));
}

// threads 0 means every core: with --jobs 2 an equal share, which the workers resolve to the
// same number as the scheduler, so resume keeps their rows.
TEST_F(Pipeline, ResumeWithJobsKeepsTheRowsOfJobs) {
  std::ofstream(dir_ / "configs" / "null.yaml") << "threads: 0\noptions:\n  sleep_us: 0\n";
  ASSERT_EQ(Ngb("run tiny null --jobs 2 " + Common()).code, 0);
  const size_t share = std::max<size_t>(1, AllowedCpus() / 2);
  EXPECT_EQ(Row("tiny_w8_b1").threads, static_cast<int64_t>(share));
  const auto before = Snapshot(dir_ / "results");
  const Result again = Ngb("run tiny null --jobs 2 " + Common());
  EXPECT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find("6 runs, 0 to run, 6 kept"), std::string::npos) << again.output;
  EXPECT_EQ(Snapshot(dir_ / "results"), before);
  if (AllowedCpus() < 2) return;
  // Alone, a worker gets every core: other settings, which resume names.
  const Result alone = Ngb("run tiny null " + Common());
  EXPECT_EQ(alone.code, 2) << alone.output;
  EXPECT_NE(alone.output.find("6 measured with other settings"), std::string::npos)
      << alone.output;
  EXPECT_NE(alone.output.find("threads " + std::to_string(share) + " -> " +
                              std::to_string(AllowedCpus())),
            std::string::npos)
      << alone.output;
  EXPECT_NE(alone.output.find("resume with that --jobs"), std::string::npos) << alone.output;
  EXPECT_EQ(Snapshot(dir_ / "results"), before);
}

}  // namespace
}  // namespace ngraphbench
