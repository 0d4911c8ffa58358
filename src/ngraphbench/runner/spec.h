// The resolved specification of one run for one compiler: what the scheduler decided for it (the
// run as its experiment expands in this sweep, with its model; the compiler's config with
// `threads: 0` resolved, with --jobs to a worker's share of the CPUs; the run's config_hash) and
// where its rows go. The scheduler writes it once per run as a JSON file (SpecFile, launch.h)
// for the run's worker processes and their reference children, which read it instead of the
// YAML: every process of a run measures what the scheduler planned, and writes the config_hash
// that resume compares against.
#pragma once

#include <string>

#include "ngraphbench/compilers/options.h"
#include "ngraphbench/experiments/grid.h"

namespace ngraphbench {

struct ResolvedRun {
  RunSpec run;
  CompilerConfig config;  // config.compiler names the compiler
  std::string results_dir;
  std::string device;  // the device label: rows go to <results_dir>/<device>/<compiler>
  int sample_ms = 10;  // the sampler's period; 0 = no sampler thread
  std::string config_hash;  // ConfigHash(run, config, sample_ms), as the scheduler computed it
  std::vector<std::string> settings;  // the --set items that apply to the run, as given
};

// The spec as JSON text, every field of it.
std::string FormatResolvedRun(const ResolvedRun& spec);
// The spec from FormatResolvedRun's text. Throws InputError naming `source` (and the field) for
// text that is not such a spec.
ResolvedRun ParseResolvedRun(const std::string& text, const std::string& source);
// The spec in the file `path`; InputError naming the file when it cannot be read or parsed.
ResolvedRun ReadResolvedRun(const std::string& path);

}  // namespace ngraphbench
