// The fixture of config_test's files (config_test.cc, compiler_config_test.cc): YAML written to
// temporary files, and the message loading one is refused with.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/experiments/config.h"

namespace ngraphbench {

// Outside an anonymous namespace: both files' tests are of the one suite ConfigTest, which
// GoogleTest requires to have one fixture class.
class ConfigTest : public ::testing::Test {
 protected:
  // The files Write made are removed after each test.
  void TearDown() override {
    for (const std::string& path : written_) std::remove(path.c_str());
  }

  std::string Write(const std::string& text) {
    std::string path = ::testing::TempDir() + "/cfg_" + std::to_string(::getpid()) + "_" +
                       std::to_string(counter_++) + ".yaml";
    std::ofstream(path) << text;
    written_.push_back(path);
    return path;
  }

  // The InputError message of loading `text` as experiments.yaml.
  std::string ExperimentsError(const std::string& text) {
    const std::string path = Write(text);
    try {
      LoadExperiments(path);
    } catch (const InputError& e) {
      std::string message = e.what();
      EXPECT_NE(message.find(path), std::string::npos) << message;  // names the file
      return message;
    }
    ADD_FAILURE() << "no error for:\n" << text;
    return "";
  }

  std::string CompilerError(const std::string& text, const std::string& compiler = "onnxruntime") {
    const std::string path = Write(text);
    try {
      LoadCompilerConfig(path, FindCompiler(compiler));
    } catch (const InputError& e) {
      std::string message = e.what();
      EXPECT_NE(message.find(path), std::string::npos) << message;
      return message;
    }
    ADD_FAILURE() << "no error for:\n" << text;
    return "";
  }

  int counter_ = 0;
  std::vector<std::string> written_;
};

}  // namespace ngraphbench
