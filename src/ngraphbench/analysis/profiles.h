// The profiles of analyzed runs (profile/profile.h) set side by side: where each run's time goes
// by operator class, how much each compiler fused, and which operator classes explain the
// difference in time between two compilers on the same model. Written by `analyze` when any
// run has a profile; `ngraphbench profile` prints one run's top kernels.
#pragma once

#include <string>
#include <vector>

#include "ngraphbench/analysis/load.h"
#include "ngraphbench/profile/profile.h"

namespace ngraphbench {

inline constexpr const char* kProfileRunsCsv = "profile_runs.csv";
inline constexpr const char* kProfileOpsCsv = "profile_op_classes.csv";
inline constexpr const char* kProfileSpeedupCsv = "profile_speedup_by_op.csv";

// A run with its profile.
struct ProfiledRun {
  const ResultRow* row;
  ProfileTable table;
};

// The runs of `runs` that have a profile, in their order (ReadRunProfile).
std::vector<ProfiledRun> LoadProfiles(const std::vector<LoadedRun>& runs);

// profile_runs.csv: per run, the profiler, kernels and graph nodes per inference, the fusion
// ratio (graph nodes / kernels), the profiled time, the timed median and their ratio, and the
// class with the most time and its share.
std::string FormatProfileRunsCsv(const std::vector<ProfiledRun>& runs);

// profile_op_classes.csv: per run and operator class, the time per inference and its share.
std::string FormatProfileOpsCsv(const std::vector<ProfiledRun>& runs);

// profile_speedup_by_op.csv: for every two compilers that profiled the same run (device,
// experiment, model, batch size), per operator class: the baseline's and the compiler's time
// per inference, their difference, and the difference's fraction of the whole difference of
// the profiled totals (the fractions of a pair sum to 1; a class that the compiler made slower
// has the opposite sign of the total). Each unordered pair once, the baseline the first in
// name order.
std::string FormatProfileSpeedupCsv(const std::vector<ProfiledRun>& runs);

// The terminal view of one run's profile (`ngraphbench profile`): its summary, the `top` kernels
// with the most time, and the time by operator class.
std::string FormatTopKernels(const ResultRow& row, const ProfileTable& table, size_t top);

}  // namespace ngraphbench
