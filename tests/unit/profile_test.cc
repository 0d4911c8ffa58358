// The profile schema (profile/profile.h): a compiler's kernels per inference, their operator
// types and classes from the graph or the SDK's names, the summary, the CSV form, and the
// analysis tables (analysis/profiles.h).
#include <gtest/gtest.h>

#include <cmath>

#include "ngraphbench/analysis/profiles.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/profile/pass.h"
#include "ngraphbench/profile/profile.h"

namespace ngraphbench {
namespace {

Graph ConvBnReluGraph() {
  Graph g;
  g.nodes.push_back({"Conv", "conv0", {"x", "w"}, {"c"}, {}});
  g.nodes.push_back({"BatchNormalization", "bn0", {"c", "s", "b", "m", "v"}, {"n"}, {}});
  g.nodes.push_back({"Relu", "relu0", {"n"}, {"r"}, {}});
  g.nodes.push_back({"Reshape", "flat", {"r", "shape"}, {"f"}, {}});
  g.nodes.push_back({"Gemm", "fc", {"f", "w2", "b2"}, {"y"}, {}});
  return g;
}

ProfiledKernel Kernel(std::string name, std::vector<std::string> nodes, bool known,
                      std::string type, int64_t calls, double ms) {
  return {std::move(name), std::move(nodes), known, std::move(type), calls, ms, "CPU"};
}

TEST(ProfileOpClass, OnnxTypes) {
  EXPECT_EQ(OpClassOfOnnxType("Conv"), "Conv");
  EXPECT_EQ(OpClassOfOnnxType("Gemm"), "MatMul");
  EXPECT_EQ(OpClassOfOnnxType("Linear"), "MatMul");  // the IR's own
  EXPECT_EQ(OpClassOfOnnxType("LayerNormalization"), "Normalization");
  EXPECT_EQ(OpClassOfOnnxType("Transpose"), "DataMovement");
  EXPECT_EQ(OpClassOfOnnxType("Gelu"), "Elementwise");
  EXPECT_EQ(OpClassOfOnnxType("SomethingNew"), "Other");
}

TEST(ProfileOpClass, SdkNamesOfEveryProfiler) {
  // ONNX Runtime op types, OpenVINO layer types, ATen ops, TVM fused functions, inductor kernels.
  EXPECT_EQ(OpClassOfSdkName("FusedConv"), "Conv");
  EXPECT_EQ(OpClassOfSdkName("Convolution"), "Conv");
  EXPECT_EQ(OpClassOfSdkName("aten::mkldnn_convolution"), "Conv");
  EXPECT_EQ(OpClassOfSdkName("fused_conv2d_add_relu"), "Conv");
  EXPECT_EQ(OpClassOfSdkName("fused_conv2d16_subtract7_divide7_multiply7_add13"), "Conv");
  EXPECT_EQ(OpClassOfSdkName("fused_matmul4_add5_divide_erf_add6_multiply1_multiply2"), "MatMul");
  EXPECT_EQ(OpClassOfSdkName("cpp_fused_convolution_relu_0"), "Conv");
  EXPECT_EQ(OpClassOfSdkName("FullyConnected"), "MatMul");
  EXPECT_EQ(OpClassOfSdkName("FusedMatMul"), "MatMul");  // not "mul", an Elementwise word
  EXPECT_EQ(OpClassOfSdkName("x_3__MatMul"), "MatMul");
  EXPECT_EQ(OpClassOfSdkName("Transpose"), "DataMovement");
  EXPECT_EQ(OpClassOfSdkName("aten::addmm"), "MatMul");
  EXPECT_EQ(OpClassOfSdkName("fused_matmul_add_gelu"), "MatMul");
  EXPECT_EQ(OpClassOfSdkName("ScaledDotProductAttention"), "MatMul");
  EXPECT_EQ(OpClassOfSdkName("cpp_fused__softmax_3"), "Softmax");
  EXPECT_EQ(OpClassOfSdkName("aten::native_layer_norm"), "Normalization");
  EXPECT_EQ(OpClassOfSdkName("MVN"), "Normalization");
  EXPECT_EQ(OpClassOfSdkName("aten::adaptive_avg_pool2d"), "Pool");
  EXPECT_EQ(OpClassOfSdkName("Eltwise"), "Elementwise");
  EXPECT_EQ(OpClassOfSdkName("aten::add_"), "Elementwise");
  EXPECT_EQ(OpClassOfSdkName("Reorder"), "DataMovement");
  EXPECT_EQ(OpClassOfSdkName("aten::permute"), "DataMovement");
  // "convert" names a copy, not a convolution.
  EXPECT_EQ(OpClassOfSdkName("Convert"), "DataMovement");
  EXPECT_EQ(OpClassOfSdkName("Parameter"), "Other");
}

TEST(ProfileTabulate, PerInferenceWithTypesFromTheGraph) {
  KernelProfile p;
  p.profiler = "test";
  p.runs = 4;
  // A fused kernel whose nodes come out of graph order and once twice; a node name that is not
  // in the graph; a kernel with unknown nodes.
  p.kernels.push_back(Kernel("FusedConv", {"relu0", "conv0", "bn0", "conv0"}, true, "FusedConv",
                             4, 8.0));
  p.kernels.push_back(Kernel("fc", {"fc", "not_a_node"}, true, "Gemm", 4, 24.0));
  p.kernels.push_back(Kernel("reorder_7", {}, false, "Reorder", 8, 4.0));
  p.kernels.push_back(Kernel("ghost", {"nowhere"}, true, "Reshape", 4, 4.0));
  const ProfileTable t = Tabulate(p, ConvBnReluGraph());
  ASSERT_EQ(t.lines.size(), 4u);
  // By time, largest first.
  EXPECT_EQ(t.lines[0].kernel, "fc");
  EXPECT_DOUBLE_EQ(t.lines[0].ms_per_inference, 6.0);
  EXPECT_DOUBLE_EQ(t.lines[0].share, 0.6);
  EXPECT_EQ(t.lines[0].nodes, std::vector<std::string>{"fc"});
  EXPECT_EQ(t.lines[0].op_class, "MatMul");
  const ProfileLine& conv = t.lines[1];
  EXPECT_EQ(conv.nodes, (std::vector<std::string>{"conv0", "bn0", "relu0"}));
  EXPECT_EQ(conv.op_types, "Conv+BatchNormalization+Relu");
  EXPECT_EQ(conv.op_class, "Conv");
  EXPECT_DOUBLE_EQ(conv.calls_per_inference, 1.0);
  // Named after the nodes it kept, the SDK's type says what it computes (OpenVINO names a
  // convolution folded with a BatchNormalization after the BatchNormalization).
  KernelProfile folded;
  folded.runs = 1;
  folded.kernels.push_back(Kernel("Multiply_7", {"bn0", "relu0"}, true, "Convolution", 1, 1.0));
  const ProfileTable f = Tabulate(folded, ConvBnReluGraph());
  EXPECT_EQ(f.lines[0].op_types, "BatchNormalization+Relu");
  EXPECT_EQ(f.lines[0].op_class, "Conv");
  const ProfileLine& reorder = t.lines[2];
  EXPECT_FALSE(reorder.nodes_known);
  EXPECT_EQ(reorder.op_types, "Reorder");
  EXPECT_EQ(reorder.op_class, "DataMovement");
  EXPECT_DOUBLE_EQ(reorder.calls_per_inference, 2.0);
  // No named node is the graph's: its nodes are unknown, its type the SDK's.
  EXPECT_FALSE(t.lines[3].nodes_known);
  EXPECT_EQ(t.lines[3].op_types, "Reshape");
  ASSERT_EQ(t.notes.size(), 1u);
  EXPECT_NE(t.notes[0].find("2 node name(s)"), std::string::npos) << t.notes[0];

  const ProfileSummary s = Summarize(t, ConvBnReluGraph());
  EXPECT_DOUBLE_EQ(s.kernels_per_inference, 5.0);
  EXPECT_EQ(s.ir_nodes, 5);
  EXPECT_DOUBLE_EQ(s.profiled_ms, 10.0);
  EXPECT_EQ(s.top_op_class, "MatMul");
  EXPECT_DOUBLE_EQ(s.top_share, 0.6);
}

TEST(ProfileTabulate, NoRunsIsRefused) {
  KernelProfile p;
  EXPECT_THROW(Tabulate(p, ConvBnReluGraph()), std::invalid_argument);
}

TEST(ProfileCsv, RoundTripsNamesWithSeparators) {
  KernelProfile p;
  p.runs = 1;
  Graph g;
  g.nodes.push_back({"Conv", "a;b\\c", {}, {}, {}});
  g.nodes.push_back({"Relu", "r,1", {}, {}, {}});
  p.kernels.push_back(Kernel("k \"1\"", {"a;b\\c", "r,1"}, true, "", 1, 2.0));
  p.kernels.push_back(Kernel("k2", {}, false, "memcpy", 2, 1.0));
  const ProfileTable t = Tabulate(p, g);
  const ProfileTable back = ParseProfileCsv(FormatProfileCsv(t), "t.profile.csv");
  ASSERT_EQ(back.lines.size(), 2u);
  EXPECT_EQ(back.lines[0].kernel, "k \"1\"");
  EXPECT_EQ(back.lines[0].nodes, (std::vector<std::string>{"a;b\\c", "r,1"}));
  EXPECT_EQ(back.lines[0].op_types, "Conv+Relu");
  EXPECT_FALSE(back.lines[1].nodes_known);
  EXPECT_DOUBLE_EQ(back.lines[1].calls_per_inference, 2.0);
  EXPECT_NEAR(back.lines[0].share, 2.0 / 3.0, 1e-5);
}

// A kernel or node named like a spreadsheet formula is written with a quote in front and reads
// back as named (results.md, Text cells and spreadsheets).
TEST(ProfileCsv, FormulaLikeNamesAreGuardedAndReadBack) {
  KernelProfile p;
  p.runs = 1;
  Graph g;
  g.nodes.push_back({"Conv", "=HYPERLINK(x)", {}, {}, {}});
  p.kernels.push_back(Kernel("@kernel", {"=HYPERLINK(x)"}, true, "", 1, 2.0));
  const std::string text = FormatProfileCsv(Tabulate(p, g));
  EXPECT_NE(text.find("\n'@kernel,'=HYPERLINK(x),Conv,"), std::string::npos) << text;
  const ProfileTable back = ParseProfileCsv(text, "t.profile.csv");
  ASSERT_EQ(back.lines.size(), 1u);
  EXPECT_EQ(back.lines[0].kernel, "@kernel");
  EXPECT_EQ(back.lines[0].nodes, (std::vector<std::string>{"=HYPERLINK(x)"}));
}

TEST(ProfileCsv, BadFilesNameWhatIsWrong) {
  const std::string header =
      "kernel,nodes,op_types,op_class,calls_per_inference,ms_per_inference,share,device\n";
  auto message = [](const std::string& text) {
    try {
      ParseProfileCsv(text, "p.csv");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("").find("is empty"), std::string::npos);
  EXPECT_NE(message("a,b\n").find("expected kernel,nodes"), std::string::npos);
  EXPECT_NE(message(header + "k,unknown,T,Conv,1,2\n").find("has 6 fields"), std::string::npos);
  EXPECT_NE(message(header + "k,unknown,T,Conv,1,-2,0.5,CPU\n").find("ms_per_inference"),
            std::string::npos);
  EXPECT_NE(message(header + "k,unknown,T,Conv,1,nan,0.5,CPU\n").find("ms_per_inference"),
            std::string::npos);
  EXPECT_NE(message(header + "k,unknown,T,Kernel,1,2,0.5,CPU\n").find("op_class 'Kernel'"),
            std::string::npos);
  EXPECT_NE(message(header + "k,unknown,T,Conv,1,2,1.5,CPU\n").find("more than 1"),
            std::string::npos);
  EXPECT_NE(message(header + "\"k,unknown\n").find("not valid CSV"), std::string::npos);
}

TEST(ProfilePass, RunsFitTheBudget) {
  EXPECT_EQ(ProfiledRuns(1.0), kMaxProfiledRuns);
  EXPECT_EQ(ProfiledRuns(500.0), 4);
  EXPECT_EQ(ProfiledRuns(5000.0), 1);
  EXPECT_EQ(ProfiledRuns(0.0), 1);
  EXPECT_EQ(ProfiledRuns(std::nan("")), 1);
}

ProfiledRun Profiled(const ResultRow& row, std::map<std::string, double> ms_by_class) {
  ProfiledRun p{&row, {}};
  for (const auto& [cls, ms] : ms_by_class) {
    ProfileLine line;
    line.kernel = cls;
    line.op_class = cls;
    line.ms_per_inference = ms;
    line.calls_per_inference = 1;
    p.table.lines.push_back(line);
  }
  return p;
}

TEST(ProfileAnalysis, SpeedupByOperatorClassSumsToTheWhole) {
  ResultRow a, b;
  for (ResultRow* r : {&a, &b}) {
    r->device = "d";
    r->experiment = "architectures";
    r->model = "resnet50";
    r->batch_size = 1;
  }
  a.compiler = "onnxruntime";
  b.compiler = "openvino";
  const std::vector<ProfiledRun> runs = {Profiled(b, {{"Conv", 6}, {"Elementwise", 1}}),
                                         Profiled(a, {{"Conv", 8}, {"Elementwise", 2}, {"Pool", 1}})};
  const std::string csv = FormatProfileSpeedupCsv(runs);
  // The baseline is the first in name order, whatever the input order; the saved time is 4 ms:
  // Conv 2 (0.5), Elementwise 1 (0.25), Pool 1 (0.25).
  EXPECT_NE(csv.find("d,architectures,resnet50,1,onnxruntime,openvino,Conv,8,6,2,0.5,4\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",Elementwise,2,1,1,0.25,4\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",Pool,1,0,1,0.25,4\n"), std::string::npos) << csv;
  // A run no other compiler profiled pairs with nothing.
  ResultRow c = a;
  c.model = "deit_small";
  EXPECT_EQ(FormatProfileSpeedupCsv({Profiled(c, {{"MatMul", 1}})}).find("deit_small"),
            std::string::npos);
}

TEST(ProfileAnalysis, TopKernelsView) {
  ResultRow row;
  row.experiment = "conv_blocks";
  row.run_id = "conv_blocks_w16_d1_b1";
  row.device = "local";
  row.compiler = "onnxruntime";
  row.batch_size = 1;
  row.profiler = "test";
  row.profile_ir_nodes = 5;
  row.latency_p50_ms = 11.0;
  KernelProfile p;
  p.runs = 1;
  for (int i = 0; i < 5; ++i) {
    p.kernels.push_back(Kernel("k" + std::to_string(i), {"conv0"}, true, "", 1, 1.0 + i));
  }
  const std::string view = FormatTopKernels(row, Tabulate(p, ConvBnReluGraph()), 3);
  EXPECT_NE(view.find("kernels per inference 5, graph nodes 5, fusion ratio 1"),
            std::string::npos)
      << view;
  EXPECT_NE(view.find("profiled 15 ms per inference, timed p50 11 ms"), std::string::npos)
      << view;
  EXPECT_NE(view.find("k4"), std::string::npos) << view;
  EXPECT_EQ(view.find("k1 "), std::string::npos) << view;
  EXPECT_NE(view.find("... 2 more kernels"), std::string::npos) << view;
  EXPECT_NE(view.find("Conv"), std::string::npos) << view;
}

}  // namespace
}  // namespace ngraphbench
