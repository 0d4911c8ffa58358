#include "ngraphbench/experiments/fingerprint.h"

#include <algorithm>
#include <cstdio>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/core/random.h"
#include "ngraphbench/models/torch_export.h"

namespace ngraphbench {

namespace {

std::string Number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

}  // namespace

std::string FingerprintText(const RunSpec& run, const CompilerConfig& config, int sample_ms) {
  std::string text = "fingerprint=1\n";
  auto add = [&text](const std::string& key, const std::string& value) {
    text += key + "=" + value + "\n";
  };
  add("experiment", run.experiment);
  add("model.family", run.model.family);
  add("model.name", run.model.name);
  add("model.variant", run.model.variant);
  add("model.width", std::to_string(run.model.width));
  add("model.depth", std::to_string(run.model.depth));
  if (!run.model.onnx_path.empty()) {
    // An external model: its path and content (a re-exported file is a different model, even
    // at the same size). Weights in external data files are not read here: a changed side
    // file beside an unchanged .onnx file is the same model to resume (docs/cli.md).
    add("model.onnx_path", run.model.onnx_path);
    add("model.onnx_digest", FileDigest(run.model.onnx_path));
  }
  if (!run.model.torch_source.empty()) {
    // A model given as PyTorch code: its source, input shape and, for a factory file, the
    // file's content (an edited model is a different model).
    add("model.torch_source", run.model.torch_source);
    add("model.input_shape", FormatInputShape(run.model.input_shape));
    const std::string file = TorchSourceFile(run.model.torch_source);
    if (!file.empty()) add("model.torch_digest", FileDigest(file));
  }
  add("batch_size", std::to_string(run.batch_size));
  add("warmup", std::to_string(run.warmup));
  add("repeats", std::to_string(run.repeats));
  add("max_time_s", Number(run.max_time_s));
  add("min_time_s", Number(run.min_time_s));
  add("max_repeats", std::to_string(run.max_repeats));
  add("stop", run.stop);
  if (run.stop == "ci") {  // only then do they change the measurement
    add("ci_rel_target", Number(run.ci_rel_target));
    add("ci_min_repeats", std::to_string(run.ci_min_repeats));
    add("max_processes", std::to_string(run.max_processes));
  }
  // One process is how every row before repetition across processes was measured: those rows
  // keep their hash (and resume under `processes: 1`).
  if (run.processes != 1) add("processes", std::to_string(run.processes));
  add("timing_boundary", run.timing_boundary);
  // Only for another scenario than single_stream: every row measured before scenarios was one
  // stream, and keeps its hash.
  if (run.scenario != "single_stream") {
    add("scenario", run.scenario);
    add("streams", StreamsName(run.streams));
  }
  if (run.scenario == "server") {
    const ServerSettings& server = run.server;
    add("target_qps", Number(server.target_qps));
    add("latency_bound_ms", Number(server.latency_bound_ms));
    add("latency_percentile", Number(server.latency_percentile));
    add("find_peak", server.find_peak ? "true" : "false");
    if (server.arrival_seed) add("arrival_seed", std::to_string(*server.arrival_seed));
    add("server_min_duration_s", Number(server.min_duration_s));
  }
  add("quick", run.quick ? "true" : "false");
  // Only when on: the rows measured before profiles existed keep their hash. The timed runs
  // are the same either way, but a row made with it holds more (its profile): a resume with
  // profiling on measures a row made without it again.
  if (run.profile) add("profile", "on");
  add("check", run.check.enabled ? "on" : "off");
  add("check.tolerance.fp32", Number(run.check.tolerance_fp32));
  add("check.tolerance.bf16", Number(run.check.tolerance_bf16));
  add("check.tolerance.fp16", Number(run.check.tolerance_fp16));
  add("compiler", config.compiler);
  add("compiler.device", config.device);
  add("compiler.precision", config.precision);
  add("compiler.threads", std::to_string(config.threads));
  add("compiler.affinity", config.affinity);
  add("compiler.opt_level", config.opt_level);
  // The option schema of the config's compiler (none for a config without a known compiler).
  std::vector<OptionSpec> specs;
  for (const CompilerInfo& info : AllCompilers()) {
    if (info.name == config.compiler) specs = info.options;
  }
  for (const auto& [key, value] : config.options.values()) {
    // An option at its neutral value (OptionSpec::neutral_value) does what was done before the
    // option existed: left out, rows measured then keep their hash.
    const auto spec = std::find_if(specs.begin(), specs.end(),
                                   [&key = key](const OptionSpec& o) { return o.key == key; });
    if (spec != specs.end() && spec->neutral_value == value) continue;
    add("compiler.options." + key, value);
  }
  add("sample_ms", std::to_string(sample_ms));
  return text;
}

std::string ConfigHash(const RunSpec& run, const CompilerConfig& config, int sample_ms) {
  return Fnv1a64Hex(FingerprintText(run, config, sample_ms));
}

}  // namespace ngraphbench
