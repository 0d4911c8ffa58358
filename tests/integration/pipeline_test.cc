// End to end through the real scheduler and worker processes, with the `null` compiler: sweeps,
// resume, the rows' verdicts, crashes, kill -9 and SIGINT (the fixture: pipeline_fixture.h).
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

TEST_F(Pipeline, OneOkRowPerExpandedRunAndResumeRunsNothing) {
  const Result expand = Ngb("expand tiny --configs " + (root_ / "configs").string());
  ASSERT_EQ(expand.code, 0) << expand.output;
  EXPECT_EQ(expand.output, "tiny_w8_b1\ntiny_w8_b2\ntiny_w8_b4\ntiny_w16_b1\ntiny_w16_b2\ntiny_w16_b4\n");

  const Result first = Ngb("run tiny null " + Common());
  ASSERT_EQ(first.code, 0) << first.output;
  for (const std::string id : {"tiny_w8_b1", "tiny_w8_b2", "tiny_w8_b4", "tiny_w16_b1",
                               "tiny_w16_b2", "tiny_w16_b4"}) {
    const ResultRow row = Row(id);
    EXPECT_EQ(row.status, "ok") << row.error;
    EXPECT_EQ(row.run_id, id);
    EXPECT_EQ(row.repeats, 5);
    EXPECT_EQ(ReadLatencies(LatenciesPath(RunDir(), id)).size(), 5u);
    EXPECT_GT(*row.latency_p50_ms, 0.0);
    EXPECT_GE(*row.latency_p99_ms, *row.latency_p50_ms);
    EXPECT_GT(*row.rss_peak_mb, 0.0);
    // A CPU run: the GPU columns stay empty, with nothing about a GPU in the notes.
    EXPECT_FALSE(row.gpu_util_pct.has_value());
    EXPECT_FALSE(row.gpu_mem_mb.has_value());
    EXPECT_FALSE(row.gpu_power_w.has_value());
    EXPECT_FALSE(row.gpu_energy_j.has_value());
    EXPECT_EQ(row.notes.find("gpu"), std::string::npos) << row.notes;
    EXPECT_EQ(row.compiler_version, "null 1");
  }
  EXPECT_EQ(Row("tiny_w16_b4").params, 16 * 16 + 16);
  EXPECT_EQ(Row("tiny_w16_b4").input_shape, "4x16");
  EXPECT_EQ(CountFiles(".csv"), 12u);  // 6 rows + 6 traces

  const auto before = Snapshot(root_ / "results");
  const auto start = std::chrono::steady_clock::now();
  const Result again = Ngb("run tiny null " + Common());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find("6 runs, 0 to run, 6 kept"), std::string::npos) << again.output;
  EXPECT_EQ(Snapshot(root_ / "results"), before);
  EXPECT_LT(seconds, 5.0);
}

