#include "ngraphbench/core/file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <mutex>
#include <utility>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/process.h"
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

// What a file that is not a regular one is, for a message.
std::string KindOf(const struct stat& st) {
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  if (S_ISCHR(st.st_mode)) return "a character device";
  if (S_ISBLK(st.st_mode)) return "a block device";
  if (S_ISDIR(st.st_mode)) return "a folder";
  if (S_ISLNK(st.st_mode)) return "a symbolic link";
  return "of another kind";
}

// `path` opened for reading, and whether it is a regular file (`st` filled from the open file).
// O_NONBLOCK: opening a FIFO would otherwise wait for a writer, forever and without a word; a
// regular file's descriptor is made blocking again. O_NOFOLLOW with Links::kRefuse: a symbolic
// link fails to open (ELOOP). On a failed open the fd is -1, errno set.
UniqueFd OpenRegular(const std::string& path, struct stat& st, bool& regular,
                     Links links = Links::kFollow) {
  const int no_follow = links == Links::kRefuse ? O_NOFOLLOW : 0;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | no_follow));
  regular = fd.get() >= 0 && ::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode);
  if (regular) ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  return fd;
}

// The open file and its size at the time of the checks; an fd of -1 (errno ENOENT) when there
// is no such file and `missing_ok`.
std::pair<UniqueFd, uint64_t> OpenChecked(const std::string& path, uint64_t max_bytes,
                                          const std::string& what, Links links,
                                          struct stat* status = nullptr,
                                          bool missing_ok = false) {
  struct stat st {};
  bool regular = false;
  UniqueFd fd = OpenRegular(path, st, regular, links);
  if (fd.get() < 0) {
    const int error = errno;
    // ENOTDIR: a folder on the way is a file, so there is no such file either.
    if ((error == ENOENT || error == ENOTDIR) && missing_ok) return {std::move(fd), 0};
    if (error == ELOOP && links == Links::kRefuse) {
      throw InputError(what + " '" + path + "' is a symbolic link; ngraphbench keeps this file "
                       "itself and replaces it by rename, so it must be a regular file: remove "
                       "the link (a link to the folder that holds it is fine)");
    }
    if (error == ENXIO) {
      throw InputError(what + " '" + path + "' is not a regular file but a socket; ngraphbench "
                       "reads regular files only (remove it, or give a regular file)");
    }
    if (IsStorageFailure(error)) ThrowFileError("cannot read " + what + " '" + path + "'", error);
    throw InputError("cannot open " + what + " '" + path + "': " + std::strerror(error));
  }
  // Checked on the open file, so a file swapped after the check cannot slip past the ceiling. A
  // FIFO, socket or device has no size to check and is refused.
  if (!regular) {
    throw InputError(what + " '" + path + "' is not a regular file but " + KindOf(st) +
                     "; ngraphbench reads regular files only (remove it, or give a regular file)");
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    throw TooBig(path, max_bytes, what, std::to_string(st.st_size));
  }
  if (status) *status = st;
  return {std::move(fd), static_cast<uint64_t>(st.st_size)};
}

// The rest of the open file `fd`, of `size` bytes when checked, never past `max_bytes`.
std::string ReadAll(const UniqueFd& fd, uint64_t size, const std::string& path,
                    uint64_t max_bytes, const std::string& what) {
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
    if (got < 0) {
      const int error = errno;
      if (IsStorageFailure(error)) ThrowFileError("cannot read " + what + " '" + path + "'", error);
      throw InputError("cannot read " + what + " '" + path + "': " + std::strerror(error));
    }
    if (got == 0) break;
    used += static_cast<size_t>(got);
  }
  if (used > max_bytes) throw too_big("more than " + std::to_string(max_bytes));
  text.resize(used);
  return text;
}

}  // namespace

UniqueFd OpenFileCapped(const std::string& path, uint64_t max_bytes, const std::string& what,
                        Links links) {
  return std::move(OpenChecked(path, max_bytes, what, links).first);
}

