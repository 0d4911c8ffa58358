// Per-operator profiles (docs/profiles.md): what a compiler's own profiler reports
// (Executable::Profile, compilers/compiler.h), turned into one schema for every compiler, the
// file `<run_id>.profile.csv` beside the run's row, and the row's summary of it.
//
// A kernel is what the SDK reports as one unit of work. Its operator types come from the graph
// when the SDK names the graph nodes it computes, else from the SDK's own type or name; its
// operator class (OpClassOf) is the one coarse class its time is counted under, the same words
// for every compiler, so that the time by class of two compilers can be set side by side.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/graph/ir.h"
#include "ngraphbench/results/layout.h"  // ProfilePath

namespace ngraphbench {

// One kernel per inference: a line of `<run_id>.profile.csv`.
struct ProfileLine {
  std::string kernel;              // as the SDK names it
  std::vector<std::string> nodes;  // graph node names it computes; empty with nodes_known false
  bool nodes_known = false;
  std::string op_types;            // "Conv+BatchNormalization+Relu": its nodes' types, in node
                                   // order, each once; the SDK's own type where nodes are unknown
  std::string op_class;            // OpClassOf(): Conv, MatMul, Softmax, ...
  double calls_per_inference = 0;
  double ms_per_inference = 0;
  double share = 0;                // of the profile's total time, 0..1
  std::string device;              // execution provider or device
};

struct ProfileTable {
  std::string profiler;  // which SDK profiler made it
  int runs = 0;          // profiled runs the figures are averaged over
  std::vector<ProfileLine> lines;  // by time, largest first
  std::vector<std::string> notes;  // what the profiler leaves out or cannot say
};

// The coarse operator classes, in the order a kernel covering several is counted under the
// first (a kernel whose nodes are known: the classes of their types and of the SDK's own type): Conv, ConvTranspose, MatMul (MatMul, Gemm, Einsum, attention), Softmax, Normalization,
// Pool, Reduce, Elementwise, DataMovement (reshapes, transposes, copies, layout reorders),
// Other.
const std::vector<std::string>& OpClasses();

// The class of one ONNX operator type ("Gemm" -> MatMul), Other for one this table lacks.
std::string OpClassOfOnnxType(const std::string& op_type);

// The class of a kernel the SDK names but whose graph nodes it does not say: an ONNX operator
// type's own class; else from the words of its type or name, and each two adjacent words joined
// ("aten::addmm", "FusedConv", "FusedMatMul", "fused_conv2d_add_relu", "cpp_fused__softmax_3"),
// the first class (in OpClasses() order) any names; Other when none does.
std::string OpClassOfSdkName(const std::string& name);

// The SDK's kernels of `profile` per inference, with their operator types and classes from
// `graph`. Node names the graph does not have are dropped from a kernel; a kernel left without
// any is one whose nodes are unknown. Throws std::invalid_argument for a profile without runs.
ProfileTable Tabulate(const KernelProfile& profile, const Graph& graph);

// The kernels' time per inference (ms), and their calls per inference.
double ProfiledMs(const ProfileTable& table);
double KernelsPerInference(const ProfileTable& table);

// The row's summary of a profile.
struct ProfileSummary {
  double kernels_per_inference = 0;  // kernel calls per inference
  int64_t ir_nodes = 0;              // the graph's nodes (each runs once per inference)
  double profiled_ms = 0;            // the kernels' time per inference
  std::string top_op_class;          // the class with the most time
  double top_share = 0;              // its share of profiled_ms, 0..1
};
ProfileSummary Summarize(const ProfileTable& table, const Graph& graph);

// Time per inference by operator class, ms.
std::map<std::string, double> TimeByOpClass(const ProfileTable& table);

// The CSV form: a header and one line per kernel; `nodes` is `;`-joined (a `;` or `\` in a
// name escaped with `\`), `unknown` when the SDK did not say. The profiler, the run count and
// the notes are the row's (profiler, notes), not the file's.
std::string FormatProfileCsv(const ProfileTable& table);
// Throws InputError naming `source` and what is wrong.
ProfileTable ParseProfileCsv(const std::string& text, const std::string& source);

}  // namespace ngraphbench
