// Shared by the fuzz targets and replay_main.cc.
#pragma once

namespace ngraphbench::fuzz {

// Whether the input just given to LLVMFuzzerTestOneInput was accepted (some parser returned a
// value) rather than refused with InputError. libFuzzer ignores it; replay_main.cc checks that
// every file of a regression directory is refused, so a crasher that the fix turned into an
// accepted input is noticed too.
inline bool& Accepted() {
  static bool accepted = false;
  return accepted;
}

}  // namespace ngraphbench::fuzz
