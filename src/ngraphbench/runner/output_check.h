// The worker's output check (worker.cc): the first run's outputs against the reference, and
// whether that check could fail at all (else an intermediate tensor in its place).
#pragma once

#include <string>
#include <vector>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/compilers/description.h"
#include "ngraphbench/results/row.h"
#include "ngraphbench/runner/model.h"
#include "ngraphbench/runner/reference.h"
#include "ngraphbench/runner/spec.h"

namespace ngraphbench::worker {

// Check: the first run's outputs against the reference (measure/check.h), each stream's in
// offline; beyond the precision's tolerance the row is `wrong`. The row's errors are the worst
// stream's.
void Check(const std::vector<std::vector<HostTensor>>& streams_outputs,
           const std::vector<HostTensor>& reference, const std::string& precision,
           ResultRow& row);

// Whether the check could fail (measure/check.h, JudgeInputDependence): the row's
// check_verdict. Where the model's outputs do not depend on its input, the run's first process
// (and a worker started by hand) checks an intermediate tensor in their place: the nearest of the
// graph's candidates whose reference does (graph/intermediate.h, computed by the reference's
// probe child), in a second compile of the graph cut there, made as --quick makes it (no
// autotuning) and run once on the run's inputs. Beyond the tolerance the row is `wrong`; with no
// such tensor, or no second compile, the check is inconclusive. The row's notes say which. The
// later processes leave the verdict to the first (MergeParts).
void JudgeCheck(const ResolvedRun& spec, const std::string& spec_path, const CompilerInfo& info,
                const BuiltModel& model, const ReferenceSet& reference, Compiler& compiler,
                int process, ResultRow& row);

}  // namespace ngraphbench::worker
