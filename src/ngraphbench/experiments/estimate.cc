#include "ngraphbench/experiments/estimate.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/measure/aggregate.h"

namespace ngraphbench {
namespace {

// What a run's time is made of, before the harness's rules turn it into seconds.
struct Parts {
  double first_fixed_s = 0;  // build + compile + first run of the run's first process
  double later_fixed_s = 0;  // the same of each later process (a cache load for CachesCompile)
  double latency_s = 0;      // one batch
  std::optional<double> timed_s;  // the timed window, where the run's own row gives it
  double processes = 1;
};

// The compilers whose description says that only a run's first process compiles, the later
// ones loading its result from the results tree's cache (`caches_compile` in compiler.yaml).
bool CachesCompile(const std::string& compiler) { return FindCompiler(compiler).caches_compile; }

double Macs(const EstimateInputs& in, const std::string& model) {
  auto it = in.macs.find(model);
  return it == in.macs.end() ? 0.0 : it->second;
}

// The model's graph nodes, 0 where unknown.
double Nodes(const EstimateInputs& in, const std::string& model) {
  auto it = in.nodes.find(model);
  return it == in.nodes.end() ? 0.0 : static_cast<double>(it->second);
}

// Each compiler's description says it (prior_compile_s and prior_compile_s_per_node in its
// compiler.yaml): TVM compiles through Python and LLVM (seconds per model, untuned), Inductor
// and ExecuTorch export through torch.export (seconds, and more for each node of a larger
// graph), the others in under a second.
double PriorCompileS(const EstimateInputs& in, const std::string& model) {
  const CompilerInfo& info = FindCompiler(in.compiler);
  return info.prior_compile_s + info.prior_compile_s_per_node * Nodes(in, model);
}

// What compiling `model` takes beyond compiling `ref_model` (negative: less), by the nodes
// they differ in; 0 where either's nodes are unknown.
double CompileGrowthS(const EstimateInputs& in, const std::string& model,
                      const std::string& ref_model) {
  if (Nodes(in, model) <= 0 || Nodes(in, ref_model) <= 0) return 0;
  return FindCompiler(in.compiler).prior_compile_s_per_node *
         (Nodes(in, model) - Nodes(in, ref_model));
}

bool Measured(const ResultRow& row) {
  return (row.status == kStatusOk || row.status == kStatusWrong) && row.latency_mean_ms &&
         *row.latency_mean_ms > 0;
}

// One entry of a row's compiler_settings ("k=v;k=v", keys sorted), or empty.
std::string Setting(const ResultRow& row, const std::string& key) {
  const std::string& all = row.compiler_settings;
  const std::string prefix = key + "=";
  for (size_t at = 0; at < all.size();) {
    const size_t end = std::min(all.find(';', at), all.size());
    if (all.compare(at, prefix.size(), prefix) == 0) {
      return all.substr(at + prefix.size(), end - at - prefix.size());
    }
    at = end + 1;
  }
  return "";
}

// The seconds of the row's first compile that went to tuning (tvm's tuning_s, which on a cache
// hit is the original compile's, not this one's).
double TuningInCompileS(const ResultRow& row) {
  if (Setting(row, "cache_hit") == "true") return 0;
  const std::string tuning_s = Setting(row, "tuning_s");
  return tuning_s.empty() ? 0.0 : std::max(0.0, std::atof(tuning_s.c_str()));
}

// Build + compile + first run of the row's first process (a row's phase columns are its first
// process's).
double FixedOf(const ResultRow& row) {
  return row.build_s.value_or(0) + row.compile_s.value_or(0) + row.first_run_ms.value_or(0) / 1e3;
}

// The same less the tuning in that compile: what another run's first process compiles.
double UntunedFixedOf(const ResultRow& row) {
  return std::max(0.0, FixedOf(row) - TuningInCompileS(row));
}

double Phase(const ResultRow& row, const std::string& name) {
  for (const auto& [phase, seconds] : row.phases_s) {
    if (phase == name) return seconds;
  }
  return 0;
}

// Build + compile (or cache load) + first run of one of the row's later processes: from its
// phases, which sum every process's, where it has them and more than one process; else the
// first process's, or for a compiler that caches its compile, its build and a cache load.
double LaterFixedOf(const ResultRow& row, const std::string& compiler) {
  const int64_t k = row.processes.value_or(1);
  const double first_run_s = row.first_run_ms.value_or(0) / 1e3;
  if (k > 1 && Phase(row, "compile") > 0) {
    const double later = Phase(row, "build") + Phase(row, "compile") - row.build_s.value_or(0) -
                         row.compile_s.value_or(0);
    return std::max(0.0, later) / static_cast<double>(k - 1) + first_run_s;
  }
  if (CachesCompile(compiler)) return row.build_s.value_or(0) + kPriorCacheLoadS + first_run_s;
  return UntunedFixedOf(row);
}

// With stop ci the processes a row took, plus the prior's growth with latency from the row's
// latency to the run's (PriorCiProcesses), or without a row the prior's for the run's latency
// (at least the run's, at most its max_processes); with fixed, the run's own count.
double ProcessesOf(const RunSpec& run, const ResultRow* row, double latency_s) {
  const int64_t asked = std::max<int64_t>(1, run.processes);
  if (run.stop != "ci") return static_cast<double>(asked);
  // A row from before rows counted their processes took what it asked.
  const double took =
      row ? static_cast<double>(row->processes.value_or(asked)) +
                PriorCiProcesses(latency_s) - PriorCiProcesses(*row->latency_mean_ms / 1e3)
          : PriorCiProcesses(latency_s);
  return std::clamp(took, static_cast<double>(asked),
                    static_cast<double>(std::max(asked, run.max_processes)));
}

// The measured row to scale from: the same model at the nearest batch size, else the same
// experiment, else any; among equals the one whose work (MACs x batch) is nearest.
const ResultRow* Nearest(const RunSpec& run, const EstimateInputs& in) {
  const double work = Macs(in, run.model.name) * static_cast<double>(run.batch_size);
  const ResultRow* best = nullptr;
  std::tuple<int, double, std::string> best_key;
  for (const auto& [id, row] : in.measured) {
    if (!Measured(row)) continue;
    const int tier = row.model == run.model.name ? 0 : row.experiment == run.experiment ? 1 : 2;
    const double row_work = row.macs.value_or(0) * static_cast<double>(row.batch_size);
    const double distance =
        tier == 0 ? std::abs(std::log(static_cast<double>(row.batch_size) /
                                      static_cast<double>(run.batch_size)))
        : work > 0 && row_work > 0 ? std::abs(std::log(row_work / work))
                                   : 1e9;
    const auto key = std::make_tuple(tier, distance, id);
    if (!best || key < best_key) {
      best = &row;
      best_key = key;
    }
  }
  // Scaling across models needs both MAC counts.
  if (best && std::get<0>(best_key) > 0 &&
      (work <= 0 || best->macs.value_or(0) <= 0)) {
    return nullptr;
  }
  return best;
}

// Whether the row's compile tuned this config's database to the end (tuning=ok: its records
// merged, or every task found tuned already).
bool TunedToTheEnd(const ResultRow& row, const EstimateInputs& in) {
  return !row.quick.value_or(false) && Setting(row, "tuning") == "ok" &&
         Setting(row, "trials_requested") == std::to_string(in.tuning_trials);
}

// The row's run, as far as its tuning goes, and the threads of its pool.
RunSpec TuningRunOf(const ResultRow& row, int64_t* pool_threads) {
  RunSpec run;
  run.model.family = row.family;
  run.model.name = row.model;
  run.model.depth = row.depth.value_or(0);
  run.batch_size = row.batch_size;
  run.scenario = row.scenario;
  *pool_threads = row.scenario == kScenarioSingleStream ? row.threads.value_or(0)
                                                        : row.threads_per_stream.value_or(0);
  return run;
}

// What the tunings of runs estimated together have tuned so far: kernels (with the batch size,
// precision and pool threads they were tuned at) and, for models of unknown kernels, workloads.
struct Tuned {
  std::set<std::pair<uint64_t, std::string>> kernels;
  std::set<std::string> workloads;

