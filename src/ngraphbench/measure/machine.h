// Machine context, as pyperf keeps it: what a results tree was measured on. `run` describes the
// machine once and keeps it in results/<device>/machine.json, keyed by machine_id; every row
// links to its entry (ResultRow::machine_id). Also the CPU sets behind thread pinning: the CPUs
// this process may use and the `affinity` setting of configs/<compiler>.yaml.
//
// Everything is read from files under a root directory (default "/", a fixture tree in tests):
// a file that is missing or cannot be parsed leaves its field empty. Nothing here throws except
// where a function says so.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ngraphbench {

struct MachineInfo {
  // What identifies the machine: hashed into machine_id.
  std::string cpu_model;  // /proc/cpuinfo "model name" (other keys on aarch64)
  std::string arch;       // uname: x86_64, aarch64
  // Physical packages, physical cores and logical CPUs online (sysfs topology, else cpuinfo).
  std::optional<int> sockets, cores, threads;
  std::optional<bool> smt_active;       // /sys/devices/system/cpu/smt/active
  std::string governor;                 // cpu0's cpufreq scaling_governor
  std::optional<bool> turbo;            // intel_pstate/no_turbo (inverted) or cpufreq/boost
  std::optional<int64_t> mem_total_kb;  // /proc/meminfo MemTotal
  std::string kernel;                   // uname: "Linux 6.1.0-18-amd64"
  std::string libc;                     // "glibc 2.36"
  std::string compiler;                 // the C++ compiler of this build
  std::vector<std::string> gpus;        // NVIDIA GPU models, in bus order; empty without one
  std::string gpu_driver;               // NVIDIA kernel module version
  // Context of this invocation, not hashed: the same machine under another load or another
  // process mask (taskset, a Slurm cpuset) keeps its machine_id.
  std::vector<double> load_avg;  // 1, 5 and 15 minutes; empty when unreadable
  std::string cpus_available;    // this process's CPUs (sched_getaffinity), e.g. "0-3"
  std::string machine_id;        // 16 hex digits: Fnv1a64 of the identifying fields' JSON
};


// This machine, read from /proc and /sys under `root` and from the process itself (uname, libc,
// compiler, affinity).
MachineInfo DescribeMachine(const std::string& root = "/");

// `m` as one JSON object (sorted keys, 2-space indent; unknown numbers are null, unknown
// strings empty).
std::string MachineJson(const MachineInfo& m);

// machine.json's new contents: `existing` (nullopt when there is no file yet), a JSON object
// keyed by machine_id, with `m`'s entry added or replaced; other machines' entries are kept.
// Throws InputError naming `source` when `existing` is not such an object: each entry an object
// whose values are numbers, strings, booleans, null or lists of those (what MachineJson writes),
// nothing nested deeper (refused while parsing, before it is built), and the result at most
// kMaxMachineJsonBytes (core/file.h), the ceiling on reading it: the file is never rewritten
// larger than the tool reads, nor blown up from a small file (a deep nesting's indentation).
std::string MergeMachineFile(const std::optional<std::string>& existing, const std::string& source,
                             const MachineInfo& m);

// --- CPU sets ---

// A CPU list in the kernel's format ("0-3,8,10-11"): ascending, without duplicates. nullopt
// when `text` is not one (empty, reversed ranges, other characters, ids above 65535).
std::optional<std::vector<int>> ParseCpuList(const std::string& text);
// The shortest such text for ascending `cpus`: {0,1,2,3,8} -> "0-3,8".
std::string FormatCpuList(const std::vector<int>& cpus);

// The CPUs the calling thread may run on (sched_getaffinity), ascending.
std::vector<int> ProcessCpus();

// The CPUs an `affinity` setting pins a worker to, given the CPUs the process may use:
// "none" -> {} (no pinning); "compact" -> the first `threads` of `allowed`; a CPU list ("0-3",
// "0,2,4") -> those CPUs. Throws InputError saying what is wrong and what is allowed.
std::vector<int> AffinityCpus(const std::string& setting, int threads,
                              const std::vector<int>& allowed);

// Pins the calling thread to `cpus` (sched_setaffinity); threads it starts later inherit the
// mask, so call it while the process has no other thread. Throws InputError when the kernel
// refuses (e.g. a CPU outside the cgroup's cpuset).
void PinCpus(const std::vector<int>& cpus);

// The CPUs any thread of this process may run on: the union of Cpus_allowed_list over
// <root>/proc/self/task/*/status. A runtime that re-pins its own threads shows up here, where
// sched_getaffinity on the calling thread would not. ProcessCpus() when unreadable.
std::vector<int> ThreadsCpus(const std::string& root = "/");

}  // namespace ngraphbench
