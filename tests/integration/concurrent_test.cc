// Two schedulers on one results tree, through the real `ngraphbench run` processes with the
// `null` compiler: every process of every run is measured once, and every run's row written
// once, whichever scheduler gets to it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "ngraphbench/results/claim.h"
#include "integration/scheduler_output.h"
#include "ngraphbench/results/csv.h"
#include "temp_dir.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The run ids whose row a scheduler's output reports as written here, with the row's status:
// its `  = <run_id> <compiler> <status> ...` lines.
std::multimap<std::string, std::string> WrittenRows(const std::string& output) {
  static const std::regex kLine(R"((?:^|\n)  = (\S+)\s+\S+\s+(\S+))");
  std::multimap<std::string, std::string> rows;
  for (std::sregex_iterator it(output.begin(), output.end(), kLine), end; it != end; ++it) {
    rows.emplace((*it)[1].str(), (*it)[2].str());
  }
  return rows;
}

// The counts of a scheduler's last line, `done: N runs, F not ok, I measured now ok but invalid
// [...; other schedulers: L left to them, M measured by them]`; -1 for what it does not say.
struct Done {
  int runs = -1, not_ok = -1, invalid = -1, left = -1, by_others = -1;
};
Done DoneLine(const std::string& output) {
  static const std::regex kLine(
      R"(done: (\d+) runs, (\d+) not ok, (\d+) measured now ok but invalid)"
      R"((?:[^\n]*; other schedulers: (\d+) left to them, (\d+) measured by them)?)");
  std::smatch m;
  Done done;
  if (!std::regex_search(output, m, kLine)) return done;
  done.runs = std::stoi(m[1].str());
  done.not_ok = std::stoi(m[2].str());
  done.invalid = std::stoi(m[3].str());
  done.left = m[4].matched ? std::stoi(m[4].str()) : 0;
  done.by_others = m[5].matched ? std::stoi(m[5].str()) : 0;
  return done;
}

// The last `[k/n]` of a scheduler's progress lines, as {k, n}; {0, 0} without one.
std::pair<int, int> LastCounter(const std::string& output) {
  static const std::regex kCounter(R"((?:^|\n)\[\s*(\d+)/(\d+)\])");
  std::pair<int, int> last{0, 0};
  for (std::sregex_iterator it(output.begin(), output.end(), kCounter), end; it != end; ++it) {
    last = {std::stoi((*it)[1].str()), std::stoi((*it)[2].str())};
  }
  return last;
}

class Concurrent : public test_support::TempDirTest {
 protected:
  Concurrent() : TempDirTest("concurrent_") {}

  void SetUp() override {
    TempDirTest::SetUp();
    fs::create_directories(dir_ / "configs");
    WriteExperiments(kProcesses);
    SetSleepUs(0);
  }

  // Each run in `processes` worker processes (unset: the default, 3), each timing its share
  // of the 5 timed runs; a fixed count (stop fixed), as the tests count processes.
  void WriteExperiments(std::optional<int> processes) {
    std::ofstream(dir_ / "configs" / "experiments.yaml")
        << "defaults:\n  batch_sizes: [1, 2, 4]\n  quick_batch_sizes: [1]\n  warmup: 2\n"
        << "  repeats: 5\n  timeout_s: 20\n  min_time_s: 0\n  stop: fixed\n"
        << (processes ? "  processes: " + std::to_string(*processes) + "\n" : "")
        << "experiments:\n  tiny:\n    family: linear\n    widths: [8, 16]\n"
        << "  many:\n    family: linear\n    widths: [4, 5, 6, 7, 8, 9, 10, 11]\n";
  }

