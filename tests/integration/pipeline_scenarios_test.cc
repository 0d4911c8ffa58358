// Scenarios offline and server end to end through the real scheduler and worker processes, with
// the `null` compiler: how their rows are named, resumed and judged (the fixture:
// pipeline_fixture.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "integration/pipeline_fixture.h"
#include "integration/scheduler_output.h"
#include "ngraphbench/results/csv.h"
#include "ngraphbench/results/server_steps.h"
#include "require_compiler.h"

namespace ngraphbench {
namespace {

// Scenario offline through the scheduler: its runs are named apart from the single-stream ones,
// both kinds of row stand side by side and resume on their own, samples/s is every process's
// requests over every process's window; server and streams without offline are bad input.
TEST_F(Pipeline, OfflineRowsStandBesideSingleStreamRowsAndResumeOnTheirOwn) {
  extra_defaults_ = "  processes: 2\n";
  WriteExperiments(20, 8);
  std::ofstream(dir_ / "configs" / "null.yaml") << "options:\n  sleep_us: 300\n";
  ASSERT_EQ(Ngb("run tiny null --quick " + Common()).code, 0);
  const ResultRow single = Row("tiny_w8_b1");
  const Result offline = Ngb("run tiny null --quick --scenario offline --set streams=2 " + Common());
  ASSERT_EQ(offline.code, 0) << offline.output;
  EXPECT_NE(offline.output.find("samples/s over 2 streams"), std::string::npos) << offline.output;
  for (const std::string id : {"tiny_w8_b1_offline_s2", "tiny_w16_b1_offline_s2"}) {
    const ResultRow row = Row(id);
    EXPECT_EQ(row.status, "ok") << row.error;
    EXPECT_EQ(row.scenario, "offline");
    EXPECT_EQ(row.streams, 2);
    EXPECT_EQ(row.processes, 2);
    ASSERT_TRUE(row.samples_per_s.has_value());
    ASSERT_TRUE(row.repeats.has_value());
    // Two processes, each timing its share (4) of the 8 timed requests, across its 2 streams:
    // a stream may finish the request it was in when the share was met.
    EXPECT_GE(*row.repeats, 8);
    EXPECT_LE(*row.repeats, 10);
    EXPECT_NEAR(*row.samples_per_s, static_cast<double>(*row.repeats) / *row.timed_window_s,
                1e-6 * *row.samples_per_s);
    EXPECT_FALSE(row.throughput_median_sps.has_value());  // one stream's share, not the run's
    EXPECT_EQ(ReadProcessLatencies(LatenciesPath(RunDir(), id)).size(), 2u);
    EXPECT_EQ(row.check_max_rel_err, 0.0);  // every stream's first outputs were checked
    EXPECT_NE(row.config_hash, single.config_hash);
  }
  EXPECT_EQ(single.scenario, "single_stream");
  EXPECT_EQ(single.streams, 1);
  EXPECT_FALSE(single.samples_per_s.has_value());
  EXPECT_EQ(Row("tiny_w8_b1").timestamp, single.timestamp);  // the offline runs left it alone

  const Result again = Ngb("run tiny null --quick --scenario offline --set streams=2 " + Common());
  EXPECT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find("2 runs, 0 to run, 2 kept"), std::string::npos) << again.output;
  const Result single_again = Ngb("run tiny null --quick " + Common());
  EXPECT_NE(single_again.output.find("2 runs, 0 to run, 2 kept"), std::string::npos)
      << single_again.output;

