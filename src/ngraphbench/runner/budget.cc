#include "ngraphbench/runner/budget.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <ostream>
#include <utility>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/core/shell.h"
#include "ngraphbench/experiments/budget.h"
#include "ngraphbench/experiments/config.h"
#include "ngraphbench/experiments/estimate.h"
#include "ngraphbench/experiments/resolve.h"
#include "ngraphbench/results/csv.h"

namespace ngraphbench {
namespace {

// The curve a run is a point of: its id less the batch size ("<model>_b<batch><scenario
// suffix>", experiments/grid.h), so that offline and server runs of a model are curves of their
// own.
std::string Curve(const RunSpec& run) {
  const std::string prefix = run.model.name + "_b" + std::to_string(run.batch_size);
  return run.run_id.rfind(prefix, 0) == 0 ? run.model.name + run.run_id.substr(prefix.size())
                                          : run.model.name;
}

// What a budget of `budget_s` wall seconds holds: --jobs J measure J runs at once.
double Capacity(double budget_s, int jobs) { return budget_s * std::max(1, jobs); }

std::string JobsNote(int jobs) {
  return jobs > 1 ? fmt::format(" (--jobs {}: the budget holds {} times its time in runs)", jobs,
                                jobs)
                  : "";
}

// The runs of `order` (indices into `runs`) estimated group by group, each group's in the order
// given, so that a tuning workload's tuning is charged to its first run in that order.
template <typename InputsOf>
std::vector<double> EstimateInOrder(const std::vector<const RunSpec*>& runs,
                                    const std::vector<size_t>& group_of,
                                    const std::vector<size_t>& order, size_t groups,
                                    InputsOf inputs_of) {
  std::vector<std::vector<size_t>> members(groups);
  for (const size_t i : order) members[group_of[i]].push_back(i);
  std::vector<double> seconds(runs.size(), 0);
  for (size_t g = 0; g < groups; ++g) {
    if (members[g].empty()) continue;
    std::vector<RunSpec> specs;
    for (const size_t i : members[g]) specs.push_back(*runs[i]);
    const std::vector<RunCost> costs = EstimateRuns(specs, inputs_of(g));
    for (size_t k = 0; k < members[g].size(); ++k) seconds[members[g][k]] = costs[k].seconds;
  }
  std::vector<double> in_order;
  for (const size_t i : order) in_order.push_back(seconds[i]);
  return in_order;
}

// Whether a row on disk keeps `run` from being measured again, as resume decides (plan.h):
// an ok row, or one not ok without --retry-failed; a skipped one is asked again every sweep.
bool HasRow(const std::string& dir, const std::string& run_id, bool retry_failed) {
  const std::string path = RowPath(dir, run_id);
  if (!FileExists(path)) return false;
  try {
    const ResultRow row = ReadRow(path);
    return row.status == kStatusOk || (row.status != kStatusSkipped && !retry_failed);
  } catch (const InputError&) {
    return false;  // `run` says what is wrong with it
  }
}

}  // namespace

std::set<std::string> NamedRuns(const std::vector<RunSpec>& grid, const RunArgs& args) {
  if (args.runs.empty()) return {};
  const std::vector<std::string> ids = ParseRunIds(args.runs);
  std::set<std::string> in_grid;
  for (const RunSpec& run : grid) in_grid.insert(run.run_id);
  std::string unknown;
  size_t count = 0;
  for (const std::string& id : ids) {
    if (in_grid.count(id)) continue;
    if (++count <= 5) {
      unknown += (unknown.empty() ? "'" : ", '") + id + "'";
      // The id of another precision (run ids carry the precision when it is not fp32).
      for (const RunSpec& run : grid) {
        if (SeedRunId(run.run_id) == SeedRunId(id)) {
          unknown += " (at this precision: '" + run.run_id + "')";
          break;
        }
      }
    }
  }
  if (count > 0) {
    const std::string quick = args.grid.quick ? " --quick" : "";
    // At a precision other than fp32 the ids carry it: expand lists them given the compiler
    // and the settings.
    std::string expand = quick;
    if (!grid.empty() && SeedRunId(grid.front().run_id) != grid.front().run_id) {
      expand += " --compiler " + args.compiler;
      for (const std::string& setting : args.grid.settings) {
        expand += " --set " + ShellQuote(setting);
      }
    }
    throw InputError(fmt::format(
        "--runs names {}{} not in the grid of experiment '{}'{}: {}{}; `ngraphbench expand {}{}` "
        "lists its runs",
        count, count == 1 ? " run" : " runs", args.grid.experiment, quick, unknown,
        count > 5 ? fmt::format(" and {} more", count - 5) : "", args.grid.experiment, expand));
  }
  return {ids.begin(), ids.end()};
}

void KeepNamedRuns(std::vector<RunSpec>& runs, const std::set<std::string>& named) {
  if (named.empty()) return;
  runs.erase(std::remove_if(runs.begin(), runs.end(),
                            [&](const RunSpec& run) { return !named.count(run.run_id); }),
             runs.end());
}

void FitToBudget(std::deque<Plan>& plans, std::deque<RunState>& states, std::ostream& out) {
  const RunArgs& args = plans.front().args;
  if (args.budget.empty()) return;
  const double budget_s = ParseDuration(args.budget);
  std::map<const Plan*, size_t> plan_index;
  for (const Plan& plan : plans) plan_index.emplace(&plan, plan_index.size());
  std::vector<BudgetRun> items;
  std::vector<const RunSpec*> runs;
  std::vector<size_t> group_of;
  for (const RunState& st : states) {
    items.push_back({st.plan->info->name, Curve(*st.run), st.run->batch_size});
    runs.push_back(st.run);
    group_of.push_back(plan_index[st.plan]);
  }
  const std::vector<size_t> order = BudgetOrder(items);
  const std::vector<double> seconds =
      EstimateInOrder(runs, group_of, order, plans.size(), [&](size_t g) {
        const Plan& plan = plans[g];
        return LoadEstimateInputs(plan.runs, plan.args, plan.config, /*use_measured=*/true);
      });
  const BudgetCut cut = CutAtBudget(seconds, Capacity(budget_s, args.jobs));
  std::vector<std::string> labels;
  for (const size_t i : order) {
    labels.push_back(plans.size() > 1 ? items[i].group + "/" + runs[i]->run_id : runs[i]->run_id);
  }
  const std::string what = DescribeCut(cut, Capacity(budget_s, args.jobs), labels, seconds);
  if (!states.empty() && cut.fits == 0) {
    throw InputError("--budget " + args.budget + ": " + what + JobsNote(args.jobs));
  }
  out << "--budget " << args.budget << ": " << what << JobsNote(args.jobs) << "\n";
  std::vector<size_t> fit(plans.size(), 0), left(plans.size(), 0);
  for (size_t k = 0; k < order.size(); ++k) (k < cut.fits ? fit : left)[group_of[order[k]]]++;
  for (Plan& plan : plans) {
    const size_t g = plan_index[&plan];
    plan.shard_note +=
        fmt::format(" (--budget {}: {} of its {} runs left to measure fit)", args.budget, fit[g],
                    fit[g] + left[g]);
  }
  // The runs that fit, in the budget's order: the queue keeps it within each compiler.
  std::deque<RunState> chosen;
  for (size_t k = 0; k < cut.fits; ++k) chosen.push_back(std::move(states[order[k]]));
  states.swap(chosen);
}

int CmdPlanBudget(const RunArgs& args, const std::vector<std::string>& experiments,
                  const std::vector<std::string>& compilers, int waves, std::ostream& out,
                  std::ostream& log) {
  if (waves < 1) throw InputError(fmt::format("--waves is {}; it must be at least 1", waves));
  if (args.jobs < 1) throw InputError(fmt::format("--jobs is {}; it must be at least 1", args.jobs));
  const double budget_s = ParseDuration(args.budget);
  ValidateSettings(args.grid.settings, compilers);
  // One group per experiment x compiler, experiments outer: within a wave each experiment's
  // compilers are measured side by side.
  struct Group {
    std::string experiment, compiler;
    std::vector<RunSpec> runs;  // left to measure, in grid order
    EstimateInputs inputs;
  };
  std::vector<Group> groups;
  for (const std::string& experiment : experiments) {
    RunArgs group_args = args;
    group_args.grid.experiment = experiment;
    for (const std::string& compiler : compilers) {
      group_args.compiler = compiler;
      const SweepSettings settings = ResolveSweepSettings(group_args, compiler, ProcessCpus());
      const CompilerConfig& config = settings.config;
      const std::vector<RunSpec>& grid = settings.runs;
      std::vector<RunSpec> runs = grid;
      // The same part as `run --shard` measures.
      if (!args.shard.empty()) runs = ShardRuns(grid, group_args, config, nullptr, nullptr);
      const std::string dir = RunDirectory(group_args);
      runs.erase(std::remove_if(runs.begin(), runs.end(),
                                [&](const RunSpec& run) {
                                  return HasRow(dir, run.run_id, args.retry_failed);
                                }),
                 runs.end());
      groups.push_back({experiment, compiler, std::move(runs),
                        LoadEstimateInputs(grid, group_args, config, /*use_measured=*/true)});
    }
  }
  std::vector<BudgetRun> items;
  std::vector<const RunSpec*> runs;
  std::vector<size_t> group_of;
  for (size_t g = 0; g < groups.size(); ++g) {
    for (const RunSpec& run : groups[g].runs) {
      items.push_back({groups[g].experiment + " " + groups[g].compiler, Curve(run),
                       run.batch_size});
      runs.push_back(&run);
      group_of.push_back(g);
    }
  }
  const std::vector<size_t> order = BudgetOrder(items);
  const std::vector<double> seconds = EstimateInOrder(
      runs, group_of, order, groups.size(), [&](size_t g) { return groups[g].inputs; });
  const double capacity = Capacity(budget_s, args.jobs);
  const BudgetCut cut = CutAtBudget(seconds, capacity);

  // Per group: what fits (in order) and the hours on each side.
  std::vector<std::vector<std::string>> chosen(groups.size());
  std::vector<size_t> left(groups.size(), 0);
  std::vector<double> fit_s(groups.size(), 0), left_s(groups.size(), 0);
  std::vector<std::string> labels;
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t i = order[k], g = group_of[i];
    labels.push_back(groups[g].experiment + "/" + groups[g].compiler + "/" + runs[i]->run_id);
    if (k < cut.fits) {
      chosen[g].push_back(runs[i]->run_id);
      fit_s[g] += seconds[k];
    } else {
      ++left[g];
      left_s[g] += seconds[k];
    }
  }
  log << fmt::format("{:<20} {:<12} {:>6} {:>8} {:>10} {:>9}\n", "experiment", "compiler",
                     "fit", "fit_h", "not_fit", "not_fit_h");
  for (size_t g = 0; g < groups.size(); ++g) {
    log << fmt::format("{:<20} {:<12} {:>6} {:>8.2f} {:>10} {:>9.2f}\n", groups[g].experiment,
                       groups[g].compiler, chosen[g].size(), fit_s[g] / 3600, left[g],
                       left_s[g] / 3600);
  }
  const std::string what = DescribeCut(cut, capacity, labels, seconds);
  log << fmt::format("fits: {} runs, {:.2f} h; does not fit: {} runs, {:.2f} h{}\n", cut.fits,
                     cut.fit_s / 3600, order.size() - cut.fits, cut.left_s / 3600,
                     JobsNote(args.jobs));
  log << "--budget " << args.budget << ": " << what << "\n";
  if (!order.empty() && cut.fits == 0) return kExitBadInput;
  for (int wave = 0; wave < waves; ++wave) {
    for (size_t g = 0; g < groups.size(); ++g) {
      const size_t n = chosen[g].size();
      // Rounded up, so that the first wave has a run of every group that has one.
      const size_t begin = (n * wave + waves - 1) / waves, end = (n * (wave + 1) + waves - 1) / waves;
      if (begin == end) continue;
      std::string ids;
      for (size_t k = begin; k < end; ++k) ids += (ids.empty() ? "" : ",") + chosen[g][k];
      out << wave + 1 << " " << groups[g].experiment << " " << groups[g].compiler << " " << ids
          << "\n";
    }
  }
  return kExitOk;
}

}  // namespace ngraphbench
