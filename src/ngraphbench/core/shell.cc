#include "ngraphbench/core/shell.h"

namespace ngraphbench {

namespace {

bool IsPlain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string("_-./:=,@%+").find(c) != std::string::npos;
}

}  // namespace

std::string ShellQuote(const std::string& s) {
  bool plain = !s.empty();
  for (char c : s) plain = plain && IsPlain(c);
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string ShellCommandLine(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) out += (out.empty() ? "" : " ") + ShellQuote(a);
  return out;
}

}  // namespace ngraphbench
