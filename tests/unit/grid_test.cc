#include "ngraphbench/experiments/grid.h"

#include <gtest/gtest.h>

#include <set>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"

namespace ngraphbench {
namespace {

ExperimentsFile Shipped() { return LoadExperiments(NGB_SOURCE_DIR "/configs/experiments.yaml"); }

TEST(Grid, ShippedExperimentsHaveTheDocumentedSizes) {
  const ExperimentsFile file = Shipped();
  // widths x depths x 7 batch sizes; --quick keeps batch sizes 1 and 8.
  EXPECT_EQ(ExpandGrid(file.Find("conv_blocks"), false).size(), 5u * 5u * 7u);
  EXPECT_EQ(ExpandGrid(file.Find("conv_blocks"), true).size(), 5u * 5u * 2u);
  EXPECT_EQ(ExpandGrid(file.Find("mha_blocks"), false).size(), 175u);
  EXPECT_EQ(ExpandGrid(file.Find("conv2d"), true).size(), 10u);
  EXPECT_EQ(ExpandGrid(file.Find("fully_connected"), false).size(), 35u);
  EXPECT_EQ(ExpandGrid(file.Find("self_attention"), true).size(), 10u);
}

TEST(Grid, OrderIsWidthThenDepthThenBatch) {
  const auto runs = ExpandGrid(Shipped().Find("conv_blocks"), true);
  const std::vector<std::string> first = {"conv_blocks_w16_d1_b1", "conv_blocks_w16_d1_b8",
                                          "conv_blocks_w16_d2_b1", "conv_blocks_w16_d2_b8"};
  for (size_t i = 0; i < first.size(); ++i) EXPECT_EQ(runs[i].run_id, first[i]);
  EXPECT_EQ(runs[10].run_id, "conv_blocks_w32_d1_b1");
  EXPECT_EQ(runs.back().run_id, "conv_blocks_w256_d16_b8");
  EXPECT_EQ(runs.back().model.width, 256);
  EXPECT_EQ(runs.back().model.depth, 16);
  EXPECT_EQ(runs.back().batch_size, 8);
}

// A run id names files and stands on printed command lines: one derived from a model file's
// name keeps only safe characters, while the row's model keeps the name as it was.
TEST(Grid, RunIdsFromFileNamesKeepOnlySafeCharacters) {
  ExperimentConfig e = Shipped().Find("conv2d");
  e.name = "mine";
  e.family = "onnx";
  e.models = {"/data/m;$(touch x)`id` é.onnx", "/data/-rf.onnx"};
  const auto runs = ExpandGrid(e, true);
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[0].run_id, "m___touch_x__id_____b1");  // é is two bytes
  EXPECT_EQ(runs[0].model.name, "m;$(touch x)`id` é");
  EXPECT_EQ(runs[2].run_id, "_rf_b1");  // never read as an option

  // Two files of one name, or names alike but for characters a run id leaves out, would write
  // one row: refused, naming both.
  for (const std::vector<std::string>& models :
       {std::vector<std::string>{"/a/m.onnx", "/b/m.onnx"},
        std::vector<std::string>{"/a/m x.onnx", "/a/m_x.onnx"}}) {
    e.models = models;
    try {
      ExpandGrid(e, true);
      ADD_FAILURE() << models[0] << " and " << models[1] << " expanded";
    } catch (const InputError& error) {
      const std::string what = error.what();
      EXPECT_NE(what.find("models '" + models[0] + "' and '" + models[1] + "' would both be run"),
                std::string::npos)
          << what;
    }
  }
}

TEST(Grid, RunIdsAreUniqueAcrossAllExperiments) {
  std::set<std::string> ids;
  size_t total = 0;
  for (const auto& e : Shipped().experiments) {
    for (const auto& run : ExpandGrid(e, false)) {
      ids.insert(run.run_id);
      ++total;
    }
  }
  EXPECT_EQ(ids.size(), total);
}

TEST(Grid, CarriesRunSettings) {
  ExperimentConfig e;
  e.name = "fc";
  e.family = "linear";
  e.widths = {3, 5};
  e.batch_sizes = {4, 2};
  e.quick_batch_sizes = {2};
  e.warmup = 1;
  e.repeats = 7;
  e.timeout_s = 9;
  e.timing_boundary = "end_to_end";
  e.max_time_s = 30;
  e.quick_max_time_s = 2;
  const auto runs = ExpandGrid(e, false);
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[0].run_id, "fc_w3_b4");  // batch sizes keep the listed order
  EXPECT_EQ(runs[1].run_id, "fc_w3_b2");
  EXPECT_EQ(runs[3].run_id, "fc_w5_b2");
  EXPECT_EQ(runs[3].repeats, 7);
  EXPECT_EQ(runs[3].timing_boundary, "end_to_end");
  EXPECT_EQ(runs[3].max_time_s, 30);
  const auto quick = ExpandGrid(e, true);
  ASSERT_EQ(quick.size(), 2u);
  EXPECT_EQ(quick[0].max_time_s, 2);  // --quick is a smoke run: a shorter cap
  EXPECT_EQ(quick[0].repeats, 7);
  EXPECT_EQ(runs[0].scenario, "single_stream");
  EXPECT_EQ(runs[0].streams, 1);
}

