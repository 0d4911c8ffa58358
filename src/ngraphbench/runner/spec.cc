#include "ngraphbench/runner/spec.h"

#include <map>
#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"

namespace ngraphbench {

namespace {

using Json = nlohmann::ordered_json;  // fields in the order written, for a reader of the file

// Bumped when a field changes meaning: a worker of another build refuses the spec.
constexpr int kSpecFormat = 3;  // 2: settings; 3: profile

Json ModelJson(const ModelSpec& m) {
  return Json{{"family", m.family},
              {"name", m.name},
              {"width", m.width},
              {"depth", m.depth},
              {"variant", m.variant},
              {"size", m.size},
              {"network", m.network},
              {"onnx_path", m.onnx_path},
              {"torch_source", m.torch_source},
              {"input_shape", m.input_shape},
              {"torch_program", m.torch_program},
              {"torch_program_error", m.torch_program_error},
              {"exact_params", m.exact_params}};
}

Json RunJson(const RunSpec& r) {
  const CheckSettings& c = r.check;
  const ValiditySettings& v = r.validity;
  return Json{{"run_id", r.run_id},
              {"experiment", r.experiment},
              {"model", ModelJson(r.model)},
              {"batch_size", r.batch_size},
              {"warmup", r.warmup},
              {"repeats", r.repeats},
              {"timeout_s", r.timeout_s},
              {"max_time_s", r.max_time_s},
              {"min_time_s", r.min_time_s},
              {"max_repeats", r.max_repeats},
              {"stop", r.stop},
              {"ci_rel_target", r.ci_rel_target},
              {"ci_min_repeats", r.ci_min_repeats},
              {"processes", r.processes},
              {"max_processes", r.max_processes},
              {"timing_boundary", r.timing_boundary},
              {"quick", r.quick},
              {"profile", r.profile},
              {"scenario", r.scenario},
              {"streams", r.streams},
              {"server",
               {{"target_qps", r.server.target_qps},
                {"latency_bound_ms", r.server.latency_bound_ms},
                {"latency_percentile", r.server.latency_percentile},
                {"find_peak", r.server.find_peak},
                {"arrival_seed",
                 r.server.arrival_seed ? Json(*r.server.arrival_seed) : Json(nullptr)},
                {"min_duration_s", r.server.min_duration_s}}},
              {"check",
               {{"enabled", c.enabled},
                {"tolerance_fp32", c.tolerance_fp32},
                {"tolerance_bf16", c.tolerance_bf16},
                {"tolerance_fp16", c.tolerance_fp16}}},
              {"validity",
               {{"max_ci_rel", v.max_ci_rel},
                {"min_processes", v.min_processes},
                {"max_cv", v.max_cv ? Json(*v.max_cv) : Json(nullptr)},
                {"max_other_cpu_pct", v.max_other_cpu_pct},
                {"min_repeats", v.min_repeats},
                {"max_stall_share", v.max_stall_share}}}};
}

Json ConfigJson(const CompilerConfig& c) {
  return Json{{"compiler", c.compiler},
              {"device", c.device},
              {"precision", c.precision},
              {"threads", c.threads},
              {"affinity", c.affinity},
              {"opt_level", c.opt_level},
              {"options", c.options.values()},
              {"source", c.source}};
}

// The fields of one object of a spec being read: each named by its path in what is thrown.
class Fields {
 public:
  Fields(const Json& object, std::string where, const std::string& source)
      : object_(object), where_(std::move(where)), source_(source) {
    if (!object_.is_object()) throw Error(where_.empty() ? "the whole" : where_, "not an object");
  }

  template <typename T>
  T Get(const char* key) const {
    const Json& value = At(key);
    try {
      return value.get<T>();
    } catch (const Json::exception& e) {
      throw Error(Path(key), e.what());
    }
  }
  std::optional<double> GetOptional(const char* key) const {
    const Json& value = At(key);
    if (value.is_null()) return std::nullopt;
    return Get<double>(key);
  }
  bool IsNull(const char* key) const { return At(key).is_null(); }
  Fields Object(const char* key) const { return Fields(At(key), Path(key), source_); }

 private:
  std::string Path(const char* key) const { return where_.empty() ? key : where_ + "." + key; }
  const Json& At(const char* key) const {
    const auto it = object_.find(key);
    if (it == object_.end()) throw Error(Path(key), "missing");
    return *it;
  }
  InputError Error(const std::string& field, const std::string& what) const {
    return InputError("run specification '" + source_ + "': " + field + ": " + what +
                      " (the file is written by `ngraphbench run` for its workers)");
  }

