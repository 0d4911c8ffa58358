// The shared part of analysis_test's files (analysis_test.cc: loading and `analyze` over real
// files; analysis_metrics_test.cc: the derived metrics on hand-computed tables;
// analysis_intervals_test.cc: their intervals and the reversals' verdicts;
// analysis_scenarios_test.cc: offline and server beside single stream): runs built by hand, and
// the fixture AnalyzeFiles that writes result trees and zips them.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "ngraphbench/analysis/analyze.h"
#include "ngraphbench/analysis/load.h"
#include "ngraphbench/analysis/metrics.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/measure/repeat.h"
#include "ngraphbench/results/csv.h"
#include "temp_dir.h"
#include "zip_tree.h"

namespace ngraphbench {
// Outside an anonymous namespace: the tests of AnalyzeFiles in several files are one suite,
// which GoogleTest requires to have one fixture class.
namespace analysis_testing {

namespace fs = std::filesystem;
using test_support::ReadText;
using test_support::ZipTree;

// The baseline of these tests' runs (in the tree: BaselineCompiler(), compilers/registry.h).
inline const std::string kBaseline = "identity";

// A run with throughput `sps`, measured in 3 processes whose medians are 1% apart around its
// latency b / sps (so every interval is defined and the notes speak of baselines only).
inline RunPoint Point(const std::string& compiler, const std::string& model, int64_t batch,
               std::optional<double> sps, const std::string& status = kStatusOk,
               const std::string& experiment = "conv2d") {
  RunPoint p;
  p.device = "cpu0";
  p.compiler = compiler;
  p.experiment = experiment;
  p.model = model;
  p.family = experiment;
  p.batch_size = batch;
  p.status = status;
  p.throughput_sps = sps;
  if (sps) {
    const double latency_ms = static_cast<double>(batch) * 1e3 / *sps;
    p.latency_p50_ms = latency_ms;
    p.process_p50s_ms = {0.99 * latency_ms, latency_ms, 1.01 * latency_ms};
  }
  return p;
}

// An ok run whose processes' medians are `medians_ms`: latency_p50_ms is the middle one, the
// throughput b / latency.
inline RunPoint Measured(const std::string& compiler, const std::string& model, int64_t batch,
                  const std::vector<double>& medians_ms,
                  const std::string& experiment = "conv2d") {
  std::vector<double> sorted = medians_ms;
  std::sort(sorted.begin(), sorted.end());
  const double latency_ms = sorted[sorted.size() / 2];
  RunPoint p = Point(compiler, model, batch, static_cast<double>(batch) * 1e3 / latency_ms,
                     kStatusOk, experiment);
  p.process_p50s_ms = medians_ms;
  return p;
}

// The scaling row of `compiler` on `model` at `batch`.
inline const ScalingRow& Find(const std::vector<ScalingRow>& rows, const std::string& compiler,
                              const std::string& model, int64_t batch) {
  for (const ScalingRow& row : rows) {
    if (row.compiler == compiler && row.model == model && row.batch_size == batch) return row;
  }
  throw std::runtime_error("no row " + compiler + "/" + model + "/b" + std::to_string(batch));
}

// ---- Loading and `analyze` end to end over real files ----

class AnalyzeFiles : public test_support::TempDirTest {
 protected:
  AnalyzeFiles() : TempDirTest("ngb_analysis_test_") {}

  static ResultRow Row(const std::string& compiler, const std::string& experiment,
                       const std::string& model, int64_t batch, std::optional<double> sps,
                       const std::string& status = kStatusOk) {
    ResultRow row;
    row.run_id = model + "_b" + std::to_string(batch);
    row.experiment = experiment;
    row.model = model;
    row.family = experiment;
    row.batch_size = batch;
    row.compiler = compiler;
    row.device = "cpu0";
    row.precision = "fp32";
    row.status = status;
    row.throughput_median_sps = sps;
    if (sps) {  // one process, as rows of schema 4 and older read
      row.latency_p50_ms = static_cast<double>(batch) * 1e3 / *sps;
      row.processes = 1;
      row.process_p50s_ms = {*row.latency_p50_ms};
    }
    if (status != kStatusOk) row.error = "worker died\nwith signal 11";
    return row;
  }

  // `row` measured in processes whose medians are `medians_ms` (the middle one the row's
  // median, its throughput b / median), with the reproduction interval they give.
  static ResultRow Processes(ResultRow row, const std::vector<double>& medians_ms) {
    std::vector<double> sorted = medians_ms;
    std::sort(sorted.begin(), sorted.end());
    row.latency_p50_ms = sorted[sorted.size() / 2];
    row.throughput_median_sps = static_cast<double>(row.batch_size) * 1e3 / *row.latency_p50_ms;
    row.processes = static_cast<int64_t>(medians_ms.size());
    row.process_p50s_ms = medians_ms;
    const std::optional<Interval> ci = ReproductionInterval(*row.latency_p50_ms, medians_ms);
    row.latency_p50_ci_low_ms = ci->low;
    row.latency_p50_ci_high_ms = ci->high;
    return row;
  }

  // Writes rows (and a trace beside each, which analyze must skip) as results/cpu0/<compiler>/.
  void WriteTree(const fs::path& results, const std::vector<ResultRow>& rows) {
    for (const ResultRow& row : rows) {
      const std::string dir = (results / row.device / row.compiler).string();
      WriteRow(RowPath(dir, row.run_id), row);
      WriteLatencies(LatenciesPath(dir, row.run_id), {1000, 1100, 1050});
    }
  }

  // The message of the InputError that `f` throws; fails the test when none is thrown.
  template <typename F>
  static std::string InputErrorOf(F f) {
    try {
      f();
    } catch (const InputError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no InputError thrown";
    return "";
  }
};

}  // namespace analysis_testing
}  // namespace ngraphbench