// A GPU compiler or device on a machine that cannot run it: `skipped` rows naming the reason,
// exit code 0, no worker per run, analyze leaves them out, and resume asks again.
TEST_F(Pipeline, GpuRunsWithoutAGpuAreSkippedWithTheReason) {
  NGB_REQUIRE_BUILT("tensorrt");
  NGB_REQUIRE_BUILT("identity");
  if (fs::exists("/dev/nvidia0")) GTEST_SKIP() << "this machine has a GPU";
  const auto rows_of = [&](const std::string& compiler) {
    std::vector<ResultRow> rows;
    for (const std::string id : {"tiny_w8_b1", "tiny_w16_b1"}) {
      rows.push_back(ReadRow(RowPath(root_ / "results" / "local" / compiler, id)));
    }
    return rows;
  };
  const Result trt = Ngb("run tiny tensorrt --quick " + Common());
  EXPECT_EQ(trt.code, 0) << trt.output;
  EXPECT_NE(trt.output.find("done: 2 runs, 0 not ok, 0 measured now ok but invalid, 2 skipped "
                            "(this machine cannot run them: tensorrt: "),
            std::string::npos)
      << trt.output;
  EXPECT_EQ(trt.output.find("reproduce:"), std::string::npos) << trt.output;
  for (const ResultRow& row : rows_of("tensorrt")) {
    EXPECT_EQ(row.status, "skipped");
    EXPECT_EQ(row.error.rfind("tensorrt: ", 0), 0u) << row.error;
    EXPECT_EQ(row.compute_device, "cuda");
    EXPECT_NE(row.compiler_version.find("via onnxruntime TensorRT EP"), std::string::npos)
        << row.compiler_version;
    EXPECT_FALSE(row.latency_p50_ms.has_value());
    EXPECT_FALSE(row.gpu_util_pct.has_value());
    EXPECT_FALSE(row.gpu_mem_mb.has_value());
  }

  std::ofstream(root_ / "configs" / "identity.yaml") << "device: cuda\nthreads: 1\n";
  const Result identity = Ngb("run tiny identity --quick " + Common());
  EXPECT_EQ(identity.code, 0) << identity.output;
  for (const ResultRow& row : rows_of("identity")) {
    EXPECT_EQ(row.status, "skipped");
    EXPECT_NE(row.error.find("device 'cuda'"), std::string::npos) << row.error;
  }

  // A worker started on its own (a reproduce line) writes the same kind of row.
  fs::remove(RowPath(root_ / "results" / "local" / "identity", "tiny_w8_b1"));
  const Result worker = Ngb("worker tiny identity tiny_w8_b1 " + Common());
  EXPECT_EQ(worker.code, 0) << worker.output;
  EXPECT_EQ(rows_of("identity")[0].status, "skipped") << worker.output;
  EXPECT_NE(worker.output.find("skipped: identity: device 'cuda'"), std::string::npos)
      << worker.output;

  // Resume: skipped rows are not results; the next sweep asks the machine again.
  const Result again = Ngb("run tiny tensorrt --quick " + Common());
  EXPECT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find("2 runs, 2 to run, 0 kept"), std::string::npos) << again.output;

  // Analyze next to ok rows: the skipped ones are neither results nor failures.
  ASSERT_EQ(Ngb("run tiny null --quick " + Common()).code, 0);
  const Result analyze = Ngb("analyze " + (root_ / "results").string() + " -o " +
                             (root_ / "analysis").string());
  EXPECT_EQ(analyze.code, 0) << analyze.output;
  EXPECT_NE(analyze.output.find("analyze: 2 runs (2 ok) from 1 input(s); 4 skipped run(s) left "
                                "out;"),
            std::string::npos)
      << analyze.output;
  std::ifstream failures(root_ / "analysis" / "failures.csv");
  std::string header, line;
  std::getline(failures, header);
  EXPECT_FALSE(std::getline(failures, line)) << line;
}

