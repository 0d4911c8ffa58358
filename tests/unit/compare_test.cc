// `ngraphbench compare`: the Mann-Whitney U test on hand-computed cases (p checked against
// scipy), the bootstrap interval of the ratio of medians, the classification, and the command end
// to end over two results trees and a zip.
#include "ngraphbench/analysis/compare.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ngraphbench/analysis/load.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/random.h"
#include "ngraphbench/measure/stats.h"
#include "ngraphbench/results/csv.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

// ---- Mann-Whitney U ----

// No overlap: U of x = 0; mu = 4.5, sigma^2 = 9/12 * 7 = 5.25, z = -(4.5 - 0.5) / sqrt(5.25).
TEST(MannWhitneyU, SeparatedSamplesByHand) {
  const MannWhitneyResult r = MannWhitneyU({1, 2, 3}, {4, 5, 6});
  EXPECT_DOUBLE_EQ(r.u, 0);
  EXPECT_NEAR(r.z, -4 / std::sqrt(5.25), 1e-12);
  // scipy.stats.mannwhitneyu([1,2,3], [4,5,6], method='asymptotic', use_continuity=True)
  EXPECT_NEAR(r.p, 0.08085559837005224, 1e-10);

  const MannWhitneyResult swapped = MannWhitneyU({4, 5, 6}, {1, 2, 3});
  EXPECT_DOUBLE_EQ(swapped.u, 9);
  EXPECT_NEAR(swapped.z, -r.z, 1e-12);
  EXPECT_NEAR(swapped.p, r.p, 1e-12);
}

// Ties: pooled 1 2 2 2 3 3 4 5 (x = 1 2 2 3) has midranks 1, 3, 3, 3, 5.5, 5.5, 7, 8; x's rank sum
// 12.5, U = 12.5 - 4*5/2 = 2.5 (x=2 ties y=2 twice: 2 * 0.5; x=3 beats y=2 and ties y=3: 1.5).
// Tie groups of 3 and 2: sum(t^3 - t) = 24 + 6 = 30, sigma^2 = 16/12 (9 - 30/56) = 11.2857...
TEST(MannWhitneyU, TiesByHand) {
  const MannWhitneyResult r = MannWhitneyU({1, 2, 2, 3}, {2, 3, 4, 5});
  EXPECT_DOUBLE_EQ(r.u, 2.5);
  const double sigma = std::sqrt(16.0 / 12 * (9 - 30.0 / 56));
  EXPECT_NEAR(r.z, -(8 - 2.5 - 0.5) / sigma, 1e-12);
  // scipy.stats.mannwhitneyu([1,2,2,3], [2,3,4,5], method='asymptotic', use_continuity=True)
  EXPECT_NEAR(r.p, 0.1366582477381475, 1e-10);
}

// n >= 10 with many ties, where the normal approximation is meant to be used.
TEST(MannWhitneyU, LargerSamplesMatchScipy) {
  const std::vector<double> x = {10, 11, 11, 12, 12, 12, 13, 14, 15, 15, 16, 20};
  const std::vector<double> y = {12, 13, 13, 14, 15, 16, 16, 17, 18, 18, 19, 21, 22, 25};
  const MannWhitneyResult r = MannWhitneyU(x, y);
  // scipy.stats.mannwhitneyu(x, y, method='asymptotic', use_continuity=True)
  EXPECT_DOUBLE_EQ(r.u, 33);
  EXPECT_NEAR(r.p, 0.009091037330038123, 1e-10);
  EXPECT_LT(r.z, 0);
}

TEST(MannWhitneyU, AllEqualIsNoEvidence) {
  const MannWhitneyResult r = MannWhitneyU({5, 5}, {5, 5, 5});
  EXPECT_DOUBLE_EQ(r.u, 3);
  EXPECT_DOUBLE_EQ(r.z, 0);
  EXPECT_DOUBLE_EQ(r.p, 1);
  EXPECT_THROW(MannWhitneyU({}, {1}), std::invalid_argument);
}

// ---- Bootstrap interval of the ratio of medians ----

std::vector<double> Draw(uint64_t seed, size_t n, double center, double rel_sd) {
  PortableRng rng(seed);
  std::vector<double> values;
  for (size_t i = 0; i < n; ++i) values.push_back(center * (1 + rel_sd * rng.Normal()));
  return values;
}

