#include "ngraphbench/experiments/estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <optional>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"

namespace ngraphbench {
namespace {

// What a run's time is made of, before the harness's rules turn it into seconds.
struct Parts {
  double fixed_s = 0;     // build + compile + first run
  double latency_s = 0;   // one batch
  std::optional<double> timed_s;  // the timed window, where the run's own row gives it
};

// Each compiler's description says it (prior_compile_s in its compiler.yaml): TVM compiles
// through Python and LLVM (seconds per model, untuned), most others in under a second.
double PriorCompileS(const std::string& compiler) {
  return FindCompiler(compiler).prior_compile_s;
}

double Macs(const EstimateInputs& in, const std::string& model) {
  auto it = in.macs.find(model);
  return it == in.macs.end() ? 0.0 : it->second;
}

bool Measured(const ResultRow& row) {
  return (row.status == kStatusOk || row.status == kStatusWrong) && row.latency_mean_ms &&
         *row.latency_mean_ms > 0;
}

double FixedOf(const ResultRow& row) {
  return row.build_s.value_or(0) + row.compile_s.value_or(0) + row.first_run_ms.value_or(0) / 1e3;
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

}  // namespace

RunCost EstimateRun(const RunSpec& run, const EstimateInputs& in) {
  const double b = static_cast<double>(run.batch_size);
  Parts parts;
  RunCost cost;
  auto own = in.measured.find(run.run_id);
  if (own != in.measured.end() && own->second.status == kStatusTimeout) {
    return {run.timeout_s, "measured (timeout)"};
  }
  if (own != in.measured.end() && Measured(own->second)) {
    const ResultRow& row = own->second;
    parts.fixed_s = FixedOf(row);
    parts.latency_s = *row.latency_mean_ms / 1e3;
    parts.timed_s = row.timed_window_s;
    cost.source = "measured";
  } else if (own != in.measured.end() && own->second.status != kStatusSkipped) {
    // error or crashed: it ends early, after building (and perhaps compiling).
    return {kRunOverheadS + FixedOf(own->second), "measured (" + own->second.status + ")"};
  } else if (const ResultRow* ref = Nearest(run, in)) {
    const double ref_b = static_cast<double>(ref->batch_size);
    double scale = b / ref_b;
    if (ref->model != run.model.name) {
      scale = Macs(in, run.model.name) * b / (ref->macs.value_or(1) * ref_b);
    }
    parts.fixed_s = FixedOf(*ref);
    // A --quick row never tuned; a row that was not may have tuned, and its compile says so.
    if (!run.quick && ref->quick.value_or(false)) parts.fixed_s += in.tuning_s;
    parts.latency_s = *ref->latency_mean_ms / 1e3 * scale;
    cost.source = "scaled from " + ref->run_id;
  } else {
    const double macs = Macs(in, run.model.name);
    parts.fixed_s = PriorCompileS(in.compiler) + (run.quick ? 0.0 : in.tuning_s);
    parts.latency_s = macs > 0 ? macs * b / (kPriorMacsPerSecond * std::max(1, in.threads))
                               : 0.01;
    cost.source = "prior";
  }
  // The run's processes each start, build, compile (or load the compile cache: counted as a
  // compile here, an upper bound), run once and warm up within their share of the cap; their
  // timed runs add up to about one process's (stop ci is estimated at its first `processes`).
  const double k = static_cast<double>(std::max<int64_t>(1, run.processes));
  const double cap = run.max_time_s > 0 ? run.max_time_s : 1e30;
  const double warmup_s = std::min(static_cast<double>(run.warmup) * parts.latency_s, cap / k);
  double timed_s;
  if (parts.timed_s) {
    timed_s = *parts.timed_s;
  } else {
    const int64_t floor_runs = std::min<int64_t>(run.repeats, 10);
    timed_s = std::min(std::max(static_cast<double>(run.repeats) * parts.latency_s,
                                run.min_time_s),
                       cap);
    const double per_process_floor =
        std::max(3.0, std::ceil(static_cast<double>(floor_runs) / k)) * parts.latency_s;
    timed_s = std::max(timed_s, k * per_process_floor);
  }
  const double process_s = std::min(
      kRunOverheadS + parts.fixed_s + parts.latency_s + warmup_s + timed_s / k, run.timeout_s);
  cost.seconds = k * process_s;
  return cost;
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
  for (const RunSpec& run : runs) {
    costs.push_back(EstimateRun(run, inputs).seconds);
    ids.push_back(run.run_id);
  }
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
