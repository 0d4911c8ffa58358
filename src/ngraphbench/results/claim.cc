#include "ngraphbench/results/claim.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/core/process.h"

namespace ngraphbench {

namespace {

// A file that is not a readable claim is judged live for this long: a creator writes it whole
// within milliseconds (or, where hard links are missing, right after creating it).
constexpr double kUnreadableGraceS = 5;
// A breaker is held for milliseconds; one this old was left by a process that died holding it.
constexpr double kBreakerStaleS = 60;
// Tries before TryClaim gives up on a claim that others keep recovering at the same moment.
constexpr int kAttempts = 50;

// A small file of /proc, read as every file is (core/file.h); "" when it cannot be read.
std::string ReadSmallFile(const std::string& path) {
  try {
    return ReadFileCapped(path, kMaxClaimBytes, "system file");
  } catch (const std::exception&) {
    return "";
  }
}

std::string FirstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

std::string RawHostname() {
  char buf[256] = {};
  ::gethostname(buf, sizeof(buf) - 1);
  std::string host = buf;
  for (char& c : host) {
    if (c == '\n' || c == '\r' || c == '=') c = '_';  // keeps the claim one key=value per line
  }
  return host;
}

// When this boot started, from /proc/stat's btime; 0 when unknown.
std::time_t BootTime() {
  std::ifstream in("/proc/stat");
  for (std::string key; in >> key;) {
    if (key == "btime") {
      long long t = 0;
      in >> t;
      return static_cast<std::time_t>(t);
    }
    in.ignore(1 << 20, '\n');
  }
  return 0;
}

std::string UtcNow() {
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buf;
}

std::string Nonce() {
  // random_device each time: a generator seeded once would repeat itself in forked children.
  std::random_device device;
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%08x%08x", device(), device());
  return buf;
}

double NowSeconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

struct FileState {
  std::string content;
  double mtime = 0;  // seconds since the epoch, as the file system (maybe a server) set it
};

// The file's content and mtime, read from one open file; nullopt when there is no such file.
// A claim is a small regular file that ngraphbench creates: anything else under its name (a
// FIFO, a device, a symbolic link, megabytes) is refused with InputError naming it.
std::optional<FileState> ReadState(const std::string& path) {
  struct stat st {};
  std::optional<std::string> content =
      ReadFileIfExists(path, kMaxClaimBytes, "lock file", Links::kRefuse, &st);
  if (!content) return std::nullopt;
  FileState state;
  state.content = std::move(*content);
  state.mtime = static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec * 1e-9;
  return state;
}

bool NoHardLinks(int error) {
  return error == EPERM || error == ENOTSUP || error == EOPNOTSUPP || error == ENOSYS;
}

// Creates `path` holding `content` unless a file of that name exists; true when this call made
// it. The content goes to a temporary file first and is linked to `path`: link(2) fails with
// EEXIST when the name exists, atomically, so a reader sees no file or the whole content.
bool CreateExclusive(const std::string& path, const std::string& content) {
  // Not fsync'd: a claim matters only while its holder lives, and a crash of the machine that
  // could lose the claim takes the holder with it.
  const std::string tmp = WriteTempFile(path, content, /*sync=*/false);
  const bool linked = ::link(tmp.c_str(), path.c_str()) == 0;
  const int error = errno;
  bool created = linked;
  if (!linked) {
    // Over NFS a retransmitted LINK can answer EEXIST for a link the server made: two names on
    // the temporary's inode say it did.
    struct stat st {};
    if (::stat(tmp.c_str(), &st) == 0 && st.st_nlink == 2) created = true;
  }
  ::unlink(tmp.c_str());
  if (created) return true;
  if (error == EEXIST) return false;
  if (NoHardLinks(error)) {
    // A file system without hard links: O_EXCL instead. A reader may then see the file empty or
    // half-written for a moment, which is why an unreadable claim counts as live while young.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) return false;
    if (fd < 0) {
      const int open_error = errno;
      ThrowFileError("cannot create '" + path + "'", open_error);
    }
    try {
      WriteFully(fd, content, path);
    } catch (...) {
      ::close(fd);
      ::unlink(path.c_str());  // a claim cut short would hold the run until it is stale
      throw;
    }
    ::close(fd);
    return true;
  }
  ThrowFileError("cannot create '" + path + "'", error);
}

// Removes `path` if it holds `expected`; true when this call removed it. A file that holds
// something else is left alone. One that holds `expected` is renamed away before it is removed,
// so that what is removed is exactly what was checked: should another process have replaced it
// between the check and the rename, theirs is put back (with link(2), which fails only where
// yet another process made a new one in that instant).
bool RemoveIfUnchanged(const std::string& path, const std::string& expected) {
  const std::optional<FileState> before = ReadState(path);
  if (!before || before->content != expected) return false;
  const std::string gone = TempFileName(path, ".gone");
  if (::rename(path.c_str(), gone.c_str()) != 0) return false;
  const std::optional<FileState> taken = ReadState(gone);
  if (taken && taken->content == expected) {
    ::unlink(gone.c_str());
    return true;
  }
  if (::link(gone.c_str(), path.c_str()) != 0 && NoHardLinks(errno) &&
      ::access(path.c_str(), F_OK) != 0) {
    ::rename(gone.c_str(), path.c_str());
  }
  ::unlink(gone.c_str());
  return false;
}

// Whether the claim in a file last modified at `mtime` is stale (see TryClaim).
bool IsStale(const std::optional<ClaimHolder>& holder, double mtime, double stale_after_s) {
  const double age = NowSeconds() - mtime;
  if (!holder) return age > kUnreadableGraceS;
  const ClaimHolder me = ThisProcess();
  if (holder->host == me.host && !holder->boot_id.empty() && !me.boot_id.empty()) {
    if (holder->boot_id == me.boot_id && holder->pid_ns == me.pid_ns) {
      return !LocalProcessAlive(holder->pid, holder->start_time);
    }
    // Another boot id: an earlier boot of this host wrote it before this boot began. Written
    // after, it is a second machine of the same name, judged by age like any other host.
    const std::time_t boot = BootTime();
    if (holder->boot_id != me.boot_id && boot > 0 && mtime < static_cast<double>(boot)) {
      return true;
    }
  }
  return age > stale_after_s;
}

enum class Recovery { kRecovered, kChanged, kBusy };

// Replaces the stale claim `stale` at `path` by `mine`, under the breaker.
Recovery Recover(const std::string& path, const std::string& stale, const std::string& mine) {
  const std::string breaker = path + ".break";
  if (!CreateExclusive(breaker, mine)) {
    // Another recoverer is at work, or one died there: a stale breaker is removed (if it is
    // still the one judged) and the caller tries again.
    if (const std::optional<FileState> b = ReadState(breaker)) {
      if (IsStale(ParseClaim(b->content), b->mtime, kBreakerStaleS)) {
        RemoveIfUnchanged(breaker, b->content);
        return Recovery::kChanged;
      }
    }
    return Recovery::kBusy;
  }
  struct BreakerGuard {
    const std::string& breaker;
    const std::string& mine;
    ~BreakerGuard() {
      try {
        RemoveIfUnchanged(breaker, mine);
      } catch (...) {
        // Left behind, the breaker holds up recovery of this claim until it is stale: once this
        // process has exited, or after 60 s for other hosts.
      }
    }
  } guard{breaker, mine};
  // Judged before the breaker was held: still the same stale claim? Another recoverer may have
  // replaced it meanwhile, and its claim is live.
  if (ReadState(path) && !RemoveIfUnchanged(path, stale)) return Recovery::kChanged;
  // A process claiming afresh may take the free name first: then the claim is theirs.
  return CreateExclusive(path, mine) ? Recovery::kRecovered : Recovery::kChanged;
}

}  // namespace

std::string ClaimHolder::Describe() const {
  return host.empty() ? std::string("an unknown holder") : host + " pid " + std::to_string(pid);
}

ClaimHolder LocalProcess(pid_t pid) {
  ClaimHolder h;
  h.host = RawHostname();
  h.boot_id = FirstLine(ReadSmallFile("/proc/sys/kernel/random/boot_id"));
  std::error_code ec;
  h.pid_ns = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/ns/pid", ec);
  h.pid = pid;
  if (const auto fields = ProcStatFields(pid); fields && fields->size() > kProcStartTimeIndex) {
    h.start_time = (*fields)[kProcStartTimeIndex];
  }
  h.utc = UtcNow();
  h.nonce = Nonce();
  return h;
}

ClaimHolder ThisProcess() { return LocalProcess(::getpid()); }

std::string FormatClaim(const ClaimHolder& h) {
  return "host=" + h.host + "\nboot_id=" + h.boot_id + "\npid_ns=" + h.pid_ns +
         "\npid=" + std::to_string(h.pid) + "\nstart_time=" + h.start_time + "\nutc=" + h.utc +
         "\nnonce=" + h.nonce + "\n";
}

std::optional<ClaimHolder> ParseClaim(const std::string& text) {
  ClaimHolder h;
  bool has_pid = false;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "host") h.host = value;
    if (key == "boot_id") h.boot_id = value;
    if (key == "pid_ns") h.pid_ns = value;
    if (key == "start_time") h.start_time = value;
    if (key == "utc") h.utc = value;
    if (key == "nonce") h.nonce = value;
    if (key == "pid") {
      char* end = nullptr;
      h.pid = std::strtol(value.c_str(), &end, 10);
      has_pid = !value.empty() && *end == '\0' && h.pid > 0;
    }
  }
  if (h.host.empty() || !has_pid) return std::nullopt;
  return h;
}

