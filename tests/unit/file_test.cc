// The one way ngraphbench opens what it reads (core/file.h) and parses YAML (core/yaml.h): no
// file blocks it, balloons it, or turns into a message of megabytes.
#include "ngraphbench/core/file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/yaml.h"
#include "temp_dir.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

class FileTest : public test_support::TempDirTest {
 protected:
  FileTest() : TempDirTest("file_") {}

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(Path(name), std::ios::binary) << text;
    return Path(name);
  }
  // The InputError message of `read`, which must come at once.
  template <typename F>
  static std::string Refusal(F read) {
    const auto start = std::chrono::steady_clock::now();
    std::string message;
    try {
      read();
      ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
      message = e.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
    return message;
  }
};

TEST_F(FileTest, SpecialFilesAreRefusedAtOnceNamingTheFileAndWhatItIs) {
  ASSERT_EQ(::mkfifo(Path("fifo").c_str(), 0644), 0);
  std::string m = Refusal([&] { ReadFileCapped(Path("fifo"), kMaxClaimBytes, "lock file"); });
  EXPECT_NE(m.find("lock file '" + Path("fifo") + "' is not a regular file but a FIFO"),
            std::string::npos)
      << m;
  m = Refusal([&] { ReadFileIfExists(Path("fifo"), kMaxClaimBytes, "lock file"); });
  EXPECT_NE(m.find("a FIFO"), std::string::npos) << m;
  m = Refusal([&] { OpenFileCapped(Path("fifo"), kMaxModelBytes, "ONNX file"); });
  EXPECT_NE(m.find("a FIFO"), std::string::npos) << m;
  m = Refusal([&] { ReadFileCapped("/dev/zero", kMaxCacheBytes, "cache"); });
  EXPECT_NE(m.find("a character device"), std::string::npos) << m;
  m = Refusal([&] { ReadFileCapped(dir_.string(), kMaxCacheBytes, "cache"); });
  EXPECT_NE(m.find("a folder"), std::string::npos) << m;
  m = Refusal([&] { CheckRegularOrMissing(Path("fifo"), "lock file"); });
  EXPECT_NE(m.find("a FIFO"), std::string::npos) << m;
  EXPECT_NO_THROW(CheckRegularOrMissing(Path("missing"), "lock file"));
  EXPECT_NO_THROW(CheckRegularOrMissing(Write("plain", "x"), "lock file"));
}

TEST_F(FileTest, LinksAreFollowedForInputsAndRefusedForTheToolsOwnFiles) {
  const std::string target = Write("target", "content");
  fs::create_symlink(target, Path("link"));
  fs::create_symlink("/dev/zero", Path("zero"));
  EXPECT_EQ(ReadFileCapped(Path("link"), 100, "config file"), "content");
  std::string m = Refusal([&] {
    ReadFileCapped(Path("link"), kMaxMachineJsonBytes, "machine file", Links::kRefuse);
  });
  EXPECT_NE(m.find("machine file '" + Path("link") + "' is a symbolic link"), std::string::npos)
      << m;
  m = Refusal([&] { ReadFileCapped(Path("zero"), kMaxMachineJsonBytes, "machine file"); });
  EXPECT_NE(m.find("a character device"), std::string::npos) << m;
  // A folder on the way may be a link (a results folder on another disk).
  fs::create_directories(dir_ / "elsewhere");
  Write("elsewhere/machine.json", "{}");
  fs::create_directory_symlink(dir_ / "elsewhere", dir_ / "results");
  EXPECT_EQ(ReadFileIfExists(Path("results/machine.json"), kMaxMachineJsonBytes, "machine file",
                             Links::kRefuse),
            "{}");
}

