#include "ngraphbench/analysis/load.h"

#include <zip.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <tuple>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/graph/working_set.h"  // kMaxBatchSize
#include "ngraphbench/results/csv.h"
#include "ngraphbench/results/layout.h"

namespace ngraphbench {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLayout = "<device>/<compiler>/<run_id>.csv";

// The trace beside a row file or entry: "<dir>/<run_id>.csv" -> "<dir>/<run_id>.latencies.csv".
std::string TraceBeside(const std::string& row_path) {
  return row_path.substr(0, row_path.size() - std::string(".csv").size()) + kTraceSuffix;
}

// The same for the run's profile, "<dir>/<run_id>.profile.csv", or its server steps.
std::string Beside(const std::string& row_path, const char* suffix) {
  return row_path.substr(0, row_path.size() - std::string(".csv").size()) + suffix;
}

// Refuses values no measurement can have: a latency or throughput that is not a finite number
// (or not positive where a run has one), an interval that does not hold its median, a batch size
// no experiment may ask for. Such a row was edited or damaged, and the figures derived from it
// (ratios, geomeans, verdicts) would be nonsense without a word.
void CheckPlausible(const ResultRow& row, const std::string& source) {
  if (row.batch_size < 1 || row.batch_size > kMaxBatchSize) {
    throw InputError(source + ": batch_size is " + std::to_string(row.batch_size) +
                     "; expected an integer from 1 to " + std::to_string(kMaxBatchSize) +
                     " (the ceiling of batch_sizes in experiments.yaml)");
  }
  using Member = std::optional<double> ResultRow::*;
  struct Rule {
    const char* name;
    Member member;
    bool positive;  // > 0; else >= 0
  };
  // Milliseconds, seconds, samples and queries per second, ratios of times: each is finite and
  // not negative; a median, a mean or a throughput of a run that measured is above 0.
  static const Rule kRules[] = {
      {"latency_mean_ms", &ResultRow::latency_mean_ms, true},
      {"latency_std_ms", &ResultRow::latency_std_ms, false},
      {"latency_min_ms", &ResultRow::latency_min_ms, false},
      {"latency_p50_ms", &ResultRow::latency_p50_ms, true},
      {"latency_p90_ms", &ResultRow::latency_p90_ms, true},
      {"latency_p95_ms", &ResultRow::latency_p95_ms, true},
      {"latency_p99_ms", &ResultRow::latency_p99_ms, true},
      {"latency_max_ms", &ResultRow::latency_max_ms, true},
      {"cv", &ResultRow::cv, false},
      {"iqr_rel", &ResultRow::iqr_rel, false},
      {"latency_p50_ci_low_ms", &ResultRow::latency_p50_ci_low_ms, false},
      {"latency_p50_ci_high_ms", &ResultRow::latency_p50_ci_high_ms, false},
      {"latency_p50_within_ci_low_ms", &ResultRow::latency_p50_within_ci_low_ms, false},
      {"latency_p50_within_ci_high_ms", &ResultRow::latency_p50_within_ci_high_ms, false},
      {"first_run_ms", &ResultRow::first_run_ms, false},
      {"build_s", &ResultRow::build_s, false},
      {"compile_s", &ResultRow::compile_s, false},
      {"timed_window_s", &ResultRow::timed_window_s, false},
      {"throughput_median_sps", &ResultRow::throughput_median_sps, true},
      {"throughput_mean_sps", &ResultRow::throughput_mean_sps, true},
      {"samples_per_s", &ResultRow::samples_per_s, false},  // server: 0 when none completed
      {"target_qps", &ResultRow::target_qps, true},
      {"achieved_qps", &ResultRow::achieved_qps, false},
      {"peak_qps", &ResultRow::peak_qps, true},
      {"latency_bound_ms", &ResultRow::latency_bound_ms, true},
      {"latency_at_percentile_ms", &ResultRow::latency_at_percentile_ms, false},
  };
  for (const Rule& rule : kRules) {
    const std::optional<double>& value = row.*rule.member;
    if (!value) continue;
    if (!std::isfinite(*value) || *value < 0 || (rule.positive && !(*value > 0))) {
      throw InputError(source + ": " + rule.name + " is " + FormatDouble(*value) +
                       "; expected a finite number " + (rule.positive ? "> 0" : ">= 0") +
                       " (or empty), as a measurement gives");
    }
  }
  // The pooled runs' quantiles rise with the quantile; every figure is written to 9 significant
  // digits, so a tie may round either way by a digit: a tolerance of one part in 1e8.
  const auto at_most = [](double a, double b) { return a <= b + 1e-8 * std::abs(b); };
  const char* quantile_names[] = {"latency_min_ms", "latency_p50_ms", "latency_p90_ms",
                                  "latency_p95_ms", "latency_p99_ms", "latency_max_ms"};
  const std::optional<double> quantiles[] = {row.latency_min_ms, row.latency_p50_ms,
                                             row.latency_p90_ms, row.latency_p95_ms,
                                             row.latency_p99_ms, row.latency_max_ms};
  for (size_t i = 0; i + 1 < std::size(quantiles); ++i) {
    for (size_t j = i + 1; j < std::size(quantiles); ++j) {
      if (quantiles[i] && quantiles[j] && !at_most(*quantiles[i], *quantiles[j])) {
        throw InputError(source + ": " + quantile_names[i] + " " + FormatDouble(*quantiles[i]) +
                         " is above " + quantile_names[j] + " " + FormatDouble(*quantiles[j]) +
                         "; expected min <= p50 <= p90 <= p95 <= p99 <= max");
      }
    }
  }
  // Both intervals are built around the median (measure/repeat.h, measure/stats.h).
  const struct {
    const char* low_name;
    const char* high_name;
    const std::optional<double>& low;
    const std::optional<double>& high;
  } intervals[] = {
      {"latency_p50_ci_low_ms", "latency_p50_ci_high_ms", row.latency_p50_ci_low_ms,
       row.latency_p50_ci_high_ms},
      {"latency_p50_within_ci_low_ms", "latency_p50_within_ci_high_ms",
       row.latency_p50_within_ci_low_ms, row.latency_p50_within_ci_high_ms},
  };
  for (const auto& interval : intervals) {
    if (!interval.low && !interval.high) continue;
    if (!interval.low || !interval.high || !row.latency_p50_ms ||
        !at_most(*interval.low, *row.latency_p50_ms) ||
        !at_most(*row.latency_p50_ms, *interval.high)) {
      const auto text = [](const std::optional<double>& v) {
        return v ? FormatDouble(*v) : std::string("empty");
      };
      throw InputError(source + ": the interval " + interval.low_name + " " +
                       text(interval.low) + " to " + interval.high_name + " " +
                       text(interval.high) + " does not hold latency_p50_ms " +
                       text(row.latency_p50_ms) + "; expected low <= latency_p50_ms <= high");
    }
  }
}

// `archive`: see LoadedRun; `row_path`: the row's file path, or its entry name in `archive`.
LoadedRun ParseRun(const std::string& text, const std::string& source, const std::string& archive,
                   const std::string& row_path) {
  LoadedRun run{ParseRowCsv(text, source), source, archive, TraceBeside(row_path),
                Beside(row_path, kProfileSuffix), Beside(row_path, kServerStepsSuffix)};
  const ResultRow& row = run.row;
  CheckRowFileName(row, source.substr(source.find_last_of("/:") + 1), source);
  CheckPlausible(row, source);
  // Single stream's throughput is batch / latency; with several requests in flight it is
  // samples_per_s over the window (server: 0 when no query completed).
  if (row.status == kStatusOk && row.scenario == "single_stream" &&
      (!row.throughput_median_sps || !(*row.throughput_median_sps > 0))) {
    throw InputError(source +
                     ": status is ok but throughput_median_sps is empty or not positive; expected "
                     "samples per second > 0");
  }
  if (row.status == kStatusOk && row.scenario == "offline" &&
      (!row.samples_per_s || !(*row.samples_per_s > 0))) {
    throw InputError(source +
                     ": an ok offline row whose samples_per_s is empty or not positive; expected "
                     "samples per second > 0");
  }
  if (row.status == kStatusOk && row.scenario == "server" &&
      (!row.samples_per_s || !(*row.samples_per_s >= 0) || !row.achieved_qps ||
       !row.target_qps || !row.latency_at_percentile_ms)) {
    throw InputError(source +
                     ": an ok server row without samples_per_s, achieved_qps, target_qps or "
                     "latency_at_percentile_ms; expected each (docs/results.md)");
  }
  return run;
}


std::vector<LoadedRun> LoadDirectory(const fs::path& input) {
  const fs::path root = fs::is_directory(input / "results") ? input / "results" : input;
  std::vector<fs::path> files;
  for (const auto& device : fs::directory_iterator(root)) {
    if (!device.is_directory()) continue;
    for (const auto& compiler : fs::directory_iterator(device.path())) {
      if (!compiler.is_directory()) continue;
      for (const auto& file : fs::directory_iterator(compiler.path())) {
        // Anything named like a row but a folder is read as one: a FIFO or a device is then
        // refused by name (ReadFileCapped), never skipped in silence.
        if (!file.is_directory() && IsRowFile(file.path().filename().string())) {
          files.push_back(file.path());
        }
      }
    }
  }
  std::sort(files.begin(), files.end());  // directory order is not portable
  std::vector<LoadedRun> runs;
  for (const fs::path& file : files) {
    runs.push_back(ParseRun(ReadFileCapped(file.string(), kMaxRowBytes, "result file"),
                            file.string(), "", file.string()));
  }
  if (runs.empty()) {
    throw InputError(input.string() + ": not a results tree; expected files " + root.string() +
                     "/" + kLayout);
  }
  return runs;
}

std::string ZipErrorText(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string text = zip_error_strerror(&error);
  zip_error_fini(&error);
  return text;
}

std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(path);
  while (std::getline(in, part, '/')) parts.push_back(part);
  return parts;
}

