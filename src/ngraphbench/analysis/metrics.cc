#include "ngraphbench/analysis/metrics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace ngraphbench {
namespace {

// The order of the rows of scaling.csv and precision_speedup.csv: device, experiment, compiler,
// precision, then the model by width, depth and name, then the batch size.
template <typename Row>
bool InRunOrder(const Row& a, const Row& b) {
  return std::tie(a.device, a.experiment, a.compiler, a.precision, a.width, a.depth, a.model,
                  a.batch_size) < std::tie(b.device, b.experiment, b.compiler, b.precision,
                                           b.width, b.depth, b.model, b.batch_size);
}

// A run's identity without its precision, and with it.
using ModelKey = std::tuple<std::string, std::string, std::string, std::string, int64_t>;
using RunKey = std::tuple<ModelKey, std::string>;

ModelKey KeyOf(const std::string& device, const std::string& compiler,
               const std::string& experiment, const std::string& model, int64_t batch_size) {
  return {device, compiler, experiment, model, batch_size};
}

ModelKey KeyOf(const RunPoint& run) {
  return KeyOf(run.device, run.compiler, run.experiment, run.model, run.batch_size);
}

bool IsOk(const RunPoint& run) { return run.status == kStatusOk; }

double OkThroughput(const RunPoint& run) {
  if (!run.throughput_sps || !(*run.throughput_sps > 0)) {
    throw std::invalid_argument("run " + run.model + " b" + std::to_string(run.batch_size) +
                                " of " + run.compiler + " is ok but has no positive throughput");
  }
  return *run.throughput_sps;
}

// The runs by identity, and by identity less the precision (every precision of a model, in
// precision order), to say why a baseline at the run's precision is missing.
struct RunIndex {
  std::map<RunKey, const RunPoint*> exact;
  std::map<ModelKey, std::map<std::string, const RunPoint*>> precisions;
};

RunIndex IndexRuns(const std::vector<RunPoint>& runs) {
  RunIndex index;
  for (const RunPoint& run : runs) {
    if (!index.exact.emplace(RunKey{KeyOf(run), run.precision}, &run).second) {
      throw std::invalid_argument("two runs of " + run.compiler + " on " + run.device + " for " +
                                  run.experiment + "/" + run.model + " at batch size " +
                                  std::to_string(run.batch_size) + " and precision " +
                                  (run.precision.empty() ? "unset" : run.precision));
    }
    index.precisions[KeyOf(run)][run.precision] = &run;
  }
  return index;
}

void AppendNote(std::string& note, const std::string& reason) {
  if (!note.empty()) note += "; ";
  note += reason;
}

// Whether `baseline` may be divided by: measured, and its settings agree with the run's; else
// nullptr and the reason in `note`, naming it `what`.
const RunPoint* Usable(const RunPoint& baseline, const RunPoint& run, InvalidRuns invalid_runs,
                       const std::string& what, std::string& note) {
  if (!IsOk(baseline)) {
    AppendNote(note, what + " ended with status " + baseline.status);
    return nullptr;
  }
  if (!IsMeasured(baseline, invalid_runs)) {
    AppendNote(note, what + " is invalid (" + baseline.invalid_reason + ")");
    return nullptr;
  }
  const std::string differ = SettingsDiffer(baseline, run);
  if (!differ.empty()) {
    AppendNote(note, what + " differs: " + differ);
    return nullptr;
  }
  return &baseline;
}

// Looks up the baseline run of `run` (`key` at the run's precision); returns it, or nullptr and
// the reason in `note`. The caller reads its throughput with OkThroughput.
const RunPoint* Baseline(const RunIndex& index, const ModelKey& key, const RunPoint& run,
                         InvalidRuns invalid_runs, const std::string& what, std::string& note) {
  auto it = index.exact.find({key, run.precision});
  if (it != index.exact.end()) return Usable(*it->second, run, invalid_runs, what, note);
  // At another precision only: never a baseline, but the note says what differs.
  auto other = index.precisions.find(key);
  if (other != index.precisions.end()) {
    AppendNote(note, what + " differs: " + SettingsDiffer(*other->second.begin()->second, run));
  } else {
    AppendNote(note, "no " + what);
  }
  return nullptr;
}

Interval Scaled(const Interval& interval, double factor) {
  return {interval.low * factor, interval.high * factor};
}

void AppendDiffer(std::string& differ, const char* setting, const std::string& baseline,
                  const std::string& run, const std::string& here) {
  if (baseline == run) return;
  if (!differ.empty()) differ += ", ";
  differ += std::string(setting) + " " + (baseline.empty() ? "unset" : baseline) + " vs " +
            (run.empty() ? "unset" : run) + here;
}

std::string Text(const std::optional<int64_t>& value) {
  return value ? std::to_string(*value) : "";
}

std::string JoinList(const std::vector<std::string>& items) {
  std::string list;
  for (const std::string& item : items) list += (list.empty() ? "" : ", ") + item;
  return list;
}

std::string JoinOrder(std::vector<std::pair<double, std::string>> ranked) {
  // Fastest first; equal throughputs by name so the order is deterministic.
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::string order;
  for (const auto& [sps, model] : ranked) {
    if (!order.empty()) order += ">";
    order += model;
  }
  return order;
}

int Sign(double v) { return (v > 0) - (v < 0); }

void CheckSameSize(size_t a, size_t b, const char* what) {
  if (a != b) {
    throw std::invalid_argument(std::string(what) + ": samples of different sizes (" +
                                std::to_string(a) + " vs " + std::to_string(b) + ")");
  }
}

}  // namespace

