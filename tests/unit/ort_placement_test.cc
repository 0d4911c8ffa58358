// ONNX Runtime's node placement log lines, as onnxruntime 1.32 writes them at verbose level.
#include <gtest/gtest.h>

#include "ngraphbench/compilers/onnxruntime/placement.h"

namespace ngraphbench::ort {
namespace {

TEST(OrtPlacement, OneProviderForAllNodes) {
  Placement p;
  EXPECT_FALSE(ParsePlacementMessage("Node placements", p));
  EXPECT_TRUE(
      ParsePlacementMessage(" All nodes placed on [CPUExecutionProvider]. Number of nodes: 2", p));
  EXPECT_EQ(FormatPlacement(p), "CPUExecutionProvider:2");
  EXPECT_EQ(NodesOutside(p, "CPUExecutionProvider"), 0);
  EXPECT_EQ(NodesOutside(p, "TensorrtExecutionProvider"), 2);
}

TEST(OrtPlacement, SeveralProvidersAreCountedApart) {
  Placement p;
  for (const char* line :
       {" Node(s) placed on [TensorrtExecutionProvider]. Number of nodes: 2",
        "  TRTKernel_graph_main_1234_0 (TensorrtExecutionProvider_TRTKernel_graph_main_1234_0_0)",
        " Node(s) placed on [CUDAExecutionProvider]. Number of nodes: 3",
        " Node(s) placed on [CPUExecutionProvider]. Number of nodes: 1",
        "Saving initialized tensors."}) {
    ParsePlacementMessage(line, p);
  }
  EXPECT_EQ(FormatPlacement(p),
            "CPUExecutionProvider:1,CUDAExecutionProvider:3,TensorrtExecutionProvider:2");
  EXPECT_EQ(NodesOutside(p, "TensorrtExecutionProvider"), 4);
}

TEST(OrtPlacement, NoPlacementLineLeavesItEmpty) {
  Placement p;
  EXPECT_FALSE(ParsePlacementMessage("placed on [X] without a count", p));
  EXPECT_TRUE(p.empty());
  EXPECT_EQ(FormatPlacement(p), "");
}

}  // namespace
}  // namespace ngraphbench::ort
