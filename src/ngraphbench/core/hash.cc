#include "ngraphbench/core/hash.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"

namespace ngraphbench {

namespace fs = std::filesystem;

namespace {

// murmur3's finalizer: every input bit reaches every output bit.
uint64_t Avalanche(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

}  // namespace

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

}  // namespace ngraphbench
