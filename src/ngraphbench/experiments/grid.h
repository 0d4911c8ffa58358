// Expands an experiment into its runs: a pure function, unit-tested.
#pragma once

#include <string>
#include <vector>

#include "ngraphbench/experiments/config.h"
#include "ngraphbench/models/zoo.h"

namespace ngraphbench {

struct RunSpec {
  std::string run_id;  // "<model>_b<batch>", unique within a results/<device>/<compiler>/ dir
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

// A run's id: "<model>_b<batch>", and for scenario offline "<model>_b<batch>_offline_s<streams>"
// ("_offline_sauto"), so that a model's offline rows sit beside its single-stream rows and each
// resumes on its own.
// For scenario server, "<model>_b<batch>_server_s<streams>_q<target_qps>" (a '.' in the rate
// written 'p': q12p5), or "..._server_s<streams>_peak" with find_peak.
std::string ServerRunIdSuffix(int64_t streams, const ServerSettings& server);
// Order: models in config order (widths outer, depths inner), then batch sizes ascending as
// listed. `quick` uses the experiment's quick_batch_sizes.
std::vector<RunSpec> ExpandGrid(const ExperimentConfig& experiment, bool quick);

}  // namespace ngraphbench
