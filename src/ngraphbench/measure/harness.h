// The timing loop. The harness owns the clock (steady_clock, integer ns); compilers never time
// themselves. Executable::Run() is synchronous, so the clock stops after the device is done.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/measure/sampler.h"

namespace ngraphbench {

enum class TimingBoundary {
  kCompute,    // Run() only: inputs already placed, outputs left where the compiler put them
  kEndToEnd,   // SetInputs() + Run() + GetOutputs(): host to host
};

// "compute" / "end_to_end"; throws InputError for anything else.
TimingBoundary ParseTimingBoundary(const std::string& name);

struct MeasureOptions {
  int64_t warmup = 10;
  int64_t repeats = 100;
  TimingBoundary boundary = TimingBoundary::kCompute;
  std::chrono::milliseconds sample_period{10};  // 0 turns the sampler thread off
};

struct Measurement {
  double first_run_ms = 0;             // the first Run() after compilation, not in the stats
  std::vector<int64_t> latencies_ns;   // one per timed repeat, raw
  SystemStats system;                  // over the timed repeats only
};

// Places `inputs`, times the first run, discards `warmup` runs, then times `repeats` runs.
Measurement Measure(Executable& executable, const std::vector<HostTensor>& inputs,
                    const MeasureOptions& options);

}  // namespace ngraphbench
