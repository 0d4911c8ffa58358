// Error types and process exit codes shared by every module.
#pragma once

#include <cerrno>
#include <cstring>
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
// Between the scheduler and its children only: a worker (or its reference child, or the PyTorch
// export script it runs) that could not write because the storage failed (IsStorageFailure)
// exits with this after saying why on stderr, having written no row. The scheduler then writes
// no row for that process either and stops the sweep with kExitEnvironment: a full disk is not
// the compiler's failure. A code of its own (sysexits.h's EX_IOERR), not 3, so that an SDK that
// calls exit(3) still makes a `crashed` row.
constexpr int kExitStorageFailed = 74;

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

// Whether a file operation that failed with `error_number` failed because of the storage under
// the file, not because of what was written or who wrote it: ENOSPC (disk full), EDQUOT (quota
// exhausted), EROFS (file system read-only, e.g. remounted after errors), EIO (a failing disk or
// file server). Such a failure is the machine's: the sweep stops (exit 3) and a resume once it is
// fixed measures what is left, instead of rows that blame the compiler.
inline bool IsStorageFailure(int error_number) {
  return error_number == ENOSPC || error_number == EDQUOT || error_number == EROFS ||
         error_number == EIO;
}

// The EnvironmentError of a write that the storage refused (IsStorageFailure): what stops a
// sweep with exit 3 and no row for the run (see kExitStorageFailed).
class StorageError : public EnvironmentError {
 public:
  // `error_number` 0: the failure was another process's, whose message says which.
  StorageError(const std::string& what, int error_number)
      : EnvironmentError(what), error_number_(error_number) {}
  int error_number() const { return error_number_; }

 private:
  int error_number_;
};

// The error of a file operation that failed with `error_number`: "<what>: <strerror>", as a
// StorageError when the storage failed (IsStorageFailure), else as an EnvironmentError. Every
// writer of the results tree reports its failures through this, so that one rule decides.
[[noreturn]] inline void ThrowFileError(const std::string& what, int error_number) {
  const std::string message = what + ": " + std::strerror(error_number);
  if (IsStorageFailure(error_number)) throw StorageError(message, error_number);
  throw EnvironmentError(message);
}

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
