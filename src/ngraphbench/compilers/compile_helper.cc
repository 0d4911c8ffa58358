#include "ngraphbench/compilers/compile_helper.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <sstream>
#include <string_view>

#include "ngraphbench/measure/machine.h"

namespace ngraphbench {

namespace fs = std::filesystem;

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::string ReadFile(const fs::path& path, uint64_t max_bytes) {
  try {
    return ReadFileCapped(path.string(), max_bytes, "file");
  } catch (const InputError&) {
    return "";
  }
}

void ReadInChunks(const fs::path& path, const std::string& who,
                  const std::function<void(uint64_t size)>& size_first,
                  const std::function<void(const char* data, size_t size)>& take) {
  std::optional<UniqueFd> fd;
  try {
    fd.emplace(OpenFileCapped(path.string(), std::numeric_limits<uint64_t>::max(), "file"));
  } catch (const InputError& e) {
    throw CompileError(who + ": cannot read " + path.string() + " to hash it: " + e.what());
  }
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) {
    throw CompileError(who + ": cannot read " + path.string() + " to hash it");
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  size_first(size);
  std::vector<char> chunk(size_t{16} << 20);
  uint64_t done = 0;
  while (true) {
    const ssize_t got = ::read(fd->get(), chunk.data(), chunk.size());
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    take(chunk.data(), static_cast<size_t>(got));
    done += static_cast<uint64_t>(got);
  }
  if (done != size) throw CompileError(who + ": " + path.string() + " changed while hashed");
}

std::string HostCpuIdentity() {
  std::ifstream in("/proc/cpuinfo");
  // x86: the model name and flags lines. aarch64 has neither: its core types (each distinct
  // "CPU implementer" and "CPU part" line) and its "Features" line.
  std::string line, model, flags, cores;
  while (std::getline(in, line) && (model.empty() || flags.empty())) {
    if (model.empty() && line.rfind("model name", 0) == 0) model = line;
    if (flags.empty() && (line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0)) {
      flags = line;
    }
    if ((line.rfind("CPU implementer", 0) == 0 || line.rfind("CPU part", 0) == 0) &&
        cores.find(line + "\n") == std::string::npos) {
      cores += line + "\n";
    }
  }
  return model.empty() ? cores + flags : model + "\n" + flags;
}

std::string MachineIdentity() {
  return "machine_id=" + EnvOr(kMachineIdEnv, "") + "\n" + HostCpuIdentity();
}

std::string LastLine(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  }
  return last;
}

