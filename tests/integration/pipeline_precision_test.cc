// End to end through the real scheduler and worker (part of pipeline_test): the output check
// (wrong outputs end as wrong rows), int8 rows judged by cosine and SNR, and int8 beside fp32 in
// one tree.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
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

TEST_F(Pipeline, WrongOutputsEndAsWrongRowsAndTheCheckCanBeTurnedOff) {
  WriteNull("  perturb_ppm: 1000\n");
  const Result wrong = Ngb("run tiny null --quick " + Common());
  EXPECT_EQ(wrong.code, 1) << wrong.output;
  const ResultRow row = Row("tiny_w8_b1");
  EXPECT_EQ(row.status, "wrong");
  EXPECT_EQ(row.check_reference, "null");
  EXPECT_NEAR(*row.check_max_rel_err, 1e-3, 1e-7);
  EXPECT_NEAR(*row.check_max_abs_err, 1e-3, 1e-7);
  EXPECT_EQ(*row.check_tolerance, 1e-4);
  EXPECT_NE(row.error.find("max rel err 0.001 > tolerance 0.0001 (fp32)"), std::string::npos)
      << row.error;
  EXPECT_TRUE(row.latency_p50_ms.has_value());  // measured all the same: nothing is hidden

  // A tolerance the perturbation fits in: ok. The reference came from the cache.
  extra_defaults_ = "  check_tolerance: {fp32: 0.01}\n";
  WriteExperiments(20, 5);
  ASSERT_EQ(Ngb("run tiny null --quick --replace-changed " + Common()).code, 0);
  EXPECT_EQ(Row("tiny_w8_b1").status, "ok");

  extra_defaults_ = "  check: off\n";
  WriteExperiments(20, 5);
  ASSERT_EQ(Ngb("run tiny null --quick --replace-changed " + Common()).code, 0);
  EXPECT_EQ(Row("tiny_w8_b1").status, "ok");
  EXPECT_EQ(Row("tiny_w8_b1").check_reference, "off");
  EXPECT_FALSE(Row("tiny_w8_b1").check_max_rel_err.has_value());
}

// An int8 row is judged by cosine and SNR against the fp32 reference, not by a tolerance:
// identical outputs are ok (cosine 1, SNR infinite, read back as written); outputs that are not
// the reference's (the reference is zeros, the perturbed outputs are not) are wrong with both
// figures in the error.
TEST_F(Pipeline, Int8RowsAreJudgedByCosineAndSnr) {
  ASSERT_EQ(Ngb("run tiny null --quick --set precision=int8 " + Common()).code, 0);
  ResultRow row = Row("tiny_w8_b1_int8");
  EXPECT_EQ(row.status, "ok") << row.error;
  EXPECT_EQ(row.precision, "int8");
  EXPECT_EQ(*row.check_cosine, 1.0);
  EXPECT_TRUE(std::isinf(*row.check_snr_db) && *row.check_snr_db > 0);
  EXPECT_FALSE(row.check_tolerance.has_value());

  WriteNull("  perturb_ppm: 1000\n");
  const Result wrong =
      Ngb("run tiny null --quick --replace-changed --set precision=int8 " + Common());
  EXPECT_EQ(wrong.code, 1) << wrong.output;
  row = Row("tiny_w8_b1_int8");
  EXPECT_EQ(row.status, "wrong");
  EXPECT_EQ(*row.check_cosine, 0.0);
  EXPECT_NE(row.error.find("int8 outputs differ from null's fp32 outputs: cosine 0.0000 (bound "
                           ">= 0.99), SNR -inf dB (bound >= 20 dB)"),
            std::string::npos)
      << row.error;
}