TEST_F(Pipeline, CrashHangAndFailureEachLeaveARowAndTheSweepCompletes) {
  WriteNull("  crash_batch: 2\n  hang_batch: 4\n  fail_batch: 1\n");
  const Result r = Ngb("run tiny null --timeout 2 " + Common());
  EXPECT_EQ(r.code, 1) << r.output;  // completed, but not every run is ok
  EXPECT_NE(r.output.find("done: 6 runs, 6 not ok"), std::string::npos) << r.output;
  for (const std::string w : {"8", "16"}) {
    const ResultRow failed = Row("tiny_w" + w + "_b1");
    EXPECT_EQ(failed.status, "error");
    EXPECT_NE(failed.error.find("asked to fail at batch size 1"), std::string::npos);
    const ResultRow crashed = Row("tiny_w" + w + "_b2");
    EXPECT_EQ(crashed.status, "crashed");
    EXPECT_NE(crashed.error.find("signal 6"), std::string::npos) << crashed.error;
    EXPECT_EQ(crashed.batch_size, 2);
    const ResultRow hung = Row("tiny_w" + w + "_b4");
    EXPECT_EQ(hung.status, "timeout");
    EXPECT_NE(hung.error.find("timeout of 2 s"), std::string::npos) << hung.error;
    EXPECT_FALSE(hung.latency_p50_ms.has_value());
  }
  EXPECT_NE(r.output.find("reproduce: "), std::string::npos);

  // Resume keeps failed rows; --retry-failed reruns them (with the same settings they fail
  // again); once the cause is gone the settings differ, and --replace-changed measures anew.
  const Result resume = Ngb("run tiny null --timeout 2 " + Common());
  EXPECT_NE(resume.output.find("0 to run, 6 kept (0 ok, 6 failed"), std::string::npos)
      << resume.output;
  const Result retry = Ngb("run tiny null --timeout 2 --retry-failed " + Common());
  EXPECT_EQ(retry.code, 1) << retry.output;
  EXPECT_NE(retry.output.find("6 to run"), std::string::npos) << retry.output;
  WriteNull("");
  const Result fixed = Ngb("run tiny null --replace-changed " + Common());
  EXPECT_EQ(fixed.code, 0) << fixed.output;
  EXPECT_EQ(Row("tiny_w8_b4").status, "ok");
  EXPECT_EQ(Row("tiny_w16_b2").status, "ok");
}

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
  const auto before = Snapshot(root_ / "results");

  const Result again = Ngb("run tiny null " + Common());
  EXPECT_EQ(again.code, 2) << again.output;
  EXPECT_NE(again.output.find("2 of the 6 runs already have rows in"), std::string::npos)
      << again.output;
  EXPECT_NE(again.output.find("that cannot be resumed (2 unreadable)"), std::string::npos)
      << again.output;
  EXPECT_NE(again.output.find("tiny_w8_b1: unreadable: "), std::string::npos) << again.output;
  EXPECT_NE(again.output.find("tiny_w16_b1: unreadable: "), std::string::npos) << again.output;
  EXPECT_EQ(Snapshot(root_ / "results"), before);

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
  const auto before = Snapshot(root_ / "results");

  // The full grid would silently keep the two --quick rows: it stops and lists them.
  const Result full = Ngb("run tiny null " + Common());
  EXPECT_EQ(full.code, 2) << full.output;
  EXPECT_NE(full.output.find("2 of the 6 runs already have rows in"), std::string::npos)
      << full.output;
  EXPECT_NE(full.output.find("tiny_w8_b1: quick true -> false"), std::string::npos) << full.output;
  EXPECT_NE(full.output.find("tiny_w16_b1: quick true -> false"), std::string::npos);
  EXPECT_NE(full.output.find("--replace-changed"), std::string::npos);
  EXPECT_EQ(Snapshot(root_ / "results"), before);

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
  std::ofstream(root_ / "configs" / "null.yaml") << "threads: 1\n";
  ASSERT_EQ(Ngb("run tiny null --replace-changed " + Common()).code, 0);
  std::ofstream(root_ / "configs" / "null.yaml") << "threads: 3\n";
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

  // A failed run's reproduce line carries the settings: pasted, it fails the same way.
  const Result failed =
      Ngb("run tiny null --quick --set options.fail_batch=1 --results " +
          (root_ / "other").string() + " --configs " + (root_ / "configs").string());
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
  const fs::path int8 = root_ / "results_int8";
  ASSERT_EQ(Ngb("run tiny null --quick --set precision=int8 --configs " +
                (root_ / "configs").string() + " --results " + int8.string())
                .code,
            0);
  const Result analyze = Ngb("analyze " + (root_ / "results").string() + " " + int8.string() +
                             " -o " + (root_ / "analysis").string() + " --include-invalid");
  ASSERT_EQ(analyze.code, 0) << analyze.output;
  EXPECT_NE(analyze.output.find("precision_speedup.csv (2)"), std::string::npos)
      << analyze.output;
  EXPECT_NE(analyze.output.find("speedup over the same compiler's fp32 run"), std::string::npos)
      << analyze.output;
  std::ifstream csv(root_ / "analysis" / "precision_speedup.csv");
  std::string header, line, w16, more;
  std::getline(csv, header);
  ASSERT_TRUE(std::getline(csv, line));
  ASSERT_TRUE(std::getline(csv, w16));
  EXPECT_EQ(w16.rfind("local,tiny,null,int8,tiny_w16,", 0), 0u) << w16;
  EXPECT_FALSE(std::getline(csv, more)) << more;
  EXPECT_EQ(line.rfind("local,tiny,null,int8,tiny_w8,", 0), 0u) << line;
  // The cells by column name (no cell here is quoted: the note is empty).
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
  EXPECT_EQ(cell["note"], "") << line;
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
  for (const auto& e : fs::directory_iterator(root_ / "results" / ".cache" / "reference")) {
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
      Ngb("expand tiny --quick --set precision=int8 --configs " + (root_ / "configs").string());
  EXPECT_EQ(expand.output, "tiny_w8_b1_int8\ntiny_w16_b1_int8\n");
  const Result named = Ngb("run tiny null --quick --set precision=int8 --runs tiny_w8_b1 " +
                           Common());
  EXPECT_EQ(named.code, 2) << named.output;
  EXPECT_NE(named.output.find("'tiny_w8_b1' (at this precision: 'tiny_w8_b1_int8'); `ngraphbench "
                              "expand tiny --quick --compiler null --set precision=int8` lists"),
            std::string::npos)
      << named.output;

  const Result analyze = Ngb("analyze " + (root_ / "results").string() + " -o " +
                             (root_ / "analysis").string() + " --include-invalid");
  ASSERT_EQ(analyze.code, 0) << analyze.output;
  EXPECT_NE(analyze.output.find("precision_speedup.csv (2)"), std::string::npos)
      << analyze.output;
  std::ifstream csv(root_ / "analysis" / "precision_speedup.csv");
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
    const size_t at = row.find("\n12,tiny_w8_b1_int8,");
    ASSERT_NE(at, std::string::npos) << row;
    row.replace(at, 20, "\n12,tiny_w8_b1,");
    std::ofstream(RunDir() / "tiny_w8_b1.csv") << row;
    fs::remove(RunDir() / "tiny_w8_b1_int8.csv");
  }
  fs::rename(RunDir() / "tiny_w8_b1_int8.latencies.csv", RunDir() / "tiny_w8_b1.latencies.csv");
  const auto before = Snapshot(root_ / "results");
  const Result refused = Ngb("run tiny null --quick --set precision=int8 " + Common());
  EXPECT_EQ(refused.code, 2) << refused.output;
  EXPECT_NE(refused.output.find("1 row(s) of precision int8 sit under run ids without the "
                                "precision"),
            std::string::npos)
      << refused.output;
  EXPECT_NE(refused.output.find("tiny_w8_b1.csv"), std::string::npos) << refused.output;
  EXPECT_EQ(Snapshot(root_ / "results"), before);
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
  std::ofstream(root_ / "configs" / "null.yaml") << "options:\n  sleep_us: 200\n";
  const Result longer = Ngb("run tiny null --quick --replace-changed " + Common());
  EXPECT_EQ(longer.code, 0) << longer.output;
  row = Row("tiny_w8_b1");
  EXPECT_EQ(row.valid, true) << row.invalid_reason;
  EXPECT_GE(*row.timed_window_s, 0.3);  // min_time_s extends the timed phase
  EXPECT_GT(*row.repeats, 5);
  EXPECT_TRUE(row.cpu_util_pct.has_value());  // 300 ms hold 30 sampler periods
}

