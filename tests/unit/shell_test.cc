// ShellQuote and ShellCommandLine (core/shell.h): a printed command line, pasted into bash, passes
// every argument through unchanged and runs nothing else.
#include "ngraphbench/core/shell.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "temp_dir.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

TEST(ShellQuote, LeavesPlainWordsAndQuotesTheRest) {
  EXPECT_EQ(ShellQuote("run"), "run");
  EXPECT_EQ(ShellQuote("/work/results/m_b1.onnx"), "/work/results/m_b1.onnx");
  EXPECT_EQ(ShellQuote("--shard=1/4,a@b%c+d:e"), "--shard=1/4,a@b%c+d:e");
  EXPECT_EQ(ShellQuote(""), "''");
  EXPECT_EQ(ShellQuote("a b"), "'a b'");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuote("~/x"), "'~/x'");
}

// Each hostile argument goes through bash as one argument, byte for byte, and the commands it
// holds do not run.
TEST(ShellCommandLine, PastedIntoBashPassesEachArgumentAndRunsNothing) {
  const test_support::ScratchDir scratch("ngb_shell_");
  const fs::path& dir = scratch.path();
  const std::string marker = (dir / "ran").string();
  const std::vector<std::string> hostile = {
      "m;$(touch " + marker + ").onnx",
      "results/$(touch " + marker + ")",
      "`touch " + marker + "`",
      "a'b\"c\\d",
      "x && touch " + marker,
      "  spaces  ",
      "",
      "*",
      "~",
      "$HOME",
      "line\nbreak",
      "#comment",
      "semi;colon|pipe>redirect<in&bg(paren)",
  };
  std::vector<std::string> argv = {"printf", "%s\\0"};
  argv.insert(argv.end(), hostile.begin(), hostile.end());
  const std::string script = (dir / "pasted.sh").string();
  {
    FILE* f = std::fopen(script.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fprintf(f, "cd '%s' || exit 9\n%s\n", dir.c_str(), ShellCommandLine(argv).c_str());
    std::fclose(f);
  }
  const std::string command = "bash " + ShellQuote(script);
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[512];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  EXPECT_EQ(::pclose(pipe), 0);
  std::vector<std::string> got;
  for (size_t start = 0; start < out.size();) {
    const size_t end = out.find('\0', start);
    got.push_back(out.substr(start, end - start));
    start = end == std::string::npos ? out.size() : end + 1;
  }
  EXPECT_EQ(got, hostile);
  EXPECT_FALSE(fs::exists(marker)) << "the pasted line ran a command";
}

}  // namespace
}  // namespace ngraphbench
