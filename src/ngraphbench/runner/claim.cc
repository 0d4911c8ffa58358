#include "ngraphbench/runner/claim.h"

#include <fmt/core.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/runner/parts.h"

namespace ngraphbench {

namespace {

using Clock = std::chrono::steady_clock;

// machine.json's lock is held for milliseconds, so a wait of seconds means a holder that died,
// whose lock is recovered once stale (at once on this host).
constexpr double kMachineLockStaleS = 8;
constexpr double kMachineLockWaitS = 10;

std::string MachineLockPath(const std::string& machine_path) {
  return std::filesystem::path(machine_path).parent_path().string() + "/.machine.json.lock";
}

// machine.json as it is now, nullopt when there is none; a file that is not a regular one, a
// symbolic link, or larger than the tool writes it is refused (InputError naming it).
std::optional<std::string> ReadMachineFile(const std::string& path) {
  return ReadFileIfExists(path, kMaxMachineJsonBytes, "machine file", Links::kRefuse);
}

}  // namespace

std::optional<FileVersion> VersionOf(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileVersion{st.st_dev, st.st_ino,
                     int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec, st.st_size};
}

std::optional<Claim> ClaimProcess(const std::string& dir, const RunSpec& run, int process,
                                  ClaimHolder* holder) {
  return TryClaim(PartClaimPath(dir, run.run_id, process), run.timeout_s + kClaimMarginS, holder);
}

std::optional<Claim> ClaimRow(const std::string& dir, const RunSpec& run, ClaimHolder* holder) {
  return TryClaim(RunClaimPath(dir, run.run_id), run.timeout_s + kClaimMarginS, holder);
}

void ReleaseStaleClaims(const std::string& dir, const RunSpec& run, bool keep_row_claim) {
  ClaimHolder holder;
  const int64_t most = std::max(run.processes, run.max_processes);
  for (int process = 0; process < most; ++process) {
    if (!FileExists(PartClaimPath(dir, run.run_id, process))) continue;
    if (std::optional<Claim> stale = ClaimProcess(dir, run, process, &holder)) stale->Release();
  }
  if (!keep_row_claim && FileExists(RunClaimPath(dir, run.run_id))) {
    if (std::optional<Claim> stale = ClaimRow(dir, run, &holder)) stale->Release();
  }
}

void CheckMachineFile(const std::string& machine_path, const MachineInfo& machine) {
  CheckRegularOrMissing(MachineLockPath(machine_path), "lock file");
  MergeMachineFile(ReadMachineFile(machine_path), machine_path, machine);
}

void CheckClaimFiles(const std::string& dir) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir + "/.claims", ec), end; !ec && it != end;
       it.increment(ec)) {
    CheckRegularOrMissing(it->path().string(), "lock file");
  }
}

void UpdateMachineFile(const std::string& machine_path, const MachineInfo& machine) {
  const std::string lock_path = MachineLockPath(machine_path);
  const auto deadline = Clock::now() + std::chrono::duration<double>(kMachineLockWaitS);
  ClaimHolder holder;
  std::optional<Claim> lock = TryClaim(lock_path, kMachineLockStaleS, &holder);
  while (!lock) {
    if (Clock::now() >= deadline) {
      throw EnvironmentError(fmt::format(
          "{} has been locked by {} for over {} s ({}); if that process is gone, remove the lock",
          machine_path, holder.Describe(), kMachineLockWaitS, lock_path));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    lock = TryClaim(lock_path, kMachineLockStaleS, &holder);
  }
  WriteFileAtomic(machine_path,
                  MergeMachineFile(ReadMachineFile(machine_path), machine_path, machine));
}

}  // namespace ngraphbench
