// Claims (results/claim.h), and the host-aware clean-up of atomic writes' temporary files.
#include "ngraphbench/results/claim.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "temp_dir.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

class ClaimTest : public test_support::TempDirTest {
 protected:
  ClaimTest() : TempDirTest("claim_") {}

  void SetUp() override {
    TempDirTest::SetUp();
    path_ = (dir_ / ".claims" / "run.claim").string();
  }

  static std::string Read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Puts `text` at `path` whole (rename), as another process's claim would appear.
  static void Put(const std::string& path, const std::string& text) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path + ".put") << text;
    fs::rename(path + ".put", path);
  }
  // Sets the file's mtime `seconds` into the past.
  static void Age(const std::string& path, double seconds) {
    timespec times[2];
    ::clock_gettime(CLOCK_REALTIME, &times[0]);
    times[0].tv_sec -= static_cast<time_t>(seconds);
    times[1] = times[0];
    ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  }
  // Everything in the claims directory: a claim and nothing left beside it.
  std::vector<std::string> Listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(fs::path(path_).parent_path())) {
      names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }
  static pid_t ExitedChild() {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(0);
    ::waitpid(pid, nullptr, 0);
    return pid;
  }

  std::string path_;
};

// A child that lives until killed: a claim holder of this host.
class LiveChild {
 public:
  LiveChild() : pid_(::fork()) {
    if (pid_ == 0) {
      while (true) ::pause();
    }
  }
  ~LiveChild() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_;
};

TEST_F(ClaimTest, SecondClaimFailsAndNamesTheHolderUntilReleased) {
  std::optional<Claim> first = TryClaim(path_, 60);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->path(), path_);
  const std::optional<ClaimHolder> written = ParseClaim(Read(path_));
  ASSERT_TRUE(written.has_value()) << Read(path_);
  EXPECT_EQ(written->pid, ::getpid());
  EXPECT_EQ(written->start_time, ThisProcess().start_time);
  EXPECT_FALSE(written->boot_id.empty());
  EXPECT_FALSE(written->utc.empty());

  ClaimHolder holder;
  EXPECT_FALSE(TryClaim(path_, 60, &holder).has_value());
  EXPECT_EQ(holder.pid, ::getpid());
  EXPECT_EQ(holder.host, ThisProcess().host);
  EXPECT_EQ(holder.Describe(), ThisProcess().host + " pid " + std::to_string(::getpid()));

  first->Release();
  EXPECT_FALSE(fs::exists(path_));
  {
    std::optional<Claim> again = TryClaim(path_, 60);
    EXPECT_TRUE(again.has_value());
    EXPECT_TRUE(fs::exists(path_));
  }
  EXPECT_FALSE(fs::exists(path_)) << "the destructor releases";
  EXPECT_TRUE(Listing().empty());
}

TEST_F(ClaimTest, AClaimOfAGoneProcessIsRecovered) {
  ClaimHolder dead = ThisProcess();
  dead.pid = ExitedChild();
  dead.start_time.clear();
  Put(path_, FormatClaim(dead));
  std::optional<Claim> claim = TryClaim(path_, 3600);
  ASSERT_TRUE(claim.has_value());
  EXPECT_EQ(ParseClaim(Read(path_))->pid, ::getpid());
  claim.reset();
  EXPECT_TRUE(Listing().empty()) << "no breaker or temporary file is left";

  // An exited child not yet reaped (a zombie) is gone too.
  const pid_t zombie = ::fork();
  if (zombie == 0) ::_exit(0);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  dead = LocalProcess(zombie);
  Put(path_, FormatClaim(dead));
  EXPECT_TRUE(TryClaim(path_, 3600).has_value());
  ::waitpid(zombie, nullptr, 0);
}

TEST_F(ClaimTest, ALivePidWithAnotherStartTimeIsAReusedPid) {
  LiveChild child;
  Put(path_, FormatClaim(LocalProcess(child.pid())));
  ClaimHolder holder;
  EXPECT_FALSE(TryClaim(path_, 3600, &holder).has_value()) << "its holder lives";
  EXPECT_EQ(holder.pid, child.pid());

  ClaimHolder reused = LocalProcess(child.pid());
  ASSERT_FALSE(reused.start_time.empty());
  reused.start_time = "1";  // the pid was someone else's when it was claimed
  Put(path_, FormatClaim(reused));
  EXPECT_TRUE(TryClaim(path_, 3600).has_value());
}

