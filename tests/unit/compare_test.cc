// `ngraphbench compare`: the classification, and the command end to end over two results trees
// and a zip: the interval and p of each pair from the rows' process medians (measure/repeat.h,
// tested in repeat_test), the undecided pairs of too few processes, and the summary.
#include "ngraphbench/analysis/compare.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ngraphbench/core/csv_line.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/measure/repeat.h"
#include "ngraphbench/results/csv.h"
#include "temp_dir.h"
#include "zip_tree.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;
using test_support::ReadText;
using test_support::ZipTree;

// ---- Classification ----

RatioEstimate Estimate(double ratio, double low, double high, double p) {
  RatioEstimate e;
  e.ratio = ratio;
  e.low = low;
  e.high = high;
  e.p_value = p;
  e.df = 8;
  return e;
}

TEST(Classify, AllThreeConditions) {
  EXPECT_EQ(Classify(Estimate(1.2, 1.1, 1.3, 0.001), 0.05, 0.05), Change::kSlower);
  EXPECT_EQ(Classify(Estimate(0.8, 0.7, 0.9, 0.001), 0.05, 0.05), Change::kFaster);
  EXPECT_EQ(Classify(Estimate(1.2, 1.1, 1.3, 0.2), 0.05, 0.05), Change::kSame);     // p too large
  EXPECT_EQ(Classify(Estimate(1.2, 0.95, 1.3, 0.001), 0.05, 0.05), Change::kSame);  // holds 1
  EXPECT_EQ(Classify(Estimate(1.03, 1.02, 1.04, 0.001), 0.05, 0.05), Change::kSame);  // < 5%
  EXPECT_EQ(Classify(Estimate(1.03, 1.02, 1.04, 0.001), 0.05, 0.02), Change::kSlower);
  EXPECT_EQ(Classify(Estimate(1.2, 1.1, 1.3, 0.03), 0.01, 0.05), Change::kSame);  // --alpha 0.01
  EXPECT_FALSE(IsSignificant(Estimate(1.0, 0.9, 1.1, 0.001), 0.05));
  EXPECT_TRUE(IsSignificant(Estimate(0.85, 0.8, 0.9, 0.001), 0.05));
  EXPECT_STREQ(ChangeName(Change::kSlower), "slower");
  EXPECT_STREQ(ChangeName(Change::kSame), "same");
}

// Without an estimate (a side with fewer than 2 processes) there is no verdict at all.
TEST(Classify, NoEstimateIsUndecided) {
  EXPECT_EQ(Classify(std::nullopt, 0.05, 0.05), Change::kUndecided);
  EXPECT_STREQ(ChangeName(Change::kUndecided), "undecided");
  // What CompareProcessMedians gives a side of one process.
  EXPECT_EQ(Classify(CompareProcessMedians(3.0, {3.0}, 2.0, {2.0, 2.1}), 0.05, 0.05),
            Change::kUndecided);
}

// A ratio that is not a finite number (an infinite median on a side) is never "same": it says
// nothing about a change. What CompareProcessMedians gives such a pair, and hand-made estimates.
TEST(Classify, NonFiniteRatioIsUndecided) {
  const double inf = INFINITY;
  EXPECT_EQ(Classify(CompareProcessMedians(inf, {3.0, 3.1, 2.9}, 2.0, {2.0, 2.1, 1.9}), 0.05,
                     0.05),
            Change::kUndecided);
  EXPECT_EQ(Classify(Estimate(inf, inf, inf, 1.0), 0.05, 0.05), Change::kUndecided);
  EXPECT_EQ(Classify(Estimate(NAN, 0.9, 1.1, 0.5), 0.05, 0.05), Change::kUndecided);
  EXPECT_EQ(Classify(Estimate(1.0, 0.0, inf, 0.5), 0.05, 0.05), Change::kUndecided);
  EXPECT_EQ(Classify(Estimate(1.0, 0.9, 1.1, 0.5), 0.05, 0.05), Change::kSame);
}

// ---- The command over files ----

class CompareFiles : public test_support::TempDirTest {
 protected:
  CompareFiles() : TempDirTest("ngb_compare_test_") {}