TEST_F(Pipeline, KilledSweepResumesToExactlyOneCompleteRowPerRun) {
  // 3 processes a run, each timing 2 of its 6 timed runs (~60 ms of work a process): the sweep
  // of 72 processes, in rounds, writes its first rows in its third round.
  constexpr int kK = 3;
  extra_defaults_ = "  processes: 3\n";
  WriteExperiments(20, 6);
  std::ofstream(root_ / "configs" / "null.yaml") << "options:\n  sleep_us: 15000\n";
  const std::string log = (root_ / "killed.log").string();
  const pid_t pid = ::fork();
  if (pid == 0) {
    const std::string exe = std::string(NGB_BINARY_DIR) + "/ngraphbench";
    const std::string configs = (root_ / "configs").string();
    const std::string results = (root_ / "results").string();
    ::freopen(log.c_str(), "w", stderr);
    ::execl(exe.c_str(), exe.c_str(), "run", "many", "null", "--configs", configs.c_str(),
            "--results", results.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // A row on disk is a whole run: every process's timed runs, with its trace.
  auto expect_complete = [&](const std::string& id) {
    const ResultRow row = Row(id);
    EXPECT_EQ(row.status, "ok") << id;
    EXPECT_EQ(row.processes, kK) << id;
    EXPECT_EQ(row.processes_reason, "fixed") << id;
    EXPECT_EQ(row.repeats, 6) << id;
    const auto trace = ReadProcessLatencies(LatenciesPath(RunDir(), id));
    EXPECT_EQ(trace.size(), static_cast<size_t>(kK)) << id;
    for (const auto& process : trace) EXPECT_EQ(process.size(), 2u) << id;
  };
  // Kill the scheduler with SIGKILL once a few rows exist, while a worker is mid-run.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (Rows().size() < 4 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the worker dies with it
  const std::set<std::string> rows_at_kill = Rows();
  const std::set<std::string> parts_at_kill = Parts();
  EXPECT_GE(rows_at_kill.size(), 4u);
  ASSERT_LT(rows_at_kill.size(), 24u) << "the sweep finished before it was killed";
  for (const std::string& id : rows_at_kill) expect_complete(id);
  // The parts of the runs it had not finished survive, each whole. A run with a row may have
  // some too, when the kill fell between writing the row and removing the parts it was merged
  // from (the row is written first, so that a kill never loses them): leftovers, which the
  // resume removes without counting or measuring them again.
  EXPECT_FALSE(parts_at_kill.empty());
  std::set<std::string> runs_with_parts, kept_parts;
  for (const std::string& p : parts_at_kill) {
    const std::string id = p.substr(0, p.rfind(" p"));
    const int process = std::stoi(p.substr(p.rfind(" p") + 2));
    if (rows_at_kill.count(id)) continue;
    runs_with_parts.insert(id);
    kept_parts.insert(p);
    const fs::path part = PartPath(id, process);
    std::stringstream text;
    text << std::ifstream(part).rdbuf();
    const ResultRow row = ParseRowCsv(text.str(), part.string());
    EXPECT_EQ(row.run_id, id);
    EXPECT_EQ(row.status, "ok") << p;
    EXPECT_EQ(ReadLatencies(PartLatenciesPath(id, process).string()).size(), 2u) << p;
    // What the merge's verdict needs of it beyond its row, as data (measure/aggregate.h).
    EXPECT_TRUE(fs::exists(RunDir() / ".parts" /
                           (id + ".p" + std::to_string(process) + ".summary.json")))
        << p;
  }
  // What the killed sweep reported as measured is on disk, as a part or in a row.
  std::ifstream killed_in(log);
  const std::string killed((std::istreambuf_iterator<char>(killed_in)),
                           std::istreambuf_iterator<char>());
  for (const std::string& p : MeasuredProcesses(killed)) {
    EXPECT_TRUE(parts_at_kill.count(p) || rows_at_kill.count(p.substr(0, p.rfind(" p"))))
        << p << "\n" << killed;
  }

  // Resume measures the missing processes only, each once, and writes each missing row once.
  const Result resume = Ngb("run many null " + Common());
  ASSERT_EQ(resume.code, 0) << resume.output;
  const size_t missing_runs = 24 - rows_at_kill.size();
  const size_t missing = missing_runs * kK - kept_parts.size();
  EXPECT_NE(resume.output.find("24 runs, " + std::to_string(missing_runs) + " to run, " +
                               std::to_string(rows_at_kill.size()) + " kept"),
            std::string::npos)
      << resume.output;
  EXPECT_NE(resume.output.find("3 worker process(es) per run, " + std::to_string(missing) +
                               " in all; " + std::to_string(kept_parts.size()) +
                               " process(es) of " + std::to_string(runs_with_parts.size()) +
                               " run(s) already measured are kept"),
            std::string::npos)
      << resume.output;
  std::multiset<std::string> expected;
  std::multiset<std::string> expected_rows;
  for (const std::string& id : AllRunIds("many")) {
    if (rows_at_kill.count(id)) continue;
    expected_rows.insert(id);
    for (int i = 0; i < kK; ++i) {
      const std::string p = id + " p" + std::to_string(i);
      if (!kept_parts.count(p)) expected.insert(p);
    }
  }
  EXPECT_EQ(MeasuredProcesses(resume.output), expected) << resume.output;
  EXPECT_EQ(WrittenRows(resume.output), expected_rows) << resume.output;

  // Exactly one complete row per run, and nothing else left: no part, claim or temporary file.
  EXPECT_EQ(Rows().size(), 24u);
  for (const std::string& id : Rows()) expect_complete(id);
  for (const auto& e : fs::recursive_directory_iterator(RunDir())) {
    const std::string name = e.path().filename().string();
    EXPECT_EQ(name.find(".tmp."), std::string::npos) << "temporary file left: " << e.path();
    if (e.is_directory()) {
      // The killed scheduler's claims (on its last process; on a row it had just written) were
      // recovered by the resume, and released; the killed sweep's parts went into their rows.
      EXPECT_TRUE(name == ".claims" || name == ".parts") << e.path();
      std::string left;
      for (const auto& f : fs::directory_iterator(e.path())) left += " " + f.path().filename().string();
      EXPECT_EQ(left, "") << "left in " << e.path();
    }
  }
}

// A scheduler killed while removing the parts a row was merged from (RemovePart: the trace,
// then the row) may leave a part's row without its trace: the next sweep removes it too.
TEST_F(Pipeline, APartLeftBesideAKeptRowGoesEvenWithoutItsTrace) {
  ASSERT_EQ(Ngb("run tiny null --quick " + Common()).code, 0);
  fs::create_directories(RunDir() / ".parts");
  fs::copy_file(RowPath(RunDir(), "tiny_w8_b1"), PartPath("tiny_w8_b1", 1));  // the run's hash
  const Result r = Ngb("run tiny null --quick " + Common());
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("0 to run"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(PartPath("tiny_w8_b1", 1)));
}

// A measured part's verdict figures (degraded items, stalls, the scenario's reasons) are data in
// its summary file: a part without one, or with one that is not what a worker writes, is not
// merged with the figures missing but refused, naming the file, until it is measured again.
TEST_F(Pipeline, APartWithoutItsSummaryIsRefusedNamingIt) {
  ASSERT_EQ(Ngb("run tiny null --quick " + Common()).code, 0);
  fs::create_directories(RunDir() / ".parts");
  fs::copy_file(RowPath(RunDir(), "tiny_w8_b1"), PartPath("tiny_w8_b1", 1));  // it measured
  fs::remove(RowPath(RunDir(), "tiny_w8_b1"));
  fs::remove(LatenciesPath(RunDir(), "tiny_w8_b1"));
  const std::string summary = (RunDir() / ".parts" / "tiny_w8_b1.p1.summary.json").string();
  Result r = Ngb("run tiny null --quick " + Common());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("has no summary file '" + summary + "'"), std::string::npos)
      << r.output;
  std::ofstream(summary) << "{\"degraded\": \"x\"}";
  r = Ngb("run tiny null --quick " + Common());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("part summary '" + summary + "' is not what a worker writes"),
            std::string::npos)
      << r.output;
  r = Ngb("run tiny null --quick --replace-changed " + Common());
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(Row("tiny_w8_b1").status, "ok");
  EXPECT_FALSE(fs::exists(summary));
}

