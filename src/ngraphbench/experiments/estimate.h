// How long runs will take, before they run: `ngraphbench expand --estimate` (what a sweep costs)
// and `run --shard i/N` (parts of a grid of about equal cost).
//
// A run's wall time is modelled as its processes, each
//   overhead (worker start, reference check) + build + compile + warmup + a share of the timed runs
// where warmup and the timed runs follow the harness's rules (warmup runs, then `repeats` timed
// runs or at least min_time_s, each phase capped at max_time_s), plus at most once per run a
// tuning (below). A compiler that caches its compile by the model (tvm, inductor, executorch, in
// results/.cache/<name>/) compiles in a run's first process only: the later ones load that. The
// parts come from, in order:
//   measured  the run's own row on this device, measured with the run's settings (its timed
//             window, compile time, latency, and the processes it took);
//   scaled    the nearest measured row of the same compiler on this device (same model at another
//             batch size first, then the same experiment, then any; the run's own row measured
//             with other settings, e.g. --quick, counts as the same model at its batch size,
//             and the run is charged its tuning), its latency scaled by
//             multiply-accumulates x batch size;
//   prior     no row to go by: latency from MACs at kPriorMacsPerSecond per thread, and a fixed
//             compile time per compiler.
// With stop ci a run may take more processes than `processes` (up to max_processes): the count
// of the row it is measured from, or of the row it is scaled from plus the prior's growth
// between their latencies (PriorCiProcesses), where that row has one.
// A compiler that auto-tunes (TVM) tunes in the first compile of a run that is not --quick, into
// a tuning database shared by every run of the config, each tuning task (a fused kernel) tuned
// once: so a run is charged for the kernels of its model (DistinctKernels, graph/kernels.h, at
// its batch size) that no run estimated before it (EstimateRuns, in the order the sweep starts
// them: grid order) and no row on disk tuned, at the seconds a kernel took the rows that tuned
// (the prior, EstimateInputs::tuning_s_per_kernel, among them) each and at most
// EstimateInputs::tuning_s (the trial budget's time, or the tuning's timeout). A model
// whose kernels are unknown (a PyTorch model, exported by the worker) is charged tuning_s once
// per TuningWorkload instead. A row's own compile time has its tuning taken out before it is
// scaled to another run.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ngraphbench/experiments/grid.h"
#include "ngraphbench/results/row.h"

