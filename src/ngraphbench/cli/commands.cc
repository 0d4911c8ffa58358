#include "ngraphbench/cli/commands.h"

#include <unistd.h>

#include <climits>
#include <cstring>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <iostream>

#include <fmt/core.h>

#include "ngraphbench/core/error.h"
#include "ngraphbench/graph/onnx_io.h"
#include "ngraphbench/models/torch_export.h"
#include "ngraphbench/models/zoo.h"

namespace ngraphbench {

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

std::string SelfExe() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "ngraphbench";
  buf[n] = '\0';
  return buf;
}

void ExecOrExit(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execv(args[0], args.data());
  std::fprintf(stderr, "cannot exec %s: %s\n", args[0], std::strerror(errno));
  ::_exit(127);
}

std::string RunDirectory(const RunArgs& args) {
  CheckDeviceLabel(args.device);
  return args.results_dir + "/" + args.device + "/" + args.compiler;
}

std::vector<std::string> WorkerCommand(const WorkerArgs& w) {
  const RunArgs& r = w.run;
  std::vector<std::string> cmd = {SelfExe(), "worker", r.grid.experiment, r.compiler, w.run_id,
                                  "--device", r.device, "--results", r.results_dir,
                                  "--configs", r.grid.configs_dir,
                                  "--sample-ms", std::to_string(r.sample_ms)};
  if (r.cores > 0) cmd.insert(cmd.end(), {"--cores", std::to_string(r.cores)});
  if (r.grid.quick) cmd.push_back("--quick");
  if (!r.grid.input_shape.empty()) cmd.insert(cmd.end(), {"--input-shape", r.grid.input_shape});
  if (r.grid.warmup) cmd.insert(cmd.end(), {"--warmup", std::to_string(*r.grid.warmup)});
  if (r.grid.repeats) cmd.insert(cmd.end(), {"--repeats", std::to_string(*r.grid.repeats)});
  if (r.grid.stop) cmd.insert(cmd.end(), {"--stop", *r.grid.stop});
  if (r.grid.processes) {
    cmd.insert(cmd.end(), {"--processes", std::to_string(*r.grid.processes)});
  }
  if (w.process >= 0) cmd.insert(cmd.end(), {"--process", std::to_string(w.process)});
  if (!w.reference_out.empty()) {
    cmd.insert(cmd.end(),
               {"--reference-compiler", w.reference_compiler, "--reference-out", w.reference_out});
  }
  return cmd;
}

int CmdExpand(const GridArgs& args) {
  for (const auto& run : ResolveGrid(args)) std::cout << run.run_id << "\n";
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
        std::string version;
        const std::string cmd = "'" + SelfExe() + "' probe " + info.name + " 2>/dev/null";
        if (FILE* pipe = ::popen(cmd.c_str(), "r")) {
          char buf[256];
          while (std::fgets(buf, sizeof(buf), pipe)) version += buf;
          int rc = ::pclose(pipe);
          while (!version.empty() && version.back() == '\n') version.pop_back();
          if (rc != 0 || version.empty()) version = "built, but its module fails to load";
        }
        state = version;
      }
      std::cout << fmt::format("  {:<12} {:<40} {}\n", info.name, state, info.role);
    }
  }
  return kExitOk;
}

namespace {

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

ProbeResult Probe(const std::string& compiler, const std::string& configs_dir) {
  const std::string cmd = ShellQuote(SelfExe()) + " probe " + ShellQuote(compiler) +
                          " --configs " + ShellQuote(configs_dir) + " 2>/dev/null";
  std::string out;
  if (FILE* pipe = ::popen(cmd.c_str(), "r")) {
    char buf[1024];
    while (std::fgets(buf, sizeof(buf), pipe)) out += buf;
    if (::pclose(pipe) != 0) return {};
  }
  const size_t eol = out.find('\n');
  if (eol == std::string::npos) return {};
  ProbeResult result{out.substr(0, eol), ""};
  const std::string rest = out.substr(eol + 1);
  if (rest.rfind(kProbeUnavailable, 0) == 0) {
    result.unavailable = rest.substr(std::string(kProbeUnavailable).size());
    while (!result.unavailable.empty() && result.unavailable.back() == '\n') {
      result.unavailable.pop_back();
    }
  }
  return result;
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
      if (run.run_id != run_id) continue;
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

}  // namespace ngraphbench