std::string RunClaimPath(const std::string& run_dir, const std::string& run_id) {
  return run_dir + "/.claims/" + run_id + ".claim";
}

Claim::Claim(std::string path, std::string content)
    : path_(std::move(path)), content_(std::move(content)) {}

Claim::Claim(Claim&& other) noexcept
    : path_(std::move(other.path_)), content_(std::move(other.content_)) {
  other.path_.clear();
}

Claim& Claim::operator=(Claim&& other) noexcept {
  if (this != &other) {
    Release();
    path_ = std::move(other.path_);
    content_ = std::move(other.content_);
    other.path_.clear();
  }
  return *this;
}

Claim::~Claim() { Release(); }

void Claim::Release() noexcept {
  if (path_.empty()) return;
  try {
    RemoveIfUnchanged(path_, content_);
  } catch (...) {
    // Released on the way out of an error: the claim, left behind, is recovered as stale.
  }
  path_.clear();
}

std::optional<Claim> TryClaim(const std::string& path, double stale_after_s, ClaimHolder* held_by) {
  std::minstd_rand jitter(static_cast<unsigned>(::getpid()) ^ std::random_device()());
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    const std::string mine = FormatClaim(ThisProcess());
    if (CreateExclusive(path, mine)) return Claim(path, mine);
    const std::optional<FileState> existing = ReadState(path);
    if (!existing) continue;  // released in between
    const std::optional<ClaimHolder> holder = ParseClaim(existing->content);
    if (held_by) *held_by = holder.value_or(ClaimHolder{});
    if (!IsStale(holder, existing->mtime, stale_after_s)) return std::nullopt;
    switch (Recover(path, existing->content, mine)) {
      case Recovery::kRecovered:
        return Claim(path, mine);
      case Recovery::kChanged:
        break;  // judge what is there now
      case Recovery::kBusy:
        // Another process is recovering it: it will hold a live claim in a moment.
        std::this_thread::sleep_for(std::chrono::microseconds(500 + jitter() % 2000));
        break;
    }
  }
  // Others kept recovering it at the same moment; whoever did holds it.
  if (held_by) *held_by = ClaimHolder{};
  return std::nullopt;
}

}  // namespace ngraphbench
