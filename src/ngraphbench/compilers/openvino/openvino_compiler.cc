// The `openvino` compiler (vendor-specific, Intel CPU): OpenVINO's C++ API reads the ONNX bytes
// in memory through its ONNX frontend and compiles them for one device (CPU, GPU or AUTO).
//
// configs/openvino.yaml maps onto OpenVINO properties:
//   device cpu|gpu|auto  -> "CPU" | "GPU" | "AUTO"
//   precision            -> ov::hint::inference_precision (always set: on CPUs with AMX or
//                           AVX512_BF16 OpenVINO otherwise runs fp32 models in bf16)
//   threads              -> ov::inference_num_threads (CPU only)
//   performance_hint     -> ov::hint::performance_mode (LATENCY; the registry refuses THROUGHPUT)
//   num_streams          -> ov::num_streams (0 = as the hint decides; the registry refuses > 1)
// Scenario offline (CompileRequest::offline) sets both itself: THROUGHPUT, and num_streams =
// the run's streams (`auto`: ov::streams::AUTO, the plugin's choice for the cores it has), with
// inference_num_threads the run's threads split between the streams by the plugin; one infer
// request per stream (NewContext), as many as the run's streams or, under auto,
// ov::optimal_number_of_infer_requests.
//   cache_dir            -> ov::cache_dir (empty: the run's own blob cache, below)
//
// A run's later processes (CompileRequest::cold false) import the model its first process
// compiled: the cold process compiles as always and exports the compiled model
// (CompiledModel::export_model) to <cache_dir>/openvino/<key>/model.blob, and a later process
// imports it (Core::import_model, cache_hit=true in the settings) with the same properties,
// without reading the ONNX model at all. This is what OpenVINO's own model cache (ov::cache_dir)
// does, but the cold process never imports a blob (a row's compile_s stays a compile), the
// blob appears only once complete (CacheEntryBuild), and the key is ours: the model's bytes,
// the device, every property set below, the OpenVINO version and this machine
// (MachineIdentity), so that a results tree shared between machines never gives one machine a
// blob compiled for another CPU's instruction set. Not for AUTO, which picks its device while
// compiling and has no import of its own; nor with the cache_dir option, where OpenVINO's own
// cache decides (loaded_from_cache gives cache_hit).
//
// Profile() compiles the model a second time with OpenVINO's per-layer counters
// (ov::enable_profiling) and reads InferRequest::get_profiling_info(): its kernels are the
// plugin's executed layers, attributed to graph nodes through the runtime model's
// originalLayersNames (see Attribution below).
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <openvino/openvino.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ngraphbench/compilers/compile_helper.h"
#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/compilers/openvino/openvino_internal.h"
#include "ngraphbench/compilers/quantize_common/int8_census.h"
#include "ngraphbench/compilers/quantize_common/quantize_common.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/tensor.h"

namespace ngraphbench {
namespace openvino_compiler {
namespace {

namespace fs = std::filesystem;

constexpr char kBlob[] = "model.blob";

std::string OvDevice(const std::string& device) {
  if (device == "cpu") return "CPU";
  if (device == "gpu") return "GPU";
  if (device == "auto") return "AUTO";
  throw InputError("openvino: device '" + device + "' is not one of cpu, gpu, auto");
}

// Precision int8: the model quantized by NNCF (ov_quantize.py in a helper process with the python
// of the openvino wheel, on the calibration set: quantize_common/quantize_common.h), cached in
// <cache>/openvino-int8/<key>/quantized.{xml,bin}; the key covers OpenVINO's build number.
QuantizeTool NncfTool() {
  QuantizeTool tool;
  tool.who = "openvino";
  tool.python = EnvOr("NGRAPHBENCH_OV_PYTHON", NGB_OV_PYTHON);
  tool.script = EnvOr("NGRAPHBENCH_OV_QUANTIZE_SCRIPT", NGB_OV_QUANTIZE_SCRIPT);
  tool.fix = "set NGRAPHBENCH_OV_PYTHON to a python with the openvino and nncf wheels "
             "(./setup.sh installs both)";
  tool.sdk_version = ov::get_openvino_version().buildNumber;
  tool.outputs = {"quantized.xml", "quantized.bin"};
  return tool;
}

ov::element::Type OvPrecision(const std::string& precision) {
  if (precision == "fp32") return ov::element::f32;
  if (precision == "bf16") return ov::element::bf16;
  if (precision == "fp16") return ov::element::f16;
  throw InputError("openvino: precision '" + precision + "' is not one of fp32, bf16, fp16");
}

std::string Join(const std::vector<std::string>& items) {
  std::string joined;
  for (const std::string& item : items) joined += (joined.empty() ? "" : " ") + item;
  return joined;
}

// Precision int8: what the plugin runs of NNCF's model, from its execution graph
// (CompiledModel::get_runtime_model(), one op per executed layer, whose rt_info says the layer's
// type, runtime precision and implementation): int8_census.h's census of its compute layers.
// Reads the compiled model's graph; compiles nothing.
Int8Census ExecutionGraphCensus(const ov::CompiledModel& compiled) {
  auto text = [](const ov::RTMap& info, const char* key) -> std::string {
    const auto it = info.find(key);
    if (it == info.end()) return "";
    try {
      return it->second.as<std::string>();
    } catch (const ov::Exception&) {
      return "";
    }
  };
  std::vector<ExecutedLayer> layers;
  for (const auto& op : compiled.get_runtime_model()->get_ops()) {
    const ov::RTMap& info = op->get_rt_info();
    layers.push_back({text(info, "layerType"), text(info, "runtimePrecision"),
                      text(info, "primitiveType")});
  }
  return OpenVinoInt8Census(layers);
}

class OpenVinoCompiler final : public Compiler {
 public:
  std::string Version() const override {
    return std::string("openvino ") + ov::get_openvino_version().buildNumber;
  }

