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
  const CompilerInfo& info = FindCompiler(args.compiler);
  const CompilerConfig config = ResolveCompilerConfig(args.grid.configs_dir, info, 0, args.grid.settings);
  std::vector<RunSpec> runs = ResolveGrid(args.grid);
  if (!args.shard.empty()) {
    // The same partition as `run --shard` computes.
    runs = SelectShard(runs, ParseShard(args.shard),
                       LoadEstimateInputs(runs, args, config, /*use_measured=*/false), nullptr,
                       nullptr);
  }
  if (!estimate) {
    for (const auto& run : runs) std::cout << run.run_id << "\n";
    return kExitOk;
  }
  const EstimateInputs inputs = LoadEstimateInputs(runs, args, config, /*use_measured=*/true);
  double total = 0;
  int measured = 0, scaled = 0, prior = 0;
  std::cout << fmt::format("{:<36} {:>10}  {}\n", "run_id", "estimate_s", "from");
  for (const RunSpec& run : runs) {
    const RunCost cost = EstimateRun(run, inputs);
    total += cost.seconds;
    (cost.source.rfind("measured", 0) == 0 ? measured
     : cost.source.rfind("scaled", 0) == 0 ? scaled
                                            : prior)++;
    std::cout << fmt::format("{:<36} {:>10.1f}  {}\n", run.run_id, cost.seconds, cost.source);
  }
  std::cout << fmt::format(
      "total: {} runs, {:.0f} s = {} h:m:s ({} measured, {} scaled from rows of {} on {}, {} "
      "prior)\n",
      runs.size(), total, FormatHours(total), measured, scaled, args.compiler, args.device, prior);
  return kExitOk;
}

}  // namespace ngraphbench
