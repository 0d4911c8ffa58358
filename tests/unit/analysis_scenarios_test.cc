// Offline and server beside single stream (analysis/scenarios.h): batching against concurrency,
// the server curves, and their CSVs from `analyze` (part of analysis_test).
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
  WriteTree(dir_ / "single", rows);
  ASSERT_EQ(RunAnalyze({(dir_ / "single").string()}, (dir_ / "a").string()), kExitOk);
  for (const char* file : {kBatchVsStreamsCsv, kOfflineRunsCsv, kServerRunsCsv, kServerStepsCsv}) {
    EXPECT_FALSE(fs::exists(dir_ / "a" / file)) << file;
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
  WriteTree(dir_ / "both", rows);
  const std::string dir = (dir_ / "both" / "cpu0" / "identity").string();
  WriteFileAtomic(ServerStepsPath(dir, peak.run_id), FormatServerStepsCsv(PeakSteps()));
  ASSERT_EQ(RunAnalyze({(dir_ / "both").string()}, (dir_ / "b").string()), kExitOk);
  // The single-stream metrics do not move.
  EXPECT_EQ(ReadText(dir_ / "b" / kScalingCsv), ReadText(dir_ / "a" / kScalingCsv));

  EXPECT_EQ(ReadText(dir_ / "b" / kBatchVsStreamsCsv),
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
  EXPECT_EQ(ReadText(dir_ / "b" / kOfflineRunsCsv),
            "device,experiment,compiler,precision,model,batch_size,run_id,streams,"
            "samples_in_flight,"
            "threads,threads_per_stream,samples_per_s,latency_p50_ms,latency_p99_ms,"
            "cpu_util_pct,valid\n"
            "cpu0,conv2d,identity,fp32,c,1,c_b1_offline_s2,2,2,,1,250,8,12,190,true\n");
  EXPECT_EQ(ReadText(dir_ / "b" / kServerRunsCsv),
            "device,experiment,compiler,precision,model,batch_size,run_id,streams,threads,"
            "find_peak,"
            "target_qps,achieved_qps,samples_per_s,latency_p50_ms,latency_percentile,"
            "latency_at_percentile_ms,latency_bound_ms,bound_met,queries_issued,"
            "queries_completed,valid,invalid_reason,peak_qps,peak_steps\n"
            "cpu0,conv2d,identity,,c,2,c_b2_server_s2_peak,2,,true,40,39.5,79,10,99,45,50,true,"
            "400,400,true,,40,3\n");
  EXPECT_EQ(ReadText(dir_ / "b" / kServerStepsCsv),
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

  ZipTree(dir_ / "both", dir_ / "both.zip");
  ASSERT_EQ(RunAnalyze({(dir_ / "both.zip").string()}, (dir_ / "z").string()), kExitOk);
  for (const char* file : {kBatchVsStreamsCsv, kOfflineRunsCsv, kServerRunsCsv, kServerStepsCsv}) {
    EXPECT_EQ(ReadText(dir_ / "z" / file), ReadText(dir_ / "b" / file)) << file;
  }

  // Analyzed again into the same folder without such runs: none of their files is left.
  ASSERT_EQ(RunAnalyze({(dir_ / "single").string()}, (dir_ / "z").string()), kExitOk);
  for (const char* file : {kBatchVsStreamsCsv, kOfflineRunsCsv, kServerRunsCsv, kServerStepsCsv}) {
    EXPECT_FALSE(fs::exists(dir_ / "z" / file)) << file;
  }
}

// An ok offline row carries samples_per_s, not throughput_median_sps; a server row its rate and
// latency at the percentile.
TEST_F(AnalyzeFiles, OfflineAndServerRowsCarryTheirOwnThroughput) {
  ResultRow offline = Row("identity", "conv2d", "c", 1, {});
  offline.run_id = "c_b1_offline_s2";
  offline.scenario = "offline";
  offline.streams = 2;
  WriteTree(dir_ / "tree", {offline});
  std::string message = InputErrorOf([&] { LoadRuns((dir_ / "tree").string()); });
  EXPECT_NE(message.find("c_b1_offline_s2.csv: an ok offline row whose samples_per_s is empty"),
            std::string::npos)
      << message;
  offline.samples_per_s = 250;
  ResultRow server = PeakRow();
  server.achieved_qps.reset();
  WriteTree(dir_ / "tree", {offline, server});
  message = InputErrorOf([&] { LoadRuns((dir_ / "tree").string()); });
  EXPECT_NE(message.find("m_b2_server_s2_peak.csv: an ok server row without samples_per_s, "
                         "achieved_qps"),
            std::string::npos)
      << message;
  fs::remove(dir_ / "tree" / "cpu0" / "onnxruntime" / "m_b2_server_s2_peak.csv");
  EXPECT_EQ(LoadRuns((dir_ / "tree").string()).size(), 1u);
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
  WriteTree(dir_ / "tree", {ok, crashed});
  const std::vector<LoadedRun> runs = LoadRuns((dir_ / "tree").string());
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].row.model, evil);
  EXPECT_EQ(runs[1].row.model, "@other");
  EXPECT_EQ(runs[1].row.error, "-1 is not a shape");
  EXPECT_NE(ReadText(dir_ / "tree" / "cpu0" / "identity" / "evil_b1.csv").find(",'=cmd|"),
            std::string::npos);

  ASSERT_EQ(RunAnalyze({(dir_ / "tree").string()}, (dir_ / "out").string()), kExitOk);
  const std::string scaling = ReadText(dir_ / "out" / kScalingCsv);
  EXPECT_NE(scaling.find(",'=cmd|' -C calc'!A0,"), std::string::npos) << scaling;
  const std::string failures = ReadText(dir_ / "out" / kFailuresCsv);
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
  const fs::path tree = dir_ / "tree";
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
  WriteTree(dir_ / "tree", {peak});
  const std::string steps = ServerStepsPath((dir_ / "tree" / "cpu0" / "onnxruntime").string(),
                                            peak.run_id);
  ASSERT_EQ(RunAnalyze({(dir_ / "tree").string()}, (dir_ / "missing").string()), kExitOk);
  EXPECT_NE(ReadText(dir_ / "missing" / kServerStepsCsv)
                .find("no m_b2_server_s2_peak.server_steps.csv beside the row"),
            std::string::npos);

  std::ofstream(steps) << "step,qps\n1,2\n";
  std::string message =
      InputErrorOf([&] { RunAnalyze({(dir_ / "tree").string()}, (dir_ / "out").string()); });
  EXPECT_NE(message.find("server steps '" + steps + "' has the header 'step,qps'"),
            std::string::npos)
      << message;
  EXPECT_FALSE(fs::exists(dir_ / "out" / kScalingCsv));  // read before anything is written

  std::vector<ServerStep> two = PeakSteps();
  two.pop_back();
  WriteFileAtomic(steps, FormatServerStepsCsv(two));
  message =
      InputErrorOf([&] { RunAnalyze({(dir_ / "tree").string()}, (dir_ / "out").string()); });
  EXPECT_NE(message.find("server steps '" + steps + "' holds 2 steps, but its row's peak_steps "
                         "is 3"),
            std::string::npos)
      << message;

  std::string text = FormatServerStepsCsv(PeakSteps());
  text.replace(text.find(",true,true,,400,400"), 19, ",true,maybe,,400,400");
  std::ofstream(steps, std::ios::trunc) << text;
  ZipTree(dir_ / "tree", dir_ / "tree.zip");
  message = InputErrorOf(
      [&] { RunAnalyze({(dir_ / "tree.zip").string()}, (dir_ / "out").string()); });
  EXPECT_NE(message.find((dir_ / "tree.zip").string() +
                         ":results/cpu0/onnxruntime/m_b2_server_s2_peak.server_steps.csv' line 4: "
                         "valid is 'maybe'"),
            std::string::npos)
      << message;
}


}  // namespace
}  // namespace ngraphbench