RunPoint ToRunPoint(const ResultRow& row) {
  RunPoint run;
  run.device = row.device;
  run.compiler = row.compiler;
  run.experiment = row.experiment;
  run.model = row.model;
  run.family = row.family;
  run.width = row.width;
  run.depth = row.depth;
  run.batch_size = row.batch_size;
  run.threads = row.threads;
  run.precision = row.precision;
  run.timing_boundary = row.timing_boundary;
  run.compute_device = row.compute_device;
  run.status = row.status;
  run.scenario = row.scenario;
  run.run_id = row.run_id;
  run.machine_id = row.machine_id;
  run.streams = row.streams;
  run.threads_per_stream = row.threads_per_stream;
  if (row.status == kStatusOk) {
    run.throughput_sps = row.throughput_median_sps;
    run.samples_per_s = row.samples_per_s;
    run.latency_p99_ms = row.latency_p99_ms;
    run.cpu_util_pct = row.cpu_util_pct;
    run.latency_p50_ms = row.latency_p50_ms;
    run.process_p50s_ms = row.process_p50s_ms;
    // Times that do not match the medians one to one pair nothing.
    if (row.process_ends_unix_ms.size() == row.process_p50s_ms.size()) {
      run.process_ends_unix_ms.assign(row.process_ends_unix_ms.begin(),
                                     row.process_ends_unix_ms.end());
    }
    run.latency_p50_ci_low_ms = row.latency_p50_ci_low_ms;
    run.latency_p50_ci_high_ms = row.latency_p50_ci_high_ms;
  }
  run.check_cosine = row.check_cosine;
  run.check_snr_db = row.check_snr_db;
  run.check_top1_agreement = row.check_top1_agreement;
  run.check_top5_agreement = row.check_top5_agreement;
  run.check_max_rel_err = row.check_max_rel_err;
  run.valid = row.valid;
  run.invalid_reason = row.invalid_reason;
  return run;
}

bool IsInvalid(const RunPoint& run) { return IsOk(run) && run.valid == false; }

bool IsMeasured(const RunPoint& run, InvalidRuns invalid_runs) {
  return IsOk(run) && (invalid_runs == InvalidRuns::kInclude || !IsInvalid(run));
}

std::string SettingsDiffer(const RunPoint& baseline, const RunPoint& run,
                           const std::string& here) {
  std::string differ;
  AppendDiffer(differ, "threads", Text(baseline.threads), Text(run.threads), here);
  AppendDiffer(differ, "precision", baseline.precision, run.precision, here);
  AppendDiffer(differ, "timing_boundary", baseline.timing_boundary, run.timing_boundary, here);
  AppendDiffer(differ, "compute_device", baseline.compute_device, run.compute_device, here);
  return differ;
}

double RelativeThroughputRate(double throughput_b, double throughput_1) {
  return throughput_b / throughput_1;
}

