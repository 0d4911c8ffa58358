// Fuzz target: `ngraphbench analyze` on a zip archive of results (the released traces, or one a
// user downloaded): the archive, its rows and their traces. Bad input must end in InputError; a
// directory that claims huge entries must not exhaust memory.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "ngraphbench/analysis/load.h"
#include "fuzz/fuzz_target.h"
#include "ngraphbench/core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ngraphbench;
  // libzip reads archives from files: one scratch file per process, rewritten for each input and
  // removed at exit.
  static const struct Scratch {
    std::string path;
    ~Scratch() { ::unlink(path.c_str()); }
  } scratch{(::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") +
            std::string("/ngb-zip-fuzz-") + std::to_string(::getpid()) + ".zip"};
  const std::string& path = scratch.path;
  fuzz::Accepted() = false;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    bool all_read = true;
    for (const LoadedRun& run : LoadRuns(path)) {
      try {
        ReadRunLatencies(run);
      } catch (const InputError&) {
        all_read = false;
      }
    }
    fuzz::Accepted() = all_read;
  } catch (const InputError&) {
  }
  return 0;
}
