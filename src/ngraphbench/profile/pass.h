// The profiling pass of a run (`profile: on`): after the timed runs, the compiler's own profiler
// over a few more runs (Executable::Profile), its kernels written to `<run_id>.profile.csv`
// beside the row and summed up in the row's profile columns. The timed figures are untouched:
// the pass comes after them, and a compiler that can only profile a model compiled for it
// compiles a second one.
#pragma once

#include <string>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/graph/ir.h"
#include "ngraphbench/results/row.h"

namespace ngraphbench {

// How long the profiled runs take at most, at the timed median: as many runs as fit, at least
// one, at most kMaxProfiledRuns.
inline constexpr double kProfileBudgetS = 2.0;
inline constexpr int kMaxProfiledRuns = 20;

// Profiled runs for a run whose timed median is `p50_ms`.
int ProfiledRuns(double p50_ms);

// Profiles `executable` (the model `graph`, compiled; its inputs set) and writes
// ProfilePath(dir, run_id) atomically; fills `row`'s profile columns, profile_over_p50 against
// the row's latency_p50_ms. A compiler without a profiler, or a profile that fails, leaves the
// columns empty and says why in the row's notes: the run's measurement stands either way.
// Throws only StorageError (the file could not be written for its storage).
void ProfilePass(Executable& executable, const Graph& graph, const std::string& compiler,
                 const std::string& dir, const std::string& run_id, ResultRow& row);

}  // namespace ngraphbench
