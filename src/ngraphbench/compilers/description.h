// What a compiler module is, as data: src/ngraphbench/compilers/<name>/compiler.yaml, copied at
// configure time to build/compilers/<name>.yaml beside the binary. The scheduler validates
// configs and lists compilers from these files alone, so it never loads a vendor SDK, and knows
// every compiler of the source tree, built or not.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/compilers/options.h"
#include "ngraphbench/graph/ops.h"

namespace ngraphbench {

struct CompilerInfo {
  std::string name;  // the folder's name: libngraphbench_<name>.so, configs/<name>.yaml
  std::string role;  // as in docs/compilers.md's table
  std::string sdk;
  bool consumes_onnx = false;  // the worker exports ONNX bytes before compiling
  std::vector<std::string> devices;     // first is the default
  std::vector<std::string> precisions;  // first is the default
  std::vector<std::string> opt_levels;  // first is the default
  std::vector<OptionSpec> options;      // compiler-specific keys
  // The scenarios its module runs (`scenarios:`, default [single_stream]): offline needs
  // execution contexts (Executable::NewContext), and the scheduler refuses an offline run of a
  // compiler that does not list it before any worker starts.
  std::vector<std::string> scenarios = {"single_stream"};
  std::string enable_hint;              // how to get the module built
  // Why precision int8 is not among `precisions` (`no_int8:`): what its quantization path lacks,
  // quoted when a run asks for int8 (experiments/compiler_config.cc). Empty: no reason given.
  std::string no_int8;
  // The sweep estimate's guess at build + compile + first run of a model, used until the
  // compiler has measured rows of its own (experiments/estimate.h): prior_compile_s plus
  // prior_compile_s_per_node for each node of the model's graph.
  double prior_compile_s = 0.5;
  double prior_compile_s_per_node = 0;
  // Whether only a run's first process compiles, the later ones loading what it compiled from
  // the results tree's cache (`caches_compile: true`): the estimate then charges them a load.
  bool caches_compile = false;
  // For a compiler that auto-tunes: the estimate's guess at a cold tuning's seconds per trial,
  // and the int option that gives the trial budget (`prior_tuning:` in compiler.yaml); a run
  // not --quick adds budget x seconds to its compile until rows of its own say better. Empty
  // option: the compiler does not tune.
  std::string tuning_trials_option;
  double prior_tuning_s_per_trial = 0;
  // And per tuning task (a fused kernel, graph/kernels.h) while the trial budget lasts: tasks
  // stop early (the tuning's patience), so a model of few tasks tunes far less than the budget.
  double prior_tuning_s_per_task = 0;
  // The int option that caps a tuning's wall-clock seconds (`prior_tuning.timeout_option`), or
  // empty: a run that tunes gets that much more time before its worker counts as timed out.
  std::string tuning_timeout_option;
  int order = 1000;  // position in `list --compilers` and the like; ties go by name
  // Its roles, as data, so that no compiler is picked by name outside compilers/:
  // `baseline: true`: what speedups and rankings are measured against (analysis/metrics.h), one
  // compiler of the tree at most.
  bool baseline = false;
  // `reference: {rank: N, opt_level: L}`: the output check may use it as the reference of other
  // compilers' runs, in rank order (1 first; ChooseReference, registry.h), with its default
  // settings in fp32 and opt_level L (empty: its default). 0: not a reference.
  int reference_rank = 0;
  std::string reference_opt_level;
  // `test_double: true`: the pipeline's test double, which computes nothing: its runs are
  // checked against its own outputs, and it has no place in the operator table.
  bool test_double = false;
  // Its column of the operator table (graph/ops.h, `operators:`), which the worker checks a
  // model against before the module sees it; absent for a compiler without one, and then
  // no_op_column says why (`operators: {no_column: ...}`).
  std::optional<OpColumn> op_column;
  std::string no_op_column;
};

// One description; `path` names the file in messages and gives the name the description must
// carry (its folder's for .../<name>/compiler.yaml, else the file's stem). Throws InputError
// naming the file and the key for unknown keys, wrong types, missing fields and options whose
// default their own rules would refuse.
CompilerInfo ParseCompilerDescription(const std::string& text, const std::string& path);
CompilerInfo LoadCompilerDescription(const std::string& path);

// Every <name>.yaml in `dir`, sorted by order and then name. Throws InputError when `dir` holds
// none (a build tree from before descriptions, or a binary copied away from its build tree).
std::vector<CompilerInfo> LoadCompilerDescriptions(const std::string& dir);

}  // namespace ngraphbench
