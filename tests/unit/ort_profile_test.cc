// ONNX Runtime's session profile, as onnxruntime 1.32 writes it at EndProfiling(): one
// "<node>_kernel_time" event per node execution and one "model_run" event per Run().
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ngraphbench/compilers/onnxruntime/ort_profile.h"
#include "ngraphbench/core/error.h"

namespace ngraphbench::ort {
namespace {

// One event as ORT's profiler.cc writes it (its spacing included).
std::string Event(const std::string& cat, const std::string& name, long ts, long dur,
                  const std::string& args = "") {
  return R"({"cat" : ")" + cat + R"(","pid" :7,"tid" :9,"dur" :)" + std::to_string(dur) +
         R"(,"ts" :)" + std::to_string(ts) + R"(,"ph" : "X","name" :")" + name +
         R"(","args" : {)" + args + "}}";
}

std::string NodeArgs(const std::string& op, const std::string& provider) {
  return R"("op_name" : ")" + op + R"(","provider" : ")" + provider +
         R"(","node_index" : "3","thread_scheduling_stats" : {"main_thread" : {}})";
}

std::string Trace(const std::vector<std::string>& events) {
  std::string out = "[\n";
  for (size_t i = 0; i < events.size(); ++i) {
    out += events[i] + (i + 1 < events.size() ? ",\n" : "\n");
  }
  return out + "]\n";
}

// `runs` runs 1000 us apart, each running conv1 (a FusedConv that absorbed bn1 and relu1) for
// 100 * (run + 1) us and an NCHWc reorder ORT inserted for 5 us.
std::string CpuTrace(int runs) {
  std::vector<std::string> events = {Event("Session", "model_loading_array", 0, 50),
                                     Event("Session", "session_initialization", 50, 400)};
  for (int r = 0; r < runs; ++r) {
    const long start = 1000 + 1000L * r;
    events.push_back(Event("Session", "model_run", start, 500));
    events.push_back(Event("Session", "SequentialExecutor::Execute", start + 10, 480));
    events.push_back(Event("Node", "ReorderInput_kernel_time", start + 20, 5,
                           NodeArgs("ReorderInput", "CPUExecutionProvider")));
    events.push_back(Event("Node", "conv1_kernel_time", start + 30, 100 * (r + 1),
                           NodeArgs("FusedConv", "CPUExecutionProvider")));
  }
  return Trace(events);
}

const std::unordered_set<std::string> kGraph = {"conv1", "bn1", "relu1"};

TEST(OrtProfile, SumsTheProfiledRunsPerNodeWithoutTheWarmUp) {
  const KernelProfile p = ParseSessionProfile(CpuTrace(4), /*warmup=*/2, /*runs=*/2, kGraph, "t");
  EXPECT_EQ(p.runs, 2);
  ASSERT_EQ(p.kernels.size(), 2u);
  const ProfiledKernel& reorder = p.kernels[0];  // in execution order
  EXPECT_EQ(reorder.name, "ReorderInput");
  EXPECT_FALSE(reorder.nodes_known);
  EXPECT_TRUE(reorder.nodes.empty());
  EXPECT_EQ(reorder.calls, 2);
  EXPECT_DOUBLE_EQ(reorder.time_ms, 0.010);
  const ProfiledKernel& conv = p.kernels[1];
  EXPECT_EQ(conv.name, "conv1");
  EXPECT_TRUE(conv.nodes_known);
  EXPECT_EQ(conv.nodes, std::vector<std::string>{"conv1"});
  EXPECT_EQ(conv.sdk_type, "FusedConv");
  EXPECT_EQ(conv.device, "CPUExecutionProvider");
  EXPECT_EQ(conv.calls, 2);
  EXPECT_DOUBLE_EQ(conv.time_ms, 0.7);  // runs 3 and 4: 300 + 400 us
  EXPECT_EQ(p.notes.size(), 2u);        // fusion names, microseconds; no GPU note
}

TEST(OrtProfile, TensorRtEnginesAreOneKernelWithUnknownNodes) {
  std::vector<std::string> events;
  for (int r = 0; r < 3; ++r) {
    events.push_back(Event("Session", "model_run", 1000L * r, 500));
    events.push_back(Event("Node", "TRTKernel_graph_main_1234_0_kernel_time", 1000L * r + 9, 40,
                           NodeArgs("TRTKernel_graph_main_1234_0", "TensorrtExecutionProvider")));
  }
  const KernelProfile p = ParseSessionProfile(Trace(events), 2, 1, kGraph, "tensorrt");
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_FALSE(p.kernels[0].nodes_known);
  EXPECT_EQ(p.kernels[0].device, "TensorrtExecutionProvider");
  EXPECT_EQ(p.kernels[0].calls, 1);
  EXPECT_EQ(p.notes.size(), 4u);  // + GPU host timing, + TensorRT engines
}

TEST(OrtProfile, FewerRunsThanMadeIsAnError) {
  try {
    ParseSessionProfile(CpuTrace(3), 2, 2, kGraph, "onnxruntime");
    FAIL() << "no error";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("holds 3 runs, not the 4"), std::string::npos)
        << e.what();
  }
}

TEST(OrtProfile, AnUnescapedNodeNameIsAnError) {
  const std::string trace =
      Trace({Event("Session", "model_run", 0, 5), Event("Node", "a\"b_kernel_time", 1, 1)});
  EXPECT_THROW(ParseSessionProfile(trace, 0, 1, kGraph, "onnxruntime"), CompileError);
  EXPECT_THROW(ParseSessionProfile("{}", 0, 1, kGraph, "onnxruntime"), CompileError);
}

}  // namespace
}  // namespace ngraphbench::ort
