#include "ngraphbench/compilers/registry.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "ngraphbench/core/error.h"

namespace ngraphbench {

const std::vector<CompilerInfo>& AllCompilers() {
  // Read once: every caller (config validation, `list`, the scheduler's loop over runs) sees
  // the same list for the process's whole life.
  static const std::vector<CompilerInfo> compilers =
      LoadCompilerDescriptions(CompilerDescriptionDir());
  return compilers;
}

const CompilerInfo& FindCompiler(const std::string& name) {
  std::string known;
  for (const auto& info : AllCompilers()) {
    if (info.name == name) return info;
    known += (known.empty() ? "" : ", ") + info.name;
  }
  throw InputError("unknown compiler '" + name + "'; known compilers: " + known);
}

std::vector<OpColumn> OpTableColumns() {
  std::vector<OpColumn> columns;
  for (const auto& info : AllCompilers()) {
    if (info.op_column) columns.push_back(*info.op_column);
  }
  return columns;
}

std::vector<OpColumn> ListedOpColumns() {
  std::vector<OpColumn> columns;
  for (const auto& info : AllCompilers()) {
    if (info.test_double) continue;
    if (info.op_column) {
      columns.push_back(*info.op_column);
    } else {
      OpColumn unchecked;
      unchecked.compiler = info.name;
      unchecked.unchecked = info.no_op_column;
      columns.push_back(std::move(unchecked));
    }
  }
  return columns;
}

const std::string& BaselineCompiler() {
  static const std::string baseline = [] {
    for (const auto& info : AllCompilers()) {
      if (info.baseline) return info.name;
    }
    throw InputError("no compiler description in " + CompilerDescriptionDir() +
                     " declares `baseline: true`: the compiler that speedups and rankings are "
                     "measured against (identity's compiler.yaml in this source tree)");
  }();
  return baseline;
}

std::string ChooseReference(const std::vector<CompilerInfo>& compilers,
                            const std::string& compiler, const std::string& device,
                            const std::function<bool(const std::string&)>& built) {
  std::vector<const CompilerInfo*> references;
  for (const CompilerInfo& info : compilers) {
    if (info.name == compiler && info.test_double) return compiler;
    if (info.reference_rank > 0) references.push_back(&info);
  }
  std::stable_sort(references.begin(), references.end(),
                   [](const CompilerInfo* a, const CompilerInfo* b) {
                     return a->reference_rank < b->reference_rank;
                   });
  for (const CompilerInfo* r : references) {
    if (r->name != compiler && built(r->name)) return r->name;
  }
  for (const CompilerInfo* r : references) {
    if (r->name == compiler && device != r->devices.front()) return compiler;
  }
  for (const CompilerInfo* r : references) {
    if (r->name != compiler) return r->name;
  }
  return "";
}

std::string ReferenceCompilerFor(const std::string& compiler, const std::string& device) {
  return ChooseReference(AllCompilers(), compiler, device, IsBuilt);
}

std::string ModuleDir() {
  if (const char* env = std::getenv("NGRAPHBENCH_MODULE_DIR"); env && *env) return env;
  char exe[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) return ".";
  exe[n] = '\0';
  const std::string path = exe;
  return path.substr(0, path.rfind('/'));
}

std::string CompilerDescriptionDir() { return ModuleDir() + "/compilers"; }

std::string ModulePath(const std::string& name) {
  return ModuleDir() + "/libngraphbench_" + name + ".so";
}

bool IsBuilt(const std::string& name) { return ::access(ModulePath(name).c_str(), R_OK) == 0; }

std::unique_ptr<Compiler> LoadCompiler(const std::string& name) {
  const CompilerInfo& info = FindCompiler(name);
  const std::string path = ModulePath(name);
  if (!IsBuilt(name)) {
    throw InputError("compiler '" + name + "' is not built (no " + path + "); " +
                     info.enable_hint);
  }
  // Never unloaded: a worker loads exactly one module for its whole life.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw CompileError("cannot load " + path + ": " + ::dlerror());
  using Factory = Compiler* (*)();
  auto factory = reinterpret_cast<Factory>(::dlsym(handle, NGRAPHBENCH_COMPILER_ENTRY));
  if (!factory) {
    throw CompileError(path + " does not export " NGRAPHBENCH_COMPILER_ENTRY);
  }
  return std::unique_ptr<Compiler>(factory());
}

}  // namespace ngraphbench
