#include "ngraphbench/results/cache_entry.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "ngraphbench/core/error.h"

namespace ngraphbench {

namespace fs = std::filesystem;

CacheEntryBuild::CacheEntryBuild(const fs::path& entry) : entry_(entry) {
  std::string name = TempNameTemplate(entry.parent_path().string(), kCacheBuildPrefix, "");
  if (::mkdtemp(name.data()) == nullptr) {
    const int error = errno;  // a full disk is the storage's failure (core/error.h), not a run's
    ThrowFileError("cannot create a folder for the cache entry " + entry.string() + " in " +
                       entry.parent_path().string(),
                   error);
  }
  dir_ = name;
  remove_on_signal_.emplace(dir_.string());
}

CacheEntryBuild::~CacheEntryBuild() {
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

void CacheEntryBuild::Commit(const std::function<bool(const fs::path&)>& keep_existing) {
  int err = 0;
  // Three tries: a worker whose entry this replaces may be replacing another's at the same time.
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (::rename(dir_.c_str(), entry_.c_str()) == 0) {
      remove_on_signal_.reset();  // the entry now: a complete one stays
      dir_.clear();
      return;
    }
    err = errno;
    if (err != ENOTEMPTY && err != EEXIST) break;
    if (keep_existing(entry_)) return;  // this one goes with the destructor
    // The old entry is first renamed to a temporary name of this process's, so that a kill
    // between the two renames leaves only what the scheduler removes.
    std::string aside = TempNameTemplate(entry_.parent_path().string(), kCacheBuildPrefix, "");
    if (::mkdtemp(aside.data()) == nullptr) {
      err = errno;
      break;
    }
    const bool moved = ::rename(entry_.c_str(), aside.c_str()) == 0;
    err = errno;
    std::error_code ec;
    fs::remove_all(aside, ec);
    if (!moved && err != ENOENT) break;  // ENOENT: another writer moved it first; try again
  }
  if (IsStorageFailure(err)) {
    ThrowFileError("cannot put the cache entry " + dir_.string() + " in place as " +
                       entry_.string(),
                   err);
  }
  throw EnvironmentError("cannot put the cache entry " + dir_.string() + " in place as " +
                         entry_.string() + ": " + std::strerror(err) + "; remove " +
                         entry_.string() + " and run again");
}

}  // namespace ngraphbench
