#include "ngraphbench/runner/rows.h"

#include <unistd.h>

#include <cstdlib>
#include <ctime>

#include "ngraphbench/core/process.h"
#include "ngraphbench/core/version.h"
#include "ngraphbench/graph/onnx_io.h"  // kOnnxParamsNote
#include "ngraphbench/measure/machine.h"
#include "ngraphbench/runner/parts.h"  // FillLatencyColumns
#include "ngraphbench/runner/worker.h"

namespace ngraphbench::worker {

namespace {

std::string Hostname() {
  char buf[256] = {};
  ::gethostname(buf, sizeof(buf) - 1);
  return buf;
}

// This machine's key in results/<device>/machine.json: handed down by the scheduler, computed
// here when the worker runs on its own (a "reproduce" command line).
std::string MachineId() {
  const char* id = std::getenv(kMachineIdEnv);
  return id && *id ? std::string(id) : DescribeMachine().machine_id;
}

std::string UtcTimestamp() {
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buf;
}

// The columns of what the sampler saw over the timed window of `requests` timed requests.
void FillSystemColumns(const ResolvedRun& spec, const SystemStats& system, ResultRow& row) {
  const int64_t requests = row.repeats.value_or(0);
  row.other_cpu_pct = system.other_cpu_pct;
  row.cpu_util_pct = system.cpu_util_pct;
  row.cpu_util_norm_pct = system.cpu_util_norm_pct;
  row.rss_start_mb = system.rss_start_mb;
  row.rss_peak_mb = system.rss_peak_mb;
  if (system.cpu_util_pct && requests > 0) {
    row.cpu_ms_per_inference = *system.cpu_util_pct / 100.0 * system.window_s * 1e3 /
                               static_cast<double>(requests);
  }
  row.notes = system.note;
  if (system.energy_j_total && requests > 0 && system.window_s > 0) {
    row.energy_j = *system.energy_j_total / static_cast<double>(requests);
    row.power_w = *system.energy_j_total / system.window_s;
  } else {
    row.notes += (row.notes.empty() ? "" : "; ") + system.energy_note;
  }
  const GpuStats& gpu = system.gpu;
  row.gpu_util_pct = gpu.gpu_util_pct;
  row.gpu_mem_mb = gpu.gpu_mem_mb;
  row.gpu_power_w = gpu.gpu_power_w;
  if (gpu.gpu_energy_j_total && requests > 0) {
    row.gpu_energy_j = *gpu.gpu_energy_j_total / static_cast<double>(requests);
  }
  if (!gpu.note.empty()) row.notes += (row.notes.empty() ? "" : "; ") + gpu.note;
  if (spec.run.model.family == "onnx") {
    row.notes += std::string(row.notes.empty() ? "" : "; ") + kOnnxParamsNote;
  }
}

}  // namespace

std::string JoinSettings(const std::map<std::string, std::string>& settings) {
  std::string out;
  for (const auto& [k, v] : settings) out += (out.empty() ? "" : ";") + k + "=" + v;
  return out;
}

std::string Join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : sep) + item;
  return out;
}

void FillWindowColumns(const ResolvedRun& spec, const TimedWindow& w, ResultRow& row) {
  if (w.streams > 0) {
    row.streams = w.streams;
    row.samples_per_s = w.samples_per_s;
  }
  row.first_run_ms = w.first_run_ms;
  row.warmup = w.warmup_runs;
  FillLatencyColumns(row, w.latencies_ns, spec.run.batch_size);
  row.processes = 1;
  row.process_p50s_ms = {*row.latency_p50_ms};
  row.processes_reason = "fixed";
  row.stop_reason = w.stop_reason;
  row.timed_window_s = w.window_s;
  FillSystemColumns(spec, w.system, row);
}

}  // namespace ngraphbench::worker

namespace ngraphbench {

using worker::Hostname;
using worker::Join;
using worker::MachineId;
using worker::UtcTimestamp;

// Declared in worker.h: the scheduler writes it for workers that crashed or timed out.
ResultRow BaseRow(const ResolvedRun& spec) {
  const RunSpec& run = spec.run;
  const CompilerConfig& config = spec.config;
  ResultRow row;
  row.run_id = run.run_id;
  row.experiment = run.experiment;
  row.model = run.model.name;
  row.family = run.model.network.empty() ? run.model.family : run.model.network;
  row.size = run.model.size;
  if (run.model.width > 0) row.width = run.model.width;
  if (run.model.depth > 0) row.depth = run.model.depth;
  row.batch_size = run.batch_size;
  row.compiler = config.compiler;
  row.device = spec.device;
  row.precision = config.precision;
  row.threads = config.threads;
  row.affinity = config.affinity;
  row.opt_level = config.opt_level;
  row.timing_boundary = run.timing_boundary;
  row.scenario = run.scenario;
  // Offline, server: the count asked for until the compiled model says how many it serves
  // (auto).
  if (run.scenario == kScenarioSingleStream) {
    row.streams = 1;
  } else if (run.streams > 0) {
    row.streams = run.streams;
  }
  row.compute_device = config.device;
  row.quick = run.quick;
  row.config_hash = spec.config_hash;  // the scheduler's, which resume compares against
  row.settings = Join(spec.settings, ";");
  row.warmup = run.warmup;
  row.repeats = run.repeats;
  row.timestamp = UtcTimestamp();
  row.host = Hostname();
  row.machine_id = MachineId();
  row.ngraphbench_version = BuildVersion();
  return row;
}

}  // namespace ngraphbench