TEST_F(Pipeline, TheCiStoppingRuleIsRecordedAndFingerprinted) {
  // 3 processes a run, each timing 2 of the 5 timed runs (ceil 5/3); `stop: ci` adds processes
  // up to 8.
  extra_defaults_ = "  processes: 3\n  max_processes: 8\n";
  WriteExperiments(20, 5);
  std::ofstream(root_ / "configs" / "null.yaml") << "options:\n  sleep_us: 300\n";
  ASSERT_EQ(Ngb("run tiny null --quick " + Common()).code, 0);
  const ResultRow fixed = Row("tiny_w8_b1");
  EXPECT_EQ(fixed.stop_reason, "repeats");
  EXPECT_EQ(fixed.processes, 3);
  EXPECT_EQ(fixed.processes_reason, "fixed");
  EXPECT_EQ(fixed.repeats, 6);
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
}

TEST_F(Pipeline, PinningMachineContextAndEnergyAreRecorded) {
  auto all_of = [](const std::string& text, const std::string& chars) {
    return !text.empty() && text.find_first_not_of(chars) == std::string::npos;
  };
  ASSERT_EQ(Ngb("run tiny null --quick " + Common()).code, 0);
  EXPECT_EQ(Row("tiny_w8_b1").affinity, "none");
  EXPECT_FALSE(Row("tiny_w8_b1").affinity_cpus.empty());  // read back unpinned too

  std::ofstream(root_ / "configs" / "null.yaml")
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

  const fs::path machine = root_ / "results" / "local" / "machine.json";
  ASSERT_TRUE(fs::exists(machine));
  std::stringstream text;
  text << std::ifstream(machine).rdbuf();
  EXPECT_NE(text.str().find("\"" + Row("tiny_w8_b1").machine_id + "\": {"), std::string::npos)
      << text.str();

  std::ofstream(machine) << "{broken";
  const auto before = Snapshot(root_ / "results");
  const Result bad = Ngb("run tiny null " + Common());
  EXPECT_EQ(bad.code, 2) << bad.output;
  EXPECT_NE(bad.output.find(machine.string() + ": not valid JSON"), std::string::npos)
      << bad.output;
  EXPECT_EQ(Snapshot(root_ / "results"), before);
}

