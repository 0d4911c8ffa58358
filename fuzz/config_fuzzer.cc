// Fuzz target: the YAML loaders of configs/experiments.yaml and configs/<compiler>.yaml, and the
// grid each experiment expands into. Bad input must end in InputError; anything else (a crash, a
// sanitizer report, another exception, running out of memory) is a bug.
#include <cstdint>
#include <string>

#include "ngraphbench/compilers/registry.h"
#include "fuzz/fuzz_target.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/experiments/config.h"
#include "ngraphbench/experiments/grid.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ngraphbench;
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::Accepted() = false;
  try {
    const ExperimentsFile file = ParseExperiments(text, "fuzz.yaml");
    for (const ExperimentConfig& e : file.experiments) {
      ExpandGrid(e, false);
      ExpandGrid(e, true);
    }
    fuzz::Accepted() = true;
  } catch (const InputError&) {
  }
  for (const CompilerInfo& info : AllCompilers()) {
    try {
      ParseCompilerConfig(text, "fuzz.yaml", info);
      fuzz::Accepted() = true;
    } catch (const InputError&) {
    }
  }
  return 0;
}
