// `analyze` end to end over real files: a results tree and its zip give the same CSVs, bad
// inputs name their file, and hostile archives are refused.
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

TEST_F(AnalyzeFiles, DirectoryAndZipGiveByteIdenticalCsvs) {
  const std::string arch = kRankedExperiment;
  WriteTree(dir_ / "results",
            {Row("identity", "conv2d", "conv2d_w64", 1, 1000),
             Row("identity", "conv2d", "conv2d_w64", 8, 4000),
             Row("tvm", "conv2d", "conv2d_w64", 1, 1500),
             Row("tvm", "conv2d", "conv2d_w64", 8, 12000.5),
             Row("tvm", "conv2d", "conv2d_w64", 16, {}, kStatusCrashed),
             Row("identity", arch, "resnet18", 1, 300), Row("identity", arch, "resnet50", 1, 100),
             Row("identity", arch, "deit_tiny", 1, 80), Row("tvm", arch, "resnet18", 1, 500),
             Row("tvm", arch, "resnet50", 1, 90), Row("tvm", arch, "deit_tiny", 1, 120)});
  const fs::path archive = dir_ / "results_raw.zip";
  ZipTree(dir_ / "results", archive);

  // The repository root (holding results/), and the zip.
  ASSERT_EQ(RunAnalyze({dir_.string()}, (dir_ / "from_dir").string()), kExitOk);
  ASSERT_EQ(RunAnalyze({archive.string()}, (dir_ / "from_zip").string()), kExitOk);
  for (const char* name :
       {kScalingCsv, kBlocksCsv, kRankingCsv, kReversalsCsv, kFailuresCsv, kInvalidCsv}) {
    EXPECT_EQ(ReadText(dir_ / "from_dir" / name), ReadText(dir_ / "from_zip" / name)) << name;
  }

  // And the content is the metrics, not just equal.
  const std::string scaling = ReadText(dir_ / "from_zip" / kScalingCsv);
  // One process a run: the intervals are empty and the notes say why (a run against itself, at
  // batch 1 or as identity, is exactly 1).
  EXPECT_NE(scaling.find("cpu0,conv2d,tvm,fp32,conv2d_w64,conv2d,,,8,12000.5,,,1500,"
                         "8.000333333333334,"
                         ",,1.0000416666666667,,,4000,3.000125,,,\"interval: fewer than 2 "
                         "processes (batch-1 run 1, this run 1)\",\"interval: fewer than 2 "
                         "processes (identity run 1, this run 1)\"\n"),
            std::string::npos)
      << scaling;
  EXPECT_NE(scaling.find("cpu0,conv2d,identity,fp32,conv2d_w64,conv2d,,,1,1000,,,1000,1,1,1,1,1,1,"
                         "1000,"
                         "1,1,1,,\n"),
            std::string::npos)
      << scaling;
  EXPECT_EQ(std::count(scaling.begin(), scaling.end(), '\n'), 11);  // header + 10 ok runs
  EXPECT_EQ(ReadText(dir_ / "from_zip" / kFailuresCsv),
            "device,experiment,compiler,precision,model,batch_size,status,error\n"
            "cpu0,conv2d,tvm,fp32,conv2d_w64,16,crashed,worker died with signal 11\n");
  EXPECT_EQ(ReadText(dir_ / "from_zip" / kReversalsCsv),
            "device,batch_size,compiler,precision,model_a,model_b,identity_a_sps,identity_b_sps,"
            "compiler_a_sps,compiler_b_sps,identity_latency_ratio_ci_low,"
            "identity_latency_ratio_ci_high,compiler_latency_ratio_ci_low,"
            "compiler_latency_ratio_ci_high,verdict,note\n"
            "cpu0,1,tvm,fp32,resnet50,deit_tiny,100,80,90,120,,,,,tie,"
            "\"identity interval: fewer than "
            "2 processes (resnet50 1, deit_tiny 1); compiler interval: fewer than 2 processes "
            "(resnet50 1, deit_tiny 1)\"\n");
  EXPECT_EQ(ReadText(dir_ / "from_zip" / kRankingCsv),
            "device,batch_size,compiler,precision,models_ranked,pairs,reversed_pairs,"
            "significant_reversals,"
            "tied_reversals,kendall_tau_b,compiler_order,identity_order,note\n"
            "cpu0,1,tvm,fp32,3,3,1,0,1,0.3333333333333333,resnet18>deit_tiny>resnet50,"
            "resnet18>resnet50>deit_tiny,\n");

  // ReadRunLatencies reads the trace beside the row in the zip, and tells a missing one apart.
  const std::vector<LoadedRun> runs = LoadRuns(archive.string());
  ASSERT_FALSE(runs.empty());
  EXPECT_EQ(*ReadRunLatencies(runs[0]), (std::vector<int64_t>{1000, 1100, 1050}));
  LoadedRun missing = runs[0];
  missing.trace = "results/cpu0/nope.latencies.csv";
  EXPECT_FALSE(ReadRunLatencies(missing));
}