  const Json& object_;
  std::string where_;
  const std::string& source_;
};

ModelSpec ParseModel(const Fields& f) {
  ModelSpec m;
  m.family = f.Get<std::string>("family");
  m.name = f.Get<std::string>("name");
  m.width = f.Get<int64_t>("width");
  m.depth = f.Get<int64_t>("depth");
  m.variant = f.Get<std::string>("variant");
  m.size = f.Get<std::string>("size");
  m.network = f.Get<std::string>("network");
  m.onnx_path = f.Get<std::string>("onnx_path");
  m.torch_source = f.Get<std::string>("torch_source");
  m.input_shape = f.Get<std::vector<int64_t>>("input_shape");
  m.torch_program = f.Get<std::string>("torch_program");
  m.torch_program_error = f.Get<std::string>("torch_program_error");
  m.exact_params = f.Get<int64_t>("exact_params");
  return m;
}

RunSpec ParseRun(const Fields& f) {
  RunSpec r;
  r.run_id = f.Get<std::string>("run_id");
  r.experiment = f.Get<std::string>("experiment");
  r.model = ParseModel(f.Object("model"));
  r.batch_size = f.Get<int64_t>("batch_size");
  r.warmup = f.Get<int64_t>("warmup");
  r.repeats = f.Get<int64_t>("repeats");
  r.timeout_s = f.Get<double>("timeout_s");
  r.max_time_s = f.Get<double>("max_time_s");
  r.min_time_s = f.Get<double>("min_time_s");
  r.max_repeats = f.Get<int64_t>("max_repeats");
  r.stop = f.Get<std::string>("stop");
  r.ci_rel_target = f.Get<double>("ci_rel_target");
  r.ci_min_repeats = f.Get<int64_t>("ci_min_repeats");
  r.processes = f.Get<int64_t>("processes");
  r.max_processes = f.Get<int64_t>("max_processes");
  r.timing_boundary = f.Get<std::string>("timing_boundary");
  r.quick = f.Get<bool>("quick");
  r.profile = f.Get<bool>("profile");
  r.scenario = f.Get<std::string>("scenario");
  r.streams = f.Get<int64_t>("streams");
  const Fields server = f.Object("server");
  r.server.target_qps = server.Get<double>("target_qps");
  r.server.latency_bound_ms = server.Get<double>("latency_bound_ms");
  r.server.latency_percentile = server.Get<double>("latency_percentile");
  r.server.find_peak = server.Get<bool>("find_peak");
  if (!server.IsNull("arrival_seed")) r.server.arrival_seed = server.Get<uint64_t>("arrival_seed");
  r.server.min_duration_s = server.Get<double>("min_duration_s");
  const Fields check = f.Object("check");
  r.check.enabled = check.Get<bool>("enabled");
  r.check.tolerance_fp32 = check.Get<double>("tolerance_fp32");
  r.check.tolerance_bf16 = check.Get<double>("tolerance_bf16");
  r.check.tolerance_fp16 = check.Get<double>("tolerance_fp16");
  const Fields validity = f.Object("validity");
  r.validity.max_ci_rel = validity.Get<double>("max_ci_rel");
  r.validity.min_processes = validity.Get<int64_t>("min_processes");
  r.validity.max_cv = validity.GetOptional("max_cv");
  r.validity.max_other_cpu_pct = validity.Get<double>("max_other_cpu_pct");
  r.validity.min_repeats = validity.Get<int64_t>("min_repeats");
  r.validity.max_stall_share = validity.Get<double>("max_stall_share");
  return r;
}

CompilerConfig ParseConfig(const Fields& f) {
  CompilerConfig c;
  c.compiler = f.Get<std::string>("compiler");
  c.device = f.Get<std::string>("device");
  c.precision = f.Get<std::string>("precision");
  c.threads = f.Get<int>("threads");
  c.affinity = f.Get<std::string>("affinity");
  c.opt_level = f.Get<std::string>("opt_level");
  c.options = Options(f.Get<std::map<std::string, std::string>>("options"));
  c.source = f.Get<std::string>("source");
  return c;
}

}  // namespace

std::string FormatResolvedRun(const ResolvedRun& spec) {
  const Json j{{"ngraphbench_spec", kSpecFormat},
               {"run", RunJson(spec.run)},
               {"config", ConfigJson(spec.config)},
               {"results_dir", spec.results_dir},
               {"device", spec.device},
               {"sample_ms", spec.sample_ms},
               {"config_hash", spec.config_hash},
               {"settings", spec.settings}};
  return j.dump(2) + "\n";
}

ResolvedRun ParseResolvedRun(const std::string& text, const std::string& source) {
  const Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    throw InputError("run specification '" + source + "' is not JSON");
  }
  const Fields f(j, "", source);
  if (const int format = f.Get<int>("ngraphbench_spec"); format != kSpecFormat) {
    throw InputError("run specification '" + source + "' has format " + std::to_string(format) +
                     "; this ngraphbench reads format " + std::to_string(kSpecFormat) +
                     " (a spec of another build)");
  }
  ResolvedRun spec;
  spec.run = ParseRun(f.Object("run"));
  spec.config = ParseConfig(f.Object("config"));
  spec.results_dir = f.Get<std::string>("results_dir");
  spec.device = f.Get<std::string>("device");
  spec.sample_ms = f.Get<int>("sample_ms");
  spec.config_hash = f.Get<std::string>("config_hash");
  spec.settings = f.Get<std::vector<std::string>>("settings");
  return spec;
}

ResolvedRun ReadResolvedRun(const std::string& path) {
  return ParseResolvedRun(ReadFileCapped(path, kMaxConfigBytes, "run specification"), path);
}

}  // namespace ngraphbench