  void SetSleepUs(int us) {
    std::ofstream(dir_ / "configs" / "null.yaml") << "options:\n  sleep_us: " << us << "\n";
  }
  std::vector<std::string> RunArgv(const std::string& experiment,
                                   const std::string& results) const {
    const std::string exe = std::string(NGB_BINARY_DIR) + "/ngraphbench";
    const std::string configs = (dir_ / "configs").string();
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
    const fs::path log = dir_ / "run.log";
    const int code = Wait(Start(RunArgv(experiment, Results().string()), log));
    *output = ReadText(log);
    return code;
  }
  fs::path Results() const { return dir_ / "results"; }
  fs::path RunDir() const { return Results() / "local" / "null"; }
  // Nothing a scheduler leaves behind after it: no temporary file, claim, breaker, worker log
  // or part of a run (its row holds it).
  void ExpectNothingLeft() const {
    for (const auto& e : fs::recursive_directory_iterator(Results())) {
      if (e.is_directory()) continue;  // an empty .claims, .parts or .tmp may stay
      const std::string name = e.path().filename().string();
      EXPECT_NE(e.path().parent_path().filename(), ".parts") << e.path();
      EXPECT_EQ(name.find(".tmp."), std::string::npos) << e.path();
      EXPECT_EQ(name.find(".claim"), std::string::npos) << e.path();
      EXPECT_EQ(name.find(".break"), std::string::npos) << e.path();
      EXPECT_EQ(name.find(".lock"), std::string::npos) << e.path();
      EXPECT_EQ(name.find("worker-"), std::string::npos) << e.path();
    }
  }

  // The part of process `process` of `run_id`, and its claim.
  fs::path PartPath(const std::string& run_id, int process) const {
    return RunDir() / ".parts" / (run_id + ".p" + std::to_string(process) + ".csv");
  }
  fs::path PartClaim(const std::string& run_id, int process) const {
    return RunClaimPath(RunDir().string(), run_id + ".p" + std::to_string(process));
  }

  // What most tests measure each run in: few, to keep them short; more than one, so that a
  // run's processes can be split between schedulers.
  static constexpr int kProcesses = 3;
};

