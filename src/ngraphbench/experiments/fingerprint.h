// The settings fingerprint of a run: everything that determines its measurement, as canonical
// text and as a short hash (the row's `config_hash`). Resume keeps an existing row only when its
// hash equals the run's, so rows measured with other settings (a --quick run, other threads,
// another precision, ...) are never silently kept or mixed with new ones.
//
// In the fingerprint: the experiment's entry as it applies to this run (model, batch size,
// warmup, repeats, time caps and minimum, timing boundary, --quick), the compiler's resolved
// configuration (device, precision, threads after resolving 0, optimization level, every
// option), the output check's settings and the sampler period.
// Not in it: what only judges a measurement or bounds its cost (validity thresholds, the
// timeout), and where results are written.
#pragma once

#include <string>

#include "ngraphbench/compilers/options.h"
#include "ngraphbench/experiments/grid.h"

namespace ngraphbench {

// One "key=value" line per setting, in a fixed order.
std::string FingerprintText(const RunSpec& run, const CompilerConfig& config, int sample_ms);

// 16 lowercase hex digits: Fnv1a64 (core/random.h) of FingerprintText.
std::string ConfigHash(const RunSpec& run, const CompilerConfig& config, int sample_ms);

}  // namespace ngraphbench
