// The working-set estimate (graph/working_set.h): what it counts, when values die, and the
// ceilings a model is refused over, each refusal naming the tensor and its shape.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "ngraphbench/core/error.h"
#include "ngraphbench/graph/working_set.h"

namespace ngraphbench {
namespace {

Node Op(const std::string& type, std::vector<std::string> inputs, std::string output) {
  Node n;
  n.op_type = type;
  n.name = output + "_node";
  n.inputs = std::move(inputs);
  n.outputs = {std::move(output)};
  return n;
}

// x [2, 1000] -> a = Relu(x) -> b = Relu(a) -> c = Add(a, b) -> d = Mul(c, w) (output); an
// unread e = Neg(x) beside them. The shapes only: nothing here allocates a tensor's data.
Graph Chain(const Shape& input) {
  Graph g;
  g.name = "chain";
  g.inputs = {{"x", input}};
  Initializer w;
  w.name = "w";
  w.tensor.shape = {input.back()};
  g.initializers.push_back(w);
  Initializer steps;
  steps.name = "steps";
  steps.dtype = DType::kInt64;
  steps.tensor.shape = {4};
  g.initializers.push_back(steps);
  g.nodes = {Op("Relu", {"x"}, "a"), Op("Relu", {"a"}, "b"), Op("Add", {"a", "b"}, "c"),
             Op("Neg", {"x"}, "e"), Op("Mul", {"c", "w"}, "d")};
  for (const char* v : {"x", "a", "b", "c", "d", "e"}) g.value_shapes[v] = input;
  g.value_shapes["w"] = {input.back()};
  g.value_shapes["steps"] = {4};
  g.outputs = {{"d", input}};
  return g;
}

TEST(WorkingSet, CountsConstantsInputsAndTheValuesAliveAtOnce) {
  const WorkingSet ws = EstimateWorkingSet(Chain({2, 1000}));
  EXPECT_EQ(ws.constants_bytes, 4000u + 32u);  // w in float32, steps in int64
  EXPECT_EQ(ws.inputs_bytes, 8000u);
  // a, b and c are alive together at the Add (a and b die after it); then e alone beside c,
  // then c and d: the peak is three values of 8000 bytes.
  EXPECT_EQ(ws.peak_values_bytes, 24000u);
  EXPECT_EQ(ws.total_bytes, 4032u + 8000u + 24000u);
  EXPECT_EQ(ws.largest_bytes, 8000u);
}

TEST(WorkingSet, ShapesBeyondAnyMachineSaturateInsteadOfWrapping) {
  const WorkingSet ws = EstimateWorkingSet(Chain({int64_t{1} << 40, int64_t{1} << 40}));
  EXPECT_EQ(ws.total_bytes, UINT64_MAX);
  EXPECT_EQ(ws.largest_shape, (Shape{int64_t{1} << 40, int64_t{1} << 40}));
}

std::string CheckError(const Graph& g) {
  try {
    CheckWorkingSet(g, "hostile.onnx");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(WorkingSet, InputsAreHeldToTheConfigsCeilings) {
  EXPECT_EQ(CheckError(Chain({2, 1000})), "");
  // As a batch size in an experiment's YAML: at most 65536.
  const std::string batch = CheckError(Chain({4294967296, 16, 56, 56}));
  EXPECT_NE(batch.find("model 'hostile.onnx': input 'x' of shape [4294967296, 16, 56, 56] has "
                       "a batch size of 4294967296; the most is 65536"),
            std::string::npos)
      << batch;
  EXPECT_NE(CheckError(Chain({65537, 4})).find("batch size of 65537"), std::string::npos);
  // As a PyTorch model's input_shape: at most 2^28 elements per sample.
  const std::string sample = CheckError(Chain({1, 16, 65536, 65536}));
  EXPECT_NE(sample.find("input 'x' of shape [1, 16, 65536, 65536] holds more than 2^28 elements "
                        "per sample"),
            std::string::npos)
      << sample;
  EXPECT_NE(CheckError(Chain({1, 0, 3})).find("has a dimension 0; each must be >= 1"),
            std::string::npos);
}

// The ceiling is read once per process from NGRAPHBENCH_MAX_WORKING_SET_MB: each case runs in
// a fresh process (a threadsafe death test re-executes this binary).
int CheckWithCeiling(const char* mb, const Shape& input) {
  setenv("NGRAPHBENCH_MAX_WORKING_SET_MB", mb, 1);
  try {
    CheckWorkingSet(Chain(input), "big.onnx");
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}

TEST(WorkingSetDeathTest, TheCeilingIsASettingAndTheRefusalNamesTheLargestTensor) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // [64, 16, 1024, 1024] float32: 4 GiB an input; with three values of its size alive at the
  // peak, 16 GiB in all.
  const Shape big = {64, 16, 1024, 1024};
  EXPECT_EXIT(std::exit(CheckWithCeiling("18000", big)), testing::ExitedWithCode(0), "");
  EXPECT_EXIT(std::exit(CheckWithCeiling("8192", big)), testing::ExitedWithCode(2),
              "model 'big.onnx': needs at least 16385 MiB of memory \\(weights and constants 1 "
              "MiB, inputs 4096 MiB, intermediate values alive at once 12288 MiB; the largest "
              "tensor is 'x' of shape \\[64, 16, 1024, 1024\\], 4096 MiB\\), over the 8192 MiB "
              "a model may take on this machine \\(NGRAPHBENCH_MAX_WORKING_SET_MB");
  for (const char* bad : {"0", "-1", "lots", "8g", "1073741825"}) {
    EXPECT_EXIT(std::exit(CheckWithCeiling(bad, big)), testing::ExitedWithCode(2),
                "NGRAPHBENCH_MAX_WORKING_SET_MB='.*' is not a whole number of MiB from 1 to "
                "1073741824")
        << bad;
  }
}

TEST(WorkingSet, TheDefaultCeilingIsAQuarterOfTheMachinesMemory) {
  if (std::getenv("NGRAPHBENCH_MAX_WORKING_SET_MB")) GTEST_SKIP() << "the ceiling is set";
  EXPECT_GT(MachineMemoryBytes(), uint64_t{64} << 20);
  EXPECT_EQ(MaxWorkingSetBytes(), MachineMemoryBytes() / 4);
  EXPECT_EQ(WorkerMemoryLimitBytes(), 3 * MaxWorkingSetBytes());
}

}  // namespace
}  // namespace ngraphbench