TEST_F(ClaimTest, AnotherHostsClaimIsStaleOnlyWhenOlderThanStaleAfter) {
  ClaimHolder remote = ThisProcess();
  remote.host = "another-node";
  remote.boot_id = "00000000-0000-0000-0000-000000000000";
  remote.pid = ExitedChild();  // a pid gone here means nothing for another host
  Put(path_, FormatClaim(remote));
  ClaimHolder holder;
  EXPECT_FALSE(TryClaim(path_, 60, &holder).has_value());
  EXPECT_EQ(holder.host, "another-node");
  EXPECT_EQ(holder.Describe(), "another-node pid " + std::to_string(remote.pid));
  Age(path_, 30);
  EXPECT_FALSE(TryClaim(path_, 60).has_value());
  Age(path_, 90);
  EXPECT_TRUE(TryClaim(path_, 60).has_value());
}

TEST_F(ClaimTest, AClaimFromAnEarlierBootIsStaleAndASameNamedMachineIsJudgedByAge) {
  ClaimHolder before_reboot = ThisProcess();
  before_reboot.boot_id = "11111111-1111-1111-1111-111111111111";
  Put(path_, FormatClaim(before_reboot));
  // Written now, after this boot began: a second machine with this host name.
  EXPECT_FALSE(TryClaim(path_, 3600).has_value());
  timespec old[2] = {{1000000000, 0}, {1000000000, 0}};  // 2001, before any boot of today
  ASSERT_EQ(::utimensat(AT_FDCWD, path_.c_str(), old, 0), 0);
  EXPECT_TRUE(TryClaim(path_, 3600).has_value());
}

TEST_F(ClaimTest, AnUnreadableClaimIsLiveWhileYoung) {
  Put(path_, "");  // its holder died between creating and writing it
  ClaimHolder holder;
  holder.host = "stale";
  EXPECT_FALSE(TryClaim(path_, 3600, &holder).has_value());
  EXPECT_EQ(holder.Describe(), "an unknown holder");
  Put(path_, "host=half-writ");
  EXPECT_FALSE(TryClaim(path_, 3600).has_value());
  Age(path_, 30);
  EXPECT_TRUE(TryClaim(path_, 3600).has_value());
}

// A FIFO, a link to a device or megabytes under a claim's name would block or balloon every
// scheduler that meets it: refused at once, naming the file, and left as it was.
TEST_F(ClaimTest, AClaimThatIsNotASmallRegularFileIsRefusedAtOnce) {
  const auto refused = [&](const std::string& why) {
    const auto start = std::chrono::steady_clock::now();
    try {
      TryClaim(path_, 60);
      ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("lock file '" + path_ + "'"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  };
  fs::create_directories(fs::path(path_).parent_path());
  ASSERT_EQ(::mkfifo(path_.c_str(), 0644), 0);
  refused("a FIFO");
  EXPECT_TRUE(fs::is_fifo(path_));
  fs::remove(path_);
  fs::create_symlink("/dev/zero", path_);
  refused("a symbolic link");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(path_)));
  fs::remove(path_);
  Put(path_, std::string(1 << 20, 'x'));
  refused("more than the 65536");
  // The temporary file of a writer whose pid this process has now: replaced, not waited on.
  fs::remove(path_);
  const std::string tmp = path_ + ".tmp." + HostTag() + "." + std::to_string(::getpid());
  ASSERT_EQ(::mkfifo(tmp.c_str(), 0644), 0);
  std::optional<Claim> claim = TryClaim(path_, 60);
  EXPECT_TRUE(claim.has_value());
  EXPECT_FALSE(fs::exists(tmp));
}

TEST_F(ClaimTest, ReleasingLeavesAClaimThatAnotherTookOver) {
  std::optional<Claim> mine = TryClaim(path_, 60);
  ASSERT_TRUE(mine.has_value());
  ClaimHolder other = ThisProcess();
  other.host = "taker";
  const std::string theirs = FormatClaim(other);
  Put(path_, theirs);  // someone judged it stale and took it over
  mine.reset();
  EXPECT_EQ(Read(path_), theirs);
}

TEST_F(ClaimTest, BreakerOfALiveRecovererBlocksAndOneOfAGoneProcessDoesNot) {
  ClaimHolder dead = ThisProcess();
  dead.pid = ExitedChild();
  Put(path_, FormatClaim(dead));
  {
    LiveChild recoverer;
    Put(path_ + ".break", FormatClaim(LocalProcess(recoverer.pid())));
    ClaimHolder holder;
    EXPECT_FALSE(TryClaim(path_, 3600, &holder).has_value()) << "another is recovering it";
    EXPECT_TRUE(fs::exists(path_ + ".break"));
  }
  // The recoverer is gone (and its breaker with it, as far as anyone is concerned).
  std::optional<Claim> claim = TryClaim(path_, 3600);
  ASSERT_TRUE(claim.has_value());
  EXPECT_EQ(Listing(), std::vector<std::string>{"run.claim"});

  // Another host's breaker is stale after 60 s.
  claim.reset();
  Put(path_, FormatClaim(dead));
  ClaimHolder remote = ThisProcess();
  remote.host = "another-node";
  Put(path_ + ".break", FormatClaim(remote));
  EXPECT_FALSE(TryClaim(path_, 3600).has_value());
  Age(path_ + ".break", 61);
  EXPECT_TRUE(TryClaim(path_, 3600).has_value());
}