TEST(BootstrapRatioOfMedians, CoversTheTrueRatioAndIsReproducible) {
  const std::vector<double> before = Draw(1, 200, 10.0, 0.05);
  const std::vector<double> after = Draw(2, 150, 12.0, 0.05);
  const RatioInterval interval = BootstrapRatioOfMedians(before, after, 2000, 42);
  EXPECT_LT(interval.low, 1.2);
  EXPECT_GT(interval.high, 1.2);
  EXPECT_GT(interval.low, 1.1);  // a real interval, not everything
  EXPECT_LT(interval.high, 1.3);

  const RatioInterval again = BootstrapRatioOfMedians(before, after, 2000, 42);
  EXPECT_EQ(again.low, interval.low);
  EXPECT_EQ(again.high, interval.high);
  const RatioInterval other_seed = BootstrapRatioOfMedians(before, after, 2000, 43);
  EXPECT_NE(other_seed.low, interval.low);

  // The same distribution on both sides: the interval holds 1.
  const RatioInterval same = BootstrapRatioOfMedians(before, Draw(3, 200, 10.0, 0.05), 2000, 42);
  EXPECT_LT(same.low, 1);
  EXPECT_GT(same.high, 1);
}

// The counting shortcut equals resampling, sorting and taking Percentile(50), draw for draw.
TEST(BootstrapRatioOfMedians, MatchesNaiveResampling) {
  for (const auto& [before, after] :
       {std::pair<std::vector<double>, std::vector<double>>{{3, 1, 2, 2, 5}, {4, 2, 2, 9}},
        {{1, 3}, {2}},
        {{7, 1, 4, 4, 4, 2}, {5, 3, 8, 1, 1, 6, 2}}}) {
    const int resamples = 501;
    const uint64_t seed = 7;
    PortableRng rng(seed);
    std::vector<double> sorted_before = before, sorted_after = after;
    std::sort(sorted_before.begin(), sorted_before.end());
    std::sort(sorted_after.begin(), sorted_after.end());
    auto resampled_median = [&](const std::vector<double>& sorted) {
      std::vector<double> resample;
      for (size_t i = 0; i < sorted.size(); ++i) {
        resample.push_back(sorted[ResampleIndex(rng, sorted.size())]);
      }
      std::sort(resample.begin(), resample.end());
      return Percentile(resample, 50);
    };
    std::vector<double> ratios;
    for (int i = 0; i < resamples; ++i) {
      const double b = resampled_median(sorted_before);
      ratios.push_back(resampled_median(sorted_after) / b);
    }
    std::sort(ratios.begin(), ratios.end());
    const RatioInterval interval = BootstrapRatioOfMedians(before, after, resamples, seed);
    EXPECT_DOUBLE_EQ(interval.low, Percentile(ratios, 2.5));
    EXPECT_DOUBLE_EQ(interval.high, Percentile(ratios, 97.5));
  }
  const RatioInterval one = BootstrapRatioOfMedians({2}, {3}, 10, 1);
  EXPECT_DOUBLE_EQ(one.low, 1.5);
  EXPECT_DOUBLE_EQ(one.high, 1.5);
  EXPECT_THROW(BootstrapRatioOfMedians({}, {1}, 10, 1), std::invalid_argument);
}

TEST(ResampleIndex, UniformOverTheRange) {
  PortableRng rng(5);
  std::vector<int> counts(7);
  for (int i = 0; i < 70000; ++i) ++counts.at(ResampleIndex(rng, 7));
  for (int c : counts) EXPECT_NEAR(c, 10000, 400);
  PortableRng one(5);
  EXPECT_EQ(ResampleIndex(one, 1), 0u);
}

// ---- Classification ----

