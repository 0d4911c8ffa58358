// Two schedulers on one results tree, through the real `ngraphbench run` processes with the
// `null` compiler: every run is measured once, whichever scheduler gets to it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "ngraphbench/results/claim.h"
#include "ngraphbench/results/csv.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The run ids a scheduler's output reports as measured here: its `[i/n] <run_id> ok` lines.
std::multiset<std::string> MeasuredRuns(const std::string& output) {
  static const std::regex kLine(R"(\[\s*\d+/\d+\]\s+(\S+)\s+ok\s)");
  std::multiset<std::string> runs;
  for (std::sregex_iterator it(output.begin(), output.end(), kLine), end; it != end; ++it) {
    runs.insert((*it)[1].str());
  }
  return runs;
}

class Concurrent : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ("concurrent_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "configs");
    std::ofstream(root_ / "configs" / "experiments.yaml")
        << "defaults:\n  batch_sizes: [1, 2, 4]\n  quick_batch_sizes: [1]\n  warmup: 2\n"
        << "  repeats: 5\n  timeout_s: 20\n  min_time_s: 0\n"
        << "experiments:\n  tiny:\n    family: linear\n    widths: [8, 16]\n"
        << "  many:\n    family: linear\n    widths: [4, 5, 6, 7, 8, 9, 10, 11]\n";
    SetSleepUs(0);
  }
  void TearDown() override { fs::remove_all(root_); }

  void SetSleepUs(int us) {
    std::ofstream(root_ / "configs" / "null.yaml") << "options:\n  sleep_us: " << us << "\n";
  }
  std::vector<std::string> RunArgv(const std::string& experiment,
                                   const std::string& results) const {
    const std::string exe = std::string(NGB_BINARY_DIR) + "/ngraphbench";
    const std::string configs = (root_ / "configs").string();
    return {exe, "run", experiment, "null", "--configs", configs, "--results", results};
  }
  // Starts `ngraphbench run` with stderr and stdout to `log`; given a pipe, it execs once the
  // pipe's write end is closed everywhere.
  static pid_t Start(const std::vector<std::string>& argv, const fs::path& log,
                     const int* gate = nullptr) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      if (gate) {
        ::close(gate[1]);
        char c;
        while (::read(gate[0], &c, 1) < 0) {
        }
        ::close(gate[0]);
      }
      ::freopen(log.c_str(), "w", stderr);
      ::dup2(STDERR_FILENO, STDOUT_FILENO);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    return pid;
  }
  static int Wait(pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  int Run(const std::string& experiment, std::string* output) const {
    const fs::path log = root_ / "run.log";
    const int code = Wait(Start(RunArgv(experiment, Results().string()), log));
    *output = ReadText(log);
    return code;
  }
  fs::path Results() const { return root_ / "results"; }
  fs::path RunDir() const { return Results() / "local" / "null"; }
  // Nothing a scheduler leaves behind after it: no temporary file, claim, breaker or worker log.
  void ExpectNothingLeft() const {
    for (const auto& e : fs::recursive_directory_iterator(Results())) {
      if (e.is_directory()) continue;  // an empty .claims or .tmp may stay
      const std::string name = e.path().filename().string();
      EXPECT_EQ(name.find(".tmp."), std::string::npos) << e.path();
      EXPECT_EQ(name.find(".claim"), std::string::npos) << e.path();
      EXPECT_EQ(name.find(".break"), std::string::npos) << e.path();
      EXPECT_EQ(name.find(".lock"), std::string::npos) << e.path();
      EXPECT_EQ(name.find("worker-"), std::string::npos) << e.path();
    }
  }

  fs::path root_;
};

