// The output check of every run: the first inference's outputs against a reference computed on
// the same inputs by an independent execution path (the worker picks it: ONNX Runtime at fp32
// with graph optimizations disabled; `identity` for onnxruntime itself). A compiler that is fast
// because it computes something else ends as status `wrong`, never as an `ok` row.
#pragma once

#include <string>
#include <vector>

#include "ngraphbench/core/tensor.h"

namespace ngraphbench {

// configs/experiments.yaml: `check: on|off`, `check_tolerance: {fp32, bf16, fp16}`.
struct CheckSettings {
  bool enabled = true;
  double tolerance_fp32 = 1e-4;
  double tolerance_bf16 = 5e-2;
  double tolerance_fp16 = 1e-2;
};

// The tolerance on the max relative error for a row's precision ("fp32", "bf16", "fp16").
// Throws std::invalid_argument for another precision.
double ToleranceFor(const CheckSettings& settings, const std::string& precision);

struct CheckResult {
  double max_abs_err = 0;  // max |out - ref| over every element of every output
  // max over outputs of max|out - ref| / max(1, max|ref|): relative to the output's scale, so
  // that outputs near zero are not judged by their relative error.
  double max_rel_err = 0;
  std::string mismatch;  // set when the outputs cannot be compared (count or shape differs)
};

// Compares `outputs` with `reference` (same order). A NaN or infinity where the reference is
// finite makes both errors infinite.
CheckResult CompareOutputs(const std::vector<HostTensor>& outputs,
                           const std::vector<HostTensor>& reference);

// Within tolerance: comparable, and max_rel_err <= tolerance (NaN never is).
bool WithinTolerance(const CheckResult& result, double tolerance);

// Whether a check can fail at all. A model whose outputs do not depend on its input (timm's
// gmlp_s16_224 at random init: a zero-initialized head, all outputs 0) is matched by any
// compile that computes nothing. The reference runs the model on the run's inputs and on a
// second draw (RedrawSeed, core/tensor.h); the outputs discriminate when the second draw's,
// judged by the row's own check against the first's, would fail it (beyond the precision's
// tolerance; int8: outside the cosine and SNR bounds). Otherwise the check cannot tell a
// compile that ignores its input from a right one, and the worker checks an intermediate
// tensor instead (graph/intermediate.h), or says the check was inconclusive.
struct InputDependence {
  bool discriminates = false;
  // The second draw's outputs against the first's, as the check measures: max |a - b| /
  // max(1, max |b|), the worst output.
  double max_rel_change = 0;
  bool all_zero = false;  // every value of both draws is 0
};
InputDependence JudgeInputDependence(const std::vector<HostTensor>& reference,
                                     const std::vector<HostTensor>& redrawn,
                                     const CheckSettings& settings, const std::string& precision);



}  // namespace ngraphbench
