// The order in which a sweep starts its processes (QueueProcesses), as tuning needs it: a run's
// first process compiles (and tunes) before its later ones load the compile cache, and of the
// runs that share a tuning workload the first to start is the shallowest, the one the estimate
// charges the tuning to.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ngraphbench/experiments/estimate.h"
#include "ngraphbench/experiments/grid.h"
#include "ngraphbench/runner/plan.h"

namespace ngraphbench {
namespace {

std::deque<Task> Queue(const std::vector<RunSpec>& runs, Plan& plan,
                       std::deque<RunState>& states) {
  plan.dir = NGB_BINARY_DIR "/queue_test_no_such_dir";  // no parts on disk
  for (const RunSpec& run : runs) {
    RunState st;
    st.plan = &plan;
    st.run = &run;
    states.push_back(std::move(st));
  }
  Resumed resumed;
  return QueueProcesses(states, &resumed);
}

TEST(Queue, EachWorkloadsShallowestRunStartsFirstAndTunesForTheOthers) {
  const ExperimentsFile file = LoadExperiments(NGB_SOURCE_DIR "/configs/experiments.yaml");
  for (const char* name : {"conv_blocks", "mha_blocks"}) {
    ExperimentConfig e = file.Find(name);
    e.processes = 3;
    const std::vector<RunSpec> runs = ExpandGrid(e, /*quick=*/false);
    Plan plan;
    std::deque<RunState> states;
    const std::deque<Task> queue = Queue(runs, plan, states);
    ASSERT_EQ(queue.size(), 3 * runs.size()) << name;

    EstimateInputs in;
    in.compiler = "tvm";
    in.threads = 2;
    in.tuning_trials = 200;
    in.tuning_s = 1000;
    const std::vector<RunCost> costs = EstimateRuns(runs, in);
    std::map<std::string, const RunCost*> cost_of;
    for (size_t i = 0; i < runs.size(); ++i) cost_of[runs[i].run_id] = &costs[i];

    // Round 0, every run's first process, comes before any later process: the first process of
    // a run that tunes holds the tuning, its later ones load the library it compiled.
    bool later_seen = false;
    std::map<std::string, int64_t> deepest_started;  // by workload
    for (const Task& task : queue) {
      const RunSpec& run = *task.state->run;
      if (task.process > 0) {
        later_seen = true;
        continue;
      }
      EXPECT_FALSE(later_seen) << name << ": " << run.run_id << " p0 after a later process";
      const std::string workload = TuningWorkload(run, "fp32", 2);
      const auto started = deepest_started.find(workload);
      if (started == deepest_started.end()) {
        // The workload's first run to start: depth 1, and the estimate's tuning run.
        EXPECT_EQ(run.model.depth, 1) << name << ": " << run.run_id;
        EXPECT_GT(cost_of[run.run_id]->tuning_s, 0.0) << name << ": " << run.run_id;
        deepest_started[workload] = run.model.depth;
      } else {
        EXPECT_GT(run.model.depth, started->second) << name << ": " << run.run_id;
        EXPECT_EQ(cost_of[run.run_id]->tuning_s, 0.0) << name << ": " << run.run_id;
        started->second = run.model.depth;
      }
    }
    // widths x batch sizes
    EXPECT_EQ(deepest_started.size(), e.widths.size() * e.batch_sizes.size()) << name;
  }
}

}  // namespace
}  // namespace ngraphbench