int RunProcess(const std::vector<std::string>& argv, const fs::path& log, const std::string& who,
               const std::string& fix, const std::vector<std::string>& env) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The helper's environment, made before the fork (the child only execs).
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const auto replaced = [&](const std::string& set) {
      const size_t eq = set.find('=');
      return entry.size() > eq && entry.compare(0, eq + 1, set, 0, eq + 1) == 0;
    };
    if (std::none_of(env.begin(), env.end(), replaced)) envp.push_back(*e);
  }
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  // A failed open or exec in the child writes its errno here; a successful exec closes the pipe.
  int exec_error[2];
  if (::pipe2(exec_error, O_CLOEXEC) != 0) {
    throw CompileError(who + ": cannot start a compile helper: " + std::strerror(errno));
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  const int fork_errno = errno;
  if (pid == 0) {
    // The helper dies with its worker, as workers die with the scheduler: a killed worker leaves
    // no python compiling behind it.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0 && ::dup2(fd, STDOUT_FILENO) >= 0 && ::dup2(fd, STDERR_FILENO) >= 0) {
      ::execvpe(args[0], args.data(), envp.data());
    }
    const int e = errno;
    (void)!::write(exec_error[1], &e, sizeof e);
    ::_exit(127);
  }
  ::close(exec_error[1]);
  int err = fork_errno;
  if (pid > 0) {
    ssize_t n;
    while ((n = ::read(exec_error[0], &err, sizeof err)) < 0 && errno == EINTR) {
    }
    if (n != static_cast<ssize_t>(sizeof err)) err = 0;  // the pipe closed: exec succeeded
  }
  ::close(exec_error[0]);
  if (err != 0) {
    if (pid > 0) ::waitpid(pid, nullptr, 0);
    throw CompileError(who + ": cannot start " + argv[0] + ": " + std::strerror(err) + " (" +
                       fix + ")");
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

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

CacheEntryBuild::CacheEntryBuild(const fs::path& entry) : entry_(entry) {
  std::string name = TempNameTemplate(entry.parent_path().string(), kCacheBuildPrefix, "");
  if (::mkdtemp(name.data()) == nullptr) {
    const int error = errno;  // a full disk is the storage's failure (core/error.h), not a run's
    ThrowFileError("cannot create a folder for the cache entry " + entry.string() + " in " +
                       entry.parent_path().string(),
                   error);
  }
  dir_ = name;
  remove_on_signal_.emplace(dir_.string());
}

CacheEntryBuild::~CacheEntryBuild() {
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

void CacheEntryBuild::Commit(const std::function<bool(const fs::path&)>& keep_existing) {
  int err = 0;
  // Three tries: a worker whose entry this replaces may be replacing another's at the same time.
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (::rename(dir_.c_str(), entry_.c_str()) == 0) {
      remove_on_signal_.reset();  // the entry now: a complete one stays
      dir_.clear();
      return;
    }
    err = errno;
    if (err != ENOTEMPTY && err != EEXIST) break;
    if (keep_existing(entry_)) return;  // this one goes with the destructor
    // The old entry is first renamed to a temporary name of this process's, so that a kill
    // between the two renames leaves only what the scheduler removes.
    std::string aside = TempNameTemplate(entry_.parent_path().string(), kCacheBuildPrefix, "");
    if (::mkdtemp(aside.data()) == nullptr) {
      err = errno;
      break;
    }
    const bool moved = ::rename(entry_.c_str(), aside.c_str()) == 0;
    err = errno;
    std::error_code ec;
    fs::remove_all(aside, ec);
    if (!moved && err != ENOENT) break;  // ENOENT: another writer moved it first; try again
  }
  if (IsStorageFailure(err)) {
    ThrowFileError("cannot put the cache entry " + dir_.string() + " in place as " +
                       entry_.string(),
                   err);
  }
  throw EnvironmentError("cannot put the cache entry " + dir_.string() + " in place as " +
                         entry_.string() + ": " + std::strerror(err) + "; remove " +
                         entry_.string() + " and run again");
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
  if (rc == kExitStorageFailed) {
    // The log may have had no room for the script's message.
    throw StorageError(who + ": the compile script could not write into " +
                           entry.parent_path().string() + ": " +
                           (why.empty() ? "its log is empty (exit status 74)" : why),
                       0);
  }
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

// murmur3's finalizer: every input bit reaches every output bit.
uint64_t Avalanche(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
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

void ContentDigest::Stripe(const char* data) {
  for (int lane = 0; lane < 4; ++lane) {
    uint64_t word;
    std::memcpy(&word, data + 8 * lane, sizeof word);
    // Both steps are bijections of the lane for a given word: one word's change always reaches
    // the lane's final state.
    lanes_[lane] = (lanes_[lane] ^ word) * 0x9e3779b97f4a7c15ULL;
    lanes_[lane] ^= lanes_[lane] >> 31;
  }
}

ContentDigest& ContentDigest::Add(const char* data, size_t size) {
  total_ += size;
  if (pending_size_ > 0) {
    const size_t take = std::min(kStripe - pending_size_, size);
    std::memcpy(pending_ + pending_size_, data, take);
    pending_size_ += take;
    data += take;
    size -= take;
    if (pending_size_ < kStripe) return *this;
    Stripe(pending_);
    pending_size_ = 0;
  }
  for (; size >= kStripe; data += kStripe, size -= kStripe) Stripe(data);
  std::memcpy(pending_, data, size);
  pending_size_ = size;
  return *this;
}

std::string ContentDigest::Hex() const {
  ContentDigest last = *this;
  // The tail as a stripe padded with zeros; the total length tells it from real zeros.
  std::memset(last.pending_ + pending_size_, 0, kStripe - pending_size_);
  if (pending_size_ > 0) last.Stripe(last.pending_);
  const uint64_t* l = last.lanes_;
  const uint64_t high = Avalanche(l[0] ^ Avalanche(l[1] ^ total_));
  const uint64_t low = Avalanche(l[2] ^ Avalanche(l[3] ^ (total_ * 0x9e3779b97f4a7c15ULL)));
  char buf[33];
  std::snprintf(buf, sizeof(buf), "%016llx%016llx", static_cast<unsigned long long>(high),
                static_cast<unsigned long long>(low));
  return buf;
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