using ZipArchive = std::unique_ptr<zip_t, void (*)(zip_t*)>;

const std::string& ZipExpected() {
  static const std::string text =
      "; expected a .zip archive of " + std::string(kLayout) + " (optionally under results/)";
  return text;
}

ZipArchive OpenZip(const std::string& input) {
  int code = 0;
  ZipArchive archive(zip_open(input.c_str(), ZIP_RDONLY, &code), zip_discard);
  if (!archive) {
    throw InputError(input + ": cannot open as zip (" + ZipErrorText(code) + ")" + ZipExpected());
  }
  return archive;
}

// The whole text of entry `index`; `source` ("<archive>:<entry>") names it in errors.
std::string ReadEntry(zip_t* archive, zip_int64_t index, const std::string& source,
                      zip_uint64_t max_bytes) {
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat_index(archive, index, 0, &stat) != 0 || !(stat.valid & ZIP_STAT_SIZE)) {
    throw InputError(source + ": cannot stat the entry (" + zip_strerror(archive) + ")");
  }
  std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> file(zip_fopen_index(archive, index, 0),
                                                         zip_fclose);
  if (!file) {
    throw InputError(source + ": cannot open the entry (" + zip_strerror(archive) + ")");
  }
  // The directory's sizes are checked before anything is allocated: a tiny zip may claim a
  // 3 GiB entry. Deflate never expands more than about 1032:1.
  if (stat.size > max_bytes) {
    throw InputError(source + ": the entry claims " + std::to_string(stat.size) +
                     " bytes, more than such a file may hold (" + std::to_string(max_bytes) +
                     ")");
  }
  if ((stat.valid & ZIP_STAT_COMP_SIZE) && stat.size > stat.comp_size * 1100 + 4096) {
    throw InputError(source + ": the entry claims " + std::to_string(stat.size) + " bytes from " +
                     std::to_string(stat.comp_size) + " compressed bytes: a corrupt directory");
  }
  std::string text(stat.size, '\0');
  const zip_int64_t got = zip_fread(file.get(), text.data(), stat.size);
  if (got < 0 || static_cast<zip_uint64_t>(got) != stat.size) {
    throw InputError(source + ": corrupt entry (" + zip_file_strerror(file.get()) + ")");
  }
  // libzip compares the CRC only when a read reaches the end of the entry, which reading exactly
  // its size does not: one more read must find the end, or a changed digit (CRC mismatch) or an
  // entry longer than its directory says would pass unnoticed.
  char extra;
  const zip_int64_t more = zip_fread(file.get(), &extra, 1);
  if (more != 0) {
    throw InputError(source + ": corrupt entry (" +
                     (more < 0 ? std::string(zip_file_strerror(file.get()))
                               : "longer than the archive's directory says") +
                     "); the archive is damaged: unzip -t names its bad entries");
  }
  return text;
}

