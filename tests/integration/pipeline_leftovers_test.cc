// What a sweep leaves behind once it ends, through the real scheduler and worker processes (the
// fixture: pipeline_fixture.h): no process a worker started, even one in a session of its own,
// and no temporary folder of a writer that is gone, on every way a worker ends (done, timed
// out, stopped) and also for a worker started by hand.
//
// The model is a PyTorch factory file, exported by a stand-in for the python that runs
// python/export_torch.py (NGRAPHBENCH_PYTHON): a shell script that starts a process in a session
// of its own, as Python's start_new_session=True does, writes that process's pid to a file and
// then hangs or fails. What is tested is the process tree, not PyTorch, so no torch is loaded
// and each test takes seconds.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "integration/pipeline_fixture.h"
#include "ngraphbench/core/process.h"

namespace ngraphbench {
namespace {

class Leftovers : public Pipeline {
 protected:
  void SetUp() override {
    Pipeline::SetUp();
    pid_file_ = dir_ / "escaped.pid";
    std::ofstream(dir_ / "model.py") << "def make_model():\n    raise RuntimeError('unused')\n";
  }
  void TearDown() override {
    ::unsetenv("NGRAPHBENCH_PYTHON");
    // A test that failed leaves its escaped process running: it goes here, not with the machine.
    if (const long pid = EscapedPid(); pid > 0 && LocalProcessAlive(pid)) ::kill(pid, SIGKILL);
    Pipeline::TearDown();
  }

  // The export's stand-in: starts `sleep` in a new session (it leaves the worker's process group,
  // which the scheduler's kill of a timed-out worker reaches, and its session), then `then`.
  void HostilePython(const std::string& then) {
    const fs::path script = dir_ / "hostile_python.sh";
    std::ofstream(script) << "#!/bin/sh\n"
                          << "setsid sleep 300 </dev/null >/dev/null 2>&1 &\n"
                          << "echo $! > " << pid_file_.string() << "\n"
                          << then << "\n";
    fs::permissions(script, fs::perms::owner_all);
    ::setenv("NGRAPHBENCH_PYTHON", script.c_str(), 1);
  }

  std::string Model() const { return (dir_ / "model.py").string() + ":make_model"; }

  // The pid the stand-in wrote, 0 before it did.
  long EscapedPid() const {
    std::ifstream in(pid_file_);
    long pid = 0;
    in >> pid;
    return pid;
  }

  // Whether `pid` still runs, waiting up to a second for it to go: a process reparented to init
  // is reaped there on its own time.
  static bool StillRuns(long pid) {
    for (int i = 0; i < 50 && LocalProcessAlive(pid); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return LocalProcessAlive(pid);
  }

  // What is left in <results>/.cache/torch/ besides finished exports: folders being written.
  std::vector<std::string> UnfinishedExports() const {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(dir_ / "results" / ".cache" / "torch", ec), end;
         !ec && it != end; it.increment(ec)) {
      if (!fs::exists(it->path() / "meta.json")) names.push_back(it->path().filename().string());
    }
    return names;
  }

