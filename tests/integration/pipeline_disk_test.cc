// End to end with the `null` compiler on a results tree whose file system fills up (issue 25,
// case 4): a real tmpfs of its own, not a mock, mounted over the test's results folder in a mount
// namespace of this test process, so that the binaries it starts see it and nothing else does;
// and a compile whose output folder fills up, with the compile scripts' exit status.
// A test binary of its own: the namespace stays with the process (pipeline_fixture.h).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "integration/pipeline_fixture.h"
#include "ngraphbench/compilers/compile_helper.h"
#include "ngraphbench/core/error.h"
#include "require_compiler.h"
#include "temp_dir.h"

namespace ngraphbench {
namespace {

bool WriteProcFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.close();
  return static_cast<bool>(out);
}

// Puts this process in a mount namespace of its own whose mounts propagate nowhere; empty when
// done, else why it cannot. Root needs only the mount namespace; another user first gets a user
// namespace in which it is root (mounting a tmpfs is allowed there). Once per process.
std::string OwnMountNamespace() {
  static const std::string failure = [] {
    const uid_t uid = ::geteuid();
    const gid_t gid = ::getegid();
    if (::unshare(CLONE_NEWNS) != 0) {
      const int as_root = errno;
      if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
        return std::string("cannot make a mount namespace (unshare(CLONE_NEWNS): ") +
               std::strerror(as_root) + "; with a user namespace: " + std::strerror(errno) +
               "). This test mounts a small tmpfs as the results tree; it needs root, or "
               "unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
               "user.max_user_namespaces > 0)";
      }
      if (!WriteProcFile("/proc/self/setgroups", "deny") ||
          !WriteProcFile("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1") ||
          !WriteProcFile("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1")) {
        return std::string("cannot map this user to root in a user namespace");
      }
    }
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
      return std::string("cannot make the mounts of this namespace private: ") +
             std::strerror(errno);
    }
    return std::string();
  }();
  return failure;
}

// A tmpfs of `kib` KiB mounted on `dir` while this lives.
class Tmpfs {
 public:
  Tmpfs(const fs::path& dir, int kib) : dir_(dir) {
    fs::create_directories(dir);
    const std::string options = "size=" + std::to_string(kib) + "k,mode=0755";
    if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, options.c_str()) != 0) {
      error_ = "cannot mount a tmpfs on " + dir.string() + ": " + std::strerror(errno);
    }
  }
  ~Tmpfs() {
    if (error_.empty()) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  Tmpfs(const Tmpfs&) = delete;
  Tmpfs& operator=(const Tmpfs&) = delete;
  const std::string& error() const { return error_; }

 private:
  fs::path dir_;
  std::string error_;
};