TEST_F(FileTest, CeilingsMissingFilesAndStatus) {
  const std::string big = Write("big", std::string(kMaxClaimBytes + 1, 'x'));
  const std::string m = Refusal([&] { ReadFileCapped(big, kMaxClaimBytes, "lock file"); });
  EXPECT_NE(m.find("more than the 65536"), std::string::npos) << m;
  EXPECT_EQ(ReadFileIfExists(Path("missing"), 10, "lock file"), std::nullopt);
  // A folder on the way that is a file: no such file either (the write says why later).
  EXPECT_EQ(ReadFileIfExists(big + "/below", 10, "lock file"), std::nullopt);
  struct stat st {};
  EXPECT_EQ(ReadFileIfExists(Write("small", "abc"), 10, "lock file", Links::kRefuse, &st), "abc");
  EXPECT_EQ(st.st_size, 3);
}

TEST_F(FileTest, LogTailsReadOnlyTheirEnd) {
  const std::string log = Write("log", std::string(1 << 20, 'a') + "the end\n");
  EXPECT_EQ(ReadLogTail(log, 8), "the end\n");
  EXPECT_EQ(ReadLogTail(log).size(), kMaxLogTailBytes);
  ASSERT_EQ(::mkfifo(Path("fifo").c_str(), 0644), 0);
  EXPECT_EQ(ReadLogTail(Path("fifo")), "");
  EXPECT_EQ(ReadLogTail(Path("missing")), "");
}

TEST_F(FileTest, FreshFilesReplaceWhateverHadTheName) {
  ASSERT_EQ(::mkfifo(Path("tmp").c_str(), 0644), 0);
  const int fd = CreateFreshFile(Path("tmp"));
  ASSERT_GE(fd, 0);
  ::close(fd);
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(Path("tmp"))));
  const std::string target = Write("target", "kept");
  fs::create_symlink(target, Path("link"));
  const int fd2 = CreateFreshFile(Path("link"));
  ASSERT_GE(fd2, 0);
  ::close(fd2);
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(Path("link"))));
  std::ifstream in(target);
  std::string kept;
  in >> kept;
  EXPECT_EQ(kept, "kept");  // the link's target was not written through
}

TEST(Text, QuotesAreShortAndUtf8IsChecked) {
  EXPECT_EQ(QuoteShort("short"), "short");
  const std::string quoted = QuoteShort(std::string(15'000'000, 'x'));
  EXPECT_EQ(quoted, std::string(80, 'x') + "\u2026 (15000000 bytes)");
  // Never cut inside a character: 79 x's and a 2-byte character cross the 80th byte.
  EXPECT_EQ(QuoteShort(std::string(79, 'x') + "\u00e9" + std::string(10, 'y')),
            std::string(79, 'x') + "\u2026 (91 bytes)");
  EXPECT_TRUE(IsValidUtf8("plain, \u00e9t\u00e9, \u2026, \U0001F600"));
  for (const std::string bad : {"\xff", "r/\xff", "\xc3", "\xc0\xaf", "\xed\xa0\x80",
                                "\xf4\x90\x80\x80", "a\xe2\x82"}) {
    EXPECT_FALSE(IsValidUtf8(bad)) << EscapeBytes(bad);
  }
  EXPECT_EQ(EscapeBytes("r/\xff\n"), "r/\\xff\\x0a");
}

TEST(Yaml, ValuesAreCountedBeforeParsingAndTextMustBeUtf8) {
  // 7,000,000 widths in 14 MB took 3.3 GB of nodes; 200,000 are refused before any is built.
  std::string widths = "experiments:\n  x:\n    widths: [1";
  for (int i = 0; i < 200'000; ++i) widths += ",1";
  const auto start = std::chrono::steady_clock::now();
  try {
    LoadYaml(widths + "]\n", "experiments.yaml");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("experiments.yaml: holds 200007 values"),
              std::string::npos)
        << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_EQ(LoadYaml("a: [1, 2]\n", "x.yaml")["a"].size(), 2u);
  try {
    LoadYaml("a: 1\nb: r/\xff\n", "x.yaml");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("x.yaml: line 2 is not valid UTF-8"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ngraphbench