  // Takes the run's tuning in; returns the kernels it tunes that were not tuned before (-1: its
  // kernels are unknown and its workload is new, 0: nothing new).
  int64_t Add(const RunSpec& run, const std::string& precision, int64_t pool_threads,
              const EstimateInputs& in) {
    const auto known = in.kernels.find(run.model.name);
    if (known == in.kernels.end()) {
      return workloads.insert(TuningWorkload(run, precision, pool_threads)).second ? -1 : 0;
    }
    const std::string at = fmt::format("b{} {} threads={}", run.batch_size, precision,
                                       pool_threads);
    int64_t added = 0;
    for (const uint64_t kernel : known->second) added += kernels.insert({kernel, at}).second;
    return added;
  }
};

// The seconds of tuning per kernel on this machine: the median of tuning_s / tasks_tuned over
// this config's rows that tuned tasks, the prior counted as kTuningPriorWeight rows.
double TuningSecondsPerKernel(const EstimateInputs& in) {
  std::vector<double> per_kernel(kTuningPriorWeight, in.tuning_s_per_kernel);
  for (const auto& [id, row] : in.measured) {
    const double tasks = std::atof(Setting(row, "tasks_tuned").c_str());
    if (TunedToTheEnd(row, in) && tasks >= 1 && TuningInCompileS(row) > 0) {
      per_kernel.push_back(TuningInCompileS(row) / tasks);
    }
  }
  std::sort(per_kernel.begin(), per_kernel.end());
  const size_t n = per_kernel.size();
  return n % 2 ? per_kernel[n / 2] : (per_kernel[n / 2 - 1] + per_kernel[n / 2]) / 2;
}

// Whether the run has a row that resume keeps: it then does not run again (a skipped row is
// tried again).
bool HasRow(const RunSpec& run, const EstimateInputs& in) {
  const auto own = in.measured.find(run.run_id);
  return own != in.measured.end() && own->second.status != kStatusSkipped;
}

// The run's cost; `tuning_s`: what its first compile tunes (0 for a run with a row: the row says
// what its compile took).
RunCost Estimate(const RunSpec& run, const EstimateInputs& in, double tuning_s) {
  const double b = static_cast<double>(run.batch_size);
  Parts parts;
  RunCost cost;
  auto own = in.measured.find(run.run_id);
  if (own != in.measured.end() && own->second.status == kStatusTimeout) {
    return {run.timeout_s, 0, "measured (timeout)"};
  }
  if (own != in.measured.end() && Measured(own->second)) {
    // What the run took, its tuning included.
    const ResultRow& row = own->second;
    parts.first_fixed_s = FixedOf(row);
    parts.later_fixed_s = LaterFixedOf(row, in.compiler);
    parts.latency_s = *row.latency_mean_ms / 1e3;
    parts.timed_s = row.timed_window_s;
    parts.processes =
        static_cast<double>(row.processes.value_or(std::max<int64_t>(1, run.processes)));
    cost.source = "measured";
  } else if (HasRow(run, in)) {
    // error or crashed: it ends early, after building (and perhaps compiling).
    return {kRunOverheadS + FixedOf(own->second), 0, "measured (" + own->second.status + ")"};
  } else if (const ResultRow* ref = Nearest(run, in)) {
    const double ref_b = static_cast<double>(ref->batch_size);
    double scale = b / ref_b;
    if (ref->model != run.model.name) {
      scale = Macs(in, run.model.name) * b / (ref->macs.value_or(1) * ref_b);
    }
    // Another model's compile takes as much more (or less) as its graph has more nodes; a
    // later process that loads the compile cache does not compile.
    const double growth_s = CompileGrowthS(in, run.model.name, ref->model);
    parts.first_fixed_s = std::max(0.0, UntunedFixedOf(*ref) + growth_s);
    parts.later_fixed_s = LaterFixedOf(*ref, in.compiler);
    if (!CachesCompile(in.compiler)) {
      parts.later_fixed_s = std::max(0.0, parts.later_fixed_s + growth_s);
    }
    parts.latency_s = *ref->latency_mean_ms / 1e3 * scale;
    parts.processes = ProcessesOf(run, ref, parts.latency_s);
    cost.source = "scaled from " + ref->run_id +
                  (ref->run_id == run.run_id ? " (measured with other settings)" : "");
  } else {
    const double macs = Macs(in, run.model.name);
    parts.first_fixed_s = PriorCompileS(in, run.model.name);
    parts.later_fixed_s = CachesCompile(in.compiler) ? kPriorCacheLoadS : parts.first_fixed_s;
    parts.latency_s = macs > 0 ? macs * b / (kPriorMacsPerSecond * std::max(1, in.threads))
                               : 0.01;
    parts.processes = ProcessesOf(run, nullptr, parts.latency_s);
    cost.source = "prior";
  }
  // The run's processes each start, build, compile (or load the compile cache), run once, warm
  // up and time their share of the run, the share of the `processes` it starts with (the
  // harness's ShareOfRun): a process that stop ci adds times as much as each of the first ones.
  const double k = parts.processes;
  const ProcessShare share = ShareOfRun(WorkOf(run), /*share_of_run=*/true);
  const double cap = share.max_time_s > 0 ? share.max_time_s : 1e30;
  const double warmup_s = std::min(static_cast<double>(share.warmup) * parts.latency_s, cap);
  double timed_per_process_s;
  if (parts.timed_s) {
    timed_per_process_s = *parts.timed_s / k;  // the row's window: all its processes'
  } else {
    // The harness's timed loop (measure/harness.cc): its share of the repeats (and of
    // min_time), no more than max_repeats, ended by the time cap once the fewest timed runs
    // a cap may leave are done.
    const double wanted_s = std::min(
        std::max(static_cast<double>(share.repeats) * parts.latency_s, share.min_time_s),
        static_cast<double>(share.max_repeats) * parts.latency_s);
    const double floor_s =
        static_cast<double>(std::min(share.repeats, share.min_timed_repeats)) * parts.latency_s;
    timed_per_process_s = std::min(wanted_s, std::max(cap, floor_s));
  }
  const auto process_s = [&](double fixed_s) {
    return std::min(kRunOverheadS + fixed_s + parts.latency_s + warmup_s + timed_per_process_s,
                    run.timeout_s);
  };
  // The tuning, in the first process's compile, has a timeout of its own on top of the run's
  // (MakePlan): it is not under run.timeout_s.
  cost.tuning_s = tuning_s;
  cost.seconds =
      process_s(parts.first_fixed_s) + (k - 1) * process_s(parts.later_fixed_s) + cost.tuning_s;
  return cost;
}

}  // namespace

double PriorCiProcesses(double latency_s) {
  const double ms = std::max(latency_s * 1e3, 1e-6);
  return kPriorCiProcessesAt1Ms + kPriorCiProcessesPerDecade * std::log10(ms);
}

int64_t PoolThreads(const RunSpec& run, int64_t threads) {
  if (run.scenario == kScenarioSingleStream) return threads;
  return run.streams > 0 ? std::max<int64_t>(1, threads / run.streams) : 1;
}

std::string TuningWorkload(const RunSpec& run, const std::string& precision,
                           int64_t pool_threads) {
  std::string model = run.model.name;
  if ((run.model.family == "conv_block" || run.model.family == "mha_block") &&
      run.model.depth > 0) {
    const std::string depth = "_d" + std::to_string(run.model.depth);
    if (model.size() > depth.size() &&
        model.compare(model.size() - depth.size(), depth.size(), depth) == 0) {
      model.resize(model.size() - depth.size());
    }
  }
  return fmt::format("{} b{} {} threads={}", model, run.batch_size, precision, pool_threads);
}

std::vector<RunCost> EstimateRuns(const std::vector<RunSpec>& runs, const EstimateInputs& in) {
  Tuned tuned;
  double per_kernel = 0;
  if (in.tuning_s > 0) {
    for (const auto& [id, row] : in.measured) {
      if (!TunedToTheEnd(row, in)) continue;
      int64_t pool_threads = 0;
      const RunSpec run = TuningRunOf(row, &pool_threads);
      tuned.Add(run, row.precision, pool_threads, in);
    }
    per_kernel = TuningSecondsPerKernel(in);
  }
  std::vector<RunCost> costs;
  costs.reserve(runs.size());
  for (const RunSpec& run : runs) {
    // The first run to compile a kernel tunes it: runs with a row do not run again.
    double tuning_s = 0;
    if (in.tuning_s > 0 && !run.quick && !HasRow(run, in)) {
      const int64_t added =
          tuned.Add(run, in.precision, PoolThreads(run, in.threads), in);
      tuning_s = added < 0   ? in.tuning_s
                 : added > 0 ? std::min(in.tuning_s, static_cast<double>(added) * per_kernel)
                             : 0.0;
    }
    costs.push_back(Estimate(run, in, tuning_s));
  }
  return costs;
}

RunCost EstimateRun(const RunSpec& run, const EstimateInputs& in) {
  return EstimateRuns({run}, in).front();
}

ShardSpec ParseShard(const std::string& text) {
  const size_t slash = text.find('/');
  auto number = [&](const std::string& s) -> int {
    if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos) {
      return 0;
    }
    return std::atoi(s.c_str());
  };
  ShardSpec spec;
  if (slash != std::string::npos) {
    spec.index = number(text.substr(0, slash));
    spec.count = number(text.substr(slash + 1));
  }
  if (slash == std::string::npos || spec.count < 1 || spec.index < 1 || spec.index > spec.count) {
    throw InputError("--shard '" + text +
                     "': expected i/N with 1 <= i <= N, e.g. --shard 2/4 for the second of four "
                     "parts");
  }
  return spec;
}

