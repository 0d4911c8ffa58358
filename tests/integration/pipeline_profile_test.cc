// The profiling pass through the real scheduler and worker processes (pipeline_fixture.h), with
// the `null` compiler's profile (one kernel per graph node and one of its own): the row's
// profile columns, the `<run_id>.profile.csv` beside it, `ngraphbench profile`, `analyze`'s
// profile tables, a profile that fails, and a resume that changes `profile`.
#include <algorithm>
#include <fstream>
#include <sstream>

#include "integration/pipeline_fixture.h"
#include "ngraphbench/profile/profile.h"

namespace ngraphbench {
namespace {

class Profiles : public Pipeline {
 protected:
  std::string ReadText(const fs::path& path) const {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
};

TEST_F(Profiles, ARunWithProfileHasItsKernelsBesideItsRow) {
  std::ofstream(dir_ / "configs" / "null.yaml") << "options:\n  sleep_us: 3000\n";
  const Result r = Ngb("run tiny null --quick --profile --processes 2 " + Common());
  ASSERT_EQ(r.code, 0) << r.output;
  for (const std::string id : {"tiny_w8_b1", "tiny_w16_b1"}) {
    const ResultRow row = Row(id);
    EXPECT_EQ(row.status, "ok") << row.error;
    EXPECT_EQ(row.profiler, "null");
    ASSERT_TRUE(row.profile_ir_nodes);
    EXPECT_GT(*row.profile_ir_nodes, 0);
    // One kernel per node and null's own.
    ASSERT_TRUE(row.profile_kernels);
    EXPECT_DOUBLE_EQ(*row.profile_kernels, static_cast<double>(*row.profile_ir_nodes + 1));
    // The kernels share the busy-wait that is also the timed run: about the median.
    ASSERT_TRUE(row.profile_ms && row.latency_p50_ms && row.profile_over_p50);
    EXPECT_NEAR(*row.profile_ms, 3.0, 0.01);
    EXPECT_NEAR(*row.profile_over_p50, *row.profile_ms / *row.latency_p50_ms, 1e-9);
    EXPECT_GT(*row.profile_over_p50, 0.5);
    EXPECT_LE(*row.profile_over_p50, 1.01);
    EXPECT_FALSE(row.profile_top_op.empty());
    const fs::path file = RunDir() / (id + ".profile.csv");
    ASSERT_TRUE(fs::exists(file)) << file;
    const ProfileTable table = ParseProfileCsv(ReadText(file), file.string());
    EXPECT_EQ(table.lines.size(), static_cast<size_t>(*row.profile_ir_nodes + 1));
    size_t known = 0;
    for (const ProfileLine& line : table.lines) known += line.nodes_known;
    EXPECT_EQ(known, static_cast<size_t>(*row.profile_ir_nodes));
  }

  const Result top = Ngb("profile tiny tiny_w16_b1 null --top 1 --results " +
                         (dir_ / "results").string());
  ASSERT_EQ(top.code, 0) << top.output;
  EXPECT_NE(top.output.find("profiler: null"), std::string::npos) << top.output;
  EXPECT_NE(top.output.find("fusion ratio"), std::string::npos) << top.output;
  EXPECT_NE(top.output.find("more kernels"), std::string::npos) << top.output;
  EXPECT_NE(top.output.find("by operator class:"), std::string::npos) << top.output;

  const fs::path out = dir_ / "analysis";
  const Result analyze = Ngb("analyze " + (dir_ / "results").string() + " -o " + out.string());
  ASSERT_EQ(analyze.code, 0) << analyze.output;
  const std::string runs = ReadText(out / "profile_runs.csv");
  EXPECT_NE(runs.find("local,null,tiny,tiny_w8,1,null,"), std::string::npos) << runs;
  EXPECT_NE(runs.find("local,null,tiny,tiny_w16,1,null,"), std::string::npos) << runs;
  EXPECT_TRUE(fs::exists(out / "profile_op_classes.csv"));
  // One compiler: no pair to compare, a header alone.
  const std::string pairs = ReadText(out / "profile_speedup_by_op.csv");
  EXPECT_EQ(std::count(pairs.begin(), pairs.end(), '\n'), 1) << pairs;

  // Without profiling the run's settings differ: with --replace-changed the row and its profile
  // go aside together, and the new row has neither.
  const Result again = Ngb("run tiny null --quick --replace-changed --processes 2 " + Common());
  ASSERT_EQ(again.code, 0) << again.output;
  EXPECT_FALSE(fs::exists(RunDir() / "tiny_w8_b1.profile.csv"));
  EXPECT_TRUE(Row("tiny_w8_b1").profiler.empty());
  size_t aside = 0;
  for (const auto& e : fs::recursive_directory_iterator(RunDir() / ".replaced")) {
    aside += e.path().filename().string().find(".profile.csv") != std::string::npos;
  }
  EXPECT_EQ(aside, 2u);
}

TEST_F(Profiles, AFailedProfileLeavesTheMeasuredRowOk) {
  std::ofstream(dir_ / "configs" / "null.yaml") << "options:\n  profile_fail: 1\n";
  const Result r = Ngb("run tiny null --quick --profile --processes 1 " + Common());
  ASSERT_EQ(r.code, 0) << r.output;
  const ResultRow row = Row("tiny_w8_b1");
  EXPECT_EQ(row.status, "ok");
  EXPECT_TRUE(row.latency_p50_ms.has_value());
  EXPECT_TRUE(row.profiler.empty());
  EXPECT_FALSE(row.profile_kernels.has_value());
  EXPECT_NE(row.notes.find("profile failed: null compiler: asked to fail profiling"),
            std::string::npos)
      << row.notes;
  EXPECT_FALSE(fs::exists(RunDir() / "tiny_w8_b1.profile.csv"));
  const Result top = Ngb("profile tiny tiny_w8_b1 null --results " +
                         (dir_ / "results").string());
  EXPECT_EQ(top.code, 2) << top.output;
  EXPECT_NE(top.output.find("has no profile"), std::string::npos) << top.output;
  EXPECT_NE(top.output.find("--profile"), std::string::npos) << top.output;
}

TEST_F(Profiles, TheProfileCommandNamesWhatIsMissing) {
  const std::string results = " --results " + (dir_ / "results").string();
  Result r = Ngb("profile tiny tiny_w8_b1 null" + results);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("was not measured"), std::string::npos) << r.output;
  ASSERT_EQ(Ngb("run tiny null --quick --processes 1 " + Common()).code, 0);
  r = Ngb("profile many tiny_w8_b1 null" + results);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("of experiment 'tiny', not of 'many'"), std::string::npos) << r.output;
  // Measured without profiling: no file, and the row says nothing of one.
  r = Ngb("profile tiny tiny_w8_b1 null" + results);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("has no profile"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(RunDir() / "tiny_w8_b1.profile.csv"));
}

}  // namespace
}  // namespace ngraphbench