// The int8 runs and the fp32 runs of one experiment (widths 8 and 16), in two trees, analyzed
// together: precision_speedup.csv pairs each int8 run with its fp32 run, with the speedup and
// the output check's figures, and analyze prints them.
TEST_F(Pipeline, Int8AndFp32TreesAreAnalyzedTogether) {
  ASSERT_EQ(Ngb("run tiny null --quick " + Common()).code, 0);
  const fs::path int8 = dir_ / "results_int8";
  ASSERT_EQ(Ngb("run tiny null --quick --set precision=int8 --configs " +
                (dir_ / "configs").string() + " --results " + int8.string())
                .code,
            0);
  const Result analyze = Ngb("analyze " + (dir_ / "results").string() + " " + int8.string() +
                             " -o " + (dir_ / "analysis").string() + " --include-invalid");
  ASSERT_EQ(analyze.code, 0) << analyze.output;
  EXPECT_NE(analyze.output.find("precision_speedup.csv (2)"), std::string::npos)
      << analyze.output;
  EXPECT_NE(analyze.output.find("speedup over the same compiler's fp32 run"), std::string::npos)
      << analyze.output;
  std::ifstream csv(dir_ / "analysis" / "precision_speedup.csv");
  std::string header, line, w16, more;
  std::getline(csv, header);
  ASSERT_TRUE(std::getline(csv, line));
  ASSERT_TRUE(std::getline(csv, w16));
  EXPECT_EQ(w16.rfind("local,tiny,null,int8,tiny_w16,", 0), 0u) << w16;
  EXPECT_FALSE(std::getline(csv, more)) << more;
  EXPECT_EQ(line.rfind("local,tiny,null,int8,tiny_w8,", 0), 0u) << line;
  // The cells by column name (no cell here is quoted: none holds a comma).
  auto cells = [](const std::string& text) {
    std::vector<std::string> out(1);
    for (char c : text) {
      if (c == ',') {
        out.emplace_back();
      } else {
        out.back().push_back(c);
      }
    }
    return out;
  };
  const std::vector<std::string> names = cells(header), values = cells(line);
  ASSERT_EQ(names.size(), values.size()) << line;
  std::map<std::string, std::string> cell;
  for (size_t i = 0; i < names.size(); ++i) cell[names[i]] = values[i];
  const ResultRow fp32 = Row("tiny_w8_b1");
  const ResultRow quantized =
      ReadRow(RowPath((int8 / "local" / "null").string(), "tiny_w8_b1_int8"));
  EXPECT_NEAR(std::stod(cell["speedup_vs_fp32"]),
              *quantized.throughput_median_sps / *fp32.throughput_median_sps, 1e-6);
  EXPECT_NEAR(std::stod(cell["fp32_latency_p50_ms"]), *fp32.latency_p50_ms, 1e-9);
  EXPECT_EQ(cell["check_cosine"], "1");
  EXPECT_EQ(cell["check_snr_db"], "inf");
  // Two calls, one after the other: their processes are not paired.
  EXPECT_EQ(cell["note"], "interval unpaired: the fp32 run and this run were not measured pass "
                          "by pass")
      << line;
}

