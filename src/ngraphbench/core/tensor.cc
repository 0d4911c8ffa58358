#include "ngraphbench/core/tensor.h"

#include <sched.h>

#include <cstring>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/random.h"

namespace ngraphbench {

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string ShapeToString(const Shape& shape) {
  if (shape.empty()) return "scalar";
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += 'x';
    out += std::to_string(shape[i]);
  }
  return out;
}

HostTensor RandomNormal(const Shape& shape, uint64_t seed, float stddev) {
  HostTensor t{shape, std::vector<float>(static_cast<size_t>(NumElements(shape)))};
  PortableRng rng(seed);
  for (float& v : t.data) v = static_cast<float>(rng.Normal() * stddev);
  return t;
}

uint64_t InputSeed(const std::string& run_id, const std::string& input_name) {
  return Fnv1a64(run_id + "/" + input_name);
}

uint64_t RedrawSeed(const std::string& run_id, const std::string& input_name) {
  return Fnv1a64("redraw:" + run_id + "/" + input_name);
}

uint64_t CalibrationSeed(int batch, const std::string& input_name) {
  return Fnv1a64("calibration:" + std::to_string(batch) + "/" + input_name);
}

int AvailableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  int n = CPU_COUNT(&set);
  return n > 0 ? n : 1;
}

namespace {

constexpr char kMagic[8] = {'N', 'G', 'B', 'T', 'E', 'N', 'S', '1'};
constexpr uint64_t kMaxRank = 16;

template <typename T>
void Append(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(T));
}

class Reader {
 public:
  Reader(const std::string& bytes, const std::string& source) : bytes_(bytes), source_(source) {}
  template <typename T>
  T Take(const char* what) {
    T value;
    Need(sizeof(T), what);
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  void Need(uint64_t n, const char* what) const {
    if (n > bytes_.size() - pos_) {
      throw InputError("reference file '" + source_ + "' is truncated in its " + what);
    }
  }
  const char* Here() const { return bytes_.data() + pos_; }
  void Skip(uint64_t n) { pos_ += n; }
  bool AtEnd() const { return pos_ == bytes_.size(); }

 private:
  const std::string& bytes_;
  const std::string& source_;
  size_t pos_ = 0;
};

}  // namespace

std::string FormatTensorFile(const std::vector<HostTensor>& tensors) {
  std::string out(kMagic, sizeof(kMagic));
  Append<uint64_t>(out, tensors.size());
  for (const auto& t : tensors) {
    Append<uint64_t>(out, t.shape.size());
    for (int64_t d : t.shape) Append<int64_t>(out, d);
    out.append(reinterpret_cast<const char*>(t.data.data()), t.data.size() * sizeof(float));
  }
  return out;
}

std::vector<HostTensor> ParseTensorFile(const std::string& bytes, const std::string& source) {
  Reader in(bytes, source);
  in.Need(sizeof(kMagic), "header");
  if (std::memcmp(in.Here(), kMagic, sizeof(kMagic)) != 0) {
    throw InputError("reference file '" + source + "' does not start with NGBTENS1");
  }
  in.Skip(sizeof(kMagic));
  const uint64_t count = in.Take<uint64_t>("tensor count");
  std::vector<HostTensor> tensors;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t rank = in.Take<uint64_t>("rank");
    if (rank > kMaxRank) {
      throw InputError("reference file '" + source + "': tensor " + std::to_string(i) +
                       " has rank " + std::to_string(rank) + " (at most 16)");
    }
    HostTensor t;
    uint64_t elements = 1;
    for (uint64_t d = 0; d < rank; ++d) {
      const int64_t dim = in.Take<int64_t>("dims");
      // Every dimension is checked against the bytes left before anything is allocated.
      if (dim < 0 || (dim > 0 && elements > (bytes.size() / sizeof(float)) / dim)) {
        throw InputError("reference file '" + source + "': tensor " + std::to_string(i) +
                         " has a dimension " + std::to_string(dim) +
                         " that the file's size cannot hold");
      }
      elements *= static_cast<uint64_t>(dim);
      t.shape.push_back(dim);
    }
    in.Need(elements * sizeof(float), "data");
    t.data.resize(elements);
    // An empty tensor's data() may be null, which memcpy may not be given even for 0 bytes.
    if (elements > 0) std::memcpy(t.data.data(), in.Here(), elements * sizeof(float));
    in.Skip(elements * sizeof(float));
    tensors.push_back(std::move(t));
  }
  if (!in.AtEnd()) throw InputError("reference file '" + source + "' has trailing bytes");
  return tensors;
}

}  // namespace ngraphbench
