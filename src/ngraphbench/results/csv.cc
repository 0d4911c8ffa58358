#include "ngraphbench/results/csv.h"

#include <dirent.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/results/claim.h"
#include "ngraphbench/results/columns.h"

namespace ngraphbench {

namespace {

constexpr const char* kTempMarker = ".tmp.";
// Age after which another host's temporary file is judged abandoned.
constexpr std::time_t kForeignTempStaleS = 10 * 60;

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
          [member](ResultRow& r, const std::string& s) { r.*member = s; }, 2, meaning};
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
Column Doubles(const std::string& name, std::vector<double> ResultRow::*member,
               const char* meaning) {
  return {name,
          [member](const ResultRow& r) {
            std::string out;
            for (double v : r.*member) out += (out.empty() ? "" : ";") + FormatDouble(v);
            return out;
          },
          [member](ResultRow& r, const std::string& s) {
            std::vector<double> values;
            size_t start = 0;
            while (!s.empty() && start <= s.size()) {
              const size_t end = std::min(s.find(';', start), s.size());
              std::optional<double> v;
              ParseOpt(v, s.substr(start, end - start));
              if (!v || !(*v > 0) || !std::isfinite(*v)) throw std::invalid_argument("not > 0");
              values.push_back(*v);
              start = end + 1;
            }
            r.*member = std::move(values);
          }, 2, meaning};
}

void CheckedWrite(int fd, const std::string& data, const std::string& path) {
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      const int error = errno;  // before the message's allocations
      if (error == EINTR) continue;
      ThrowFileError("cannot write '" + path + "'", error);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}

void MakeDirs(const std::string& dir) {
  if (dir.empty()) return;
  std::string partial;
  std::stringstream parts(dir);
  std::string part;
  if (dir[0] == '/') partial = "/";
  while (std::getline(parts, part, '/')) {
    if (part.empty()) continue;
    partial += part + "/";
    if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) {
      const int error = errno;
      ThrowFileError("cannot create directory '" + partial + "'", error);
    }
  }
}

}  // namespace

