// What a sweep leaves behind once it ends, through the real scheduler and worker processes (the
// fixture: pipeline_fixture.h): no temporary folder of a writer that is gone.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "integration/pipeline_fixture.h"
#include "ngraphbench/core/process.h"

namespace ngraphbench {
namespace {

using Leftovers = Pipeline;

// Folders that killed writers left (an older binary's `.export-<pid>-*`, cache entries being
// written by a tvm or inductor compile or an export) go at the next run once their writer is
// gone; a live writer's, another host's and finished entries stay.
TEST_F(Leftovers, FoldersOfGoneWritersAreRemovedByTheNextRun) {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  const std::string gone = std::to_string(child), live = std::to_string(::getpid());
  const std::string host = HostTag();
  const fs::path cache = root_ / "results" / ".cache";
  const std::vector<fs::path> left = {
      cache / "torch" / (".export-" + gone + "-Ab12Cd"),
      cache / "torch" / (".build-" + host + "-" + gone + "-Ab12Cd"),
      cache / "tvm" / (".build-" + host + "-" + gone + "-Ef34Gh"),
      cache / "inductor" / (".build-" + host + "-" + gone + "-Ij56Kl")};
  const std::vector<fs::path> kept = {
      cache / "tvm" / (".build-" + host + "-" + live + "-Mn78Op"),
      cache / "tvm" / (".build-elsewhere-" + gone + "-Qr90St"),
      cache / "tvm" / "0123456789abcdef0123456789abcdef"};
  for (const fs::path& dir : left) {
    fs::create_directories(dir);
    std::ofstream(dir / "model.onnx") << "partial";
    std::ofstream(dir / "compile.log");
  }
  for (const fs::path& dir : kept) {
    fs::create_directories(dir);
    std::ofstream(dir / "meta.json") << "{}";
  }
  const Result r = Ngb("run tiny null --quick " + Common());
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("removed 4 unfinished cache entr(y/ies)"), std::string::npos)
      << r.output;
  for (const fs::path& dir : left) EXPECT_FALSE(fs::exists(dir)) << dir;
  for (const fs::path& dir : kept) EXPECT_TRUE(fs::exists(dir / "meta.json")) << dir;
}

}  // namespace
}  // namespace ngraphbench
