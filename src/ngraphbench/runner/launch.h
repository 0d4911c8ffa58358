// Starting the runner's processes: this binary again, as a worker or a reference child.
#pragma once

#include <string>
#include <vector>

#include "ngraphbench/runner/run.h"

namespace ngraphbench {

// The folder, under <results_dir>/.tmp/, where a worker (or its reference child) writes a model
// too large for one protobuf as an .onnx file with external data for its compiler:
// `onnx-<host>-<pid>-XXXXXX`, `pid` the writing process's. It removes the folder when done; one
// left by a killed process is removed by the scheduler (that of a dead pid of this host).
constexpr const char* kWorkerModelPrefix = "onnx-";

// Path of the running binary.
std::string SelfExe();

// In a forked child: replaces the process with argv (argv[0] a path), or says why it cannot on
// stderr and exits 127.
[[noreturn]] void ExecOrExit(const std::vector<std::string>& argv);

// The command line that reruns one run in a worker, for messages and the scheduler.
std::vector<std::string> WorkerCommand(const WorkerArgs& args);

}  // namespace ngraphbench
