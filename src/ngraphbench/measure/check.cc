#include "ngraphbench/measure/check.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "ngraphbench/core/error.h"
#include "ngraphbench/measure/quant_check.h"

namespace ngraphbench {


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

}  // namespace ngraphbench
