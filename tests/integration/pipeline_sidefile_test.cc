// End to end with the `null` compiler: the files the tool keeps beside its rows (machine.json
// and its lock, claims, caches) are read as every input is (core/file.h). One that is not a
// small regular file stops `run` at once with exit 2 and nothing written; a cache entry that
// cannot be read is computed again, so that the output check still runs (pipeline_fixture.h).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>

#include "integration/pipeline_fixture.h"

namespace ngraphbench {
namespace {

// `ngraphbench <args>` stopped after 20 s (exit 124), so that what would block shows as a
// failure, not a hang of the suite.
Result NgbWithin20s(const std::string& args) {
  const std::string cmd =
      "timeout 20 " + std::string(NGB_BINARY_DIR) + "/ngraphbench " + args + " 2>&1";
  Result r{-1, ""};
  FILE* pipe = ::popen(cmd.c_str(), "r");
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof(buf), pipe)) r.output.append(buf, n);
  const int status = ::pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Every path under `dir`, whatever it is (Snapshot reads regular files only).
std::set<std::string> Paths(const fs::path& dir) {
  std::set<std::string> paths;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    paths.insert(it->path().string());
  }
  return paths;
}

class SideFiles : public Pipeline {
 protected:
  void SetUp() override {
    Pipeline::SetUp();
    // One run of two processes: the later one reads what the first cached (weights).
    std::ofstream(dir_ / "configs" / "experiments.yaml")
        << "defaults:\n  batch_sizes: [1]\n  quick_batch_sizes: [1]\n  warmup: 1\n"
        << "  repeats: 3\n  timeout_s: 20\n  processes: 2\n  stop: fixed\n"
        << "experiments:\n  one:\n    family: linear\n    widths: [8]\n";
  }
  fs::path Device() const { return dir_ / "results" / "local"; }
  std::string Run(const std::string& extra = "") const {
    return "run one null --shard 1/1 " + extra + Common();
  }
  // `run` with `make` done to a fresh results tree: exit 2 at once, naming `path` and `what` it
  // is, and nothing written.
  void ExpectRefused(const fs::path& path, const std::function<void()>& make,
                     const std::string& what) {
    fs::remove_all(dir_ / "results");
    fs::create_directories(RunDir() / ".claims");
    make();
    const auto before = Paths(dir_ / "results");
    const auto start = std::chrono::steady_clock::now();
    const Result r = NgbWithin20s(Run());
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    EXPECT_EQ(r.code, 2) << path << "\n" << r.output;
    EXPECT_NE(r.output.find("'" + path.string() + "' is "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(what), std::string::npos) << r.output;
    EXPECT_EQ(Paths(dir_ / "results"), before) << path;
  }
};

TEST_F(SideFiles, FifosAndLinksToDevicesStopRunAtOnceWithNothingWritten) {
  const auto fifo = [](const fs::path& p) {
    return [p] { ASSERT_EQ(::mkfifo(p.c_str(), 0644), 0); };
  };
  const fs::path machine = Device() / "machine.json";
  ExpectRefused(machine, fifo(machine), "a FIFO");
  ExpectRefused(Device() / ".machine.json.lock", fifo(Device() / ".machine.json.lock"), "a FIFO");
  ExpectRefused(RunDir() / ".claims" / "one_w8_b1.claim",
                fifo(RunDir() / ".claims" / "one_w8_b1.claim"), "a FIFO");
  ExpectRefused(RunDir() / ".claims" / "one_w8_b1.p0.claim",
                fifo(RunDir() / ".claims" / "one_w8_b1.p0.claim"), "a FIFO");
  ExpectRefused(machine, [&] { fs::create_symlink("/dev/zero", machine); }, "a symbolic link");
}

// 120 KB nested 20,000 deep made `run` take 1 GB and rewrite it as 800 MB; 100,000 deep ended in
// std::bad_alloc (exit 1).
TEST_F(SideFiles, ADeepMachineFileIsRefusedAndLeftAsItWas) {
  for (const size_t depth : {20'000, 100'000}) {
    fs::remove_all(dir_ / "results");
    fs::create_directories(Device());
    const std::string deep =
        R"({"x": {"a": )" + std::string(depth, '[') + std::string(depth, ']') + "}}\n";
    std::ofstream(Device() / "machine.json") << deep;
    const Result r = NgbWithin20s(Run());
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("machine.json: nested deeper than a machine's entry"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(fs::file_size(Device() / "machine.json"), deep.size());
    EXPECT_EQ(Paths(dir_ / "results"),
              std::set<std::string>({Device().string(), (Device() / "machine.json").string()}));
  }
}

// A results path that is not UTF-8 ended in a JSON exception (exit 1) after machine.json and
// .claims/ were made.
TEST_F(SideFiles, AResultsPathThatIsNotUtf8IsRefusedBeforeAnythingIsWritten) {
  const fs::path results = dir_ / "r\xff";
  const Result r = NgbWithin20s("run one null --configs " + (dir_ / "configs").string() +
                                " --results '" + results.string() + "'");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("r\\xff') is not valid UTF-8"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(results));
}

// A cache entry that is a FIFO (which blocked the scheduler, or the worker until its timeout), a
// link to /dev/zero (read until std::bad_alloc) or garbage (which turned the output check off)
// is computed again: the run is measured and checked, and the entry is a regular file again.
TEST_F(SideFiles, CacheEntriesThatCannotBeReadAreComputedAgain) {
  ASSERT_EQ(NgbWithin20s(Run()).code, 0);
  const std::vector<std::string> caches = {"macs", "reference", "weights"};
  for (const std::string kind : {"fifo", "zero", "garbage"}) {
    fs::remove_all(Device());
    size_t replaced = 0;
    for (const std::string& cache : caches) {
      for (const auto& e : fs::directory_iterator(dir_ / "results" / ".cache" / cache)) {
        const fs::path p = e.path();
        fs::remove(p);
        if (kind == "fifo") ASSERT_EQ(::mkfifo(p.c_str(), 0644), 0);
        if (kind == "zero") fs::create_symlink("/dev/zero", p);
        if (kind == "garbage") std::ofstream(p) << std::string(4096, '\x5a');
        ++replaced;
      }
    }
    EXPECT_EQ(replaced, caches.size());
    const auto start = std::chrono::steady_clock::now();
    const Result r = NgbWithin20s(Run());
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10)) << kind;
    ASSERT_EQ(r.code, 0) << kind << "\n" << r.output;
    const ResultRow row = Row("one_w8_b1");
    EXPECT_EQ(row.status, "ok") << kind;
    EXPECT_EQ(row.check_reference, "null") << kind;
    EXPECT_TRUE(row.check_max_abs_err.has_value()) << kind;
    for (const std::string& cache : caches) {
      for (const auto& e : fs::directory_iterator(dir_ / "results" / ".cache" / cache)) {
        EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(e.path()))) << kind << " " << e.path();
      }
    }
  }
}

// --check: everything `run` checks, nothing written (what sweep.sh --dry-run runs).
TEST_F(SideFiles, RunCheckChecksAndWritesNothing) {
  Result r = NgbWithin20s("run --check one null " + Common());
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "results"));
  r = NgbWithin20s("run --check one null --bogus " + Common());
  EXPECT_EQ(r.code, 2) << r.output;
  r = NgbWithin20s("run --check one null --jobs 0 " + Common());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--jobs is 0"), std::string::npos) << r.output;
  fs::create_directories(Device());
  ASSERT_EQ(::mkfifo((Device() / "machine.json").c_str(), 0644), 0);
  r = NgbWithin20s("run --check one null " + Common());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("a FIFO"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace ngraphbench
