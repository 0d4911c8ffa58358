// End to end through the real scheduler and worker processes, with the `null` compiler (the
// fixture: pipeline_fixture.h). This file: sweeps, resume, skipped GPU runs, crashes, kill -9 and
// SIGINT; the rows' content and verdicts are in pipeline_rows_test.cc, the output check and int8
// in pipeline_precision_test.cc, all one executable.
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
  const Result expand = Ngb("expand tiny --configs " + (dir_ / "configs").string());
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

  const auto before = Snapshot(dir_ / "results");
  const auto start = std::chrono::steady_clock::now();
  const Result again = Ngb("run tiny null " + Common());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find("6 runs, 0 to run, 6 kept"), std::string::npos) << again.output;
  EXPECT_EQ(Snapshot(dir_ / "results"), before);
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
      rows.push_back(ReadRow(RowPath(dir_ / "results" / "local" / compiler, id)));
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

  std::ofstream(dir_ / "configs" / "identity.yaml") << "device: cuda\nthreads: 1\n";
  const Result identity = Ngb("run tiny identity --quick " + Common());
  EXPECT_EQ(identity.code, 0) << identity.output;
  for (const ResultRow& row : rows_of("identity")) {
    EXPECT_EQ(row.status, "skipped");
    EXPECT_NE(row.error.find("device 'cuda'"), std::string::npos) << row.error;
  }

  // A worker started on its own (a reproduce line) writes the same kind of row.
  fs::remove(RowPath(dir_ / "results" / "local" / "identity", "tiny_w8_b1"));
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
  const Result analyze = Ngb("analyze " + (dir_ / "results").string() + " -o " +
                             (dir_ / "analysis").string());
  EXPECT_EQ(analyze.code, 0) << analyze.output;
  EXPECT_NE(analyze.output.find("analyze: 2 runs (2 ok) from 1 input(s); 4 skipped run(s) left "
                                "out;"),
            std::string::npos)
      << analyze.output;
  std::ifstream failures(dir_ / "analysis" / "failures.csv");
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

TEST_F(Pipeline, KilledSweepResumesToExactlyOneCompleteRowPerRun) {
  // 3 processes a run, each timing 2 of its 6 timed runs (~60 ms of work a process): the sweep
  // of 72 processes, in rounds, writes its first rows in its third round.
  constexpr int kK = 3;
  extra_defaults_ = "  processes: 3\n";
  WriteExperiments(20, 6);
  std::ofstream(dir_ / "configs" / "null.yaml") << "options:\n  sleep_us: 15000\n";
  const std::string log = (dir_ / "killed.log").string();
  const pid_t pid = ::fork();
  if (pid == 0) {
    const std::string exe = std::string(NGB_BINARY_DIR) + "/ngraphbench";
    const std::string configs = (dir_ / "configs").string();
    const std::string results = (dir_ / "results").string();
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

TEST_F(Pipeline, SigintStopsTheWorkerPrintsHowToResumeAndExits130) {
  extra_defaults_ = "  processes: 2\n";  // the fewest with an interval: resuming 20-odd runs
  WriteExperiments(20, 20);
  std::ofstream(dir_ / "configs" / "null.yaml") << "options:\n  sleep_us: 15000\n";  // ~0.3 s a run
  const std::string log = (dir_ / "scheduler.log").string();
  const pid_t pid = ::fork();
  if (pid == 0) {
    const std::string exe = std::string(NGB_BINARY_DIR) + "/ngraphbench";
    const std::string configs = (dir_ / "configs").string();
    const std::string results = (dir_ / "results").string();
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