std::vector<LoadedRun> LoadZip(const std::string& input) {
  const std::string& expected = ZipExpected();
  ZipArchive archive = OpenZip(input);

  const zip_int64_t entries = zip_get_num_entries(archive.get(), 0);
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (zip_int64_t i = 0; i < entries; ++i) {
    const char* name = zip_get_name(archive.get(), i, 0);
    if (name == nullptr) {
      throw InputError(input + ": entry " + std::to_string(i) + " has no readable name (" +
                       zip_strerror(archive.get()) + ")" + expected);
    }
    names.emplace_back(name);
    // Entry names are plain relative paths, each once: of two entries of one name, which is read
    // would be the reader's choice (python/results_io.py applies the same rules).
    const std::vector<std::string> parts = SplitPath(names.back());
    if (names.back().empty() || names.back()[0] == '/' ||
        std::any_of(parts.begin(), parts.end(),
                    [](const std::string& p) { return p == "." || p == ".."; })) {
      throw InputError(input + ": entry '" + names.back().substr(0, 200) +
                       "' is not a plain relative path (no leading '/', no '.' or '..' part)" +
                       expected);
    }
    if (!seen.insert(names.back()).second) {
      throw InputError(input + ": two entries are named '" + names.back().substr(0, 200) +
                       "'; expected each entry once (an archive appended to? unzip -l lists its "
                       "entries)");
    }
  }
  // Same rule as for directories: a top-level results/ is the tree, else the archive root is.
  const bool under_results = std::any_of(names.begin(), names.end(), [](const std::string& n) {
    return n.rfind("results/", 0) == 0;
  });
  const size_t depth = under_results ? 4 : 3;

  std::map<std::string, zip_int64_t> rows;  // sorted by entry name, like the directory walk
  for (zip_int64_t i = 0; i < entries; ++i) {
    const std::vector<std::string> parts = SplitPath(names[i]);
    if (parts.size() != depth || (under_results && parts[0] != "results")) continue;
    if (IsRowFile(parts.back())) rows.emplace(names[i], i);
  }

  std::vector<LoadedRun> runs;
  for (const auto& [name, index] : rows) {
    const std::string source = input + ":" + name;
    runs.push_back(
        ParseRun(ReadEntry(archive.get(), index, source, kMaxRowBytes), source, input, name));
  }
  if (runs.empty()) {
    throw InputError(input + ": no run rows in the archive" + expected);
  }
  return runs;
}

