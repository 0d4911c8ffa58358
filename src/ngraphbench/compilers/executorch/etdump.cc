// Reads an ETDump back as JSON, written by the flatbuffers compiler the executorch wheel ships
// (data/bin/flatc) from the wheel's own ETDump schema: the wheel has no C++ reader for ETDump's
// flatbuffer, and its Python one (executorch.devtools.Inspector) takes seconds to import where
// flatc takes milliseconds.
#include "ngraphbench/compilers/executorch/etdump.h"

#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "ngraphbench/compilers/compile_helper.h"
#include "ngraphbench/core/error.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

// The wheel's flatbuffers compiler and ETDump schema (scalar_type.fbs, which it includes, lies
// beside it), found by CMake in the wheel this module was built against.
const fs::path kFlatc = NGB_EXECUTORCH_FLATC;
const fs::path kEtdumpSchema = NGB_EXECUTORCH_ETDUMP_SCHEMA;

}  // namespace

KernelProfile ReadEtdump(const void* data, size_t size, int warmup, int runs) {
  char dir[] = "/tmp/ngraphbench-etdump-XXXXXX";
  if (::mkdtemp(dir) == nullptr) throw CompileError("executorch: cannot make a folder in /tmp");
  const fs::path folder(dir);
  const fs::path etdump = folder / "model.etdp";
  {
    std::ofstream out(etdump, std::ios::binary);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  // flatc writes <folder>/model.json; --defaults-json keeps the fields at their defaults (an
  // operator's delegate_debug_id_int of -1).
  const int status = RunProcess({kFlatc.string(), "--json", "--strict-json", "--defaults-json",
                                 "--size-prefixed", "--raw-binary", "-o", folder.string(),
                                 kEtdumpSchema.string(), "--", etdump.string()},
                                folder / "read.log", "executorch",
                                "reinstall the executorch wheel (./setup.sh)");
  const std::string text = ReadFile(folder / "model.json", kMaxTraceBytes);
  const std::string log = ReadLogTail((folder / "read.log").string());
  fs::remove_all(folder);
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
  if (status != 0 || !parsed.is_object() || !parsed.contains("run_data") ||
      !parsed["run_data"].is_array()) {
    throw CompileError("executorch: reading the ETDump with " + kFlatc.string() + " failed (" +
                       (status != 0 ? LastLine(log) : "no run_data in its JSON") + ")");
  }
  // One block of events per execute() ("Execute"; the load's events are in a block of their
  // own, "Default"), its events in the order they ended. An event is an operator left to the
  // runtime's kernels (its `name`), or an XNNPACK operator inside a delegate call (no name: XNNPACK
  // names it in `delegate_debug_id_str`), or one of the runtime's own steps around them.
  struct Event {
    std::string name;
    bool delegate = false;
    double ms = 0;
  };
  std::vector<std::vector<Event>> executes;
  for (const auto& block : parsed["run_data"]) {
    if (!block.is_object() || block.value("name", "") != "Execute") continue;
    std::vector<Event>& events = executes.emplace_back();
    for (const auto& e : block.value("events", nlohmann::json::array())) {
      if (!e.is_object() || !e.contains("profile_event")) continue;
      const auto& p = e["profile_event"];
      Event event;
      event.name = p.value("name", "");
      const std::string delegate_name = p.value("delegate_debug_id_str", "");
      const int delegate_id = p.value("delegate_debug_id_int", -1);
      event.delegate = !delegate_name.empty() || delegate_id != -1;
      if (event.name.empty()) {
        event.name = !delegate_name.empty() ? delegate_name : std::to_string(delegate_id);
      }
      // Ticks are nanoseconds on Linux (the runtime's POSIX platform layer).
      const uint64_t start = p.value("start_time", uint64_t{0});
      const uint64_t end = p.value("end_time", uint64_t{0});
      event.ms = end > start ? static_cast<double>(end - start) / 1e6 : 0.0;
      events.push_back(std::move(event));
    }
  }
  if (executes.size() != static_cast<size_t>(warmup + runs)) {
    throw CompileError("executorch: the ETDump holds " + std::to_string(executes.size()) +
                       " executions, not the " + std::to_string(warmup + runs) + " it ran");
  }
  // One kernel per event name (an operator left to the runtime's kernels, or an XNNPACK
  // operator inside a delegate call), summed over the profiled runs. The runtime's events around
  // each call enclose the operators' own events and are left out where those exist (else their
  // time would count twice, as ExecuTorch's Inspector also says): DELEGATE_CALL around a call
  // into XNNPACK, whose operators have events of their own, and OPERATOR_CALL around a kernel
  // of the runtime's, which has its own `native_call_<operator>` event.
  bool xnnpack_events = false, kernel_events = false;
  for (const auto& events : executes) {
    for (const Event& e : events) {
      xnnpack_events |= e.delegate;
      kernel_events |= e.name.rfind("native_call_", 0) == 0;
    }
  }
  std::map<std::string, ProfiledKernel> kernels;
  for (size_t run = warmup; run < executes.size(); ++run) {
    for (const Event& e : executes[run]) {
      // The runtime's own step around the model (execute as a whole): not a kernel.
      if (e.name == "Method::execute" || (e.name == "DELEGATE_CALL" && xnnpack_events) ||
          (e.name == "OPERATOR_CALL" && kernel_events)) {
        continue;
      }
      ProfiledKernel& k = kernels[e.name];
      k.name = e.name;
      k.device = e.delegate || e.name == "DELEGATE_CALL" ? "XNNPACK" : "ExecuTorch CPU kernels";
      k.time_ms += e.ms;
      k.calls += 1;
    }
  }
  KernelProfile profile;
  profile.profiler = "ExecuTorch ETDump";
  profile.runs = runs;
  for (auto& [name, k] : kernels) profile.kernels.push_back(std::move(k));
  profile.notes.push_back(
      "a second load of the same .pte with ExecuTorch's event tracer (ETDumpGen, all events), "
      "read with the wheel's flatc and ETDump schema: each operator left to ExecuTorch's CPU "
      "kernels is one kernel, and each XNNPACK operator (as XNNPACK names it, e.g. "
      "'Convolution (NHWC, F32) IGEMM #1') inside the delegate calls one; the calls' own "
      "overhead (DELEGATE_CALL and OPERATOR_CALL less their operators) is not in the kernels");
  profile.notes.push_back("nodes are unknown: the lowering keeps no link to the ONNX nodes");
  return profile;
}

}  // namespace ngraphbench
