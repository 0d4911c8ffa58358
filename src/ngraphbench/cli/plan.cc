// `expand --estimate` and `expand --shard`: a sweep's plan (runner/plan.h) shown, not run.
#include <fmt/core.h>

#include <iostream>

#include "ngraphbench/cli/commands.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/runner/plan.h"

namespace ngraphbench {

int CmdExpandPlan(const RunArgs& args, bool estimate) {
  if (args.compiler.empty()) {
    throw InputError(std::string("expand ") + (estimate ? "--estimate" : "--shard") +
                     " needs --compiler <name>: " +
                     (estimate ? "estimates come from that compiler's rows on --device"
                               : "shards are balanced by that compiler's estimates"));
  }
  SweepSettings settings = ResolveSweepSettings(args, args.compiler, ProcessCpus());
  const CompilerConfig& config = settings.config;
  std::vector<RunSpec> runs = std::move(settings.runs);
  // The same partition as `run --shard` computes.
  if (!args.shard.empty()) runs = ShardRuns(runs, args, config, nullptr, nullptr);
  if (!estimate) {
    for (const auto& run : runs) std::cout << run.run_id << "\n";
    return kExitOk;
  }
  const EstimateInputs inputs = LoadEstimateInputs(runs, args, config, /*use_measured=*/true);
  // Together, in grid order: the order the sweep starts the runs, so each tuning workload's
  // tuning goes to its first run.
  const std::vector<RunCost> costs = EstimateRuns(runs, inputs);
  double total = 0;
  int measured = 0, scaled = 0, prior = 0, tune = 0;
  std::cout << fmt::format("{:<36} {:>10}  {}\n", "run_id", "estimate_s", "from");
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunCost& cost = costs[i];
    total += cost.seconds;
    (cost.source.rfind("measured", 0) == 0 ? measured
     : cost.source.rfind("scaled", 0) == 0 ? scaled
                                            : prior)++;
    if (cost.tuning_s > 0) ++tune;
    std::cout << fmt::format(
        "{:<36} {:>10.1f}  {}{}\n", runs[i].run_id, cost.seconds, cost.source,
        cost.tuning_s > 0 ? fmt::format(", tunes its workload ({:.0f} s)", cost.tuning_s) : "");
  }
  std::cout << fmt::format(
      "total: {} runs, {:.0f} s = {} h:m:s ({} measured, {} scaled from rows of {} on {}, {} "
      "prior{})\n",
      runs.size(), total, FormatHours(total), measured, scaled, args.compiler, args.device, prior,
      tune > 0 ? fmt::format("; {} tune their workload", tune) : "");
  return kExitOk;
}

}  // namespace ngraphbench
