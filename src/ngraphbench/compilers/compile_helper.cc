#include "ngraphbench/compilers/compile_helper.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>

#include "ngraphbench/core/process.h"


namespace ngraphbench {

namespace fs = std::filesystem;

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
