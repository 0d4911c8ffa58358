// End to end through the real scheduler and worker (part of pipeline_test): what a row records
// (its verdict, the stopping rule, pinning, machine context, energy), and kept rows that cannot
// stand (cut short, copied, measured with other settings) stopping their run until replaced.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "integration/pipeline_fixture.h"
#include "integration/scheduler_output.h"
#include "ngraphbench/results/csv.h"
#include "require_compiler.h"

namespace ngraphbench {
namespace {

// A row cut short, or one copied under another run's name, is not resumed, and not lost.
TEST_F(Pipeline, UnreadableAndCopiedRowsStopTheRunUntilReplaced) {
  ASSERT_EQ(Ngb("run tiny null " + Common()).code, 0);
  const fs::path cut = RowPath(RunDir(), "tiny_w8_b1");
  std::string text;
  {
    std::ifstream in(cut);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::ofstream(cut, std::ios::trunc) << text.substr(0, text.size() - 3);
  fs::copy_file(RowPath(RunDir(), "tiny_w16_b2"), RowPath(RunDir(), "tiny_w16_b1"),
                fs::copy_options::overwrite_existing);
  const auto before = Snapshot(dir_ / "results");

  const Result again = Ngb("run tiny null " + Common());
  EXPECT_EQ(again.code, 2) << again.output;
  EXPECT_NE(again.output.find("2 of the 6 runs already have rows in"), std::string::npos)
      << again.output;
  EXPECT_NE(again.output.find("that cannot be resumed (2 unreadable)"), std::string::npos)
      << again.output;
  EXPECT_NE(again.output.find("tiny_w8_b1: unreadable: "), std::string::npos) << again.output;
  EXPECT_NE(again.output.find("tiny_w16_b1: unreadable: "), std::string::npos) << again.output;
  EXPECT_EQ(Snapshot(dir_ / "results"), before);

  const Result replaced = Ngb("run tiny null --replace-changed " + Common());
  EXPECT_EQ(replaced.code, 0) << replaced.output;
  EXPECT_NE(replaced.output.find("moved 2 row(s) that could not be resumed (2 unreadable)"),
            std::string::npos)
      << replaced.output;
  EXPECT_NE(replaced.output.find("6 runs, 2 to run, 4 kept"), std::string::npos)
      << replaced.output;
  for (const std::string id : {"tiny_w8_b1", "tiny_w16_b1", "tiny_w16_b2"}) {
    EXPECT_EQ(Row(id).run_id, id);
  }
}

TEST_F(Pipeline, RowsMeasuredWithOtherSettingsStopTheRunUntilReplaced) {
  ASSERT_EQ(Ngb("run tiny null --quick " + Common()).code, 0);
  EXPECT_EQ(Row("tiny_w8_b1").quick, true);
  const auto before = Snapshot(dir_ / "results");

  // The full grid would silently keep the two --quick rows: it stops and lists them.
  const Result full = Ngb("run tiny null " + Common());
  EXPECT_EQ(full.code, 2) << full.output;
  EXPECT_NE(full.output.find("2 of the 6 runs already have rows in"), std::string::npos)
      << full.output;
  EXPECT_NE(full.output.find("tiny_w8_b1: quick true -> false"), std::string::npos) << full.output;
  EXPECT_NE(full.output.find("tiny_w16_b1: quick true -> false"), std::string::npos);
  EXPECT_NE(full.output.find("--replace-changed"), std::string::npos);
  EXPECT_EQ(Snapshot(dir_ / "results"), before);

  // --replace-changed moves the old rows and traces aside, deletes nothing, measures anew.
  const Result replaced = Ngb("run tiny null --replace-changed " + Common());
  EXPECT_EQ(replaced.code, 0) << replaced.output;
  EXPECT_NE(replaced.output.find("moved 2 row(s) that could not be resumed (2 measured with other "
                                 "settings)"),
            std::string::npos)
      << replaced.output;
  std::vector<std::string> moved;
  for (const auto& e : fs::recursive_directory_iterator(RunDir() / ".replaced")) {
    if (e.is_regular_file()) moved.push_back(e.path().filename().string());
  }
  std::sort(moved.begin(), moved.end());
  EXPECT_EQ(moved, (std::vector<std::string>{"tiny_w16_b1.csv", "tiny_w16_b1.latencies.csv",
                                             "tiny_w8_b1.csv", "tiny_w8_b1.latencies.csv"}));
  for (const std::string id :
       {"tiny_w8_b1", "tiny_w8_b2", "tiny_w8_b4", "tiny_w16_b1", "tiny_w16_b2", "tiny_w16_b4"}) {
    EXPECT_EQ(Row(id).quick, false) << id;
    EXPECT_EQ(Row(id).status, "ok") << id;
  }
  EXPECT_EQ(Ngb("run tiny null " + Common()).code, 0);  // now everything matches: nothing to run

  // Editing threads in the compiler's YAML is caught the same way.
  std::ofstream(dir_ / "configs" / "null.yaml") << "threads: 1\n";
  ASSERT_EQ(Ngb("run tiny null --replace-changed " + Common()).code, 0);
  std::ofstream(dir_ / "configs" / "null.yaml") << "threads: 3\n";
  const Result threads = Ngb("run tiny null " + Common());
  EXPECT_EQ(threads.code, 2) << threads.output;
  EXPECT_NE(threads.output.find("6 of the 6 runs"), std::string::npos) << threads.output;
  EXPECT_NE(threads.output.find("threads 1 -> 3"), std::string::npos) << threads.output;
  EXPECT_NE(threads.output.find("... and 1 more"), std::string::npos) << threads.output;

  // --set is an edit of the YAML on the command line: the same value gives the same fingerprint
  // (the rows measured with threads: 1 in the file are kept), another value is a change, and
  // the rows measured with it record it.
  const Result same = Ngb("run tiny null --set threads=1 " + Common());
  EXPECT_EQ(same.code, 0) << same.output;
  EXPECT_NE(same.output.find("6 runs, 0 to run, 6 kept"), std::string::npos) << same.output;
  const Result warmup = Ngb("run tiny null --set threads=1 --set warmup=1 " + Common());
  EXPECT_EQ(warmup.code, 2) << warmup.output;
  EXPECT_NE(warmup.output.find("6 of the 6 runs already have rows"), std::string::npos)
      << warmup.output;
  EXPECT_NE(warmup.output.find("(6 measured with other settings)"), std::string::npos);
  ASSERT_EQ(Ngb("run tiny null --set threads=1 --set warmup=1 --replace-changed " + Common()).code,
            0);
  EXPECT_EQ(Row("tiny_w8_b1").settings, "threads=1;warmup=1");
  EXPECT_EQ(Row("tiny_w8_b1").threads, 1);
  EXPECT_EQ(Row("tiny_w8_b1").warmup, 1);
  EXPECT_EQ(Row("tiny_w8_b1").repeats, 5);  // the file's
  // Each of a run's 5 processes warms up its share of the warmup (ShareOfRun): ceil(30 / 5) =
  // 6 runs, more than kMinProcessWarmup; the row's `warmup` is one process's.
  ASSERT_EQ(
      Ngb("run tiny null --set threads=1 --set warmup=30 --replace-changed " + Common()).code, 0);
  EXPECT_EQ(Row("tiny_w8_b1").warmup, 6);

  // A failed run's reproduce line carries the settings: pasted, it fails the same way.
  const Result failed =
      Ngb("run tiny null --quick --set options.fail_batch=1 --results " +
          (dir_ / "other").string() + " --configs " + (dir_ / "configs").string());
  EXPECT_EQ(failed.code, 1) << failed.output;
  const size_t at = failed.output.find("reproduce: ");
  ASSERT_NE(at, std::string::npos) << failed.output;
  const std::string line = failed.output.substr(at + 11, failed.output.find('\n', at) - at - 11);
  EXPECT_NE(line.find(" --set options.fail_batch=1"), std::string::npos) << line;
  FILE* pipe = ::popen((line + " 2>&1").c_str(), "r");
  std::string pasted;
  char buf[512];
  while (size_t n = std::fread(buf, 1, sizeof(buf), pipe)) pasted.append(buf, n);
  ::pclose(pipe);
  EXPECT_NE(pasted.find("asked to fail at batch size 1 (fail_batch)"), std::string::npos)
      << pasted;
}

TEST_F(Pipeline, EveryMeasuredRowCarriesAVerdict) {
  ASSERT_EQ(Ngb("run tiny null --quick " + Common()).code, 0);
  ResultRow row = Row("tiny_w8_b1");
  EXPECT_EQ(row.valid, false);  // 5 timed runs, below the default min_repeats of 10
  EXPECT_EQ(row.invalid_reason.rfind("5 timed runs < min_repeats 10", 0), 0u) << row.invalid_reason;
  EXPECT_GT(*row.timed_window_s, 0.0);

  extra_defaults_ = "  validity: {min_repeats: 5, max_cv: 1000, max_other_cpu_pct: 10000}\n";
  WriteExperiments(20, 5);
  const Result valid = Ngb("run tiny null --quick " + Common());
  EXPECT_EQ(valid.code, 0) << valid.output;  // thresholds judge, they do not change the hash
  EXPECT_NE(valid.output.find("0 to run"), std::string::npos) << valid.output;
  ASSERT_EQ(Ngb("run tiny null " + Common()).code, 2);  // the full grid differs: quick

  min_time_s_ = 0.3;
  WriteExperiments(20, 5);
  std::ofstream(dir_ / "configs" / "null.yaml") << "options:\n  sleep_us: 200\n";
  const Result longer = Ngb("run tiny null --quick --replace-changed " + Common());
  EXPECT_EQ(longer.code, 0) << longer.output;
  row = Row("tiny_w8_b1");
  EXPECT_EQ(row.valid, true) << row.invalid_reason;
  EXPECT_GE(*row.timed_window_s, 0.3);  // min_time_s extends the timed phase
  EXPECT_GT(*row.repeats, 5);
  EXPECT_TRUE(row.cpu_util_pct.has_value());  // 300 ms hold 30 sampler periods
}

TEST_F(Pipeline, TheCiStoppingRuleIsRecordedAndFingerprinted) {
  // 3 processes a run, each timing 2 of the 5 timed runs (ceil 5/3); `stop: ci` adds processes
  // up to 8.
  extra_defaults_ = "  processes: 3\n  max_processes: 8\n";
  WriteExperiments(20, 5);
  std::ofstream(dir_ / "configs" / "null.yaml") << "options:\n  sleep_us: 300\n";
  ASSERT_EQ(Ngb("run tiny null --quick " + Common()).code, 0);
  const ResultRow fixed = Row("tiny_w8_b1");
  EXPECT_EQ(fixed.stop_reason, "repeats");
  EXPECT_EQ(fixed.processes, 3);
  EXPECT_EQ(fixed.processes_reason, "fixed");
  EXPECT_EQ(fixed.repeats, 6);
  // When each process's timed runs ended, in the order they ran, within the last hour; the two
  // runs' processes alternate, pass by pass, which pairs them in ratios' intervals.
  const std::vector<int64_t>& ends = fixed.process_ends_unix_ms;
  ASSERT_EQ(ends.size(), 3u);
  EXPECT_LT(ends[0], ends[1]);
  EXPECT_LT(ends[1], ends[2]);
  const int64_t now_ms = static_cast<int64_t>(std::time(nullptr)) * 1000;
  EXPECT_GT(ends.front(), now_ms - 3600 * 1000);
  EXPECT_LE(ends.back(), now_ms + 1000);
  const std::vector<int64_t> other = Row("tiny_w16_b1").process_ends_unix_ms;
  ASSERT_EQ(other.size(), 3u);
  for (size_t i = 0; i + 1 < ends.size(); ++i) {  // both runs' process i before either's i + 1
    EXPECT_LT(std::max(ends[i], other[i]), std::min(ends[i + 1], other[i + 1])) << i;
  }
  // The between-process interval (3 processes) and the order-statistic one (6 timed runs, the
  // fewest it needs) both hold the median.
  ASSERT_TRUE(fixed.latency_p50_ci_low_ms.has_value());
  EXPECT_LE(*fixed.latency_p50_ci_low_ms, *fixed.latency_p50_ms);
  EXPECT_GE(*fixed.latency_p50_ci_high_ms, *fixed.latency_p50_ms);
  ASSERT_TRUE(fixed.latency_p50_within_ci_low_ms.has_value());
  EXPECT_LE(*fixed.latency_p50_within_ci_low_ms, *fixed.latency_p50_ms);
  EXPECT_GE(*fixed.latency_p50_within_ci_high_ms, *fixed.latency_p50_ms);
  const Result ci = Ngb("run tiny null --quick --stop ci " + Common());
  EXPECT_EQ(ci.code, 2) << ci.output;  // another stopping rule: other settings
  EXPECT_NE(ci.output.find("other settings"), std::string::npos) << ci.output;
  const Result replaced = Ngb("run tiny null --quick --stop ci --replace-changed " + Common());
  ASSERT_EQ(replaced.code, 0) << replaced.output;
  EXPECT_NE(replaced.output.find("3 worker process(es) per run (up to 8 until the interval is "
                                 "within +-5%), 6 in all"),
            std::string::npos)
      << replaced.output;
  const std::multiset<std::string> measured = MeasuredProcesses(replaced.output);
  for (const std::string id : {"tiny_w8_b1", "tiny_w16_b1"}) {
    const ResultRow row = Row(id);
    EXPECT_EQ(row.status, "ok") << row.error;
    // Processes were added until the interval met the target, or up to the cap.
    ASSERT_TRUE(row.processes.has_value()) << id;
    const int64_t k = *row.processes;
    EXPECT_GE(k, 3) << id;
    EXPECT_LE(k, 8) << id;
    ASSERT_TRUE(row.latency_p50_ci_low_ms.has_value()) << id;
    const double rel = (*row.latency_p50_ci_high_ms - *row.latency_p50_ci_low_ms) / 2 /
                       *row.latency_p50_ms;
    if (row.processes_reason == "ci") {
      EXPECT_LE(rel, 0.05) << id;
    } else if (row.processes_reason == "spread") {  // out of reach: stopped at 5 or more
      EXPECT_GE(k, 5) << id;
      EXPECT_GT(rel, 0.05) << id;
    } else if (row.processes_reason == "invalid") {  // a stall of this busy machine: no more
      EXPECT_EQ(k, 3) << id;
      EXPECT_NE(row.invalid_reason.find("stalls took"), std::string::npos) << row.invalid_reason;
    } else {
      EXPECT_EQ(row.processes_reason, "max_processes") << id;
      EXPECT_EQ(k, 8) << id;
      EXPECT_GT(rel, 0.05) << id;
    }
    EXPECT_LE(*row.latency_p50_ci_low_ms, *row.latency_p50_ms);
    EXPECT_GE(*row.latency_p50_ci_high_ms, *row.latency_p50_ms);
    // Each process timed the same share, the stopping rule's alone to decide how many ran; each
    // was measured once, and the row pools them all.
    EXPECT_EQ(row.stop_reason, "repeats") << id;
    EXPECT_EQ(row.repeats, 2 * k) << id;
    EXPECT_EQ(row.process_p50s_ms.size(), static_cast<size_t>(k)) << id;
    EXPECT_EQ(ReadProcessLatencies(LatenciesPath(RunDir(), id)).size(), static_cast<size_t>(k));
    for (int64_t i = 0; i < k; ++i) {
      EXPECT_EQ(measured.count(id + " p" + std::to_string(i)), 1u) << id << " p" << i;
    }
    EXPECT_EQ(measured.count(id + " p" + std::to_string(k)), 0u) << id;
    EXPECT_NE(replaced.output.find("(" + std::to_string(k) + " processes, " +
                                   row.processes_reason + ")"),
              std::string::npos)
        << replaced.output;
    EXPECT_TRUE(row.cpu_ms_per_inference.has_value() ||
                row.notes.find("cpu_util") != std::string::npos)
        << row.notes;
  }
  EXPECT_EQ(measured.size(), static_cast<size_t>(*Row("tiny_w8_b1").processes +
                                                 *Row("tiny_w16_b1").processes))
      << replaced.output;

  // A target no spread meets, and a build that reports itself degraded: invalid whatever more
  // processes measure, so each run keeps the 3 it started with.
  extra_defaults_ = "  processes: 3\n  max_processes: 8\n  ci_rel_target: 0.000001\n";
  WriteExperiments(20, 5);
  std::ofstream(dir_ / "configs" / "null.yaml")
      << "options:\n  sleep_us: 300\n  degrade_batch: 1\n";
  const Result degraded = Ngb("run tiny null --quick --stop ci --replace-changed " + Common());
  ASSERT_EQ(degraded.code, 0) << degraded.output;
  EXPECT_EQ(MeasuredProcesses(degraded.output).size(), 6u) << degraded.output;
  for (const std::string id : {"tiny_w8_b1", "tiny_w16_b1"}) {
    const ResultRow row = Row(id);
    EXPECT_EQ(row.processes, 3) << id;
    EXPECT_EQ(row.processes_reason, "invalid") << id;
    EXPECT_EQ(row.valid, false) << id;
    EXPECT_NE(row.invalid_reason.find("degraded build: null: asked to report a degraded build"),
              std::string::npos)
        << row.invalid_reason;
  }
  EXPECT_NE(degraded.output.find("(3 processes, invalid)"), std::string::npos) << degraded.output;
}

TEST_F(Pipeline, PinningMachineContextAndEnergyAreRecorded) {
  auto all_of = [](const std::string& text, const std::string& chars) {
    return !text.empty() && text.find_first_not_of(chars) == std::string::npos;
  };
  ASSERT_EQ(Ngb("run tiny null --quick " + Common()).code, 0);
  EXPECT_EQ(Row("tiny_w8_b1").affinity, "none");
  EXPECT_FALSE(Row("tiny_w8_b1").affinity_cpus.empty());  // read back unpinned too

  std::ofstream(dir_ / "configs" / "null.yaml")
      << "threads: 1\naffinity: compact\noptions:\n  sleep_us: 0\n";
  const Result changed = Ngb("run tiny null --quick " + Common());
  EXPECT_EQ(changed.code, 2) << changed.output;  // pinning is part of the settings
  EXPECT_NE(changed.output.find("affinity none -> compact"), std::string::npos) << changed.output;
  const Result pinned = Ngb("run tiny null --quick --replace-changed " + Common());
  ASSERT_EQ(pinned.code, 0) << pinned.output;
  for (const std::string id : {"tiny_w8_b1", "tiny_w16_b1"}) {
    const ResultRow row = Row(id);
    EXPECT_EQ(row.status, "ok") << row.error;
    EXPECT_EQ(row.affinity, "compact");
    EXPECT_TRUE(all_of(row.affinity_cpus, "0123456789")) << "not one CPU: " << row.affinity_cpus;
    EXPECT_EQ(row.invalid_reason.find("affinity"), std::string::npos) << row.invalid_reason;
    EXPECT_EQ(row.machine_id.size(), 16u);
    EXPECT_TRUE(all_of(row.machine_id, "0123456789abcdef")) << row.machine_id;
    EXPECT_EQ(row.energy_j.has_value(), row.power_w.has_value());
    EXPECT_TRUE(row.energy_j.has_value() || row.notes.find("energy: ") != std::string::npos)
        << row.notes;
  }

  const fs::path machine = dir_ / "results" / "local" / "machine.json";
  ASSERT_TRUE(fs::exists(machine));
  std::stringstream text;
  text << std::ifstream(machine).rdbuf();
  EXPECT_NE(text.str().find("\"" + Row("tiny_w8_b1").machine_id + "\": {"), std::string::npos)
      << text.str();

  std::ofstream(machine) << "{broken";
  const auto before = Snapshot(dir_ / "results");
  const Result bad = Ngb("run tiny null " + Common());
  EXPECT_EQ(bad.code, 2) << bad.output;
  EXPECT_NE(bad.output.find(machine.string() + ": not valid JSON"), std::string::npos)
      << bad.output;
  EXPECT_EQ(Snapshot(dir_ / "results"), before);
}

}  // namespace
}  // namespace ngraphbench
