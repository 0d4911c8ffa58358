// The order in which a sweep starts its processes (QueueProcesses, QueueAnotherProcess): runs
// alternate window by window, and as tuning needs it: a run's first process compiles (and tunes)
// before its later ones load the compile cache, and of the runs that share a tuning workload the
// first to start is the shallowest, the one the estimate charges the tuning to.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ngraphbench/experiments/estimate.h"
#include "ngraphbench/experiments/grid.h"
#include "ngraphbench/measure/repeat.h"
#include "ngraphbench/runner/plan.h"

namespace ngraphbench {
namespace {

std::deque<Task> Queue(const std::vector<RunSpec>& runs, Plan& plan, std::deque<RunState>& states,
                       size_t window = QueueWindow(1)) {
  plan.dir = NGB_BINARY_DIR "/queue_test_no_such_dir";  // no parts on disk
  for (const RunSpec& run : runs) {
    RunState st;
    st.plan = &plan;
    st.run = &run;
    states.push_back(std::move(st));
  }
  Resumed resumed;
  return QueueProcesses(states, window, &resumed);
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

    // A run's first process comes before its later ones: the first process of a run that tunes
    // holds the tuning, its later ones load the library it compiled.
    std::set<const RunState*> first_started;
    std::map<std::string, int64_t> deepest_started;  // by workload
    for (const Task& task : queue) {
      const RunSpec& run = *task.state->run;
      if (task.process > 0) {
        EXPECT_TRUE(first_started.count(task.state))
            << name << ": " << run.run_id << " p" << task.process << " before p0";
        continue;
      }
      first_started.insert(task.state);
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

// The runs take turns window by window: whole models, joined until a window has 8 runs or more
// (a shorter last window joining the one before), each window's runs in rounds (every run's
// first process, then every run's second, ...), so that a run's processes are a window's runs
// apart, not a whole sweep apart.
TEST(Queue, RunsAlternateWindowByWindowOfWholeModels) {
  const ExperimentsFile file = LoadExperiments(NGB_SOURCE_DIR "/configs/experiments.yaml");
  ExperimentConfig e = file.Find("conv_blocks");
  e.processes = 3;
  const std::vector<RunSpec> grid = ExpandGrid(e, /*quick=*/false);
  ASSERT_EQ(grid[13].run_id, "conv_blocks_w16_d2_b64");
  // Each run's positions in the queue, by process.
  const auto positions = [](const std::deque<Task>& queue) {
    std::map<const RunState*, std::vector<size_t>> at;
    for (size_t k = 0; k < queue.size(); ++k) {
      EXPECT_EQ(queue[k].process, static_cast<int>(at[queue[k].state].size()));
      at[queue[k].state].push_back(k);
    }
    return at;
  };
  // w16 at depths 1, 2, 4 and 8, 7 batch sizes each: d1's 7 runs are fewer than 8, so d2's join
  // them (14 runs, 42 processes), and d4's and d8's make the second window.
  std::vector<RunSpec> runs(grid.begin(), grid.begin() + 28);
  Plan plan;
  std::deque<RunState> states;
  auto at = positions(Queue(runs, plan, states, /*window=*/8));
  for (size_t i = 0; i < runs.size(); ++i) {
    ASSERT_EQ(at[&states[i]].size(), 3u) << runs[i].run_id;
    for (size_t p = 0; p < 3; ++p) {
      EXPECT_EQ(at[&states[i]][p], i / 14 * 42 + p * 14 + i % 14) << runs[i].run_id;
    }
  }
  // Six runs of d4 after d1 and d2: too few for a window of their own, they join the first.
  runs.resize(20);
  states.clear();
  at = positions(Queue(runs, plan, states, /*window=*/8));
  for (size_t i = 0; i < runs.size(); ++i) {
    for (size_t p = 0; p < 3; ++p) EXPECT_EQ(at[&states[i]][p], p * 20 + i) << runs[i].run_id;
  }
  EXPECT_EQ(QueueWindow(1), 8u);
  EXPECT_EQ(QueueWindow(2), 16u);

  // Two compilers: a model's runs of both share its window (14 runs, enough on their own), the
  // compilers alternating run by run, so that analyze pairs their processes by pass.
  runs.resize(14);
  Plan other;
  other.dir = plan.dir;  // no parts on disk
  std::deque<RunState> both;
  for (Plan* p : {&plan, &other}) {
    for (const RunSpec& run : runs) {
      RunState st;
      st.plan = p;
      st.run = &run;
      both.push_back(std::move(st));
    }
  }
  Resumed resumed;
  const std::deque<Task> two = QueueProcesses(both, 8, &resumed);
  ASSERT_EQ(two.size(), 84u);
  for (size_t k = 0; k < two.size(); ++k) {
    const RunSpec& run = *two[k].state->run;
    EXPECT_EQ(run.model.name, k < 42 ? "conv_blocks_w16_d1" : "conv_blocks_w16_d2") << k;
  }
  EXPECT_EQ(two[0].state->run, two[1].state->run);  // d1_b1, first compiler then second
  EXPECT_NE(two[0].state->plan, two[1].state->plan);
}

// A run given another process (stop ci) measures it among the runs beside it: `window` - 1
// processes from the front, or last in a shorter queue.
TEST(Queue, AnotherProcessWaitsForTheWindowNotTheSweep) {
  std::vector<RunSpec> runs(12);
  for (size_t i = 0; i < runs.size(); ++i) runs[i].model.name = "m" + std::to_string(i);
  std::deque<RunState> states(12);
  for (size_t i = 0; i < states.size(); ++i) states[i].run = &runs[i];
  std::deque<Task> queue;
  for (size_t i = 0; i < 10; ++i) queue.push_back({&states[i], 0});
  QueueAnotherProcess(queue, {&states[10], 3}, 8);
  ASSERT_EQ(queue.size(), 11u);
  EXPECT_EQ(queue[7].state, &states[10]);
  EXPECT_EQ(queue[7].process, 3);
  EXPECT_EQ(queue[8].state, &states[7]);
  queue.resize(3);
  QueueAnotherProcess(queue, {&states[11], 4}, 8);
  ASSERT_EQ(queue.size(), 4u);
  EXPECT_EQ(queue.back().state, &states[11]);
  QueueAnotherProcess(queue, {&states[10], 5}, 1);
  EXPECT_EQ(queue.front().process, 5);
  // Not before a lower process of a run of the same model: m9's process 0 is 9th, so m9's
  // other run's process 1 goes after it rather than 7th.
  runs[11].model.name = "m9";
  queue.clear();
  for (size_t i = 0; i < 10; ++i) queue.push_back({&states[i], 0});
  QueueAnotherProcess(queue, {&states[11], 1}, 8);
  EXPECT_EQ(queue[10].state, &states[11]);
}

// However many processes each run turns out to need, the runs of a model stay paired by pass
// (analyze's test, ProcessesPairedInTime): the runs of conv2d --quick, one process at a time, a
// run given another process as long as it needs more, as the collector does.
TEST(Queue, ARunsExtraProcessesKeepItsModelsRunsPairedByPass) {
  const ExperimentsFile file = LoadExperiments(NGB_SOURCE_DIR "/configs/experiments.yaml");
  ExperimentConfig e = file.Find("conv2d");
  e.processes = 3;
  const std::vector<RunSpec> runs = ExpandGrid(e, /*quick=*/true);
  ASSERT_EQ(runs.size(), 10u);
  // Processes each run needs, in grid order (w16_b1, w16_b8, w32_b1, ...): first a case that
  // unpaired w256's runs when a process was queued 7 from the front whatever was queued behind
  // (b1's fourth before b8's third), then 200 drawn at random.
  std::vector<std::vector<size_t>> cases = {{10, 6, 8, 6, 6, 10, 7, 3, 9, 4}};
  std::mt19937 draw(44);
  std::uniform_int_distribution<size_t> processes(3, 10);
  while (cases.size() < 201) {
    cases.emplace_back();
    for (size_t i = 0; i < runs.size(); ++i) cases.back().push_back(processes(draw));
  }
  for (const std::vector<size_t>& need : cases) {
    SCOPED_TRACE("processes needed " + ::testing::PrintToString(need));
    Plan plan;
    std::deque<RunState> states;
    std::deque<Task> queue = Queue(runs, plan, states);
    std::map<const RunState*, std::vector<double>> ends;
    for (double t = 0; !queue.empty(); ++t) {
      const Task task = queue.front();
      queue.pop_front();
      RunState& st = *task.state;
      st.queued--;
      std::vector<double>& mine = ends[&st];
      ASSERT_EQ(mine.size(), static_cast<size_t>(task.process)) << st.run->run_id;
      mine.push_back(t);
      if (st.queued == 0 && mine.size() < need[static_cast<size_t>(st.run - runs.data())]) {
        QueueAnotherProcess(queue, {&st, static_cast<int>(mine.size())}, 8);
        st.queued++;
      }
    }
    for (size_t i = 0; i < runs.size(); ++i) {
      ASSERT_EQ(ends[&states[i]].size(), need[i]) << runs[i].run_id;
      for (size_t j = i + 1; j < runs.size(); ++j) {
        if (runs[i].model.name != runs[j].model.name) continue;
        EXPECT_TRUE(ProcessesPairedInTime(ends[&states[i]], ends[&states[j]]))
            << runs[i].run_id << " and " << runs[j].run_id;
      }
    }
  }
}

}  // namespace
}  // namespace ngraphbench
