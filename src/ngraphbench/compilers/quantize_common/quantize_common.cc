#include "ngraphbench/compilers/quantize_common/quantize_common.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>

#include "ngraphbench/compilers/compile_helper.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/process.h"
#include "ngraphbench/core/tensor.h"

namespace ngraphbench {

namespace fs = std::filesystem;

struct QuantizeScratch::Folder {
  explicit Folder(const fs::path& p) : path(p), on_signal(p.string()) {}
  ~Folder() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  fs::path path;
  RemoveOnSignal on_signal;
};

QuantizeScratch::QuantizeScratch() = default;
QuantizeScratch::~QuantizeScratch() = default;

fs::path QuantizeScratch::NewFolder(const std::string& who) {
  std::string name = TempNameTemplate(fs::temp_directory_path().string(),
                                      "ngraphbench-" + who + "-int8-", "");
  if (::mkdtemp(name.data()) == nullptr) {
    ThrowFileError(who + ": cannot make a folder for the quantized model, " + name, errno);
  }
  folders_.push_back(std::make_unique<Folder>(name));
  return name;
}

std::vector<fs::path> WriteCalibrationSet(const std::vector<TensorSpec>& inputs,
                                          const fs::path& dir, const std::string& who) {
  std::vector<fs::path> files;
  for (int b = 0; b < kCalibrationBatches; ++b) {
    std::vector<HostTensor> batch;
    for (const TensorSpec& in : inputs) {
      batch.push_back(RandomNormal(in.shape, CalibrationSeed(b, in.name)));
    }
    const fs::path file = dir / ("calibration-" + std::to_string(b) + ".bin");
    files.push_back(file);
    std::ofstream out(file, std::ios::binary);
    const std::string bytes = FormatTensorFile(batch);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) {
      const int error = errno != 0 ? errno : EIO;
      throw StorageError(who + ": cannot write the calibration batch " + file.string() + ": " +
                             std::strerror(error),
                         error);
    }
  }
  return files;
}

QuantizedModel QuantizeModel(const CompileRequest& request, const QuantizeTool& tool,
                             QuantizeScratch& scratch) {
  const std::string& who = tool.who;
  Fnv128 key;
  key.Add(who + "-int8");
  AddOnnxModel(key, request.onnx_path, request.onnx, who);
  key.AddFile(tool.script, who);
  key.Add(tool.sdk_version);
  for (const std::string& arg : tool.args) key.Add("arg=" + arg);
  key.Add(std::to_string(kCalibrationBatches));
  for (const TensorSpec& in : request.graph.inputs) key.Add(in.name).Add(ShapeToString(in.shape));

  const bool cached = !request.cache_dir.empty();
  const fs::path root =
      cached ? fs::path(request.cache_dir) / (who + "-int8") : scratch.NewFolder(who);
  QuantizedModel q;
  q.key = key.Hex();
  q.entry = root / q.key;
  const auto usable = [&tool](const fs::path& e) {
    if (!fs::exists(e / "meta.json")) return false;
    for (const std::string& output : tool.outputs) {
      if (!fs::exists(e / output)) return false;
    }
    return true;
  };
  q.cache_hit = cached && usable(q.entry);
  if (!q.cache_hit) {
    CacheEntryBuild build(q.entry);
    {
      const ScriptOnnxFile onnx(request.onnx_path, request.onnx, build.dir());
      std::vector<std::string> argv = {tool.python, tool.script,         "--onnx",
                                       onnx.path().string(), "--out-dir", build.dir().string(),
                                       "--calibration"};
      const std::vector<fs::path> files = WriteCalibrationSet(request.graph.inputs, build.dir(), who);
      for (const fs::path& file : files) argv.push_back(file.string());
      argv.insert(argv.end(), tool.args.begin(), tool.args.end());
      // An uncached entry's folder is the scratch's, which removes it: nothing to discard here.
      RunCompileScript(argv, build.dir(), build.dir() / "meta.json", fs::path(), who, tool.fix);
      for (const fs::path& file : files) fs::remove(file);
    }
    build.Commit(usable);
  }
  q.meta = nlohmann::json::parse(ReadFile(q.entry / "meta.json", kMaxConfigBytes), nullptr,
                                 /*allow_exceptions=*/false);
  if (!q.meta.is_object()) {
    throw CompileError(who + ": unreadable " + (q.entry / "meta.json").string());
  }
  return q;
}

ModelToCompile::ModelToCompile(const CompileRequest& request,
                               const std::optional<QuantizeTool>& tool, QuantizeScratch& scratch,
                               const std::string& file, const std::string& compiled_precision)
    : original_(request) {
  if (!tool) return;
  quantized_ = QuantizeModel(request, *tool, scratch);
  config_ = request.config;
  if (!compiled_precision.empty()) config_->precision = compiled_precision;
  static const std::string kNoBytes;
  CompileRequest& r = quantized_request_.emplace(
      CompileRequest{request.graph, kNoBytes, *config_, request.cache_dir});
  r.quick = request.quick;
  r.cold = request.cold;
  r.onnx_path = (quantized_->entry / file).string();
  r.offline = request.offline;
  r.streams = request.streams;
}

}  // namespace ngraphbench