namespace ngraphbench {

// The prior's CPU speed: multiply-accumulates per second per thread. At one thread on a 2-core
// AVX-512 VM the CPU compilers reached 55-100 G on conv2d, the conv and attention blocks and
// resnet18 (tvm tuned 34-52 G), 35-48 G on fully_connected at batch 8, and 7 G at batch 1,
// where the weights' memory traffic bounds it (bench/estimate_check.sh, bench/calibration.sh).
// The runs that weigh on a sweep's total are the large, compute-bound ones.
constexpr double kPriorMacsPerSecond = 60e9;
// The processes a run under stop ci takes when no row says (within processes .. max_processes),
// by its latency: kPriorCiProcessesAt1Ms + kPriorCiProcessesPerDecade x log10(latency in ms).
// The longer a run, the more a drift of the machine moves its processes apart: the 960 rows of
// the traces' synthetic experiments, measured on a 2-core VM at one thread with the seven CPU
// compilers interleaved as a sweep measures them, took 3.2 processes on average below 0.01 ms,
// 4.7 at 0.01-0.1 ms, 4.9 at 0.1-1 ms, 6.2 at 1-10 ms, 6.9 at 10-100 ms, 7.8 at 0.1-1 s and 9.2
// above (the cap of 10: 0 % to 67 % of the rows); the least-squares line through them is this
// one (residual sd 2.4 processes a run; bench/estimate_priors.py). 6.3 a row on average, 8.3
// weighted by the rows' wall: one count for every run would leave the runs that weigh on a
// sweep short.
constexpr double kPriorCiProcessesAt1Ms = 5.6;
constexpr double kPriorCiProcessesPerDecade = 0.94;
// What each process spends besides building, compiling, warming up and timing: its start, the
// output check's reference and check, LibTorch's load. The median over the same rows: 0.115 s
// a process (0.02 s for onnxruntime, openvino, tvm and executorch; 0.16-0.19 s for the
// compilers that load LibTorch).
constexpr double kRunOverheadS = 0.1;
// A later process's build, cache load and first run, for a compiler that caches its compile
// (CachesCompile), where no row says: the median over the same rows, 0.04-0.06 s for tvm,
// inductor and executorch.
constexpr double kPriorCacheLoadS = 0.05;
// The tuning prior's seconds per kernel counts as this many rows that tuned in the median
// (EstimateInputs::tuning_s_per_kernel): a task's cost on one machine ranged 19-147 s, so the
// first rows alone swing the estimate of every run after them (95 s a task after two rows,
// 25 s after five, against a prior of 35), while a sweep's hundreds of rows outweigh it.
constexpr int kTuningPriorWeight = 3;

struct EstimateInputs {
  std::string compiler;
  int threads = 1;  // the compiler config's resolved threads
  // Rows of this compiler on this device, by run id (rows of any status); a row measured with
  // settings other than its run's (another config_hash) under "<run id> (config_hash <hash>)":
  // not the run's own, only a row to scale from.
  std::map<std::string, ResultRow> measured;
  // Multiply-accumulates of one sample, by model name (RunSpec::model.name); missing = unknown.
  std::map<std::string, double> macs;
  // The nodes of each model's graph, by model name; missing = unknown (the compile prior is
  // then the description's prior_compile_s alone).
  std::map<std::string, int64_t> nodes;
  std::string precision = "fp32";  // the compiler config's
  // A cold auto-tuning's seconds for this compiler config (its description's prior_tuning:
  // trial budget x seconds per trial, at most the tuning's timeout; 0 for a compiler that does
  // not tune), charged once per tuning workload (EstimateRuns).
  double tuning_s = 0;
  // The config's trial budget: a row tuned with another budget tuned into another database
  // (its compiler_settings' trials_requested).
  int64_t tuning_trials = 0;
  // The kernels a tuning tunes, by model name: DistinctKernels of the model at batch 1; missing =
  // unknown (charged per workload).
  std::map<std::string, std::vector<uint64_t>> kernels;
  // The description's prior seconds of tuning per kernel (prior_tuning.seconds_per_task); the
  // estimate charges the median of tuning_s / tasks_tuned over this config's rows that tuned
  // (EstimateRuns) with this prior counted as kTuningPriorWeight of them.
  double tuning_s_per_kernel = 0;
};

struct RunCost {
  double seconds = 0;   // the tuning included
  double tuning_s = 0;  // what of it is the tuning of the run's workload
  std::string source;   // "measured", "scaled from <run_id>" or "prior"
};

// The workload a run tunes, for a compiler that auto-tunes into a database shared between runs
// (TVM: tvm_compile.py keeps MetaSchedule's records in results/.cache/tvm/tuning/<key>/, each
// task found by the structural hash of its fused layer, and tunes only the tasks without one).
// Runs of one workload tune once between them: the first finds no records and tunes, the
// others find every task tuned. The key is made of
//   - the model, less its depth for the stacked-block families (conv_block, mha_block): a block
//     of depth d stacks d identical layers, whose tasks are those of depth 1, so the 175 runs of
//     conv_blocks are 35 workloads (width x batch size);
//   - the batch size and the precision: they are in every task's shapes and types;
//   - `pool_threads`, the threads of one stream's pool (PoolThreads): the database's own key has
//     them, since tuning times candidates on that pool.
// The rest of the database's key (target, SDK version, trial budget, patience) is the compiler
// config's, the same for every run estimated together.
std::string TuningWorkload(const RunSpec& run, const std::string& precision,
                           int64_t pool_threads);
// The prior's processes for a run of `latency_s` a batch under stop ci (kPriorCiProcessesAt1Ms),
// before the run's own bounds.
double PriorCiProcesses(double latency_s);
// The threads of one stream's pool under `threads` for the whole run: all of them for
// single_stream, an equal share per stream for offline and server (one each for streams auto),
// as the tvm module splits them.
int64_t PoolThreads(const RunSpec& run, int64_t threads);

// The runs' costs, in the order given (the order the sweep starts them), each tuning workload's
// tuning charged to its first run only, unless a row in `inputs.measured` already tuned it.
std::vector<RunCost> EstimateRuns(const std::vector<RunSpec>& runs, const EstimateInputs& inputs);
// One run's cost estimated alone: it tunes unless a row already tuned its workload.
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
// The runs are estimated together (EstimateRuns), so a workload's tuning weighs on the shard that
// holds its first run.
std::vector<RunSpec> SelectShard(const std::vector<RunSpec>& runs, const ShardSpec& shard,
                                 const EstimateInputs& inputs, double* shard_s, double* total_s);

}  // namespace ngraphbench
