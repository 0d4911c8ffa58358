// A cache entry of a results tree (<results>/.cache/<compiler>/<key>/: a compiled library, an
// export, a quantized model) written complete or absent. Compiled into ngb_core with the compile
// helper (compilers/compile_helper.h) that every compiler module links: it needs core/ only.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>

#include "ngraphbench/core/process.h"

namespace ngraphbench {

// A cache entry (a folder such as <cache>/tvm/<key>/) is complete or absent: it is written in a
// folder of its own beside it, `.build-<host>-<pid>-XXXXXX` (core/process.h), and renamed into
// place once complete, so that a writer killed half-way (a timeout, an interrupt) never leaves a
// partial entry that a later run would read or trip over. The folder goes when this does unless
// it was committed, and with a worker stopped by a signal (RemoveOnSignal, core/process.h); one
// that a killed writer left is removed by the scheduler once that writer is gone
// (RemoveStaleCacheBuilds, runner/launch.h).
constexpr const char* kCacheBuildPrefix = ".build-";
class CacheEntryBuild {
 public:
  // Makes the folder beside `entry` (and entry's parent). Throws EnvironmentError naming the
  // folder when it cannot.
  explicit CacheEntryBuild(const std::filesystem::path& entry);
  ~CacheEntryBuild();
  CacheEntryBuild(const CacheEntryBuild&) = delete;
  CacheEntryBuild& operator=(const CacheEntryBuild&) = delete;

  // Where the entry is written until Commit().
  const std::filesystem::path& dir() const { return dir_; }
  // Renames the folder to the entry. An entry already there (another worker's, written at the
  // same time) stays when `keep_existing(entry)` says it is usable, and this one is dropped;
  // otherwise (a worse build, an older binary's partial entry) this one replaces it. Throws
  // EnvironmentError when neither can be put in place.
  void Commit(const std::function<bool(const std::filesystem::path&)>& keep_existing);

 private:
  std::filesystem::path entry_, dir_;  // dir_ empty once committed
  std::optional<RemoveOnSignal> remove_on_signal_;  // dir_, until committed
};

}  // namespace ngraphbench
