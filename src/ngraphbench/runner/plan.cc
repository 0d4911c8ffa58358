#include "ngraphbench/runner/plan.h"

#include <fmt/core.h>

#include <filesystem>
#include <fstream>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/core/random.h"
#include "ngraphbench/models/zoo.h"
#include "ngraphbench/results/csv.h"

namespace ngraphbench {

namespace fs = std::filesystem;

namespace {

// The device label names a directory under --results: one path component that analyze finds,
// never '..' or a hidden or nested directory.
void CheckDeviceLabel(const std::string& label) {
  const bool ok = !label.empty() && label[0] != '.' &&
                  label.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                          "0123456789._-") == std::string::npos;
  if (!ok) {
    throw InputError("--device '" + label +
                     "' is not a valid device label: use letters, digits, '.', '_' and '-' "
                     "([A-Za-z0-9._-]+), not starting with '.'");
  }
}

}  // namespace

std::string RunDirectory(const RunArgs& args) {
  CheckDeviceLabel(args.device);
  return args.results_dir + "/" + args.device + "/" + args.compiler;
}

std::map<std::string, double> ModelMacs(const std::vector<RunSpec>& runs,
                                        const std::string& results_dir) {
  std::map<std::string, double> macs;
  const fs::path cache = fs::path(results_dir) / ".cache" / "macs";
  for (const RunSpec& run : runs) {
    const ModelSpec& m = run.model;
    if (macs.count(m.name)) continue;
    // A model given as PyTorch code is only built once exported, which is a worker's job (in
    // Python, seconds to minutes): unknown here, so its estimate uses the priors.
    if (m.family == "torch") continue;
    // Building a large architecture takes seconds (its weights are generated): the count is kept
    // per model and build, so every shard of a sweep pays it once per results tree.
    const std::string key = fmt::format(
        "macs=1\n{}\n{}\n{}\n{}\n{}x{}\n{}\n{}\n", NGB_VERSION, m.family, m.name, m.variant,
        m.width, m.depth, m.onnx_path, m.onnx_path.empty() ? "" : FileDigest(m.onnx_path));
    const fs::path file = cache / (m.name + "." + Fnv1a64Hex(key) + ".txt");
    double value = 0;
    std::ifstream in(file);
    if (!(in >> value) || value < 0) {
      value = static_cast<double>(CountMacs(BuildModel(m, 1)));
      std::error_code error;
      fs::create_directories(cache, error);
      if (!error) {
        try {
          WriteFileAtomic(file.string(), fmt::format("{:.0f}\n", value));
        } catch (const std::exception&) {
          // A read-only results tree: the count is computed again next time.
        }
      }
    }
    macs[m.name] = value;
  }
  return macs;
}

EstimateInputs LoadEstimateInputs(const std::vector<RunSpec>& runs, const RunArgs& args,
                                  const CompilerConfig& config, bool use_measured) {
  EstimateInputs in;
  in.compiler = args.compiler;
  in.threads = config.threads;
  in.macs = ModelMacs(runs, args.results_dir);
  if (!use_measured) return in;
  std::error_code error;
  for (fs::directory_iterator it(RunDirectory(args), error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.' || name.size() < 5 ||
        name.compare(name.size() - 4, 4, ".csv") != 0 ||
        name.find(".latencies.") != std::string::npos) {
      continue;
    }
    try {
      ResultRow row = ReadRow(it->path().string());
      in.measured.emplace(row.run_id, std::move(row));
    } catch (const InputError&) {
      // An unreadable row tells nothing about time; resume reports it.
    }
  }
  return in;
}

std::string FormatHours(double seconds) {
  const auto s = static_cast<int64_t>(seconds + 0.5);
  return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
}

}  // namespace ngraphbench
