// Derived metrics over measured runs: batch scaling (RTR, ASE), speedup over the baseline (the
// compiler whose description says `baseline: true`, BaselineCompiler() in compilers/registry.h;
// the columns and names here say `identity`, the one this tree declares), and whether
// compilation reverses the throughput ranking of architectures. Plain free functions over plain
// structs: no I/O, so every number is unit-tested by hand.
//
// A metric whose baseline is missing (no batch-1 run, no identity run, a baseline run that did not
// end `ok` or is invalid) or was measured with other settings (threads, precision, timing
// boundary, compute device) is left empty (std::nullopt) and the row's `note` says why; nothing is
// extrapolated.
//
// Every derived ratio has a 95% reproduction interval (where a repeat of both runs puts it) from
// the process medians of the two runs it divides (measure/repeat.h, RatioReproductionInterval;
// a process's timed runs are not independent samples of its setup, so its median is the unit).
// The point values are throughput ratios; with T = b / L(b) for the median latency L
// (measure/stats.h), they equal the latency ratios the intervals are built around. An interval
// is empty, with the reason in the note, when a run has fewer than 2 processes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/measure/repeat.h"
#include "ngraphbench/results/row.h"

namespace ngraphbench {

// The experiment whose models are ranked (Table IV of the paper).
inline constexpr const char* kRankedExperiment = "architectures";

// One run as the metrics see it. A run is identified by (device, compiler, experiment, model,
// batch_size, precision): an int8 and an fp32 run of one model are two runs. Only runs with
// status `ok` carry a throughput. Two runs are compared only when their settings (threads,
// precision, timing_boundary, compute_device) agree; ComputePrecisionSpeedups alone compares
// two precisions of one compiler.
struct RunPoint {
  std::string device, compiler, experiment, model, family;
  std::optional<int64_t> width, depth;  // set for the block experiments (Table V)
  int64_t batch_size = 0;
  std::optional<int64_t> threads;
  std::string precision, timing_boundary, compute_device;
  std::string status;                    // kStatusOk, kStatusWrong, kStatusError, ...
  std::optional<double> throughput_sps;  // throughput_median_sps of an ok run
  // An ok run's latency of one batch: the median of its pooled timed runs, each process's
  // median (the sample the intervals are computed from), and the row's reproduction interval.
  std::optional<double> latency_p50_ms;
  std::vector<double> process_p50s_ms;
  // When each of those processes' timed runs ended (Unix ms), empty for rows without the times.
  std::vector<double> process_ends_unix_ms;
  // The machine the run was measured on (its key in results/<device>/machine.json), empty for
  // rows without one.
  std::string machine_id;
  std::optional<double> latency_p50_ci_low_ms, latency_p50_ci_high_ms;
  std::optional<bool> valid;             // the row's verdict; empty counts as valid
  std::string invalid_reason;
  // The load (results/row.h): "single_stream", "offline" or "server"; the run id tells two
  // offline runs of one model and batch size apart. With several requests in flight the run's
  // throughput is samples_per_s over the window (throughput_sps stays empty) and its latencies
  // are per request; latency_p99_ms and cpu_util_pct are set for ok runs.
  std::string scenario = "single_stream", run_id;
  std::optional<int64_t> streams, threads_per_stream;
  std::optional<double> samples_per_s, latency_p99_ms, cpu_util_pct;
  // The output check's measures of a quantized (int8) run against the fp32 reference
  // (measure/quant_check.h), empty for other runs; check_max_rel_err for every checked run.
  std::optional<double> check_cosine, check_snr_db, check_top1_agreement, check_top5_agreement,
      check_max_rel_err;
};

RunPoint ToRunPoint(const ResultRow& row);

// Whether ok runs whose verdict is invalid (valid == false) enter the derived numbers. Runs that
// did not end ok (`wrong`, `error`, ...) never do.
enum class InvalidRuns { kExclude, kInclude };

// An ok run marked invalid (valid == false); an empty verdict counts as valid.
bool IsInvalid(const RunPoint& run);
// Whether `run` enters the derived numbers: status ok, and valid unless invalid runs are included.
bool IsMeasured(const RunPoint& run, InvalidRuns invalid_runs);

// The settings in which `baseline` and `run` differ, as "threads 2 vs 1 here, precision fp32 vs
// bf16 here" (the baseline's value first, then run's; `here` follows each); "" when they agree.
std::string SettingsDiffer(const RunPoint& baseline, const RunPoint& run,
                           const std::string& here = " here");

// RTR_c(b) = T_c(b) / T_c(1): relative throughput rate.
double RelativeThroughputRate(double throughput_b, double throughput_1);
// ASE_c(b) = T_c(b) / (b * T_c(1)) = L_c(1) / L_c(b) (L: latency of one batch): absolute scaling
// efficiency. 1 = the batch of b takes as long as one sample (throughput linear in b); 1/b =
// batching gains nothing; above 1 = a batch faster than one sample, an anomaly.
double AbsoluteScalingEfficiency(double throughput_b, double throughput_1, int64_t batch_size);
// T_c(b) / T_identity(b).
double Speedup(double throughput, double baseline_throughput);

// The 95% reproduction interval of L_a / L_b, the ratio of two runs' latencies (where a repeat
// of both runs puts it), from their process medians, around the ratio of their latency_p50_ms
// (RatioReproductionInterval): paired by process when the two runs were measured pass by pass
// (ProcessesPairedInTime on their process end times), unpaired otherwise. nullopt, with the
// reason appended to `note` ("; "-joined), when a run has fewer than 2 processes ("interval:
// fewer than 2 processes (<a_name> K_a, <b_name> K_b)") or no latency_p50_ms. Runs with times
// and at least 3 processes each that were not measured pass by pass get "interval unpaired: the
// <a_name> and <b_name> were not measured pass by pass". A run against itself (&a == &b) is
// exactly [1, 1].
std::optional<Interval> LatencyRatioInterval(const RunPoint& a, const std::string& a_name,
                                             const RunPoint& b, const std::string& b_name,
                                             std::string& note);

// The interval of an ok run's throughput, b / L: b over the row's reproduction interval of L
// (its bounds swapped), in samples/s. nullopt when the row has none.
std::optional<Interval> ThroughputInterval(const RunPoint& run);

// One ok run with its batch-scaling metrics and its speedup over identity.
struct ScalingRow {
  std::string device, compiler, precision, experiment, model, family;
  std::optional<int64_t> width, depth;
  int64_t batch_size = 0;
  double throughput_sps = 0;
  std::optional<Interval> throughput_ci;  // samples/s
  std::optional<double> batch1_throughput_sps, rtr, ase;
  // RTR = b * L(1) / L(b), ASE = L(1) / L(b): from the batch-1 run and this one.
  std::optional<Interval> rtr_ci, ase_ci;
  std::optional<double> identity_throughput_sps, speedup_vs_identity;
  std::optional<Interval> speedup_ci;  // L_identity(b) / L_c(b): from identity's run and this one
  // Why the cells above are empty; "" when they are filled.
  std::string scaling_note;  // batch1_throughput_sps, rtr, ase and their intervals
  std::string speedup_note;  // identity_throughput_sps, speedup_vs_identity, speedup_ci
};

// One row per measured run in `runs` (IsMeasured), sorted by (device, experiment, compiler,
// precision, width, depth, model, batch_size). RTR and ASE divide by the same compiler's batch-1
// run of the same model and precision on the same device and experiment; the speedup divides by
// identity's run at the same device, experiment, model, batch size and precision. A baseline
// counts only when it is measured and its settings agree with the run's (SettingsDiffer); where
// the baseline ran at another precision only, the note says so ("... differs: precision fp32 vs
// int8 here"). `baseline`: the baseline compiler's name. Throws std::invalid_argument when two
// runs share (device, compiler, experiment, model, batch_size, precision).
std::vector<ScalingRow> ComputeScaling(const std::vector<RunPoint>& runs,
                                       const std::string& baseline,
                                       InvalidRuns invalid_runs = InvalidRuns::kExclude);

// The rows of the block experiments (width and depth both set), sorted by (device, experiment,
// batch_size, compiler, width, depth): throughput and speedup against depth and width (Table V).
std::vector<ScalingRow> SelectBlocks(const std::vector<ScalingRow>& scaling);

// Kendall's tau-b between two paired samples (Kendall 1945):
//   tau_b = (C - D) / sqrt((n0 - n1) * (n0 - n2)),
// C / D = concordant / discordant pairs, n0 = n(n-1)/2, n1 / n2 = pairs tied in x / in y.
// Without ties it equals tau-a = (C - D) / n0. tau-b is used because equal throughputs are
// possible (identical kernels) and tau-a would then never reach +-1.
// nullopt when fewer than 2 pairs or when either sample is entirely tied (0/0).
// Throws std::invalid_argument when the sizes differ.
std::optional<double> KendallTauB(const std::vector<double>& x, const std::vector<double>& y);

// A pair of models whose throughput order differs between identity and a compiler.
// model_a is the one identity runs faster; the compiler runs model_b faster.
struct ReversedPair {
  std::string model_a, model_b;
  double identity_a_sps = 0, identity_b_sps = 0, compiler_a_sps = 0, compiler_b_sps = 0;
  // The 95% intervals of L_A / L_B (latency of A over B's, same batch size) under identity and
  // under the compiler (LatencyRatioInterval); empty when a run has fewer than 2 processes.
  std::optional<Interval> identity_ratio_ci, compiler_ratio_ci;
  // Both orderings significant: identity's interval below 1 (A faster) and the compiler's above
  // 1 (B faster). Otherwise the reversal is a tie: within what repeating the runs could change.
  bool significant = false;
  std::string note;  // why an interval is empty, e.g. "identity interval: fewer than 2 ..."
};

// Discordant pairs of (models, identity_sps, compiler_sps); ties on either side are no reversal.
// Ordered by model_a, then model_b. Throws std::invalid_argument when the sizes differ.
std::vector<ReversedPair> FindReversedPairs(const std::vector<std::string>& models,
                                            const std::vector<double>& identity_sps,
                                            const std::vector<double>& compiler_sps);

// Sets pair's intervals and verdict (ReversedPair::significant) from the four runs: identity's
// and the compiler's of model_a and of model_b.
void JudgeReversal(const RunPoint& identity_a, const RunPoint& identity_b,
                   const RunPoint& compiler_a, const RunPoint& compiler_b, ReversedPair& pair);

// A compiler's ranking of the architectures at one device, batch size and precision against
// identity's at that precision.
struct RankingRow {
  std::string device, compiler, precision;
  int64_t batch_size = 0;
  int64_t models = 0;  // models with a measured run of both compilers, same settings: ranked
  std::optional<double> kendall_tau_b;
  // reversed_pairs = significant_reversals + tied_reversals (ReversedPair::significant).
  int64_t pairs = 0, reversed_pairs = 0, significant_reversals = 0, tied_reversals = 0;
  std::string compiler_order, identity_order;  // ranked set, fastest first, joined by '>'
  std::vector<ReversedPair> reversals;
  std::string note;
};

// Every (device, batch size, compiler other than identity, precision) with a run of
// kRankedExperiment, sorted by (device, batch_size, compiler, precision). The baseline's runs are
// those at the same precision, or where it has none, those at another (whose every model is then
// listed as differing). A model is ranked when both its runs are measured (IsMeasured) and their
// settings agree; the note lists the others and why. `baseline`: the baseline compiler's name.
std::vector<RankingRow> ComputeRankings(const std::vector<RunPoint>& runs,
                                        const std::string& baseline,
                                        InvalidRuns invalid_runs = InvalidRuns::kExclude);

// A measured run at a precision other than fp32 (int8, bf16, fp16) against the same compiler's
// fp32 run: the speedup quantization or a narrower float buys, and what it costs in accuracy.
struct PrecisionRow {
  std::string device, experiment, compiler, model, family;
  std::optional<int64_t> width, depth;
  int64_t batch_size = 0;
  std::string precision;
  // This run's latency of one batch and its reproduction interval (the row's), and the fp32
  // run's; throughputs as in ScalingRow.
  std::optional<double> latency_p50_ms, latency_p50_ci_low_ms, latency_p50_ci_high_ms;
  std::optional<double> fp32_latency_p50_ms, fp32_latency_p50_ci_low_ms,
      fp32_latency_p50_ci_high_ms;
  double throughput_sps = 0;
  std::optional<double> fp32_throughput_sps;
  // T_precision / T_fp32 = L_fp32 / L_precision, with its 95% interval from the two runs'
  // process medians (LatencyRatioInterval), as the speedups over identity have theirs.
  std::optional<double> speedup_vs_fp32;
  std::optional<Interval> speedup_ci;
  // The run's output check against the fp32 reference (RunPoint).
  std::optional<double> check_cosine, check_snr_db, check_top1_agreement, check_top5_agreement,
      check_max_rel_err;
  std::string note;  // why fp32_* and the speedup are empty; "" when they are filled
};

// One row per measured run (IsMeasured) whose precision is set and not fp32, sorted by (device,
// experiment, compiler, precision, width, depth, model, batch_size). The fp32 run is the same
// compiler's at the same device, experiment, model and batch size; it counts only when it is
// measured and its other settings (threads, timing_boundary, compute_device) agree.
std::vector<PrecisionRow> ComputePrecisionSpeedups(
    const std::vector<RunPoint>& runs, InvalidRuns invalid_runs = InvalidRuns::kExclude);

}  // namespace ngraphbench
