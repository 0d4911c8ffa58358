// Claims: which process measures a run when several schedulers share one results tree (two
// shells, or several machines over NFS). A claim is a small lock file created atomically (it
// appears whole or not at all, and at most one creator succeeds); it names its holder, so that a
// claim whose holder is gone can be recovered instead of blocking the run forever.
//
// Only link(2), rename(2), unlink(2) and O_EXCL are relied on: they are atomic on local file
// systems and on NFS (v3 and later), where POSIX record locks may be missing (`nolock` mounts).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

// HostTag and LocalProcessAlive, which name and judge claims, live there with the temporary
// names that use them too.
#include "ngraphbench/core/process.h"

namespace ngraphbench {

// Who holds a claim: what its file says, as `key=value` lines.
struct ClaimHolder {
  std::string host;     // gethostname()
  std::string boot_id;  // /proc/sys/kernel/random/boot_id: tells a reboot of `host` apart
  std::string pid_ns;   // /proc/self/ns/pid: pids of another namespace (a container) differ
  long pid = 0;
  std::string start_time;  // field 22 of /proc/<pid>/stat: tells a reused pid apart
  std::string utc;         // when it was claimed, for people reading the file
  std::string nonce;       // random: two claims never have the same text

  // "<host> pid <pid>", or "an unknown holder" when the file could not be read as a claim.
  std::string Describe() const;
};

// The identity of process `pid` of this machine (ThisProcess: of the caller), with the current
// UTC time and a fresh nonce.
ClaimHolder LocalProcess(pid_t pid);
ClaimHolder ThisProcess();

std::string FormatClaim(const ClaimHolder& holder);
// nullopt when `text` lacks a host or a positive pid (e.g. an empty file).
std::optional<ClaimHolder> ParseClaim(const std::string& text);

// `<run_dir>/.claims/<run_id>.claim`.
std::string RunClaimPath(const std::string& run_dir, const std::string& run_id);

// A claim held by this process. Releasing (or destroying) it removes the file only while it is
// still this claim: a claim that someone judged stale and took over stays theirs.
class Claim {
 public:
  Claim(Claim&& other) noexcept;
  Claim& operator=(Claim&& other) noexcept;
  Claim(const Claim&) = delete;
  Claim& operator=(const Claim&) = delete;
  ~Claim();

  void Release() noexcept;
  const std::string& path() const { return path_; }

 private:
  friend std::optional<Claim> TryClaim(const std::string&, double, ClaimHolder*);
  Claim(std::string path, std::string content);

  std::string path_, content_;  // path_ empty once released
};

// Claims `path` (creating its parent directories). nullopt when a live holder has it; then
// `*held_by` (if given) says who. A stale claim is taken over; it is stale when
//   - its holder is a process of this host (same host name, boot id and pid namespace) that is
//     gone or whose pid now belongs to another process (another start time);
//   - it comes from an earlier boot of this host (same host name, another boot id, and written
//     before this boot: a second machine of the same name is judged by age instead); or
//   - it comes from another host (or another pid namespace of this one) and its file was last
//     modified more than `stale_after_s` seconds ago. Nothing tells a live remote holder from a
//     dead one, so `stale_after_s` must exceed the longest a live holder keeps the claim (the
//     scheduler passes the run's timeout, after which a worker is killed, plus a margin for the
//     row write and for clocks that differ between machines and the file server).
// A file that is not a readable claim is stale once older than a few seconds (a holder would
// have written it whole long before).
//
// Two processes recovering the same stale claim take turns through a breaker file
// (`<path>.break`, judged like a claim but stale after 60 s for other hosts): the one holding
// it checks that the claim is still the stale one it judged, removes it and creates its own; the
// other then finds a live claim. The window left open is a holder of the breaker that stalls for
// over 60 s between its check and its removal while another recovers.
//
// Throws EnvironmentError when the files cannot be created (e.g. the directory is read-only), and
// InputError naming it when what is under the claim's name is not a claim ngraphbench could have
// written: not a regular file (a FIFO, a device, a symbolic link), or over kMaxClaimBytes.
std::optional<Claim> TryClaim(const std::string& path, double stale_after_s,
                              ClaimHolder* held_by = nullptr);

}  // namespace ngraphbench
