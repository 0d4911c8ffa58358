// The worker: one process of one run (worker.cc). What the scheduler shares with it.
#pragma once

#include "ngraphbench/compilers/options.h"
#include "ngraphbench/experiments/grid.h"
#include "ngraphbench/results/row.h"
#include "ngraphbench/runner/run.h"

namespace ngraphbench {

// The identity and provenance columns of a run, before anything is measured.
ResultRow BaseRow(const RunSpec& run, const RunArgs& args, const CompilerConfig& config);

}  // namespace ngraphbench
