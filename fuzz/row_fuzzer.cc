// Fuzz target: the result-row and latency-trace readers (rows in a results tree are input too:
// copied, edited or damaged by hand). Bad input must end in InputError. A row that parses must
// also survive a round trip: written and read again, it writes the same text.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz/fuzz_target.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/results/csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ngraphbench;
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::Accepted() = false;
  try {
    const ResultRow row = ParseRowCsv(text, "fuzz.csv");
    const std::string once = FormatRowCsv(row);
    const std::string twice = FormatRowCsv(ParseRowCsv(once, "fuzz.csv"));
    if (once != twice) std::abort();  // a row ngraphbench wrote must read back as itself
    fuzz::Accepted() = true;
  } catch (const InputError&) {
  }
  try {
    ParseLatencies(text, "fuzz.latencies.csv");
    fuzz::Accepted() = true;
  } catch (const InputError&) {
  }
  return 0;
}
