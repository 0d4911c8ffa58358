#include "ngraphbench/cli/commands.h"

#include <cstdio>
#include <iostream>

#include <fmt/core.h>

#include "ngraphbench/analysis/profiles.h"
#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/core/shell.h"
#include "ngraphbench/core/subprocess.h"
#include "ngraphbench/experiments/config.h"  // SettingsPrecision
#include "ngraphbench/graph/onnx_io.h"
#include "ngraphbench/models/torch_export.h"
#include "ngraphbench/models/zoo.h"
#include "ngraphbench/profile/profile.h"
#include "ngraphbench/results/csv.h"
#include "ngraphbench/runner/launch.h"

namespace ngraphbench {

int CmdExpand(const GridArgs& args) {
  std::vector<RunSpec> runs = ResolveGrid(args);
  // Without --compiler, a precision every compiler takes (--set precision=int8) suffixes the
  // ids as it will in the compilers' runs; a compiler's own (openvino.precision=...) needs
  // --compiler.
  const std::string precision = SettingsPrecision(args.settings);
  SetRunPrecision(runs, precision.empty() ? "fp32" : precision);
  for (const auto& run : runs) std::cout << run.run_id << "\n";
  return kExitOk;
}

int CmdList(bool experiments, bool models, bool compilers, const std::string& configs_dir) {
  const bool all = !experiments && !models && !compilers;
  if (all || experiments) {
    ExperimentsFile file = LoadExperiments(configs_dir + "/experiments.yaml");
    std::cout << "experiments (" << file.path << "):\n";
    for (const auto& e : file.experiments) {
      std::cout << fmt::format("  {:<18} {:>5} runs ({:>3} --quick)  {}\n", e.name,
                               ExpandGrid(e, false).size(), ExpandGrid(e, true).size(),
                               e.description);
    }
  }
  if (all || models) {
    std::cout << "model families:\n";
    for (const auto& f : ModelFamilies()) {
      std::cout << fmt::format("  {:<18} {}\n", f.name, f.description);
      for (const auto& v : f.variants) {
        ModelSpec spec;
        spec.family = f.name;
        spec.name = spec.variant = v;
        Graph g = BuildModel(spec, 1);
        std::cout << fmt::format("    {:<34} params {:>12}  MACs {:>7.3f} G\n", v,
                                 g.ParameterCount(), CountMacs(g) / 1e9);
      }
    }
  }
  if (all || compilers) {
    std::cout << "compilers:\n";
    for (const auto& info : AllCompilers()) {
      std::string state = "not built: " + info.enable_hint;
      if (IsBuilt(info.name)) {
        // The version comes from a probe process: the scheduler never loads a vendor SDK.
        ChildOptions options;
        options.out = ChildOutput::kCapture;
        options.err = ChildOutput::kDiscard;
        options.capture_limit = size_t{64} << 10;
        const ChildResult probe = RunChild(ExecCommand({SelfExe(), "probe", info.name}), options);
        std::string version = probe.out;
        while (!version.empty() && version.back() == '\n') version.pop_back();
        if (!probe.ok() || version.empty()) version = "built, but its module fails to load";
        state = version;
      }
      std::cout << fmt::format("  {:<12} {:<40} {}\n", info.name, state, info.role);
    }
  }
  return kExitOk;
}

int CmdListExperimentNames(const std::string& configs_dir) {
  for (const auto& e : LoadExperiments(configs_dir + "/experiments.yaml").experiments) {
    std::cout << e.name << "\n";
  }
  return kExitOk;
}

int CmdExport(const GridArgs& args, const std::string& run_id, const std::string& out_path,
              const std::string& results_dir) {
  GridArgs full = args;
  for (bool quick : {false, true}) {
    full.quick = quick;
    for (const auto& run : ResolveGrid(full)) {
      // Every precision of a run exports the same model: the id's precision suffix is dropped.
      if (run.run_id != SeedRunId(run_id)) continue;
      ModelSpec model = run.model;
      PrepareModel(model, run.batch_size, results_dir + "/.cache");
      const std::string data = ExportOnnxFile(BuildModel(model, run.batch_size), out_path);
      std::cerr << "wrote " << out_path
                << (data.empty() ? "" : " (its weights as external data in " + data + ")")
                << "\n";
      return kExitOk;
    }
  }
  throw InputError("run '" + run_id + "' is not in experiment '" + args.experiment +
                   "'; list its runs with: ngraphbench expand " + args.experiment);
}

int CmdProfile(const std::string& experiment, const std::string& run_id,
               const std::string& compiler, const std::string& device,
               const std::string& results_dir, size_t top) {
  const std::string dir = results_dir + "/" + device + "/" + compiler;
  const std::string measure = fmt::format("ngraphbench run {} {} --device {} --results {} "
                                          "--profile",
                                          ShellQuote(experiment), ShellQuote(compiler),
                                          ShellQuote(device), ShellQuote(results_dir));
  const std::string row_path = RowPath(dir, run_id);
  if (!FileExists(row_path)) {
    throw InputError("no row '" + row_path + "': run '" + run_id + "' of " + compiler +
                     " was not measured on device '" + device + "' in '" + results_dir +
                     "'; measure it with: " + measure);
  }
  const ResultRow row = ReadRow(row_path);
  if (row.experiment != experiment) {
    throw InputError("'" + row_path + "' is run '" + run_id + "' of experiment '" +
                     row.experiment + "', not of '" + experiment + "'");
  }
  const std::string path = ProfilePath(dir, run_id);
  if (row.profiler.empty() || !FileExists(path)) {
    throw InputError("run '" + run_id + "' of " + compiler + " has no profile" +
                     (row.notes.find("profile") != std::string::npos ? " (its notes: " +
                                                                           row.notes + ")"
                                                                     : "") +
                     "; measure it with profiling: " + measure);
  }
  const ProfileTable table =
      ParseProfileCsv(ReadFileCapped(path, kMaxTraceBytes, "profile"), path);
  std::cout << FormatTopKernels(row, table, top);
  return kExitOk;
}

}  // namespace ngraphbench
