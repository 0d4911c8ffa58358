// End to end through the real scheduler and worker processes, with the `null` compiler.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "ngraphbench/results/csv.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

struct Result {
  int code;
  std::string output;
};

Result Ngb(const std::string& args) {
  const std::string cmd = std::string(NGB_BINARY_DIR) + "/ngraphbench " + args + " 2>&1";
  Result r{-1, ""};
  FILE* pipe = ::popen(cmd.c_str(), "r");
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof(buf), pipe)) r.output.append(buf, n);
  const int status = ::pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Every file under `dir` with its contents: what "nothing changed" compares.
std::map<std::string, std::string> Snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  if (!fs::exists(dir)) return files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path());
    std::stringstream s;
    s << in.rdbuf();
    files[e.path().string()] = s.str();
  }
  return files;
}

class Pipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ("pipeline_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "configs");
    WriteExperiments(20, 5);
    WriteNull("");
  }
  void TearDown() override { fs::remove_all(root_); }

  void WriteExperiments(double timeout_s, int repeats) {
    std::ofstream(root_ / "configs" / "experiments.yaml")
        << "defaults:\n  batch_sizes: [1, 2, 4]\n  quick_batch_sizes: [1]\n  warmup: 2\n"
        << "  repeats: " << repeats << "\n  timeout_s: " << timeout_s << "\n"
        << "experiments:\n  tiny:\n    family: linear\n    widths: [8, 16]\n"
        << "  many:\n    family: linear\n    widths: [4, 5, 6, 7, 8, 9, 10, 11]\n";
  }
  void WriteNull(const std::string& options) {
    std::ofstream(root_ / "configs" / "null.yaml") << "options:\n" << options << "  sleep_us: 0\n";
  }
  std::string Common() const {
    return "--configs " + (root_ / "configs").string() + " --results " +
           (root_ / "results").string();
  }
  fs::path RunDir() const { return root_ / "results" / "local" / "null"; }
  ResultRow Row(const std::string& run_id) const { return ReadRow(RowPath(RunDir(), run_id)); }
  size_t CountFiles(const std::string& suffix) const {
    size_t n = 0;
    if (!fs::exists(RunDir())) return 0;
    for (const auto& e : fs::directory_iterator(RunDir())) {
      const std::string name = e.path().filename().string();
      if (name.size() >= suffix.size() &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
        ++n;
      }
    }
    return n;
  }

  fs::path root_;
};

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
    EXPECT_FALSE(row.gpu_util_pct.has_value());
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
  EXPECT_NE(again.output.find("6 runs, 0 to run, 6 skipped"), std::string::npos) << again.output;
  EXPECT_EQ(Snapshot(root_ / "results"), before);
  EXPECT_LT(seconds, 5.0);
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

  // Resume keeps failed rows; --retry-failed reruns them once the cause is gone.
  WriteNull("");
  const Result resume = Ngb("run tiny null " + Common());
  EXPECT_NE(resume.output.find("0 to run, 6 skipped (0 ok, 6 failed"), std::string::npos)
      << resume.output;
  const Result retry = Ngb("run tiny null --retry-failed " + Common());
  EXPECT_EQ(retry.code, 0) << retry.output;
  EXPECT_EQ(Row("tiny_w8_b4").status, "ok");
  EXPECT_EQ(Row("tiny_w16_b2").status, "ok");
}

TEST_F(Pipeline, KilledSweepResumesToExactlyOneCompleteRowPerRun) {
  WriteExperiments(20, 20);
  std::ofstream(root_ / "configs" / "null.yaml") << "options:\n  sleep_us: 15000\n";  // ~0.3 s a run
  const pid_t pid = ::fork();
  if (pid == 0) {
    const std::string exe = std::string(NGB_BINARY_DIR) + "/ngraphbench";
    const std::string configs = (root_ / "configs").string();
    const std::string results = (root_ / "results").string();
    ::freopen("/dev/null", "w", stderr);
    ::execl(exe.c_str(), exe.c_str(), "run", "many", "null", "--configs", configs.c_str(),
            "--results", results.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Kill the scheduler with SIGKILL once a few rows exist, while a worker is mid-run.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (CountFiles(".latencies.csv") < 4 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the worker dies with it
  const size_t rows_at_kill = CountFiles(".csv") - CountFiles(".latencies.csv");
  EXPECT_GE(rows_at_kill, 4u);
  EXPECT_LT(rows_at_kill, 24u) << "the sweep finished before it was killed";

  const Result resume = Ngb("run many null " + Common());
  ASSERT_EQ(resume.code, 0) << resume.output;
  EXPECT_NE(resume.output.find(std::to_string(24 - rows_at_kill) + " to run"), std::string::npos)
      << resume.output;
  size_t rows = 0;
  for (const auto& e : fs::directory_iterator(RunDir())) {
    const std::string name = e.path().filename().string();
    EXPECT_EQ(name.find(".tmp."), std::string::npos) << "temporary file left: " << name;
    if (name.find(".latencies.") != std::string::npos) continue;
    const ResultRow row = ReadRow(e.path().string());
    EXPECT_EQ(row.status, "ok") << name;
    EXPECT_EQ(ReadLatencies(LatenciesPath(RunDir(), row.run_id)).size(), 20u);
    ++rows;
  }
  EXPECT_EQ(rows, 24u);
}

TEST_F(Pipeline, BadInputExitsTwoAndChangesNothing) {
  ASSERT_EQ(Ngb("run tiny null " + Common()).code, 0);
  const auto before = Snapshot(root_ / "results");
  auto expect_bad = [&](const std::string& args, const std::string& message) {
    const Result r = Ngb(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
    EXPECT_EQ(Snapshot(root_ / "results"), before) << args;
  };
  expect_bad("run nope null " + Common(), "unknown experiment 'nope'");
  expect_bad("run tiny tensorflow " + Common(), "unknown compiler 'tensorflow'");
  expect_bad("run tiny null --bogus-flag " + Common(), "bogus-flag");

  std::ofstream(root_ / "configs" / "null.yaml") << "options:\n  sleep_us: fast\n";
  expect_bad("run tiny null " + Common(), "options.sleep_us' must be an integer");
  std::ofstream(root_ / "configs" / "null.yaml") << "treads: 2\n";
  expect_bad("run tiny null " + Common(), "'treads' is not a known key");
  WriteNull("");

  std::ofstream(root_ / "configs" / "experiments.yaml", std::ios::app)
      << "  broken:\n    family: linear\n    widths: [0]\n";
  expect_bad("run tiny null " + Common(), "experiments.broken.widths.[0]' must be >= 1");
  WriteExperiments(20, 5);

  const std::string corrupt = (root_ / "corrupt.onnx").string();
  std::ofstream(corrupt) << "definitely not protobuf";
  expect_bad("run " + corrupt + " null " + Common(), "is not an ONNX model");
  expect_bad("run " + (root_ / "missing.onnx").string() + " null " + Common(), "does not exist");
}

}  // namespace
}  // namespace ngraphbench
