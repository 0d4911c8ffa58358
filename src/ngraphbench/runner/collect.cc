#include "ngraphbench/runner/collect.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstring>
#include <iostream>

#include "ngraphbench/core/file.h"
#include "ngraphbench/core/shell.h"
#include "ngraphbench/measure/aggregate.h"
#include "ngraphbench/results/csv.h"
#include "ngraphbench/runner/claim.h"
#include "ngraphbench/runner/parts.h"
#include "ngraphbench/runner/worker.h"

namespace ngraphbench {

namespace {

using Clock = std::chrono::steady_clock;

std::string FormatDuration(double seconds) {
  const int s = static_cast<int>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{}:{:02}", s / 60, s % 60);
}

}  // namespace

Collector::Collector(std::deque<Task>& queue, int jobs, size_t window)
    : queue_(queue),
      jobs_(jobs),
      window_(window),
      start_(Clock::now()),
      total_tasks_(queue.size()) {}

std::string Collector::Counter() {
  const int width = static_cast<int>(std::to_string(total_tasks_).size());
  return fmt::format("[{:>{}}/{}]", ++reported_, width, total_tasks_);
}

void Collector::WriteRunRow(RunState& st, const std::string& reason) {
  const Plan& plan = *st.plan;
  const RunSpec& run = *st.run;
  const std::string path = RowPath(plan.dir, run.run_id);
  ClaimHolder holder;
  std::optional<Claim> claim = ClaimRow(plan.dir, run, &holder);
  if (!claim || VersionOf(path) != st.seen) return TakenByOthers(st);
  const PartsOnDisk on_disk = ReadParts(st);
  if (on_disk.parts.empty()) return;  // nothing of it measured here or elsewhere
  std::vector<ValidityRule> broken;
  const ResultRow row = MergeParts(run, on_disk.parts, reason, &broken);
  std::vector<std::vector<int64_t>> traces;
  for (const Part& p : on_disk.parts) {
    if (!p.summary.latencies_ns.empty()) traces.push_back(p.summary.latencies_ns);
  }
  if (!traces.empty()) WriteProcessLatencies(LatenciesPath(plan.dir, run.run_id), traces);
  WriteRow(path, row);
  RemoveParts(plan.dir, run.run_id);
  // The claims of its processes that a killed scheduler left (it wrote the part, or its worker
  // did, and died before releasing).
  ReleaseStaleClaims(plan.dir, run, /*keep_row_claim=*/true);
  claim->Release();  // the row is on disk: others now see it and skip the run
  st.finished = true;
  Decided(st);
  ++tally_.done;
  if (row.status == kStatusSkipped) {
    ++tally_.skipped;
  } else if (row.status != kStatusOk) {
    ++tally_.failed;
  } else if (row.valid == false) {
    ++tally_.invalid;
    for (ValidityRule rule : broken) {
      ++tally_.invalid_by_rule[rule];
      if (rule == ValidityRule::kInterval) {
        tally_.interval_invalid_threads =
            std::max<int64_t>(tally_.interval_invalid_threads, row.threads.value_or(0));
      }
    }
  }
  if (row.status == kStatusOk && row.check_verdict == "inconclusive") ++tally_.inconclusive;
  std::string detail = row.error.substr(0, 160);
  if (row.status == kStatusOk) {
    const std::optional<double> rel = IntervalRelHalfWidth(row);
    // Offline: samples/s over the window, all streams together, and the streams.
    const std::string throughput =
        row.samples_per_s ? fmt::format("{:.1f} samples/s over {} stream{}", *row.samples_per_s,
                                        row.streams.value_or(0),
                                        row.streams.value_or(0) == 1 ? "" : "s")
                          : fmt::format("{:.1f} samples/s", row.throughput_median_sps.value_or(0));
    // Server: the percentile against the bound at the rate issued, and the peak of find_peak.
    const std::string server =
        row.scenario != "server" || !row.latency_at_percentile_ms
            ? std::string()
            : fmt::format("  p{:g} {:.4g} ms at {:.4g} QPS, bound {:g} ms {}{}",
                          row.latency_percentile.value_or(0), *row.latency_at_percentile_ms,
                          row.target_qps.value_or(0), row.latency_bound_ms.value_or(0),
                          row.bound_met == true ? "met" : "broken",
                          !row.peak_steps ? std::string()
                          : row.peak_qps  ? fmt::format(", peak {:.4g} QPS in {} steps",
                                                        *row.peak_qps, *row.peak_steps)
                                          : fmt::format(", no peak in {} steps", *row.peak_steps));
    detail = fmt::format("p50 {:.4g} ms {}  {}{}  ({} process{}{}){}",
                         row.latency_p50_ms.value_or(0),
                         rel ? fmt::format("+-{:.2g}%", *rel * 100) : "(no interval)",
                         throughput, server, row.processes.value_or(0),
                         row.processes.value_or(0) == 1 ? "" : "es",
                         reason == "fixed" ? "" : ", " + reason,
                         row.valid == false ? "  INVALID: " + row.invalid_reason : "");
    if (row.check_verdict == "inconclusive") {
      detail += "  CHECK INCONCLUSIVE: the outputs do not depend on the input (notes say why)";
    }
  }
  std::cerr << fmt::format("  = {:<28} {} {:<8} {}\n", run.run_id, plan.info->name, row.status,
                           detail);
}

void Collector::Decided(RunState& st) {
  if (st.dropped) return;
  total_tasks_ -= static_cast<size_t>(st.queued);
  st.dropped = true;
}

void Collector::TakenByOthers(RunState& st) {
  st.finished = true;
  Decided(st);
  ++tally_.done_by_others;
  std::cerr << fmt::format("{:<28} measured by another scheduler, kept\n", st.run->run_id);
}

void Collector::Settle(RunState& st) {
  Decide(st);
  if (st.queued == 0 && st.running == 0) st.spec_file.reset();
}

void Collector::Decide(RunState& st) {
  if (st.finished || st.running > 0) return;
  const RunSpec& run = *st.run;
  const PartsOnDisk on_disk = ReadParts(st);
  // Another scheduler sharing the run's processes wrote its row (and took the parts). Looked at
  // after the parts are read: it writes the row before it removes them, so parts read while it
  // removed them are never taken for the run's parts so far.
  if (VersionOf(RowPath(st.plan->dir, run.run_id)) != st.seen) return TakenByOthers(st);
  // A process that did not end ok decides the run: its row now, no process after it.
  if (on_disk.failed) return WriteRunRow(st, run.stop == "ci" ? "ci" : "fixed");
  if (st.queued > 0) return;
  if (on_disk.ok < run.processes) return;  // the rest are another scheduler's, or stopped
  if (run.stop != "ci") return WriteRunRow(st, "fixed");
  std::vector<ProcessSummary> summaries;
  for (const Part& p : on_disk.parts) summaries.push_back(p.summary);
  const Repetition next = NextProcess(summaries, run.batch_size, run.ci_rel_target, run.processes,
                                      run.max_processes, run.validity);
  if (next != Repetition::kMore) return WriteRunRow(st, RepetitionReason(next));
  QueueAnotherProcess(queue_, {&st, st.next_process++}, window_);
  st.queued++;
  total_tasks_++;
}

void Collector::Finish(RunningProcess& p, const WorkerOutcome& outcome) {
  RunState& st = *p.task.state;
  const Plan& plan = *st.plan;
  const RunSpec& run = *st.run;
  const std::string path = PartRowPath(plan.dir, run.run_id, p.task.process);
  ResultRow row;
  const bool wrote_part = !outcome.timed_out && outcome.exit_code == 0 && FileExists(path);
  // A worker that wrote its part, which another scheduler then merged into the run's row (the
  // part was the last one it waited for) and removed.
  const bool merged_elsewhere = !outcome.timed_out && outcome.exit_code == 0 && !wrote_part &&
                                VersionOf(RowPath(plan.dir, run.run_id)) != st.seen;
  if (wrote_part) {
    row = ParseRowCsv(ReadFileCapped(path, kMaxRowBytes, "result file"), path);
    AddPhases(row.phases_s, phase_totals_);
  } else if (merged_elsewhere) {
    row.status = kStatusOk;
  } else {
    row = BaseRow(st.spec);
    if (outcome.timed_out) {
      row.status = kStatusTimeout;
      row.error =
          fmt::format("worker ran past the timeout of {} s and was killed", run.timeout_s);
    } else {
      row.status = kStatusCrashed;
      row.error = outcome.signal ? fmt::format("worker killed by signal {} ({})", outcome.signal,
                                               ::strsignal(outcome.signal))
                                 : fmt::format("worker exited with code {} without a row",
                                               outcome.exit_code);
    }
    if (!outcome.log_tail.empty()) row.error += ": " + outcome.log_tail;
    WriteRow(path, row);
  }
  p.claim->Release();  // the part is on disk
  st.running--;
  if (row.status != kStatusOk) {
    st.failed = true;
    Decided(st);
  }
  if (row.status == kStatusSkipped && tally_.unavailable_reasons.empty()) {
    tally_.unavailable_reasons = row.error;
  }

  const double run_s = std::chrono::duration<double>(Clock::now() - p.worker.start).count();
  worker_s_ += run_s;
  ++workers_ran_;
  const std::string number = Counter();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  // The processes left, each taking the mean worker's time so far, jobs_ at once.
  const double eta = static_cast<double>(total_tasks_ - reported_) * worker_s_ /
                     static_cast<double>(workers_ran_) / jobs_;
  const std::string detail =
      merged_elsewhere          ? "its part is in the row another scheduler wrote"
      : row.status == kStatusOk ? fmt::format("p50 {:.4g} ms", row.latency_p50_ms.value_or(0))
                                : row.error.substr(0, 160);
  std::cerr << fmt::format("{} {:<28} {} p{} {:<8} {:5.1f}s  {}  (elapsed {}, ETA {})\n", number,
                           run.run_id, plan.info->name, p.task.process, row.status, run_s, detail,
                           FormatDuration(elapsed), FormatDuration(eta));
  if (row.status != kStatusOk && row.status != kStatusSkipped) {
    // With the threads the run had pinned: pasted on another machine, or outside --jobs, the
    // worker resolves the same settings.
    RunArgs pinned = plan.args;
    pinned.grid.settings = PinnedSettings(plan.args.grid.settings, plan.config);
    const auto reproduce = ReproduceCommand(pinned, run.run_id, p.task.process);
    std::cerr << "  reproduce: " << ShellCommandLine(reproduce) << "\n";
  }
  Settle(st);
}

std::string Collector::TimeSummary() const {
  if (workers_ran_ == 0 || !(worker_s_ > 0)) return "";
  std::string out = fmt::format("workers ran {} in {} process{}:", FormatDuration(worker_s_),
                                workers_ran_, workers_ran_ == 1 ? "" : "es");
  double phases = 0;
  for (const auto& [phase, seconds] : phase_totals_) {
    out += fmt::format(" {} {:.0f}%,", phase, 100 * seconds / worker_s_);
    phases += seconds;
  }
  return out + fmt::format(" outside the phases {:.0f}%",
                           100 * std::max(0.0, worker_s_ - phases) / worker_s_);
}

}  // namespace ngraphbench
