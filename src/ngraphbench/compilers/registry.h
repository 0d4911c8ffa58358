// The compilers ngraphbench knows, as plain data (one line per compiler in
// registry.cc). The scheduler uses this to validate configs without loading any vendor SDK;
// workers load the module itself.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/compilers/options.h"

namespace ngraphbench {

struct CompilerInfo {
  std::string name;
  std::string role;  // as in the README's table
  std::string sdk;
  bool consumes_onnx = false;  // the worker exports ONNX bytes before compiling
  std::vector<std::string> devices;     // first is the default
  std::vector<std::string> precisions;  // first is the default
  std::vector<std::string> opt_levels;  // first is the default
  std::vector<OptionSpec> options;      // compiler-specific keys
  std::string enable_hint;              // how to get the module built
};

const std::vector<CompilerInfo>& AllCompilers();

// Throws InputError naming the known compilers.
const CompilerInfo& FindCompiler(const std::string& name);

// The module's path: beside the running binary, or in $NGRAPHBENCH_MODULE_DIR.
std::string ModulePath(const std::string& name);
bool IsBuilt(const std::string& name);

// Loads the module and creates its compiler. Throws InputError if the module is not built
// (naming how to enable it) and CompileError if it cannot be loaded.
std::unique_ptr<Compiler> LoadCompiler(const std::string& name);

}  // namespace ngraphbench
