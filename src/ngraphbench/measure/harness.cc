#include "ngraphbench/measure/harness.h"

#include "ngraphbench/core/error.h"

namespace ngraphbench {

namespace {

using Clock = std::chrono::steady_clock;

int64_t ElapsedNs(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
}

// One iteration inside the timing boundary; returns its latency.
int64_t TimedIteration(Executable& executable, const std::vector<HostTensor>& inputs,
                       TimingBoundary boundary) {
  if (boundary == TimingBoundary::kCompute) {
    const auto start = Clock::now();
    executable.Run();
    return ElapsedNs(start, Clock::now());
  }
  const auto start = Clock::now();
  executable.SetInputs(inputs);
  executable.Run();
  std::vector<HostTensor> outputs = executable.GetOutputs();
  const auto end = Clock::now();
  return ElapsedNs(start, end);
}

}  // namespace

TimingBoundary ParseTimingBoundary(const std::string& name) {
  if (name == "compute") return TimingBoundary::kCompute;
  if (name == "end_to_end") return TimingBoundary::kEndToEnd;
  throw InputError("timing_boundary '" + name + "' is not one of: compute, end_to_end");
}

Measurement Measure(Executable& executable, const std::vector<HostTensor>& inputs,
                    const MeasureOptions& options) {
  Measurement m;
  executable.SetInputs(inputs);
  m.first_run_ms = static_cast<double>(TimedIteration(executable, inputs, options.boundary)) / 1e6;
  for (int64_t i = 0; i < options.warmup; ++i) {
    TimedIteration(executable, inputs, options.boundary);
  }
  m.latencies_ns.resize(static_cast<size_t>(options.repeats));
  SystemSampler sampler(options.sample_period);
  sampler.Start();
  for (auto& latency : m.latencies_ns) {
    latency = TimedIteration(executable, inputs, options.boundary);
  }
  m.system = sampler.Stop();
  return m;
}

}  // namespace ngraphbench