TEST_F(Pipeline, SigintStopsTheWorkerPrintsHowToResumeAndExits130) {
  extra_defaults_ = "  processes: 2\n";  // the fewest with an interval: resuming 20-odd runs
  WriteExperiments(20, 20);
  std::ofstream(root_ / "configs" / "null.yaml") << "options:\n  sleep_us: 15000\n";  // ~0.3 s a run
  const std::string log = (root_ / "scheduler.log").string();
  const pid_t pid = ::fork();
  if (pid == 0) {
    const std::string exe = std::string(NGB_BINARY_DIR) + "/ngraphbench";
    const std::string configs = (root_ / "configs").string();
    const std::string results = (root_ / "results").string();
    ::freopen(log.c_str(), "w", stderr);
    ::execl(exe.c_str(), exe.c_str(), "run", "many", "null", "--configs", configs.c_str(),
            "--results", results.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (CountFiles(".latencies.csv") < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // a worker is mid-run
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  std::ifstream in(log);
  const std::string output((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(output.find("interrupted by SIGINT"), std::string::npos) << output;
  EXPECT_NE(output.find("resume with: "), std::string::npos) << output;
  EXPECT_NE(output.find("run many null --configs"), std::string::npos) << output;
  // Every row on disk is complete, no temporary file is left, and resume finishes the rest.
  const size_t rows = CountFiles(".csv") - CountFiles(".latencies.csv");
  EXPECT_LT(rows, 24u);
  for (const auto& e : fs::directory_iterator(RunDir())) {
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  }
  const Result resume = Ngb("run many null " + Common());
  EXPECT_EQ(resume.code, 0) << resume.output;
  EXPECT_NE(resume.output.find(std::to_string(24 - rows) + " to run"), std::string::npos)
      << resume.output;
}

}  // namespace
}  // namespace ngraphbench
