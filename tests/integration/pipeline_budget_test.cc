// `run --budget` and `run --runs` end to end through the real scheduler with the `null`
// compiler (the fixture: pipeline_fixture.h): a budget measures the runs that fit and names the
// others, a larger one measures the rest and nothing twice, and bad input writes nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "integration/pipeline_fixture.h"

namespace ngraphbench {
namespace {

// tiny's runs in the budget's order (experiments/budget.h): both widths at batch 1, then at the
// largest batch, 4, then at the middle one, 2.
const std::vector<std::string> kBudgetOrder = {"tiny_w8_b1", "tiny_w16_b1", "tiny_w8_b4",
                                               "tiny_w16_b4", "tiny_w8_b2", "tiny_w16_b2"};

class Budget : public Pipeline {
 protected:
  // Each run's estimate as `expand --estimate` prints it (nothing measured yet: the prior).
  std::map<std::string, double> Estimates() const {
    const Result r = Ngb("expand tiny --estimate --compiler null " + Common());
    EXPECT_EQ(r.code, 0) << r.output;
    std::map<std::string, double> seconds;
    std::istringstream lines(r.output);
    std::string line;
    std::getline(lines, line);  // the header
    for (std::string id; lines >> id && id != "total:";) {
      lines >> seconds[id];
      std::getline(lines, line);
    }
    return seconds;
  }
};

TEST_F(Budget, MeasuresWhatFitsThenALargerBudgetTheRestAndNothingTwice) {
  const std::map<std::string, double> estimates = Estimates();
  ASSERT_EQ(estimates.size(), 6u);
  double first_three = 0;
  for (size_t i = 0; i < 3; ++i) first_three += estimates.at(kBudgetOrder[i]);
  // A budget between the first three runs' estimates and the first four's.
  const double budget = std::floor(first_three + 0.5 * estimates.at(kBudgetOrder[3]));
  ASSERT_LT(first_three, budget);
  const std::string budget_arg = std::to_string(static_cast<int>(budget)) + "s";

  const Result first = Ngb("run tiny null --budget " + budget_arg + " " + Common());
  ASSERT_EQ(first.code, 0) << first.output;
  const std::set<std::string> fitted(kBudgetOrder.begin(), kBudgetOrder.begin() + 3);
  EXPECT_EQ(Rows(), fitted) << first.output;
  EXPECT_EQ(WrittenRows(first.output),
            std::multiset<std::string>(fitted.begin(), fitted.end()));
  // Said before anything ran: what fits, what does not, and which runs those are.
  const size_t said = first.output.find("3 of the 6 runs left to measure fit a budget of");
  ASSERT_NE(said, std::string::npos) << first.output;
  EXPECT_LT(said, first.output.find("[ 1/"));
  EXPECT_NE(first.output.find("3 do not ("), std::string::npos) << first.output;
  EXPECT_NE(first.output.find("left out: tiny_w16_b4, tiny_w8_b2, tiny_w16_b2"),
            std::string::npos)
      << first.output;

  // A larger budget continues where the first stopped: the kept rows are not touched.
  std::map<std::string, std::string> kept;
  for (const auto& [path, content] : Snapshot(RunDir())) {
    if (path.find("/.") == std::string::npos) kept[path] = content;
  }
  const Result second = Ngb("run tiny null --budget 10h " + Common());
  ASSERT_EQ(second.code, 0) << second.output;
  EXPECT_NE(second.output.find("3 of the 3 runs left to measure fit"), std::string::npos)
      << second.output;
  EXPECT_EQ(WrittenRows(second.output),
            (std::multiset<std::string>{"tiny_w16_b4", "tiny_w8_b2", "tiny_w16_b2"}));
  EXPECT_EQ(Rows().size(), 6u);
  const auto after = Snapshot(RunDir());
  for (const auto& [path, content] : kept) EXPECT_EQ(after.at(path), content) << path;

  // Everything measured: a budget finds nothing left and writes nothing.
  const auto before = Snapshot(dir_ / "results");
  const Result third = Ngb("run tiny null --budget 1s " + Common());
  EXPECT_EQ(third.code, 0) << third.output;
  EXPECT_NE(third.output.find("nothing is left to measure"), std::string::npos) << third.output;
  EXPECT_TRUE(WrittenRows(third.output).empty());
  EXPECT_EQ(Snapshot(dir_ / "results"), before);
}

TEST_F(Budget, ABudgetThatFitsNoRunSaysSoAndRunsNothing) {
  const Result r = Ngb("run tiny null --budget 0s " + Common());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("fits none of the 6 runs left to measure: the first of them, "
                          "tiny_w8_b1, is estimated at"),
            std::string::npos)
      << r.output;
  EXPECT_TRUE(Rows().empty());
}

TEST_F(Budget, BadDurationsAreRefusedNamingTheForm) {
  for (const std::string bad : {"12", "1m1h", "soon"}) {
    const Result r = Ngb("run tiny null --budget " + bad + " " + Common());
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("--budget '" + bad + "': expected a duration"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("1h30m"), std::string::npos) << r.output;
  }
  EXPECT_FALSE(fs::exists(dir_ / "results")) << "bad input wrote something";
}

TEST_F(Budget, RunsRestrictsTheGridAndRefusesIdsNotInIt) {
  const Result unknown = Ngb("run tiny null --runs tiny_w8_b1,tiny_w99_b1 " + Common());
  EXPECT_EQ(unknown.code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("'tiny_w99_b1'"), std::string::npos) << unknown.output;
  EXPECT_NE(unknown.output.find("`ngraphbench expand tiny` lists its runs"), std::string::npos)
      << unknown.output;
  EXPECT_FALSE(fs::exists(dir_ / "results")) << "bad input wrote something";
  // A --quick grid has only batch size 1: a run of the full grid is not in it.
  const Result quick = Ngb("run tiny null --quick --runs tiny_w8_b2 " + Common());
  EXPECT_EQ(quick.code, 2) << quick.output;
  EXPECT_NE(quick.output.find("`ngraphbench expand tiny --quick`"), std::string::npos)
      << quick.output;

  const Result listed = Ngb("run tiny null --runs tiny_w16_b2,tiny_w8_b4 " + Common());
  ASSERT_EQ(listed.code, 0) << listed.output;
  EXPECT_EQ(Rows(), (std::set<std::string>{"tiny_w16_b2", "tiny_w8_b4"}));

  const fs::path file = dir_ / "runs.txt";
  std::ofstream(file) << "# one id a line\ntiny_w8_b1\ntiny_w8_b4\n";
  const Result from_file = Ngb("run tiny null --runs @" + file.string() + " " + Common());
  ASSERT_EQ(from_file.code, 0) << from_file.output;
  EXPECT_EQ(WrittenRows(from_file.output), std::multiset<std::string>{"tiny_w8_b1"});
  EXPECT_NE(from_file.output.find("2 runs, 1 to run, 1 kept"), std::string::npos)
      << from_file.output;
}

// A --quick row is no estimate of its full run: the full run measures again (its config_hash
// differs), at its own time caps and with its tuning. The estimate scales from the quick row
// as from the same model at its batch size, and `--quick` itself still counts it as measured.
TEST_F(Budget, EstimateScalesFromAQuickRowWithoutCountingItMeasured) {
  const Result quick = Ngb("run tiny null --quick --runs tiny_w8_b1 " + Common());
  ASSERT_EQ(quick.code, 0) << quick.output;
  const Result full = Ngb("expand tiny --estimate --compiler null " + Common());
  ASSERT_EQ(full.code, 0) << full.output;
  EXPECT_NE(full.output.find("scaled from tiny_w8_b1 (measured with other settings)"),
            std::string::npos)
      << full.output;
  EXPECT_NE(full.output.find("(0 measured, 6 scaled from rows of null"), std::string::npos)
      << full.output;
  const Result again = Ngb("expand tiny --quick --estimate --compiler null " + Common());
  ASSERT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find("(1 measured, 1 scaled from rows of null"), std::string::npos)
      << again.output;
}

}  // namespace
}  // namespace ngraphbench