double AbsoluteScalingEfficiency(double throughput_b, double throughput_1, int64_t batch_size) {
  return throughput_b / (static_cast<double>(batch_size) * throughput_1);
}

double Speedup(double throughput, double baseline_throughput) {
  return throughput / baseline_throughput;
}

std::optional<Interval> LatencyRatioInterval(const RunPoint& a, const std::string& a_name,
                                             const RunPoint& b, const std::string& b_name,
                                             std::string& note) {
  if (&a == &b) return Interval{1, 1};  // a run against itself: 1 by definition
  // One device label may hold several machines' rows (a VM replaced by another of its kind):
  // their ratio holds the difference between the machines too, which no interval here covers.
  if (!a.machine_id.empty() && !b.machine_id.empty() && a.machine_id != b.machine_id) {
    AppendNote(note, "measured on different machines: " + a_name + " on " + a.machine_id + ", " +
                         b_name + " on " + b.machine_id + " (machine.json)");
  }
  if (!a.latency_p50_ms || !b.latency_p50_ms) {
    AppendNote(note, "interval: no latency_p50_ms in " + (a.latency_p50_ms ? b_name : a_name));
    return std::nullopt;
  }
  // Runs measured pass by pass are compared pass by pass: a drift of the machine between
  // passes cancels in each pair's ratio. Other runs' processes are independent draws.
  const bool paired = ProcessesPairedInTime(a.process_ends_unix_ms, b.process_ends_unix_ms);
  const std::optional<Interval> interval = RatioReproductionInterval(
      *a.latency_p50_ms, a.process_p50s_ms, *b.latency_p50_ms, b.process_p50s_ms, paired);
  if (!interval) {
    AppendNote(note, "interval: fewer than 2 processes (" + a_name + " " +
                         std::to_string(a.process_p50s_ms.size()) + ", " + b_name + " " +
                         std::to_string(b.process_p50s_ms.size()) + ")");
    return std::nullopt;
  }
  if (!paired && !a.process_ends_unix_ms.empty() && !b.process_ends_unix_ms.empty() &&
      std::min(a.process_p50s_ms.size(), b.process_p50s_ms.size()) >= 3) {
    AppendNote(note, "interval unpaired: the " + a_name + " and " + b_name +
                         " were not measured pass by pass");
  }
  return interval;
}

std::optional<Interval> ThroughputInterval(const RunPoint& run) {
  if (!run.latency_p50_ci_low_ms || !run.latency_p50_ci_high_ms ||
      !(*run.latency_p50_ci_low_ms > 0)) {
    return std::nullopt;
  }
  // b samples in L ms: b * 1e3 / L samples/s.
  const double b_ms = static_cast<double>(run.batch_size) * 1e3;
  return Interval{b_ms / *run.latency_p50_ci_high_ms, b_ms / *run.latency_p50_ci_low_ms};
}

std::vector<ScalingRow> ComputeScaling(const std::vector<RunPoint>& runs,
                                       const std::string& baseline, InvalidRuns invalid_runs) {
  const auto index = IndexRuns(runs);
  std::vector<ScalingRow> rows;
  for (const RunPoint& run : runs) {
    if (!IsMeasured(run, invalid_runs)) continue;
    ScalingRow row;
    row.device = run.device;
    row.compiler = run.compiler;
    row.precision = run.precision;
    row.experiment = run.experiment;
    row.model = run.model;
    row.family = run.family;
    row.width = run.width;
    row.depth = run.depth;
    row.batch_size = run.batch_size;
    row.throughput_sps = OkThroughput(run);
    row.throughput_ci = ThroughputInterval(run);

    const RunPoint* batch1 =
        run.batch_size == 1
            ? &run
            : Baseline(index, KeyOf(run.device, run.compiler, run.experiment, run.model, 1), run,
                       invalid_runs, "batch-1 run of " + run.compiler, row.scaling_note);
    if (batch1) {
      row.batch1_throughput_sps = OkThroughput(*batch1);
      row.rtr = RelativeThroughputRate(row.throughput_sps, *row.batch1_throughput_sps);
      row.ase = AbsoluteScalingEfficiency(row.throughput_sps, *row.batch1_throughput_sps,
                                          run.batch_size);
      // ASE = L(1) / L(b), RTR = b * ASE.
      row.ase_ci = LatencyRatioInterval(*batch1, "batch-1 run", run, "this run", row.scaling_note);
      if (row.ase_ci) row.rtr_ci = Scaled(*row.ase_ci, static_cast<double>(run.batch_size));
    }

    const RunPoint* identity =
        run.compiler == baseline
            ? &run
            : Baseline(index,
                       KeyOf(run.device, baseline, run.experiment, run.model, run.batch_size), run,
                       invalid_runs, baseline + " run at this batch size", row.speedup_note);
    if (identity) {
      row.identity_throughput_sps = OkThroughput(*identity);
      row.speedup_vs_identity = Speedup(row.throughput_sps, *row.identity_throughput_sps);
      // T_c / T_identity = L_identity / L_c.
      row.speedup_ci = LatencyRatioInterval(*identity, baseline + " run",
                                            run, "this run", row.speedup_note);
    }
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(), InRunOrder<ScalingRow>);
  return rows;
}