  // A row measured in as many processes as `medians_ms` has values (their medians, in ms); its
  // latency_p50_ms is their middle one (a stand-in for the pooled median). A row of another
  // status has neither.
  static ResultRow Row(const std::string& device, const std::string& compiler,
                       const std::string& model, int64_t batch,
                       const std::vector<double>& medians_ms,
                       const std::string& status = kStatusOk) {
    ResultRow row;
    row.run_id = model + "_b" + std::to_string(batch);
    row.experiment = "conv2d";
    row.model = model;
    row.family = "conv2d";
    row.batch_size = batch;
    row.compiler = compiler;
    row.device = device;
    row.precision = "fp32";
    row.threads = 1;
    row.status = status;
    if (status == kStatusOk) {
      std::vector<double> sorted = medians_ms;
      std::sort(sorted.begin(), sorted.end());
      row.latency_p50_ms = sorted[sorted.size() / 2];
      row.throughput_median_sps = static_cast<double>(batch) * 1e3 / *row.latency_p50_ms;
      row.processes = static_cast<int64_t>(medians_ms.size());
      row.process_p50s_ms = medians_ms;
      row.repeats = 100 * static_cast<int64_t>(medians_ms.size());
      row.valid = true;
    } else {
      row.error = "worker died with signal 11";
    }
    return row;
  }

  // Five process medians around `center_ms`, 1% apart, middle one `center_ms`.
  static std::vector<double> Around(double center_ms) {
    std::vector<double> medians;
    for (double f : {1.0, 1.01, 0.99, 1.005, 0.995}) medians.push_back(center_ms * f);
    return medians;
  }

  // No trace is written: compare reads the rows only.
  static void Write(const fs::path& results, const ResultRow& row) {
    WriteRow(RowPath((results / row.device / row.compiler).string(), row.run_id), row);
  }

  // BASE on device vm-a, NEW on vm-b, 5 processes a run unless said:
  //   onnxruntime conv2d_w16 b1:  20% slower in NEW                -> slower
  //   onnxruntime conv2d_w16 b8:  0.2% apart, within the spread    -> same (not significant)
  //   onnxruntime conv2d_w16 b16: 50% slower, BASE of one process  -> undecided
  //   onnxruntime conv2d_w32 b1:  BASE only
  //   onnxruntime conv2d_w64 b1:  NEW crashed                      -> not compared
  //   identity    conv2d_w16 b1:  20% faster, NEW marked invalid   -> faster, out of the summary
  //   identity    conv2d_w16 b8:  NEW only
  void WriteTrees() {
    const fs::path base = dir_ / "base" / "results", next = dir_ / "new" / "results";
    Write(base, Row("vm-a", "onnxruntime", "conv2d_w16", 1, Around(2.0)));
    Write(next, Row("vm-b", "onnxruntime", "conv2d_w16", 1, Around(2.4)));
    Write(base, Row("vm-a", "onnxruntime", "conv2d_w16", 8, Around(10.0)));
    Write(next, Row("vm-b", "onnxruntime", "conv2d_w16", 8, {10.02, 9.97, 10.08, 9.92, 10.12}));
    Write(base, Row("vm-a", "onnxruntime", "conv2d_w16", 16, {5.0}));
    Write(next, Row("vm-b", "onnxruntime", "conv2d_w16", 16, Around(7.5)));
    Write(base, Row("vm-a", "onnxruntime", "conv2d_w32", 1, Around(3.0)));
    Write(base, Row("vm-a", "onnxruntime", "conv2d_w64", 1, Around(5.0)));
    Write(next, Row("vm-b", "onnxruntime", "conv2d_w64", 1, {}, kStatusCrashed));
    Write(base, Row("vm-a", "identity", "conv2d_w16", 1, Around(4.0)));
    ResultRow invalid = Row("vm-b", "identity", "conv2d_w16", 1, Around(3.2));
    invalid.valid = false;
    invalid.invalid_reason = "cv 0.3 > 0.25";
    Write(next, invalid);
    Write(next, Row("vm-b", "identity", "conv2d_w16", 8, Around(4.0)));
  }

