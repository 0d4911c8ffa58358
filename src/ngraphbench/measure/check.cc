#include "ngraphbench/measure/check.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "ngraphbench/core/error.h"
#include "ngraphbench/measure/quant_check.h"

namespace ngraphbench {

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

double ToleranceFor(const CheckSettings& settings, const std::string& precision) {
  if (precision == "fp32") return settings.tolerance_fp32;
  if (precision == "bf16") return settings.tolerance_bf16;
  if (precision == "fp16") return settings.tolerance_fp16;
  throw std::invalid_argument("no check tolerance for precision '" + precision + "'");
}

CheckResult CompareOutputs(const std::vector<HostTensor>& outputs,
                           const std::vector<HostTensor>& reference) {
  CheckResult r;
  if (outputs.size() != reference.size()) {
    r.mismatch = std::to_string(outputs.size()) + " outputs, the reference has " +
                 std::to_string(reference.size());
    return r;
  }
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const HostTensor& out = outputs[i];
    const HostTensor& ref = reference[i];
    if (out.shape != ref.shape || out.data.size() != ref.data.size()) {
      r.mismatch = "output " + std::to_string(i) + " has shape " + ShapeToString(out.shape) +
                   ", the reference " + ShapeToString(ref.shape);
      return r;
    }
    double max_abs = 0, scale = 1;
    for (size_t k = 0; k < out.data.size(); ++k) {
      const double o = out.data[k], e = ref.data[k];
      if (std::isfinite(e)) scale = std::max(scale, std::fabs(e));
      double d = std::fabs(o - e);
      if (std::isnan(d)) d = (std::isnan(o) && std::isnan(e)) ? 0 : kInf;  // NaN where not NaN
      if (std::isinf(o) && std::isinf(e) && o == e) d = 0;                 // same infinity
      max_abs = std::max(max_abs, d);
    }
    r.max_abs_err = std::max(r.max_abs_err, max_abs);
    r.max_rel_err = std::max(r.max_rel_err, max_abs / scale);
  }
  return r;
}

bool WithinTolerance(const CheckResult& result, double tolerance) {
  return result.mismatch.empty() && result.max_rel_err <= tolerance;
}

InputDependence JudgeInputDependence(const std::vector<HostTensor>& reference,
                                     const std::vector<HostTensor>& redrawn,
                                     const CheckSettings& settings,
                                     const std::string& precision) {
  InputDependence d;
  const CheckResult change = CompareOutputs(redrawn, reference);
  d.max_rel_change = change.max_rel_err;
  d.all_zero = change.mismatch.empty();
  for (const auto* outputs : {&reference, &redrawn}) {
    for (const HostTensor& t : *outputs) {
      for (const float v : t.data) d.all_zero = d.all_zero && v == 0;
    }
  }
  if (!change.mismatch.empty()) {
    d.discriminates = true;  // two draws of different shapes: nothing here says otherwise
  } else if (precision == "int8") {
    d.discriminates = !WithinInt8Bounds(CompareQuantized(redrawn, reference));
  } else {
    d.discriminates = !WithinTolerance(change, ToleranceFor(settings, precision));
  }
  return d;
}

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
