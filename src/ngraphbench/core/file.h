// Reading whole input files with a ceiling on their size, so that no file given to ngraphbench
// (a config, a model, a result row) can exhaust the process's memory.
#pragma once

#include <cstdint>
#include <string>

namespace ngraphbench {

// Ceilings on the files ngraphbench reads, far above anything it writes or a user writes by hand.
constexpr uint64_t kMaxConfigBytes = uint64_t{16} << 20;    // a YAML config
constexpr uint64_t kMaxRowBytes = uint64_t{1} << 20;        // one result row
constexpr uint64_t kMaxTraceBytes = uint64_t{1} << 30;      // one latency trace
constexpr uint64_t kMaxModelBytes = uint64_t{2} << 30;      // protobuf's own limit for a model

// The whole content of `path`. Throws InputError naming `what` (e.g. "config file") and the path
// when it cannot be opened, is not a regular file, or holds more than `max_bytes`.
std::string ReadFileCapped(const std::string& path, uint64_t max_bytes, const std::string& what);

// `name` made safe as one component of a file name the tool writes, and as one word on a command
// line (run ids derive from model file names): letters, digits, '.', '_' and '-' are kept, every
// other byte becomes '_', and so does a leading '-' or '.' (never an option, never hidden).
std::string SafeName(const std::string& name);

// Whether `path` names something that exists (access(2) with F_OK).
bool FileExists(const std::string& path);

// 64-bit FNV-1a of the content of `path` as 16 hex digits (core/random.h), read in chunks; a
// file of 64 MiB or more is remembered per path, size, inode and modification time for the life
// of the process. "?" when the file cannot be read.
std::string FileDigest(const std::string& path);

// What to do about a write to `dir` (the results folder) that failed because the storage failed
// (IsStorageFailure in core/error.h) with `error_number`, 0 when another process saw it: e.g.
// "free space on the file system of <dir> (0.1 MiB free of 4.0 MiB)", with the file system's free
// space now; a read-only file system (EROFS, or found so now) is to be made writable, and an I/O
// error (EIO) checked first.
std::string StorageAdvice(int error_number, const std::string& dir);

// A file descriptor that is closed when it goes out of scope.
class UniqueFd {
 public:
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  UniqueFd& operator=(UniqueFd&&) = delete;
  ~UniqueFd();
  int get() const { return fd_; }

 private:
  int fd_;
};

// `path` opened for reading after the checks of ReadFileCapped (a regular file of at most
// `max_bytes`), for a reader that streams it instead of holding a copy of its bytes. The caller
// must still stop at `max_bytes`: the file may grow after the check.
UniqueFd OpenFileCapped(const std::string& path, uint64_t max_bytes, const std::string& what);

}  // namespace ngraphbench
