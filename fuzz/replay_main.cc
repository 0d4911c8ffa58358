// Runs a fuzz target over every file of the given files and directories, once each, without
// libFuzzer: the seed corpus and every crasher ever found become a regression test that the
// ordinary (gcc) build runs under CTest. A crash, a sanitizer report or an uncaught exception
// fails it. No inputs at all is a failure too: an empty corpus would test nothing.
//
//   <name>_fuzz_replay <seeds>... [--refused <regressions>...]
//
// Every input after --refused must also be refused with InputError (fuzz::Accepted() false):
// those are inputs a fix turned from a crash into a clear error, which must stay an error.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<std::pair<fs::path, bool>> inputs;  // path, must be refused
  bool refused = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--refused") {
      refused = true;
      continue;
    }
    const fs::path arg = argv[i];
    if (fs::is_directory(arg)) {
      for (const auto& entry : fs::recursive_directory_iterator(arg)) {
        if (entry.is_regular_file() && entry.path().filename() != "README.md") {
          inputs.emplace_back(entry.path(), refused);
        }
      }
    } else if (fs::is_regular_file(arg)) {
      inputs.emplace_back(arg, refused);
    } else {
      std::fprintf(stderr, "no such file or directory: %s\n", argv[i]);
      return 2;
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "no inputs to replay\n");
    return 1;
  }
  std::sort(inputs.begin(), inputs.end());
  int accepted_wrongly = 0;
  for (const auto& [path, must_refuse] : inputs) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "%s\n", path.c_str());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    if (must_refuse && ngraphbench::fuzz::Accepted()) {
      std::fprintf(stderr, "  accepted, but it must be refused with a clear error\n");
      ++accepted_wrongly;
    }
  }
  std::printf("replayed %zu inputs, %d accepted that must be refused\n", inputs.size(),
              accepted_wrongly);
  return accepted_wrongly == 0 ? 0 : 1;
}
