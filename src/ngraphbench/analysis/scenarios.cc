#include "ngraphbench/analysis/scenarios.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

namespace ngraphbench {
namespace {

constexpr const char* kSingleStream = "single_stream";
constexpr const char* kOffline = "offline";

void AppendNote(std::string& note, const std::string& reason) {
  if (!note.empty()) note += "; ";
  note += reason;
}

// Whether `run` (named `what` in notes) is measured; otherwise why not, in `note`.
bool Usable(const RunPoint* run, InvalidRuns invalid_runs, const std::string& what,
            std::string& note) {
  if (!run) {
    AppendNote(note, "no " + what);
    return false;
  }
  if (run->status != kStatusOk) {
    AppendNote(note, what + " ended with status " + run->status);
    return false;
  }
  if (!IsMeasured(*run, invalid_runs)) {
    AppendNote(note, what + " is invalid (" + run->invalid_reason + ")");
    return false;
  }
  return true;
}

std::string Streams(int64_t k) { return std::to_string(k) + (k == 1 ? " stream" : " streams"); }

// The runs of one (device, experiment, compiler, precision, model).
struct Roads {
  std::map<int64_t, const RunPoint*> batching;                  // batch size -> run
  std::map<int64_t, std::vector<const RunPoint*>> concurrency;  // streams -> batch-1 runs
};

}  // namespace

std::vector<RoadsRow> CompareRoads(const std::vector<RunPoint>& runs, InvalidRuns invalid_runs) {
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string>;
  std::map<Key, Roads> groups;
  std::set<Key> with_offline;
  for (const RunPoint& run : runs) {
    const Key key{run.device, run.experiment, run.compiler, run.precision, run.model};
    if (run.scenario == kSingleStream) {
      groups[key].batching[run.batch_size] = &run;
    } else if (run.scenario == kOffline && run.batch_size == 1) {
      with_offline.insert(key);
      // An `auto` run that did not end ok has no streams to be placed at.
      if (run.streams) groups[key].concurrency[*run.streams].push_back(&run);
    }
  }

  std::vector<RoadsRow> rows;
  for (const Key& key : with_offline) {
    const Roads& roads = groups[key];
    std::set<int64_t> ks;
    for (const auto& [batch, run] : roads.batching) ks.insert(batch);
    for (const auto& [streams, offline] : roads.concurrency) ks.insert(streams);
    for (const int64_t k : ks) {
      RoadsRow row;
      std::tie(row.device, row.experiment, row.compiler, row.precision, row.model) = key;
      row.in_flight = k;

      const auto b = roads.batching.find(k);
      const RunPoint* batching = b == roads.batching.end() ? nullptr : b->second;
      if (batching) row.batching_run_id = batching->run_id;
      if (!Usable(batching, invalid_runs,
                  "single_stream run at batch size " + std::to_string(k), row.note)) {
        batching = nullptr;
      }

      // The measured offline runs at k streams, by run id; else the first, to say why not.
      std::vector<const RunPoint*> offline;
      if (const auto c = roads.concurrency.find(k); c != roads.concurrency.end()) {
        offline = c->second;
      }
      std::sort(offline.begin(), offline.end(),
                [](const RunPoint* x, const RunPoint* y) { return x->run_id < y->run_id; });
      std::vector<const RunPoint*> measured;
      std::copy_if(offline.begin(), offline.end(), std::back_inserter(measured),
                   [&](const RunPoint* run) { return IsMeasured(*run, invalid_runs); });
      const RunPoint* concurrency =
          !measured.empty() ? measured.front() : !offline.empty() ? offline.front() : nullptr;
      if (concurrency) row.concurrency_run_id = concurrency->run_id;
      if (!Usable(concurrency, invalid_runs, "offline run at batch size 1 with " + Streams(k),
                  row.note)) {
        concurrency = nullptr;
      }
      if (measured.size() > 1) {
        std::string others;
        for (size_t i = 1; i < measured.size(); ++i) {
          others += (others.empty() ? "" : ", ") + measured[i]->run_id;
        }
        AppendNote(row.note, Streams(k) + " also measured by " + others + "; compared: " +
                                 concurrency->run_id);
      }

      if (batching) {
        row.batching_sps = batching->throughput_sps;
        row.batching_latency_p50_ms = batching->latency_p50_ms;
        row.batching_latency_p99_ms = batching->latency_p99_ms;
      }
      if (concurrency) {
        row.concurrency_sps = concurrency->samples_per_s;
        row.concurrency_latency_p50_ms = concurrency->latency_p50_ms;
        row.concurrency_latency_p99_ms = concurrency->latency_p99_ms;
      }
      if (batching && concurrency) {
        const std::string differ = SettingsDiffer(*batching, *concurrency, "");
        if (!differ.empty()) {
          AppendNote(row.note, "the two runs differ (single_stream's first): " + differ);
        } else if (row.batching_sps && row.concurrency_sps && *row.batching_sps > 0) {
          row.concurrency_over_batching = *row.concurrency_sps / *row.batching_sps;
          row.better = *row.concurrency_over_batching > 1   ? "concurrency"
                       : *row.concurrency_over_batching < 1 ? "batching"
                                                            : "equal";
        }
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;  // the map's order, then k ascending
}

std::vector<RunPoint> SelectOfflineRuns(const std::vector<RunPoint>& runs,
                                        InvalidRuns invalid_runs) {
  std::vector<RunPoint> offline;
  std::copy_if(runs.begin(), runs.end(), std::back_inserter(offline), [&](const RunPoint& run) {
    return run.scenario == kOffline && IsMeasured(run, invalid_runs);
  });
  std::sort(offline.begin(), offline.end(), [](const RunPoint& a, const RunPoint& b) {
    return std::tie(a.device, a.experiment, a.compiler, a.precision, a.model, a.batch_size,
                    a.streams, a.run_id) < std::tie(b.device, b.experiment, b.compiler,
                                                    b.precision, b.model, b.batch_size,
                                                    b.streams, b.run_id);
  });
  return offline;
}

std::vector<ServerPoint> ServerCurve(const ResultRow& row,
                                     const std::optional<std::vector<ServerStep>>& steps) {
  ServerPoint base;
  base.device = row.device;
  base.experiment = row.experiment;
  base.compiler = row.compiler;
  base.precision = row.precision;
  base.model = row.model;
  base.run_id = row.run_id;
  base.batch_size = row.batch_size;
  base.streams = row.streams;
  base.latency_percentile = row.latency_percentile;
  base.latency_bound_ms = row.latency_bound_ms;
  const double batch = static_cast<double>(row.batch_size);

  std::vector<ServerPoint> points;
  if (steps) {
    bool marked = false;
    for (const ServerStep& s : *steps) {
      ServerPoint p = base;
      p.step = s.step;
      p.target_qps = s.target_qps;
      p.achieved_qps = s.achieved_qps;
      p.samples_per_s = batch * s.achieved_qps;
      p.latency_p50_ms = s.latency_p50_ms;
      p.latency_at_percentile_ms = s.latency_at_percentile_ms;
      p.bound_met = s.bound_met;
      p.valid = s.valid;
      p.invalid_reason = s.invalid_reason;
      p.queries_issued = s.queries_issued;
      p.queries_completed = s.queries_completed;
      // The row is a copy of the step it reports: the same rate and the same queries.
      p.reported = !marked && row.target_qps == s.target_qps &&
                   row.queries_issued == s.queries_issued &&
                   row.queries_completed == s.queries_completed;
      marked = marked || p.reported;
      points.push_back(std::move(p));
    }
    return points;
  }
  ServerPoint p = base;
  p.target_qps = row.target_qps.value_or(0);
  p.achieved_qps = row.achieved_qps.value_or(0);
  p.samples_per_s = row.samples_per_s.value_or(batch * p.achieved_qps);
  p.latency_p50_ms = row.latency_p50_ms;
  p.latency_at_percentile_ms = row.latency_at_percentile_ms.value_or(0);
  p.bound_met = row.bound_met.value_or(false);
  p.valid = row.valid != false;
  p.invalid_reason = row.invalid_reason;
  p.queries_issued = row.queries_issued.value_or(0);
  p.queries_completed = row.queries_completed.value_or(0);
  p.reported = true;
  if (row.peak_steps) {
    p.note = "no " + row.run_id + ".server_steps.csv beside the row: the reported step only (of " +
             std::to_string(*row.peak_steps) + ")";
  }
  points.push_back(std::move(p));
  return points;
}

}  // namespace ngraphbench
