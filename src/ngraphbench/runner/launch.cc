#include "ngraphbench/runner/launch.h"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

namespace ngraphbench {

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

}  // namespace ngraphbench
