// Static post-training quantization by an SDK's own tool in a helper process (onnxruntime's
// ort_quantize.py, openvino's ov_quantize.py, docs/compilers.md, Quantization): what both share;
// the calibration set's files also serve the PT2E flows of inductor and executorch.
// The calibration set is drawn and written for the script, the quantized model is cached like a
// compiled artifact, in <cache_dir>/<who>-int8/<key>/, and a compile without a cache directory
// writes it into a temporary folder that goes with the compiler.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ngraphbench/compilers/compiler.h"

namespace ngraphbench {

// One compiler's quantization tool.
struct QuantizeTool {
  std::string who;  // the compiler, in messages and in the cache's folder name: "onnxruntime"
  // The helper, run as `python script --onnx MODEL --out-dir DIR --calibration FILE...`; it
  // writes `outputs` and, last, meta.json into DIR, and ends through python/script_exit.py.
  std::string python, script;
  std::string fix;          // how to point it at a python that has the tool (in its errors)
  std::string sdk_version;  // part of the cache key: another SDK version quantizes again
  std::vector<std::string> outputs;  // what a complete entry holds beside meta.json
  // More arguments for the script, after the others (a variant of its scheme); part of the
  // cache key when there are any, so an entry made without them keeps its key.
  std::vector<std::string> args;
};

// A quantized model: the folder that holds the tool's outputs and its meta.json.
struct QuantizedModel {
  std::filesystem::path entry;
  std::string key;  // the cache key, hex
  bool cache_hit = false;
  nlohmann::json meta;  // meta.json, an object
};

// The folders models are quantized into when a compile has no cache directory: one per
// quantization, under the system's temporary directory, removed with what they hold when this
// goes (and by a signal that stops the worker: RemoveOnSignal, core/process.h). A compiler owns
// one: its executables may read the quantized model again (Executable::Profile) and never
// outlive the compiler. For one thread.
class QuantizeScratch {
 public:
  QuantizeScratch();
  ~QuantizeScratch();
  QuantizeScratch(const QuantizeScratch&) = delete;
  QuantizeScratch& operator=(const QuantizeScratch&) = delete;

  // A new empty folder `<tmp>/ngraphbench-<who>-int8-<host>-<pid>-XXXXXX`. Throws
  // EnvironmentError (StorageError for a full disk) when it cannot be made.
  std::filesystem::path NewFolder(const std::string& who);

 private:
  struct Folder;
  std::vector<std::unique_ptr<Folder>> folders_;
};

// The calibration set (kCalibrationBatches batches of `inputs`, each drawn with CalibrationSeed,
// core/tensor.h) as tensor files calibration-<b>.bin in `dir`, one batch of every input each,
// for a quantizing script's --calibration; returns their paths. Throws StorageError (naming
// `who`, the compiler) when one cannot be written.
std::vector<std::filesystem::path> WriteCalibrationSet(const std::vector<TensorSpec>& inputs,
                                                       const std::filesystem::path& dir,
                                                       const std::string& who);

// The request's model quantized by `tool` on the calibration set (kCalibrationBatches batches at
// the request's input shapes, each input drawn with CalibrationSeed, core/tensor.h), or found in
// the cache: <request.cache_dir>/<who>-int8/<key>/, the key covering the model (AddOnnxModel),
// the script, tool.sdk_version, tool.args, the batch count and the input names and shapes: two
// compilers with the same tool share the entries. A new entry is
// complete or absent (CacheEntryBuild); the calibration files are removed once the script is
// done (they are drawn again from their seeds). Without a cache directory the model is
// quantized into a folder of `scratch`. Throws CompileError when the script fails or its
// meta.json is not an object, StorageError when a file cannot be written.
QuantizedModel QuantizeModel(const CompileRequest& request, const QuantizeTool& tool,
                             QuantizeScratch& scratch);

// What a compiler compiles at the run's precision: the run's request as it is, or, with a tool,
// the request's model quantized by it (QuantizeModel) and the same request reading the quantized
// model's file `file` of its entry (onnx_path, no bytes; graph, cache and scenario as they were),
// its config's precision replaced by `compiled_precision` where that is given (openvino compiles
// NNCF's model at fp32, its FakeQuantize layers running as integer kernels). Holds what the
// request refers to, so it is neither copied nor moved.
class ModelToCompile {
 public:
  ModelToCompile(const CompileRequest& request, const std::optional<QuantizeTool>& tool,
                 QuantizeScratch& scratch, const std::string& file,
                 const std::string& compiled_precision = "");
  ModelToCompile(const ModelToCompile&) = delete;
  ModelToCompile& operator=(const ModelToCompile&) = delete;

  const CompileRequest& request() const {
    return quantized_request_ ? *quantized_request_ : original_;
  }
  // The quantized model, or nullptr when the request is compiled as it is.
  const QuantizedModel* quantized() const { return quantized_ ? &*quantized_ : nullptr; }

 private:
  const CompileRequest& original_;
  std::optional<QuantizedModel> quantized_;
  std::optional<CompilerConfig> config_;
  std::optional<CompileRequest> quantized_request_;
};

}  // namespace ngraphbench
