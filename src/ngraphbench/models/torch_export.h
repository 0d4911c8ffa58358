// Models given as PyTorch code (family `torch`): a timm model by name, `timm:<name>`, or a Python
// file with a factory function, `<file>.py:<function>`, plus an input shape without the batch
// dimension. python/export_torch.py exports such a model once per batch size, as ONNX (for the
// IR and the ONNX-based compilers) and as a torch.export program (for `inductor`); the exports
// are cached by content under <results>/.cache/torch/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/models/zoo.h"

namespace ngraphbench {

struct TorchSource {
  std::string timm;      // the timm model name, or empty
  std::string file;      // the factory's Python file, or empty
  std::string function;  // the factory function in `file`
};

// Whether `text` is written as a PyTorch source ("timm:..." or "....py:..."), valid or not.
bool IsTorchSource(const std::string& text);

// Parses and checks a source: throws InputError naming what is wrong (an empty or malformed
// name, a file that does not exist, a function name that is not a Python identifier) and what
// is expected.
TorchSource ParseTorchSource(const std::string& text);

// The model's name in run ids and rows: "timm_<name>", or "<file stem>_<function>", with
// characters outside [A-Za-z0-9_.-] replaced by '_'.
std::string TorchModelName(const TorchSource& source);

// Throws InputError unless `shape` is a usable input shape (1 to 6 positive dimensions, at most
// 2^28 elements per sample). `where` names the setting in the message.
void CheckTorchInputShape(const std::vector<int64_t>& shape, const std::string& where);

// "3,224,224": an input shape as --input-shape writes it (in cache keys and fingerprints).
std::string FormatInputShape(const std::vector<int64_t>& shape);

// The Python file of a "<file>.py:<function>" source; "" for "timm:<name>". Not checked.
std::string TorchSourceFile(const std::string& text);

// Parses "3,224,224" (the command line's --input-shape); throws InputError.
std::vector<int64_t> ParseInputShape(const std::string& text);

// What export_torch.py wrote for one (model, batch size).
struct TorchExport {
  std::string onnx_path;     // model.onnx, empty when the ONNX export failed
  std::string program_path;  // program.pt2, empty when torch.export failed
  std::string onnx_error, export_error;  // the exporters' messages
  int64_t params = 0;        // exact, counted from the module
};

// The export of `spec` (family `torch`) at `batch_size`, from the cache under `cache_dir`
// (<results>/.cache) or made now. The cache key covers the source (and the factory file's
// bytes), the input shape, the batch size, the export script and this build. Throws
// CompileError (in a worker: an `error` row) with the exporter's message when the model cannot
// be built at all.
TorchExport ExportTorchModel(const ModelSpec& spec, int64_t batch_size,
                             const std::string& cache_dir);

// For family `torch`: exports (ExportTorchModel) and fills spec's onnx_path and torch_program,
// so that BuildModel imports the export. Throws CompileError naming the exporter's message when
// there is no ONNX export. Other families are left as they are.
void PrepareModel(ModelSpec& spec, int64_t batch_size, const std::string& cache_dir);

}  // namespace ngraphbench
