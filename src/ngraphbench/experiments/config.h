// configs/experiments.yaml and configs/<compiler>.yaml, parsed into plain structs and validated
// once. Every error names the file, the key and what is allowed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/compilers/options.h"
#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/measure/check.h"
#include "ngraphbench/measure/verdict.h"

namespace ngraphbench {

// The server scenario's settings (docs/experiments.md, Scenarios): experiments.yaml keys of the
// same names (min_duration_s is server_min_duration_s), and --set as any run setting.
struct ServerSettings {
  // Queries per second the load generator issues (required for server); with find_peak, where
  // the search starts.
  double target_qps = 0;
  double latency_bound_ms = 0;     // required for server
  double latency_percentile = 99;  // the percentile held to the bound, in (0, 100)
  bool find_peak = false;          // search the highest rate that meets the bound
  // The arrivals' seed; none: Fnv1a64 of "arrivals:" and the run id, as the inputs' seeds come
  // from the run id.
  std::optional<uint64_t> arrival_seed;
  // The generator issues for at least this long (and at least the queries the percentile
  // needs, measure/server.h); max_time_s caps it.
  double min_duration_s = 10;
};

struct ExperimentConfig {
  std::string name;
  std::string family;
  std::string description;
  std::vector<int64_t> widths, depths;
  std::vector<std::string> models;  // architectures, paths of external .onnx files, or PyTorch
                                    // sources (family torch: timm:<name>, <file>.py:<function>)
  std::vector<int64_t> input_shape;  // family torch: the input without the batch dimension
  std::vector<int64_t> batch_sizes;
  std::vector<int64_t> quick_batch_sizes;
  int64_t warmup = 10;
  int64_t repeats = 100;
  double timeout_s = 600;
  double max_time_s = 60;  // cap on the warmup and on the timed runs, each (0 = none)
  double quick_max_time_s = 5;  // the same cap under --quick (a smoke run)
  std::string timing_boundary = "compute";  // or "end_to_end"
  // The timed phase runs at least this long (up to the time cap), so that microsecond-scale
  // runs hold enough sampler periods; a shorter window makes the row invalid.
  double min_time_s = 0.5;
  int64_t max_repeats = 100000;  // ceiling on the timed runs that min_time_s may add
  // When a run has enough processes: "fixed" (`processes` processes, the paper's protocol in
  // each: warmup, then its share of `repeats` timed runs), "ci" (processes are added, up to
  // max_processes, until the median's 95% interval is within ci_rel_target of the median) or
  // "auto" (ci in single_stream unless --processes fixes the count, fixed otherwise; resolved
  // by ResolveExperiment).
  std::string stop = "auto";
  double ci_rel_target = 0.05;
  int64_t ci_min_repeats = 30;
  // Repetition across processes (measure/repeat.h): the run's timed runs are shared among
  // `processes` fresh worker processes (the first ones, with stop ci).
  int64_t processes = 3;
  int64_t max_processes = 10;
  CheckSettings check;
  ValiditySettings validity;
  // A profiling pass after the timed runs (docs/profiles.md): the compiler's kernels in
  // <run_id>.profile.csv and the row's profile_* columns. Off by default.
  bool profile = false;
  // The load the compiled model is under (docs/measurement.md, Scenarios): "single_stream"
  // (one synchronous request at a time: every row before scenarios) or "offline" (`streams`
  // requests in flight at once, each on its own execution context, the cores split between
  // them; samples/s over the timed window) or "server" (queries at a target rate into those
  // streams, a latency percentile held to a bound: `server`).
  std::string scenario = "single_stream";
  // offline and server: requests in flight; 0 is `auto` (the compiler's own choice where its SDK
  // has one, else one per thread).
  int64_t streams = 1;
  ServerSettings server;  // scenario server only
};

// The scenarios a run may name.
inline constexpr const char* kScenarioSingleStream = "single_stream";
inline constexpr const char* kScenarioOffline = "offline";
inline constexpr const char* kScenarioServer = "server";

// Throws InputError (`where` names the file and key, or the flag) unless `scenario` is
// single_stream, offline or server.
void CheckScenarioName(const std::string& scenario, const std::string& where);
// Throws InputError for settings that do not go with the experiment's scenario: streams other
// than 1 in single_stream; offline or server with stop ci (which decides on one stream's median
// latency) or profile on (which profiles one request at a time); server without target_qps or
// latency_bound_ms; server settings without scenario server.
// `where` names the experiment.
void CheckScenarioSettings(const ExperimentConfig& e, const std::string& where);
// "auto" for 0, else the number: how `streams` is written in run ids, rows and fingerprints.
std::string StreamsName(int64_t streams);

struct ExperimentsFile {
  std::string path;
  ExperimentConfig defaults;                  // the `defaults` section, applied to each
  std::vector<ExperimentConfig> experiments;  // in file order