std::vector<ScalingRow> SelectBlocks(const std::vector<ScalingRow>& scaling) {
  std::vector<ScalingRow> blocks;
  std::copy_if(scaling.begin(), scaling.end(), std::back_inserter(blocks),
               [](const ScalingRow& row) { return row.width && row.depth; });
  std::sort(blocks.begin(), blocks.end(), [](const ScalingRow& a, const ScalingRow& b) {
    return std::tie(a.device, a.experiment, a.batch_size, a.compiler, a.precision, a.width,
                    a.depth, a.model) < std::tie(b.device, b.experiment, b.batch_size,
                                                 b.compiler, b.precision, b.width, b.depth,
                                                 b.model);
  });
  return blocks;
}

std::optional<double> KendallTauB(const std::vector<double>& x, const std::vector<double>& y) {
  CheckSameSize(x.size(), y.size(), "KendallTauB");
  const size_t n = x.size();
  int64_t concordant = 0, discordant = 0, tied_x = 0, tied_y = 0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      const int sx = Sign(x[i] - x[j]);
      const int sy = Sign(y[i] - y[j]);
      if (sx == 0) ++tied_x;
      if (sy == 0) ++tied_y;
      if (sx * sy > 0) ++concordant;
      if (sx * sy < 0) ++discordant;
    }
  }
  const int64_t pairs = static_cast<int64_t>(n) * (static_cast<int64_t>(n) - 1) / 2;
  const double denominator =
      std::sqrt(static_cast<double>(pairs - tied_x) * static_cast<double>(pairs - tied_y));
  if (pairs == 0 || denominator == 0) return std::nullopt;
  return static_cast<double>(concordant - discordant) / denominator;
}

std::vector<ReversedPair> FindReversedPairs(const std::vector<std::string>& models,
                                            const std::vector<double>& identity_sps,
                                            const std::vector<double>& compiler_sps) {
  CheckSameSize(models.size(), identity_sps.size(), "FindReversedPairs");
  CheckSameSize(models.size(), compiler_sps.size(), "FindReversedPairs");
  std::vector<ReversedPair> pairs;
  for (size_t i = 0; i < models.size(); ++i) {
    for (size_t j = i + 1; j < models.size(); ++j) {
      if (Sign(identity_sps[i] - identity_sps[j]) * Sign(compiler_sps[i] - compiler_sps[j]) >= 0) {
        continue;
      }
      const bool i_first = identity_sps[i] > identity_sps[j];
      const size_t a = i_first ? i : j, b = i_first ? j : i;
      pairs.push_back({models[a], models[b], identity_sps[a], identity_sps[b], compiler_sps[a],
                       compiler_sps[b]});
    }
  }
  std::sort(pairs.begin(), pairs.end(), [](const ReversedPair& p, const ReversedPair& q) {
    return std::tie(p.model_a, p.model_b) < std::tie(q.model_a, q.model_b);
  });
  return pairs;
}

