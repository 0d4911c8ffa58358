// Which compiler modules a test may do without. A build configured with NGB_WITH_<NAME>=ON
// (setup.sh passes it for every compiler it set up) must have that module: its tests fail when
// it is missing. Only a compiler this build was not asked for is a skip.
#pragma once

#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ngraphbench/compilers/registry.h"

#ifndef NGB_REQUIRED_COMPILERS
#error "NGB_REQUIRED_COMPILERS is defined by ngb_add_test in tests/CMakeLists.txt"
#endif

namespace ngraphbench::test_support {

// The compilers configured with NGB_WITH_<NAME>=ON.
inline std::vector<std::string> RequiredCompilers() {
  std::vector<std::string> names;
  std::istringstream list(NGB_REQUIRED_COMPILERS);
  for (std::string name; std::getline(list, name, ',');) {
    if (!name.empty()) names.push_back(name);
  }
  return names;
}

inline bool IsRequired(const std::string& name) {
  const std::vector<std::string> required = RequiredCompilers();
  return std::find(required.begin(), required.end(), name) != required.end();
}

// Why the module of `name` is absent, and whether that is a failure.
inline std::string NotBuiltMessage(const std::string& name) {
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
  if (IsRequired(name)) {
    return name + " is required by this build (NGB_WITH_" + upper +
           "=ON; required: " + NGB_REQUIRED_COMPILERS + ") but its module " + ModulePath(name) +
           " is missing: rebuild it, or reconfigure with -DNGB_WITH_" + upper +
           "=AUTO to make it optional";
  }
  return name + " is not built and this build does not require it (NGB_WITH_" + upper +
         " is not ON): " + FindCompiler(name).enable_hint;
}

// The compilers of `names` that are built; a test failure for each required one that is not.
inline std::vector<std::string> BuiltAmong(const std::vector<std::string>& names) {
  std::vector<std::string> built;
  for (const std::string& name : names) {
    if (IsBuilt(name)) {
      built.push_back(name);
    } else if (IsRequired(name)) {
      ADD_FAILURE() << NotBuiltMessage(name);
    }
  }
  return built;
}

}  // namespace ngraphbench::test_support

// In a test body or SetUp(): ends the test unless compiler `name` is built, as a failure when
// this build requires it and as a skip otherwise.
#define NGB_REQUIRE_BUILT(name)                                                           \
  do {                                                                                    \
    const std::string ngb_required_name_ = (name);                                        \
    if (!::ngraphbench::IsBuilt(ngb_required_name_)) {                                    \
      if (::ngraphbench::test_support::IsRequired(ngb_required_name_)) {                  \
        GTEST_FAIL() << ::ngraphbench::test_support::NotBuiltMessage(ngb_required_name_); \
      }                                                                                   \
      GTEST_SKIP() << ::ngraphbench::test_support::NotBuiltMessage(ngb_required_name_);   \
    }                                                                                     \
  } while (0)

namespace ngraphbench::test_support {

// The fixture of a compiler module's own tests (compilers/<name>/<name>_test.cc): the module
// loaded, as NGB_REQUIRE_BUILT allows, and an empty cache folder of the test's own, removed
// after it.
class CompilerModuleTest : public ::testing::Test {
 protected:
  explicit CompilerModuleTest(std::string name) : name_(std::move(name)) {}

  void SetUp() override {
    NGB_REQUIRE_BUILT(name_);
    compiler_ = LoadCompiler(name_);
    std::string dir = "/tmp/ngb_" + name_ + "_test_XXXXXX";
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    cache_dir_ = dir;
  }

  void TearDown() override {
    if (!cache_dir_.empty()) std::filesystem::remove_all(cache_dir_);
  }

  std::string name_;
  std::unique_ptr<Compiler> compiler_;
  std::string cache_dir_;
};

}  // namespace ngraphbench::test_support