const std::vector<Column>& Columns() {
  using R = ResultRow;
  static const std::vector<Column> columns = {
      Int("schema_version", &R::schema_version,
           "the row format's version (results/row.h); this ngraphbench reads 2 to the current"),
      Text("run_id", &R::run_id,
           "the run: `<model>_b<batch_size>`, unique within `results/<device>/<compiler>/`; only "
           "`[A-Za-z0-9._-]`"),
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
           "the compiler's precision: `fp32`, `bf16`, `fp16`"),
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
      Since(5, Doubles("process_p50s_ms", &R::process_p50s_ms,
           "each process's median, ms, `;`-joined in the order they ran")),
      Since(5, Text("processes_reason", &R::processes_reason,
           "why no more processes ran: `fixed` (the configured count), `ci` (the interval met "
           "`ci_rel_target`), `max_processes`")),
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

std::string CsvEscape(const std::string& field) {
  if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string FormatDouble(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

std::vector<std::string> CsvFields(const std::string& line, size_t columns,
                                   const std::string& where) {
  std::vector<std::string> fields;
  try {
    fields = CsvSplitLine(line);
  } catch (const std::exception& e) {
    throw InputError(where + " is not valid CSV: " + e.what());
  }
  if (fields.size() != columns) {
    throw InputError(where + " has " + std::to_string(fields.size()) + " fields; expected " +
                     std::to_string(columns));
  }
  return fields;
}

double ParseNonNegative(const std::string& text, const std::string& what) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size() || !std::isfinite(v) || v < 0) {
    throw std::invalid_argument(what + " is '" + text + "'; expected a number >= 0");
  }
  return v;
}

std::vector<std::string> CsvSplitLine(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  if (quoted) throw std::invalid_argument("unterminated quoted field");
  return fields;
}

std::string RowPath(const std::string& dir, const std::string& run_id) {
  return dir + "/" + run_id + ".csv";
}

std::string LatenciesPath(const std::string& dir, const std::string& run_id) {
  return dir + "/" + run_id + ".latencies.csv";
}

std::string FormatRowCsv(const ResultRow& row) {
  std::string header, values;
  for (const auto& column : Columns()) {
    if (!header.empty()) {
      header += ',';
      values += ',';
    }
    header += column.name;
    // One record per line: newlines inside a field (error text) become spaces; terminal colour
    // codes (ESC [ ... letter, as some SDKs print) and other control characters are dropped.
    const std::string raw = column.format(row);
    std::string v;
    for (size_t k = 0; k < raw.size(); ++k) {
      const unsigned char c = static_cast<unsigned char>(raw[k]);
      if (c == 0x1b && k + 1 < raw.size() && raw[k + 1] == '[') {
        k += 2;
        while (k < raw.size() && !std::isalpha(static_cast<unsigned char>(raw[k]))) ++k;
        continue;
      }
      if (c == '\n' || c == '\r' || c == '\t') {
        v += ' ';
      } else if (c >= 0x20 && c != 0x7f) {
        v += static_cast<char>(c);
      }
    }
    values += CsvEscape(v);
  }
  return header + "\n" + values + "\n";
}

ResultRow ParseRowCsv(const std::string& text, const std::string& source) {
  std::istringstream in(text);
  std::string header_line, value_line;
  if (!std::getline(in, header_line) || !std::getline(in, value_line)) {
    throw InputError("result file '" + source + "' has no data row (expected a header line and "
                     "one row)");
  }
  std::vector<std::string> header, values;
  try {
    header = CsvSplitLine(header_line);
    values = CsvSplitLine(value_line);
  } catch (const std::exception& e) {
    throw InputError("result file '" + source + "' is not valid CSV: " + e.what());
  }
  // A row file ends with the newline after its one data line. Without it the file was cut short
  // (possibly inside its last field, which would still parse); anything after it is not ours.
  std::string rest;
  if (text.empty() || text.back() != '\n' || std::getline(in, rest)) {
    throw InputError("result file '" + source + "' is truncated or has extra lines (expected a "
                     "header line and one row, each ending in a newline)");
  }
  if (header.size() != values.size()) {
    throw InputError("result file '" + source + "' has " + std::to_string(header.size()) +
                     " columns in its header but " + std::to_string(values.size()) +
                     " in its row");
  }
  ResultRow row;
  row.schema_version = 0;
  std::vector<bool> seen(Columns().size(), false);
  for (size_t i = 0; i < header.size(); ++i) {
    for (size_t c = 0; c < Columns().size(); ++c) {
      if (Columns()[c].name != header[i]) continue;
      if (seen[c]) {
        throw InputError("result file '" + source + "' has column '" + header[i] +
                         "' twice (expected each column once)");
      }
      try {
        Columns()[c].parse(row, values[i]);
      } catch (const std::exception&) {
        throw InputError("result file '" + source + "': column '" + header[i] + "' holds '" +
                         values[i] + "', which is not a valid value for it");
      }
      seen[c] = true;
    }
  }
  if (seen[0] && (row.schema_version < kOldestReadableSchemaVersion ||
                  row.schema_version > kSchemaVersion)) {
    throw InputError("result file '" + source + "' has schema version " +
                     std::to_string(row.schema_version) + "; this ngraphbench reads versions " +
                     std::to_string(kOldestReadableSchemaVersion) + " to " +
                     std::to_string(kSchemaVersion) +
                     (row.schema_version > kSchemaVersion ? " (a newer ngraphbench wrote it)"
                                                          : " (measure the run again)"));
  }
  for (size_t c = 0; c < Columns().size(); ++c) {
    if (!seen[c] && seen[0] && row.schema_version < Columns()[c].since) continue;
    if (!seen[c]) {
      throw InputError("result file '" + source + "' lacks column '" + Columns()[c].name +
                       "' (schema version " + std::to_string(kSchemaVersion) + ")");
    }
  }
  // Before version 8 every row was one stream, as scenario single_stream measures.
  if (seen[0] && row.schema_version < 8) row.streams = 1;
  // Before version 5 a row was one process, and its interval the order-statistic one: read as
  // such, it is a row of this version (written again, it reads back the same).
  if (seen[0] && row.schema_version < 5) {
    row.schema_version = kSchemaVersion;
    row.latency_p50_within_ci_low_ms = row.latency_p50_ci_low_ms;
    row.latency_p50_within_ci_high_ms = row.latency_p50_ci_high_ms;
    row.latency_p50_ci_low_ms.reset();
    row.latency_p50_ci_high_ms.reset();
    if (row.latency_p50_ms) {
      row.processes = 1;
      row.process_p50s_ms = {*row.latency_p50_ms};
    }
  }
  return row;
}

void WriteFileAtomic(const std::string& path, const std::string& contents) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  MakeDirs(dir);
  // The host in the name: on a results tree shared between machines, a pid alone does not say
  // whose file it is (see RemoveStaleTempFiles).
  const std::string tmp = path + kTempMarker + HostTag() + "." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int error = errno;
    ThrowFileError("cannot create '" + tmp + "'", error);
  }
  try {
    CheckedWrite(fd, contents, tmp);
    // A full disk or quota may show only here or at close (NFS sends the data then, tmpfs or
    // a local disk with delayed allocation may fail fsync): either way the file is not renamed
    // into place, so a reader never sees it cut short.
    if (::fsync(fd) != 0) {
      const int error = errno;
      ThrowFileError("cannot fsync '" + tmp + "'", error);
    }
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    ThrowFileError("cannot write '" + tmp + "'", error);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    ThrowFileError("cannot rename '" + tmp + "' to '" + path + "'", error);
  }
}