// The text of a file beside a run's row, in its directory or archive; nullopt when there is
// none. `what` names it in errors.
std::optional<std::string> ReadBeside(const LoadedRun& run, const std::string& path,
                                      const std::string& what, std::string& source) {
  if (run.archive.empty()) {
    source = path;
    if (!fs::exists(path)) return std::nullopt;
    return ReadFileCapped(path, kMaxTraceBytes, what);
  }
  ZipArchive archive = OpenZip(run.archive);
  const zip_int64_t index = zip_name_locate(archive.get(), path.c_str(), 0);
  source = run.archive + ":" + path;
  if (index < 0) return std::nullopt;
  return ReadEntry(archive.get(), index, source, kMaxTraceBytes);
}

}  // namespace

std::vector<LoadedRun> LoadRuns(const std::string& input) {
  std::error_code error;
  const fs::file_status status = fs::status(input, error);
  if (!fs::exists(status)) {
    throw InputError(input + ": no such file or directory; expected a results directory or a .zip "
                             "archive of one");
  }
  if (fs::is_directory(status)) return LoadDirectory(input);
  return LoadZip(input);
}

std::vector<LoadedRun> LoadRuns(const std::vector<std::string>& inputs) {
  std::vector<LoadedRun> runs;
  // The run's identity; an offline run's id (which names its streams) tells it from the
  // single-stream run of the same model and batch size, "" for single stream. Two precisions of
  // one run are two runs (an int8 tree analyzed beside its fp32 tree).
  std::map<std::tuple<std::string, std::string, std::string, std::string, int64_t, std::string,
                      std::string>,
           std::string>
      seen;
  for (const std::string& input : inputs) {
    for (LoadedRun& run : LoadRuns(input)) {
      const ResultRow& r = run.row;
      auto [it, fresh] =
          seen.emplace(std::make_tuple(r.device, r.compiler, r.experiment, r.model, r.batch_size,
                                       r.precision,
                                       r.scenario == "single_stream" ? "" : r.run_id),
                       run.source);
      if (!fresh) {
        throw InputError(run.source + " and " + it->second + " hold the same run (" + r.device +
                         ", " + r.compiler + ", " + r.experiment + ", " + r.model + ", batch " +
                         std::to_string(r.batch_size) +
                         (r.precision.empty() ? "" : ", " + r.precision) +
                         (r.scenario == "single_stream" ? "" : ", " + r.run_id) +
                         "); expected each run once: pass each results tree once, or give "
                         "different machines different device labels");
      }
      runs.push_back(std::move(run));
    }
  }
  return runs;
}

