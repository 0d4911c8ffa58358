// The compilers ngraphbench knows: one description per compiler folder (compilers/description.h),
// read from build/compilers/. The scheduler uses them to validate configs without loading any
// vendor SDK; workers load the module itself.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/compilers/description.h"
#include "ngraphbench/compilers/options.h"

namespace ngraphbench {

// Every compiler of the source tree, built or not, in the descriptions' order; read once from
// CompilerDescriptionDir(). Throws InputError when a description is missing or invalid.
const std::vector<CompilerInfo>& AllCompilers();

// Throws InputError naming the known compilers.
const CompilerInfo& FindCompiler(const std::string& name);

// The operator table's columns (graph/ops.h): those of every compiler whose description has
// one, in the descriptions' order.
std::vector<OpColumn> OpTableColumns();

// Where modules are: beside the running binary, or $NGRAPHBENCH_MODULE_DIR.
std::string ModuleDir();
// ModuleDir()/compilers: the descriptions CMake copies there from every compiler folder.
std::string CompilerDescriptionDir();
// The module's path: ModuleDir()/libngraphbench_<name>.so.
std::string ModulePath(const std::string& name);
bool IsBuilt(const std::string& name);

// Loads the module and creates its compiler. Throws InputError if the module is not built
// (naming how to enable it) and CompileError if it cannot be loaded.
std::unique_ptr<Compiler> LoadCompiler(const std::string& name);

}  // namespace ngraphbench