namespace {

// Whose temporary file `name` is: `<file>.tmp.<host>.<pid>`, or `<file>.tmp.<pid>` (the older
// form, taken as this host's). nullopt for a name without `.tmp.`; pid 0 when it holds `.tmp.`
// in another shape.
struct TempFileOwner {
  std::string host;
  long pid = 0;
};

std::optional<TempFileOwner> ParseTempFileName(const std::string& name) {
  const auto digits = [](const std::string& t) {
    return !t.empty() && t.size() <= 18 && t.find_first_not_of("0123456789") == std::string::npos;
  };
  const auto host_chars = [](const std::string& t) {
    return !t.empty() && t.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                             "0123456789-") == std::string::npos;
  };
  const auto ends_with_marker = [](const std::string& t) {
    const std::string marker = ".tmp";
    return t.size() > marker.size() &&
           t.compare(t.size() - marker.size(), marker.size(), marker) == 0;
  };
  if (name.find(kTempMarker) == std::string::npos) return std::nullopt;
  TempFileOwner owner;
  const size_t last = name.rfind('.');
  const std::string pid_text = name.substr(last + 1), before = name.substr(0, last);
  if (digits(pid_text)) {
    owner.pid = std::stol(pid_text);
    const size_t dot = before.rfind('.');
    const std::string host = dot == std::string::npos ? "" : before.substr(dot + 1);
    // "<file>.tmp.<host>.<pid>" first: a host named "tmp" would otherwise read as the old form.
    if (dot != std::string::npos && host_chars(host) && ends_with_marker(before.substr(0, dot))) {
      owner.host = host;
      return owner;
    }
    if (ends_with_marker(before)) {  // "<file>.tmp.<pid>", written before hosts were named
      owner.host = HostTag();
      return owner;
    }
  }
  owner.pid = 0;  // ".tmp." in some other shape: nobody's that can be asked
  return owner;
}

}  // namespace

int RemoveStaleTempFiles(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return 0;
  const std::string this_host = HostTag();
  const std::time_t now = std::time(nullptr);
  int removed = 0;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    const std::optional<TempFileOwner> owner = ParseTempFileName(name);
    if (!owner) continue;
    const std::string path = dir + "/" + name;
    bool stale = false;
    if (owner->host == this_host && owner->pid > 0) {
      // A writer of this machine: gone, or still writing.
      stale = !LocalProcessAlive(owner->pid);
    } else {
      // Another machine's writer (a shared tree): its pid means nothing here. A write takes far
      // less than kForeignTempStaleS, so a file that old was left by a writer that died.
      struct stat st {};
      stale = ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
              now - st.st_mtime > kForeignTempStaleS;
    }
    if (stale && ::unlink(path.c_str()) == 0) ++removed;
  }
  ::closedir(d);
  return removed;
}

void WriteRow(const std::string& path, const ResultRow& row) {
  WriteFileAtomic(path, FormatRowCsv(row));
}

ResultRow ReadRow(const std::string& path) {
  ResultRow row = ParseRowCsv(ReadFileCapped(path, kMaxRowBytes, "result file"), path);
  CheckRowFileName(row, path.substr(path.rfind('/') + 1), path);
  return row;
}