  // The CSV line of the pair (compiler, model, batch), split into cells.
  static std::vector<std::string> CsvPair(const std::string& csv, const std::string& compiler,
                                          const std::string& model, int64_t batch) {
    std::istringstream in(csv);
    std::string line;
    while (std::getline(in, line)) {
      const std::vector<std::string> cells = CsvSplitLine(line);
      if (cells.size() > 3 && cells[0] == compiler && cells[2] == model &&
          cells[3] == std::to_string(batch)) {
        return cells;
      }
    }
    ADD_FAILURE() << "no pair " << compiler << " " << model << " b" << batch << " in\n" << csv;
    return {};
  }

  // The index of `column` in the CSV header.
  static size_t Column(const std::string& csv, const std::string& column) {
    const std::vector<std::string> header = CsvSplitLine(csv.substr(0, csv.find('\n')));
    const auto it = std::find(header.begin(), header.end(), column);
    EXPECT_NE(it, header.end()) << column;
    return static_cast<size_t>(it - header.begin());
  }

  static std::string Printf3(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.3f", value);
    return buffer;
  }
};

TEST_F(CompareFiles, FlagsTheSlowdownAndListsTheRest) {
  WriteTrees();
  CompareOptions options;
  options.csv_path = (dir_ / "pairs.csv").string();
  std::ostringstream out;
  EXPECT_EQ(RunCompare((dir_ / "base").string(), (dir_ / "new").string(), options, out), kExitOk);
  const std::string report = out.str();

  const std::string csv = ReadText(dir_ / "pairs.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "compiler,experiment,model,batch_size,base_device,new_device,base_run_id,new_run_id,"
            "base_n,new_n,base_median_ms,new_median_ms,ratio,ratio_ci_low,ratio_ci_high,"
            "base_processes,new_processes,df,p_value,significant,change,invalid,invalid_reason,"
            "in_summary,note");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);  // header + 4 compared pairs
  const size_t change = Column(csv, "change"), ratio = Column(csv, "ratio"),
               p = Column(csv, "p_value"), low = Column(csv, "ratio_ci_low"),
               high = Column(csv, "ratio_ci_high"), df = Column(csv, "df"),
               base_k = Column(csv, "base_processes"), new_k = Column(csv, "new_processes"),
               base_n = Column(csv, "base_n"), significant = Column(csv, "significant"),
               invalid = Column(csv, "invalid"), in_summary = Column(csv, "in_summary"),
               new_device = Column(csv, "new_device"), note = Column(csv, "note");

  // The slowdown: NEW's medians are BASE's times 1.2, so the log-medians' spread is the same on
  // both sides and the interval is 1.2 exp(+-t se), as CompareProcessMedians gives it.
  const std::vector<std::string> slower = CsvPair(csv, "onnxruntime", "conv2d_w16", 1);
  ASSERT_FALSE(slower.empty());
  EXPECT_EQ(slower[change], "slower");
  EXPECT_EQ(slower[significant], "true");
  EXPECT_DOUBLE_EQ(std::stod(slower[ratio]), 1.2);
  const std::optional<RatioEstimate> expected =
      CompareProcessMedians(2.4, Around(2.4), 2.0, Around(2.0));
  ASSERT_TRUE(expected);
  // Near, not equal: a row keeps 9 significant digits of each median.
  EXPECT_NEAR(std::stod(slower[low]) / expected->low, 1, 1e-9);
  EXPECT_NEAR(std::stod(slower[high]) / expected->high, 1, 1e-9);
  EXPECT_NEAR(std::stod(slower[p]) / expected->p_value, 1, 1e-6);
  EXPECT_DOUBLE_EQ(std::stod(slower[df]), 8);  // equal spreads: df = K_a + K_b - 2
  EXPECT_LT(std::stod(slower[low]), 1.2);
  EXPECT_GT(std::stod(slower[low]), 1.1);
  EXPECT_LT(std::stod(slower[p]), 1e-6);
  EXPECT_EQ(slower[base_k], "5");
  EXPECT_EQ(slower[new_k], "5");
  EXPECT_EQ(slower[base_n], "500");  // the rows' timed runs
  EXPECT_EQ(slower[new_device], "vm-b");
  EXPECT_EQ(slower[note], "");

  const std::vector<std::string> same = CsvPair(csv, "onnxruntime", "conv2d_w16", 8);
  ASSERT_FALSE(same.empty());
  EXPECT_EQ(same[change], "same");
  EXPECT_EQ(same[significant], "false");
  EXPECT_DOUBLE_EQ(std::stod(same[ratio]), 10.02 / 10.0);
  EXPECT_GT(std::stod(same[p]), 0.05);
  EXPECT_LT(std::stod(same[low]), 1);
  EXPECT_GT(std::stod(same[high]), 1);

  // One process in BASE: a ratio, but no interval, df or p, and no verdict.
  const std::vector<std::string> undecided = CsvPair(csv, "onnxruntime", "conv2d_w16", 16);
  ASSERT_FALSE(undecided.empty());
  EXPECT_EQ(undecided[change], "undecided");
  EXPECT_EQ(undecided[significant], "false");
  EXPECT_DOUBLE_EQ(std::stod(undecided[ratio]), 1.5);
  EXPECT_EQ(undecided[low], "");
  EXPECT_EQ(undecided[high], "");
  EXPECT_EQ(undecided[df], "");
  EXPECT_EQ(undecided[p], "");
  EXPECT_EQ(undecided[base_k], "1");
  EXPECT_EQ(undecided[in_summary], "true");
  EXPECT_EQ(undecided[note], "too few processes to judge (base 1, new 5; at least 2 per side)");

  const std::vector<std::string> faster = CsvPair(csv, "identity", "conv2d_w16", 1);
  ASSERT_FALSE(faster.empty());
  EXPECT_EQ(faster[change], "faster");
  EXPECT_DOUBLE_EQ(std::stod(faster[ratio]), 0.8);
  EXPECT_EQ(faster[invalid], "true");
  EXPECT_EQ(faster[in_summary], "false");

  // The report: pairing across labels, the not-significant wording, the undecided pair, the
  // invalid pair, the runs on one side only and the crashed pair.
  EXPECT_NE(report.find("paired across device labels (each side holds one): base `vm-a` with "
                        "new `vm-b`"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("same (not significant)"), std::string::npos) << report;
  EXPECT_NE(report.find("| 1.500 |  |  | 1 / 5 | undecided |  | too few processes to judge"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("new: cv 0.3 > 0.25"), std::string::npos) << report;
  EXPECT_NE(report.find("| onnxruntime | conv2d | conv2d_w64 | 1 | new status crashed |"),
            std::string::npos)
      << report;
  const size_t only_base = report.find("## Only in base"), only_new = report.find("## Only in new");
  ASSERT_NE(only_base, std::string::npos) << report;
  ASSERT_NE(only_new, std::string::npos) << report;
  EXPECT_NE(report.find("| onnxruntime | conv2d | conv2d_w32 | 1 | vm-a | ok |", only_base),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("| identity | conv2d | conv2d_w16 | 8 | vm-b | ok |", only_new),
            std::string::npos)
      << report;
  // Summary (slower, faster, same, undecided, left out): identity's only pair is invalid, so it
  // is left out; onnxruntime has one slower, one same and one undecided, which is neither.
  EXPECT_NE(report.find("| identity | conv2d | 0 |  | 0 | 0 | 0 | 0 | 1 |"), std::string::npos)
      << report;
  EXPECT_NE(report.find("| onnxruntime | conv2d | 3 | " +
                        std::string(Printf3(std::cbrt(1.2 * 1.002 * 1.5))) +
                        " | 1 | 0 | 1 | 1 | 0 |"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("1 pair(s) undecided: a side has fewer than 2 processes"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("1 significant slowdown(s) beyond 5%:\n- onnxruntime conv2d conv2d_w16 b1"),
            std::string::npos)
      << report;

  // --fail-on-regression: exit 1 for the slowdown, and the output is reproducible.
  options.fail_on_regression = true;
  std::ostringstream again;
  EXPECT_EQ(RunCompare((dir_ / "base").string(), (dir_ / "new").string(), options, again),
            kExitRunsFailed);
  EXPECT_EQ(again.str(), report);
  EXPECT_EQ(ReadText(dir_ / "pairs.csv"), csv);

  // --include-invalid: the invalid pair enters the summary as faster.
  options.invalid_runs = InvalidRuns::kInclude;
  std::ostringstream included;
  RunCompare((dir_ / "base").string(), (dir_ / "new").string(), options, included);
  const std::string text = included.str();
  const size_t identity = text.find("| identity | conv2d | 1 | 0.");
  ASSERT_NE(identity, std::string::npos) << text;
  const std::string line = text.substr(identity, text.find('\n', identity) - identity);
  const std::string counts = "| 0 | 1 | 0 | 0 | 0 |";  // slower, faster, same, undecided, out
  EXPECT_EQ(line.substr(line.size() - counts.size()), counts) << line;

  // A threshold above the slowdown: nothing fails, although the undecided pair's ratio (1.5) is
  // beyond it: undecided is never a regression.
  options.threshold = 0.25;
  std::ostringstream lenient;
  EXPECT_EQ(RunCompare((dir_ / "base").string(), (dir_ / "new").string(), options, lenient),
            kExitOk);
  EXPECT_NE(lenient.str().find("same (within ±25%)"), std::string::npos) << lenient.str();
  EXPECT_NE(lenient.str().find("No significant slowdown beyond 25%."), std::string::npos)
      << lenient.str();
}

// A zip holds the same runs: the same pairs, the same numbers.
TEST_F(CompareFiles, ZipGivesTheSameNumbers) {
  WriteTrees();
  ZipTree(dir_ / "base" / "results", dir_ / "base.zip");
  CompareOptions options;
  options.csv_path = (dir_ / "from_dir.csv").string();
  std::ostringstream from_dir, from_zip;
  RunCompare((dir_ / "base").string(), (dir_ / "new").string(), options, from_dir);
  options.csv_path = (dir_ / "from_zip.csv").string();
  options.fail_on_regression = true;
  EXPECT_EQ(RunCompare((dir_ / "base.zip").string(), (dir_ / "new").string(), options, from_zip),
            kExitRunsFailed);
  EXPECT_EQ(ReadText(dir_ / "from_zip.csv"), ReadText(dir_ / "from_dir.csv"));
}

// Several device labels on a side: the label is part of the key, and runs of another device do
// not pair up.
TEST_F(CompareFiles, SeveralLabelsPairByLabel) {
  const fs::path base = dir_ / "base", next = dir_ / "new";
  Write(base, Row("vm-a", "onnxruntime", "conv2d_w16", 1, Around(2.0)));
  Write(base, Row("vm-b", "onnxruntime", "conv2d_w16", 1, Around(2.0)));
  Write(next, Row("vm-a", "onnxruntime", "conv2d_w16", 1, Around(2.0)));
  Write(next, Row("vm-c", "onnxruntime", "conv2d_w16", 1, Around(2.0)));
  std::ostringstream out;
  EXPECT_EQ(RunCompare(base.string(), next.string(), CompareOptions(), out), kExitOk);
  const std::string report = out.str();
  EXPECT_EQ(report.find("paired across device labels"), std::string::npos) << report;
  EXPECT_NE(report.find("| onnxruntime | conv2d | conv2d_w16 | 1 | vm-a | "), std::string::npos)
      << report;
  EXPECT_NE(
      report.find("## Only in base\n\n| compiler | experiment | model | batch | device | "
                  "status |\n|---|---|---|---|---|---|\n| onnxruntime | conv2d | conv2d_w16 | "
                  "1 | vm-b | ok |"),
      std::string::npos)
      << report;
  EXPECT_NE(report.find("## Only in new"), std::string::npos) << report;
}

// An offline run pairs with the offline run of the same streams, and a single-stream run with
// the single-stream run, though all four are of one model and batch size.
TEST_F(CompareFiles, OfflineRunsPairWithOfflineRuns) {
  const fs::path base = dir_ / "base", next = dir_ / "new";
  auto offline = [](ResultRow row) {  // as the worker writes one: samples/s over the window
    row.run_id += "_offline_s2";
    row.scenario = "offline";
    row.streams = 2;
    row.samples_per_s = 2 * 1e3 / *row.latency_p50_ms;
    row.throughput_median_sps.reset();
    row.throughput_mean_sps.reset();
    return row;
  };
  Write(base, Row("vm", "onnxruntime", "conv2d_w16", 1, Around(2.0)));
  Write(base, offline(Row("vm", "onnxruntime", "conv2d_w16", 1, Around(4.0))));
  Write(next, Row("vm", "onnxruntime", "conv2d_w16", 1, Around(2.0)));
  Write(next, offline(Row("vm", "onnxruntime", "conv2d_w16", 1, Around(4.0))));
  CompareOptions options;
  options.csv_path = (dir_ / "pairs.csv").string();
  std::ostringstream out;
  EXPECT_EQ(RunCompare(base.string(), next.string(), options, out), kExitOk);
  const std::string csv = ReadText(dir_ / "pairs.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;  // header + 2 pairs
  EXPECT_NE(csv.find(",conv2d_w16_b1,conv2d_w16_b1,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",conv2d_w16_b1_offline_s2,conv2d_w16_b1_offline_s2,"), std::string::npos)
      << csv;
  EXPECT_EQ(out.str().find("Only in"), std::string::npos) << out.str();
}

// A tree holds the fp32 and the int8 runs of a model side by side: each pairs with the run of
// its precision, never with the other's.
TEST_F(CompareFiles, EachPrecisionPairsWithItsOwn) {
  const fs::path base = dir_ / "base", next = dir_ / "new";
  auto int8 = [](ResultRow row) {
    row.run_id += "_int8";
    row.precision = "int8";
    return row;
  };
  Write(base, Row("vm", "onnxruntime", "conv2d_w16", 1, Around(2.0)));
  Write(base, int8(Row("vm", "onnxruntime", "conv2d_w16", 1, Around(1.0))));
  Write(next, Row("vm", "onnxruntime", "conv2d_w16", 1, Around(2.0)));
  Write(next, int8(Row("vm", "onnxruntime", "conv2d_w16", 1, Around(1.0))));
  CompareOptions options;
  options.csv_path = (dir_ / "pairs.csv").string();
  std::ostringstream out;
  EXPECT_EQ(RunCompare(base.string(), next.string(), options, out), kExitOk);
  const std::string csv = ReadText(dir_ / "pairs.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;  // header + 2 pairs
  EXPECT_NE(csv.find(",conv2d_w16_b1,conv2d_w16_b1,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",conv2d_w16_b1_int8,conv2d_w16_b1_int8,"), std::string::npos) << csv;
  EXPECT_EQ(out.str().find("Only in"), std::string::npos) << out.str();
}

TEST_F(CompareFiles, BadInputIsAnInputError) {
  Write(dir_ / "base", Row("vm-a", "onnxruntime", "conv2d_w16", 1, Around(2.0)));
  std::ostringstream out;
  const std::string missing = (dir_ / "nope").string();
  try {
    RunCompare((dir_ / "base").string(), missing, CompareOptions(), out);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  fs::create_directories(dir_ / "empty");
  EXPECT_THROW(
      RunCompare((dir_ / "base").string(), (dir_ / "empty").string(), CompareOptions(), out),
      InputError);
  CompareOptions bad;
  bad.alpha = 1.5;
  EXPECT_THROW(RunCompare((dir_ / "base").string(), (dir_ / "base").string(), bad, out),
               InputError);

  // The traces are not read: a malformed one beside the row changes nothing.
  std::ofstream(dir_ / "base" / "vm-a" / "onnxruntime" / "conv2d_w16_b1.latencies.csv")
      << "iteration,latency_ns\n0,abc\n";
  std::ostringstream same;
  EXPECT_EQ(RunCompare((dir_ / "base").string(), (dir_ / "base").string(), CompareOptions(),
                       same),
            kExitOk);
  EXPECT_NE(same.str().find("| 1.000 | 0.9"), std::string::npos) << same.str();
  EXPECT_NE(same.str().find(" | 1 | 5 / 5 | same (not significant) |"),
            std::string::npos)
      << same.str();
}

}  // namespace
}  // namespace ngraphbench
