// The worker: one process per run. Loads exactly one compiler module, builds the model,
// compiles, measures and writes the run's row atomically.
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <functional>
#include <iostream>

#include "ngraphbench/cli/commands.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/graph/onnx_io.h"
#include "ngraphbench/measure/harness.h"
#include "ngraphbench/measure/heap.h"
#include "ngraphbench/measure/stats.h"
#include "ngraphbench/models/zoo.h"
#include "ngraphbench/results/csv.h"

namespace ngraphbench {

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string Hostname() {
  char buf[256] = {};
  ::gethostname(buf, sizeof(buf) - 1);
  return buf;
}

std::string UtcTimestamp() {
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buf;
}

std::string JoinSettings(const std::map<std::string, std::string>& settings) {
  std::string out;
  for (const auto& [k, v] : settings) out += (out.empty() ? "" : ";") + k + "=" + v;
  return out;
}

const RunSpec& FindRun(const std::vector<RunSpec>& runs, const WorkerArgs& args) {
  for (const auto& run : runs) {
    if (run.run_id == args.run_id) return run;
  }
  throw InputError("run '" + args.run_id + "' is not in experiment '" +
                   args.run.grid.experiment + "'" + (args.run.grid.quick ? " (--quick)" : ""));
}

}  // namespace

// The identity columns of a run, filled before anything can fail. The scheduler uses the same
// function for the rows of workers that crashed or timed out.
ResultRow BaseRow(const RunSpec& run, const RunArgs& args, const CompilerConfig& config) {
  ResultRow row;
  row.run_id = run.run_id;
  row.experiment = run.experiment;
  row.model = run.model.name;
  row.family = run.model.network.empty() ? run.model.family : run.model.network;
  row.size = run.model.size;
  if (run.model.width > 0) row.width = run.model.width;
  if (run.model.depth > 0) row.depth = run.model.depth;
  row.batch_size = run.batch_size;
  row.compiler = args.compiler;
  row.device = args.device;
  row.precision = config.precision;
  row.threads = config.threads;
  row.opt_level = config.opt_level;
  row.timing_boundary = run.timing_boundary;
  row.warmup = run.warmup;
  row.repeats = run.repeats;
  row.timestamp = UtcTimestamp();
  row.host = Hostname();
  row.ngraphbench_version = NGB_VERSION;
  return row;
}

int CmdProbe(const std::string& compiler) {
  std::cout << LoadCompiler(compiler)->Version() << "\n";
  return kExitOk;
}

int CmdWorker(const WorkerArgs& args) {
  const CompilerInfo& info = FindCompiler(args.run.compiler);
  const CompilerConfig config = ResolveCompilerConfig(args.run.grid.configs_dir, info);
  const std::vector<RunSpec> runs = ResolveGrid(args.run.grid);
  const RunSpec& run = FindRun(runs, args);
  const std::string dir = RunDirectory(args.run);

  ResultRow row = BaseRow(run, args.run, config);
  // Before anything is allocated for the run: every run's heap behaves the same (heap.h).
  const std::string heap = PinHeapThresholds();
  std::vector<int64_t> latencies;
  try {
    auto start = Clock::now();
    const Graph graph = BuildModel(run.model, run.batch_size);
    const std::string onnx = info.consumes_onnx ? ExportOnnx(graph) : std::string();
    row.build_s = SecondsSince(start);
    row.params = graph.ParameterCount();
    row.macs = CountMacs(graph) / run.batch_size;
    std::vector<HostTensor> inputs;
    for (const auto& in : graph.inputs) {
      row.input_shape += (row.input_shape.empty() ? "" : ";") + ShapeToString(in.shape);
      inputs.push_back(RandomNormal(in.shape, std::hash<std::string>{}(run.run_id + in.name)));
    }

    std::unique_ptr<Compiler> compiler = LoadCompiler(info.name);
    row.compiler_version = compiler->Version();
    start = Clock::now();
    std::unique_ptr<Executable> executable =
        compiler->Compile(CompileRequest{graph, onnx, config, args.run.results_dir + "/.cache",
                                         args.run.grid.quick});
    row.compile_s = SecondsSince(start);

    MeasureOptions options;
    options.warmup = run.warmup;
    options.repeats = run.repeats;
    options.boundary = ParseTimingBoundary(run.timing_boundary);
    options.sample_period = std::chrono::milliseconds(args.run.sample_ms);
    options.max_time = std::chrono::duration<double>(run.max_time_s);
    Measurement m = Measure(*executable, inputs, options);
    latencies = std::move(m.latencies_ns);

    const LatencyStats s = Summarize(latencies, run.batch_size);
    row.first_run_ms = m.first_run_ms;
    row.warmup = m.warmup_runs;
    row.repeats = static_cast<int64_t>(latencies.size());
    row.latency_mean_ms = s.mean_ms;
    row.latency_std_ms = s.std_ms;
    row.latency_min_ms = s.min_ms;
    row.latency_p50_ms = s.p50_ms;
    row.latency_p90_ms = s.p90_ms;
    row.latency_p95_ms = s.p95_ms;
    row.latency_p99_ms = s.p99_ms;
    row.latency_max_ms = s.max_ms;
    row.cv = s.cv;
    row.throughput_median_sps = s.throughput_median_sps;
    row.throughput_mean_sps = s.throughput_mean_sps;
    row.cpu_util_pct = m.system.cpu_util_pct;
    row.cpu_util_norm_pct = m.system.cpu_util_norm_pct;
    row.rss_start_mb = m.system.rss_start_mb;
    row.rss_peak_mb = m.system.rss_peak_mb;
    auto settings = executable->EffectiveSettings();
    settings["heap"] = heap;
    row.compiler_settings = JoinSettings(settings);
    if (auto it = settings.find("threads"); it != settings.end()) {
      row.threads = std::stoll(it->second);
    }
    row.status = kStatusOk;
  } catch (const CompileError& e) {
    row.status = kStatusError;
    row.error = e.what();
  } catch (const InputError& e) {
    row.status = kStatusError;
    row.error = e.what();
  }
  // The trace first, the row last: a row on disk means the run is complete.
  if (!latencies.empty()) WriteLatencies(LatenciesPath(dir, run.run_id), latencies);
  WriteRow(RowPath(dir, run.run_id), row);
  if (row.status != kStatusOk) std::cerr << "error: " << row.error << "\n";
  return kExitOk;
}

}  // namespace ngraphbench
