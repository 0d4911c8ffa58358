// A folder of the running test's own for the tests that write files: under GoogleTest's temporary
// directory, named after the process and the test, so that tests run side by side (ctest -j) never
// share one, and removed with all that the test wrote into it.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

namespace ngraphbench::test_support {

// <TempDir>/<prefix><pid>_<test name>, with whatever an earlier run left there removed; created
// empty unless `create` is false (for tests of a folder that is not there yet).
inline std::filesystem::path FreshTestDir(const std::string& prefix, bool create = true) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = test ? test->name() : "outside_a_test";
  std::replace(name.begin(), name.end(), '/', '_');  // a parameterized test's "Name/0"
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                    (prefix + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove_all(dir);
  if (create) std::filesystem::create_directories(dir);
  return dir;
}

// The fixture: dir_ is the test's folder from SetUp on, and TearDown removes it. A fixture that
// overrides SetUp or TearDown calls this one's first.
class TempDirTest : public ::testing::Test {
 protected:
  explicit TempDirTest(std::string prefix, bool create = true)
      : prefix_(std::move(prefix)), create_(create) {}

  void SetUp() override { dir_ = FreshTestDir(prefix_, create_); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;

 private:
  std::string prefix_;
  bool create_;
};

// The same folder for a test body: made by the constructor and removed by the destructor, also
// when a failed assertion ends the test early.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix) : path_(FreshTestDir(prefix)) {}
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace ngraphbench::test_support