// Offline runs are named apart from the same model's single-stream runs, so that both kinds of
// row live in one folder and each resumes on its own.
TEST(Grid, OfflineRunIdsNameTheScenarioAndStreams) {
  ExperimentConfig e;
  e.name = "fc";
  e.family = "linear";
  e.widths = {3};
  e.batch_sizes = {1};
  e.scenario = "offline";
  e.streams = 2;
  auto runs = ExpandGrid(e, false);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].run_id, "fc_w3_b1_offline_s2");
  EXPECT_EQ(runs[0].scenario, "offline");
  EXPECT_EQ(runs[0].streams, 2);
  e.streams = 0;
  EXPECT_EQ(ExpandGrid(e, false)[0].run_id, "fc_w3_b1_offline_sauto");
}

// Server runs name their streams and rate ('.' as 'p'), or _peak for find_peak, and carry the
// server settings.
TEST(Grid, ServerRunIdsNameTheStreamsAndTheRateOrThePeak) {
  ExperimentConfig e;
  e.name = "fc";
  e.family = "linear";
  e.widths = {3};
  e.batch_sizes = {1};
  e.scenario = "server";
  e.streams = 2;
  e.server.target_qps = 12.5;
  e.server.latency_bound_ms = 50;
  auto runs = ExpandGrid(e, false);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].run_id, "fc_w3_b1_server_s2_q12p5");
  EXPECT_EQ(runs[0].scenario, "server");
  EXPECT_EQ(runs[0].server.target_qps, 12.5);
  EXPECT_EQ(runs[0].server.latency_bound_ms, 50);
  e.server.target_qps = 20;
  EXPECT_EQ(ExpandGrid(e, false)[0].run_id, "fc_w3_b1_server_s2_q20");
  e.server.find_peak = true;
  e.streams = 0;
  EXPECT_EQ(ExpandGrid(e, false)[0].run_id, "fc_w3_b1_server_sauto_peak");
}

// A run id carries the precision when it is not fp32; the seeds' id is the id without it.
TEST(Grid, RunIdsCarryThePrecisionButFp32) {
  auto runs = ExpandGrid(Shipped().Find("conv_blocks"), true);
  auto int8 = runs;
  SetRunPrecision(int8, "int8");
  EXPECT_EQ(int8[0].run_id, "conv_blocks_w16_d1_b1_int8");
  auto fp32 = runs;
  SetRunPrecision(fp32, "fp32");
  EXPECT_EQ(fp32[0].run_id, "conv_blocks_w16_d1_b1");
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(SeedRunId(int8[i].run_id), runs[i].run_id);
    EXPECT_EQ(SeedRunId(fp32[i].run_id), runs[i].run_id);
  }
  EXPECT_EQ(PrecisionRunIdSuffix("bf16"), "_bf16");
  EXPECT_EQ(PrecisionRunIdSuffix("fp16"), "_fp16");
  EXPECT_EQ(SeedRunId("fc_w3_b1_offline_s4_bf16"), "fc_w3_b1_offline_s4");
  EXPECT_EQ(SeedRunId("fc_w3_b1_server_sauto_peak_fp16"), "fc_w3_b1_server_sauto_peak");
  // A model whose name ends in a precision keeps it: the grid's id ends in its batch size.
  EXPECT_EQ(SeedRunId("resnet_int8_b1"), "resnet_int8_b1");
  EXPECT_THROW(PrecisionRunIdSuffix("fp8"), InputError);
}

// Every precision a compiler lists has its run id suffix: a new one must be added to
// kRunIdPrecisions (and SeedRunId strips it), or its runs would share the fp32 ids' files.
TEST(Grid, EveryCompilersPrecisionHasARunIdSuffix) {
  for (const CompilerInfo& info : AllCompilers()) {
    for (const std::string& precision : info.precisions) {
      EXPECT_NO_THROW(PrecisionRunIdSuffix(precision)) << info.name << " " << precision;
    }
  }
}

}  // namespace
}  // namespace ngraphbench
