// End to end with the `null` compiler: bad input exits 2 and changes nothing, a results tree that
// cannot be written exits 3, device labels stay inside the results (pipeline_fixture.h).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "integration/pipeline_fixture.h"

namespace ngraphbench {
namespace {

TEST_F(Pipeline, BadInputExitsTwoAndChangesNothing) {
  ASSERT_EQ(Ngb("run tiny null " + Common()).code, 0);
  const auto before = Snapshot(dir_ / "results");
  auto expect_bad = [&](const std::string& args, const std::string& message) {
    const Result r = Ngb(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
    EXPECT_EQ(Snapshot(dir_ / "results"), before) << args;
  };
  expect_bad("run nope null " + Common(), "unknown experiment 'nope'");
  expect_bad("run tiny tensorflow " + Common(), "unknown compiler 'tensorflow'");
  expect_bad("run tiny null --bogus-flag " + Common(), "bogus-flag");
  expect_bad("run tiny null --set thread=1 " + Common(), "--set 'thread=1': 'thread' is not a known key");
  expect_bad("run tiny null --set threads=x " + Common(), "--set: 'threads' must be an integer, got 'x'");
  expect_bad("run tiny null --set options.sleep_us=fast " + Common(),
             "--set: 'options.sleep_us' must be an integer");
  expect_bad("run tiny null --set tvm.threads=1 " + Common(), "is for compiler tvm, which this");

  std::ofstream(dir_ / "configs" / "null.yaml") << "options:\n  sleep_us: fast\n";
  expect_bad("run tiny null " + Common(), "options.sleep_us' must be an integer");
  std::ofstream(dir_ / "configs" / "null.yaml") << "treads: 2\n";
  expect_bad("run tiny null " + Common(), "'treads' is not a known key");
  WriteNull("");

  std::ofstream(dir_ / "configs" / "experiments.yaml", std::ios::app)
      << "  broken:\n    family: linear\n    widths: [0]\n";
  expect_bad("run tiny null " + Common(), "experiments.broken.widths[0]' must be >= 1");
  WriteExperiments(20, 5);

  const std::string corrupt = (dir_ / "corrupt.onnx").string();
  std::ofstream(corrupt) << "definitely not protobuf";
  expect_bad("run " + corrupt + " null " + Common(), "is not an ONNX model");
  expect_bad("run " + (dir_ / "missing.onnx").string() + " null " + Common(), "does not exist");

  // Named pipes: opening one for reading would wait for a writer forever.
  const fs::path fifo_model = dir_ / "pipe.onnx", fifo_factory = dir_ / "pipe.py";
  ASSERT_EQ(::mkfifo(fifo_model.c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo(fifo_factory.c_str(), 0600), 0);
  expect_bad("run " + fifo_model.string() + " null " + Common(),
             "'" + fifo_model.string() + "' is not a regular file");
  expect_bad("run " + fifo_factory.string() + ":make_model null --input-shape 3,8,8 " + Common(),
             "'" + fifo_factory.string() + "' is not a regular file");
  for (const std::string name : {"experiments.yaml", "null.yaml"}) {
    const fs::path config = dir_ / "configs" / name;
    fs::remove(config);
    ASSERT_EQ(::mkfifo(config.c_str(), 0600), 0);
    expect_bad("run tiny null " + Common(), "'" + config.string() + "' is not a regular file");
    fs::remove(config);
  }
}

// A model file whose name holds terminal control sequences (retitle the window, red text, the
// bell): what `run` prints shows them as bytes, never sends them to the terminal, in its progress
// lines and in its error messages alike.
TEST_F(Pipeline, ControlSequencesInNamesNeverReachTheTerminal) {
  const std::string name = "evil\x1b]0;pwned\x07\x1b[31mred";
  const fs::path model = dir_ / (name + ".onnx");
  fs::copy_file(fs::path(NGB_SOURCE_DIR) / "fuzz" / "corpus" / "onnx" / "conv2d_w16.onnx", model);
  const auto quoted = [](const fs::path& path) { return "'" + path.string() + "'"; };
  const Result ok = Ngb("run " + quoted(model) + " null --quick " + Common());
  ASSERT_EQ(ok.code, 0) << ok.output;
  const Result missing =
      Ngb("run " + quoted(dir_ / (name + "_missing.onnx")) + " null " + Common());
  EXPECT_EQ(missing.code, 2) << missing.output;
  EXPECT_NE(missing.output.find("does not exist"), std::string::npos) << missing.output;
  for (const Result& r : {ok, missing}) {
    EXPECT_EQ(r.output.find_first_of("\x1b\x07"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("evil\\x1b]0;pwned\\x07\\x1b[31mred"), std::string::npos)
        << r.output;
  }
  EXPECT_EQ(Row("evil__0_pwned___31mred_b1").status, kStatusOk);
}

TEST_F(Pipeline, AResultsTreeThatCannotBeWrittenExitsThree) {
  std::ofstream(dir_ / "not_a_dir") << "a file";
  const Result r = Ngb("run tiny null --configs " + (dir_ / "configs").string() + " --results " +
                       (dir_ / "not_a_dir" / "results").string());
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("not_a_dir"), std::string::npos) << r.output;
}

TEST_F(Pipeline, DeviceLabelsStayInsideResultsAndWorkerLogsStayOutOfTmp) {
  // A label is one plain path component: '../escape' wrote outside --results, and '', '.' and
  // 'a/b' wrote rows that analyze cannot find.
  for (const std::string label : {"../escape", "''", ".", ".hidden", "a/b"}) {
    const Result r = Ngb("run tiny null " + Common() + " --device " + label);
    EXPECT_EQ(r.code, 2) << label << "\n" << r.output;
    EXPECT_NE(r.output.find("is not a valid device label"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("[A-Za-z0-9._-]+"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "escape")) << label;
    EXPECT_FALSE(fs::exists(dir_ / "results")) << label;
  }

  // Worker logs live in <results>/.tmp while a worker runs and are removed after it; none is
  // made in /tmp, where a killed scheduler used to leave them.
  auto tmp_logs = [] {
    std::set<std::string> logs;
    for (const auto& e : fs::directory_iterator("/tmp")) {
      const std::string name = e.path().filename().string();
      if (name.rfind("ngraphbench-worker-", 0) == 0 || name.rfind("worker-", 0) == 0) {
        logs.insert(name);
      }
    }
    return logs;
  };
  const std::set<std::string> before = tmp_logs();
  const Result r = Ngb("run tiny null " + Common() + " --device node-1.gpu_a");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir_ / "results" / "node-1.gpu_a" / "null"));
  EXPECT_EQ(tmp_logs(), before);
  ASSERT_TRUE(fs::is_directory(dir_ / "results" / ".tmp"));
  EXPECT_TRUE(fs::is_empty(dir_ / "results" / ".tmp"));
}

// A model file whose shapes no run could hold, or whose nodes disagree with their weights, is
// refused before anything is written (exit 2), the refusal naming the tensor or node; what the
// estimate cannot see is caught by the worker's memory limit, as an `error` row naming memory.
TEST_F(Pipeline, ModelsBeyondMemoryAreRefusedAndAWorkerOverItsLimitWritesAnErrorRow) {
  const fs::path hostile = fs::path(NGB_SOURCE_DIR) / "fuzz" / "regressions" / "onnx";
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"input_batch_2e32.onnx", "has a batch size of 4294967296; the most is 65536"},
      {"input_working_set_1tib.onnx", "needs at least 1049601 MiB of memory"},
      {"conv_kernel_shape_3x3_weight_5x5.onnx", "has kernel_shape 3x3 but a weight of 16x16x5x5"},
  };
  for (const auto& [file, message] : refused) {
    const Result r = Ngb("run " + (hostile / file).string() + " null --quick " + Common());
    EXPECT_EQ(r.code, 2) << file << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << file << "\n" << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "results")) << file;
  }

  // 1 GiB taken by the compiler, under a limit of 3 x 64 MiB; the models' own estimate is far
  // below the ceiling.
  WriteNull("  alloc_mb: 1024\n");
  ::setenv("NGRAPHBENCH_MAX_WORKING_SET_MB", "64", 1);
  const Result r = Ngb("run tiny null --quick " + Common() + " --processes 1");
  ::unsetenv("NGRAPHBENCH_MAX_WORKING_SET_MB");
  EXPECT_EQ(r.code, 1) << r.output;
  for (const std::string id : {"tiny_w8_b1", "tiny_w16_b1"}) {
    const ResultRow row = Row(id);
    EXPECT_EQ(row.status, "error") << id;
    EXPECT_NE(row.error.find("out of memory: the worker reached its memory limit of 192 MiB"),
              std::string::npos)
        << row.error;
  }
}

}  // namespace
}  // namespace ngraphbench