// The fp32 and the int8 runs of one experiment in ONE tree: run ids carry the precision when it
// is not fp32, so both rows stand side by side (nothing to replace), resume each on its own, see
// the same inputs (the same cached reference: one entry per run), and analyze pairs them.
TEST_F(Pipeline, Fp32AndInt8RunsShareOneTree) {
  ASSERT_EQ(Ngb("run tiny null --quick " + Common()).code, 0);
  const Result int8 = Ngb("run tiny null --quick --set precision=int8 " + Common());
  ASSERT_EQ(int8.code, 0) << int8.output;
  EXPECT_EQ(Rows(), (std::set<std::string>{"tiny_w16_b1", "tiny_w16_b1_int8", "tiny_w8_b1",
                                           "tiny_w8_b1_int8"}));
  EXPECT_EQ(Row("tiny_w8_b1").precision, "fp32");
  EXPECT_EQ(Row("tiny_w8_b1_int8").precision, "int8");
  EXPECT_EQ(Row("tiny_w8_b1_int8").run_id, "tiny_w8_b1_int8");
  EXPECT_EQ(Row("tiny_w8_b1_int8").model, Row("tiny_w8_b1").model);
  // The int8 run checked against the reference the fp32 run cached: one entry per model.
  size_t references = 0;
  for (const auto& e : fs::directory_iterator(dir_ / "results" / ".cache" / "reference")) {
    references += e.path().filename().string().rfind("tiny_w8_b1.", 0) == 0;
  }
  EXPECT_EQ(references, 1u);
  EXPECT_EQ(*Row("tiny_w8_b1_int8").check_cosine, 1.0);
  // Both resume: nothing left to measure at either precision.
  const Result again = Ngb("run tiny null --quick --set precision=int8 " + Common());
  EXPECT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find("2 runs, 0 to run, 2 kept"), std::string::npos) << again.output;
  // --runs and expand speak the same ids.
  const Result expand =
      Ngb("expand tiny --quick --set precision=int8 --configs " + (dir_ / "configs").string());
  EXPECT_EQ(expand.output, "tiny_w8_b1_int8\ntiny_w16_b1_int8\n");
  const Result named = Ngb("run tiny null --quick --set precision=int8 --runs tiny_w8_b1 " +
                           Common());
  EXPECT_EQ(named.code, 2) << named.output;
  EXPECT_NE(named.output.find("'tiny_w8_b1' (at this precision: 'tiny_w8_b1_int8'); `ngraphbench "
                              "expand tiny --quick --compiler null --set precision=int8` lists"),
            std::string::npos)
      << named.output;

  const Result analyze = Ngb("analyze " + (dir_ / "results").string() + " -o " +
                             (dir_ / "analysis").string() + " --include-invalid");
  ASSERT_EQ(analyze.code, 0) << analyze.output;
  EXPECT_NE(analyze.output.find("precision_speedup.csv (2)"), std::string::npos)
      << analyze.output;
  std::ifstream csv(dir_ / "analysis" / "precision_speedup.csv");
  std::string header, w8, w16, more;
  std::getline(csv, header);
  ASSERT_TRUE(std::getline(csv, w8));
  ASSERT_TRUE(std::getline(csv, w16));
  EXPECT_EQ(w8.rfind("local,tiny,null,int8,tiny_w8,", 0), 0u) << w8;
  EXPECT_EQ(w16.rfind("local,tiny,null,int8,tiny_w16,", 0), 0u) << w16;
  EXPECT_FALSE(std::getline(csv, more)) << more;
}

// An int8 row under the bare id (as versions before run ids carried the precision wrote it): a
// new int8 run into that tree is refused before anything is written, naming the row.
TEST_F(Pipeline, Int8RowsUnderTheBareIdAreRefusedByName) {
  ASSERT_EQ(Ngb("run tiny null --quick --set precision=int8 --runs tiny_w8_b1_int8 " + Common())
                .code,
            0);
  {  // the row as such a version wrote it: its run_id cell the bare id
    std::ifstream in(RunDir() / "tiny_w8_b1_int8.csv");
    std::stringstream text;
    text << in.rdbuf();
    std::string row = text.str();
    const size_t at = row.find("\n13,tiny_w8_b1_int8,");
    ASSERT_NE(at, std::string::npos) << row;
    row.replace(at, 20, "\n13,tiny_w8_b1,");
    std::ofstream(RunDir() / "tiny_w8_b1.csv") << row;
    fs::remove(RunDir() / "tiny_w8_b1_int8.csv");
  }
  fs::rename(RunDir() / "tiny_w8_b1_int8.latencies.csv", RunDir() / "tiny_w8_b1.latencies.csv");
  const auto before = Snapshot(dir_ / "results");
  const Result refused = Ngb("run tiny null --quick --set precision=int8 " + Common());
  EXPECT_EQ(refused.code, 2) << refused.output;
  EXPECT_NE(refused.output.find("1 row(s) of precision int8 sit under run ids without the "
                                "precision"),
            std::string::npos)
      << refused.output;
  EXPECT_NE(refused.output.find("tiny_w8_b1.csv"), std::string::npos) << refused.output;
  EXPECT_EQ(Snapshot(dir_ / "results"), before);
}

}  // namespace
}  // namespace ngraphbench
