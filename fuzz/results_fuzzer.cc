// Fuzz target: the files of a results tree that ngraphbench keeps beside its rows and reads back
// (they are input too: copied between machines, edited or damaged by hand): machine.json, merged
// with this machine's entry; a claim or lock file; a reference-output cache entry. Bad input must
// end in InputError (or, for a claim, nullopt: an unreadable claim is judged by its age); what is
// accepted must round-trip, and a merged machine.json must stay within what the tool reads.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz/fuzz_target.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/measure/check.h"
#include "ngraphbench/measure/machine.h"
#include "ngraphbench/results/claim.h"

namespace {

// A fixed machine (DescribeMachine reads /proc: not the fuzzer's business).
const ngraphbench::MachineInfo& Machine() {
  static const ngraphbench::MachineInfo machine = [] {
    ngraphbench::MachineInfo m;
    m.cpu_model = "Fuzz CPU";
    m.arch = "x86_64";
    m.threads = 2;
    m.gpus = {"Fuzz GPU"};
    m.load_avg = {0.5, 0.25, 0.125};
    m.machine_id = "0123456789abcdef";
    return m;
  }();
  return machine;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ngraphbench;
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::Accepted() = false;
  try {
    const std::string merged = MergeMachineFile(text, "fuzz/machine.json", Machine());
    // Never larger than the tool reads back, and merging again changes nothing.
    if (merged.size() > kMaxMachineJsonBytes) std::abort();
    if (MergeMachineFile(merged, "fuzz/machine.json", Machine()) != merged) std::abort();
    fuzz::Accepted() = true;
  } catch (const InputError&) {
  }
  if (const std::optional<ClaimHolder> holder = ParseClaim(text)) {
    const std::optional<ClaimHolder> again = ParseClaim(FormatClaim(*holder));
    if (!again || again->host != holder->host || again->pid != holder->pid ||
        again->boot_id != holder->boot_id || again->start_time != holder->start_time) {
      std::abort();  // a claim this process would write must read back as itself
    }
    fuzz::Accepted() = true;
  }
  try {
    const std::vector<HostTensor> tensors = ParseTensorFile(text, "fuzz.bin");
    if (FormatTensorFile(tensors) != text) std::abort();  // the format has one way to write
    fuzz::Accepted() = true;
  } catch (const InputError&) {
  }
  return 0;
}