// Rows of several processes through the files: each interval lands in its columns.
TEST_F(AnalyzeFiles, IntervalsInTheCsvs) {
  const std::string arch = kRankedExperiment;
  ResultRow block_identity = Row("identity", "conv_blocks", "conv_blocks_w8_d2", 1, {});
  ResultRow block_tvm = Row("tvm", "conv_blocks", "conv_blocks_w8_d2", 1, {});
  for (ResultRow* row : {&block_identity, &block_tvm}) {
    row->width = 8;
    row->depth = 2;
  }
  WriteTree(dir_ / "results",
            {Processes(Row("identity", "conv2d", "c", 1, {}), {9.8, 10, 10.2}),
             Processes(Row("identity", "conv2d", "c", 8, {}), {19.6, 20, 20.4}),
             Processes(Row("tvm", "conv2d", "c", 1, {}), {4.9, 5, 5.1}),
             Processes(Row("tvm", "conv2d", "c", 8, {}), {9.9, 10, 10.1}),
             Processes(block_identity, {19.6, 20, 20.4}), Processes(block_tvm, {9.9, 10, 10.1}),
             Processes(Row("identity", arch, "a", 1, {}), {9.9, 10, 10.1}),
             Processes(Row("identity", arch, "b", 1, {}), {19.8, 20, 20.2}),
             Processes(Row("tvm", arch, "a", 1, {}), {9.9, 10, 10.1}),
             Processes(Row("tvm", arch, "b", 1, {}), {4.95, 5, 5.05})});
  ASSERT_EQ(RunAnalyze({dir_.string()}, (dir_ / "out").string()), kExitOk);

  // The line of (compiler, model, batch) in a CSV, cell by column name.
  auto cells = [&](const char* file, const std::string& compiler, const std::string& model,
                   const std::string& batch) {
    std::istringstream in(ReadText(dir_ / "out" / file));
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> header = CsvSplitLine(line);
    std::map<std::string, std::string> found;
    while (std::getline(in, line)) {
      const std::vector<std::string> values = CsvSplitLine(line);
      std::map<std::string, std::string> row;
      for (size_t i = 0; i < header.size() && i < values.size(); ++i) row[header[i]] = values[i];
      if (row["compiler"] == compiler && row["model"] == model && row["batch_size"] == batch) {
        found = row;
      }
    }
    EXPECT_FALSE(found.empty()) << file << ": no " << compiler << " " << model << " b" << batch;
    return found;
  };
  auto number = [](const std::string& text) { return text.empty() ? NAN : std::stod(text); };

  std::map<std::string, std::string> id8 = cells(kScalingCsv, "identity", "c", "8");
  EXPECT_EQ(id8["ase"], "0.5");
  EXPECT_NEAR(number(id8["ase_ci_low"]), 0.46414989490925396, 1e-9);  // as in the test above
  EXPECT_NEAR(number(id8["ase_ci_high"]), 0.5386191028845919, 1e-9);
  EXPECT_NEAR(number(id8["rtr_ci_low"]), 8 * 0.46414989490925396, 1e-8);
  const std::optional<Interval> repro = ReproductionInterval(20, {19.6, 20, 20.4});
  EXPECT_NEAR(number(id8["throughput_ci_low_sps"]), 8000 / repro->high, 1e-5);  // 9 digits
  EXPECT_NEAR(number(id8["throughput_ci_high_sps"]), 8000 / repro->low, 1e-5);
  EXPECT_EQ(id8["speedup_ci_low"], "1");
  EXPECT_EQ(id8["scaling_note"], "");

  std::map<std::string, std::string> tvm8 = cells(kScalingCsv, "tvm", "c", "8");
  EXPECT_EQ(tvm8["speedup_vs_identity"], "2");
  EXPECT_NEAR(number(tvm8["speedup_ci_low"]), 1.8681656642310405, 1e-9);
  EXPECT_NEAR(number(tvm8["speedup_ci_high"]), 2.141137735580023, 1e-9);
  EXPECT_EQ(tvm8["speedup_note"], "");

  std::map<std::string, std::string> block = cells(kBlocksCsv, "tvm", "conv_blocks_w8_d2", "1");
  EXPECT_NEAR(number(block["speedup_ci_low"]), 1.8681656642310405, 1e-9);
  EXPECT_NEAR(number(block["throughput_ci_low_sps"]),
              1000 / ReproductionInterval(10, {9.9, 10, 10.1})->high, 1e-6);

  EXPECT_EQ(ReadText(dir_ / "out" / kRankingCsv).substr(
                ReadText(dir_ / "out" / kRankingCsv).find('\n') + 1),
            "cpu0,1,tvm,fp32,2,1,1,1,0,-1,b>a,a>b,\n");
  const std::string reversals = ReadText(dir_ / "out" / kReversalsCsv);
  EXPECT_NE(reversals.find("cpu0,1,tvm,fp32,a,b,100,50,100,200,"), std::string::npos) << reversals;
  EXPECT_NE(reversals.find(",significant,\n"), std::string::npos) << reversals;
}

