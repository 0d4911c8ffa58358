// The result row: one tidy row per run, fixed columns, units in names (DESIGN.md §7).
// Serialized in exactly one place (results/csv.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ngraphbench {

// Bump when a column is added, removed or changes meaning.
constexpr int kSchemaVersion = 1;

// Statuses a run can end in.
inline constexpr const char* kStatusOk = "ok";
inline constexpr const char* kStatusError = "error";      // the compiler refused the model
inline constexpr const char* kStatusCrashed = "crashed";  // the worker died
inline constexpr const char* kStatusTimeout = "timeout";  // the worker ran past the timeout

struct ResultRow {
  // Identity
  std::string run_id, experiment, model, family, size;
  std::optional<int64_t> width, depth;
  int64_t batch_size = 0;
  std::string input_shape;  // e.g. "8x64x56x56"; several inputs joined by ';'
  std::string compiler, device, precision;
  std::optional<int64_t> threads;
  std::string opt_level, timing_boundary;
  // Model
  std::optional<int64_t> params, macs;  // macs: multiply-accumulates for one sample
  // Phases
  std::optional<double> build_s, compile_s, first_run_ms;
  // Latency of one synchronous run over one batch
  std::optional<double> latency_mean_ms, latency_std_ms, latency_min_ms, latency_p50_ms,
      latency_p90_ms, latency_p95_ms, latency_p99_ms, latency_max_ms, cv;
  // Throughput in samples per second
  std::optional<double> throughput_median_sps, throughput_mean_sps;
  // System, over the timed window
  std::optional<double> cpu_util_pct, cpu_util_norm_pct, rss_start_mb, rss_peak_mb, gpu_util_pct,
      gpu_mem_mb;
  // Provenance
  std::string status, error;
  std::optional<int64_t> warmup, repeats;
  std::string timestamp, host, compiler_version, ngraphbench_version;
  std::string compiler_settings;  // effective settings read back from the SDK, "k=v;k=v"
  int64_t schema_version = kSchemaVersion;
};

// Column names in file order.
const std::vector<std::string>& RowColumns();

}  // namespace ngraphbench
