// The one way ngraphbench opens a file it reads, inputs and side files alike (a config, a model,
// a result row, machine.json, a claim or lock, a cache entry): regular files only, opened
// without blocking (a FIFO would wait for a writer forever), with a ceiling on the size that
// fits the file's kind, so that no file can hang or exhaust the process; every refusal names the
// file. Files the tool itself keeps in the results tree may not be symbolic links (Links), and
// what it writes there is always a fresh regular file (CreateFreshFile).
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace ngraphbench {

// Ceilings on the files ngraphbench reads, far above anything it writes or a user writes by hand.
constexpr uint64_t kMaxConfigBytes = uint64_t{16} << 20;    // a YAML config
constexpr uint64_t kMaxRowBytes = uint64_t{1} << 20;        // one result row
constexpr uint64_t kMaxTraceBytes = uint64_t{1} << 30;      // one latency trace
constexpr uint64_t kMaxModelBytes = uint64_t{2} << 30;      // protobuf's own limit for a model
// Files of the results tree that the tool writes itself, far above what it writes.
constexpr uint64_t kMaxMachineJsonBytes = uint64_t{4} << 20;  // machine.json, every machine
constexpr uint64_t kMaxClaimBytes = uint64_t{64} << 10;       // a claim or lock (~300 bytes)
constexpr uint64_t kMaxCacheBytes = uint64_t{64} << 10;       // a cache's text entry (a MAC count)
constexpr uint64_t kMaxLogTailBytes = uint64_t{64} << 10;     // what is quoted of a child's log

// Whether a symbolic link is followed. A file the user names (a config, a model) may be one. A
// file of the results tree that the tool keeps itself (machine.json, claims, locks, caches) may
// not: it is replaced by rename, which would silently cut a link to elsewhere, and a link to a
// device (/dev/zero) or a FIFO would be read forever. A folder on the way may be a link (a
// results folder on another disk): only the file's own name is checked.
enum class Links { kFollow, kRefuse };

// The whole content of `path`. Throws InputError naming `what` (e.g. "config file") and the path
// when it cannot be opened, is not a regular file (a FIFO, socket, device or folder; with
// Links::kRefuse, a symbolic link), or holds more than `max_bytes`. `status`, when given, is
// filled from the open file (its mtime, say).
std::string ReadFileCapped(const std::string& path, uint64_t max_bytes, const std::string& what,
                           Links links = Links::kFollow, struct stat* status = nullptr);

// The whole file, or "" when it cannot be read, is not a regular file (a FIFO in a cache folder
// is passed over, not waited on) or holds more than `max_bytes` (ReadFileCapped).
std::string ReadFile(const std::filesystem::path& path, uint64_t max_bytes = kMaxModelBytes);

// As ReadFileCapped, but nullopt when there is no file of that name (ENOENT, or ENOTDIR: a
// folder on the way is a file).
std::optional<std::string> ReadFileIfExists(const std::string& path, uint64_t max_bytes,
                                            const std::string& what, Links links = Links::kFollow,
                                            struct stat* status = nullptr);

// Throws InputError naming `what` and `path` when something is there that is not a regular file
// (lstat(2): a symbolic link counts as one); nothing when there is no such file. What a scan of
// the results tree runs before anything is written, for names the tool reads later.
void CheckRegularOrMissing(const std::string& path, const std::string& what);

// The last `max_bytes` (at most) of a log file, for a message: "" when it is missing, not a
// regular file or a symbolic link. Never reads more than that, however large the log.
std::string ReadLogTail(const std::string& path, uint64_t max_bytes = kMaxLogTailBytes);

// `text` as a message quotes a value it refuses: whole when short, else its first `max_bytes`
// bytes (never cut inside a UTF-8 character) and "…" with the full size, so that a value of
// megabytes does not become a message of megabytes.
std::string QuoteShort(const std::string& text, size_t max_bytes = 80);

// Whether `text` is valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
// The results tree's JSON and CSV files hold UTF-8 text: a path or name that is not cannot be
// written into them.
bool IsValidUtf8(const std::string& text);

// `text` with every byte that is not printable ASCII as \xHH: a name with bytes that are not
// UTF-8 (or control characters) quoted safely in a message.
std::string EscapeBytes(const std::string& text);

// Creates `path` as a new, empty regular file for writing (O_CREAT | O_EXCL | O_NOFOLLOW): a
// temporary file of a writer, named after its host and process, which an earlier process of the
// same pid may have left (removed first, whatever it is: a FIFO or link there would block the
// writer or send its bytes elsewhere). Returns the descriptor, or -1 with errno set.
int CreateFreshFile(const std::string& path, mode_t mode = 0644);

// Writes all of `data` to the open file `fd` (retrying short writes and EINTR); a failure throws
// the FileError of ThrowFileError (core/error.h) naming `path`.
void WriteFully(int fd, const std::string& data, const std::string& path);

// The name of a writer's temporary file for `path`: `<path><what>.tmp.<host>.<pid>`, <host> as
// HostTag() in core/process.h. The host is in the name because on a results tree shared between
// machines a pid alone does not say whose file it is (RemoveStaleTempFiles).
std::string TempFileName(const std::string& path, const std::string& what = "");

// Writes `contents` to a fresh temporary file for `path` (TempFileName, created by
// CreateFreshFile; missing parent folders are made) and closes it, after fsync(2) when `sync`.
// Returns the temporary's name, for the caller to rename or link into place. On any failure the
// temporary is removed and the FileError thrown: a full disk or quota may show only at fsync or
// close (NFS sends the data then), and a file cut short is never left to be put in place.
std::string WriteTempFile(const std::string& path, const std::string& contents, bool sync);

// Writes `contents` to `path` atomically: WriteTempFile (fsync'd), then rename(2), so a reader
// sees the old file or the new one, never half of one. The rename replaces whatever `path` is (a
// FIFO, a link) by this regular file. Creates parent folders.
void WriteFileAtomic(const std::string& path, const std::string& contents);

// Removes temporary files that an interrupted writer left in `dir`; returns how many. A file of
// this host goes once its process is gone (a live writer's stays); one of another host (the
// tree is shared), or of no recognizable owner, once it is older than 10 minutes, since a pid
// cannot be checked across machines and no write takes that long.
int RemoveStaleTempFiles(const std::string& dir);

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
UniqueFd OpenFileCapped(const std::string& path, uint64_t max_bytes, const std::string& what,
                        Links links = Links::kFollow);

}  // namespace ngraphbench
