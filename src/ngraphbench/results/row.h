// The result row: one tidy row per run, fixed columns, units in names.
// Serialized in exactly one place (results/csv.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ngraphbench {

// Bump when a column is added, removed or changes meaning.
// 2: compute_device, quick, config_hash, the output check, the validity verdict, timed_window_s,
//    other_cpu_pct, notes; status `wrong`.
// 3: latency_p50_ci_{low,high}_ms, stop_reason, cpu_ms_per_inference, affinity,
//    affinity_cpus, energy_j, power_w, machine_id. Rows of version 2 are read with those empty.
// 4: gpu_power_w, gpu_energy_j. Rows of version 3 are read with those empty.
// 5: a row pools the timed runs of several worker processes: processes, process_p50s_ms,
//    processes_reason, iqr_rel, latency_p50_within_ci_{low,high}_ms; latency_p50_ci_{low,high}_ms
//    change meaning (the between-process interval, measure/repeat.h). Rows of older versions
//    are read as one process each, their order-statistic interval moved to the within columns.
// 6: settings (the --set items the run was measured with). Rows of older versions read it empty.
// 7: profiler, profile_kernels, profile_ir_nodes, profile_ms, profile_over_p50, profile_top_op,
//    profile_top_share (the profiling pass). Rows of older versions read them empty.
// 8: scenario, streams, threads_per_stream, samples_per_s (the offline scenario). Rows of older
//    versions are single_stream rows: they read scenario single_stream and 1 stream.
// 9: target_qps, latency_bound_ms, latency_percentile, latency_at_percentile_ms, bound_met,
//    queries_issued, queries_completed, achieved_qps, issue_delay_p99_ms, peak_qps, peak_steps
//    (the server scenario). Rows of older versions read them empty.
// 10: phases_s (each phase's wall time, summed over the processes). Rows of older versions read
//    it empty.
// 11: check_cosine, check_snr_db, check_top1_agreement, check_top5_agreement (the output check
//    of precision int8, measure/quant_check.h). Rows of older versions read them empty.
// 12: check_verdict, check_tensor (whether the output check could fail, and the intermediate
//    tensor it judged where the model's outputs do not depend on its input). Rows of older
//    versions read them empty.
// 13: process_ends_unix_ms (when each process's timed runs ended: the pairing of two runs'
//    processes). Rows of older versions read it empty.
constexpr int kSchemaVersion = 13;
// The oldest version ParseRowCsv reads.
constexpr int kOldestReadableSchemaVersion = 2;

// Statuses a run can end in.
inline constexpr const char* kStatusOk = "ok";
inline constexpr const char* kStatusWrong = "wrong";      // outputs beyond the tolerance
inline constexpr const char* kStatusError = "error";      // the compiler refused the model
inline constexpr const char* kStatusCrashed = "crashed";  // the worker died
inline constexpr const char* kStatusTimeout = "timeout";  // the worker ran past the timeout
// This machine cannot run it (UnavailableError: no GPU, provider or libraries missing); `error`
// says why. Not a failure: analyze leaves such rows out, and resume tries them again.
inline constexpr const char* kStatusSkipped = "skipped";