TEST_F(Concurrent, TwoSchedulersStartedTogetherMeasureEachRunOnce) {
  WriteExperiments(5);  // 5 processes a run: 120 processes for two schedulers to share
  constexpr int kK = 5;
  SetSleepUs(2000);  // ~6 ms of work a process beyond its start: the two overlap on any machine
  int gate[2];
  ASSERT_EQ(::pipe(gate), 0);
  const pid_t a = Start(RunArgv("many", Results().string()), dir_ / "a.log", gate);
  const pid_t b = Start(RunArgv("many", Results().string()), dir_ / "b.log", gate);
  ::close(gate[0]);
  ::close(gate[1]);  // both exec now
  const int code_a = Wait(a), code_b = Wait(b);
  const std::string out_a = ReadText(dir_ / "a.log"), out_b = ReadText(dir_ / "b.log");
  const std::string both = out_a + "\n---\n" + out_b;
  EXPECT_EQ(code_a, 0) << out_a;
  EXPECT_EQ(code_b, 0) << out_b;
  EXPECT_NE(out_a.find("5 worker process(es) per run, 120 in all"), std::string::npos) << out_a;

  // Whichever got to a process first measured it; the other left it or found its part.
  std::multiset<std::string> processes = MeasuredProcesses(out_a);
  const std::multiset<std::string> by_b = MeasuredProcesses(out_b);
  processes.insert(by_b.begin(), by_b.end());
  EXPECT_EQ(processes.size(), 24u * kK) << both;
  for (const auto& p : std::set<std::string>(processes.begin(), processes.end())) {
    EXPECT_EQ(processes.count(p), 1u) << p << " measured twice\n" << both;
  }
  // Whichever ended a run's last process wrote its row; the other kept it.
  const std::multimap<std::string, std::string> rows_a = WrittenRows(out_a),
                                                rows_b = WrittenRows(out_b);
  std::multimap<std::string, std::string> written = rows_a;
  written.insert(rows_b.begin(), rows_b.end());
  EXPECT_EQ(written.size(), 24u) << both;
  std::set<std::string> runs;
  for (const auto& [id, status] : written) {
    EXPECT_TRUE(runs.insert(id).second) << id << " written twice\n" << both;
    EXPECT_EQ(status, "ok") << id;
    for (int i = 0; i < kK; ++i) {
      EXPECT_EQ(processes.count(id + " p" + std::to_string(i)), 1u) << id << " p" << i << "\n"
                                                                     << both;
    }
  }
  // Each scheduler accounts for every run: written here, left to the other (it holds a process),
  // or kept as measured by it. Every row is invalid (5 timed runs < min_repeats 10).
  for (const auto& [out, rows] : {std::pair{&out_a, &rows_a}, std::pair{&out_b, &rows_b}}) {
    const Done done = DoneLine(*out);
    EXPECT_EQ(done.runs, 24) << *out;
    EXPECT_EQ(done.not_ok, 0) << *out;
    EXPECT_EQ(done.invalid, static_cast<int>(rows->size())) << *out;
    EXPECT_EQ(static_cast<int>(rows->size()) + done.left + done.by_others, 24) << *out;
  }

  size_t files = 0;
  for (const auto& e : fs::directory_iterator(RunDir())) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || name.find(".latencies.") != std::string::npos) continue;
    const ResultRow row = ReadRow(e.path().string());
    EXPECT_EQ(row.status, "ok") << name;
    EXPECT_EQ(runs.count(row.run_id), 1u) << row.run_id;
    EXPECT_EQ(row.processes, kK) << name;
    EXPECT_EQ(row.process_p50s_ms.size(), static_cast<size_t>(kK)) << name;
    // Each process timed its share of the 5 timed runs: one.
    const std::vector<std::vector<int64_t>> trace =
        ReadProcessLatencies(LatenciesPath(RunDir().string(), row.run_id));
    EXPECT_EQ(trace.size(), static_cast<size_t>(kK)) << name;
    for (const auto& process : trace) EXPECT_EQ(process.size(), 1u) << name;
    EXPECT_EQ(row.repeats, 5) << name;
    ++files;
  }
  EXPECT_EQ(files, 24u);
  EXPECT_FALSE(fs::exists(RunDir() / ".replaced"));
  ExpectNothingLeft();
  // Both machines' entries, here the same machine's, survive in machine.json.
  EXPECT_NE(ReadText(Results() / "local" / "machine.json").find("machine_id"), std::string::npos);
}

