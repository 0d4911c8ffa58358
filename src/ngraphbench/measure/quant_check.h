// The output check of a quantized (int8) row: its outputs against the FP32 reference with
// measures that fit quantization error (spread over every element rather than bounded at each),
// and the bounds within which the row is `ok` (docs/results.md, Quantized rows).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/core/tensor.h"

namespace ngraphbench {

// The bounds of an int8 row: cosine similarity of the outputs to the reference at least
// kInt8MinCosine and signal-to-noise ratio at least kInt8MinSnrDb. On the conv2d and conv_blocks
// experiments static QDQ quantization with onnxruntime gives cosine above 0.999 and SNR near
// 30 dB; a model computing something else gives a cosine near 0 and an SNR near 0 dB or below.
inline constexpr double kInt8MinCosine = 0.99;
inline constexpr double kInt8MinSnrDb = 20.0;

struct QuantAccuracy {
  // Over every element of every output, as one vector: sum(out*ref) / (|out| |ref|); 1 when both
  // are zero, 0 when just one is.
  double cosine = 0;
  // 10 log10(sum ref^2 / sum (out - ref)^2); +infinity for identical outputs.
  double snr_db = 0;
  // For a classifier (one output, rank 2, N x C with C >= 5): the share of the batch's samples
  // whose top-1 class equals the reference's, and whose reference top-1 class is among the
  // output's top 5. Empty for other outputs.
  std::optional<double> top1_agreement, top5_agreement;
  std::string mismatch;  // set when the outputs cannot be compared (count or shape differs)
};

QuantAccuracy CompareQuantized(const std::vector<HostTensor>& outputs,
                               const std::vector<HostTensor>& reference);

// Within the int8 bounds: comparable, every value finite and both bounds met.
bool WithinInt8Bounds(const QuantAccuracy& accuracy);

}  // namespace ngraphbench