std::vector<size_t> ShardIndices(const std::vector<double>& costs,
                                 const std::vector<std::string>& run_ids, const ShardSpec& shard) {
  std::vector<size_t> order(costs.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (costs[a] != costs[b]) return costs[a] > costs[b];
    return run_ids[a] < run_ids[b];
  });
  std::vector<double> load(static_cast<size_t>(shard.count), 0.0);
  std::vector<size_t> mine;
  for (size_t i : order) {
    const size_t to = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[to] += costs[i];
    if (static_cast<int>(to) == shard.index - 1) mine.push_back(i);
  }
  std::sort(mine.begin(), mine.end());
  return mine;
}

std::vector<RunSpec> SelectShard(const std::vector<RunSpec>& runs, const ShardSpec& shard,
                                 const EstimateInputs& inputs, double* shard_s, double* total_s) {
  std::vector<double> costs;
  std::vector<std::string> ids;
  for (const RunCost& cost : EstimateRuns(runs, inputs)) costs.push_back(cost.seconds);
  for (const RunSpec& run : runs) ids.push_back(run.run_id);
  std::vector<RunSpec> mine;
  double sum = 0;
  for (size_t i : ShardIndices(costs, ids, shard)) {
    mine.push_back(runs[i]);
    sum += costs[i];
  }
  if (shard_s) *shard_s = sum;
  if (total_s) *total_s = std::accumulate(costs.begin(), costs.end(), 0.0);
  return mine;
}

}  // namespace ngraphbench
