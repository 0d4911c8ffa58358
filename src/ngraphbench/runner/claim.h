// The claim stage: how schedulers sharing a results tree (two shells, machines over NFS) agree,
// through results/claim.h's lock files, that each process of a run is measured once and each row
// written once, whichever scheduler gets there first.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "ngraphbench/experiments/grid.h"
#include "ngraphbench/measure/machine.h"
#include "ngraphbench/results/claim.h"

namespace ngraphbench {

// A run's claim is stale to other hosts after its timeout (when its worker is killed) plus this
// margin: the row write after it, and clocks that differ between machines and the file server.
constexpr double kClaimMarginS = 120;

// What identifies one version of a row file: a row is replaced by rename, so a row written
// since it was looked at has another inode (or at least another mtime or size).
struct FileVersion {
  dev_t dev = 0;
  ino_t ino = 0;
  int64_t mtime_ns = 0;
  off_t size = 0;
  bool operator==(const FileVersion& o) const {
    return dev == o.dev && ino == o.ino && mtime_ns == o.mtime_ns && size == o.size;
  }
  bool operator!=(const FileVersion& o) const { return !(*this == o); }
};

// nullopt when `path` does not exist.
std::optional<FileVersion> VersionOf(const std::string& path);

// The claim of process `process` of `run` in `dir`, held while it is measured and until its part
// is written; nullopt when a live holder has it, and then `*holder` says who.
std::optional<Claim> ClaimProcess(const std::string& dir, const RunSpec& run, int process,
                                  ClaimHolder* holder);
// The claim of `run` itself, under which its row is written from its parts (another scheduler
// that shares the run's processes may finish its last part at the same moment).
std::optional<Claim> ClaimRow(const std::string& dir, const RunSpec& run, ClaimHolder* holder);

// The claims of `run`, whose row is on disk, that a killed scheduler left (killed after writing
// the row, before releasing them): its row's claim (unless `keep_row_claim`: the caller holds
// it) and those of its processes, each taken over as stale and released, which removes it. A
// live holder's claim stays.
void ReleaseStaleClaims(const std::string& dir, const RunSpec& run, bool keep_row_claim);

// Merges this machine's entry into machine.json and throws the result away: a malformed file,
// or one (or its lock) that is not a regular file, stops the run before anything is written
// (InputError naming it).
void CheckMachineFile(const std::string& machine_path, const MachineInfo& machine);
// Refuses (InputError naming it) anything in `dir`/.claims/ that is not a regular file (a FIFO,
// a device, a symbolic link): a claim is read by every scheduler that meets it, so one found
// later would stop the sweep halfway; checked before anything is written.
void CheckClaimFiles(const std::string& dir);
// Merges this machine's entry into machine.json under a lock: every `run` that measures does,
// and two schedulers (of two machines sharing the tree) doing so at once would each write the
// file without the other's entry.
void UpdateMachineFile(const std::string& machine_path, const MachineInfo& machine);

}  // namespace ngraphbench
