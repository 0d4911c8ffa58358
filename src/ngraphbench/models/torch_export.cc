#include "ngraphbench/models/torch_export.h"

#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <system_error>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/core/hash.h"
#include "ngraphbench/core/subprocess.h"
#include "ngraphbench/core/version.h"
#include "ngraphbench/graph/working_set.h"  // kMaxSampleElements, shared with model inputs
#include "ngraphbench/results/cache_entry.h"

namespace ngraphbench {

namespace fs = std::filesystem;

namespace {

constexpr char kTimmPrefix[] = "timm:";

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool IsIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (const char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

constexpr char kUsage[] =
    "a PyTorch model is written timm:<name> (a timm model) or <file>.py:<function> (a "
    "function in a Python file that returns a torch.nn.Module)";

}  // namespace

std::string FormatInputShape(const std::vector<int64_t>& shape) {
  std::string text;
  for (const int64_t d : shape) text += (text.empty() ? "" : ",") + std::to_string(d);
  return text;
}

std::string TorchSourceFile(const std::string& text) {
  const size_t colon = text.rfind(':');
  if (text.rfind(kTimmPrefix, 0) == 0 || colon == std::string::npos) return "";
  return text.substr(0, colon);
}

bool IsTorchSource(const std::string& text) {
  return text.rfind(kTimmPrefix, 0) == 0 || text.find(".py:") != std::string::npos;
}

TorchSource ParseTorchSource(const std::string& text) {
  TorchSource source;
  if (text.rfind(kTimmPrefix, 0) == 0) {
    source.timm = text.substr(sizeof(kTimmPrefix) - 1);
    // timm's names: letters, digits, '_' and '.', e.g. resnet18, vit_base_patch16_224.augreg_in1k
    bool ok = !source.timm.empty() && source.timm.size() <= 200;
    for (const char c : source.timm) {
      ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-');
    }
    if (!ok) {
      throw InputError("'" + text + "' is not a timm model name (letters, digits, '_', '.', '-' "
                       "after 'timm:', e.g. timm:resnet18)");
    }
    return source;
  }
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || !EndsWith(text.substr(0, colon), ".py")) {
    throw InputError("'" + text + "' is not a PyTorch model: " + kUsage);
  }
  source.file = text.substr(0, colon);
  source.function = text.substr(colon + 1);
  if (!IsIdentifier(source.function)) {
    throw InputError("'" + text + "': '" + source.function +
                     "' is not a Python function name; " + kUsage);
  }
  std::error_code ec;
  if (!fs::exists(source.file, ec)) {
    throw InputError("'" + text + "': the Python file '" + source.file + "' does not exist");
  }
  if (!fs::is_regular_file(source.file, ec)) {
    throw InputError("'" + text + "': the Python file '" + source.file +
                     "' is not a regular file");
  }
  return source;
}

std::string TorchModelName(const TorchSource& source) {
  if (!source.timm.empty()) return "timm_" + SafeName(source.timm);
  return SafeName(fs::path(source.file).stem().string() + "_" + source.function);
}

void CheckTorchInputShape(const std::vector<int64_t>& shape, const std::string& where) {
  if (shape.empty() || shape.size() > 6) {
    throw InputError(where + " has " + std::to_string(shape.size()) +
                     " dimensions; a PyTorch model's input shape has 1 to 6, without the batch "
                     "dimension (e.g. 3,224,224)");
  }
  int64_t elements = 1;
  for (const int64_t d : shape) {
    if (d < 1) {
      throw InputError(where + " has a dimension " + std::to_string(d) + "; each must be >= 1");
    }
    if (d > kMaxSampleElements || elements > kMaxSampleElements / d) {
      throw InputError(where + " holds more than 2^28 elements per sample");
    }
    elements *= d;
  }
}

std::vector<int64_t> ParseInputShape(const std::string& text) {
  std::vector<int64_t> shape;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string part = text.substr(pos, comma - pos);
    bool digits = !part.empty() && part.size() <= 12;
    for (const char c : part) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (!digits) {
      throw InputError("--input-shape '" + text +
                       "' is not a list of positive integers such as 3,224,224 (without the "
                       "batch dimension)");
    }
    shape.push_back(std::stoll(part));
    pos = comma + 1;
  }
  CheckTorchInputShape(shape, "--input-shape '" + text + "'");
  return shape;
}

