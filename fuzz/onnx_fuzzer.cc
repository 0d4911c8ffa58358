// Fuzz target: the ONNX importer (a user's own .onnx file). Bad input must end in InputError
// before libonnx's checker or shape inference can crash on it or an initializer can exhaust
// memory; anything else is a bug.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_target.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/graph/onnx_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ngraphbench;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  fuzz::Accepted() = false;
  for (int64_t batch : {int64_t{0}, int64_t{2}}) {
    try {
      ImportOnnx(bytes, "fuzz.onnx", batch);
      fuzz::Accepted() = true;
    } catch (const InputError&) {
    }
  }
  return 0;
}