  std::unique_ptr<Executable> Compile(const CompileRequest& original) override {
    if (original.onnx.empty() && original.onnx_path.empty()) {
      throw CompileError("openvino: no ONNX model in the request, neither bytes nor a path (its "
                         "registry entry must set consumes_onnx = true)");
    }
    // int8: what is compiled is NNCF's quantized model, with fp32 as the inference precision of
    // the layers left in floating point (FakeQuantize layers run as integer kernels).
    std::optional<QuantizeTool> tool;
    if (original.config.precision == "int8") {
      if (original.config.device != "cpu") {
        throw CompileError("openvino: precision int8 runs on device cpu only here; use device "
                           "cpu");
      }
      tool = NncfTool();
    }
    const ModelToCompile model(original, tool, scratch_, "quantized.xml", "fp32");
    const QuantizedModel* nncf = model.quantized();
    const CompileRequest& request = model.request();
    const CompilerConfig& config = request.config;
    const std::string device = OvDevice(config.device);
    const ov::element::Type precision = OvPrecision(config.precision);
    try {
      CheckDevice(device, config.precision);
      if (request.offline && config.options.Int("num_streams") != 0) {
        throw CompileError("openvino: with scenario offline the run's streams set num_streams; "
                           "leave the num_streams option at 0");
      }
      const int64_t streams = request.offline ? request.streams : -1;
      const ov::AnyMap properties = Properties(config, device, /*profiled=*/false, streams);
      bool cache_hit = false;
      double store_s = 0;
      ov::CompiledModel compiled;
      if (!request.cache_dir.empty() && device != "AUTO" &&
          config.options.String("cache_dir").empty()) {
        compiled = CompileOrImport(request, device, properties, cache_hit, store_s);
      } else {
        compiled = core_.compile_model(ReadOnnx(core_, request.onnx, request.onnx_path), device,
                                       properties);
        cache_hit = LoadedFromCache(compiled);
      }
      std::optional<Int8Census> census;
      std::string census_error;
      if (nncf) {
        try {
          census = ExecutionGraphCensus(compiled);
        } catch (const ov::Exception& e) {
          census_error = e.what();
        }
      }
      auto executable = std::make_unique<OpenVinoExecutable>(
          std::move(compiled), request.graph,
          ProfileRecipe{core_, &request.graph, &request.onnx, request.onnx_path, device,
                        Properties(config, device, /*profiled=*/true, streams)},
          cache_hit);
      executable->set_cache_store_s(store_s);
      CheckPrecision(executable->EffectiveSettings(), precision);
      if (nncf) {
        auto& settings = executable->settings();
        settings["quantization"] = nncf->meta.value("scheme", "unknown");
        settings["calibration_batches"] =
            std::to_string(nncf->meta.value("calibration_batches", 0));
        settings["quantize_s"] = std::to_string(nncf->meta.value("quantize_s", 0.0));
        settings["fake_quantize_nodes"] = std::to_string(nncf->meta.value("fake_quantize", 0));
        settings["quantize_cache_hit"] = nncf->cache_hit ? "true" : "false";
        // The compute layers by runtime precision, and their implementations by name.
        if (census) {
          settings["int8_kernels"] = std::to_string(census->int8_compute);
          settings["float_kernels"] = std::to_string(census->float_compute);
          if (!census->int8_by_name.empty()) {
            settings["int8_primitives"] = FormatCounts(census->int8_by_name);
          }
          if (!census->float_by_name.empty()) {
            settings["float_primitives"] = FormatCounts(census->float_by_name);
          }
          if (!census->degraded.empty()) executable->add_degraded(census->degraded);
        } else {
          settings["int8_census_error"] = CensusError(census_error);
        }
        settings["quantize_key"] = nncf->key;  // the entry <cache_dir>/openvino-int8/<key>/
      }
      if (!request.offline) {
        CheckOneStream(executable->EffectiveSettings());
        return executable;
      }
      int64_t serve = request.streams;
      if (serve == 0) {
        const auto& settings = executable->EffectiveSettings();
        const auto it = settings.find("optimal_infer_requests");
        serve = it == settings.end() ? 0 : std::strtoll(it->second.c_str(), nullptr, 10);
        if (serve < 1) {
          throw CompileError("openvino: streams auto, but the compiled model reports no "
                             "optimal_number_of_infer_requests; give streams a number");
        }
      }
      executable->ServeStreams(serve);
      return executable;
    } catch (const ov::Exception& e) {
      throw CompileError("openvino (" + device + "): " + e.what());
    }
  }

