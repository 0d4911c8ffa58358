// How long runs will take, before they run: `ngraphbench expand --estimate` (what a sweep costs)
// and `run --shard i/N` (parts of a grid of about equal cost).
//
// A run's wall time is modelled as
//   overhead (worker start, reference check) + build + compile + warmup + timed runs
// where warmup and the timed runs follow the harness's rules (warmup runs, then `repeats` timed
// runs or at least min_time_s, each phase capped at max_time_s). The parts come from, in order:
//   measured  the run's own row on this device (its timed window, compile time, latency);
//   scaled    the nearest measured row of the same compiler on this device (same model at another
//             batch size first, then the same experiment, then any), its latency scaled by
//             multiply-accumulates x batch size;
//   prior     no row to go by: latency from MACs at kPriorMacsPerSecond per thread, and a fixed
//             compile time per compiler.
// A compiler that auto-tunes (TVM) tunes in the compile of a run that is not --quick: such a run
// not measured itself adds its config's tuning estimate (EstimateInputs::tuning_s) to the prior's
// compile time, or to that of a --quick row it is scaled from.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ngraphbench/experiments/grid.h"
#include "ngraphbench/results/row.h"

namespace ngraphbench {

// The prior's CPU speed: multiply-accumulates per second per thread. The CPU compilers reached
// 30-45 G on conv2d on a 2-core AVX-512 VM; attention and depthwise layers run slower.
constexpr double kPriorMacsPerSecond = 20e9;
// Starting a worker, building the model, the output check's reference: per run, measured as
// about 0.4 s on a 2-core VM for small models.
constexpr double kRunOverheadS = 0.5;

struct EstimateInputs {
  std::string compiler;
  int threads = 1;  // the compiler config's resolved threads
  // Rows of this compiler on this device, by run id (rows of any status).
  std::map<std::string, ResultRow> measured;
  // Multiply-accumulates of one sample, by model name (RunSpec::model.name); missing = unknown.
  std::map<std::string, double> macs;
  // A cold auto-tuning's seconds for this compiler config (its description's prior_tuning:
  // trial budget x seconds per trial; 0 for a compiler that does not tune). A run not --quick
  // adds it to a compile time taken from a --quick row or from the prior.
  double tuning_s = 0;
};

struct RunCost {
  double seconds = 0;
  std::string source;  // "measured", "scaled from <run_id>" or "prior"
};

RunCost EstimateRun(const RunSpec& run, const EstimateInputs& inputs);

// "i/N" with 1 <= i <= N. Throws InputError naming the form.
struct ShardSpec {
  int index = 1;
  int count = 1;
};
ShardSpec ParseShard(const std::string& text);

// The runs of shard `shard` (their indices into `costs`, ascending): the runs are dealt out by
// decreasing cost (ties by run id), each to the shard with the least cost so far (ties to the
// lowest index), so the shards' totals are about equal. Deterministic: the same costs and ids
// give every process the same partition; the union of all shards is every run, once.
std::vector<size_t> ShardIndices(const std::vector<double>& costs,
                                 const std::vector<std::string>& run_ids, const ShardSpec& shard);
// The runs of `shard` (in grid order); the estimated seconds of the shard and of the whole grid.
std::vector<RunSpec> SelectShard(const std::vector<RunSpec>& runs, const ShardSpec& shard,
                                 const EstimateInputs& inputs, double* shard_s, double* total_s);

}  // namespace ngraphbench
