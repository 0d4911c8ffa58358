// The operator table: every operator a model may contain, and which compilers run it.
//
// One table serves three purposes: the importer's check of external models (an operator not in
// it is refused, every one at once), the compilers' check before they hand a model to their SDK
// (CheckCompilerSupports), and `ngraphbench list --ops`. The per-compiler columns are what
// tests/conformance/conformance_test.cc (OperatorTable.*, Conformance/OperatorTableColumn.*)
// verifies against the SDK versions setup.sh installs: a "yes" must run a single-op case and
// agree with `identity`, a "no" must be refused here with a clear error, and the SDK itself must
// fail or disagree on it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ngraphbench/graph/ir.h"

namespace ngraphbench {

// A condition under which a compiler that runs the operator computes it wrongly: its nodes that
// meet it are refused like an unsupported operator. The table shows such a cell as "part".
struct OpLimit {
  std::string compiler;
  std::string what;  // the refused form, e.g. "nearest mode at exact .5 ties"
  std::function<bool(const Node& node, const Graph& graph)> applies;
};

struct OpInfo {
  std::string name;  // the IR op_type (an ONNX opset-17 name, or an IR op such as Linear)
  // True for an ONNX operator the importer accepts; false for an IR op that only the model zoo
  // builds (Linear, ScaledDotProductAttention, Gelu) and ExportOnnx lowers to standard ops.
  bool onnx = true;
  std::vector<std::string> unsupported_by;  // compilers of OpTableCompilers() that do not run it
  std::string note;                         // limits on attributes, as one short phrase
  std::vector<OpLimit> limits;              // forms a compiler that runs the op gets wrong
};

// The compilers the table has a column for, in column order. `null` runs anything (it computes
// nothing) and has no column.
const std::vector<std::string>& OpTableCompilers();

// Every operator, sorted by name.
const std::vector<OpInfo>& OperatorTable();

// The row of `op_type`, or nullptr when the table does not know it.
const OpInfo* FindOp(const std::string& op_type);

// Whether `compiler` runs `op` (perhaps with limits). A compiler without a column (null) runs
// everything.
bool CompilerRunsOp(const OpInfo& op, const std::string& compiler);

// Why `compiler` does not run `node` of `graph`: "" when it does, "unsupported" when the table
// says it lacks the operator (or the table does not know it), else the `what` of the first limit
// the node meets.
std::string RefusalOf(const Node& node, const Graph& graph, const std::string& compiler);

// "Foo (3), Bar (1)": the op types of `graph` that `keep` selects, with their node counts, most
// frequent first, then by name. Empty when none is selected.
std::string CountOps(const Graph& graph, const std::function<bool(const std::string&)>& keep);

// Throws InputError naming `source` and every operator of `graph` that the table does not know,
// with counts: "ONNX model 'm.onnx': operators unknown to ngraphbench: Hardmax (2), Det (1); ...".
void CheckImportable(const Graph& graph, const std::string& source);

// Throws CompileError listing every operator of `graph` that `compiler` does not run by the
// table, with counts: "unsupported operators for tvm: Foo (3), Bar (1); ...", and the nodes a
// limit refuses as "Resize (1: <what>)". Operators unknown to the table count as unsupported. Compilers call this before their SDK sees the model.
// NGRAPHBENCH_UNCHECKED_OPS=1 in the environment skips the check: the conformance test sets it
// to show that the SDK itself fails on what the table marks unsupported.
void CheckCompilerSupports(const Graph& graph, const std::string& compiler);

// The table as `ngraphbench list --ops` prints it: aligned text, or a markdown table.
std::string FormatOpTable(bool markdown);

}  // namespace ngraphbench