void JudgeReversal(const RunPoint& identity_a, const RunPoint& identity_b,
                   const RunPoint& compiler_a, const RunPoint& compiler_b, ReversedPair& pair) {
  std::string identity_note, compiler_note;
  pair.identity_ratio_ci =
      LatencyRatioInterval(identity_a, pair.model_a, identity_b, pair.model_b, identity_note);
  pair.compiler_ratio_ci =
      LatencyRatioInterval(compiler_a, pair.model_a, compiler_b, pair.model_b, compiler_note);
  pair.note.clear();
  if (!identity_note.empty()) {
    AppendNote(pair.note, identity_a.compiler + " " + identity_note);
  }
  if (!compiler_note.empty()) AppendNote(pair.note, "compiler " + compiler_note);
  pair.significant = pair.identity_ratio_ci && pair.compiler_ratio_ci &&
                     pair.identity_ratio_ci->high < 1 && pair.compiler_ratio_ci->low > 1;
}

std::vector<RankingRow> ComputeRankings(const std::vector<RunPoint>& runs,
                                        const std::string& baseline, InvalidRuns invalid_runs) {
  IndexRuns(runs);  // rejects duplicate runs, as ComputeScaling does
  // (device, batch size) -> (compiler, precision) -> model -> run
  using CompilerKey = std::pair<std::string, std::string>;
  std::map<std::pair<std::string, int64_t>,
           std::map<CompilerKey, std::map<std::string, const RunPoint*>>>
      groups;
  for (const RunPoint& run : runs) {
    if (run.experiment != kRankedExperiment) continue;
    groups[{run.device, run.batch_size}][{run.compiler, run.precision}][run.model] = &run;
  }

  std::vector<RankingRow> rows;
  for (const auto& [group, by_compiler] : groups) {
    for (const auto& [compiler_key, by_model] : by_compiler) {
      const auto& [compiler, precision] = compiler_key;
      if (compiler == baseline) continue;
      // The baseline at this precision; else at another one, whose models then differ.
      auto baseline_it = by_compiler.find({baseline, precision});
      if (baseline_it == by_compiler.end()) {
        baseline_it = by_compiler.lower_bound({baseline, ""});
        if (baseline_it != by_compiler.end() && baseline_it->first.first != baseline) {
          baseline_it = by_compiler.end();
        }
      }
      RankingRow row;
      row.device = group.first;
      row.batch_size = group.second;
      row.compiler = compiler;
      row.precision = precision;

      std::set<std::string> all_models;  // stays empty without a baseline
      if (baseline_it == by_compiler.end()) {
        AppendNote(row.note, "no " + baseline + " run of " +
                                 kRankedExperiment + " at this device and batch size");
      } else {
        for (const auto& [model, run] : by_model) all_models.insert(model);
        for (const auto& [model, run] : baseline_it->second) all_models.insert(model);
      }

      // Models left out, by why: no ok run of one side; an invalid run; other settings.
      std::vector<std::string> models, not_ok, invalid, differ;
      std::vector<double> identity_sps, compiler_sps;
      std::map<std::string, std::pair<const RunPoint*, const RunPoint*>> ranked;  // identity, mine
      for (const std::string& model : all_models) {
        const RunPoint* mine = by_model.count(model) ? by_model.at(model) : nullptr;
        const RunPoint* base =
            baseline_it->second.count(model) ? baseline_it->second.at(model) : nullptr;
        if (!mine || !base || !IsOk(*mine) || !IsOk(*base)) {
          not_ok.push_back(model);
        } else if (!IsMeasured(*mine, invalid_runs) || !IsMeasured(*base, invalid_runs)) {
          std::vector<std::string> sides;
          if (!IsMeasured(*base, invalid_runs)) sides.push_back(baseline);
          if (!IsMeasured(*mine, invalid_runs)) sides.push_back(compiler);
          invalid.push_back(model + " (" + JoinList(sides) + ")");
        } else if (const std::string settings = SettingsDiffer(*base, *mine); !settings.empty()) {
          differ.push_back(model + " (" + settings + ")");
        } else {
          models.push_back(model);
          identity_sps.push_back(OkThroughput(*base));
          compiler_sps.push_back(OkThroughput(*mine));
          ranked[model] = {base, mine};
        }
      }

      row.models = static_cast<int64_t>(models.size());
      row.pairs = row.models * (row.models - 1) / 2;
      row.kendall_tau_b = KendallTauB(identity_sps, compiler_sps);
      row.reversals = FindReversedPairs(models, identity_sps, compiler_sps);
      for (ReversedPair& pair : row.reversals) {
        const auto& [identity_a, compiler_a] = ranked.at(pair.model_a);
        const auto& [identity_b, compiler_b] = ranked.at(pair.model_b);
        JudgeReversal(*identity_a, *identity_b, *compiler_a, *compiler_b, pair);
        ++(pair.significant ? row.significant_reversals : row.tied_reversals);
      }
      row.reversed_pairs = static_cast<int64_t>(row.reversals.size());
      std::vector<std::pair<double, std::string>> mine_ranked, base_ranked;
      for (size_t i = 0; i < models.size(); ++i) {
        mine_ranked.emplace_back(compiler_sps[i], models[i]);
        base_ranked.emplace_back(identity_sps[i], models[i]);
      }
      row.compiler_order = JoinOrder(std::move(mine_ranked));
      row.identity_order = JoinOrder(std::move(base_ranked));

      if (!not_ok.empty()) {
        AppendNote(row.note, "not ranked, no ok run of both compilers: " + JoinList(not_ok));
      }
      if (!invalid.empty()) {
        AppendNote(row.note, "not ranked, invalid run: " + JoinList(invalid));
      }
      if (!differ.empty()) {
        AppendNote(row.note, "not ranked, " + baseline +
                                 " run differs: " + JoinList(differ));
      }
      if (!row.kendall_tau_b && baseline_it != by_compiler.end()) {
        AppendNote(row.note, row.models < 2 ? "fewer than 2 models ranked"
                                            : "every throughput tied in one ranking");
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;  // std::map iteration already gives (device, batch_size, compiler, precision) order
}

std::vector<PrecisionRow> ComputePrecisionSpeedups(const std::vector<RunPoint>& runs,
                                                   InvalidRuns invalid_runs) {
  const RunIndex index = IndexRuns(runs);
  std::vector<PrecisionRow> rows;
  for (const RunPoint& run : runs) {
    if (run.precision.empty() || run.precision == "fp32" || !IsMeasured(run, invalid_runs)) {
      continue;
    }
    PrecisionRow row;
    row.device = run.device;
    row.experiment = run.experiment;
    row.compiler = run.compiler;
    row.model = run.model;
    row.family = run.family;
    row.width = run.width;
    row.depth = run.depth;
    row.batch_size = run.batch_size;
    row.precision = run.precision;
    row.latency_p50_ms = run.latency_p50_ms;
    row.latency_p50_ci_low_ms = run.latency_p50_ci_low_ms;
    row.latency_p50_ci_high_ms = run.latency_p50_ci_high_ms;
    row.throughput_sps = OkThroughput(run);
    row.check_cosine = run.check_cosine;
    row.check_snr_db = run.check_snr_db;
    row.check_top1_agreement = run.check_top1_agreement;
    row.check_top5_agreement = run.check_top5_agreement;
    row.check_max_rel_err = run.check_max_rel_err;

    // The fp32 run is judged as a baseline is, but for its precision.
    const std::string what = "fp32 run of " + run.compiler;
    const RunPoint* fp32 = nullptr;
    if (auto it = index.exact.find({KeyOf(run), "fp32"}); it != index.exact.end()) {
      RunPoint as_fp32 = run;
      as_fp32.precision = "fp32";
      fp32 = Usable(*it->second, as_fp32, invalid_runs, what, row.note);
    } else {
      AppendNote(row.note, "no " + what);
    }
    if (fp32) {
      row.fp32_latency_p50_ms = fp32->latency_p50_ms;
      row.fp32_latency_p50_ci_low_ms = fp32->latency_p50_ci_low_ms;
      row.fp32_latency_p50_ci_high_ms = fp32->latency_p50_ci_high_ms;
      row.fp32_throughput_sps = OkThroughput(*fp32);
      row.speedup_vs_fp32 = Speedup(row.throughput_sps, *row.fp32_throughput_sps);
      // T_precision / T_fp32 = L_fp32 / L_precision.
      row.speedup_ci = LatencyRatioInterval(*fp32, "fp32 run", run, "this run", row.note);
    }
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(), InRunOrder<PrecisionRow>);
  return rows;
}

}  // namespace ngraphbench
