#include "ngraphbench/core/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <utility>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/random.h"

namespace ngraphbench {

std::string SafeName(const std::string& name) {
  std::string out = name;
  for (char& c : out) {
    const bool kept = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    if (!kept) c = '_';
  }
  if (!out.empty() && (out[0] == '-' || out[0] == '.')) out[0] = '_';
  return out;
}

bool FileExists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {

InputError TooBig(const std::string& path, uint64_t max_bytes, const std::string& what,
                  const std::string& size) {
  return InputError(what + " '" + path + "' holds " + size + " bytes, more than the " +
                    std::to_string(max_bytes) + " such a file may hold");
}

// `path` opened for reading, and whether it is a regular file (`st` filled from the open file).
// O_NONBLOCK: opening a FIFO would otherwise wait for a writer, forever and without a word; a
// regular file's descriptor is made blocking again. On a failed open the fd is -1, errno set.
UniqueFd OpenRegular(const std::string& path, struct stat& st, bool& regular) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  regular = fd.get() >= 0 && ::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode);
  if (regular) ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  return fd;
}

// The open file and its size at the time of the checks.
std::pair<UniqueFd, uint64_t> OpenChecked(const std::string& path, uint64_t max_bytes,
                                          const std::string& what) {
  struct stat st {};
  bool regular = false;
  UniqueFd fd = OpenRegular(path, st, regular);
  if (fd.get() < 0) {
    throw InputError("cannot open " + what + " '" + path + "': " + std::strerror(errno));
  }
  // Checked on the open file, so a file swapped after the check cannot slip past the ceiling. A
  // FIFO, socket or device has no size to check and is refused.
  if (!regular) throw InputError(what + " '" + path + "' is not a regular file");
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    throw TooBig(path, max_bytes, what, std::to_string(st.st_size));
  }
  return {std::move(fd), static_cast<uint64_t>(st.st_size)};
}

}  // namespace

UniqueFd OpenFileCapped(const std::string& path, uint64_t max_bytes, const std::string& what) {
  return std::move(OpenChecked(path, max_bytes, what).first);
}

std::string ReadFileCapped(const std::string& path, uint64_t max_bytes, const std::string& what) {
  auto [fd, size] = OpenChecked(path, max_bytes, what);
  const auto too_big = [&](const std::string& n) { return TooBig(path, max_bytes, what, n); };
  // Read to the end (the file may have grown since fstat), never past the ceiling.
  std::string text(static_cast<size_t>(size), '\0');
  size_t used = 0;
  while (true) {
    if (used == text.size()) {
      if (text.size() > max_bytes) throw too_big("more than " + std::to_string(max_bytes));
      text.resize(std::min<uint64_t>(max_bytes + 1, text.size() + 65536));
    }
    const ssize_t got = ::read(fd.get(), text.data() + used, text.size() - used);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw InputError("cannot read " + what + " '" + path + "': " + std::strerror(errno));
    if (got == 0) break;
    used += static_cast<size_t>(got);
  }
  if (used > max_bytes) throw too_big("more than " + std::to_string(max_bytes));
  text.resize(used);
  return text;
}

std::string FileDigest(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::pair<std::string, std::string>> known;  // path -> (stamp, hex)
  struct stat st {};
  bool regular = false;
  const UniqueFd fd = OpenRegular(path, st, regular);
  if (!regular) return "?";
  const std::string stamp = std::to_string(st.st_size) + ":" + std::to_string(st.st_ino) + ":" +
                            std::to_string(st.st_mtim.tv_sec) + "." +
                            std::to_string(st.st_mtim.tv_nsec);
  // Only large files are remembered: hashing them again per run of a sweep would cost seconds,
  // and a file rewritten within the file system's timestamp granularity (milliseconds) at the
  // same size is then not a realistic case; small files are always read again.
  const bool remember = st.st_size >= (off_t{64} << 20);
  if (remember) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = known.find(path);
    if (it != known.end() && it->second.first == stamp) return it->second.second;
  }
  uint64_t h = kFnv1a64Basis;
  std::string chunk(1 << 20, '\0');
  while (true) {
    const ssize_t got = ::read(fd.get(), chunk.data(), chunk.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return "?";
    if (got == 0) break;
    h = Fnv1a64Update(h, chunk.data(), static_cast<size_t>(got));
  }
  const std::string hex = Hex64(h);
  if (remember) {
    std::lock_guard<std::mutex> lock(mutex);
    known[path] = {stamp, hex};
  }
  return hex;
}

std::string StorageAdvice(int error_number, const std::string& dir) {
  // The folder itself may be what could not be made: its nearest existing ancestor is on the
  // same file system.
  struct statvfs fs {};
  bool known = false;
  for (std::filesystem::path at = dir.empty() ? "." : dir; !known && !at.empty();
       at = at == at.parent_path() ? std::filesystem::path() : at.parent_path()) {
    known = ::statvfs(at.c_str(), &fs) == 0;
  }
  const bool read_only = error_number == EROFS || (known && (fs.f_flag & ST_RDONLY) != 0);
  if (read_only) {
    return "the file system of " + dir + " is read-only: make it writable (if it went read-only " +
           "after errors, check the disk first)";
  }
  if (error_number == EIO) {
    return "the storage of " + dir + " reported an I/O error: check the disk or the file server " +
           "(dmesg) before writing to it again";
  }
  std::string space = "free space unknown";
  if (known) {
    char text[96];
    std::snprintf(text, sizeof(text), "%.1f MiB free of %.1f MiB",
                  static_cast<double>(fs.f_bavail) * fs.f_frsize / (1 << 20),
                  static_cast<double>(fs.f_blocks) * fs.f_frsize / (1 << 20));
    space = text;
  }
  return "free space on the file system of " + dir + " (" + space + ")" +
         (error_number == EDQUOT ? ", or raise your quota there" : "");
}

}  // namespace ngraphbench