TEST_F(Concurrent, TwoSchedulersStartedTogetherMeasureEachRunOnce) {
  SetSleepUs(2000);  // ~10 ms of timed work a run: the two overlap whatever the machine
  int gate[2];
  ASSERT_EQ(::pipe(gate), 0);
  const pid_t a = Start(RunArgv("many", Results().string()), root_ / "a.log", gate);
  const pid_t b = Start(RunArgv("many", Results().string()), root_ / "b.log", gate);
  ::close(gate[0]);
  ::close(gate[1]);  // both exec now
  const int code_a = Wait(a), code_b = Wait(b);
  const std::string out_a = ReadText(root_ / "a.log"), out_b = ReadText(root_ / "b.log");
  EXPECT_EQ(code_a, 0) << out_a;
  EXPECT_EQ(code_b, 0) << out_b;

  // Whichever got to a run first measured it; the other left it or found its row.
  const std::multiset<std::string> by_a = MeasuredRuns(out_a), by_b = MeasuredRuns(out_b);
  EXPECT_EQ(by_a.size() + by_b.size(), 24u) << out_a << "\n---\n" << out_b;
  std::set<std::string> all(by_a.begin(), by_a.end());
  for (const auto& id : by_b) {
    EXPECT_TRUE(all.insert(id).second) << id << " measured twice\n" << out_a << "\n---\n" << out_b;
  }
  EXPECT_EQ(all.size(), 24u);
  size_t rows = 0;
  for (const auto& e : fs::directory_iterator(RunDir())) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || name.find(".latencies.") != std::string::npos) continue;
    const ResultRow row = ReadRow(e.path().string());
    EXPECT_EQ(row.status, "ok") << name;
    EXPECT_EQ(all.count(row.run_id), 1u) << row.run_id;
    EXPECT_EQ(ReadLatencies(LatenciesPath(RunDir().string(), row.run_id)).size(), 5u);
    ++rows;
  }
  EXPECT_EQ(rows, 24u);
  EXPECT_FALSE(fs::exists(RunDir() / ".replaced"));
  ExpectNothingLeft();
  // Both machines' entries, here the same machine's, survive in machine.json.
  EXPECT_NE(ReadText(Results() / "local" / "machine.json").find("machine_id"), std::string::npos);
}

TEST_F(Concurrent, ARunClaimedByALiveSchedulerIsLeftToIt) {
  // A live process of this host holds the claim of one run, as a scheduler measuring it would.
  const pid_t holder = ::fork();
  if (holder == 0) {
    while (true) ::pause();
  }
  const ClaimHolder identity = LocalProcess(holder);
  const std::string claim = RunClaimPath(RunDir().string(), "tiny_w8_b2");
  fs::create_directories(fs::path(claim).parent_path());
  std::ofstream(claim) << FormatClaim(identity);

  std::string out;
  EXPECT_EQ(Run("tiny", &out), 0) << out;  // left to another is not a failure
  EXPECT_NE(out.find("tiny_w8_b2"), std::string::npos) << out;
  EXPECT_NE(
      out.find("claimed by " + identity.host + " pid " + std::to_string(holder) + ", left to it"),
      std::string::npos)
      << out;
  EXPECT_NE(out.find("other schedulers: 1 left to them, 0 measured by them"), std::string::npos)
      << out;
  EXPECT_FALSE(fs::exists(RowPath(RunDir().string(), "tiny_w8_b2")));
  EXPECT_EQ(MeasuredRuns(out).size(), 5u) << out;
  EXPECT_EQ(ReadText(claim), FormatClaim(identity)) << "the holder's claim is untouched";

  // Its holder gone, the claim is stale: the next run measures the run.
  ::kill(holder, SIGKILL);
  ::waitpid(holder, nullptr, 0);
  EXPECT_EQ(Run("tiny", &out), 0) << out;
  EXPECT_NE(out.find("1 to run"), std::string::npos) << out;
  EXPECT_EQ(MeasuredRuns(out), std::multiset<std::string>{"tiny_w8_b2"}) << out;
  EXPECT_EQ(ReadRow(RowPath(RunDir().string(), "tiny_w8_b2")).status, "ok");
  ExpectNothingLeft();
}