// Processes recovering one stale claim at the same moment, over and over: a holder makes a
// marker file with O_EXCL while it holds the claim, which fails if another holds it too. Half
// the time a holder hands the claim back as stale (as if it had died) instead of releasing it,
// so that every round is a recovery again.
TEST_F(ClaimTest, ConcurrentRecoverersNeverHoldItTogether) {
  constexpr int kProcesses = 8;
  constexpr int kRounds = 200;
  const std::string marker = (dir_ / "holding").string();
  ClaimHolder stale = ThisProcess();
  stale.start_time = "1";
  Put(path_, FormatClaim(stale));
  auto* holds = static_cast<int*>(::mmap(nullptr, sizeof(int) * kProcesses, PROT_READ | PROT_WRITE,
                                         MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(holds, MAP_FAILED);
  std::fill(holds, holds + kProcesses, 0);
  int start[2];
  ASSERT_EQ(::pipe(start), 0);
  std::vector<pid_t> children;
  for (int k = 0; k < kProcesses; ++k) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(start[1]);
      char c;
      while (::read(start[0], &c, 1) < 0) {  // EOF: all start together
      }
      // kRounds tries, and more until this process has held the claim once (for 10 s at most).
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      for (int round = 0;
           round < kRounds || (holds[k] == 0 && std::chrono::steady_clock::now() < deadline);
           ++round) {
        std::optional<Claim> claim;
        try {
          claim = TryClaim(path_, 3600);
        } catch (...) {
          ::_exit(3);
        }
        if (!claim) continue;
        const int fd = ::open(marker.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd < 0) ::_exit(1);  // another holds it too
        ::close(fd);
        ++holds[k];
        std::this_thread::sleep_for(std::chrono::microseconds(100));
        if (::unlink(marker.c_str()) != 0) ::_exit(2);
        if (round % 2 == 1) {
          ClaimHolder gone = ThisProcess();
          gone.start_time = "1";
          Put(path_, FormatClaim(gone));
        }
        claim.reset();  // releases, or leaves the stale claim (no longer this one) to the others
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  ::close(start[0]);
  ::close(start[1]);
  int total = 0;
  for (int k = 0; k < kProcesses; ++k) {
    int status = 0;
    ::waitpid(children[k], &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "process " << k << " (1: two held the claim at once)";
    total += holds[k];
  }
  for (int k = 0; k < kProcesses; ++k) EXPECT_GT(holds[k], 0) << "process " << k;
  RecordProperty("rounds_held", total);
  ::munmap(holds, sizeof(int) * kProcesses);
  // At most the last stale claim is left: no breaker, no temporary file.
  const std::vector<std::string> left = Listing();
  EXPECT_TRUE(left.empty() || left == std::vector<std::string>{"run.claim"})
      << ::testing::PrintToString(left);
  EXPECT_FALSE(fs::exists(marker));
}

// --- Temporary files of atomic writes, on a tree shared between hosts ---

TEST_F(ClaimTest, TemporaryFilesOfOtherHostsAreRemovedOnlyWhenOld) {
  const std::string d = dir_.string();
  const std::string here = HostTag();
  const std::string gone = std::to_string(ExitedChild());
  const std::string live = std::to_string(::getpid());
  std::ofstream(d + "/a.csv.tmp.another-node." + gone) << "being written elsewhere";
  std::ofstream(d + "/b.csv.tmp.another-node." + live) << "left elsewhere long ago";
  Age(d + "/b.csv.tmp.another-node." + live, 11 * 60);
  std::ofstream(d + "/c.csv.tmp." + here + "." + gone) << "left here";
  std::ofstream(d + "/d.csv.tmp." + here + "." + live) << "being written here";
  Age(d + "/d.csv.tmp." + here + "." + live, 3600);  // old, but its writer lives
  std::ofstream(d + "/e.csv.tmp." + gone) << "the older form: this host's";
  std::ofstream(d + "/f.csv") << "a row";
  EXPECT_EQ(RemoveStaleTempFiles(d), 3);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(d)) left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"a.csv.tmp.another-node." + gone,
                                            "d.csv.tmp." + here + "." + live, "f.csv"}));
}

TEST_F(ClaimTest, HostTagIsOneFileNameComponentWithoutDots) {
  const std::string tag = HostTag();
  EXPECT_FALSE(tag.empty());
  EXPECT_EQ(
      tag.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-"),
      std::string::npos)
      << tag;
  // An atomic write leaves no temporary file of its own behind.
  WriteFileAtomic((dir_ / "x.csv").string(), "text\n");
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir_)) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"x.csv"});
}

}  // namespace
}  // namespace ngraphbench
