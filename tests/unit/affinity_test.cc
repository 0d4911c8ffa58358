// Thread pinning: CPU lists, the `affinity` setting, and reading masks back.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "ngraphbench/core/error.h"
#include "ngraphbench/measure/machine.h"
#include "temp_dir.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

using Cpus = std::vector<int>;

TEST(CpuList, ParsesTheKernelFormat) {
  EXPECT_EQ(ParseCpuList("0-3"), (Cpus{0, 1, 2, 3}));
  EXPECT_EQ(ParseCpuList("0,2,4"), (Cpus{0, 2, 4}));
  EXPECT_EQ(ParseCpuList("7"), (Cpus{7}));
  EXPECT_EQ(ParseCpuList("3,1,1-2"), (Cpus{1, 2, 3}));  // sorted, without duplicates
  EXPECT_EQ(ParseCpuList(" 0 - 1 , 4\n"), (Cpus{0, 1, 4}));
  for (const char* bad : {"", " ", "a", "3-1", "0,", ",0", "0,,1", "1-", "-1", "0-3x", "70000",
                          "0-70000", "1.5", "0;1"}) {
    EXPECT_FALSE(ParseCpuList(bad).has_value()) << "'" << bad << "'";
  }
}

TEST(CpuList, FormatsTheShortestText) {
  EXPECT_EQ(FormatCpuList({}), "");
  EXPECT_EQ(FormatCpuList({5}), "5");
  EXPECT_EQ(FormatCpuList({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(FormatCpuList({0, 2, 4}), "0,2,4");
  const Cpus cpus = {1, 2, 3, 9, 12, 13};
  EXPECT_EQ(ParseCpuList(FormatCpuList(cpus)), cpus);
}

// The InputError message of AffinityCpus, or "" (with a failure) when there is none.
std::string AffinityError(const std::string& setting, int threads, const Cpus& allowed) {
  try {
    AffinityCpus(setting, threads, allowed);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for affinity '" << setting << "', threads " << threads;
  return "";
}

TEST(Affinity, ResolvesNoneCompactAndLists) {
  const Cpus allowed = {0, 2, 4, 6};
  EXPECT_EQ(AffinityCpus("none", 3, allowed), Cpus{});
  EXPECT_EQ(AffinityCpus("compact", 2, allowed), (Cpus{0, 2}));
  EXPECT_EQ(AffinityCpus("compact", 4, allowed), allowed);
  EXPECT_EQ(AffinityCpus("4,6", 2, allowed), (Cpus{4, 6}));
  EXPECT_EQ(AffinityCpus("6,0", 1, allowed), (Cpus{0, 6}));  // a list need not match threads
}

TEST(Affinity, RefusesWhatCannotBePinnedAndSaysWhatIsAllowed) {
  const Cpus allowed = {0, 2, 4, 6};
  std::string e = AffinityError("compact", 5, allowed);
  EXPECT_NE(e.find("'compact'"), std::string::npos) << e;
  EXPECT_NE(e.find("threads (5)"), std::string::npos) << e;
  EXPECT_NE(e.find("may use CPUs 0,2,4,6 (4)"), std::string::npos) << e;

  e = AffinityError("1-2", 2, allowed);
  EXPECT_NE(e.find("names CPUs 1 that are not available"), std::string::npos) << e;
  EXPECT_NE(e.find("0,2,4,6"), std::string::npos) << e;

  e = AffinityError("all", 2, allowed);
  EXPECT_NE(e.find("none, compact, or a CPU list such as 0-3 or 0,2,4"), std::string::npos) << e;
  AffinityError("0-", 2, allowed);
  AffinityError("", 2, allowed);
}

TEST(Affinity, PinningHoldsForTheThreadAndTheThreadsItStarts) {
  const Cpus all = ProcessCpus();
  ASSERT_FALSE(all.empty());
  const Cpus one = {all.back()};
  Cpus pinned, inherited, union_seen;
  // In a thread of its own, so that the test process keeps its mask.
  std::thread([&] {
    PinCpus(one);
    pinned = ProcessCpus();
    std::thread([&] { inherited = ProcessCpus(); }).join();
    union_seen = ThreadsCpus();
  }).join();
  EXPECT_EQ(pinned, one);
  EXPECT_EQ(inherited, one);
  EXPECT_EQ(union_seen, all);  // the main thread still may use every CPU
  EXPECT_EQ(ProcessCpus(), all);
}

TEST(Affinity, ThreadsCpusIsTheUnionOverTasks) {
  const test_support::ScratchDir scratch("tasks_");
  const fs::path& root = scratch.path();
  auto write = [&](const std::string& task, const std::string& list) {
    fs::create_directories(root / "proc/self/task" / task);
    std::ofstream(root / "proc/self/task" / task / "status")
        << "Name:\tworker\nCpus_allowed:\tff\nCpus_allowed_list:\t" << list << "\n";
  };
  write("100", "0-1");
  write("101", "4");
  write("102", "1,6");
  EXPECT_EQ(ThreadsCpus(root.string()), (Cpus{0, 1, 4, 6}));
  fs::remove_all(root);
  EXPECT_EQ(ThreadsCpus(root.string()), ProcessCpus());  // unreadable: this thread's mask
}

}  // namespace
}  // namespace ngraphbench
