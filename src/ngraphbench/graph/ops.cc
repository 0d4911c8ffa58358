#include "ngraphbench/graph/ops.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "ngraphbench/core/error.h"

namespace ngraphbench {

namespace {

bool IsTanhGelu(const Node& node, const Graph&) {
  return node.StringAttr("approximate", "none") == "tanh";
}

// Whether a nearest-neighbour Resize rounds an exact .5 source coordinate, where ONNX's
// round_prefer_floor / round_prefer_ceil decide which neighbour is taken: a value that float
// arithmetic computed in another order may land on either side of the tie.
bool NearestResizeHasTies(const Node& node, const Graph& graph) {
  if (node.StringAttr("mode", "nearest") != "nearest") return false;
  const std::string rounding = node.StringAttr("nearest_mode", "round_prefer_floor");
  if (rounding != "round_prefer_floor" && rounding != "round_prefer_ceil") return false;
  const std::string ctm = node.StringAttr("coordinate_transformation_mode", "half_pixel");
  if (node.inputs.empty() || node.outputs.empty()) return false;
  const auto in_it = graph.value_shapes.find(node.inputs[0]);
  const auto out_it = graph.value_shapes.find(node.outputs[0]);
  if (in_it == graph.value_shapes.end() || out_it == graph.value_shapes.end()) return false;
  const Shape& in = in_it->second;
  const Shape& out = out_it->second;
  const Initializer* scales = node.inputs.size() > 2 && !node.inputs[2].empty()
                                  ? graph.FindInitializer(node.inputs[2])
                                  : nullptr;
  for (size_t axis = 0; axis < in.size() && axis < out.size(); ++axis) {
    const double scale =
        scales && scales->tensor.data.size() == in.size()
            ? scales->tensor.data[axis]
            : static_cast<double>(out[axis]) / static_cast<double>(in[axis]);
    for (int64_t o = 0; o < out[axis]; ++o) {
      double c = 0;
      if (ctm == "half_pixel" || (ctm == "pytorch_half_pixel" && out[axis] > 1)) {
        c = (o + 0.5) / scale - 0.5;
      } else if (ctm == "align_corners" && out[axis] > 1) {
        c = o * static_cast<double>(in[axis] - 1) / static_cast<double>(out[axis] - 1);
      } else if (ctm == "asymmetric") {
        c = o / scale;
      } else if (ctm == "tf_half_pixel_for_nn") {
        c = (o + 0.5) / scale;
      }
      if (std::fabs(c - std::floor(c) - 0.5) < 1e-9) return true;
    }
  }
  return false;
}

// One row per operator, sorted by name. The note says what `identity` and `torchscript` accept
// beyond the basics (a node outside it is refused at compile time with the reason); why a
// compiler lacks an operator is in its description's column.
std::vector<OpInfo> BuildTable() {
  std::vector<OpInfo> t = {
      {"Abs", true, ""},
      {"Add", true, ""},
      {"And", true, ""},
      {"ArgMax", true, ""},
      {"ArgMin", true, ""},
      {"AveragePool", true, "symmetric pads"},
      {"BatchNormalization", true, "inference (training_mode 0)"},
      {"Cast", true, "to float, double, half, bfloat16, int8-64, uint8, bool"},
      {"CastLike", true, ""},
      {"Ceil", true, ""},
      {"Celu", true, ""},
      {"Clip", true, "constant bounds"},
      {"Concat", true, ""},
      {"ConstantOfShape", true, "default value (0.0) only: the IR has no tensor attributes"},
      {"Conv", true, "1-3 spatial dims"},
      {"ConvTranspose", true, "1-3 spatial dims; no output_shape, auto_pad NOTSET"},
      {"Cos", true, ""},
      {"CumSum", true, "constant axis"},
      {"DepthToSpace", true, ""},
      {"Div", true, ""},
      {"Dropout", true, "inference: the identity; no mask output"},
      {"Einsum", true, ""},
      {"Elu", true, ""},
      {"Equal", true, ""},
      {"Erf", true, ""},
      {"Exp", true, ""},
      {"Expand", true, ""},
      {"Flatten", true, ""},
      {"Floor", true, ""},
      {"Gather", true, ""},
      {"GatherElements", true, ""},
      {"Gelu", false, "IR op (erf GELU; tanh with approximate); lowered for ONNX compilers"},
      {"Gemm", true, ""},
      {"GlobalAveragePool", true, ""},
      {"GlobalMaxPool", true, ""},
      {"Greater", true, ""},
      {"GreaterOrEqual", true, ""},
      {"HardSigmoid", true, ""},
      {"HardSwish", true, ""},
      {"Identity", true, ""},
      {"InstanceNormalization", true, ""},
      {"LayerNormalization", true, "stash_type float32"},
      {"LeakyRelu", true, ""},
      {"Less", true, ""},
      {"LessOrEqual", true, ""},
      {"Linear", false, "IR op (torch.nn.Linear); lowered for ONNX compilers"},
      {"Log", true, ""},
      {"LogSoftmax", true, ""},
      {"MatMul", true, ""},
      {"Max", true, ""},
      {"MaxPool", true, "symmetric pads; no indices output"},
      {"Mean", true, ""},
      {"Min", true, ""},
      {"Mod", true, ""},
      {"Mul", true, ""},
      {"Neg", true, ""},
      {"Not", true, ""},
      {"Or", true, ""},
      {"Pad", true, "constant, reflect, edge; constant pads"},
      {"Pow", true, ""},
      {"PRelu", true, ""},
      {"Range", true, "constant start, limit, delta"},
      {"Reciprocal", true, ""},
      {"ReduceL2", true, "constant axes"},
      {"ReduceLogSumExp", true, "constant axes"},
      {"ReduceMax", true, "constant axes"},
      {"ReduceMean", true, "constant axes"},
      {"ReduceMin", true, "constant axes"},
      {"ReduceProd", true, "constant axes"},
      {"ReduceSum", true, "constant axes"},
      {"Relu", true, ""},
      {"Reshape", true, ""},
      {"Resize", true,
       "nearest (any coordinate mode), linear and cubic (half_pixel, pytorch_half_pixel, "
       "align_corners) on spatial axes"},
      {"Round", true, ""},
      {"ScaledDotProductAttention", false, "IR op; lowered for ONNX compilers"},
      {"ScatterElements", true, ""},
      {"ScatterND", true, ""},
      {"Selu", true, ""},
      {"Shape", true, ""},
      {"Sigmoid", true, ""},
      {"Sign", true, ""},
      {"Sin", true, ""},
      {"Size", true, ""},
      {"Slice", true, "constant starts, ends, axes, positive steps"},
      {"Softmax", true, ""},
      {"Softplus", true, ""},
      {"Softsign", true, ""},
      {"SpaceToDepth", true, ""},
      {"Split", true, ""},
      {"Sqrt", true, ""},
      {"Squeeze", true, "constant axes"},
      {"Sub", true, ""},
      {"Sum", true, ""},
      {"Tanh", true, ""},
      {"Tile", true, ""},
      {"TopK", true, ""},
      {"Transpose", true, ""},
      {"Trilu", true, "constant k"},
      {"Unsqueeze", true, "constant axes"},
      {"Where", true, ""},
      {"Xor", true, ""},
  };
  std::sort(t.begin(), t.end(), [](const OpInfo& a, const OpInfo& b) { return a.name < b.name; });
  return t;
}

std::string Join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : sep) + item;
  return out;
}

}  // namespace

