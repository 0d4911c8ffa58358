// Tensors whose data is in a side file beside the model (part of onnx_import_test).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include "ngraphbench/core/error.h"
#include "ngraphbench/graph/onnx_fold.h"
#include "ngraphbench/graph/onnx_io.h"
#include "temp_dir.h"
#include "unit/onnx_import_fixture.h"

namespace ngraphbench {
namespace {

using namespace onnx_testing;  // the models and helpers these files share

// ---- external data
// -------------------------------------------------------------------------------

class OnnxExternalData : public test_support::TempDirTest {
 protected:
  OnnxExternalData() : TempDirTest("ngb_external_") {}

  void SetUp() override {
    TempDirTest::SetUp();
    fs::create_directories(dir_ / "model");
  }

  // Appends `bytes` to the side file and points `t` at them.
  void External(TensorProto* t, const std::string& bytes, const std::string& location,
                const fs::path& file) {
    std::ofstream out(file, std::ios::binary | std::ios::app);
    const auto offset = fs::exists(file) ? fs::file_size(file) : 0;
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    t->set_data_location(TensorProto::EXTERNAL);
    auto add = [&](const std::string& k, const std::string& v) {
      auto* e = t->add_external_data();
      e->set_key(k);
      e->set_value(v);
    };
    add("location", location);
    add("offset", std::to_string(offset));
    add("length", std::to_string(bytes.size()));
  }

  // y = Reshape(x @ big, shape) @ small: `big` (2 MiB, read at the end), `small` and the int64
  // `shape` (read at once) are in data/weights.bin.
  ModelBuilder Model(const std::string& location = "data/weights.bin") {
    ModelBuilder b;
    b.Input("x", {-1, 512});
    big_.resize(512 * 1024);
    for (size_t k = 0; k < big_.size(); ++k) big_[k] = static_cast<float>(k % 97) * 0.01f;
    small_ = {1, 2, 3, 4, 5, 6};
    fs::create_directories(dir_ / "model" / "data");
    const fs::path file = dir_ / "model" / "data" / "weights.bin";
    auto add = [&](const std::string& name, int32_t type, std::vector<int64_t> dims,
                   const void* data, size_t bytes) {
      TensorProto* t = b.g().add_initializer();
      t->set_name(name);
      t->set_data_type(type);
      for (int64_t d : dims) t->add_dims(d);
      External(t, std::string(static_cast<const char*>(data), bytes), location, file);
    };
    add("big", TensorProto::FLOAT, {512, 1024}, big_.data(), big_.size() * 4);
    add("small", TensorProto::FLOAT, {2, 3}, small_.data(), small_.size() * 4);
    const std::vector<int64_t> shape = {0, -1, 2};
    add("shape", TensorProto::INT64, {3}, shape.data(), 24);
    b.Node("MatMul", {"x", "big"}, {"h"});
    b.Node("Reshape", {"h", "shape"}, {"r"});
    b.Node("MatMul", {"r", "small"}, {"y"});
    b.Output("y");
    return b;
  }

  fs::path Save(const ModelBuilder& b, const std::string& name = "m.onnx") {
    const fs::path path = dir_ / "model" / name;
    std::ofstream out(path, std::ios::binary);
    const std::string bytes = b.Bytes();
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
  }

  std::string FileError(const fs::path& path) {
    try {
      ImportOnnxFile(path.string(), 1);
    } catch (const InputError& e) {
      return e.what();
    }
    ADD_FAILURE() << "imported without an error";
    return "";
  }

  std::vector<float> big_, small_;
};

TEST_F(OnnxExternalData, LoadsRelativeToTheModelNotTheWorkingDirectory) {
  const fs::path path = Save(Model());
  const fs::path cwd = fs::current_path();
  fs::create_directories(dir_ / "elsewhere");
  fs::current_path(dir_ / "elsewhere");  // neither the model's folder nor its parent
  Graph g;
  try {
    g = ImportOnnxFile(path.string(), 2);
    // A relative path to the model, from another directory.
    EXPECT_EQ(ImportOnnxFile("../model/m.onnx", 2).ShapeOf("y"), (Shape{2, 512, 3}));
  } catch (...) {
    fs::current_path(cwd);
    throw;
  }
  fs::current_path(cwd);
  EXPECT_EQ(g.ShapeOf("y"), (Shape{2, 512, 3}));
  const Initializer* big = g.FindInitializer("big");
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->tensor.data, big_);
  EXPECT_EQ(g.FindInitializer("small")->tensor.data, small_);
  EXPECT_EQ(g.FindInitializer("shape")->int64_data, (std::vector<int64_t>{0, -1, 2}));
  EXPECT_EQ(g.ParameterCount(), 512 * 1024 + 6);
  // From bytes alone there is no folder to read from.
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    ImportOnnx(bytes, "mem.onnx", 1);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("was not read from a file"), std::string::npos);
  }
}

