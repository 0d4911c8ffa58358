// The compilers ngraphbench knows: one description per compiler folder (compilers/description.h),
// read from build/compilers/. The scheduler uses them to validate configs without loading any
// vendor SDK; workers load the module itself.
#pragma once

#include <functional>
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

// The columns `ngraphbench list --ops` shows: one per compiler of the tree but its test
// doubles, in the descriptions' order, each from its own description: its column, or for one
// that keeps none (`operators: {no_column: why}`) a column whose `unchecked` says why.
std::vector<OpColumn> ListedOpColumns();

// The compiler that speedups and rankings are measured against: the one whose description says
// `baseline: true`. Throws InputError when none does.
const std::string& BaselineCompiler();

// The compiler whose outputs are the output check's reference for a run of `compiler` on
// `device`, from the roles in `compilers`' descriptions and `built` (whether a module is built):
// a path that shares as little as possible with the one it checks. A test double checks itself;
// otherwise the first built reference by rank other than `compiler`; else `compiler` itself
// when it is a reference and runs on another device than the reference runs on (its first
// device, in fp32: eager PyTorch on the CPU is still an independent path for its GPU runs);
// else the first reference other than `compiler` (not built: the reference child says so).
// Empty when no description declares a reference.
std::string ChooseReference(const std::vector<CompilerInfo>& compilers,
                            const std::string& compiler, const std::string& device,
                            const std::function<bool(const std::string&)>& built);
// ChooseReference over AllCompilers() and IsBuilt().
std::string ReferenceCompilerFor(const std::string& compiler, const std::string& device);

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
