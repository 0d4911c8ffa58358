// Command lines printed for a user to paste into a shell ("reproduce:", "resume with:") and the
// few that ngraphbench hands to /bin/sh itself: every argument quoted by one function, so that
// no file or folder name (`m;$(touch x).onnx`) can run code when pasted.
#pragma once

#include <string>
#include <vector>

namespace ngraphbench {

// `s` as one word of a POSIX shell: unchanged when it holds only characters no shell treats
// specially (letters, digits and _ - . / : = , @ % +), else in single quotes, each ' as '\''.
// The empty string is ''.
std::string ShellQuote(const std::string& s);

// The arguments quoted and joined by spaces.
std::string ShellCommandLine(const std::vector<std::string>& argv);

}  // namespace ngraphbench