  // Throws InputError naming the known experiments.
  const ExperimentConfig& Find(const std::string& name) const;
};

ExperimentsFile LoadExperiments(const std::string& path);
// The same from the file's text; `path` names it in errors.
ExperimentsFile ParseExperiments(const std::string& text, const std::string& path);

// Settings given on the command line, `--set KEY=VALUE` each, applied over the YAML files and
// validated by the same rules, with the same messages naming "--set" instead of a file. A KEY is
// a setting of the experiment (warmup, repeats, max_time_s, batch_sizes, validity.max_ci_rel, any
// key an experiment may set) or of a compiler's config (device, precision, threads, affinity,
// opt_level, options.<key>), for every compiler of the command, or for one if prefixed with its
// name (openvino.precision). A VALUE is YAML: 5, bf16, [1, 8]. Like a YAML edit, a setting
// changes the fingerprint of the runs it applies to (through the values it sets).
//
// Throws InputError for an item that is not KEY=VALUE, a value that is not YAML, a key given
// twice, a key that is neither kind (naming the known keys), or one prefixed with a compiler
// that is not among `compilers`, those the command runs.
void ValidateSettings(const std::vector<std::string>& settings,
                      const std::vector<std::string>& compilers);
// Those of `settings` that apply to a run of `compiler`: the experiment's, every unprefixed
// compiler key and those prefixed with its name; as given.
std::vector<std::string> SettingsFor(const std::vector<std::string>& settings,
                                     const std::string& compiler);
// The precision every compiler of the command is given (`--set precision=int8`), or "" when
// none is: a compiler's own (openvino.precision) is not. Throws InputError as ValidateSettings,
// and when the value is not a name.
std::string SettingsPrecision(const std::vector<std::string>& settings);
// The experiment's keys of `settings` applied to `e`.
void ApplyExperimentSettings(const std::vector<std::string>& settings, ExperimentConfig& e);

// `threads: auto` (and unset): every core but one, at least one, of `all_cores` (AvailableCores()
// when 0), so that the OS, the harness's sampler thread and neighbours have a core of their own
// and the SDK's threads are not descheduled mid-run (docs/measurement.md, Threads).
int AutoThreads(int all_cores);

// Validates `path` against the compiler's schema, with the compiler keys of `settings` over it;
// threads auto (or unset) resolves to AutoThreads(all_cores), threads 0 to `all_cores`, or to
// AvailableCores() when `all_cores` is 0. A scheduler running several workers at once gives each
// a slice of the cores: there "every core" means the slice's size.
CompilerConfig LoadCompilerConfig(const std::string& path, const CompilerInfo& info,
                                  int all_cores = 0, const std::vector<std::string>& settings = {});
CompilerConfig ParseCompilerConfig(const std::string& text, const std::string& path,
                                   const CompilerInfo& info, int all_cores = 0,
                                   const std::vector<std::string>& settings = {});
// The settings when configs/<compiler>.yaml does not exist: every default.
CompilerConfig DefaultCompilerConfig(const CompilerInfo& info, int all_cores = 0);

}  // namespace ngraphbench
