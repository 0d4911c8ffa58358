#include "ngraphbench/compilers/compile_helper.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>

#include "ngraphbench/core/process.h"


namespace ngraphbench {

namespace fs = std::filesystem;

ScriptOnnxFile::ScriptOnnxFile(const std::string& onnx_path, const std::string& onnx_bytes,
                               const fs::path& dir) {
  if (!onnx_path.empty()) {
    path_ = onnx_path;
    return;
  }
  path_ = dir / "model.onnx";
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int error = fd < 0 ? errno : 0;
  for (size_t done = 0; fd >= 0 && error == 0 && done < onnx_bytes.size();) {
    const ssize_t n = ::write(fd, onnx_bytes.data() + done, onnx_bytes.size() - done);
    if (n > 0) done += static_cast<size_t>(n);
    if (n < 0 && errno != EINTR) error = errno;
    if (n == 0) error = EIO;  // a regular file takes at least a byte, or says why not
  }
  if (fd >= 0 && ::close(fd) != 0 && error == 0) error = errno;
  written_ = fd >= 0;
  if (error != 0) {
    // A full disk here is the storage's failure, as in the script (core/error.h).
    std::error_code ec;
    fs::remove(path_, ec);
    ThrowFileError("cannot write the model for the compile script to " + path_.string(), error);
  }
}

ScriptOnnxFile::~ScriptOnnxFile() {
  std::error_code ec;
  if (written_) fs::remove(path_, ec);
}

void RunCompileScript(const std::vector<std::string>& argv, const fs::path& entry,
                      const fs::path& done, const fs::path& discard, const std::string& who,
                      const std::string& fix) {
  const fs::path log = entry / "compile.log";
  std::error_code ec;
  fs::remove(log, ec);
  // python/script_exit.py first, then what the worker was given.
  const std::string python_path = EnvOr("PYTHONPATH", "");
  const int rc =
      RunProcess(argv, log, who, fix,
                 {"PYTHONPATH=" + std::string(NGB_PYTHON_DIR) +
                  (python_path.empty() ? "" : ":" + python_path)});
  if (rc == 0 && fs::exists(done)) return;
  const std::string text = ReadLogTail(log.string());
  std::cerr << text;  // the Python traceback (the log's last 64 KiB), for the worker's log
  if (!discard.empty()) fs::remove_all(discard, ec);
  const std::string why = LastLine(text);
  // The log may have had no room for the script's message.
  ThrowIfStorageFailed(rc, who + ": the compile script could not write into " +
                               entry.parent_path().string() + ": " +
                               (why.empty() ? "its log is empty (exit status 74)" : why));
  throw CompileError(who + ": compiling failed (" +
                     (why.empty() ? "exit status " + std::to_string(rc) : why) + ")");
}

namespace {

// The files of a model given by path other than the model itself (its external data), in name
// order.
std::vector<fs::path> OnnxDataFiles(const fs::path& model) {
  std::vector<fs::path> data_files;
  for (const auto& f : fs::directory_iterator(model.parent_path().empty() ? fs::path(".")
                                                                          : model.parent_path())) {
    if (f.is_regular_file() && f.path().filename() != model.filename()) {
      data_files.push_back(f.path());
    }
  }
  std::sort(data_files.begin(), data_files.end());
  return data_files;
}

}  // namespace

void AddOnnxModel(Fnv128& key, const std::string& onnx_path, const std::string& onnx_bytes,
                  const std::string& who) {
  if (onnx_path.empty()) {
    key.Add(onnx_bytes);
    return;
  }
  const fs::path model(onnx_path);
  key.Add(ReadFile(model.string()));
  for (const auto& f : OnnxDataFiles(model)) key.Add(f.filename().string()).AddFile(f, who);
}

std::string OnnxModelDigest(const std::string& onnx_path, const std::string& onnx_bytes,
                            const std::string& who) {
  ContentDigest digest;
  if (onnx_path.empty()) return digest.Add(onnx_bytes).Hex();
  const fs::path model(onnx_path);
  std::vector<fs::path> files = {model};
  for (const fs::path& f : OnnxDataFiles(model)) files.push_back(f);
  for (const fs::path& f : files) {
    ReadInChunks(
        f, who,
        [&](uint64_t size) {
          // Name and size first: the pieces cannot run into each other.
          digest.Add(f.filename().string() + '\0' + std::to_string(size) + '\0');
        },
        [&](const char* data, size_t size) { digest.Add(data, size); });
  }
  return digest.Hex();
}

}  // namespace ngraphbench