TEST(Classify, AllThreeConditions) {
  EXPECT_EQ(Classify(1.2, {1.1, 1.3}, 0.001, 0.05, 0.05), Change::kSlower);
  EXPECT_EQ(Classify(0.8, {0.7, 0.9}, 0.001, 0.05, 0.05), Change::kFaster);
  EXPECT_EQ(Classify(1.2, {1.1, 1.3}, 0.2, 0.05, 0.05), Change::kSame);       // p too large
  EXPECT_EQ(Classify(1.2, {0.95, 1.3}, 0.001, 0.05, 0.05), Change::kSame);    // interval holds 1
  EXPECT_EQ(Classify(1.03, {1.02, 1.04}, 0.001, 0.05, 0.05), Change::kSame);  // below threshold
  EXPECT_EQ(Classify(1.03, {1.02, 1.04}, 0.001, 0.05, 0.02), Change::kSlower);
  EXPECT_EQ(Classify(1.2, {1.1, 1.3}, 0.03, 0.01, 0.05), Change::kSame);  // --alpha 0.01
  EXPECT_FALSE(IsSignificant(0.001, {0.9, 1.1}, 0.05));
  EXPECT_TRUE(IsSignificant(0.001, {0.8, 0.9}, 0.05));
  EXPECT_STREQ(ChangeName(Change::kSlower), "slower");
  EXPECT_STREQ(ChangeName(Change::kSame), "same");
}

// ---- The command over files ----

class CompareFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("ngb_compare_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  static ResultRow Row(const std::string& device, const std::string& compiler,
                       const std::string& model, int64_t batch,
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
      row.throughput_median_sps = 1000;
      row.valid = true;
    } else {
      row.error = "worker died with signal 11";
    }
    return row;
  }

  // 100 latencies around `median_ms` with 2% noise, as a trace writes them (integer ns).
  static std::vector<int64_t> Latencies(uint64_t seed, double median_ms) {
    std::vector<int64_t> ns;
    for (double v : Draw(seed, 100, median_ms * 1e6, 0.02)) ns.push_back(std::llround(v));
    return ns;
  }

  static void Write(const fs::path& results, const ResultRow& row,
                    const std::vector<int64_t>& latencies_ns) {
    const std::string dir = (results / row.device / row.compiler).string();
    WriteRow(RowPath(dir, row.run_id), row);
    if (!latencies_ns.empty()) WriteLatencies(LatenciesPath(dir, row.run_id), latencies_ns);
  }

  // BASE on device vm-a, NEW on vm-b:
  //   onnxruntime conv2d_w16 b1: 20% slower in NEW             -> slower
  //   onnxruntime conv2d_w16 b8: the same distribution         -> same
  //   onnxruntime conv2d_w32 b1: BASE only
  //   onnxruntime conv2d_w64 b1: NEW crashed                   -> not compared
  //   identity    conv2d_w16 b1: 20% faster, NEW marked invalid -> faster, out of the summary
  //   identity    conv2d_w16 b8: NEW only
  void WriteTrees() {
    const fs::path base = root_ / "base" / "results", next = root_ / "new" / "results";
    Write(base, Row("vm-a", "onnxruntime", "conv2d_w16", 1), Latencies(1, 2.0));
    Write(next, Row("vm-b", "onnxruntime", "conv2d_w16", 1), Latencies(2, 2.4));
    Write(base, Row("vm-a", "onnxruntime", "conv2d_w16", 8), Latencies(3, 10.0));
    Write(next, Row("vm-b", "onnxruntime", "conv2d_w16", 8), Latencies(4, 10.0));
    Write(base, Row("vm-a", "onnxruntime", "conv2d_w32", 1), Latencies(5, 3.0));
    Write(base, Row("vm-a", "onnxruntime", "conv2d_w64", 1), Latencies(6, 5.0));
    Write(next, Row("vm-b", "onnxruntime", "conv2d_w64", 1, kStatusCrashed), {});
    Write(base, Row("vm-a", "identity", "conv2d_w16", 1), Latencies(7, 4.0));
    ResultRow invalid = Row("vm-b", "identity", "conv2d_w16", 1);
    invalid.valid = false;
    invalid.invalid_reason = "cv 0.3 > 0.25";
    Write(next, invalid, Latencies(8, 3.2));
    Write(next, Row("vm-b", "identity", "conv2d_w16", 8), Latencies(9, 4.0));
  }

  static std::string ReadText(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  // Zips every file under `dir` as "results/<relative path>".
  static void Zip(const fs::path& dir, const fs::path& archive) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
    int error = 0;
    zip_t* zip = zip_open(archive.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
    ASSERT_NE(zip, nullptr) << "zip_open error " << error;
    std::vector<std::string> contents;
    contents.reserve(files.size());  // zip_close reads the buffers: they must not move
    for (const fs::path& file : files) {
      contents.push_back(ReadText(file));
      zip_source_t* source =
          zip_source_buffer(zip, contents.back().data(), contents.back().size(), 0);
      ASSERT_NE(source, nullptr);
      const std::string name = "results/" + fs::relative(file, dir).generic_string();
      ASSERT_GE(zip_file_add(zip, name.c_str(), source, ZIP_FL_ENC_UTF_8), 0) << zip_strerror(zip);
    }
    ASSERT_EQ(zip_close(zip), 0);
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

  fs::path root_;
};

TEST_F(CompareFiles, FlagsTheSlowdownAndListsTheRest) {
  WriteTrees();
  CompareOptions options;
  options.csv_path = (root_ / "pairs.csv").string();
  std::ostringstream out;
  EXPECT_EQ(RunCompare((root_ / "base").string(), (root_ / "new").string(), options, out), kExitOk);
  const std::string report = out.str();

  const std::string csv = ReadText(root_ / "pairs.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "compiler,experiment,model,batch_size,base_device,new_device,base_run_id,new_run_id,"
            "base_n,new_n,base_median_ms,new_median_ms,ratio,ratio_ci_low,ratio_ci_high,mwu_u,"
            "mwu_z,p_value,significant,change,invalid,invalid_reason,in_summary,note");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4);  // header + 3 compared pairs
  const size_t change = Column(csv, "change"), ratio = Column(csv, "ratio"),
               p = Column(csv, "p_value"), low = Column(csv, "ratio_ci_low"),
               high = Column(csv, "ratio_ci_high"), invalid = Column(csv, "invalid"),
               in_summary = Column(csv, "in_summary"), new_device = Column(csv, "new_device");

  const std::vector<std::string> slower = CsvPair(csv, "onnxruntime", "conv2d_w16", 1);
  ASSERT_FALSE(slower.empty());
  EXPECT_EQ(slower[change], "slower");
  EXPECT_NEAR(std::stod(slower[ratio]), 1.2, 0.02);
  EXPECT_LT(std::stod(slower[low]), 1.2);
  EXPECT_GT(std::stod(slower[high]), 1.2);
  EXPECT_LT(std::stod(slower[p]), 1e-10);
  EXPECT_EQ(slower[new_device], "vm-b");

  const std::vector<std::string> same = CsvPair(csv, "onnxruntime", "conv2d_w16", 8);
  ASSERT_FALSE(same.empty());
  EXPECT_EQ(same[change], "same");
  EXPECT_NEAR(std::stod(same[ratio]), 1.0, 0.02);

  const std::vector<std::string> faster = CsvPair(csv, "identity", "conv2d_w16", 1);
  ASSERT_FALSE(faster.empty());
  EXPECT_EQ(faster[change], "faster");
  EXPECT_EQ(faster[invalid], "true");
  EXPECT_EQ(faster[in_summary], "false");

  // The report: pairing across labels, the not-significant wording, the invalid pair, the runs
  // on one side only and the crashed pair.
  EXPECT_NE(report.find("paired across device labels (each side holds one): base `vm-a` with "
                        "new `vm-b`"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("same (not significant)"), std::string::npos) << report;
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
  // Summary: identity's only pair is invalid, so it is left out; onnxruntime has one of each.
  EXPECT_NE(report.find("| identity | conv2d | 0 |  | 0 | 0 | 0 | 1 |"), std::string::npos)
      << report;
  EXPECT_NE(report.find("| onnxruntime | conv2d | 2 |"), std::string::npos) << report;
  EXPECT_NE(report.find("| 1 | 0 | 1 | 0 |"), std::string::npos) << report;
  EXPECT_NE(report.find("1 significant slowdown(s) beyond 5%:\n- onnxruntime conv2d conv2d_w16 b1"),
            std::string::npos)
      << report;

  // --fail-on-regression: exit 1 for the slowdown, and the output is reproducible.
  options.fail_on_regression = true;
  std::ostringstream again;
  EXPECT_EQ(RunCompare((root_ / "base").string(), (root_ / "new").string(), options, again),
            kExitRunsFailed);
  EXPECT_EQ(again.str(), report);
  EXPECT_EQ(ReadText(root_ / "pairs.csv"), csv);

  // --include-invalid: the invalid pair enters the summary as faster.
  options.invalid_runs = InvalidRuns::kInclude;
  std::ostringstream included;
  RunCompare((root_ / "base").string(), (root_ / "new").string(), options, included);
  const std::string text = included.str();
  const size_t identity = text.find("| identity | conv2d | 1 | 0.");
  ASSERT_NE(identity, std::string::npos) << text;
  const std::string line = text.substr(identity, text.find('\n', identity) - identity);
  const std::string counts = "| 0 | 1 | 0 | 0 |";  // slower, faster, same, left out
  EXPECT_EQ(line.substr(line.size() - counts.size()), counts) << line;

  // A threshold above the slowdown: nothing fails.
  options.threshold = 0.25;
  std::ostringstream lenient;
  EXPECT_EQ(RunCompare((root_ / "base").string(), (root_ / "new").string(), options, lenient),
            kExitOk);
  EXPECT_NE(lenient.str().find("same (within ±25%)"), std::string::npos) << lenient.str();
}

// A zip holds the same runs and traces: the same pairs, the same numbers.
TEST_F(CompareFiles, ZipGivesTheSameNumbers) {
  WriteTrees();
  Zip(root_ / "base" / "results", root_ / "base.zip");
  CompareOptions options;
  options.csv_path = (root_ / "from_dir.csv").string();
  std::ostringstream from_dir, from_zip;
  RunCompare((root_ / "base").string(), (root_ / "new").string(), options, from_dir);
  options.csv_path = (root_ / "from_zip.csv").string();
  options.fail_on_regression = true;
  EXPECT_EQ(RunCompare((root_ / "base.zip").string(), (root_ / "new").string(), options, from_zip),
            kExitRunsFailed);
  EXPECT_EQ(ReadText(root_ / "from_zip.csv"), ReadText(root_ / "from_dir.csv"));

  // ReadRunLatencies reads the entry beside the row, and tells a missing trace apart.
  const std::vector<LoadedRun> runs = LoadRuns((root_ / "base.zip").string());
  ASSERT_FALSE(runs.empty());
  const std::optional<std::vector<int64_t>> ns = ReadRunLatencies(runs[0]);
  ASSERT_TRUE(ns);
  EXPECT_EQ(ns->size(), 100u);
  LoadedRun missing = runs[0];
  missing.trace = "results/vm-a/nope.latencies.csv";
  EXPECT_FALSE(ReadRunLatencies(missing));
}

// Several device labels on a side: the label is part of the key, and runs of another device do
// not pair up.
TEST_F(CompareFiles, SeveralLabelsPairByLabel) {
  const fs::path base = root_ / "base", next = root_ / "new";
  Write(base, Row("vm-a", "onnxruntime", "conv2d_w16", 1), Latencies(1, 2.0));
  Write(base, Row("vm-b", "onnxruntime", "conv2d_w16", 1), Latencies(2, 2.0));
  Write(next, Row("vm-a", "onnxruntime", "conv2d_w16", 1), Latencies(3, 2.0));
  Write(next, Row("vm-c", "onnxruntime", "conv2d_w16", 1), Latencies(4, 2.0));
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

TEST_F(CompareFiles, BadInputIsAnInputError) {
  Write(root_ / "base", Row("vm-a", "onnxruntime", "conv2d_w16", 1), Latencies(1, 2.0));
  std::ostringstream out;
  const std::string missing = (root_ / "nope").string();
  try {
    RunCompare((root_ / "base").string(), missing, CompareOptions(), out);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  fs::create_directories(root_ / "empty");
  EXPECT_THROW(
      RunCompare((root_ / "base").string(), (root_ / "empty").string(), CompareOptions(), out),
      InputError);
  CompareOptions bad;
  bad.alpha = 1.5;
  EXPECT_THROW(RunCompare((root_ / "base").string(), (root_ / "base").string(), bad, out),
               InputError);

  // A malformed trace names itself.
  std::ofstream(root_ / "base" / "vm-a" / "onnxruntime" / "conv2d_w16_b1.latencies.csv")
      << "iteration,latency_ns\n0,abc\n";
  try {
    RunCompare((root_ / "base").string(), (root_ / "base").string(), CompareOptions(), out);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("conv2d_w16_b1.latencies.csv"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ngraphbench