std::string ReadFileCapped(const std::string& path, uint64_t max_bytes, const std::string& what,
                           Links links, struct stat* status) {
  auto [fd, size] = OpenChecked(path, max_bytes, what, links, status);
  return ReadAll(fd, size, path, max_bytes, what);
}

std::optional<std::string> ReadFileIfExists(const std::string& path, uint64_t max_bytes,
                                            const std::string& what, Links links,
                                            struct stat* status) {
  auto [fd, size] = OpenChecked(path, max_bytes, what, links, status, /*missing_ok=*/true);
  if (fd.get() < 0) return std::nullopt;
  return ReadAll(fd, size, path, max_bytes, what);
}

void CheckRegularOrMissing(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return;
  throw InputError(what + " '" + path + "' is not a regular file but " + KindOf(st) +
                   "; ngraphbench reads regular files only (remove it)");
}

std::string ReadLogTail(const std::string& path, uint64_t max_bytes) {
  struct stat st {};
  bool regular = false;
  const UniqueFd fd = OpenRegular(path, st, regular, Links::kRefuse);
  if (!regular) return "";
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  const uint64_t from = size > max_bytes ? size - max_bytes : 0;
  std::string text(static_cast<size_t>(size - from), '\0');
  size_t used = 0;
  while (used < text.size()) {
    const ssize_t got = ::pread(fd.get(), text.data() + used, text.size() - used,
                                static_cast<off_t>(from + used));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    used += static_cast<size_t>(got);
  }
  text.resize(used);
  return text;
}

std::string QuoteShort(const std::string& text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t cut = max_bytes;
  // Back to the start of a UTF-8 character: continuation bytes are 10xxxxxx.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "\u2026 (" + std::to_string(text.size()) + " bytes)";
}

bool IsValidUtf8(const std::string& text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  while (p < end) {
    const unsigned char c = *p;
    size_t n = 0;
    uint32_t code = 0;
    if (c < 0x80) {
      ++p;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      n = 1;
      code = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2;
      code = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3;
      code = c & 0x07;
    } else {
      return false;
    }
    if (static_cast<size_t>(end - p) <= n) return false;
    for (size_t i = 1; i <= n; ++i) {
      if ((p[i] & 0xC0) != 0x80) return false;
      code = (code << 6) | (p[i] & 0x3F);
    }
    static constexpr uint32_t kMinimum[] = {0, 0x80, 0x800, 0x10000};
    if (code < kMinimum[n] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
    p += n + 1;
  }
  return true;
}

std::string EscapeBytes(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out += ch;
    } else {
      char hex[5];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

int CreateFreshFile(const std::string& path, mode_t mode) {
  ::unlink(path.c_str());
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
}

void WriteFully(int fd, const std::string& data, const std::string& path) {
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      const int error = errno;  // before the message's allocations
      if (error == EINTR) continue;
      ThrowFileError("cannot write '" + path + "'", error);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}

namespace {

constexpr const char* kTempMarker = ".tmp.";
// Age after which another host's temporary file is judged abandoned.
constexpr std::time_t kForeignTempStaleS = 10 * 60;

}  // namespace

std::string TempFileName(const std::string& path, const std::string& what) {
  return path + what + kTempMarker + HostTag() + "." + std::to_string(::getpid());
}

std::string WriteTempFile(const std::string& path, const std::string& contents, bool sync) {
  const std::string tmp = TempFileName(path);
  // A fresh regular file: whatever an earlier process of this pid left under the name (a FIFO
  // would block the write, a link would send it elsewhere) is replaced.
  int fd = CreateFreshFile(tmp);
  if (fd < 0 && errno == ENOENT) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(parent, ec);
      if (ec) ThrowFileError("cannot create directory '" + parent.string() + "'", ec.value());
    }
    fd = CreateFreshFile(tmp);
  }
  if (fd < 0) {
    const int error = errno;
    ThrowFileError("cannot create '" + tmp + "'", error);
  }
  try {
    WriteFully(fd, contents, tmp);
    // A full disk or quota may show only here or at close (tmpfs or a local disk with delayed
    // allocation may fail fsync): either way the file is not put in place cut short.
    if (sync && ::fsync(fd) != 0) {
      const int error = errno;
      ThrowFileError("cannot fsync '" + tmp + "'", error);
    }
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  // On NFS, close sends the data: whoever opens the name afterwards reads it.
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    ThrowFileError("cannot write '" + tmp + "'", error);
  }
  return tmp;
}