TEST_F(Concurrent, ARunClaimedByALiveSchedulerIsLeftToIt) {
  // A live process of this host holds the claim of one process of one run, as a scheduler
  // measuring it would.
  const pid_t holder = ::fork();
  if (holder == 0) {
    while (true) ::pause();
  }
  // Whatever ends the test, the holder goes with it.
  struct Reap {
    pid_t pid;
    ~Reap() {
      if (pid <= 0) return;
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  } reap{holder};
  const ClaimHolder identity = LocalProcess(holder);
  const fs::path claim = PartClaim("tiny_w8_b2", 0);
  fs::create_directories(claim.parent_path());
  std::ofstream(claim) << FormatClaim(identity);

  std::string out;
  EXPECT_EQ(Run("tiny", &out), 0) << out;  // left to another is not a failure
  EXPECT_NE(out.find("tiny_w8_b2                   p0 claimed by " + identity.host + " pid " +
                     std::to_string(holder) + ", left to it"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("other schedulers: 1 left to them, 0 measured by them"), std::string::npos)
      << out;
  // The run's other processes were measured, and their parts wait for the holder's; its row
  // is the holder's to write.
  std::multiset<std::string> expected;
  for (const std::string id : {"tiny_w8_b1", "tiny_w8_b2", "tiny_w8_b4", "tiny_w16_b1",
                               "tiny_w16_b2", "tiny_w16_b4"}) {
    for (int i = id == "tiny_w8_b2" ? 1 : 0; i < kProcesses; ++i) {
      expected.insert(id + " p" + std::to_string(i));
    }
  }
  EXPECT_EQ(MeasuredProcesses(out), expected) << out;
  const std::multimap<std::string, std::string> rows = WrittenRows(out);
  EXPECT_EQ(rows.size(), 5u) << out;
  EXPECT_EQ(rows.count("tiny_w8_b2"), 0u) << out;
  EXPECT_FALSE(fs::exists(RowPath(RunDir().string(), "tiny_w8_b2")));
  EXPECT_FALSE(fs::exists(LatenciesPath(RunDir().string(), "tiny_w8_b2")));
  std::set<std::string> parts;
  for (const auto& e : fs::directory_iterator(RunDir() / ".parts")) {
    parts.insert(e.path().filename().string());
  }
  EXPECT_EQ(parts, (std::set<std::string>{"tiny_w8_b2.p1.csv", "tiny_w8_b2.p1.latencies.csv",
                                          "tiny_w8_b2.p1.summary.json", "tiny_w8_b2.p2.csv",
                                          "tiny_w8_b2.p2.latencies.csv",
                                          "tiny_w8_b2.p2.summary.json"}));
  const ResultRow part = ParseRowCsv(ReadText(PartPath("tiny_w8_b2", 1)), "part 1");
  EXPECT_EQ(part.run_id, "tiny_w8_b2");
  EXPECT_EQ(part.status, "ok");
  EXPECT_EQ(part.processes, 1);
  EXPECT_EQ(ReadText(claim), FormatClaim(identity)) << "the holder's claim is untouched";
  std::set<std::string> claims;
  for (const auto& e : fs::directory_iterator(claim.parent_path())) {
    claims.insert(e.path().filename().string());
  }
  EXPECT_EQ(claims, std::set<std::string>{"tiny_w8_b2.p0.claim"}) << "only the holder's is left";

  // Its holder gone, the claim is stale: the next run measures the missing process only, and
  // writes the run's row from all three.
  ::kill(holder, SIGKILL);
  ::waitpid(holder, nullptr, 0);
  reap.pid = 0;  // reaped
  EXPECT_EQ(Run("tiny", &out), 0) << out;
  EXPECT_NE(out.find("6 runs, 1 to run, 5 kept (5 ok)"), std::string::npos) << out;
  EXPECT_NE(out.find("3 worker process(es) per run, 1 in all; 2 process(es) of 1 run(s) already "
                     "measured are kept"),
            std::string::npos)
      << out;
  EXPECT_EQ(MeasuredProcesses(out), std::multiset<std::string>{"tiny_w8_b2 p0"}) << out;
  EXPECT_EQ(WrittenRows(out),
            (std::multimap<std::string, std::string>{{"tiny_w8_b2", "ok"}}))
      << out;
  EXPECT_NE(out.find("(3 processes)"), std::string::npos) << out;
  const Done done = DoneLine(out);
  EXPECT_EQ(done.not_ok, 0) << out;
  EXPECT_EQ(done.invalid, 1) << out;  // 6 timed runs < min_repeats 10
  EXPECT_EQ(done.left + done.by_others, 0) << out;
  const ResultRow row = ReadRow(RowPath(RunDir().string(), "tiny_w8_b2"));
  EXPECT_EQ(row.status, "ok");
  EXPECT_EQ(row.processes, kProcesses);
  const std::vector<std::vector<int64_t>> trace =
      ReadProcessLatencies(LatenciesPath(RunDir().string(), "tiny_w8_b2"));
  ASSERT_EQ(trace.size(), static_cast<size_t>(kProcesses));
  for (const auto& process : trace) EXPECT_EQ(process.size(), 2u);  // ceil(5 / 3) each
  ExpectNothingLeft();

  // A scheduler killed after writing a row, before releasing its claims, leaves them beside a
  // complete row: the next sweep keeps the row and removes the claims of the gone holder.
  std::ofstream(RunClaimPath(RunDir().string(), "tiny_w8_b1")) << FormatClaim(identity);
  std::ofstream(PartClaim("tiny_w8_b1", 2)) << FormatClaim(identity);
  EXPECT_EQ(Run("tiny", &out), 0) << out;
  EXPECT_NE(out.find("6 runs, 0 to run, 6 kept (6 ok)"), std::string::npos) << out;
  ExpectNothingLeft();
}

TEST_F(Concurrent, ARowAnotherSchedulerWroteAfterStartUpIsKept) {
  // A sweep slow enough (~0.1 s a process) that a row can land after its start-up scan, before
  // the sweep reaches the first process of its last run, tiny_w16_b4.
  SetSleepUs(20000);
  // The row another scheduler would write: the same run with the same settings, measured into
  // another tree.
  std::string out;
  ASSERT_EQ(Wait(Start(RunArgv("tiny", (dir_ / "other").string()), dir_ / "o.log")), 0);
  const fs::path theirs = dir_ / "other" / "local" / "null" / "tiny_w16_b4.csv";
  ASSERT_TRUE(fs::exists(theirs));

  const fs::path log = dir_ / "run.log";
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
  EXPECT_NE(out.find("tiny_w16_b4                  measured by another scheduler, kept"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("other schedulers: 0 left to them, 1 measured by them"), std::string::npos)
      << out;
  // None of its processes was measured here, and none is counted: the count ends at 5 runs'.
  for (const auto& p : MeasuredProcesses(out)) EXPECT_NE(p.rfind("tiny_w16_b4 ", 0), 0u) << out;
  EXPECT_EQ(MeasuredProcesses(out).size(), 5u * kProcesses) << out;
  EXPECT_EQ(LastCounter(out), std::make_pair(5 * kProcesses, 5 * kProcesses)) << out;
  const std::multimap<std::string, std::string> rows = WrittenRows(out);
  EXPECT_EQ(rows.size(), 5u) << out;
  EXPECT_EQ(rows.count("tiny_w16_b4"), 0u) << out;
  const Done done = DoneLine(out);
  EXPECT_EQ(done.runs, 6) << out;
  EXPECT_EQ(done.not_ok, 0) << out;
  EXPECT_EQ(done.invalid, 5) << out;  // 6 timed runs < min_repeats 10, each of ours
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
  fs::create_directories(RunDir() / ".parts");
  const std::vector<fs::path> removed = {
      Results() / ".tmp" / ("worker-" + here + "-" + gone + "-a1b2c3.log"),
      RunDir() / ("tiny_w8_b1.csv.tmp." + here + "." + gone),
      RunDir() / ".claims" / ("tiny_w8_b1.p0.claim.tmp." + here + "." + gone),
      RunDir() / ".parts" / ("tiny_w8_b1.p1.csv.tmp." + here + "." + gone),
      Results() / "local" / ("machine.json.tmp." + here + "." + gone)};
  const std::vector<fs::path> kept = {
      Results() / ".tmp" / ("worker-" + here + "-" + live + "-a1b2c3.log"),
      Results() / ".tmp" / ("worker-another-node-" + gone + "-a1b2c3.log"),
      RunDir() / ("tiny_w8_b2.csv.tmp.another-node." + gone),
      RunDir() / ".parts" / ("tiny_w8_b2.p0.csv.tmp.another-node." + gone)};
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
  // Counted where they were: the run directory (rows, claims, parts) and the device's.
  EXPECT_NE(out.find("removed 3 temporary file(s) an interrupted run left in " +
                     RunDir().string() + "\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("removed 1 temporary file(s) an interrupted run left in " +
                     (Results() / "local").string() + "\n"),
            std::string::npos)
      << out;
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
