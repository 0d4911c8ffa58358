// The operator table: every operator a model may contain, and which compilers run it.
//
// One table serves three purposes: the importer's check of external models (an operator not in
// it is refused, every one at once), the worker's check before a compiler hands a model to its
// SDK (CheckCompilerSupports), and `ngraphbench list --ops`. The rows are here; each compiler's
// column is in its own description (compiler.yaml, `operators:`), which says what it lacks, or
// why it has no column. The columns are what tests/conformance/conformance_test.cc
// (OperatorTable.*, Conformance/OperatorTableColumn.*) verifies against the SDK versions
// setup.sh installs: a "yes" must run a single-op case and agree with `identity`, a "no" must be
// refused here with a clear error, and the SDK itself must fail or disagree on it.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ngraphbench/graph/ir.h"

namespace ngraphbench {

struct OpInfo {
  std::string name;  // the IR op_type (an ONNX opset-17 name, or an IR op such as Linear)
  // True for an ONNX operator the importer accepts; false for an IR op that only the model zoo
  // builds (Linear, ScaledDotProductAttention, Gelu) and ExportOnnx lowers to standard ops.
  bool onnx = true;
  std::string note;  // limits on attributes, as one short phrase
};

// A form of an operator that some compiler running the operator computes wrongly, named so that
// a compiler's description can list it among its limits: its nodes of that form are refused
// like an unsupported operator. The table shows such a cell as "part".
struct OpForm {
  std::string op;
  std::string name;  // "tanh", as a description writes it: Gelu.tanh
  std::string what;  // the refused form, e.g. "nearest mode rounding exact .5 ties"
  std::function<bool(const Node& node, const Graph& graph)> applies;
};

// Every named form.
const std::vector<OpForm>& OpForms();

// The form `name` of operator `op`, or nullptr.
const OpForm* FindOpForm(const std::string& op, const std::string& name);

// One compiler's column of the table, as its description (compilers/<name>/compiler.yaml,
// `operators:`) gives it: the operators it does not run, each with why, and the forms of the
// ones it runs that it is refused. Every other operator of the table it runs.
struct OpColumn {
  std::string compiler;
  std::map<std::string, std::string> unsupported;  // operator -> why the compiler lacks it
  std::vector<const OpForm*> limits;               // from OpForms(), never null
  // Not empty: the description keeps no column (`operators: {no_column: why}`), and this says
  // why; the table shows its cells as "?" and the worker checks no model against it.
  std::string unchecked;
};

// Every operator, sorted by name.
const std::vector<OpInfo>& OperatorTable();

// The row of `op_type`, or nullptr when the table does not know it.
const OpInfo* FindOp(const std::string& op_type);

// Whether `column`'s compiler runs `op` (perhaps with limits).
bool CompilerRunsOp(const OpInfo& op, const OpColumn& column);

// Why `column`'s compiler does not run `node` of `graph`: "" when it does, "unsupported" when
// the column says it lacks the operator (or the table does not know it), else the `what` of the
// first of its limits the node meets.
std::string RefusalOf(const Node& node, const Graph& graph, const OpColumn& column);

// "Foo (3), Bar (1)": the op types of `graph` that `keep` selects, with their node counts, most
// frequent first, then by name. Empty when none is selected.
std::string CountOps(const Graph& graph, const std::function<bool(const std::string&)>& keep);

// Throws InputError naming `source` and every operator of `graph` that the table does not know,
// with counts: "ONNX model 'm.onnx': operators unknown to ngraphbench: Hardmax (2), Det (1); ...".
void CheckImportable(const Graph& graph, const std::string& source);

// Throws CompileError listing every operator of `graph` that `column`'s compiler does not run,
// with counts: "unsupported operators for tvm: Foo (3), Bar (1); ...", and the nodes a limit
// refuses as "Resize (1: <what>)". Operators unknown to the table count as unsupported. The
// worker calls this before the compiler's SDK sees the model, for every compiler with a column.
void CheckCompilerSupports(const Graph& graph, const OpColumn& column);

// The table as `ngraphbench list --ops` prints it, one column each of `columns` in their order
// (an unchecked one's cells "?", with its reason below the table): aligned text, or a markdown
// table.
std::string FormatOpTable(const std::vector<OpColumn>& columns, bool markdown);

}  // namespace ngraphbench
