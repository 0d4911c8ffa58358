#include "ngraphbench/measure/quant_check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace ngraphbench {

QuantAccuracy CompareQuantized(const std::vector<HostTensor>& outputs,
                               const std::vector<HostTensor>& reference) {
  QuantAccuracy a;
  if (outputs.size() != reference.size()) {
    a.mismatch = std::to_string(outputs.size()) + " outputs, the reference has " +
                 std::to_string(reference.size());
    return a;
  }
  double dot = 0, out_sq = 0, ref_sq = 0, noise_sq = 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const HostTensor& out = outputs[i];
    const HostTensor& ref = reference[i];
    if (out.shape != ref.shape || out.data.size() != ref.data.size()) {
      a.mismatch = "output " + std::to_string(i) + " has shape " + ShapeToString(out.shape) +
                   ", the reference " + ShapeToString(ref.shape);
      return a;
    }
    for (size_t k = 0; k < out.data.size(); ++k) {
      const double o = out.data[k], e = ref.data[k];
      dot += o * e;
      out_sq += o * o;
      ref_sq += e * e;
      noise_sq += (o - e) * (o - e);
    }
  }
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (out_sq == 0 && ref_sq == 0) {
    a.cosine = 1;
  } else if (out_sq == 0 || ref_sq == 0) {
    a.cosine = 0;
  } else {
    a.cosine = dot / (std::sqrt(out_sq) * std::sqrt(ref_sq));
  }
  if (noise_sq == 0) {
    a.snr_db = kInf;
  } else {
    a.snr_db = ref_sq == 0 ? -kInf : 10 * std::log10(ref_sq / noise_sq);
  }
  if (std::isnan(dot) || std::isnan(noise_sq)) a.cosine = a.snr_db = std::nan("");

  if (outputs.size() == 1 && outputs[0].shape.size() == 2 && outputs[0].shape[1] >= 5 &&
      outputs[0].shape[0] > 0) {
    const int64_t n = outputs[0].shape[0], c = outputs[0].shape[1];
    int64_t top1 = 0, top5 = 0;
    std::vector<int64_t> order(static_cast<size_t>(c));
    for (int64_t s = 0; s < n; ++s) {
      const float* o = outputs[0].data.data() + s * c;
      const float* e = reference[0].data.data() + s * c;
      const int64_t ref_top = std::max_element(e, e + c) - e;
      if (std::max_element(o, o + c) - o == ref_top) ++top1;
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + 5, order.end(),
                        [&](int64_t x, int64_t y) { return o[x] > o[y]; });
      if (std::find(order.begin(), order.begin() + 5, ref_top) != order.begin() + 5) ++top5;
    }
    a.top1_agreement = static_cast<double>(top1) / static_cast<double>(n);
    a.top5_agreement = static_cast<double>(top5) / static_cast<double>(n);
  }
  return a;
}

bool WithinInt8Bounds(const QuantAccuracy& accuracy) {
  return accuracy.mismatch.empty() && accuracy.cosine >= kInt8MinCosine &&
         accuracy.snr_db >= kInt8MinSnrDb;
}

}  // namespace ngraphbench