TEST_F(OnnxExternalData, Int32DataIsWidenedInPlace) {
  ModelBuilder b;
  b.Input("x", {-1, 8});
  const size_t n = 300000;  // 1.2 MB: read at the end, not at once
  std::vector<int32_t> idx(n);
  for (size_t k = 0; k < n; ++k) idx[k] = static_cast<int32_t>(k % 8) - (k % 3 == 0 ? 8 : 0);
  TensorProto* t = b.g().add_initializer();
  t->set_name("idx");
  t->set_data_type(TensorProto::INT32);
  t->add_dims(static_cast<int64_t>(n));
  External(t, std::string(reinterpret_cast<const char*>(idx.data()), n * 4), "idx.bin",
           dir_ / "model" / "idx.bin");
  AttrI(b.Node("Gather", {"x", "idx"}, {"y"}), "axis", 1);
  b.Output("y");
  const Graph g = ImportOnnxFile(Save(b).string(), 1);
  const Initializer* init = g.FindInitializer("idx");
  ASSERT_NE(init, nullptr);
  ASSERT_EQ(init->int64_data.size(), n);
  for (size_t k = 0; k < n; ++k) ASSERT_EQ(init->int64_data[k], idx[k]) << k;
}

TEST_F(OnnxExternalData, LocationsOutsideTheFolderAreRefused) {
  std::ofstream(dir_ / "outside.bin") << std::string(4 * 1024 * 512 + 64, 'x');
  fs::create_symlink(dir_ / "outside.bin", dir_ / "model" / "link.bin");
  for (const std::string location :
       {"../outside.bin", "data/../../outside.bin", "/etc/passwd", "link.bin"}) {
    SCOPED_TRACE(location);
    const std::string error = FileError(Save(Model(location)));
    EXPECT_NE(error.find("tensor 'big'"), std::string::npos) << error;
    EXPECT_NE(error.find("'" + location + "'"), std::string::npos) << error;
    EXPECT_NE(error.find("relative path inside the model's folder"), std::string::npos) << error;
    fs::remove_all(dir_ / "model" / "data");
  }
}

TEST_F(OnnxExternalData, MissingFilesAndBadRangesNameTheTensor) {
  ModelBuilder b = Model();
  const fs::path path = Save(b);
  fs::remove(dir_ / "model" / "data" / "weights.bin");
  std::string error = FileError(path);
  EXPECT_NE(error.find("tensor 'big' stores its data in '"), std::string::npos) << error;
  EXPECT_NE(error.find((dir_ / "model" / "data" / "weights.bin").string()), std::string::npos)
      << error;
  EXPECT_NE(error.find("does not exist"), std::string::npos) << error;

  auto entry = [&](const std::string& key) -> std::string& {
    for (auto& e : *b.g().mutable_initializer(0)->mutable_external_data()) {
      if (e.key() == key) return *e.mutable_value();
    }
    throw std::logic_error(key);
  };
  b = Model();
  entry("offset") = "99999999999";
  error = FileError(Save(b));
  EXPECT_NE(error.find("tensor 'big' has external data offset 99999999999 beyond the end"),
            std::string::npos)
      << error;
  fs::remove_all(dir_ / "model" / "data");
  b = Model();
  entry("length") = "16";
  error = FileError(Save(b));
  EXPECT_NE(error.find("declares 524288 elements (2097152 bytes) but its external data"),
            std::string::npos)
      << error;
  fs::remove_all(dir_ / "model" / "data");
  b = Model();
  entry("offset") = "-1";
  EXPECT_NE(FileError(Save(b)).find("expected a non-negative whole number"), std::string::npos);
}

}  // namespace
}  // namespace ngraphbench
