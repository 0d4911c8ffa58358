// What the compilers that compile in a helper process share (tvm and inductor run a Python
// script that writes a library or package into a cache entry, then load it in the worker): the
// cache key's hash and the model's part of it, the ONNX file the script reads, and the script's
// run, log and failure (the run itself: core/subprocess.h; the entry: results/cache_entry.h).
// onnxruntime and openvino use its cache entries and keys too, for what a
// run's first process compiles and its later ones load. Part of ngb_core, which every module
// links.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"  // kMaxModelBytes
#include "ngraphbench/core/subprocess.h"     // RunProcess, EnvOr, LastLine
#include "ngraphbench/results/cache_entry.h"  // the entries the scripts write

namespace ngraphbench {

// The whole file, or "" when it cannot be read, is not a regular file (a FIFO in a cache folder
// is passed over, not waited on) or holds more than `max_bytes` (core/file.h).
std::string ReadFile(const std::filesystem::path& path, uint64_t max_bytes = kMaxModelBytes);

// The CPU's model name and flags (/proc/cpuinfo): what host code generation depends on (it picks
// the host's vector ISA), so that code compiled for this CPU is not reused on another one that
// shares the cache directory.
std::string HostCpuIdentity();

// What a cache key holds of this machine for code compiled for it (an SDK's blob or optimized
// model that may carry this CPU's instruction set or layout): the machine_id the scheduler hands
// its workers ($NGB_MACHINE_ID, measure/machine.h) when set, and HostCpuIdentity(), so that a
// results tree shared between machines never gives one machine another's build.
std::string MachineIdentity();

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

// The bytes of `path`, in chunks of 16 MiB, to `take`, after its size to `size_first`: a model's
// external data may be larger than what should be held in memory a second time. The file is
// opened as every input is (core/file.h: a FIFO is refused, not waited on). Throws CompileError
// naming `who` when it cannot be read or changes while read.
void ReadInChunks(const std::filesystem::path& path, const std::string& who,
                  const std::function<void(uint64_t size)>& size_first,
                  const std::function<void(const char* data, size_t size)>& take);

// FNV-1a, 128 bits: a stable content hash (std::hash may change between library versions, and
// the cache outlives the binary). Collisions are not a security concern here.
class Fnv128 {
 public:
  Fnv128& Add(const std::string& bytes) {
    // Each part is length-prefixed so that ("ab","c") and ("a","bc") differ.
    const std::string len = std::to_string(bytes.size()) + ":";
    Mix(len.data(), len.size());
    Mix(bytes.data(), bytes.size());
    return *this;
  }

  // A file's bytes as Add would take them, read in chunks: a model's external data may be
  // larger than what should be held in memory a second time. Errors name `who`, the compiler.
  Fnv128& AddFile(const std::filesystem::path& path, const std::string& who) {
    ReadInChunks(
        path, who,
        [&](uint64_t size) {
          const std::string len = std::to_string(size) + ":";
          Mix(len.data(), len.size());
        },
        [&](const char* data, size_t size) { Mix(data, size); });
    return *this;
  }

  std::string Hex() const {
    char buf[33];
    std::snprintf(buf, sizeof(buf), "%016llx%016llx",
                  static_cast<unsigned long long>(state_ >> 64),
                  static_cast<unsigned long long>(state_));
    return buf;
  }

 private:
  void Mix(const char* data, size_t n) {
    constexpr unsigned __int128 kPrime =
        (static_cast<unsigned __int128>(1) << 88) | static_cast<unsigned __int128>(0x13b);
    for (size_t i = 0; i < n; ++i) {
      state_ ^= static_cast<unsigned char>(data[i]);
      state_ *= kPrime;
    }
  }

  unsigned __int128 state_ = (static_cast<unsigned __int128>(0x6c62272e07bb0142ULL) << 64) |
                             0x62b821756295c58dULL;
};

// Adds the model a compile script reads to a cache key: the ONNX bytes, or for a model given by
// path (CompileRequest::onnx_path) the file and its external data, every other file of its folder
// by name and content, in name order. Errors name `who`, the compiler.
void AddOnnxModel(Fnv128& key, const std::string& onnx_path, const std::string& onnx_bytes,
                  const std::string& who);

// A 128-bit digest of bytes that come in pieces, over 8-byte words in four independent lanes:
// about twenty times as fast as Fnv128, which takes 0.17 s over a 100 MB model. For a key that
// every process of a run computes before it may load what the first one compiled (onnxruntime,
// openvino), where that would cost a large model more than the load saves. Not cryptographic.
class ContentDigest {
 public:
  ContentDigest& Add(const char* data, size_t size);
  ContentDigest& Add(const std::string& bytes) { return Add(bytes.data(), bytes.size()); }
  std::string Hex() const;

 private:
  static constexpr size_t kStripe = 32;  // one 8-byte word per lane
  void Stripe(const char* data);

  uint64_t lanes_[4] = {0x6c62272e07bb0142ULL, 0x62b821756295c58dULL, 0x9e3779b97f4a7c15ULL,
                        0xd6e8feb86659fd93ULL};
  char pending_[kStripe] = {};  // the bytes after the last whole stripe
  size_t pending_size_ = 0;
  uint64_t total_ = 0;
};

// The ContentDigest of what AddOnnxModel adds to a key (the ONNX bytes, or the file given by path
// and every other file of its folder, by name, size and content, in name order), as hex. Errors
// name `who`, the compiler.
std::string OnnxModelDigest(const std::string& onnx_path, const std::string& onnx_bytes,
                            const std::string& who);

}  // namespace ngraphbench
