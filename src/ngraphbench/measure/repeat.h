// Repetition across processes: the statistics of a run measured in K worker processes, each a
// fresh start of the same setup (build, compile, warm up, time its share of the runs). One
// process's timed runs are not independent samples of the setup (they share one memory layout,
// one placement of threads, one stretch of the machine's load), so every interval and test here
// is computed over process-level values: the median of each process's timed runs, m_1..m_K.
//
// Model: y_i = ln m_i are independent draws from one normal distribution, N(mu, sigma^2) (the
// medians of processes of one setup, on one machine, over the time the sweep ran; with the
// processes of different runs interleaved in time, slow drift of the machine is part of sigma).
// Log scale, so that intervals are relative and ratios are differences.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ngraphbench {

// The q-quantile of Student's t distribution with `df` degrees of freedom (df > 0).
double StudentTQuantile(double q, double df);

// The two-sided p-value of Student's t statistic `t` with `df` degrees of freedom.
double StudentTTwoSidedP(double t, double df);

// Mean and sample standard deviation (n - 1) of ln of each value (all > 0).
struct LogSpread {
  int k = 0;
  double mean = 0, sd = 0;
};
std::optional<LogSpread> LogSpreadOf(const std::vector<double>& values);

// The 95% reproduction interval of a row's median: where a repeat of the run (the same
// settings, the same number of processes K, the same machine) puts its median, with
// probability `confidence`. A prediction interval for the median of K new log-medians:
//   center * exp(+-h),  h = t_{(1+confidence)/2, K-1} * s * sqrt(2 * c_K / K)
// with s the sample standard deviation of the K log-medians and c_K = MedianVarianceFactor(K).
// The quoted median pools the processes' timed runs, so it moves like the median of the
// processes' medians, not like their mean: the variance of a median of K normal draws is c_K
// times that of their mean (1.35 at K = 3, up to pi/2), on both sides, this run's and the
// repeat's. Defined for K >= 2 (K = 2 gives t = 12.7, so the interval is wide until K is 4 or 5).
// Centered on `center` (the row's quoted median, of the pooled runs). nullopt for K < 2 or a
// median <= 0.
struct Interval {
  double low = 0, high = 0;
};
std::optional<Interval> ReproductionInterval(double center, const std::vector<double>& medians,
                                             double confidence = 0.95);

// K times the variance of the median of K independent standard normal draws (1 for K <= 2,
// where the median is the mean; 1.346 at K = 3, 1.193 at K = 4, towards pi/2 for large K).
double MedianVarianceFactor(int64_t k);

// The ratio of two setups' medians, a / b, with a confidence interval and a test of "no change"
// from the process-level values of both sides: Welch's t on the log-medians (unequal variances,
// Welch-Satterthwaite degrees of freedom). The point estimate is a_center / b_center (the rows'
// quoted medians); the interval is that ratio times exp(+-t_{df} * se), se = sqrt(s_a^2/K_a +
// s_b^2/K_b); p is Welch's two-sided p-value of mean(ln a) - mean(ln b). nullopt unless both
// sides have at least 2 processes. When both sides' medians are each all equal (se = 0) the
// interval is the point and p is 0 for different means, 1 for equal ones.
struct RatioEstimate {
  double ratio = 0, low = 0, high = 0, p_value = 1, df = 0;
};
std::optional<RatioEstimate> CompareProcessMedians(double a_center, const std::vector<double>& a,
                                                   double b_center, const std::vector<double>& b,
                                                   double confidence = 0.95);

// The 95% reproduction interval of the ratio of two runs' quoted medians, a_center / b_center:
// where a repeat of both runs (the same settings, the same numbers of processes, the same
// machine) puts their ratio, as ReproductionInterval is for one run's median. From the
// processes' log-medians, with the median's variance factor c_K on both sides, this
// measurement's and the repeat's; the interval is the ratio times exp(+-h):
//   - paired (process i of both runs measured in pass i of one sweep, ProcessesPairedInTime):
//     over the first n = min(K_a, K_b) pairs' ratios r_i = a_i / b_i, h = t_{n-1} * s_r *
//     sqrt(2 c_n / n), the ReproductionInterval of the r_i: a drift of the machine between
//     passes moves both processes of a pair alike and cancels in r_i. Pairing by index is sound
//     only where the pairs were measured together; elsewhere it can hide a drift that the
//     unpaired spread shows.
//   - unpaired: h = t_df * sqrt(2 (c_Ka s_a^2 / K_a + c_Kb s_b^2 / K_b)), df the
//     Welch-Satterthwaite degrees of freedom of those two variances.
// nullopt below 2 processes (pairs) on a side or without positive quoted medians; with no
// spread, the point. (CompareProcessMedians is the test of a change between two measurements;
// this is the range a user may expect the quoted ratio in when both are measured again.)
std::optional<Interval> RatioReproductionInterval(double a_center, const std::vector<double>& a,
                                                  double b_center, const std::vector<double>& b,
                                                  bool paired, double confidence = 0.95);

// Whether two runs' processes were measured pass by pass, from when each process's timed runs
// ended (any one clock and unit, in process order, one per median): for each of the first
// n = min(K_a, K_b) processes, n >= 3, both runs' process i ended before either run's process
// i + 1 did. `run` measures process i of every run of a sweep before process i + 1 of any (its
// passes), which gives that; runs from separate sweeps, or one run's processes all before the
// other's, do not.
// False when a run has no times or fewer times than the pairs need.
bool ProcessesPairedInTime(const std::vector<double>& a_times, const std::vector<double>& b_times);

// The fewest processes whose reproduction interval is within `target_rel` of the median when
// their log-medians spread with standard deviation `sd` (0 when 1000 would not do).
int64_t ProcessesForTarget(double sd, double target_rel);

// Why a run's processes do not pin its median, in words, for the row of a run whose interval is
// wider than `target_rel`: how far the processes' medians spread (the standard deviation of their
// logs) and how many processes that spread would need; and, when the medians fall into two
// groups with a gap between them (a gap of more than 15 % and more than four times the groups'
// own spread, each group at least two processes), the groups: "processes' medians spread 31 %;
// 5 near 1.40 ms, 3 near 2.83 ms: bimodal on this machine". Empty for fewer than 3 medians.
std::string DescribeProcessSpread(const std::vector<double>& medians_ms, double target_rel);

}  // namespace ngraphbench