TEST_F(AnalyzeFiles, InvalidAndWrongRowsInTheirOwnFiles) {
  ResultRow invalid = Row("identity", "conv2d", "c", 8, 400);
  invalid.valid = false;
  invalid.invalid_reason = "cv 0.31 > 0.1; other_cpu_pct 90 > 50";
  ResultRow wrong = Row("tvm", "conv2d", "c", 1, 900, kStatusWrong);
  wrong.error = "max abs err 0.5 > tolerance 1e-4";
  ResultRow valid = Row("identity", "conv2d", "c", 1, 100);
  valid.valid = true;
  WriteTree(dir_ / "results", {valid, invalid, wrong, Row("tvm", "conv2d", "c", 8, 1000)});

  ASSERT_EQ(RunAnalyze({dir_.string()}, (dir_ / "out").string()), kExitOk);
  EXPECT_EQ(ReadText(dir_ / "out" / kInvalidCsv),
            "device,experiment,compiler,precision,model,batch_size,run_id,invalid_reason,left_out\n"
            "cpu0,conv2d,identity,fp32,c,8,c_b8,cv 0.31 > 0.1; other_cpu_pct 90 > 50,true\n");
  EXPECT_EQ(ReadText(dir_ / "out" / kFailuresCsv),
            "device,experiment,compiler,precision,model,batch_size,status,error\n"
            "cpu0,conv2d,tvm,fp32,c,1,wrong,max abs err 0.5 > tolerance 1e-4\n");
  const std::string scaling = ReadText(dir_ / "out" / kScalingCsv);
  EXPECT_EQ(scaling.substr(scaling.find('\n') + 1),
            "cpu0,conv2d,identity,fp32,c,conv2d,,,1,100,,,100,1,1,1,1,1,1,100,1,1,1,,\n"
            "cpu0,conv2d,tvm,fp32,c,conv2d,,,8,1000,,,,,,,,,,,,,,"
            "batch-1 run of tvm ended with status "
            "wrong,identity run at this batch size is invalid (cv 0.31 > 0.1; other_cpu_pct 90 > "
            "50)\n");

  ASSERT_EQ(RunAnalyze({dir_.string()}, (dir_ / "all").string(), InvalidRuns::kInclude), kExitOk);
  const std::string all = ReadText(dir_ / "all" / kScalingCsv);
  EXPECT_NE(all.find("cpu0,conv2d,identity,fp32,c,conv2d,,,8,400,,,100,4,,,0.5,,,400,1,1,1,"
                     "\"interval: "
                     "fewer than 2 processes (batch-1 run 1, this run 1)\",\n"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("cpu0,conv2d,tvm,fp32,c,conv2d,,,8,1000,,,,,,,,,,400,2.5,,,"
                     ""), std::string::npos)
      << all;
  EXPECT_NE(ReadText(dir_ / "all" / kInvalidCsv)
                .find(",c_b8,cv 0.31 > 0.1; other_cpu_pct 90 > 50,false\n"),
            std::string::npos);
}

// An offline row stands beside the single-stream row of the same model and batch size: the
// batch-scaling metrics are computed from the single-stream rows alone, as if it were not
// there, and the tree is not refused for holding two runs of one model and batch size.
TEST_F(AnalyzeFiles, OfflineRowsStayOutOfTheBatchScalingMetrics) {
  const std::vector<ResultRow> single = {Row("identity", "conv2d", "c", 1, 100),
                                         Row("identity", "conv2d", "c", 8, 400)};
  WriteTree(dir_ / "single", single);
  ASSERT_EQ(RunAnalyze({(dir_ / "single").string()}, (dir_ / "a").string()), kExitOk);
  ResultRow offline = Row("identity", "conv2d", "c", 1, 50);
  offline.run_id = "c_b1_offline_s2";
  offline.scenario = "offline";
  offline.streams = 2;
  offline.samples_per_s = 40;
  std::vector<ResultRow> both = single;
  both.push_back(offline);
  WriteTree(dir_ / "both", both);
  ASSERT_EQ(RunAnalyze({(dir_ / "both").string()}, (dir_ / "b").string()), kExitOk);
  EXPECT_EQ(ReadText(dir_ / "b" / kScalingCsv), ReadText(dir_ / "a" / kScalingCsv));
  EXPECT_EQ(ReadText(dir_ / "b" / kRankingCsv), ReadText(dir_ / "a" / kRankingCsv));
}

TEST_F(AnalyzeFiles, BadInputsNameTheFile) {
  const std::string missing = (dir_ / "nope").string();
  EXPECT_NE(InputErrorOf([&] { LoadRuns(missing); }).find(missing), std::string::npos);

  fs::create_directories(dir_ / "empty" / "cpu0");
  EXPECT_NE(InputErrorOf([&] { LoadRuns((dir_ / "empty").string()); }).find("not a results tree"),
            std::string::npos);

  const fs::path garbage = dir_ / "garbage.zip";
  std::ofstream(garbage) << "this is not a zip archive";
  EXPECT_NE(InputErrorOf([&] { LoadRuns(garbage.string()); }).find(garbage.string()),
            std::string::npos);

  // A real archive cut in half.
  WriteTree(dir_ / "tree", {Row("tvm", "conv2d", "c", 1, 10), Row("tvm", "conv2d", "c", 2, 20)});
  ZipTree(dir_ / "tree", dir_ / "whole.zip");
  const std::string bytes = ReadText(dir_ / "whole.zip");
  const fs::path cut = dir_ / "cut.zip";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  EXPECT_NE(InputErrorOf([&] { LoadRuns(cut.string()); }).find(cut.string()), std::string::npos);
  EXPECT_EQ(LoadRuns((dir_ / "whole.zip").string()).size(), 2u);

  // A row that is not a result row.
  const fs::path bad = dir_ / "tree" / "cpu0" / "tvm" / "c_b4.csv";
  std::ofstream(bad) << "schema_version,run_id\n1,c_b4\n";
  EXPECT_NE(InputErrorOf([&] { LoadRuns((dir_ / "tree").string()); }).find(bad.string()),
            std::string::npos);
  fs::remove(bad);

  // An ok row without a throughput.
  WriteTree(dir_ / "tree", {Row("tvm", "conv2d", "c", 4, {})});
  const std::string message = InputErrorOf([&] { LoadRuns((dir_ / "tree").string()); });
  EXPECT_NE(message.find("c_b4.csv"), std::string::npos) << message;
  EXPECT_NE(message.find("throughput_median_sps"), std::string::npos) << message;
}

TEST_F(AnalyzeFiles, SameRunInTwoInputsIsAnError) {
  WriteTree(dir_ / "a", {Row("tvm", "conv2d", "c", 1, 10)});
  WriteTree(dir_ / "b", {Row("tvm", "conv2d", "c", 1, 11)});
  const std::string message =
      InputErrorOf([&] { LoadRuns({(dir_ / "a").string(), (dir_ / "b").string()}); });
  EXPECT_NE(message.find("same run"), std::string::npos) << message;
  EXPECT_THROW(RunAnalyze({}, (dir_ / "out").string()), InputError);
}

// An int8 tree and the fp32 tree of the same runs are analyzed together: every table tells the
// precisions apart, and precision_speedup.csv holds int8 over fp32 with its interval and the
// output check's measures.
TEST_F(AnalyzeFiles, Int8AndFp32TreesTogether) {
  auto int8 = [](ResultRow row) {
    row.precision = "int8";
    row.check_cosine = 0.9998;
    row.check_snr_db = 34.25;
    return row;
  };
  WriteTree(dir_ / "fp32",
            {Processes(Row("identity", "conv2d", "c", 1, {}), {19.6, 20, 20.4}),
             Processes(Row("onnxruntime", "conv2d", "c", 1, {}), {9.8, 10, 10.2})});
  WriteTree(dir_ / "int8",
            {int8(Processes(Row("onnxruntime", "conv2d", "c", 1, {}), {4.9, 5, 5.1})),
             int8(Row("openvino", "conv2d", "c", 1, {}, kStatusWrong))});
  const std::vector<std::string> inputs = {(dir_ / "fp32").string(), (dir_ / "int8").string()};
  ASSERT_EQ(LoadRuns(inputs).size(), 4u);
  ASSERT_EQ(RunAnalyze(inputs, (dir_ / "out").string()), kExitOk);

  const std::string scaling = ReadText(dir_ / "out" / kScalingCsv);
  EXPECT_NE(scaling.find("cpu0,conv2d,onnxruntime,fp32,c,conv2d,,,1,100,"), std::string::npos)
      << scaling;
  EXPECT_NE(scaling.find("cpu0,conv2d,onnxruntime,int8,c,conv2d,,,1,200,"), std::string::npos)
      << scaling;
  EXPECT_NE(scaling.find("identity run at this batch size differs: precision fp32 vs int8 here"),
            std::string::npos)
      << scaling;
  EXPECT_EQ(ReadText(dir_ / "out" / kFailuresCsv),
            "device,experiment,compiler,precision,model,batch_size,status,error\n"
            "cpu0,conv2d,openvino,int8,c,1,wrong,worker died with signal 11\n");

  const std::string precision = ReadText(dir_ / "out" / kPrecisionCsv);
  // The figures as the rows read back (9 significant digits).
  std::optional<RunPoint> fp32, quantized;
  for (const LoadedRun& run : LoadRuns(inputs)) {
    if (run.row.compiler != "onnxruntime") continue;
    (run.row.precision == "int8" ? quantized : fp32) = ToRunPoint(run.row);
  }
  ASSERT_TRUE(fp32 && quantized);
  std::string note;
  const Interval ci = *LatencyRatioInterval(*fp32, "a", *quantized, "b", note);
  const std::string line = Line()
                               .Add(std::string("cpu0"))
                               .Add(std::string("conv2d"))
                               .Add(std::string("onnxruntime"))
                               .Add(std::string("int8"))
                               .Add(std::string("c"))
                               .Add(std::string("conv2d"))
                               .Add(std::string())
                               .Add(std::string())
                               .Add(int64_t{1})
                               .Add(5.0)
                               .Add(*quantized->latency_p50_ci_low_ms)
                               .Add(*quantized->latency_p50_ci_high_ms)
                               .Add(10.0)
                               .Add(*fp32->latency_p50_ci_low_ms)
                               .Add(*fp32->latency_p50_ci_high_ms)
                               .Add(200.0)
                               .Add(100.0)
                               .Add(2.0)
                               .Add(ci.low)
                               .Add(ci.high)
                               .Add(0.9998)
                               .Add(34.25)
                               .Add(std::string())
                               .Add(std::string())
                               .Add(std::string())
                               .Add(std::string())
                               .End();
  EXPECT_EQ(precision.substr(precision.find('\n') + 1), line);
  EXPECT_EQ(precision.substr(0, precision.find('\n')).rfind(
                "device,experiment,compiler,precision,model,family,width,depth,batch_size,", 0),
            0u);
}


// Hostile inputs found by a fuzzing campaign.
TEST_F(AnalyzeFiles, AZipEntryClaimingGigabytesIsRefusedBeforeReading) {
  WriteTree(dir_ / "results", {Row("identity", "conv2d", "conv2d_w64", 1, 1000)});
  const fs::path zip = dir_ / "big.zip";
  ZipTree(dir_ / "results", zip);
  // Rewrite every uncompressed size in the central directory (signature PK\1\2, size at +24)
  // to 3 GiB; the bytes themselves stay small.
  std::string bytes = ReadText(zip);
  const uint32_t huge = 3u << 30;
  int patched = 0;
  for (size_t at = bytes.find("PK\x01\x02"); at != std::string::npos;
       at = bytes.find("PK\x01\x02", at + 4)) {
    std::memcpy(&bytes[at + 24], &huge, sizeof(huge));
    ++patched;
  }
  ASSERT_GT(patched, 0);
  std::ofstream(zip, std::ios::binary) << bytes;
  const std::string error = InputErrorOf([&] { LoadRuns(zip.string()); });
  EXPECT_NE(error.find("the entry claims 3221225472 bytes"), std::string::npos) << error;
}

TEST_F(AnalyzeFiles, AnOutputPathThatIsAFileIsBadInput) {
  WriteTree(dir_ / "results", {Row("identity", "conv2d", "conv2d_w64", 1, 1000)});
  std::ofstream(dir_ / "taken") << "a file";
  const std::string error = InputErrorOf(
      [&] { RunAnalyze({(dir_ / "results").string()}, (dir_ / "taken").string(), {}); });
  EXPECT_NE(error.find("is an existing file; give a directory"), std::string::npos) << error;
  EXPECT_EQ(ReadText(dir_ / "taken"), "a file");
}

// A digit changed inside a stored (uncompressed) entry still decompresses: only the CRC tells.
// Such an archive is refused, for a row when it is loaded and for a trace when it is read.
TEST_F(AnalyzeFiles, EntriesWithAWrongCrcAreRefused) {
  WriteTree(dir_ / "tree", {Row("tvm", "conv2d", "c", 1, 123456.5)});
  ZipTree(dir_ / "tree", dir_ / "good.zip", /*stored=*/true);
  const std::string bytes = ReadText(dir_ / "good.zip");
  ASSERT_EQ(LoadRuns((dir_ / "good.zip").string()).size(), 1u);

  auto damaged = [&](const std::string& from, const std::string& to, const std::string& name) {
    std::string copy = bytes;
    const size_t at = copy.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    EXPECT_EQ(copy.find(from, at + 1), std::string::npos) << from << " is not unique";
    copy.replace(at, from.size(), to);
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << copy;
    return path.string();
  };
  const std::string row = damaged("123456.5", "923456.5", "row.zip");
  const std::string message = InputErrorOf([&] { LoadRuns(row); });
  EXPECT_NE(message.find("c_b1.csv: corrupt entry (CRC error)"), std::string::npos) << message;

  const std::string trace = damaged("2,1050", "2,9050", "trace.zip");
  const std::vector<LoadedRun> runs = LoadRuns(trace);
  ASSERT_EQ(runs.size(), 1u);
  const std::string trace_message = InputErrorOf([&] { ReadRunLatencies(runs[0]); });
  EXPECT_NE(trace_message.find("CRC error"), std::string::npos) << trace_message;
  EXPECT_EQ(*ReadRunLatencies(LoadRuns((dir_ / "good.zip").string())[0]),
            (std::vector<int64_t>{1000, 1100, 1050}));
}


}  // namespace
}  // namespace ngraphbench
