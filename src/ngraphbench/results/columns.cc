// The row's CSV columns (columns.h): the table of every column, its format, parser and meaning.
#include "ngraphbench/results/columns.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "ngraphbench/results/csv.h"
#include "ngraphbench/results/row.h"

namespace ngraphbench {

namespace {

template <typename T>
std::string FormatOpt(const std::optional<T>& v) {
  if (!v) return "";
  if constexpr (std::is_floating_point_v<T>) {
    return FormatDouble(*v);
  } else {
    return std::to_string(*v);
  }
}

template <typename T>
void ParseOpt(std::optional<T>& field, const std::string& s) {
  if (s.empty()) {
    field.reset();
    return;
  }
  size_t used = 0;
  if constexpr (std::is_floating_point_v<T>) {
    field = std::stod(s, &used);
  } else {
    field = std::stoll(s, &used);
  }
  if (used != s.size()) throw std::invalid_argument("trailing characters in '" + s + "'");
}

Column Text(const std::string& name, std::string ResultRow::*member, const char* meaning) {
  return {name, [member](const ResultRow& r) { return r.*member; },
          [member](ResultRow& r, const std::string& s) { r.*member = s; }, 2, meaning, true};
}

template <typename T>
Column Opt(const std::string& name, std::optional<T> ResultRow::*member, const char* meaning) {
  return {name, [member](const ResultRow& r) { return FormatOpt(r.*member); },
          [member](ResultRow& r, const std::string& s) { ParseOpt(r.*member, s); }, 2, meaning};
}

Column Int(const std::string& name, int64_t ResultRow::*member, const char* meaning) {
  return {name, [member](const ResultRow& r) { return std::to_string(r.*member); },
          [member](ResultRow& r, const std::string& s) {
            std::optional<int64_t> v;
            ParseOpt(v, s);
            if (!v) throw std::invalid_argument("empty");
            r.*member = *v;
          }, 2, meaning};
}

Column Bool(const std::string& name, std::optional<bool> ResultRow::*member, const char* meaning) {
  return {name,
          [member](const ResultRow& r) {
            const auto& v = r.*member;
            return v ? (*v ? "true" : "false") : "";
          },
          [member](ResultRow& r, const std::string& s) {
            if (s.empty()) {
              (r.*member).reset();
            } else if (s == "true" || s == "false") {
              r.*member = s == "true";
            } else {
              throw std::invalid_argument("not true or false");
            }
          }, 2, meaning};
}

// Positive numbers joined by ';' (per-process values), empty for none.
template <typename T>
Column Numbers(const std::string& name, std::vector<T> ResultRow::*member, const char* meaning) {
  return {name,
          [member](const ResultRow& r) {
            std::string out;
            for (T v : r.*member) out += (out.empty() ? "" : ";") + FormatOpt(std::optional(v));
            return out;
          },
          [member](ResultRow& r, const std::string& s) {
            std::vector<T> values;
            size_t start = 0;
            while (!s.empty() && start <= s.size()) {
              const size_t end = std::min(s.find(';', start), s.size());
              std::optional<T> v;
              ParseOpt(v, s.substr(start, end - start));
              if (!v || !(*v > 0) || !std::isfinite(static_cast<double>(*v))) {
                throw std::invalid_argument("not > 0");
              }
              values.push_back(*v);
              start = end + 1;
            }
            r.*member = std::move(values);
          }, 2, meaning};
}

// `name=seconds` items joined by ';' (each phase's wall time), empty for none.
Column Phases(const std::string& name,
              std::vector<std::pair<std::string, double>> ResultRow::*member,
              const char* meaning) {
  return {name,
          [member](const ResultRow& r) {
            std::string out;
            for (const auto& [phase, s] : r.*member) {
              out += (out.empty() ? "" : ";") + phase + "=" + FormatDouble(s);
            }
            return out;
          },
          [member](ResultRow& r, const std::string& s) {
            std::vector<std::pair<std::string, double>> phases;
            size_t start = 0;
            while (!s.empty() && start <= s.size()) {
              const size_t end = std::min(s.find(';', start), s.size());
              const std::string item = s.substr(start, end - start);
              const size_t eq = item.find('=');
              if (eq == 0 || eq == std::string::npos ||
                  item.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") < eq) {
                throw std::invalid_argument("not name=seconds: '" + item.substr(0, 40) + "'");
              }
              std::optional<double> v;
              ParseOpt(v, item.substr(eq + 1));
              if (!v || !(*v >= 0) || !std::isfinite(*v)) throw std::invalid_argument("not >= 0");
              phases.emplace_back(item.substr(0, eq), *v);
              start = end + 1;
            }
            r.*member = std::move(phases);
          }, 2, meaning};
}

}  // namespace

const std::vector<Column>& Columns() {
  using R = ResultRow;
  static const std::vector<Column> columns = {
      Int("schema_version", &R::schema_version,
           "the row format's version (results/row.h); this ngraphbench reads 2 to the current"),
      Text("run_id", &R::run_id,
           "the run: `<model>_b<batch_size>` (and the scenario's suffix), with `_<precision>` "
           "when the precision is not fp32 (`conv_blocks_w16_d1_b1_int8`); unique within "
           "`results/<device>/<compiler>/`; only `[A-Za-z0-9._-]`"),
      Text("experiment", &R::experiment,
           "the experiment (`configs/experiments.yaml`), `onnx` or `torch` for a model named on "
           "the command line"),
      Text("model", &R::model,
           "the model's name: synthetic `<experiment>_w<width>[_d<depth>]`, an architecture, or "
           "the file's name as given"),
      Text("family", &R::family,
           "the model family (`conv_block`, `mha_block`, ...); for an architecture its network "
           "(`resnet`, `deit`, ...)"),
      Text("size", &R::size,
           "an architecture's size within its family (`50`, `tiny`); empty otherwise"),
      Opt("width", &R::width,
           "a synthetic model's width (channels or embedding size)"),
      Opt("depth", &R::depth,
           "a synthetic block model's depth (blocks stacked)"),
      Int("batch_size", &R::batch_size,
           "samples in one inference (the batch dimension of every input)"),
      Text("input_shape", &R::input_shape,
           "each input's shape, e.g. `8x3x224x224`; several inputs `;`-joined"),
      Text("compiler", &R::compiler,
           "the compiler (its folder under `src/ngraphbench/compilers/`)"),
      Text("device", &R::device,
           "the device label that files the row (`--device`): `results/<device>/`"),
      Text("compute_device", &R::compute_device,
           "what the compiler computed on: `cpu`, `cuda`, ... (its config's `device`)"),
      Text("precision", &R::precision,
           "the compiler's precision: `fp32`, `bf16`, `fp16`, `int8`"),
      Opt("threads", &R::threads,
           "threads the SDK ran with, as it reports them (the config's value where it cannot say)"),
      Text("opt_level", &R::opt_level,
           "the compiler's optimization level, as its config names it"),
      Text("timing_boundary", &R::timing_boundary,
           "what the clock times: `compute` (`Run()` only) or `end_to_end` (inputs in, run, "
           "outputs out)"),
      Since(8, Text("scenario", &R::scenario,
           "the load: `single_stream` (one synchronous request at a time), `offline` "
           "(`streams` requests in flight, each on its own execution context) or `server` "
           "(Poisson queries at `target_qps` into those streams)")),
      Since(8, Opt("streams", &R::streams,
           "requests in flight: 1 for `single_stream`; for `offline` the count the compiler "
           "served (its own choice under `streams: auto`)")),
      Since(8, Opt("threads_per_stream", &R::threads_per_stream,
           "`offline`: the threads each stream ran with, as the SDK reports them (else "
           "`threads` / `streams`); empty for `single_stream`")),
      Bool("quick", &R::quick,
           "`true` for a `--quick` smoke run (batch sizes 1 and 8, a 5 s cap): never quote it"),
      Text("config_hash", &R::config_hash,
           "the settings fingerprint (16 hex digits): resume keeps a row only when the run's is "
           "the same"),
      Opt("params", &R::params,
           "parameters: timm's count, a PyTorch module's own, or an `.onnx` file's float32 "
           "weights (each once)"),
      Opt("macs", &R::macs,
           "multiply-accumulates for one sample, by fvcore's rules"),
      Opt("build_s", &R::build_s,
           "seconds to build (or import, or export) the model in the worker"),
      Opt("compile_s", &R::compile_s,
           "seconds the compiler took to compile, or to load a cached compile"),
      Opt("first_run_ms", &R::first_run_ms,
           "milliseconds of the first inference after compiling (cold caches, lazy "
           "initialization)"),
      Opt("latency_mean_ms", &R::latency_mean_ms,
           "mean latency of one inference over the pooled timed runs, ms"),
      Opt("latency_std_ms", &R::latency_std_ms,
           "standard deviation of the pooled timed runs' latencies, ms"),
      Opt("latency_min_ms", &R::latency_min_ms,
           "fastest timed run, ms"),
      Opt("latency_p50_ms", &R::latency_p50_ms,
           "median latency of the pooled timed runs, ms: the number to quote, with its interval"),
      Opt("latency_p90_ms", &R::latency_p90_ms,
           "90th percentile of the timed runs' latencies, ms"),
      Opt("latency_p95_ms", &R::latency_p95_ms,
           "95th percentile, ms"),
      Opt("latency_p99_ms", &R::latency_p99_ms,
           "99th percentile, ms"),
      Opt("latency_max_ms", &R::latency_max_ms,
           "slowest timed run, ms"),
      Opt("cv", &R::cv,
           "coefficient of variation of the timed runs (std / mean)"),
      Since(3, Opt("latency_p50_ci_low_ms", &R::latency_p50_ci_low_ms,
           "lower end of the median's 95 % interval from the spread between the processes' "
           "medians, ms: where a repeat of the run puts its median (empty below 2 processes)")),
      Since(3, Opt("latency_p50_ci_high_ms", &R::latency_p50_ci_high_ms,
           "upper end of that interval, ms")),
      Since(5, Opt("latency_p50_within_ci_low_ms", &R::latency_p50_within_ci_low_ms,
           "lower end of the pooled runs' order-statistic interval of the median, ms: one "
           "process's precision, a diagnostic")),
      Since(5, Opt("latency_p50_within_ci_high_ms", &R::latency_p50_within_ci_high_ms,
           "upper end of that diagnostic interval, ms")),
      Since(5, Opt("iqr_rel", &R::iqr_rel,
           "robust dispersion of the pooled timed runs: (p75 - p25) / p50")),
      Since(3, Text("stop_reason", &R::stop_reason,
           "why timing ended in the processes: `repeats`, `ci`, `time`, `max_repeats`; `+`-joined "
           "when the processes differ")),
      Since(5, Opt("processes", &R::processes,
           "worker processes whose timed runs the row pools")),
      Since(5, Numbers("process_p50s_ms", &R::process_p50s_ms,
           "each process's median, ms, `;`-joined in the order they ran")),
      Since(13, Numbers("process_ends_unix_ms", &R::process_ends_unix_ms,
           "when each of those processes' timed runs ended, Unix time in ms, `;`-joined in the "
           "same order: whether two runs were measured pass by pass, which pairs their processes "
           "in the intervals of ratios (docs/analysis.md)")),
      Since(5, Text("processes_reason", &R::processes_reason,
           "why no more processes ran: `fixed` (the configured count), `ci` (the interval met "
           "`ci_rel_target`), `max_processes` (the cap), `spread` (the processes' spread would "
           "need more than twice the cap), `invalid` (its processes broke a rule no further "
           "process could mend: a degraded build, a stall, the scenario's own reasons)")),
      Since(10, Phases("phases_s", &R::phases_s,
           "where the processes' wall time went: `start`, `build`, `reference`, `load`, "
           "`compile`, `warmup`, `timed`, `check`, seconds summed over the processes, "
           "`name=s;`-joined")),
      Opt("throughput_median_sps", &R::throughput_median_sps,
           "samples per second at the median latency: batch_size / latency_p50"),
      Opt("throughput_mean_sps", &R::throughput_mean_sps,
           "samples per second at the mean latency"),
      Since(8, Opt("samples_per_s", &R::samples_per_s,
           "`offline`: samples per second over the timed window, batch_size x the timed "
           "requests of all streams (and processes) / `timed_window_s`; empty for "
           "`single_stream`, whose throughput is `throughput_median_sps`; `server`: "
           "batch_size x `achieved_qps`")),
      Since(9, Opt("target_qps", &R::target_qps,
           "`server`: queries per second the load generator issued (Poisson arrivals); with "
           "`find_peak`, the rate of the peak's step")),
      Since(9, Opt("latency_bound_ms", &R::latency_bound_ms,
           "`server`: the bound the `latency_percentile` latency must meet")),
      Since(9, Opt("latency_percentile", &R::latency_percentile,
           "`server`: the percentile held to the bound (99: p99)")),
      Since(9, Opt("latency_at_percentile_ms", &R::latency_at_percentile_ms,
           "`server`: the latency at `latency_percentile`, from each query's scheduled arrival "
           "to its completion (queueing included); a query the drain left counts with the time "
           "it had waited")),
      Since(9, Bool("bound_met", &R::bound_met,
           "`server`: `latency_at_percentile_ms` <= `latency_bound_ms` and every query "
           "completed")),
      Since(9, Opt("queries_issued", &R::queries_issued,
           "`server`: queries the load generator issued")),
      Since(9, Opt("queries_completed", &R::queries_completed,
           "`server`: queries completed (the rest were still queued when the drain ended)")),
      Since(9, Opt("achieved_qps", &R::achieved_qps,
           "`server`: completed queries per second, from the first arrival to the last "
           "completion")),
      Since(9, Opt("issue_delay_p99_ms", &R::issue_delay_p99_ms,
           "`server`: how late the load generator issued queries after their scheduled "
           "arrival, p99 (the run is INVALID if more than 1% were late, docs/measurement.md)")),
      Since(9, Opt("peak_qps", &R::peak_qps,
           "`server` with `find_peak`: the highest rate measured that met the bound (validly); "
           "empty when none did")),
      Since(9, Opt("peak_steps", &R::peak_steps,
           "`server` with `find_peak`: the steps the search measured, each a line of "
           "`<run_id>.server_steps.csv`")),
      Text("check_reference", &R::check_reference,
           "the compiler whose outputs the first inference was checked against, `off`, or "
           "`unavailable: <why>`"),
      Opt("check_max_abs_err", &R::check_max_abs_err,
           "largest absolute difference from the reference's outputs"),
      Opt("check_max_rel_err", &R::check_max_rel_err,
           "largest |out - ref| / max(1, max |ref|) over the outputs (the worst output)"),
      Opt("check_tolerance", &R::check_tolerance,
           "the relative error allowed at this precision; beyond it the row is `wrong`"),
      Since(12, Text("check_verdict", &R::check_verdict,
           "`pass`, `fail` or `inconclusive`: whether the check could fail at all (a compile "
           "that ignored its input would fail it); inconclusive when nothing the reference "
           "computes near the outputs depends on the input, the why in `notes`; empty without "
           "a check")),
      Since(12, Text("check_tensor", &R::check_tensor,
           "where the model's outputs do not depend on its input: the intermediate tensor the "
           "verdict rests on, compared in a second compile of the graph cut there; else empty")),
      Since(11, Opt("check_cosine", &R::check_cosine,
           "`int8`: cosine similarity of the outputs (all as one vector) to the fp32 "
           "reference's; below 0.99 the row is `wrong`")),
      Since(11, Opt("check_snr_db", &R::check_snr_db,
           "`int8`: signal-to-noise ratio of the outputs against the fp32 reference, "
           "10 log10(sum ref^2 / sum (out - ref)^2); below 20 dB the row is `wrong`")),
      Since(11, Opt("check_top1_agreement", &R::check_top1_agreement,
           "`int8`, a classifier's N x C output: share of the samples whose top-1 class is the "
           "reference's")),
      Since(11, Opt("check_top5_agreement", &R::check_top5_agreement,
           "`int8`, a classifier's N x C output: share of the samples whose reference top-1 "
           "class is among the top 5")),
      Bool("valid", &R::valid,
           "whether the measurement passed every validity rule (MLPerf's VALID); `false` rows "
           "are left out of analyses unless asked"),
      Text("invalid_reason", &R::invalid_reason,
           "each rule the row broke, `; `-joined"),
      Opt("timed_window_s", &R::timed_window_s,
           "wall time of the timed runs, all processes together, seconds"),
      Opt("other_cpu_pct", &R::other_cpu_pct,
           "CPU time of everything else on the machine (on the worker's CPUs when it is pinned) "
           "during the timed runs, percent of one core"),
      Opt("cpu_util_pct", &R::cpu_util_pct,
           "this process's CPU time over the timed window, percent of one core"),
      Opt("cpu_util_norm_pct", &R::cpu_util_norm_pct,
           "the same, percent of the CPUs the process may use"),
      Opt("rss_start_mb", &R::rss_start_mb,
           "resident memory when the timed runs began, MB"),
      Opt("rss_peak_mb", &R::rss_peak_mb,
           "peak resident memory over the timed runs, MB"),
      Opt("gpu_util_pct", &R::gpu_util_pct,
           "mean GPU utilization over the timed runs (NVIDIA GPUs only), percent"),
      Opt("gpu_mem_mb", &R::gpu_mem_mb,
           "peak GPU memory of this process (of the whole GPU where NVML does not list it, as "
           "`notes` says), MB"),
      Since(4, Opt("gpu_power_w", &R::gpu_power_w,
           "mean GPU power draw over the timed runs, W")),
      Since(4, Opt("gpu_energy_j", &R::gpu_energy_j,
           "GPU energy per inference, J")),
      Since(3, Opt("cpu_ms_per_inference", &R::cpu_ms_per_inference,
           "this process's CPU time per inference, ms (barely touched by CPU steal)")),
      Since(3, Opt("energy_j", &R::energy_j,
           "CPU package and DRAM energy per inference (RAPL), J; empty with the reason in "
           "`notes` where unreadable")),
      Since(3, Opt("power_w", &R::power_w,
           "mean CPU package and DRAM power over the timed runs, W")),
      Since(3, Text("affinity", &R::affinity,
           "the compiler's `affinity` setting: `none`, `compact` or a CPU list")),
      Since(3, Text("affinity_cpus", &R::affinity_cpus,
           "the CPUs the worker's threads could run on, read back, e.g. `0-3`")),
      Since(7, Text("profiler", &R::profiler,
           "the SDK profiler of the run's profiling pass (`profile: on`), whose kernels are in "
           "`<run_id>.profile.csv`; empty without one")),
      Since(7, Opt("profile_kernels", &R::profile_kernels,
           "kernel calls per inference in the profile (what the SDK ran as units of work)")),
      Since(7, Opt("profile_ir_nodes", &R::profile_ir_nodes,
           "the model graph's nodes, each run once per inference; / `profile_kernels` = the "
           "fusion ratio")),
      Since(7, Opt("profile_ms", &R::profile_ms,
           "the profiled kernels' time per inference, ms")),
      Since(7, Opt("profile_over_p50", &R::profile_over_p50,
           "`profile_ms` / `latency_p50_ms`: below 1, time outside the kernels (runtime, "
           "copies) the profiler does not see; above 1, the profiler's own cost")),
      Since(7, Text("profile_top_op", &R::profile_top_op,
           "the operator class with the most profiled time (Conv, MatMul, Softmax, "
           "Normalization, Pool, Reduce, Elementwise, DataMovement, ...)")),
      Since(7, Opt("profile_top_share", &R::profile_top_share,
           "`profile_top_op`'s share of `profile_ms`, 0..1")),
      Text("status", &R::status,
           "`ok`; `wrong` (outputs beyond the tolerance); `error` (refused or failed); "
           "`crashed`; `timeout`; `skipped` (this machine cannot run it)"),
      Text("error", &R::error,
           "what went wrong, for a row that is not `ok`"),
      Opt("warmup", &R::warmup,
           "untimed warm-up runs before the timed ones, in one process"),
      Opt("repeats", &R::repeats,
           "timed runs in all processes together"),
      Text("timestamp", &R::timestamp,
           "when the row was written, UTC (ISO 8601)"),
      Text("host", &R::host,
           "the machine's host name"),
      Text("compiler_version", &R::compiler_version,
           "the SDK's version as it reports it at run time"),
      Text("compiler_settings", &R::compiler_settings,
           "effective settings read back from the SDK, `k=v;k=v`"),
      Since(6, Text("settings", &R::settings,
           "the `--set` items the run was measured with, `;`-joined")),
      Text("ngraphbench_version", &R::ngraphbench_version,
           "the ngraphbench build (git describe) that measured the row"),
      Since(3, Text("machine_id", &R::machine_id,
           "the machine's key in `results/<device>/machine.json`")),
      Text("notes", &R::notes,
           "why a measured cell is empty, and other remarks, `; `-joined"),
  };
  return columns;
}

}  // namespace ngraphbench
