// What ngraphbench prints is made safe for a terminal. Names and messages in its output come
// from the inputs (a model file's name, an experiment's, an SDK's error text): a terminal would
// obey the control sequences they may hold (retitle the window, recolour, erase or rewrite what
// is on the screen). Every byte a terminal takes as control is shown as \xHH instead.
#pragma once

#include <mutex>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace ngraphbench {

// `text` with every C0 control character but newline and tab (ESC, BEL, CR, backspace, ...),
// DEL, every C1 control character (U+0080 to U+009F, as UTF-8) and every byte that is not part
// of valid UTF-8 written as \xHH, one per byte; everything else, other scripts and symbols
// included, as it is.
std::string TerminalSafe(std::string_view text);

// Passes everything written to `stream` through TerminalSafe, from construction to destruction
// (which restores the stream's own buffer). main() puts one on std::cout and one on std::cerr,
// so every printer of the tool is covered, whatever it prints. A UTF-8 character split between
// two writes is held until its end arrives. Writes from several threads are serialized.
class TerminalFilter : public std::streambuf {
 public:
  explicit TerminalFilter(std::ostream& stream);
  ~TerminalFilter() override;
  TerminalFilter(const TerminalFilter&) = delete;
  TerminalFilter& operator=(const TerminalFilter&) = delete;

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  // Filters `pending_` + `s` into the target; keeps an unfinished character in `pending_`
  // unless `final`.
  void Write(std::string_view s, bool final);

  std::ostream& stream_;
  std::streambuf* target_;
  std::string pending_;
  std::mutex mutex_;
};

}  // namespace ngraphbench