TorchExport ExportTorchModel(const ModelSpec& spec, int64_t batch_size,
                             const std::string& cache_dir) {
  static const std::string kWho = "PyTorch export";
  const TorchSource source = ParseTorchSource(spec.torch_source);
  const std::string script = NGB_EXPORT_TORCH_SCRIPT;
  const std::string python = EnvOr("NGRAPHBENCH_PYTHON", NGB_EXPORT_PYTHON);
  Fnv128 key;
  key.Add("torch-export=1").Add(BuildVersion()).Add(spec.torch_source);
  key.Add(FormatInputShape(spec.input_shape)).Add(std::to_string(batch_size)).Add(python);
  key.Add(ReadFile(script, kMaxConfigBytes))
      .Add(ReadFile(fs::path(script).parent_path() / "export_timm.py", kMaxConfigBytes));
  if (!source.file.empty()) key.AddFile(source.file, kWho);
  const fs::path root = fs::path(cache_dir) / "torch";
  const fs::path entry =
      root / (spec.name + "_b" + std::to_string(batch_size) + "." + key.Hex().substr(0, 16));
  const auto exported = [](const fs::path& e) {
    std::error_code ec;
    return fs::exists(e / "meta.json", ec);
  };
  if (!exported(entry)) {
    // Exported into a folder of its own, then renamed (results/cache_entry.h): workers running at
    // once (--jobs) each export, the first rename wins and the others use its entry; a worker
    // killed while exporting (a timeout, an interrupt) leaves no partial entry.
    CacheEntryBuild build(entry);
    const fs::path log = build.dir() / "export.log";
    const int status = RunProcess(
        {python, script, "--source", spec.torch_source, "--input-shape",
         FormatInputShape(spec.input_shape), "--batch-size", std::to_string(batch_size),
         "--out-dir", build.dir().string()},
        log, kWho, "set NGRAPHBENCH_PYTHON to a python with torch (and timm), or run ./setup.sh");
    if (status != 0 || !exported(build.dir())) {
      const std::string last = LastLine(ReadLogTail(log.string()));
      // The script could not write its export: the storage's failure, not the model's.
      ThrowIfStorageFailed(status, "exporting " + spec.torch_source + " into " + root.string() +
                                       ": " +
                                       (last.empty() ? "the export script's log is empty" : last));
      throw CompileError(
          "exporting " + spec.torch_source + " failed" +
          (last.empty() ? " (exit status " + std::to_string(status) + ")" : ": " + last));
    }
    build.Commit(exported);
  }
  const fs::path meta_path = entry / "meta.json";
  nlohmann::json meta;
  try {
    meta = nlohmann::json::parse(ReadFile(meta_path, kMaxConfigBytes));
  } catch (const nlohmann::json::exception& e) {
    throw CompileError("unreadable export " + meta_path.string() + ": " + e.what() +
                             "; delete " + entry.string() + " to export again");
  }
  TorchExport out;
  out.params = meta.value("params", int64_t{0});
  out.onnx_error = meta.value("onnx_error", std::string());
  out.export_error = meta.value("export_error", std::string());
  if (out.onnx_error.empty()) out.onnx_path = (entry / "model.onnx").string();
  if (out.export_error.empty()) out.program_path = (entry / "program.pt2").string();
  return out;
}

void PrepareModel(ModelSpec& spec, int64_t batch_size, const std::string& cache_dir) {
  if (spec.family != "torch") return;
  const TorchExport exported = ExportTorchModel(spec, batch_size, cache_dir);
  if (exported.onnx_path.empty()) throw CompileError(exported.onnx_error);
  spec.onnx_path = exported.onnx_path;
  spec.torch_program = exported.program_path;
  spec.torch_program_error = exported.export_error;
  spec.exact_params = exported.params;
}

}  // namespace ngraphbench
