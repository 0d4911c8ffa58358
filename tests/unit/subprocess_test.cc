// RunChild and RunProcess (core/subprocess.h): the one way ngraphbench starts a program. A
// timeout kills the child's whole process group, captured output is bounded, exit 74 maps to a
// StorageError, a program that cannot be started says so.
#include "ngraphbench/core/subprocess.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/process.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

TEST(RunChild, CapturesBothStreamsWithEnvAndDir) {
  ChildOptions options;
  options.out = options.err = ChildOutput::kCapture;
  options.dir = "/";
  const ChildResult r = RunChild(
      ExecCommand({"sh", "-c", "echo \"$NGB_SUBPROCESS_TEST\"; pwd; echo oops >&2; exit 3"},
                  {"NGB_SUBPROCESS_TEST=from the parent"}),
      options);
  ASSERT_TRUE(r.started());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.status(), 3);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.out, "from the parent\n/\n");
  EXPECT_EQ(r.err, "oops\n");
  EXPECT_EQ(r.Describe(), "exit status 3");
}

TEST(RunChild, BoundsWhatItKeepsButReadsEverything) {
  ChildOptions options;
  options.out = ChildOutput::kCapture;
  options.capture_limit = 1000;
  size_t relayed = 0;
  options.on_output = [&](bool is_err, const char*, size_t size) {
    EXPECT_FALSE(is_err);
    relayed += size;
  };
  // 1 MB: far more than a pipe holds, so the child would block if the rest were not read.
  const ChildResult r = RunChild(ExecCommand({"head", "-c", "1000000", "/dev/zero"}), options);
  EXPECT_TRUE(r.ok()) << r.Describe();
  EXPECT_EQ(r.out.size(), 1000u);
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(relayed, 1000000u);
}

TEST(RunChild, TimeoutKillsTheWholeGroup) {
  ChildOptions options;
  options.out = ChildOutput::kCapture;
  options.own_group = true;
  options.timeout = milliseconds(300);
  const auto start = std::chrono::steady_clock::now();
  // The background sleep holds the pipe too: only a kill of the group ends it.
  const ChildResult r =
      RunChild(ExecCommand({"sh", "-c", "sleep 30 & echo $!; sleep 30"}), options);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_EQ(r.Describe(), "timed out");
  EXPECT_LT(took, std::chrono::seconds(5));
  const long grandchild = std::stol(r.out);
  // Killed with the group: gone (or a zombie, which LocalProcessAlive counts as gone) soon.
  bool alive = true;
  for (int i = 0; i < 100 && alive; ++i) {
    alive = LocalProcessAlive(grandchild);
    if (alive) std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_FALSE(alive) << "the background child " << grandchild << " outlived the timeout";
}

TEST(RunChild, ATimeoutEndsAChildWhoseOutputIsNotCaptured) {
  ChildOptions options;
  options.out = ChildOutput::kDiscard;
  options.timeout = milliseconds(100);
  const ChildResult r = RunChild(ExecCommand({"sleep", "30"}), options);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.status(), -SIGKILL);
}

TEST(RunChild, WithinItsTimeItEndsAsItWould) {
  ChildOptions options;
  options.timeout = milliseconds(5000);
  const ChildResult r = RunChild(ExecCommand({"sh", "-c", "sleep 0.05"}), options);
  EXPECT_TRUE(r.ok()) << r.Describe();
  EXPECT_FALSE(r.timed_out);
}

TEST(RunChild, AMissingProgramOrFolderIsAStartError) {
  const ChildResult missing = RunChild(ExecCommand({"/nonexistent/ngb-no-such-program"}));
  EXPECT_FALSE(missing.started());
  EXPECT_EQ(missing.start_error, ENOENT);
  EXPECT_EQ(missing.Describe(), "could not start: No such file or directory");
  const ChildResult on_path = RunChild(ExecCommand({"ngb-no-such-program-on-path"}));
  EXPECT_EQ(on_path.start_error, ENOENT);
  ChildOptions options;
  options.dir = "/nonexistent/ngb-folder";
  EXPECT_EQ(RunChild(ExecCommand({"true"}), options).start_error, ENOENT);
}

TEST(RunProcess, AppendsToTheLogAndMapsExit74ToAStorageError) {
  const fs::path log =
      fs::temp_directory_path() / ("ngb_subprocess_test." + std::to_string(::getpid()) + ".log");
  fs::remove(log);
  EXPECT_EQ(RunProcess({"sh", "-c", "echo first"}, log, "test", "fix it"), 0);
  const int rc = RunProcess({"sh", "-c", "echo no room >&2; exit 74"}, log, "test", "fix it");
  EXPECT_EQ(rc, kExitStorageFailed);
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "first\nno room\n");
  EXPECT_EQ(LastLine(text.str() + "\n  \n"), "no room");
  try {
    ThrowIfStorageFailed(rc, "test: could not write: " + LastLine(text.str()));
    ADD_FAILURE() << "exit 74 did not throw";
  } catch (const StorageError& e) {
    EXPECT_STREQ(e.what(), "test: could not write: no room");
  }
  EXPECT_NO_THROW(ThrowIfStorageFailed(1, "not a storage failure"));
  EXPECT_NO_THROW(ThrowIfStorageFailed(-kExitStorageFailed, "a signal, not an exit"));
  fs::remove(log);
}

TEST(RunProcess, AProgramThatCannotStartIsACompileErrorWithTheFix) {
  const fs::path log = fs::temp_directory_path() / "ngb_subprocess_test_missing.log";
  try {
    RunProcess({"/nonexistent/python"}, log, "tvm", "set NGRAPHBENCH_PYTHON");
    ADD_FAILURE() << "no error";
  } catch (const CompileError& e) {
    EXPECT_STREQ(e.what(),
                 "tvm: cannot start /nonexistent/python: No such file or directory "
                 "(set NGRAPHBENCH_PYTHON)");
  }
  fs::remove(log);
}

TEST(EnvOr, FallsBackWhenUnsetOrEmpty) {
  ::setenv("NGB_SUBPROCESS_TEST_VAR", "", 1);
  EXPECT_EQ(EnvOr("NGB_SUBPROCESS_TEST_VAR", "dflt"), "dflt");
  ::setenv("NGB_SUBPROCESS_TEST_VAR", "set", 1);
  EXPECT_EQ(EnvOr("NGB_SUBPROCESS_TEST_VAR", "dflt"), "set");
  ::unsetenv("NGB_SUBPROCESS_TEST_VAR");
}

}  // namespace
}  // namespace ngraphbench