// Bytes free on the file system of `dir`.
uint64_t FreeBytes(const fs::path& dir) {
  struct statvfs st {};
  if (::statvfs(dir.c_str(), &st) != 0) return 0;
  return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

// Fills the file system of `file` until `leave` bytes are free.
void Fill(const fs::path& file, uint64_t leave) {
  const uint64_t free = FreeBytes(file.parent_path());
  ASSERT_GT(free, leave);
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  ASSERT_EQ(::posix_fallocate(fd, 0, static_cast<off_t>(free - leave)), 0) << file;
  ::close(fd);
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The status of a row or part file; "unreadable: ..." when it does not parse (cut short).
std::string StatusOf(const fs::path& path) {
  try {
    return ParseRowCsv(ReadText(path), path.string()).status;
  } catch (const std::exception& e) {
    return std::string("unreadable: ") + e.what();
  }
}

// The drill: a sweep on a nearly full results tree stops at its first failed write with
// exit 3, writes no row or part blaming the compiler, damages nothing already written and says
// what to free; once space is freed, the resume measures the rest, every run exactly once. The
// room left before the sweep moves the failed write around, between the scheduler's own writes
// and the worker's.
TEST_F(Pipeline, AFullDiskStopsTheSweepWithExitThreeAndNoRowBlamesTheCompiler) {
  if (const std::string why = OwnMountNamespace(); !why.empty()) FAIL() << why;
  const fs::path results = dir_ / "results";
  const std::vector<std::string> many = AllRunIds("many");
  ASSERT_EQ(many.size(), 24u);
  bool scheduler_write_failed = false, worker_write_failed = false;
  // With this build, in order: machine.json's lock and machine.json (the scheduler's), a worker
  // (its log empty: no room for it either), the merged trace, a worker's part, the merged row;
  // then a worker whose trace (2000 timed runs, 26 KiB) does not fit where the scheduler's
  // `crashed` part and row would: the case, the compiler blamed for the disk (before,
  // `crashed` rows, and the resume exited 1).
  const struct {
    int free_kib, repeats;
  } cases[] = {{0, 5}, {4, 5}, {8, 5}, {20, 5}, {40, 5}, {60, 5}, {16, 2000}};
  for (const auto [free_kib, repeats] : cases) {
    SCOPED_TRACE(std::to_string(free_kib) + " KiB free before the sweep, " +
                 std::to_string(repeats) + " timed runs");
    // One process per run: rows are merged (a write of the scheduler's) as the sweep goes.
    const std::string sweep =
        "run many null --processes 1 --repeats " + std::to_string(repeats) + " " + Common();
    fs::remove_all(results);
    const Tmpfs tmpfs(results, 2048);
    ASSERT_EQ(tmpfs.error(), "");
    // An earlier sweep's rows, which a full disk must not damage.
    ASSERT_EQ(Ngb("run tiny null --processes 1 " + Common()).code, 0);
    const auto earlier = Snapshot(RunDir());
    const std::string machine = ReadText(results / "local" / "machine.json");
    Fill(results / "filler", uint64_t(free_kib) << 10);

    const Result full = Ngb(sweep);
    EXPECT_EQ(full.code, 3) << full.output;
    EXPECT_NE(full.output.find("stopped: the results tree's storage failed: "), std::string::npos)
        << full.output;
    EXPECT_NE(full.output.find("free space on the file system of " + results.string() + " ("),
              std::string::npos)
        << full.output;
    EXPECT_NE(full.output.find("resume with: "), std::string::npos) << full.output;
    EXPECT_EQ(full.output.find("crashed"), std::string::npos) << full.output;
    EXPECT_EQ(full.output.find("reproduce:"), std::string::npos) << full.output;
    // Stopped at the first failed write: one failure, no process started after it.
    EXPECT_EQ(full.output.find("storage failed"), full.output.rfind("storage failed"));
    worker_write_failed |= full.output.find("its worker could not write") != std::string::npos;
    scheduler_write_failed |=
        full.output.find("storage failed: cannot ") != std::string::npos;
    if (full.output.find("the worker of ") != std::string::npos) {
      // Its message, when its log had room for it, names the errno.
      EXPECT_TRUE(full.output.find("No space left on device") != std::string::npos ||
                  full.output.find("its log is empty") != std::string::npos)
          << full.output;
    } else {
      EXPECT_NE(full.output.find("No space left on device"), std::string::npos) << full.output;
    }

    // No row and no part blames the compiler, none is cut short, nothing earlier changed.
    for (const std::string& id : Rows()) {
      EXPECT_EQ(StatusOf(RowPath(RunDir(), id)), "ok") << id;
    }
    for (const std::string& part : Parts()) {
      const std::string id = part.substr(0, part.find(' '));
      EXPECT_EQ(StatusOf(PartPath(id, std::stoi(part.substr(part.find(" p") + 2)))), "ok")
          << part;
    }
    const auto after = Snapshot(RunDir());
    for (const auto& [path, text] : earlier) {
      EXPECT_EQ(after.count(path) ? after.at(path) : "(gone)", text) << path;
    }
    // machine.json: the earlier one, or the new one whole (its load average differs).
    const std::string machine_now = ReadText(results / "local" / "machine.json");
    if (machine_now != machine) {
      EXPECT_NE(machine_now.find("\"machine_id\""), std::string::npos) << machine_now;
      EXPECT_EQ(machine_now.substr(machine_now.size() - 2), "}\n") << machine_now;
    }
    // No temporary file, worker log, spec file or claim is left taking the room.
    for (const auto& e : fs::recursive_directory_iterator(results)) {
      const std::string name = e.path().filename().string();
      EXPECT_EQ(name.find(".tmp."), std::string::npos) << e.path();
      EXPECT_FALSE(name.size() > 6 && name.compare(name.size() - 6, 6, ".claim") == 0)
          << e.path();
      EXPECT_NE(e.path().parent_path().filename(), ".tmp") << e.path();
    }

    // Room again: the resume measures what is left, each run exactly once.
    fs::remove(results / "filler");
    const Result resumed = Ngb(sweep);
    EXPECT_EQ(resumed.code, 0) << resumed.output;
    std::multiset<std::string> written = WrittenRows(full.output);
    for (const std::string& id : WrittenRows(resumed.output)) written.insert(id);
    EXPECT_EQ(written, std::multiset<std::string>(many.begin(), many.end()))
        << full.output << resumed.output;
    for (const std::string& id : many) EXPECT_EQ(StatusOf(RowPath(RunDir(), id)), "ok") << id;
    const auto resumed_files = Snapshot(RunDir());
    for (const auto& [path, text] : after) {
      if (path.find("/.parts/") != std::string::npos) continue;  // merged into rows, removed
      EXPECT_EQ(resumed_files.count(path) ? resumed_files.at(path) : "(gone)", text) << path;
    }
  }
  // The room left moved the failed write across both writers; if the space a sweep takes
  // changes, move the values above so that each still fails somewhere.
  EXPECT_TRUE(scheduler_write_failed);
  EXPECT_TRUE(worker_write_failed);
}

// A compile script that fails: a storage failure (python/script_exit.py: an errno of the chain,
// or a tool's message naming one) is a StorageError, no row; anything else the compiler's
// CompileError, quoting the script's last line.
TEST(CompileScript, OnlyAFailedStorageIsAStorageError) {
  const test_support::ScratchDir scratch("compile_script_");
  const fs::path& dir = scratch.path();
  const struct {
    std::string raise;
    bool storage;
    std::string last_line;
  } cases[] = {
      {"raise OSError(errno.ENOSPC, 'No space left on device')", true,
       "fake_compile: the storage failed: OSError: [Errno 28] No space left on device"},
      {"raise RuntimeError('writing failed') from OSError(errno.EDQUOT, 'quota')", true,
       "fake_compile: the storage failed: RuntimeError: writing failed"},
      {"raise RuntimeError('Compilation error:\\nld: final link failed: ' + os.strerror(errno.EIO))",
       true, "fake_compile: the storage failed: RuntimeError: ld: final link failed: "
             "Input/output error"},
      {"raise subprocess.CalledProcessError(1, 'cc', stderr=b'cc: Read-only file system')", true,
       "fake_compile: the storage failed: CalledProcessError: cc: Read-only file system"},
      {"raise ValueError('unsupported operator Foo; try bar')", false,
       "fake_compile: error: ValueError: unsupported operator Foo, try bar"},
      {"raise OSError(errno.ENOENT, 'No such file or directory')", false,
       "fake_compile: error: FileNotFoundError: [Errno 2] No such file or directory"},
      {"return 0  # without its meta.json", false, "(exit status 0)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.raise);
    std::ofstream(dir / "fake_compile.py")
        << "import errno, os, subprocess\nimport script_exit\n\ndef main():\n    " << c.raise
        << "\n\nscript_exit.run_main(main, 'fake_compile')\n";
    const fs::path entry = dir / "entry";
    fs::create_directories(entry);
    try {
      RunCompileScript({"python3", (dir / "fake_compile.py").string(), "--out-dir",
                        entry.string()},
                       entry, entry / "meta.json", fs::path(), "fake", "install python3");
      ADD_FAILURE() << "no error";
    } catch (const StorageError& e) {
      EXPECT_TRUE(c.storage) << e.what();
      EXPECT_EQ(std::string(e.what()), "fake: the compile script could not write into " +
                                           dir.string() + ": " + c.last_line);
    } catch (const CompileError& e) {
      EXPECT_FALSE(c.storage) << e.what();
      const std::string why = c.last_line.front() == '(' ? c.last_line : "(" + c.last_line + ")";
      EXPECT_EQ(std::string(e.what()), "fake: compiling failed " + why);
    }
  }
}

// The drill of a full disk during a real compile: the compile's output folder (the tvm cache,
// results/.cache/tvm) a tmpfs with no room for the library, or none even for the ONNX model the
// script reads. The sweep stops with exit 3 and no row blames tvm; once there is room, the
// resume compiles and measures the run.
TEST_F(Pipeline, AFullDiskDuringACompileIsNotTheCompilersFailure) {
  NGB_REQUIRE_BUILT("tvm");
  if (const std::string why = OwnMountNamespace(); !why.empty()) FAIL() << why;
  std::ofstream(dir_ / "configs" / "tvm.yaml") << "threads: 1\noptions:\n  tuning_trials: 0\n";
  const std::string sweep = "run tiny tvm --runs tiny_w8_b1 --processes 1 " + Common();
  const fs::path cache = dir_ / "results" / ".cache" / "tvm";
  const fs::path rows = dir_ / "results" / "local" / "tvm";
  for (const int free_kib : {0, 12}) {
    SCOPED_TRACE(std::to_string(free_kib) + " KiB free in " + cache.string());
    std::error_code ec;
    fs::remove_all(dir_ / "results");
    const Tmpfs tmpfs(cache, 256);
    ASSERT_EQ(tmpfs.error(), "");
    Fill(cache / "filler", uint64_t(free_kib) << 10);
    const Result full = Ngb(sweep);
    EXPECT_EQ(full.code, 3) << full.output;
    EXPECT_NE(full.output.find("p0 stopped (nothing written): its worker could not write"),
              std::string::npos)
        << full.output;
    EXPECT_NE(full.output.find("No space left on device"), std::string::npos) << full.output;
    if (free_kib > 0) {  // the script's own failure: ld's, writing the library
      EXPECT_NE(full.output.find("tvm: the compile script could not write into " +
                                 cache.string() + ": tvm_compile: the storage failed: "),
                std::string::npos)
          << full.output;
    }
    EXPECT_EQ(full.output.find("compiling failed"), std::string::npos) << full.output;
    EXPECT_EQ(full.output.find("reproduce:"), std::string::npos) << full.output;
    // No row, part or trace: nothing but the (empty) claims folder.
    for (const auto& e : fs::recursive_directory_iterator(rows, fs::directory_options(), ec)) {
      EXPECT_TRUE(e.is_directory()) << e.path();
    }
    if (free_kib > 0) {
      fs::remove(cache / "filler");
      const Result resumed = Ngb(sweep);
      EXPECT_EQ(resumed.code, 0) << resumed.output;
      EXPECT_EQ(WrittenRows(resumed.output), std::multiset<std::string>{"tiny_w8_b1"})
          << resumed.output;
    }
  }
}

}  // namespace
}  // namespace ngraphbench
