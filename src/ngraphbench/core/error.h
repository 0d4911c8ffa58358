// Error types and process exit codes shared by every module.
#pragma once

#include <stdexcept>
#include <string>

namespace ngraphbench {

// Exit codes of the `ngraphbench` binary.
constexpr int kExitOk = 0;
constexpr int kExitRunsFailed = 1;  // the sweep completed, but some runs are not `ok`
constexpr int kExitBadInput = 2;    // bad command line, config or model file; nothing was run
constexpr int kExitEnvironment = 3; // the environment failed: results not writable, disk full,
                                    // no process could be started
constexpr int kExitInterrupted = 128;  // + the signal: 130 for SIGINT, 143 for SIGTERM

// The user gave something wrong: a config key, a value, a file, an unknown name.
// The message names what was wrong and what would be right. Maps to exit code 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The machine failed the run, not the input: a results directory that cannot be written, a full
// disk, a process that cannot be started. Maps to exit code 3, which stops sweep.sh.
class EnvironmentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A compiler could not build or run a model (unsupported operator, SDK failure).
// Inside a worker it becomes a row with status `error`; the sweep goes on.
class CompileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// This machine lacks what a run needs: no GPU, an execution provider missing from this build of
// the SDK, vendor libraries not installed. Not a fault of the model or of the compiler: the run
// becomes a row with status `skipped` naming the reason, the sweep goes on, and the exit code
// stays 0.
class UnavailableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ngraphbench
