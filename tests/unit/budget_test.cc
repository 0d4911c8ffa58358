// A sweep cut to a budget (experiments/budget.h): the duration's forms, the order that gives
// every group and curve results first, the prefix that fits, and what is said about it.
#include "ngraphbench/experiments/budget.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "ngraphbench/core/error.h"

namespace ngraphbench {
namespace {

TEST(ParseDuration, TakesHoursMinutesAndSeconds) {
  EXPECT_DOUBLE_EQ(ParseDuration("12h"), 12 * 3600);
  EXPECT_DOUBLE_EQ(ParseDuration("90m"), 90 * 60);
  EXPECT_DOUBLE_EQ(ParseDuration("3600s"), 3600);
  EXPECT_DOUBLE_EQ(ParseDuration("1h30m"), 5400);
  EXPECT_DOUBLE_EQ(ParseDuration("1h0m5s"), 3605);
  EXPECT_DOUBLE_EQ(ParseDuration("1.5h"), 5400);
  EXPECT_DOUBLE_EQ(ParseDuration("0s"), 0);
}

TEST(ParseDuration, RefusesOtherFormsNamingTheRightOnes) {
  for (const std::string bad : {"", "12", "h", "1m1h", "1h1h", "-1h", "1d", "1.2.3h", "1h 30m",
                                "12H", ".h"}) {
    try {
      ParseDuration(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("--budget '" + bad + "'"), std::string::npos) << what;
      EXPECT_NE(what.find("1h30m"), std::string::npos) << what;
    }
  }
}

TEST(SpreadOrder, TakesTheEndsThenHalvesTheGaps) {
  EXPECT_EQ(SpreadOrder(0), std::vector<size_t>{});
  EXPECT_EQ(SpreadOrder(1), std::vector<size_t>{0});
  EXPECT_EQ(SpreadOrder(2), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(SpreadOrder(3), (std::vector<size_t>{0, 2, 1}));
  EXPECT_EQ(SpreadOrder(4), (std::vector<size_t>{0, 3, 1, 2}));
  // Batch sizes 1..64: 1, 64, 8, 2, 16, 4, 32.
  EXPECT_EQ(SpreadOrder(7), (std::vector<size_t>{0, 6, 3, 1, 4, 2, 5}));
}

// "<group>/<curve>/b<batch>" for each index of `order`.
std::vector<std::string> Names(const std::vector<BudgetRun>& runs,
                               const std::vector<size_t>& order) {
  std::vector<std::string> names;
  for (const size_t i : order) {
    names.push_back(runs[i].group + "/" + runs[i].curve + "/b" +
                    std::to_string(runs[i].batch_size));
  }
  return names;
}

// A grid as the experiments expand it: curves outer, batch sizes ascending inner.
std::vector<BudgetRun> Grid(const std::vector<std::string>& groups,
                            const std::vector<std::string>& curves,
                            const std::vector<int64_t>& batches) {
  std::vector<BudgetRun> runs;
  for (const std::string& group : groups) {
    for (const std::string& curve : curves) {
      for (const int64_t b : batches) runs.push_back({group, curve, b});
    }
  }
  return runs;
}

TEST(BudgetOrder, GroupsTakeTurnsAndCurvesGetTheirEndsFirst) {
  const std::vector<BudgetRun> runs = Grid({"ort", "ov"}, {"m1", "m2"}, {1, 2, 4, 8});
  const std::vector<std::string> names = Names(runs, BudgetOrder(runs));
  EXPECT_EQ(names, (std::vector<std::string>{
                       "ort/m1/b1", "ov/m1/b1", "ort/m2/b1", "ov/m2/b1",  // every curve's 1
                       "ort/m1/b8", "ov/m1/b8", "ort/m2/b8", "ov/m2/b8",  // then its largest
                       "ort/m1/b2", "ov/m1/b2", "ort/m2/b2", "ov/m2/b2",  // then the middle
                       "ort/m1/b4", "ov/m1/b4", "ort/m2/b4", "ov/m2/b4"}));
}

TEST(BudgetOrder, AGroupWithFewerRunsDropsOutOfTheTurns) {
  std::vector<BudgetRun> runs = Grid({"a"}, {"m"}, {1, 2, 4});
  runs.push_back({"b", "m", 1});
  EXPECT_EQ(Names(runs, BudgetOrder(runs)),
            (std::vector<std::string>{"a/m/b1", "b/m/b1", "a/m/b4", "a/m/b2"}));
}

TEST(BudgetOrder, CurvesRankTheirOwnBatchSizes) {
  // A curve with batch sizes 1, 8 and one with 1, 2, 4, 8: each one's largest is its second.
  std::vector<BudgetRun> runs = {{"g", "short", 1}, {"g", "short", 8}};
  for (const int64_t b : {1, 2, 4, 8}) runs.push_back({"g", "long", b});
  EXPECT_EQ(Names(runs, BudgetOrder(runs)),
            (std::vector<std::string>{"g/short/b1", "g/long/b1", "g/short/b8", "g/long/b8",
                                      "g/long/b2", "g/long/b4"}));
}

TEST(BudgetOrder, TiesKeepTheOrderGivenAndTheResultIsTheSameEveryTime) {
  // Two runs of one curve at one batch size (e.g. two scenarios folded together): as given.
  const std::vector<BudgetRun> runs = {{"g", "m", 4}, {"g", "m", 1}, {"g", "m", 1}};
  const std::vector<size_t> order = BudgetOrder(runs);
  EXPECT_EQ(order, (std::vector<size_t>{1, 2, 0}));
  EXPECT_EQ(BudgetOrder(runs), order);
  // The grid given in another order of batch sizes orders the same runs the same way.
  std::vector<BudgetRun> grid = Grid({"x", "y"}, {"m"}, {1, 2, 4, 8, 16});
  std::vector<BudgetRun> shuffled(grid.rbegin(), grid.rend());
  std::swap(shuffled[0], shuffled[5]);  // y's first, so that x still appears first
  std::vector<std::string> a = Names(grid, BudgetOrder(grid));
  std::vector<std::string> b = Names(shuffled, BudgetOrder(shuffled));
  EXPECT_EQ(a, b);
}

TEST(CutAtBudget, KeepsTheLongestPrefixThatFits) {
  const std::vector<double> seconds = {10, 20, 30, 5};
  BudgetCut cut = CutAtBudget(seconds, 35);
  EXPECT_EQ(cut.fits, 2u);
  EXPECT_DOUBLE_EQ(cut.fit_s, 30);
  // The 5 s run after the 30 s one that does not fit is not taken: a larger budget later
  // continues this order where it stopped.
  EXPECT_DOUBLE_EQ(cut.left_s, 35);
  EXPECT_EQ(CutAtBudget(seconds, 60).fits, 3u);  // exactly the budget fits
  EXPECT_EQ(CutAtBudget(seconds, 65).fits, 4u);
  EXPECT_EQ(CutAtBudget(seconds, 1e9).fits, 4u);
  EXPECT_EQ(CutAtBudget(seconds, 9.99).fits, 0u);
  EXPECT_EQ(CutAtBudget(seconds, 0).fits, 0u);
  EXPECT_EQ(CutAtBudget({}, 0).fits, 0u);
}

TEST(DescribeCut, SaysWhatFitsAndWhatIsLeftOut) {
  const std::vector<std::string> labels = {"a", "b", "c", "d", "e", "f", "g", "h"};
  const std::vector<double> seconds(8, 1800);
  const std::string text = DescribeCut(CutAtBudget(seconds, 7200), 7200, labels, seconds, 3);
  EXPECT_NE(text.find("4 of the 8 runs left to measure fit a budget of 2.00 h: 2.00 h"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("4 do not (2.00 h estimated), left out: e, f, g, ... and 1 more"),
            std::string::npos)
      << text;
  const std::string all = DescribeCut(CutAtBudget(seconds, 1e6), 1e6, labels, seconds);
  EXPECT_NE(all.find("every run fits"), std::string::npos) << all;
  EXPECT_EQ(DescribeCut(CutAtBudget({}, 0), 0, {}, {}), "nothing is left to measure");
}

TEST(DescribeCut, ABudgetThatFitsNoRunSaysSo) {
  const std::vector<std::string> labels = {"resnet50_b1", "resnet50_b64"};
  const std::vector<double> seconds = {90.5, 300};
  for (const double budget : {0.0, 60.0}) {
    const BudgetCut cut = CutAtBudget(seconds, budget);
    ASSERT_EQ(cut.fits, 0u);
    const std::string text = DescribeCut(cut, budget, labels, seconds);
    EXPECT_NE(text.find("fits none of the 2 runs left to measure"), std::string::npos) << text;
    EXPECT_NE(text.find("resnet50_b1, is estimated at 1.5 min"), std::string::npos) << text;
    EXPECT_NE(text.find("at least 91s"), std::string::npos) << text;
  }
}

TEST(ParseRunIds, TakesAListOrAFile) {
  EXPECT_EQ(ParseRunIds("a_b1,b_b2, a_b1"), (std::vector<std::string>{"a_b1", "b_b2"}));
  const std::string path = ::testing::TempDir() + "/budget_test_runs.txt";
  std::ofstream(path) << "# chosen\nx_b1\n\n  y_b8  \r\n#z_b2\n";
  EXPECT_EQ(ParseRunIds("@" + path), (std::vector<std::string>{"x_b1", "y_b8"}));
  std::filesystem::remove(path);
  EXPECT_THROW(ParseRunIds("@" + path), InputError);
  EXPECT_THROW(ParseRunIds(""), InputError);
  EXPECT_THROW(ParseRunIds(",,"), InputError);
}

}  // namespace
}  // namespace ngraphbench