const std::vector<OpForm>& OpForms() {
  static const std::vector<OpForm> forms = {
      // ExportOnnx writes Gelu as its erf form whatever `approximate` says, so a compiler that
      // reads ONNX would compute another function.
      {"Gelu", "tanh", "approximate='tanh' (the ONNX export writes the erf form)", IsTanhGelu},
      {"Resize", "nearest_ties", "nearest mode rounding exact .5 ties", NearestResizeHasTies},
  };
  return forms;
}

const OpForm* FindOpForm(const std::string& op, const std::string& name) {
  for (const OpForm& form : OpForms()) {
    if (form.op == op && form.name == name) return &form;
  }
  return nullptr;
}

const std::vector<OpInfo>& OperatorTable() {
  static const std::vector<OpInfo> table = BuildTable();
  return table;
}

const OpInfo* FindOp(const std::string& op_type) {
  const auto& table = OperatorTable();
  auto it = std::lower_bound(table.begin(), table.end(), op_type,
                             [](const OpInfo& row, const std::string& name) {
                               return row.name < name;
                             });
  return it != table.end() && it->name == op_type ? &*it : nullptr;
}

bool CompilerRunsOp(const OpInfo& op, const OpColumn& column) {
  return column.unsupported.count(op.name) == 0;
}

std::string RefusalOf(const Node& node, const Graph& graph, const OpColumn& column) {
  const OpInfo* op = FindOp(node.op_type);
  if (!op || !CompilerRunsOp(*op, column)) return "unsupported";
  for (const OpForm* form : column.limits) {
    if (form->op == node.op_type && form->applies(node, graph)) return form->what;
  }
  return "";
}

std::string CountOps(const Graph& graph, const std::function<bool(const std::string&)>& keep) {
  std::map<std::string, int> counts;
  for (const auto& node : graph.nodes) {
    if (keep(node.op_type)) ++counts[node.op_type];
  }
  std::vector<std::pair<std::string, int>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> parts;
  for (const auto& [op, n] : sorted) parts.push_back(op + " (" + std::to_string(n) + ")");
  return Join(parts, ", ");
}

void CheckImportable(const Graph& graph, const std::string& source) {
  const std::string unknown =
      CountOps(graph, [](const std::string& op) { return FindOp(op) == nullptr; });
  if (!unknown.empty()) {
    throw InputError("ONNX model '" + source + "': operators unknown to ngraphbench: " + unknown +
                     "; `ngraphbench list --ops` lists the operators it accepts");
  }
}