TEST_F(Concurrent, ARowAnotherSchedulerWroteAfterStartUpIsKept) {
  // A sweep slow enough (~0.15 s a run) that a row can land after its start-up scan, before the
  // sweep reaches its last run, tiny_w16_b4.
  SetSleepUs(20000);
  // The row another scheduler would write: the same run with the same settings, measured into
  // another tree.
  std::string out;
  ASSERT_EQ(Wait(Start(RunArgv("tiny", (root_ / "other").string()), root_ / "o.log")), 0);
  const fs::path theirs = root_ / "other" / "local" / "null" / "tiny_w16_b4.csv";
  ASSERT_TRUE(fs::exists(theirs));

  const fs::path log = root_ / "run.log";
  const pid_t pid = Start(RunArgv("tiny", Results().string()), log);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (ReadText(log).find("6 to run") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // The row lands as the other scheduler's would: whole, by rename.
  fs::create_directories(RunDir());
  fs::copy_file(theirs, RunDir() / "tiny_w16_b4.csv.put");
  fs::rename(RunDir() / "tiny_w16_b4.csv.put", RunDir() / "tiny_w16_b4.csv");
  ASSERT_EQ(Wait(pid), 0) << ReadText(log);
  out = ReadText(log);
  ASSERT_EQ(out.find("[6/6]"), out.find("[6/6] tiny_w16_b4")) << out;
  EXPECT_NE(out.find("tiny_w16_b4                  measured by another scheduler (ok), kept"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("other schedulers: 0 left to them, 1 measured by them"), std::string::npos)
      << out;
  EXPECT_EQ(MeasuredRuns(out).count("tiny_w16_b4"), 0u) << out;
  EXPECT_EQ(ReadText(RunDir() / "tiny_w16_b4.csv"), ReadText(theirs));
  ExpectNothingLeft();
}

TEST_F(Concurrent, StartUpRemovesOnlyLeftoversOfGoneProcessesOfThisHost) {
  const pid_t gone_pid = ::fork();
  if (gone_pid == 0) ::_exit(0);
  ::waitpid(gone_pid, nullptr, 0);
  const std::string here = HostTag(), gone = std::to_string(gone_pid);
  const std::string live = std::to_string(::getpid());
  fs::create_directories(Results() / ".tmp");
  fs::create_directories(RunDir() / ".claims");
  const std::vector<fs::path> removed = {
      Results() / ".tmp" / ("worker-" + here + "-" + gone + "-a1b2c3.log"),
      RunDir() / ("tiny_w8_b1.csv.tmp." + here + "." + gone),
      RunDir() / ".claims" / ("tiny_w8_b1.claim.tmp." + here + "." + gone),
      Results() / "local" / ("machine.json.tmp." + here + "." + gone)};
  const std::vector<fs::path> kept = {
      Results() / ".tmp" / ("worker-" + here + "-" + live + "-a1b2c3.log"),
      Results() / ".tmp" / ("worker-another-node-" + gone + "-a1b2c3.log"),
      RunDir() / ("tiny_w8_b2.csv.tmp.another-node." + gone)};
  // The folders of models too large for one protobuf that workers write for their compiler.
  const fs::path gone_model = Results() / ".tmp" / ("onnx-" + here + "-" + gone + "-a1b2c3");
  const std::vector<fs::path> kept_models = {
      Results() / ".tmp" / ("onnx-" + here + "-" + live + "-a1b2c3"),
      Results() / ".tmp" / ("onnx-another-node-" + gone + "-a1b2c3")};
  for (const auto& dir : kept_models) fs::create_directories(dir);
  fs::create_directories(gone_model);
  std::ofstream(gone_model / "model.onnx.data") << "weights";
  for (const auto& p : removed) std::ofstream(p) << "left";
  for (const auto& p : kept) std::ofstream(p) << "in use";
  std::string out;
  EXPECT_EQ(Run("tiny", &out), 0) << out;
  EXPECT_NE(out.find("removed 3 temporary file(s)"), std::string::npos) << out;
  EXPECT_NE(out.find("removed 1 worker log(s) a killed run left in"), std::string::npos) << out;
  EXPECT_NE(out.find("removed 1 ONNX model folder(s) a killed worker left in"),
            std::string::npos)
      << out;
  for (const auto& p : removed) EXPECT_FALSE(fs::exists(p)) << p;
  for (const auto& p : kept) EXPECT_TRUE(fs::exists(p)) << p;
  EXPECT_FALSE(fs::exists(gone_model));
  for (const auto& dir : kept_models) EXPECT_TRUE(fs::exists(dir)) << dir;
  for (const auto& dir : kept_models) fs::remove_all(dir);
}

}  // namespace
}  // namespace ngraphbench