void CheckRowFileName(const ResultRow& row, const std::string& file_name,
                      const std::string& source) {
  if (file_name != row.run_id + ".csv") {
    throw InputError("result file '" + source + "' holds run '" + row.run_id +
                     "', not the run its name says (expected the row of " + file_name +
                     " to have run_id " + file_name.substr(0, file_name.rfind(".csv")) +
                     "); a row copied or renamed from another run is not that run's result");
  }
}

void WriteLatencies(const std::string& path, const std::vector<int64_t>& latencies_ns) {
  std::string out = "iteration,latency_ns\n";
  for (size_t i = 0; i < latencies_ns.size(); ++i) {
    out += std::to_string(i) + "," + std::to_string(latencies_ns[i]) + "\n";
  }
  WriteFileAtomic(path, out);
}

void WriteProcessLatencies(const std::string& path,
                           const std::vector<std::vector<int64_t>>& per_process) {
  std::string out = "process,iteration,latency_ns\n";
  for (size_t p = 0; p < per_process.size(); ++p) {
    for (size_t i = 0; i < per_process[p].size(); ++i) {
      out += std::to_string(p) + "," + std::to_string(i) + "," +
             std::to_string(per_process[p][i]) + "\n";
    }
  }
  WriteFileAtomic(path, out);
}

std::vector<int64_t> ReadLatencies(const std::string& path) {
  return ParseLatencies(ReadFileCapped(path, kMaxTraceBytes, "trace"), path);
}

std::vector<int64_t> ParseLatencies(const std::string& text, const std::string& path) {
  std::vector<int64_t> out;
  for (auto& process : ParseProcessLatencies(text, path)) {
    out.insert(out.end(), process.begin(), process.end());
  }
  return out;
}

std::vector<std::vector<int64_t>> ReadProcessLatencies(const std::string& path) {
  return ParseProcessLatencies(ReadFileCapped(path, kMaxTraceBytes, "trace"), path);
}

std::vector<std::vector<int64_t>> ParseProcessLatencies(const std::string& text,
                                                        const std::string& path) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  const bool by_process = line == "process,iteration,latency_ns";
  if (line != "iteration,latency_ns" && !by_process) {
    throw InputError("trace '" + path + "' does not start with 'process,iteration,latency_ns' "
                     "(or 'iteration,latency_ns', one process)");
  }
  std::vector<std::vector<int64_t>> out;
  if (!by_process) out.emplace_back();
  // Whole non-negative integers only (stoll alone would take "12abc" or "-3"); processes
  // counting up from 0, and iterations from 0 within each, as the writers number them.
  auto whole = [](const std::string& text) {
    size_t used = 0;
    const long long value = std::stoll(text, &used);
    if (used != text.size() || value < 0) throw std::invalid_argument(text);
    return static_cast<int64_t>(value);
  };
  int64_t line_number = 1;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty()) continue;
    try {
      const std::vector<std::string> fields = CsvSplitLine(line);
      if (fields.size() != (by_process ? 3u : 2u)) throw std::invalid_argument("fields");
      if (by_process) {
        const int64_t p = whole(fields[0]);
        if (p == static_cast<int64_t>(out.size())) {
          out.emplace_back();
        } else if (p != static_cast<int64_t>(out.size()) - 1) {
          throw std::invalid_argument("process");
        }
      }
      std::vector<int64_t>& process = out.back();
      if (whole(fields[by_process ? 1 : 0]) != static_cast<int64_t>(process.size())) {
        throw std::invalid_argument("iteration");
      }
      process.push_back(whole(fields[by_process ? 2 : 1]));
    } catch (const std::exception&) {
      const std::string expected =
          by_process ? "<process>,<iteration>,<latency_ns>' (processes count up from 0, "
                       "iterations from 0 within each"
                     : std::to_string(out.back().size()) + ",<latency_ns>' (iterations count "
                       "up from 0";
      throw InputError("trace '" + path + "': line " + std::to_string(line_number) + " ('" +
                       line.substr(0, 80) + "') is not '" + expected +
                       "; latencies are integers >= 0)");
    }
  }
  return out;
}

}  // namespace ngraphbench
