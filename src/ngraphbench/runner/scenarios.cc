#include "ngraphbench/runner/scenarios.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/random.h"
#include "ngraphbench/experiments/config.h"
#include "ngraphbench/measure/aggregate.h"
#include "ngraphbench/measure/gpu_monitor.h"
#include "ngraphbench/measure/harness.h"
#include "ngraphbench/measure/offline.h"
#include "ngraphbench/measure/server.h"
#include "ngraphbench/measure/stats.h"
#include "ngraphbench/measure/verdict.h"
#include "ngraphbench/runner/rows.h"

namespace ngraphbench::worker {

namespace {

// How process `process` of the run measures (-1: the whole run in one process).
MeasureOptions OptionsFor(const ResolvedRun& spec, int process, bool capture_outputs) {
  const RunSpec& run = spec.run;
  MeasureOptions options;
  options.boundary = ParseTimingBoundary(run.timing_boundary);
  options.sample_period = std::chrono::milliseconds(spec.sample_ms);
  // Whether to add processes (stop `ci`) is the scheduler's call: each process times a fixed
  // share (measure/aggregate.h).
  const ProcessShare share =
      ShareOfRun(WorkOf(run, static_cast<double>(spec.sample_ms)), process >= 0);
  options.warmup = share.warmup;
  options.repeats = share.repeats;
  options.max_time = std::chrono::duration<double>(share.max_time_s);
  options.min_time = std::chrono::duration<double>(share.min_time_s);
  options.max_repeats = share.max_repeats;
  options.min_timed_repeats = share.min_timed_repeats;
  options.stop = process >= 0 ? StopRule::kFixed : ParseStopRule(run.stop);
  options.ci_rel_target = run.ci_rel_target;
  options.ci_min_repeats = run.ci_min_repeats;
  options.capture_first_outputs = capture_outputs;
  // The GPU only where the compiler computes on one: a CPU run's GPU columns stay empty.
  if (spec.config.device == "cuda") options.gpu = GpuMonitorSettingsFromEnvironment();
  return options;
}

// The executable's execution contexts, as many as it was compiled to serve (offline and
// server). A compiler without execution contexts is refused here, naming it: never a single
// stream passed off as several.
struct Contexts {
  std::vector<std::unique_ptr<RunContext>> owned;
  std::vector<RunContext*> raw;
};

Contexts MakeContexts(const ResolvedRun& spec, Executable& executable) {
  const std::string& scenario = spec.run.scenario;
  const int64_t streams = executable.Streams();
  if (streams < 1 || (spec.run.streams > 0 && streams != spec.run.streams)) {
    throw CompileError(fmt::format("{}: asked for {} streams, the compiled model serves {}",
                                   spec.config.compiler, StreamsName(spec.run.streams),
                                   streams));
  }
  Contexts contexts;
  for (int64_t i = 0; i < streams; ++i) {
    contexts.owned.push_back(executable.NewContext());
    if (!contexts.owned.back()) {
      throw CompileError(spec.config.compiler + " cannot run scenario " + scenario +
                         " yet: it has no execution contexts (Executable::NewContext), which " +
                         scenario + " needs to keep several requests of one compiled model in "
                         "flight; run it with scenario single_stream");
    }
    contexts.raw.push_back(contexts.owned.back().get());
  }
  return contexts;
}

// The seed of a server run's arrivals: the experiment's arrival_seed, else one from the run id
// without its precision (SeedRunId), as the inputs' seeds are (docs/measurement.md, Server).
uint64_t ArrivalSeed(const RunSpec& run) {
  return run.server.arrival_seed ? *run.server.arrival_seed
                                 : Fnv1a64("arrivals:" + SeedRunId(run.run_id));
}

// One step of a find_peak search, as the row's notes tell it; an invalid step says why in a
// word or two (the row's invalid_reason has the whole reason for the step it reports).
std::string StepNote(const ServerMeasurement& m, double percentile) {
  std::string verdict = m.bound_met ? "met" : "broken";
  if (!m.invalid_rules.empty()) {
    std::string why;
    for (const ServerRule rule : m.invalid_rules) {
      const char* word = rule == ServerRule::kGeneratorBehind ? "generator behind"
                         : rule == ServerRule::kQueries       ? "too few queries"
                                                              : "too short";
      why += (why.empty() ? "" : ", ") + std::string(word);
    }
    verdict = "invalid: " + why;
  }
  return fmt::format("{:.4g} QPS {} (p{:g} {:.3g} ms{})", m.target_qps, verdict,
                     percentile, m.percentile_ms,
                     m.completed < m.issued
                         ? fmt::format(", {} of {} left queued", m.issued - m.completed, m.issued)
                         : std::string());
}

// One step of a find_peak search as `<run_id>.server_steps.csv` holds it.
ServerStep StepOf(const ServerMeasurement& m, int64_t number) {
  ServerStep step;
  step.step = number;
  step.target_qps = m.target_qps;
  step.achieved_qps = m.achieved_qps;
  if (!m.latencies_ns.empty()) {
    std::vector<double> ms;
    ms.reserve(m.latencies_ns.size());
    for (const int64_t ns : m.latencies_ns) ms.push_back(static_cast<double>(ns) / 1e6);
    std::sort(ms.begin(), ms.end());
    step.latency_p50_ms = Percentile(ms, 50);
  }
  step.latency_at_percentile_ms = m.percentile_ms;
  step.bound_met = m.bound_met;
  step.valid = m.invalid_reasons.empty();
  step.invalid_reason = Join(m.invalid_reasons, "; ");
  step.queries_issued = m.issued;
  step.queries_completed = m.completed;
  return step;
}

}  // namespace

Measured MeasureProcess(const ResolvedRun& spec, int process, Executable& executable,
                        const BuiltModel& model, bool capture_outputs,
                        std::vector<int64_t>& latencies, ResultRow& row) {
  Measurement m =
      Measure(executable, model.inputs, OptionsFor(spec, process, capture_outputs));
  FillWindowColumns(spec, m, row);
  latencies = std::move(m.latencies_ns);
  Measured measured{m.system, m.window_s, {}};
  if (capture_outputs) measured.first_outputs.push_back(std::move(m.first_outputs));
  // A timed run, or a pause between two, far beyond the median: the process stopped there.
  const Stalls stalls = FindStalls(latencies, m.pauses_ns);
  if (const std::string note = DescribeStalls(stalls, m.window_s); !note.empty()) {
    row.notes += (row.notes.empty() ? "" : "; ") +
                 (process >= 0 ? fmt::format("process {} ", process) : std::string()) + note;
  }
  measured.stall_s = static_cast<double>(stalls.total_ns) / 1e9;
  return measured;
}

Measured MeasureOfflineProcess(const ResolvedRun& spec, int process, Executable& executable,
                               const BuiltModel& model, bool capture_outputs,
                               std::vector<int64_t>& latencies, ResultRow& row) {
  const Contexts contexts = MakeContexts(spec, executable);
  OfflineMeasurement m = MeasureOffline(contexts.raw, model.inputs, spec.run.batch_size,
                                        OptionsFor(spec, process, capture_outputs));
  FillWindowColumns(spec, m, row);
  latencies = std::move(m.latencies_ns);
  return Measured{m.system, m.window_s, std::move(m.first_outputs)};
}

Measured MeasureServerProcess(const ResolvedRun& spec, int process, Executable& executable,
                              const BuiltModel& model, bool capture_outputs,
                              std::vector<int64_t>& latencies, ResultRow& row) {
  const RunSpec& run = spec.run;
  const Contexts contexts = MakeContexts(spec, executable);
  MeasureOptions options = OptionsFor(spec, process, capture_outputs);
  ServerOptions server;
  server.target_qps = run.server.target_qps;
  server.latency_bound_ms = run.server.latency_bound_ms;
  server.percentile = run.server.latency_percentile;
  server.seed = ArrivalSeed(run);
  server.min_duration = std::chrono::duration<double>(run.server.min_duration_s);
  server.min_queries = MinServerQueries(server.percentile);
  server.max_duration = std::chrono::duration<double>(run.max_time_s);

  std::optional<ServerMeasurement> reported;
  std::vector<std::vector<HostTensor>> first_outputs;
  double first_run_ms = 0;
  std::vector<std::string> steps;
  std::vector<ServerStep> server_steps;
  auto measure = [&](double qps) {
    server.target_qps = qps;
    ServerMeasurement m =
        MeasureServer(contexts.raw, model.inputs, run.batch_size, options, server);
    if (!reported) {  // the first step's first runs: the cold one, and the outputs to check
      first_run_ms = m.first_run_ms;
      first_outputs = std::move(m.first_outputs);
      options.capture_first_outputs = false;
    }
    steps.push_back(StepNote(m, server.percentile));
    server_steps.push_back(StepOf(m, static_cast<int64_t>(server_steps.size()) + 1));
    const bool met = MetTheBound(m);
    if (ReportsStep(m, reported ? &*reported : nullptr)) reported = std::move(m);
    return met;
  };
  std::vector<std::string> search_reasons;
  if (!run.server.find_peak) {
    measure(run.server.target_qps);
  } else {
    // No rate below the one whose expected queries over the time cap are the percentile's
    // minimum: a step there is invalid (too few queries) whatever the system does, and halving
    // on would only measure more of them, each as long as the cap.
    const double min_qps = server.max_duration.count() > 0
                               ? static_cast<double>(server.min_queries) /
                                     server.max_duration.count()
                               : 0.01;
    const PeakSearch search = FindPeak(run.server.target_qps, measure, kPeakRelTolerance,
                                       kPeakMaxSteps, min_qps);
    row.peak_qps = search.peak_qps;
    row.peak_steps = static_cast<int64_t>(search.steps.size());
    std::string note = fmt::format("find_peak (p{:g} <= {:g} ms): ", server.percentile,
                                   server.latency_bound_ms);
    for (size_t i = 0; i < steps.size(); ++i) note += (i ? ", " : "") + steps[i];
    note += search.peak_qps ? fmt::format("; peak {:.4g} QPS ({})", *search.peak_qps,
                                          search.stop_reason)
                            : fmt::format("; no peak ({})", search.stop_reason);
    steps = {note};
    if (!search.peak_qps) {
      search_reasons.push_back(fmt::format(
          "server: find_peak found no rate that met the bound, down to {:.4g} QPS",
          search.steps.back().qps));
    }
  }
  ServerMeasurement& m = *reported;
  m.first_run_ms = first_run_ms;  // the first step's: the cold run
  FillWindowColumns(spec, m, row);
  latencies = m.latencies_ns;
  row.target_qps = m.target_qps;
  row.latency_bound_ms = server.latency_bound_ms;
  row.latency_percentile = server.percentile;
  row.latency_at_percentile_ms = m.percentile_ms;
  row.bound_met = m.bound_met;
  row.queries_issued = m.issued;
  row.queries_completed = m.completed;
  row.achieved_qps = m.achieved_qps;
  row.issue_delay_p99_ms = m.issue_delay_p99_ms;
  if (m.completed < m.issued) {
    steps.push_back(fmt::format("{} of {} queries were still queued when the drain ended; "
                                "their latencies are the time they had waited",
                                m.issued - m.completed, m.issued));
  }
  for (const std::string& note : steps) {
    row.notes += (row.notes.empty() ? "" : "; ") + note;
  }
  Measured measured{m.system, m.window_s, std::move(first_outputs)};
  measured.invalid_reasons = m.invalid_reasons;
  measured.invalid_reasons.insert(measured.invalid_reasons.end(), search_reasons.begin(),
                                  search_reasons.end());
  if (run.server.find_peak) measured.server_steps = std::move(server_steps);
  return measured;
}

}  // namespace ngraphbench::worker