void CheckCompilerSupports(const Graph& graph, const OpColumn& column) {
  // Operators the compiler lacks: "Foo (3)"; nodes a limit refuses: "Resize (1: <what>)".
  std::map<std::string, int> missing;
  std::map<std::pair<std::string, std::string>, int> limited;
  for (const auto& node : graph.nodes) {
    const std::string why = RefusalOf(node, graph, column);
    if (why == "unsupported") {
      ++missing[node.op_type];
    } else if (!why.empty()) {
      ++limited[{node.op_type, why}];
    }
  }
  if (missing.empty() && limited.empty()) return;
  std::string text = CountOps(graph, [&](const std::string& op) { return missing.count(op) > 0; });
  for (const auto& [key, n] : limited) {
    text += (text.empty() ? "" : ", ") + key.first + " (" + std::to_string(n) + ": " +
            key.second + ")";
  }
  throw CompileError("unsupported operators for " + column.compiler + ": " + text +
                     " (`ngraphbench list --ops` shows which compiler runs what)");
}

std::string FormatOpTable(const std::vector<OpColumn>& columns, bool markdown) {
  std::vector<std::string> compilers;
  for (const OpColumn& column : columns) compilers.push_back(column.compiler);
  auto cell = [](const OpInfo& op, const OpColumn& column) {
    if (!column.unchecked.empty()) return std::string("?");
    if (!CompilerRunsOp(op, column)) return std::string("no");
    for (const OpForm* form : column.limits) {
      if (form->op == op.name) return std::string("part");
    }
    return std::string("yes");
  };
  // The note, why each "no" compiler lacks the operator, and for each "part" cell which form
  // that compiler is refused.
  auto note = [&columns](const OpInfo& op) {
    std::string text = op.note;
    auto add = [&text](const std::string& part) { text += (text.empty() ? "" : "; ") + part; };
    for (const OpColumn& column : columns) {
      if (const auto it = column.unsupported.find(op.name); it != column.unsupported.end()) {
        add(column.compiler + ": " + it->second);
      }
    }
    // Compilers that share a limit are named together: "onnxruntime, tvm: not <what>".
    for (const OpForm& form : OpForms()) {
      if (form.op != op.name) continue;
      std::string names;
      for (const OpColumn& column : columns) {
        if (std::find(column.limits.begin(), column.limits.end(), &form) != column.limits.end()) {
          names += (names.empty() ? "" : ", ") + column.compiler;
        }
      }
      if (!names.empty()) add(names + ": not " + form.what);
    }
    return text;
  };
  // Why a column is "?": the compiler's own words, below the table.
  std::string unchecked;
  for (const OpColumn& column : columns) {
    if (column.unchecked.empty()) continue;
    unchecked += (markdown ? "- `" + column.compiler + "`: " : "  " + column.compiler + ": ") +
                 column.unchecked + "\n";
  }
  if (!unchecked.empty()) {
    unchecked = std::string(markdown ? "\n" : "") +
                "?: the compiler's description keeps no column; its SDK takes or refuses each "
                "operator when it compiles:\n" +
                unchecked;
  }
  std::ostringstream out;
  if (markdown) {
    out << "| operator | importer |";
    for (const auto& c : compilers) out << " " << c << " |";
    out << " notes |\n|---|---|";
    for (size_t i = 0; i < compilers.size(); ++i) out << "---|";
    out << "---|\n";
    for (const auto& op : OperatorTable()) {
      out << "| " << op.name << " | " << (op.onnx ? "yes" : "IR") << " |";
      for (const OpColumn& c : columns) out << " " << cell(op, c) << " |";
      out << " " << note(op) << " |\n";
    }
    out << unchecked;
    return out.str();
  }
  size_t name_width = 8;
  for (const auto& op : OperatorTable()) name_width = std::max(name_width, op.name.size());
  auto pad = [](const std::string& s, size_t width) {
    return s + std::string(width > s.size() ? width - s.size() : 0, ' ');
  };
  out << pad("operator", name_width) << "  " << pad("importer", 8);
  for (const auto& c : compilers) out << "  " << c;
  out << "  notes\n";
  for (const auto& op : OperatorTable()) {
    out << pad(op.name, name_width) << "  " << pad(op.onnx ? "yes" : "IR", 8);
    for (const OpColumn& c : columns) out << "  " << pad(cell(op, c), c.compiler.size());
    const std::string text = note(op);
    out << (text.empty() ? "" : "  " + text) << "\n";
  }
  out << "\nimporter IR: an IR op the model zoo builds and ExportOnnx lowers to standard ONNX "
         "ops. part: runs the op except the form the note names, which is refused.\nColumns "
         "from each compiler's description (compiler.yaml), verified by "
         "tests/conformance/conformance_test.cc (OperatorTable*) with the SDK versions "
         "./setup.sh installs.\n"
      << unchecked;
  return out.str();
}

}  // namespace ngraphbench
