#include "ngraphbench/core/terminal.h"

#include <cstdint>
#include <cstdio>

namespace ngraphbench {

namespace {

void AppendEscaped(unsigned char byte, std::string& out) {
  char hex[5];
  std::snprintf(hex, sizeof(hex), "\\x%02x", byte);
  out += hex;
}

// Appends `in` made safe to `out`; returns how many bytes of `in` it took: all of them, unless
// `in` ends inside a UTF-8 character and `final` is false (the rest may follow).
size_t AppendSafe(std::string_view in, std::string& out, bool final) {
  size_t i = 0;
  while (i < in.size()) {
    const auto c = static_cast<unsigned char>(in[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
        AppendEscaped(c, out);
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    // A multi-byte character: its length from the lead byte, then its continuation bytes.
    const size_t length = (c & 0xE0) == 0xC0   ? 2
                          : (c & 0xF0) == 0xE0 ? 3
                          : (c & 0xF8) == 0xF0 ? 4
                                               : 0;
    size_t have = 1;
    while (length > 0 && have < length && i + have < in.size() &&
           (static_cast<unsigned char>(in[i + have]) & 0xC0) == 0x80) {
      ++have;
    }
    if (length > 0 && have < length && i + have == in.size() && !final) return i;
    bool valid = length > 0 && have == length;
    uint32_t code = 0;
    if (valid) {
      code = c & (0xFF >> (length + 1));
      for (size_t k = 1; k < length; ++k) code = (code << 6) | (in[i + k] & 0x3F);
      static constexpr uint32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
      valid = code >= kMinimum[length] && code <= 0x10FFFF && !(code >= 0xD800 && code <= 0xDFFF);
    }
    if (!valid) {  // the lead byte alone; what follows is looked at afresh
      AppendEscaped(c, out);
      ++i;
      continue;
    }
    if (code >= 0x80 && code <= 0x9F) {  // C1: CSI (U+009B) and OSC (U+009D) among them
      for (size_t k = 0; k < length; ++k) {
        AppendEscaped(static_cast<unsigned char>(in[i + k]), out);
      }
    } else {
      out.append(in.data() + i, length);
    }
    i += length;
  }
  return i;
}

}  // namespace

std::string TerminalSafe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  AppendSafe(text, out, true);
  return out;
}

TerminalFilter::TerminalFilter(std::ostream& stream)
    : stream_(stream), target_(stream.rdbuf(this)) {}

TerminalFilter::~TerminalFilter() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    Write({}, true);
    target_->pubsync();
  }
  stream_.rdbuf(target_);
}

void TerminalFilter::Write(std::string_view s, bool final) {
  std::string in = std::move(pending_);
  in.append(s.data(), s.size());
  std::string out;
  out.reserve(in.size());
  const size_t taken = AppendSafe(in, out, final);
  pending_ = in.substr(taken);
  target_->sputn(out.data(), static_cast<std::streamsize>(out.size()));
}

TerminalFilter::int_type TerminalFilter::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  const char c = traits_type::to_char_type(ch);
  const std::lock_guard<std::mutex> lock(mutex_);
  Write(std::string_view(&c, 1), false);
  return ch;
}

std::streamsize TerminalFilter::xsputn(const char* s, std::streamsize n) {
  const std::lock_guard<std::mutex> lock(mutex_);
  Write(std::string_view(s, static_cast<size_t>(n)), false);
  return n;
}

int TerminalFilter::sync() {
  const std::lock_guard<std::mutex> lock(mutex_);
  return target_->pubsync();
}

}  // namespace ngraphbench