void WriteFileAtomic(const std::string& path, const std::string& contents) {
  const std::string tmp = WriteTempFile(path, contents, /*sync=*/true);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    ThrowFileError("cannot rename '" + tmp + "' to '" + path + "'", error);
  }
}

namespace {

// Whose temporary file `name` is: `<file>.tmp.<host>.<pid>`, or `<file>.tmp.<pid>` (the older
// form, taken as this host's). nullopt for a name without `.tmp.`; pid 0 when it holds `.tmp.`
// in another shape.
struct TempFileOwner {
  std::string host;
  long pid = 0;
};

std::optional<TempFileOwner> ParseTempFileName(const std::string& name) {
  const auto digits = [](const std::string& t) {
    return !t.empty() && t.size() <= 18 && t.find_first_not_of("0123456789") == std::string::npos;
  };
  const auto host_chars = [](const std::string& t) {
    return !t.empty() && t.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                             "0123456789-") == std::string::npos;
  };
  const auto ends_with_marker = [](const std::string& t) {
    const std::string marker = ".tmp";
    return t.size() > marker.size() &&
           t.compare(t.size() - marker.size(), marker.size(), marker) == 0;
  };
  if (name.find(kTempMarker) == std::string::npos) return std::nullopt;
  TempFileOwner owner;
  const size_t last = name.rfind('.');
  const std::string pid_text = name.substr(last + 1), before = name.substr(0, last);
  if (digits(pid_text)) {
    owner.pid = std::stol(pid_text);
    const size_t dot = before.rfind('.');
    const std::string host = dot == std::string::npos ? "" : before.substr(dot + 1);
    // "<file>.tmp.<host>.<pid>" first: a host named "tmp" would otherwise read as the old form.
    if (dot != std::string::npos && host_chars(host) && ends_with_marker(before.substr(0, dot))) {
      owner.host = host;
      return owner;
    }
    if (ends_with_marker(before)) {  // "<file>.tmp.<pid>", written before hosts were named
      owner.host = HostTag();
      return owner;
    }
  }
  owner.pid = 0;  // ".tmp." in some other shape: nobody's that can be asked
  return owner;
}

}  // namespace

int RemoveStaleTempFiles(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return 0;
  const std::string this_host = HostTag();
  const std::time_t now = std::time(nullptr);
  int removed = 0;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    const std::optional<TempFileOwner> owner = ParseTempFileName(name);
    if (!owner) continue;
    const std::string path = dir + "/" + name;
    bool stale = false;
    if (owner->host == this_host && owner->pid > 0) {
      // A writer of this machine: gone, or still writing.
      stale = !LocalProcessAlive(owner->pid);
    } else {
      // Another machine's writer (a shared tree): its pid means nothing here. A write takes far
      // less than kForeignTempStaleS, so a file that old was left by a writer that died.
      struct stat st {};
      stale = ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
              now - st.st_mtime > kForeignTempStaleS;
    }
    if (stale && ::unlink(path.c_str()) == 0) ++removed;
  }
  ::closedir(d);
  return removed;
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

std::string ReadFile(const std::filesystem::path& path, uint64_t max_bytes) {
  try {
    return ReadFileCapped(path.string(), max_bytes, "file");
  } catch (const InputError&) {
    return "";
  }
}

}  // namespace ngraphbench
