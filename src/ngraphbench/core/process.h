// This machine's processes as the runner's files name them: the host tag and the liveness test
// behind every "is its writer gone" decision, and the temporary names that carry their writer's
// host and pid, `<prefix><host>-<pid>-XXXXXX<suffix>`, with the one function that removes those
// a gone writer left. Everything that writes a temporary file or folder into a results tree
// (worker logs, run specs, large-model folders, cache entries being written) names it so, and the
// scheduler removes what a killed process left.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ngraphbench {

// The environment variable through which the scheduler hands this machine's machine_id
// (measure/machine.h) to its workers.
inline constexpr const char* kMachineIdEnv = "NGB_MACHINE_ID";

// This machine's host name as one file-name component: only [A-Za-z0-9-] (dots and anything
// else dropped), "unknown" when nothing is left. Names temporary files and worker logs.
std::string HostTag();

// Fields 3 onwards of /proc/<pid>/stat (state, ppid, pgrp, ...: field n is element n - 3), read
// past the last ')' because the command name may hold spaces and parentheses; nullopt when the
// process is gone or its entry hidden.
std::optional<std::vector<std::string>> ProcStatFields(long pid);
// Field 22 (starttime) in ProcStatFields.
constexpr size_t kProcStartTimeIndex = 22 - 3;

// Whether process `pid` of this machine runs (a zombie does not); when `start_time` is given it
// must also match field 22 of /proc/<pid>/stat, so that a reused pid reads as gone. A process
// whose /proc entry is hidden (hidepid) but that answers kill(pid, 0) counts as running.
bool LocalProcessAlive(long pid, const std::string& start_time = "");

// `<dir>/<prefix><host>-<pid>-XXXXXX<suffix>` for mkstemps or mkdtemp, the pid this process's,
// with `dir` made: a failure to make it throws (ThrowFileError, core/error.h: a StorageError for
// a full disk).
std::string TempNameTemplate(const std::string& dir, const std::string& prefix,
                             const std::string& suffix);

// Whether `name` (a file name, no folder) is `<prefix><host>-<pid>-XXXXXX<suffix>` of this host
// whose writer `pid` is gone. A name without the host, `<prefix><pid>-XXXXXX<suffix>`, was made
// before names held one and is taken as this host's. Another host's names are never gone here:
// their pids mean nothing on this machine.
bool TempNameWriterGone(const std::string& name, const std::string& prefix,
                        const std::string& suffix);

// Removes the entries of `dir` (files, or folders with what they hold) for which
// TempNameWriterGone holds; returns how many.
int RemoveTempNamesOfGoneWriters(const std::string& dir, const std::string& prefix,
                                 const std::string& suffix);

// Calls `fn(name, context)` for each entry of the directory open as `dir_fd` but "." and "..",
// from where its offset stands. Raw system calls and a stack buffer only (async-signal-safe), for
// signal handlers and what they call.
void ForEachDirEntry(int dir_fd, void (*fn)(const char* name, void* context), void* context);

// A folder this process is writing, removed by RemoveFoldersOnSignal when a signal stops the
// process before it could remove the folder itself (a worker stopped during an export or a
// compile). Registered while this lives; a fixed table of a few slots, since a signal handler
// may not allocate: a folder that finds no slot is left to the scheduler's clean-up of gone
// writers. For one thread (the worker's main thread) to register.
class RemoveOnSignal {
 public:
  explicit RemoveOnSignal(const std::string& path);
  ~RemoveOnSignal();
  RemoveOnSignal(const RemoveOnSignal&) = delete;
  RemoveOnSignal& operator=(const RemoveOnSignal&) = delete;

 private:
  int slot_ = -1;
};

// Removes the folders that RemoveOnSignal holds, with what they hold. Async-signal-safe.
void RemoveFoldersOnSignal();

}  // namespace ngraphbench