struct ResultRow {
  // Identity
  std::string run_id, experiment, model, family, size;
  std::optional<int64_t> width, depth;
  int64_t batch_size = 0;
  std::string input_shape;  // e.g. "8x64x56x56"; several inputs joined by ';'
  std::string compiler;
  std::string device;          // the label that organizes results (--device)
  std::string compute_device;  // what the compiler ran on: cpu, cuda, gpu, auto (its config)
  std::string precision;
  std::optional<int64_t> threads;
  std::string opt_level, timing_boundary;
  // The load (docs/measurement.md, Scenarios): "single_stream", "offline" or "server"; for
  // offline and server the
  // requests in flight and the threads each stream ran with, and samples per second over the
  // timed window (all streams' requests x batch_size / timed_window_s).
  std::string scenario = "single_stream";
  std::optional<int64_t> streams, threads_per_stream;
  std::optional<double> samples_per_s;
  // server (measure/server.h): the rate the load generator issued at (with find_peak, the
  // peak's step), the bound and its percentile, the latency at that percentile and whether it
  // met the bound, the queries issued and completed, the completed queries per second over the
  // window, how late the generator issued (p99), and with find_peak the peak rate (empty: no
  // rate met the bound) and the steps measured (in <run_id>.server_steps.csv).
  std::optional<double> target_qps, latency_bound_ms, latency_percentile, latency_at_percentile_ms;
  std::optional<bool> bound_met;
  std::optional<int64_t> queries_issued, queries_completed;
  std::optional<double> achieved_qps, issue_delay_p99_ms, peak_qps;
  std::optional<int64_t> peak_steps;
  // Settings fingerprint: resume keeps a row only when both match the run's settings.
  std::optional<bool> quick;
  std::string config_hash;  // 16 hex digits, experiments/fingerprint.h
  // Model
  std::optional<int64_t> params, macs;  // macs: multiply-accumulates for one sample
  // Phases
  std::optional<double> build_s, compile_s, first_run_ms;
  // Latency of one synchronous run over one batch
  std::optional<double> latency_mean_ms, latency_std_ms, latency_min_ms, latency_p50_ms,
      latency_p90_ms, latency_p95_ms, latency_p99_ms, latency_max_ms, cv;
  // The 95% interval of the median from the spread between the processes' medians
  // (measure/repeat.h): where a repeat of this run puts its median, 95% of the time. Empty for
  // fewer than 2 processes.
  std::optional<double> latency_p50_ci_low_ms, latency_p50_ci_high_ms;
  // Diagnostic: the distribution-free interval of the pooled samples' median (order statistics,
  // measure/stats.h), which treats every timed run as independent: one process's precision.
  std::optional<double> latency_p50_within_ci_low_ms, latency_p50_within_ci_high_ms;
  // Robust dispersion of the pooled timed runs: (p75 - p25) / p50.
  std::optional<double> iqr_rel;
  std::string stop_reason;  // why timing ended in the processes: repeats, ci, time, max_repeats
  // Repetition across processes: how many worker processes the row pools, the median of each
  // one's timed runs (";"-joined, in the order they ran), and why no more were started
  // (fixed: the configured count; ci: the interval met ci_rel_target; max_processes: the cap).
  std::optional<int64_t> processes;
  std::vector<double> process_p50s_ms;
  // When each of those processes' timed runs ended, Unix time in ms, in the same order; empty
  // when a process did not say (rows pooled from parts of an older version).
  std::vector<int64_t> process_ends_unix_ms;
  std::string processes_reason;
  // Where the processes' wall time went, phase by phase (the worker's phases: start, build,
  // reference, load, compile, warmup, timed, check), seconds summed over the processes.
  std::vector<std::pair<std::string, double>> phases_s;
  // Throughput in samples per second
  std::optional<double> throughput_median_sps, throughput_mean_sps;
  // Output check of the first inference against an independent reference (measure/check.h)
  std::string check_reference;  // the reference compiler, or "off"; "unavailable: <why>"
  std::optional<double> check_max_abs_err, check_max_rel_err, check_tolerance;
  // pass, fail or inconclusive (the check could not fail: nothing the reference computes depends
  // on the input, measure/check.h); empty without a check. check_tensor: the intermediate tensor
  // the verdict rests on where the model's outputs do not depend on its input, else empty.
  std::string check_verdict, check_tensor;
  // Of an int8 row (measure/quant_check.h): cosine similarity and SNR in dB of the outputs
  // against the FP32 reference; for a classifier, top-1 and top-5 agreement with it.
  std::optional<double> check_cosine, check_snr_db, check_top1_agreement, check_top5_agreement;
  // Validity verdict over the timed window (MLPerf LoadGen's INVALID): set for measured rows
  std::optional<bool> valid;
  std::string invalid_reason;            // "; "-joined reasons when valid is false
  std::optional<double> timed_window_s;  // wall time of the timed runs
  // System, over the timed window. other_cpu_pct: CPU time of everything else on the machine
  // (from /proc/stat, less this process; only the CPUs the worker may use when it is pinned to
  // fewer), percent of one core. The GPU columns are set only for
  // runs on an NVIDIA GPU (measure/gpu_monitor.h): gpu_util_pct the mean of the samples,
  // gpu_mem_mb their peak.
  std::optional<double> other_cpu_pct, cpu_util_pct, cpu_util_norm_pct, rss_start_mb, rss_peak_mb,
      gpu_util_pct, gpu_mem_mb;
  // The GPU's mean power draw over the samples, and its energy counter's increase over the
  // timed window per inference.
  std::optional<double> gpu_power_w, gpu_energy_j;
  // This process's CPU time over the timed window / timed runs: barely touched by CPU steal.
  std::optional<double> cpu_ms_per_inference;
  // Energy over the timed window (RAPL package + DRAM where readable): per inference, and the
  // mean power. Empty, with the reason in `notes`, where the machine does not expose it.
  std::optional<double> energy_j, power_w;
  // Thread pinning: the compiler's `affinity` setting and the CPU list read back
  // (sched_getaffinity) in the worker, e.g. "0-3".
  std::string affinity, affinity_cpus;
  // The profiling pass (profile/profile.h), for a run measured with `profile: on`: the SDK's
  // profiler, kernel calls and graph nodes per inference, the kernels' time per inference and
  // over the timed median, and the operator class with the most time and its share.
  std::string profiler;
  std::optional<double> profile_kernels;
  std::optional<int64_t> profile_ir_nodes;
  std::optional<double> profile_ms, profile_over_p50;
  std::string profile_top_op;
  std::optional<double> profile_top_share;
  // Provenance
  std::string status, error;
  std::optional<int64_t> warmup, repeats;
  std::string timestamp, host, compiler_version, ngraphbench_version;
  std::string machine_id;  // links to results/<device>/machine.json (measure/machine.h)
  std::string compiler_settings;  // effective settings read back from the SDK, "k=v;k=v"
  std::string settings;  // the --set items applied to the run (experiments/config.h), "k=v;k=v"
  std::string notes;              // why a measured cell is empty, "; "-joined
  int64_t schema_version = kSchemaVersion;
};

// Column names in file order.
const std::vector<std::string>& RowColumns();

// A column with what it holds (and its unit), and the schema version that added it: the one
// place a column's meaning is written (results/csv.cc), from which docs/results.md's table is
// made (`ngraphbench list --columns`; a test keeps the two the same).
struct ColumnMeaning {
  std::string name, meaning;
  int since = 2;
};
std::vector<ColumnMeaning> RowColumnMeanings();
// Those as a Markdown table: column, since, meaning.
std::string ColumnsMarkdown();

}  // namespace ngraphbench