  fs::path pid_file_;
};

TEST_F(Leftovers, AProcessInItsOwnSessionDiesWithItsTimedOutWorker) {
  HostilePython("exec sleep 300");  // hangs past the run's timeout
  const Result r = Ngb("run " + Model() + " null --input-shape 4 --quick --timeout 2 " + Common());
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("timeout"), std::string::npos) << r.output;
  const long escaped = EscapedPid();
  ASSERT_GT(escaped, 0) << "the export never started: " << r.output;
  EXPECT_FALSE(StillRuns(escaped)) << "pid " << escaped << " outlived the sweep";
  EXPECT_NE(r.output.find("ended 1 process(es) that ended workers had started"), std::string::npos)
      << r.output;
  // The killed worker's unfinished export went with it, in this run already.
  EXPECT_EQ(UnfinishedExports(), std::vector<std::string>{});
}

TEST_F(Leftovers, AProcessInItsOwnSessionDiesWithItsStoppedWorker) {
  HostilePython("exec sleep 300");
  const std::string log = (dir_ / "scheduler.log").string();
  const std::string exe = std::string(NGB_BINARY_DIR) + "/ngraphbench";
  const std::string model = Model(), configs = (dir_ / "configs").string(),
                    results = (dir_ / "results").string();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::freopen(log.c_str(), "w", stderr);
    ::execl(exe.c_str(), exe.c_str(), "run", model.c_str(), "null", "--input-shape", "4",
            "--quick", "--configs", configs.c_str(), "--results", results.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (EscapedPid() == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 143);
  const long escaped = EscapedPid();
  ASSERT_GT(escaped, 0);
  EXPECT_FALSE(StillRuns(escaped)) << "pid " << escaped << " outlived the sweep";
  EXPECT_EQ(UnfinishedExports(), std::vector<std::string>{});
}

// The `reproduce:` form, started by hand without a scheduler: the worker itself ends what it
// started once it is done (here the export fails and the worker writes its error row).
TEST_F(Leftovers, AWorkerStartedByHandEndsWhatItStarted) {
  HostilePython("exit 1");
  const Result expand = Ngb("expand " + Model() + " --input-shape 4 --quick --configs " +
                            (dir_ / "configs").string());
  ASSERT_EQ(expand.code, 0) << expand.output;
  const std::string run_id = expand.output.substr(0, expand.output.find('\n'));
  const Result r =
      Ngb("worker " + Model() + " null " + run_id + " --input-shape 4 --quick " + Common());
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(Row(run_id).error.find("exporting"), std::string::npos) << Row(run_id).error;
  const long escaped = EscapedPid();
  ASSERT_GT(escaped, 0) << r.output;
  EXPECT_FALSE(StillRuns(escaped)) << "pid " << escaped << " outlived the worker";
  EXPECT_EQ(UnfinishedExports(), std::vector<std::string>{});
}

// A worker started by hand and stopped by Ctrl-C (SIGINT) during its export ends what it started
// and removes the folder it was exporting into before it dies of the signal: there is no
// scheduler to do either after it.
TEST_F(Leftovers, AWorkerStartedByHandAndStoppedLeavesNothing) {
  HostilePython("exec sleep 300");
  const Result expand = Ngb("expand " + Model() + " --input-shape 4 --quick --configs " +
                            (dir_ / "configs").string());
  ASSERT_EQ(expand.code, 0) << expand.output;
  const std::string run_id = expand.output.substr(0, expand.output.find('\n'));
  const std::string exe = std::string(NGB_BINARY_DIR) + "/ngraphbench";
  const std::string model = Model(), configs = (dir_ / "configs").string(),
                    results = (dir_ / "results").string(), log = (dir_ / "worker.log").string();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::freopen(log.c_str(), "w", stderr);
    ::execl(exe.c_str(), exe.c_str(), "worker", model.c_str(), "null", run_id.c_str(),
            "--input-shape", "4", "--quick", "--configs", configs.c_str(), "--results",
            results.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (EscapedPid() == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(UnfinishedExports().size(), 1u);  // being written now
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  const long escaped = EscapedPid();
  ASSERT_GT(escaped, 0);
  EXPECT_FALSE(StillRuns(escaped)) << "pid " << escaped << " outlived the worker";
  EXPECT_EQ(UnfinishedExports(), std::vector<std::string>{});
}

// Folders that killed writers left (an older binary's `.export-<pid>-*`, cache entries being
// written by a tvm or inductor compile or an export) go at the next run once their writer is
// gone; a live writer's, another host's and finished entries stay.
TEST_F(Leftovers, FoldersOfGoneWritersAreRemovedByTheNextRun) {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  const std::string gone = std::to_string(child), live = std::to_string(::getpid());
  const std::string host = HostTag();
  const fs::path cache = dir_ / "results" / ".cache";
  const std::vector<fs::path> left = {
      cache / "torch" / (".export-" + gone + "-Ab12Cd"),
      cache / "torch" / (".build-" + host + "-" + gone + "-Ab12Cd"),
      cache / "tvm" / (".build-" + host + "-" + gone + "-Ef34Gh"),
      cache / "inductor" / (".build-" + host + "-" + gone + "-Ij56Kl")};
  const std::vector<fs::path> kept = {
      cache / "tvm" / (".build-" + host + "-" + live + "-Mn78Op"),
      cache / "tvm" / (".build-elsewhere-" + gone + "-Qr90St"),
      cache / "tvm" / "0123456789abcdef0123456789abcdef"};
  for (const fs::path& dir : left) {
    fs::create_directories(dir);
    std::ofstream(dir / "model.onnx") << "partial";
    std::ofstream(dir / "compile.log");
  }
  for (const fs::path& dir : kept) {
    fs::create_directories(dir);
    std::ofstream(dir / "meta.json") << "{}";
  }
  const Result r = Ngb("run tiny null --quick " + Common());
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("removed 4 unfinished cache entr(y/ies)"), std::string::npos)
      << r.output;
  for (const fs::path& dir : left) EXPECT_FALSE(fs::exists(dir)) << dir;
  for (const fs::path& dir : kept) EXPECT_TRUE(fs::exists(dir / "meta.json")) << dir;
}

}  // namespace
}  // namespace ngraphbench
