// A sweep cut to a time budget (`run --budget`, `plan-budget`, `sweep.sh --budget`): which runs
// to measure first, so that a sweep that cannot measure everything still has something for every
// compiler and every curve, and how many of them fit.
//
// The order interleaves the groups round-robin (a group is one compiler in `run`, one experiment
// x compiler in a sweep): the first run of each group, then the second of each, ... Within a
// group it spreads over the grid: every curve (a model, in one scenario, across batch sizes) at
// its first batch-size rank before any at its second, and the ranks taken smallest batch, largest
// batch, then the middle ones by halving (1, 64, 8, 2, 16, 4, 32 of 1..64), so that a cut sweep
// has the end points of every curve it reaches (what RTR, ASE and the speedups need) before its
// middle points. The runs that fit are the longest prefix of that order whose estimated total is
// within the budget: never a later, cheaper run past one that does not fit, so that a larger
// budget later continues the same order where the smaller one stopped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ngraphbench {

// "12h", "90m", "3600s", "1h30m", "1.5h": hours, minutes and seconds, each at most once and in
// that order, a unit after every number. Throws InputError naming `option` and the forms.
double ParseDuration(const std::string& text, const std::string& option = "--budget");

// One run to place in the order.
struct BudgetRun {
  std::string group;  // runs of one group take turns with the other groups' runs
  std::string curve;  // the runs of one curve differ only in batch size
  int64_t batch_size = 1;
};

// The positions 0..n-1 of a sorted list in the order a curve takes them: the first, the last,
// then the middle ones, each time the middle of the widest gap left (the left one on a tie).
std::vector<size_t> SpreadOrder(size_t n);

// The runs' indices in the order to measure them (the header says which). Groups take turns in
// the order they first appear in `runs`, curves within a group likewise; runs that tie (the
// same group, curve and batch size) keep their order in `runs`.
std::vector<size_t> BudgetOrder(const std::vector<BudgetRun>& runs);

// What fits of estimates given in the order to measure.
struct BudgetCut {
  size_t fits = 0;    // the first `fits` runs
  double fit_s = 0;   // their estimated total
  double left_s = 0;  // the estimated total of the others
};
// The longest prefix of `seconds` whose sum is at most `budget_s`.
BudgetCut CutAtBudget(const std::vector<double>& seconds, double budget_s);

// What fits and what does not, for people: counts, estimated hours, the first `shown` of the
// labels left out. `labels` and `seconds` are in the order to measure. A budget that fits none
// says so, with the first run's estimate.
std::string DescribeCut(const BudgetCut& cut, double budget_s, const std::vector<std::string>& labels,
                        const std::vector<double>& seconds, size_t shown = 5);

// `--runs` as given: "ID[,ID...]", or "@FILE" with one id per line (blank lines and lines
// starting with '#' skipped). Throws InputError for an empty list or an unreadable file.
std::vector<std::string> ParseRunIds(const std::string& text);

}  // namespace ngraphbench