 private:
  // A clear error instead of OpenVINO's plugin-loading message, and no silent precision
  // fallback on a device without the requested arithmetic.
  void CheckDevice(const std::string& device, const std::string& precision) {
    if (device == "AUTO") return;  // AUTO picks a device itself; CheckPrecision covers it
    const std::vector<std::string> available = core_.get_available_devices();
    const bool present = std::any_of(available.begin(), available.end(), [&](const auto& name) {
      return name.rfind(device, 0) == 0;  // "GPU" also matches "GPU.0"
    });
    if (!present) {
      throw CompileError("openvino: device " + device + " is not available here (OpenVINO sees: " +
                         Join(available) + ")");
    }
    const auto capabilities = core_.get_property(device, ov::device::capabilities);
    std::string wanted = precision;
    std::transform(wanted.begin(), wanted.end(), wanted.begin(), ::toupper);
    if (std::find(capabilities.begin(), capabilities.end(), wanted) == capabilities.end()) {
      throw CompileError("openvino: precision " + precision + " is not supported by " + device +
                         " (capabilities: " + Join(capabilities) + ")");
    }
  }

  // The run's blob cache (the file's comment): a later process imports the blob of its entry
  // (`cache_hit`); a cold one, or one that finds no blob it can import, compiles the model and
  // exports the blob there.
  ov::CompiledModel CompileOrImport(const CompileRequest& request, const std::string& device,
                                    const ov::AnyMap& properties, bool& cache_hit,
                                    double& store_s) {
    Fnv128 key;
    key.Add("ngraphbench-openvino-v1").Add(Version()).Add(MachineIdentity()).Add(device);
    key.Add(OnnxModelDigest(request.onnx_path, request.onnx, "openvino"));
    for (const auto& [name, value] : properties) key.Add(name).Add(value.as<std::string>());
    const fs::path entry = fs::path(request.cache_dir) / "openvino" / key.Hex();
    // A blob that did not import, or is not a regular file (a FIFO would block the import, a
    // link may lead anywhere), which this compile replaces.
    const fs::file_status blob_status = fs::symlink_status(entry / kBlob);
    bool damaged = fs::exists(blob_status) && !fs::is_regular_file(blob_status);
    if (!request.cold && fs::is_regular_file(blob_status)) {
      try {
        std::ifstream blob(entry / kBlob, std::ios::binary);
        ov::CompiledModel imported = core_.import_model(blob, device, properties);
        cache_hit = true;
        return imported;
      } catch (const ov::Exception& e) {
        damaged = true;
        std::cerr << "openvino: cannot import " << (entry / kBlob).string() << " (" << e.what()
                  << "); compiling the model\n";
      }
    }
    ov::CompiledModel compiled = core_.compile_model(
        ReadOnnx(core_, request.onnx, request.onnx_path), device, properties);
    // Written beside the entry and renamed into place (compile_helper.h): a cold compile
    // neither reads an entry nor leaves a partial one.
    const auto store_start = std::chrono::steady_clock::now();
    struct StoreTime {
      std::chrono::steady_clock::time_point start;
      double& seconds;
      ~StoreTime() {
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
    } store_time{store_start, store_s};
    CacheEntryBuild build(entry);
    try {
      std::ofstream blob(build.dir() / kBlob, std::ios::binary);
      compiled.export_model(blob);
      blob.close();
      if (!blob) {
        std::cerr << "openvino: cannot write " << (build.dir() / kBlob).string()
                  << "; the run's later processes compile the model again\n";
        return compiled;
      }
    } catch (const ov::Exception& e) {
      std::cerr << "openvino: cannot export the compiled model (" << e.what()
                << "); the run's later processes compile it again\n";
      return compiled;
    }
    // An entry another process of the run wrote meanwhile is as good as this one.
    build.Commit([&](const fs::path& e) { return !damaged && fs::exists(e / kBlob); });
    return compiled;
  }

  // Whether OpenVINO's own model cache (the cache_dir option) gave the compiled model. The core
  // answers this for every compiled model without listing it in supported_properties; false
  // where it does not answer.
  static bool LoadedFromCache(const ov::CompiledModel& compiled) {
    try {
      return compiled.get_property(ov::loaded_from_cache);
    } catch (const ov::Exception&) {
      return false;
    }
  }

  // `profiled`: for Profile()'s model, with the per-layer counters on and without the model
  // cache, so that it neither loads the timed model's blob nor stores one of its own.
  // `offline_streams`: -1 for single stream (the config's hint and num_streams), else the
  // offline run's streams (0 = auto) under the THROUGHPUT hint.
  static ov::AnyMap Properties(const CompilerConfig& config, const std::string& device,
                               bool profiled, int64_t offline_streams) {
    const Options& options = config.options;
    ov::AnyMap device_properties = {
        ov::hint::inference_precision(OvPrecision(config.precision))};
    if (profiled) device_properties.emplace(ov::enable_profiling(true));
    if (offline_streams > 0) {
      device_properties.emplace(ov::num_streams(static_cast<int>(offline_streams)));
    } else if (offline_streams == 0) {
      device_properties.emplace(ov::num_streams(ov::streams::AUTO));
    } else if (options.Int("num_streams") > 0) {
      device_properties.emplace(ov::num_streams(static_cast<int>(options.Int("num_streams"))));
    }
    ov::AnyMap cpu_properties = device_properties;
    if (config.threads > 0) cpu_properties.emplace(ov::inference_num_threads(config.threads));

    ov::AnyMap properties = {ov::hint::performance_mode(
        offline_streams >= 0
            ? ov::hint::PerformanceMode::THROUGHPUT
            : ov::Any(options.String("performance_hint")).as<ov::hint::PerformanceMode>())};
    if (!profiled && !options.String("cache_dir").empty()) {
      properties.emplace(ov::cache_dir(options.String("cache_dir")));
    }
    if (device == "CPU") {
      properties.insert(cpu_properties.begin(), cpu_properties.end());
    } else if (device == "GPU") {
      properties.insert(device_properties.begin(), device_properties.end());
    } else {  // AUTO forwards per-device settings to whichever device it picks
      properties.emplace(ov::device::properties("CPU", cpu_properties));
      properties.emplace(ov::device::properties("GPU", device_properties));
    }
    return properties;
  }

  static void CheckPrecision(const std::map<std::string, std::string>& settings,
                             const ov::element::Type& precision) {
    const auto it = settings.find("inference_precision");
    if (it != settings.end() && it->second != precision.get_type_name()) {
      throw CompileError("openvino: asked for inference precision " + precision.get_type_name() +
                         ", the compiled model runs " + it->second);
    }
  }

  // Run() is one synchronous request, which keeps one stream busy: a model compiled with more
  // streams would be timed in a mode it does not run in. Config validation refuses the settings
  // that ask for more; this checks what OpenVINO actually chose.
  static void CheckOneStream(const std::map<std::string, std::string>& settings) {
    const auto it = settings.find("num_streams");
    // strtoll: a symbolic value (AUTO, NUMA) reads as 0, i.e. not known to be several streams.
    if (it != settings.end() && std::strtoll(it->second.c_str(), nullptr, 10) > 1) {
      throw CompileError("openvino: the compiled model has num_streams " + it->second +
                         ", but ngraphbench times one synchronous infer request, which uses one "
                         "stream; use performance_hint LATENCY with num_streams 0 or 1");
    }
  }

  ov::Core core_;
  QuantizeScratch scratch_;  // uncached quantized models, read while the executables live
};

}  // namespace
}  // namespace openvino_compiler
}  // namespace ngraphbench

extern "C" __attribute__((visibility("default"))) ngraphbench::Compiler*
NgraphbenchCreateCompiler() {
  return new ngraphbench::openvino_compiler::OpenVinoCompiler();
}
