// The worker: one process of one run (worker.cc). What the scheduler shares with it.
#pragma once

#include "ngraphbench/results/row.h"
#include "ngraphbench/runner/spec.h"

namespace ngraphbench {

// The identity and provenance columns of a run, before anything is measured: the worker's row
// starts from them, and the scheduler's rows for workers that crashed or timed out are them.
ResultRow BaseRow(const ResolvedRun& spec);

}  // namespace ngraphbench