  const Result server = Ngb("run tiny null --quick --scenario server " + Common());
  EXPECT_EQ(server.code, 2) << server.output;
  EXPECT_NE(server.output.find("scenario server needs target_qps"), std::string::npos)
      << server.output;
  const Result streams = Ngb("run tiny null --quick --set streams=2 " + Common());
  EXPECT_EQ(streams.code, 2) << streams.output;
  EXPECT_NE(streams.output.find("applies to scenarios offline and server only"),
            std::string::npos)
      << streams.output;
}

// Scenario server through the scheduler: one process, its row named apart, the bound's verdict
// and the queries in the server columns, the trace one latency per query; find_peak records
// its steps in the notes and the peak in the row. null serves 1 ms a request on 2 streams:
// 2000 queries/s at most (less on a busy machine, where its busy-wait shares the cores). What a
// busy machine decides (a stall of a few hundred ms breaks a bound) is checked for consistency
// here; that the bound holds below capacity and breaks above it is server_test's.
TEST_F(Pipeline, ServerRowsHoldTheBoundsVerdictAndFindPeakItsSteps) {
  WriteExperiments(60, 8);
  std::ofstream(dir_ / "configs" / "null.yaml") << "options:\n  sleep_us: 1000\n";
  const std::string server =
      "run tiny null --quick --scenario server --set streams=2 --set latency_bound_ms=200 "
      "--set latency_percentile=90 --set server_min_duration_s=0.5 ";
  const Result low = Ngb(server + "--set target_qps=100 " + Common());
  ASSERT_EQ(low.code, 0) << low.output;
  EXPECT_NE(low.output.find("p90 "), std::string::npos) << low.output;
  EXPECT_NE(low.output.find("at 100 QPS, bound 200 ms "), std::string::npos) << low.output;
  for (const std::string id : {"tiny_w8_b1_server_s2_q100", "tiny_w16_b1_server_s2_q100"}) {
    const ResultRow row = Row(id);
    EXPECT_EQ(row.status, "ok") << row.error;
    EXPECT_EQ(row.scenario, "server");
    EXPECT_EQ(row.streams, 2);
    EXPECT_EQ(row.processes, 1);
    EXPECT_EQ(row.target_qps, 100.0);
    EXPECT_EQ(row.latency_bound_ms, 200.0);
    EXPECT_EQ(row.latency_percentile, 90.0);
    ASSERT_TRUE(row.queries_issued && row.queries_completed && row.latency_at_percentile_ms);
    EXPECT_EQ(row.bound_met, *row.latency_at_percentile_ms <= 200 &&
                                 row.queries_completed == row.queries_issued);
    EXPECT_GE(*row.queries_issued, 100);  // p90 needs 100
    EXPECT_EQ(row.repeats, row.queries_issued);  // the trace: one latency per query
    EXPECT_EQ(ReadLatencies(LatenciesPath(RunDir(), id)).size(),
              static_cast<size_t>(*row.queries_issued));
    EXPECT_GE(*row.latency_at_percentile_ms, 1.0);  // a query is at least its service
    EXPECT_NEAR(*row.achieved_qps, 100, 40);  // a Poisson count of ~100 over ~1 s
    // Enough queries over long enough (a generator late on a busy machine may still be).
    EXPECT_EQ(row.invalid_reason.find("queries <"), std::string::npos) << row.invalid_reason;
    EXPECT_EQ(row.invalid_reason.find("server_min_duration_s"), std::string::npos)
        << row.invalid_reason;
    EXPECT_EQ(row.invalid_reason.find("min_processes"), std::string::npos) << row.invalid_reason;
    EXPECT_FALSE(row.peak_qps.has_value());
    EXPECT_FALSE(row.throughput_median_sps.has_value());
  }

  // The bound breaks well past 2000 queries/s, where the queue grows without end (how far past
  // depends on how fast the queue outgrows the bound in a 0.3 s step: at twice the capacity,
  // by 300 ms), and below 20 no step holds the 100 queries p90 needs in --quick's 5 s: the peak
  // lies between.
  const Result peak = Ngb(
      "run tiny null --quick --scenario server --set streams=2 --set latency_bound_ms=200 "
      "--set latency_percentile=90 --set server_min_duration_s=0.3 --set target_qps=100 "
      "--set find_peak=true " + Common());
  ASSERT_EQ(peak.code, 0) << peak.output;
  const ResultRow row = Row("tiny_w8_b1_server_s2_peak");
  EXPECT_EQ(row.status, "ok") << row.error;
  ASSERT_TRUE(row.peak_qps.has_value()) << row.notes << row.invalid_reason;
  EXPECT_GE(*row.peak_qps, 20);
  EXPECT_LE(*row.peak_qps, 2000 * 2);
  EXPECT_EQ(row.target_qps, row.peak_qps);  // the row is the peak's step
  EXPECT_EQ(row.bound_met, true);
  ASSERT_TRUE(row.peak_steps.has_value());
  EXPECT_GE(*row.peak_steps, 3);
  EXPECT_NE(row.notes.find("find_peak (p90 <= 200 ms): 100 QPS "), std::string::npos)
      << row.notes;
  // A step that did not meet it: broken, or invalid (on a busy machine, a generator that could
  // not issue on time).
  EXPECT_TRUE(row.notes.find(" QPS broken") != std::string::npos ||
              row.notes.find(" QPS invalid") != std::string::npos)
      << row.notes;
  EXPECT_NE(peak.output.find("peak "), std::string::npos) << peak.output;
  // Every step beside the row, in the order measured, the row's step among them.
  const std::string steps_path = ServerStepsPath(RunDir().string(), row.run_id);
  std::ifstream steps_file(steps_path);
  const std::string steps_text((std::istreambuf_iterator<char>(steps_file)),
                               std::istreambuf_iterator<char>());
  const std::vector<ServerStep> steps = ParseServerStepsCsv(steps_text, steps_path);
  ASSERT_EQ(static_cast<int64_t>(steps.size()), *row.peak_steps) << steps_text;
  EXPECT_EQ(steps.front().target_qps, 100.0);
  EXPECT_EQ(std::count_if(steps.begin(), steps.end(), [&](const ServerStep& s) {
              return s.target_qps == *row.target_qps && s.queries_issued == row.queries_issued &&
                     s.latency_at_percentile_ms == *row.latency_at_percentile_ms &&
                     s.bound_met && s.valid;
            }),
            1)
      << steps_text;
  for (const ServerStep& s : steps) {
    EXPECT_LE(s.latency_p50_ms, s.latency_at_percentile_ms);
    EXPECT_EQ(s.valid, s.invalid_reason.empty()) << s.invalid_reason;
  }
  // analyze reads them as each run's latency-throughput curve: a step a line, a run at one rate
  // one line.
  const Result analyzed = Ngb("analyze " + (dir_ / "results").string() + " -o " +
                              (dir_ / "analysis").string() + " --include-invalid");
  ASSERT_EQ(analyzed.code, 0) << analyzed.output;
  std::ifstream curves(dir_ / "analysis" / "server_steps.csv");
  int64_t lines = -1;  // the header
  for (std::string line; std::getline(curves, line);) ++lines;
  EXPECT_EQ(lines, 2 + *row.peak_steps + Row("tiny_w16_b1_server_s2_peak").peak_steps.value_or(0))
      << analyzed.output;

  const Result processes = Ngb(server + "--set target_qps=100 --processes 3 " + Common());
  EXPECT_EQ(processes.code, 2) << processes.output;
  EXPECT_NE(processes.output.find("scenario server runs in one worker process"),
            std::string::npos)
      << processes.output;
  const Result offline = Ngb(
      "run tiny null --quick --scenario offline --set target_qps=100 " + Common());
  EXPECT_EQ(offline.code, 2) << offline.output;
  EXPECT_NE(offline.output.find("apply to scenario server only"), std::string::npos)
      << offline.output;
}

// A compiler whose module has no execution contexts yet is refused before anything runs, by
// name, with the compilers that can run offline: never one stream measured as several. The
// compilers on either side are those the registry's descriptions say.
TEST_F(Pipeline, OfflineOnACompilerWithoutContextsIsRefusedByName) {
  std::vector<std::string> without;
  std::string able;
  for (const CompilerInfo& info : AllCompilers()) {
    const auto& s = info.scenarios;
    if (std::find(s.begin(), s.end(), "offline") == s.end()) {
      without.push_back(info.name);
    } else {
      able += (able.empty() ? "" : ", ") + info.name;
    }
  }
  const std::vector<std::string> built = test_support::BuiltAmong(without);
  if (built.empty()) GTEST_SKIP() << "no built compiler lacks offline";
  const std::string& name = built.front();
  const Result refused = Ngb("run tiny " + name + " --quick --scenario offline " + Common());
  EXPECT_EQ(refused.code, 2) << refused.output;
  EXPECT_NE(refused.output.find(name + " cannot run scenario offline yet"), std::string::npos)
      << refused.output;
  EXPECT_NE(refused.output.find("the compilers that can: " + able + ". "), std::string::npos)
      << refused.output;
  EXPECT_FALSE(fs::exists(dir_ / "results" / "local" / name));
}

}  // namespace
}  // namespace ngraphbench
