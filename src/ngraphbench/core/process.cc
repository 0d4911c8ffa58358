#include "ngraphbench/core/process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "ngraphbench/core/error.h"

namespace ngraphbench {

namespace {

// A directory entry as getdents64(2) returns it (glibc declares no wrapper before 2.30).
struct LinuxDirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

// RemoveOnSignal's table: written by the registering thread, read by a signal handler, so a slot
// is marked used only once its path is complete (and unmarked before it is reused).
constexpr size_t kRemoveOnSignalSlots = 8;
struct RemoveOnSignalSlot {
  std::atomic<bool> used{false};
  char path[4096] = {};
};
RemoveOnSignalSlot g_remove_on_signal[kRemoveOnSignalSlots];

// Removes `name` under `parent_fd`, a folder with what it holds (`depth` bounds the recursion,
// and so the stack a handler uses); never follows a symbolic link.
void RemoveTreeAt(int parent_fd, const char* name, int depth) {
  if (::unlinkat(parent_fd, name, 0) == 0 || (errno != EISDIR && errno != EPERM) || depth > 32) {
    return;
  }
  const int fd = ::openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    // Read again from the start until a pass finds nothing: entries removed while reading may
    // shift the directory's offsets.
    for (int pass = 0; pass < 16; ++pass) {
      bool found = false;
      struct Context {
        int fd, depth;
        bool* found;
      } context{fd, depth, &found};
      ::lseek(fd, 0, SEEK_SET);
      ForEachDirEntry(
          fd,
          [](const char* entry, void* c) {
            const auto* ctx = static_cast<const Context*>(c);
            *ctx->found = true;
            RemoveTreeAt(ctx->fd, entry, ctx->depth + 1);
          },
          &context);
      if (!found) break;
    }
    ::close(fd);
  }
  ::unlinkat(parent_fd, name, AT_REMOVEDIR);
}

}  // namespace

std::string HostTag() {
  char buf[256] = {};
  ::gethostname(buf, sizeof(buf) - 1);
  std::string tag;
  for (const char* p = buf; *p; ++p) {
    const char c = *p;
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') {
      tag += c;
    }
  }
  return tag.empty() ? "unknown" : tag;
}

std::optional<std::vector<std::string>> ProcStatFields(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  if (!in) return std::nullopt;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');
  if (paren == std::string::npos) return std::nullopt;
  std::istringstream rest(text.substr(paren + 1));
  std::vector<std::string> fields;
  for (std::string f; rest >> f;) fields.push_back(f);
  return fields;
}

bool LocalProcessAlive(long pid, const std::string& start_time) {
  if (pid <= 0) return false;
  const std::optional<std::vector<std::string>> fields = ProcStatFields(pid);
  if (!fields || fields->empty()) {
    return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
  }
  const std::string& state = (*fields)[0];
  if (state == "Z" || state == "X" || state == "x") return false;  // exited, not yet reaped
  if (!start_time.empty() &&
      (fields->size() <= kProcStartTimeIndex || (*fields)[kProcStartTimeIndex] != start_time)) {
    return false;
  }
  return true;
}

std::string TempNameTemplate(const std::string& dir, const std::string& prefix,
                             const std::string& suffix) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  // Reported now with its own errno: mkstemps or mkdtemp would say only ENOENT, hiding a full
  // disk (IsStorageFailure).
  if (ec) ThrowFileError("cannot create " + dir, ec.value());
  return dir + "/" + prefix + HostTag() + "-" + std::to_string(::getpid()) + "-XXXXXX" + suffix;
}

bool TempNameWriterGone(const std::string& name, const std::string& prefix,
                        const std::string& suffix) {
  constexpr size_t kRandom = 6;  // mkstemps/mkdtemp's XXXXXX: letters and digits, never '-'
  if (name.size() <= prefix.size() + suffix.size() + kRandom + 1 || name.rfind(prefix, 0) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return false;
  }
  const std::string rest =
      name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (rest[rest.size() - kRandom - 1] != '-') return false;
  for (size_t i = rest.size() - kRandom; i < rest.size(); ++i) {
    if (!std::isalnum(static_cast<unsigned char>(rest[i]))) return false;
  }
  // `<host>-<pid>`, the host possibly holding '-' itself; or `<pid>` alone (the older form).
  const std::string head = rest.substr(0, rest.size() - kRandom - 1);
  const size_t dash = head.rfind('-');
  const std::string pid_text = dash == std::string::npos ? head : head.substr(dash + 1);
  const std::string host = dash == std::string::npos ? HostTag() : head.substr(0, dash);
  if (pid_text.empty() || pid_text.size() >= 10 ||
      pid_text.find_first_not_of("0123456789") != std::string::npos || host != HostTag()) {
    return false;
  }
  const long pid = std::stol(pid_text);
  return pid > 0 && !LocalProcessAlive(pid);
}

int RemoveTempNamesOfGoneWriters(const std::string& dir, const std::string& prefix,
                                 const std::string& suffix) {
  namespace fs = std::filesystem;
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code remove_ec;
    if (TempNameWriterGone(it->path().filename().string(), prefix, suffix) &&
        fs::remove_all(it->path(), remove_ec) > 0) {
      ++removed;
    }
  }
  return removed;
}

void ForEachDirEntry(int dir_fd, void (*fn)(const char* name, void* context), void* context) {
  alignas(LinuxDirent64) char entries[2048];
  long n;
  while ((n = ::syscall(SYS_getdents64, dir_fd, entries, sizeof entries)) > 0) {
    for (long offset = 0; offset < n;) {
      const auto* entry = reinterpret_cast<const LinuxDirent64*>(entries + offset);
      offset += entry->d_reclen;
      const char* name = entry->d_name;
      if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
      fn(name, context);
    }
  }
}

RemoveOnSignal::RemoveOnSignal(const std::string& path) {
  for (size_t i = 0; i < kRemoveOnSignalSlots; ++i) {
    RemoveOnSignalSlot& slot = g_remove_on_signal[i];
    if (slot.used.load() || path.size() >= sizeof slot.path) continue;
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.used.store(true);
    slot_ = static_cast<int>(i);
    return;
  }
}

RemoveOnSignal::~RemoveOnSignal() {
  if (slot_ >= 0) g_remove_on_signal[slot_].used.store(false);
}

void RemoveFoldersOnSignal() {
  for (RemoveOnSignalSlot& slot : g_remove_on_signal) {
    if (slot.used.load()) RemoveTreeAt(AT_FDCWD, slot.path, 0);
  }
}

}  // namespace ngraphbench