std::optional<std::vector<int64_t>> ReadRunLatencies(const LoadedRun& run) {
  if (run.archive.empty()) {
    if (!fs::exists(run.trace)) return std::nullopt;
    return ReadLatencies(run.trace);
  }
  ZipArchive archive = OpenZip(run.archive);
  const zip_int64_t index = zip_name_locate(archive.get(), run.trace.c_str(), 0);
  if (index < 0) return std::nullopt;
  const std::string source = run.archive + ":" + run.trace;
  return ParseLatencies(ReadEntry(archive.get(), index, source, kMaxTraceBytes), source);
}

std::optional<ProfileTable> ReadRunProfile(const LoadedRun& run) {
  if (run.row.profiler.empty()) return std::nullopt;
  std::string source;
  const std::optional<std::string> text = ReadBeside(run, run.profile, "profile", source);
  if (!text) return std::nullopt;
  return ParseProfileCsv(*text, source);
}

std::optional<std::vector<ServerStep>> ReadRunServerSteps(const LoadedRun& run) {
  if (run.row.scenario != "server" || !run.row.peak_steps) return std::nullopt;
  std::string source;
  const std::optional<std::string> text =
      ReadBeside(run, run.server_steps, "server steps", source);
  if (!text) return std::nullopt;
  std::vector<ServerStep> steps = ParseServerStepsCsv(*text, source);
  if (static_cast<int64_t>(steps.size()) != *run.row.peak_steps) {
    throw InputError("server steps '" + source + "' holds " + std::to_string(steps.size()) +
                     " steps, but its row's peak_steps is " +
                     std::to_string(*run.row.peak_steps) + " (" + run.source +
                     "); expected one line per step the search measured");
  }
  return steps;
}

}  // namespace ngraphbench
