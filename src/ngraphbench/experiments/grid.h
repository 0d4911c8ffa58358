// Expands an experiment into its runs: a pure function, unit-tested.
#pragma once

#include <string>
#include <vector>

#include "ngraphbench/experiments/config.h"
#include "ngraphbench/models/zoo.h"

namespace ngraphbench {

struct RunSpec {
  std::string run_id;  // "<model>_b<batch>[_<precision>]", unique within a results/<device>/<compiler>/ dir
  std::string experiment;
  ModelSpec model;
  int64_t batch_size = 1;
  int64_t warmup = 10;
  int64_t repeats = 100;
  double timeout_s = 600;
  double max_time_s = 60;
  double min_time_s = 0;
  int64_t max_repeats = 100000;
  std::string stop = "fixed";
  double ci_rel_target = 0.02;
  int64_t ci_min_repeats = 30;
  int64_t processes = 5;       // worker processes that share the timed runs
  int64_t max_processes = 20;  // stop ci: the most processes it may add up to
  std::string timing_boundary;
  bool quick = false;
  bool profile = false;  // a profiling pass after the timed runs (profile/profile.h)
  std::string scenario = "single_stream";  // "offline", "server" (ExperimentConfig::scenario)
  int64_t streams = 1;                     // offline, server: requests in flight; 0 = auto
  ServerSettings server;                   // server (ExperimentConfig::server)
  CheckSettings check;
  ValiditySettings validity;
};

struct RunWork;  // measure/aggregate.h

// The work a run's processes share (measure/aggregate.h, ShareOfRun): its warmup, repeats, time
// caps and starting processes; `sample_period_ms` the sampler's period (0: none), which the
// harness needs and the estimate leaves out.
RunWork WorkOf(const RunSpec& run, double sample_period_ms = 0);

// A run's id: "<model>_b<batch>", and for scenario offline "<model>_b<batch>_offline_s<streams>"
// ("_offline_sauto"), so that a model's offline rows sit beside its single-stream rows and each
// resumes on its own.
// For scenario server, "<model>_b<batch>_server_s<streams>_q<target_qps>" (a '.' in the rate
// written 'p': q12p5), or "..._server_s<streams>_peak" with find_peak.
std::string ServerRunIdSuffix(int64_t streams, const ServerSettings& server);
// A run id carries the compiler's precision when it is not fp32: "<id>_<precision>"
// (conv_blocks_w16_d1_b1_int8, ..._offline_s4_bf16), so that a results tree holds every precision
// of a run side by side; fp32 ids are the grid's as they are. The suffix is applied where a run
// meets its compiler's config (SetRunPrecision, in ResolveSweepSettings), not by ExpandGrid.
// The precisions a run id may carry: every precision of every compiler but fp32.
inline const std::vector<std::string> kRunIdPrecisions = {"bf16", "fp16", "int8"};
// "" for fp32, else "_<precision>"; InputError for a precision not in kRunIdPrecisions.
std::string PrecisionRunIdSuffix(const std::string& precision);
// Suffixes every run's id for `precision`.
void SetRunPrecision(std::vector<RunSpec>& runs, const std::string& precision);
// A run id without its precision suffix: the id the run's input, redraw and arrival seeds and
// its reference outputs derive from, so that every precision of a run sees the same inputs (and
// the same reference). A grid id never ends in a precision (it ends in _b<batch>, _s<streams>,
// _q<rate> or _peak), so this strips only what SetRunPrecision added.
std::string SeedRunId(const std::string& run_id);
// Order: models in config order (widths outer, depths inner), then batch sizes ascending as
// listed. `quick` uses the experiment's quick_batch_sizes.
std::vector<RunSpec> ExpandGrid(const ExperimentConfig& experiment, bool quick);

}  // namespace ngraphbench
