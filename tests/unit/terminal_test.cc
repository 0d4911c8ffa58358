// Output made safe for a terminal (core/terminal.h): control sequences in names and messages are
// shown, never obeyed, and every other text passes as it is.
#include "ngraphbench/core/terminal.h"

#include <gtest/gtest.h>

#include <sstream>
#include <thread>
#include <vector>

namespace ngraphbench {
namespace {

TEST(TerminalSafe, ControlCharactersAreShownAsBytes) {
  // A model file's name that would retitle the window, turn the text red and ring the bell.
  EXPECT_EQ(TerminalSafe("evil\x1b]0;pwned\x07\x1b[31mred.onnx"),
            "evil\\x1b]0;pwned\\x07\\x1b[31mred.onnx");
  EXPECT_EQ(TerminalSafe("a\rb\bc\x7f\x00"), "a\\x0db\\x08c\\x7f");
  EXPECT_EQ(TerminalSafe(std::string("nul\0here", 8)), "nul\\x00here");
  // C1 controls as UTF-8 (CSI U+009B, NEL U+0085), and bytes that are not UTF-8 (a lone C1 byte,
  // a cut character, an overlong slash, a surrogate).
  EXPECT_EQ(TerminalSafe("\xc2\x9b" "31m \xc2\x85"), "\\xc2\\x9b31m \\xc2\\x85");
  EXPECT_EQ(TerminalSafe("\x9b\xe2\x82 \xc0\xaf \xed\xa0\x80"),
            "\\x9b\\xe2\\x82 \\xc0\\xaf \\xed\\xa0\\x80");
  // Everything else passes: newlines, tabs, other scripts, symbols, U+00A0 just past C1.
  for (const std::string text : {"line one\n\tline two", "résumé ≤ 5 µs 模型 😀", "\xc2\xa0",
                                 "p50 3.3e-05 ms +-0%", ""}) {
    EXPECT_EQ(TerminalSafe(text), text);
  }
}

// Through the stream filter: what a printer writes arrives filtered, a character split between
// two writes arrives whole, and the stream has its own buffer back afterwards.
TEST(TerminalFilter, FiltersEveryWriteAndRestoresTheStream) {
  std::ostringstream sink;
  std::streambuf* const original = sink.rdbuf();
  {
    const TerminalFilter filter(sink);
    sink << "model \x1b[2J" << 'x' << '\x07' << "\n";
    sink << "\xe6\xa8";  // the first two bytes of 模
    sink.flush();
    sink << "\xa1 ok" << std::flush;
    sink << "cut \xe6";  // never finished: shown as the byte it is once the filter ends
  }
  EXPECT_EQ(sink.rdbuf(), original);
  EXPECT_EQ(sink.str(), "model \\x1b[2Jx\\x07\n\xe6\xa8\xa1 okcut \\xe6");
}

TEST(TerminalFilter, WritesFromSeveralThreadsStayWhole) {
  std::ostringstream sink;
  {
    const TerminalFilter filter(sink);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&sink] {
        for (int i = 0; i < 1000; ++i) sink << std::string("\x1b[1mline\n");
      });
    }
    for (std::thread& thread : threads) thread.join();
  }
  std::istringstream lines(sink.str());
  int count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    ASSERT_EQ(line, "\\x1b[1mline");
  }
  EXPECT_EQ(count, 4000);
}

}  // namespace
}  // namespace ngraphbench
