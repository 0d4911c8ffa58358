// The collect stage of a sweep: what each ended worker measured becomes its part (or a part
// saying what went wrong with it) and a progress line; once a run's processes are in, its row is
// merged from the parts (runner/parts.h), or, with stop `ci`, another process is queued for it;
// and the tally that the sweep's last line sums up.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/measure/verdict.h"
#include "ngraphbench/results/claim.h"
#include "ngraphbench/runner/launch.h"
#include "ngraphbench/runner/plan.h"

namespace ngraphbench {

// A process whose worker is running, in worker slot `slot` (its plan's slices[slot]).
struct RunningProcess {
  Task task;
  size_t slot = 0;
  std::optional<Claim> claim;  // held until its part is written
  StartedWorker worker;
};

// What the sweep did, for its last line.
struct Tally {
  int failed = 0;   // runs not ok (those kept from earlier sweeps too)
  int skipped = 0;  // this machine cannot run them
  int invalid = 0;  // measured now ok, but invalid
  // Measured now ok, but with an output check that could not fail (its row's notes say why).
  int inconclusive = 0;
  size_t done = 0;  // runs whose row this sweep wrote
  int done_by_others = 0;  // runs another scheduler sharing the tree measured since the scan
  std::string unavailable_reasons;  // why runs were skipped (the first reason seen)
  // The invalid runs measured now, by the rule they broke (a run may break several).
  std::map<ValidityRule, int> invalid_by_rule;
  // The most threads of a run invalid for its interval (ValidityAdvice's `threads`).
  int64_t interval_invalid_threads = 0;
};

// Collects the processes of one sweep. Not thread-safe: the scheduler's loop calls it.
class Collector {
 public:
  // `queue` is the sweep's: stop `ci` adds processes to it (QueueAnotherProcess, among the
  // `window` runs measured beside the run); `jobs` workers run at once (for the ETA). The
  // progress lines count the processes queued now.
  Collector(std::deque<Task>& queue, int jobs, size_t window);

  // After a process of the run ended (or at the start): once none of its processes is queued or
  // running here, the run is either complete (its row is written), or, with stop `ci`, given
  // another process, or waits for processes another scheduler measures (it writes the row).
  // The run's spec file goes once no process of it is queued or running.
  void Settle(RunState& st);
  // A process whose worker has ended (or was killed past its timeout): its part, its line; then
  // Settle.
  void Finish(RunningProcess& p, const WorkerOutcome& outcome);
  // A queued process that needs no worker (claimed by another scheduler, measured since the
  // scan): one fewer to count.
  void Drop() { --total_tasks_; }
  // A run that is decided (its row written, here or elsewhere, or a process not ok) starts no
  // more processes: those still queued leave the count now, once.
  void Decided(RunState& st);
  // A run whose row another scheduler wrote since the scan (it may have measured some of the
  // run's processes here too): theirs, kept as it is.
  void TakenByOthers(RunState& st);
  // "[ k/N]", the number of the next progress line.
  std::string Counter();

  Tally& tally() { return tally_; }
  // Where the workers' time went: their wall time in all, and each phase's share of it (the
  // parts' phases_s), e.g. "workers ran 512 s in 30 processes: start 12%, build 3%, ...,
  // outside the phases 9%"; empty when no worker ran.
  std::string TimeSummary() const;

 private:
  // What Settle decides for the run, its spec file aside.
  void Decide(RunState& st);
  // The run's row from its parts, written under the run's claim: the trace first, the row last,
  // then the parts go.
  void WriteRunRow(RunState& st, const std::string& reason);

  std::deque<Task>& queue_;
  const int jobs_;
  const size_t window_;
  const std::chrono::steady_clock::time_point start_;
  // The progress lines count processes as they finish (in another order than the queue's with
  // --jobs); stop `ci` may add processes as it goes.
  size_t reported_ = 0, total_tasks_;
  // For the ETA: the workers' wall time so far, and how many ran.
  double worker_s_ = 0;
  size_t workers_ran_ = 0;
  std::vector<std::pair<std::string, double>> phase_totals_;  // the parts' phases_s, summed
  Tally tally_;
};

}  // namespace ngraphbench
