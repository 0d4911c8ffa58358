// Fuzz target: the ONNX importer (a user's own .onnx file), its shape inference and folding, and
// the working-set estimate every model passes before a run (graph/working_set.h). Bad input must
// end in InputError before libonnx's checker or shape inference can crash on it, an initializer
// can exhaust memory, or a declared shape can reach a run; anything else is a bug.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_target.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/graph/onnx_io.h"
#include "ngraphbench/graph/working_set.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ngraphbench;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  fuzz::Accepted() = false;
  for (int64_t batch : {int64_t{0}, int64_t{2}}) {
    try {
      const Graph graph = ImportOnnx(bytes, "fuzz.onnx", batch);
      CheckWorkingSet(graph, "fuzz.onnx");
      fuzz::Accepted() = true;
    } catch (const InputError&) {
    }
  }
  return 0;
}
