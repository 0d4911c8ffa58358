// `run --runs` and `run --budget` applied to a sweep's plans (plan.h), and what a sweep of
// several experiments and compilers would fit into a budget (`plan-budget`, for sweep.sh). The
// order and the cut themselves are experiments/budget.h's.
#pragma once

#include <deque>
#include <iosfwd>
#include <set>
#include <string>
#include <vector>

#include "ngraphbench/experiments/grid.h"
#include "ngraphbench/runner/plan.h"
#include "ngraphbench/runner/run.h"

namespace ngraphbench {

// The run ids `args.runs` names (empty without --runs), each checked against `grid`, the whole
// grid of `args`' experiment: an id not in it throws InputError naming it and how to list the
// grid.
std::set<std::string> NamedRuns(const std::vector<RunSpec>& grid, const RunArgs& args);
// Keeps the runs of `runs` that `named` holds, in their order; all of them when `named` is empty.
void KeepNamedRuns(std::vector<RunSpec>& runs, const std::set<std::string>& named);

// With --budget: `states` (the runs left to measure, after Resume) become the longest prefix of
// their budget order (experiments/budget.h: the compilers take turns) whose estimated total fits
// the budget times --jobs, in that order; the others are not measured now. Prints what fits and
// what does not to `out`, and notes it in each plan's shard_note. Throws InputError when runs are
// left to measure and not even the first fits. Without --budget, does nothing.
void FitToBudget(std::deque<Plan>& plans, std::deque<RunState>& states, std::ostream& out);

// `ngraphbench plan-budget`: the runs of every experiment x compiler of a sweep that have no row
// yet, in budget order with the experiment x compiler groups taking turns, cut at
// `args.budget` (times --jobs). Prints a table of what fits and what does not per group to `log`,
// and to `out` the waves the sweep measures them in: one line per wave and group with runs,
//   <wave> <experiment> <compiler> <run_id>,<run_id>,...
// wave 1..`waves`, each the next slice (about 1/waves) of every group's runs that fit.
// `args.grid.experiment` and `args.compiler` are ignored: `experiments` and `compilers` say.
int CmdPlanBudget(const RunArgs& args, const std::vector<std::string>& experiments,
                  const std::vector<std::string>& compilers, int waves, std::ostream& out,
                  std::ostream& log);

}  // namespace ngraphbench
