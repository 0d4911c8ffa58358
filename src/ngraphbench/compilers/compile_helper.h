// What the compilers that compile in a helper process share (tvm and inductor run a Python
// script that writes a library or package into a cache entry, then load it in the worker): the
// model's part of a cache key (the hashes: core/hash.h), the ONNX file the script reads, and the
// script's run, log and failure (the run itself: core/subprocess.h; the entry:
// results/cache_entry.h).
// onnxruntime and openvino use its cache entries and keys too, for what a
// run's first process compiles and its later ones load. Part of ngb_core, which every module
// links.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"  // ReadFile, kMaxModelBytes
#include "ngraphbench/core/hash.h"  // Fnv128, ContentDigest
#include "ngraphbench/core/host.h"  // MachineIdentity, for the compilers' keys
#include "ngraphbench/core/subprocess.h"     // RunProcess, EnvOr, LastLine
#include "ngraphbench/results/cache_entry.h"  // the entries the scripts write

namespace ngraphbench {

// The ONNX file a compile script reads: the request's `onnx_path` (a model with its external data
// beside it), or else its ONNX bytes written to <dir>/model.onnx for the script's run and removed
// when this goes (the cache key covers them; a copy would only double the cache size).
class ScriptOnnxFile {
 public:
  ScriptOnnxFile(const std::string& onnx_path, const std::string& onnx_bytes,
                 const std::filesystem::path& dir);
  ~ScriptOnnxFile();
  ScriptOnnxFile(const ScriptOnnxFile&) = delete;
  ScriptOnnxFile& operator=(const ScriptOnnxFile&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  bool written_ = false;
};

// Runs a compile script (argv: a python and the script) that writes into cache entry `entry`, its
// output to <entry>/compile.log, and succeeds when it exits 0 having written `done` (its
// meta.json, written last). The script ends through python/script_exit.py's run_main, which it
// finds on the PYTHONPATH given here. On a failure the whole log goes to stderr (the worker's log)
// and `discard` is removed when not empty (an uncached compile's temporary folder); then an exit
// with kExitStorageFailed (the storage failed: a full disk is not the compiler's failure) throws
// StorageError "<who>: the compile script could not write into <entry>'s folder: <the log's last
// line>", so that the worker writes no row and the sweep stops (core/error.h); any other failure
// throws CompileError "<who>: compiling failed (<the log's last line, or the exit status>)".
void RunCompileScript(const std::vector<std::string>& argv, const std::filesystem::path& entry,
                      const std::filesystem::path& done, const std::filesystem::path& discard,
                      const std::string& who, const std::string& fix);

// Adds the model a compile script reads to a cache key: the ONNX bytes, or for a model given by
// path (CompileRequest::onnx_path) the file and its external data, every other file of its folder
// by name and content, in name order. Errors name `who`, the compiler.
void AddOnnxModel(Fnv128& key, const std::string& onnx_path, const std::string& onnx_bytes,
                  const std::string& who);

// The ContentDigest of what AddOnnxModel adds to a key (the ONNX bytes, or the file given by path
// and every other file of its folder, by name, size and content, in name order), as hex. Errors
// name `who`, the compiler.
std::string OnnxModelDigest(const std::string& onnx_path, const std::string& onnx_bytes,
                            const std::string& who);

}  // namespace ngraphbench
