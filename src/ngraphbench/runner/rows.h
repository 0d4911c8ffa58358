// The worker's row (worker.cc): its identity and provenance columns (BaseRow, worker.h), the
// columns of a process's timed window, any scenario's, filled in one place, and the joins its
// text columns use.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ngraphbench/measure/harness.h"
#include "ngraphbench/results/row.h"
#include "ngraphbench/runner/spec.h"

namespace ngraphbench::worker {

// The compiler's effective settings as the row's compiler_settings: "k=v" joined by ";".
std::string JoinSettings(const std::map<std::string, std::string>& settings);

// `items` joined by `sep`.
std::string Join(const std::vector<std::string>& items, const std::string& sep);

// The columns of a process's timed window, any scenario's (measure/harness.h's TimedWindow):
// its latency statistics as a run of one process, its first run and warmup, its window and what
// the sampler saw over it; with streams, theirs and samples/s.
void FillWindowColumns(const ResolvedRun& spec, const TimedWindow& w, ResultRow& row);

}  // namespace ngraphbench::worker
