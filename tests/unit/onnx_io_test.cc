#include "ngraphbench/graph/onnx_io.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "ngraphbench/core/error.h"
#include "ngraphbench/models/synthetic.h"
#include "ngraphbench/models/zoo.h"
#include "temp_dir.h"

namespace ngraphbench {
namespace {

std::map<std::string, int> OpCounts(const Graph& g) {
  std::map<std::string, int> counts;
  for (const auto& n : g.nodes) counts[n.op_type]++;
  return counts;
}

ModelSpec Spec(const std::string& family, int64_t width, int64_t depth) {
  return SyntheticSpec(family, family, width, depth);
}

class RoundTrip : public ::testing::TestWithParam<std::tuple<std::string, int64_t, int64_t>> {};

// IR -> ONNX (checker + strict shape inference inside ExportOnnx) -> IR -> ONNX again.
TEST_P(RoundTrip, ExportImportExport) {
  const auto& [family, width, depth] = GetParam();
  const Graph ir = BuildModel(Spec(family, width, depth), 2);
  const std::string bytes = ExportOnnx(ir);
  const Graph back = ImportOnnx(bytes, "roundtrip");

  ASSERT_EQ(back.inputs.size(), ir.inputs.size());
  ASSERT_EQ(back.outputs.size(), ir.outputs.size());
  EXPECT_EQ(back.inputs[0].shape, ir.inputs[0].shape);
  EXPECT_EQ(back.outputs[0].shape, ir.outputs[0].shape);
  for (const auto& n : back.nodes) {
    for (const auto& out : n.outputs) EXPECT_TRUE(back.value_shapes.count(out)) << out;
  }
  // Weights arrive bit for bit (Linear weights are stored transposed in ONNX).
  for (const auto& init : ir.initializers) {
    const Initializer* same = back.FindInitializer(init.name);
    const Initializer* transposed = back.FindInitializer(init.name + "__t");
    ASSERT_TRUE(same || transposed) << init.name;
    if (same) {
      EXPECT_EQ(same->tensor.shape, init.tensor.shape);
      EXPECT_EQ(same->tensor.data, init.tensor.data);
      EXPECT_EQ(same->int64_data, init.int64_data);
    } else {
      EXPECT_EQ(transposed->tensor.shape, (Shape{init.tensor.shape[1], init.tensor.shape[0]}));
    }
  }
  // The imported graph holds only standard ops and exports again unchanged.
  EXPECT_EQ(ExportOnnx(back).size(), bytes.size());
  EXPECT_EQ(OpCounts(ImportOnnx(ExportOnnx(back), "again")), OpCounts(back));
  EXPECT_EQ(CountMacs(back), CountMacs(ir));
}

INSTANTIATE_TEST_SUITE_P(
    Synthetic, RoundTrip,
    ::testing::Values(std::make_tuple("conv_block", 16, 2), std::make_tuple("mha_block", 64, 2),
                      std::make_tuple("conv2d", 16, 0), std::make_tuple("linear", 256, 0),
                      std::make_tuple("self_attention", 128, 0)));

TEST(Export, LowersSingleKernelOps) {
  const auto ops = OpCounts(ImportOnnx(ExportOnnx(BuildModel(Spec("mha_block", 128, 3), 1)), "m"));
  // Per block: 4 projections (MatMul + Add), attention = Transpose(K) + 2 MatMul + Mul + Softmax.
  EXPECT_EQ(ops.at("MatMul"), 3 * (4 + 2));
  EXPECT_EQ(ops.at("Softmax"), 3);
  EXPECT_EQ(ops.at("Relu"), 3);
  EXPECT_EQ(ops.count("ScaledDotProductAttention"), 0u);
  const auto fc = OpCounts(ImportOnnx(ExportOnnx(BuildModel(Spec("linear", 256, 0), 4)), "fc"));
  EXPECT_EQ(fc, (std::map<std::string, int>{{"Gemm", 1}}));
}

TEST(Models, ParametersAndMacsOfSyntheticBlocks) {
  // conv block: 3x3 conv without bias (w*w*9) + BatchNorm scale and shift (2w) per layer;
  // MACs count the convolution and, as fvcore does, 2 per BatchNorm output element.
  const Graph conv = BuildModel(Spec("conv_block", 64, 4), 1);
  EXPECT_EQ(conv.ParameterCount(), 4 * (64 * 64 * 9 + 2 * 64));
  EXPECT_EQ(CountMacs(conv), 4LL * (64 * 64 * 9 * 56 * 56 + 2 * 64 * 56 * 56));
  // attention: 4 projections (w*w + w) per block; MACs: projections + QK^T + PV.
  const Graph mha = BuildModel(Spec("mha_block", 128, 2), 1);
  EXPECT_EQ(mha.ParameterCount(), 2 * 4 * (128 * 128 + 128));
  EXPECT_EQ(CountMacs(mha), 2 * (4LL * 197 * 128 * 128 + 2LL * 197 * 197 * 128));
  const Graph fc = BuildModel(Spec("linear", 512, 0), 8);
  EXPECT_EQ(fc.ParameterCount(), 512 * 512 + 512);
  EXPECT_EQ(CountMacs(fc), 8LL * 512 * 512);
}

TEST(Models, WeightsAreSeededByModelName) {
  const Graph a = BuildModel(Spec("conv2d", 16, 0), 1);
  const Graph b = BuildModel(Spec("conv2d", 16, 0), 8);
  EXPECT_EQ(a.initializers[0].tensor.data, b.initializers[0].tensor.data);  // batch-independent
  ModelSpec other = Spec("conv2d", 16, 0);
  other.name = "another";
  EXPECT_NE(BuildModel(other, 1).initializers[0].tensor.data, a.initializers[0].tensor.data);
  double sum_sq = 0;
  for (float v : a.initializers[0].tensor.data) sum_sq += v * v;
  EXPECT_GT(sum_sq, 0);  // never all zeros
}

TEST(Import, CorruptBytesAreAnInputError) {
  try {
    ImportOnnx("this is not a protobuf", "bad.onnx");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'bad.onnx' is not an ONNX model"), std::string::npos)
        << e.what();
  }
  const std::string good = ExportOnnx(BuildModel(Spec("conv2d", 16, 0), 1));
  EXPECT_THROW(ImportOnnx(good.substr(0, good.size() / 2), "truncated.onnx"), InputError);
  EXPECT_THROW(ImportOnnxFile("/nonexistent/model.onnx"), InputError);
}

TEST(Import, FixedBatchSizeCannotBeChanged) {
  const std::string bytes = ExportOnnx(BuildModel(Spec("conv_block", 16, 1), 2));
  EXPECT_EQ(ImportOnnx(bytes, "m", 2).outputs[0].shape, (Shape{2, 16, 56, 56}));
  try {
    ImportOnnx(bytes, "m.onnx", 4);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("fixed batch size of 2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ngraphbench

// Regressions from a fuzzing campaign: files that crashed or exhausted the importer.
#include <onnx/onnx_pb.h>

namespace ngraphbench {
namespace {

onnx::ModelProto Conv2dModel() {
  onnx::ModelProto model;
  const std::string bytes = ExportOnnx(BuildModel(SyntheticSpec("conv2d", "conv2d", 8, 0), 1));
  EXPECT_TRUE(model.ParseFromString(bytes));
  return model;
}

std::string ImportError(const onnx::ModelProto& model) {
  try {
    ImportOnnx(model.SerializeAsString(), "hostile.onnx", 1);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "imported without an error";
  return "";
}

TEST(HostileImport, ZeroStrideIsAnErrorNotSigfpe) {
  onnx::ModelProto model = Conv2dModel();
  bool found = false;
  for (auto& node : *model.mutable_graph()->mutable_node()) {
    if (node.op_type() != "Conv") continue;
    onnx::AttributeProto* strides = nullptr;
    for (auto& a : *node.mutable_attribute()) {
      if (a.name() == "strides") strides = &a;
    }
    if (!strides) {
      strides = node.add_attribute();
      strides->set_name("strides");
      strides->set_type(onnx::AttributeProto::INTS);
      strides->add_ints(1);
      strides->add_ints(1);
    }
    strides->set_ints(0, 0);
    found = true;
  }
  ASSERT_TRUE(found);
  EXPECT_NE(ImportError(model).find("has strides 0; each must be >= 1"), std::string::npos);
}

TEST(HostileImport, GroupZeroAndNoOutputsAreErrors) {
  onnx::ModelProto model = Conv2dModel();
  for (auto& node : *model.mutable_graph()->mutable_node()) {
    if (node.op_type() != "Conv") continue;
    auto* group = node.add_attribute();
    group->set_name("group");
    group->set_type(onnx::AttributeProto::INT);
    group->set_i(0);
  }
  EXPECT_NE(ImportError(model).find("has group 0; it must be >= 1"), std::string::npos);
  onnx::ModelProto no_outputs = Conv2dModel();
  no_outputs.mutable_graph()->clear_output();
  EXPECT_NE(ImportError(no_outputs).find("has no graph outputs"), std::string::npos);
}

TEST(HostileImport, HugeDeclaredDimsAreRefusedBeforeAllocating) {
  for (int64_t dim : {int64_t{1} << 32, int64_t{1} << 62, int64_t{-5}}) {
    onnx::ModelProto model = Conv2dModel();
    auto* init = model.mutable_graph()->mutable_initializer(0);
    init->set_dims(0, dim);
    const std::string error = ImportError(model);
    EXPECT_TRUE(error.find("declares") != std::string::npos ||
                error.find("negative dimension") != std::string::npos)
        << dim << ": " << error;
  }
}

// A weight laid out for half the input's channels: libonnx's shape inference lets it through,
// and a kernel would read past the weight's end.
TEST(HostileImport, ConvWeightChannelsMustMatchTheInput) {
  onnx::ModelProto model = Conv2dModel();
  std::string weight;
  for (const auto& node : model.graph().node()) {
    if (node.op_type() == "Conv") weight = node.input(1);
  }
  ASSERT_FALSE(weight.empty());
  bool found = false;
  for (auto& init : *model.mutable_graph()->mutable_initializer()) {
    if (init.name() != weight) continue;
    ASSERT_EQ(init.dims_size(), 4);
    ASSERT_EQ(init.dims(1) % 2, 0);
    init.set_dims(1, init.dims(1) / 2);
    if (init.has_raw_data()) {
      init.mutable_raw_data()->resize(init.raw_data().size() / 2);
    } else {
      init.mutable_float_data()->Truncate(init.float_data_size() / 2);
    }
    found = true;
  }
  ASSERT_TRUE(found);
  const std::string error = ImportError(model);
  EXPECT_NE(error.find("input channels but a weight of"), std::string::npos) << error;
}

// ---- export with external data

// A model written with its weights as external data (forced here: the automatic switch is for
// weights over kOnnxInlineLimitBytes, far too large for a test) imports with the same weights
// and shapes as from ExportOnnx's bytes.
TEST(ExternalExport, ReimportsWithTheSameWeightsAndShapes) {
  namespace fs = std::filesystem;
  const test_support::ScratchDir scratch("ngb_export_ext_");
  const fs::path& dir = scratch.path();
  const std::string path = (dir / "model.onnx").string();
  // Linear on rank-3 inputs (weights stored transposed), Gelu's scalars, biases under the
  // external size: each kind of initializer the exporter writes.
  const Graph ir = BuildModel(Spec("mha_block", 64, 2), 2);

  EXPECT_EQ(ExportOnnxFile(ir, path), "");  // small: one protobuf, no side file
  EXPECT_FALSE(fs::exists(OnnxDataPath(path)));

  const std::string data_path = ExportOnnxFile(ir, path, /*force_external_data=*/true);
  EXPECT_EQ(data_path, OnnxDataPath(path));
  ASSERT_TRUE(fs::exists(data_path));
  EXPECT_LT(fs::file_size(path), 16u << 10);  // the weights are not in the model file

  // The file says where each large weight is, at aligned offsets; small tensors stay inside.
  onnx::ModelProto model;
  {
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(model.ParseFromIstream(&in));
  }
  int external = 0, inline_tensors = 0;
  for (const auto& t : model.graph().initializer()) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL) {
      ++inline_tensors;
      continue;
    }
    ++external;
    std::map<std::string, std::string> entries;
    for (const auto& e : t.external_data()) entries[e.key()] = e.value();
    EXPECT_EQ(entries["location"], "model.onnx.data") << t.name();
    EXPECT_EQ(std::stoull(entries["offset"]) % kOnnxExternalAlignment, 0u) << t.name();
    EXPECT_GE(std::stoull(entries["length"]), kOnnxExternalMinBytes) << t.name();
    EXPECT_LE(std::stoull(entries["offset"]) + std::stoull(entries["length"]),
              fs::file_size(data_path));
    EXPECT_FALSE(t.has_raw_data()) << t.name();
  }
  EXPECT_GT(external, 0);
  EXPECT_GT(inline_tensors, 0);

  const Graph from_bytes = ImportOnnx(ExportOnnx(ir), "bytes");
  const Graph from_file = ImportOnnxFile(path);
  ASSERT_EQ(from_file.initializers.size(), from_bytes.initializers.size());
  for (const auto& init : from_bytes.initializers) {
    const Initializer* same = from_file.FindInitializer(init.name);
    ASSERT_TRUE(same) << init.name;
    EXPECT_EQ(same->tensor.shape, init.tensor.shape) << init.name;
    EXPECT_EQ(same->tensor.data, init.tensor.data) << init.name;
    EXPECT_EQ(same->int64_data, init.int64_data) << init.name;
  }
  EXPECT_EQ(from_file.inputs[0].shape, from_bytes.inputs[0].shape);
  EXPECT_EQ(from_file.outputs[0].shape, from_bytes.outputs[0].shape);
  EXPECT_EQ(from_file.value_shapes, from_bytes.value_shapes);
  EXPECT_EQ(OpCounts(from_file), OpCounts(from_bytes));
  EXPECT_EQ(from_file.ParameterCount(), from_bytes.ParameterCount());
}

}  // namespace
}  // namespace ngraphbench
