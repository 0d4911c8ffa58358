#include "ngraphbench/profile/profile.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "ngraphbench/core/csv_line.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/results/csv.h"

namespace ngraphbench {
namespace {

// The columns of `<run_id>.profile.csv`, in file order.
const std::vector<std::string> kProfileColumns = {
    "kernel", "nodes", "op_types", "op_class", "calls_per_inference", "ms_per_inference",
    "share",  "device"};
constexpr char kUnknownNodes[] = "unknown";

// ONNX operator types by class. A type not listed is Other.
const std::unordered_map<std::string, std::string>& OnnxTypeClasses() {
  static const std::unordered_map<std::string, std::string> classes = [] {
    std::unordered_map<std::string, std::string> m;
    const std::vector<std::pair<std::string, std::vector<std::string>>> by_class = {
        {"Conv", {"Conv", "QLinearConv", "ConvInteger"}},
        {"ConvTranspose", {"ConvTranspose"}},
        // Linear and ScaledDotProductAttention: the IR's own (graph/ops.cc).
        {"MatMul", {"MatMul", "Gemm", "Einsum", "MatMulInteger", "QLinearMatMul", "Attention",
                    "MultiHeadAttention", "Linear", "ScaledDotProductAttention"}},
        {"Softmax", {"Softmax", "LogSoftmax"}},
        {"Normalization", {"BatchNormalization", "LayerNormalization", "GroupNormalization",
                           "InstanceNormalization", "LpNormalization",
                           "SimplifiedLayerNormalization", "RMSNormalization"}},
        {"Pool", {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "LpPool"}},
        {"Reduce", {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd",
                    "ReduceL2", "ReduceSumSquare", "ReduceLogSumExp", "ArgMax", "ArgMin",
                    "CumSum", "TopK"}},
        {"Elementwise",
         {"Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Exp", "Log", "Neg", "Abs", "Relu",
          "LeakyRelu", "PRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Erf", "Gelu",
          "Clip", "Max", "Min", "Where", "Equal", "Less", "Greater", "Not", "And", "Or",
          "Reciprocal", "Floor", "Ceil", "Sin", "Cos", "Mish", "Softplus", "Elu", "Selu",
          "Cast", "Identity", "Dropout"}},
        {"DataMovement",
         {"Reshape", "Transpose", "Concat", "Split", "Slice", "Gather", "GatherElements",
          "GatherND", "Flatten", "Squeeze", "Unsqueeze", "Expand", "Pad", "Tile", "Shape",
          "ConstantOfShape", "Range", "Resize", "DepthToSpace", "SpaceToDepth", "Trilu",
          "ScatterND", "ScatterElements", "Constant"}},
    };
    for (const auto& [cls, types] : by_class) {
      for (const auto& t : types) m.emplace(t, cls);
    }
    return m;
  }();
  return classes;
}

// Words of an SDK's kernel name or type that name a class. A name's words are its parts between
// non-letters and at lower-to-upper case changes, lower-cased: "aten::native_layer_norm" ->
// aten native layer norm; "FusedConv" -> fused conv; "fused_conv2d_add_relu" -> fused conv2d
// add relu (digits stay with their word).
const std::vector<std::pair<std::string, std::vector<std::string>>>& SdkWordClasses() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> words = {
      {"Conv", {"conv", "conv1d", "conv2d", "conv3d", "convolution", "groupconvolution",
                "depthwise"}},
      {"ConvTranspose", {"deconv", "deconvolution", "transposed", "backpropdata"}},
      {"MatMul", {"matmul", "mm", "bmm", "addmm", "baddbmm", "linear", "gemm", "dense",
                  "fullyconnected", "fully", "einsum", "attention", "mha", "sdpa", "dot"}},
      {"Softmax", {"softmax", "logsoftmax"}},
      {"Normalization", {"norm", "layernorm", "batchnorm", "groupnorm", "instancenorm",
                         "normalize", "rmsnorm", "normalization", "mvn"}},
      {"Pool", {"pool", "pooling", "pool1d", "pool2d", "pool3d", "maxpool", "avgpool"}},
      {"Reduce", {"reduce", "mean", "sum", "amax", "argmax", "cumsum"}},
      {"Elementwise", {"add", "sub", "mul", "div", "relu", "gelu", "sigmoid", "tanh", "erf",
                       "silu", "hardswish", "clamp", "clip", "pow", "sqrt", "rsqrt", "exp",
                       "neg", "eltwise", "elementwise", "where", "subgraph", "snippet", "swish",
                       "multiply", "divide", "subtract", "power", "maximum", "minimum"}},
      {"DataMovement", {"reshape", "view", "transpose", "permute", "concat", "cat", "slice",
                        "gather", "split", "copy", "contiguous", "clone", "flatten", "expand",
                        "pad", "reorder", "memcpy", "layout", "squeeze", "unsqueeze", "stack",
                        "index", "select", "narrow", "convert", "reorg", "to", "alloc",
                        "storage", "tensor"}},
  };
  return words;
}

std::vector<std::string> Words(const std::string& name) {
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    if (!word.empty()) words.push_back(word);
    word.clear();
  };
  for (size_t i = 0; i < name.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (std::isalpha(c)) {
      // A new word at an upper-case letter after a lower-case one, or at the last upper-case
      // letter of a run followed by a lower-case one ("MHAOutput" -> mha output).
      const bool upper = std::isupper(c);
      if (upper && !word.empty()) {
        const unsigned char prev = static_cast<unsigned char>(name[i - 1]);
        const bool next_lower =
            i + 1 < name.size() && std::islower(static_cast<unsigned char>(name[i + 1]));
        if (std::islower(prev) || std::isdigit(prev) || (std::isupper(prev) && next_lower)) {
          flush();
        }
      }
      word += static_cast<char>(std::tolower(c));
    } else if (std::isdigit(c) && !word.empty()) {
      word += static_cast<char>(c);
    } else {
      flush();
    }
  }
  flush();
  return words;
}

std::string EscapeNode(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == ';' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::vector<std::string> SplitNodes(const std::string& text) {
  std::vector<std::string> nodes;
  std::string node;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      node += text[++i];
    } else if (text[i] == ';') {
      nodes.push_back(node);
      node.clear();
    } else {
      node += text[i];
    }
  }
  nodes.push_back(node);
  return nodes;
}

std::string Number(double v) {
  std::ostringstream out;
  out.precision(6);
  out << v;
  return out.str();
}

}  // namespace

const std::vector<std::string>& OpClasses() {
  static const std::vector<std::string> classes = {
      "Conv", "ConvTranspose", "MatMul",       "Softmax",      "Normalization",
      "Pool", "Reduce",        "Elementwise",  "DataMovement", "Other"};
  return classes;
}

std::string OpClassOfOnnxType(const std::string& op_type) {
  const auto it = OnnxTypeClasses().find(op_type);
  return it == OnnxTypeClasses().end() ? "Other" : it->second;
}

std::string OpClassOfSdkName(const std::string& name) {
  // An ONNX operator type as it is (ONNX Runtime's nodes keep theirs: MatMul, Softmax).
  if (const auto it = OnnxTypeClasses().find(name); it != OnnxTypeClasses().end()) {
    return it->second;
  }
  std::vector<std::string> words = Words(name);
  // Two words that name one thing: "FusedMatMul" is fused, mat, mul and matmul.
  for (size_t i = 0, n = words.size(); i + 1 < n; ++i) words.push_back(words[i] + words[i + 1]);
  // A word with the number a compiler appends to tell functions apart: TVM's conv2d16 is a
  // conv2d, its add13 an add.
  for (size_t i = 0, n = words.size(); i < n; ++i) {
    const size_t end = words[i].find_last_not_of("0123456789");
    if (end != std::string::npos && end + 1 < words[i].size()) {
      words.push_back(words[i].substr(0, end + 1));
    }
  }
  for (const auto& [cls, class_words] : SdkWordClasses()) {
    for (const std::string& w : words) {
      if (std::find(class_words.begin(), class_words.end(), w) != class_words.end()) return cls;
    }
  }
  return "Other";
}

ProfileTable Tabulate(const KernelProfile& profile, const Graph& graph) {
  if (profile.runs <= 0) throw std::invalid_argument("a profile of no runs");
  std::unordered_map<std::string, size_t> node_index;
  for (size_t i = 0; i < graph.nodes.size(); ++i) node_index.emplace(graph.nodes[i].name, i);
  const auto rank = [](const std::string& cls) {
    return std::find(OpClasses().begin(), OpClasses().end(), cls) - OpClasses().begin();
  };

  ProfileTable table;
  table.profiler = profile.profiler;
  table.runs = profile.runs;
  table.notes = profile.notes;
  double total_ms = 0;
  size_t dropped = 0;
  for (const ProfiledKernel& k : profile.kernels) {
    ProfileLine line;
    line.kernel = k.name;
    line.device = k.device;
    line.calls_per_inference = static_cast<double>(k.calls) / profile.runs;
    line.ms_per_inference = k.time_ms / profile.runs;
    if (k.nodes_known) {
      // In graph order, each node once.
      std::vector<size_t> found;
      for (const std::string& n : k.nodes) {
        const auto it = node_index.find(n);
        if (it == node_index.end()) {
          ++dropped;
        } else if (std::find(found.begin(), found.end(), it->second) == found.end()) {
          found.push_back(it->second);
        }
      }
      std::sort(found.begin(), found.end());
      for (size_t i : found) line.nodes.push_back(graph.nodes[i].name);
      line.nodes_known = !found.empty();
    }
    if (line.nodes_known) {
      std::vector<std::string> types;
      for (const std::string& n : line.nodes) {
        const std::string& t = graph.nodes[node_index.at(n)].op_type;
        if (std::find(types.begin(), types.end(), t) == types.end()) types.push_back(t);
      }
      // The first class of its nodes' types and of the SDK's own type: a layer may keep the
      // name of only some of the nodes it computes (OpenVINO's Convolution folded with a
      // BatchNormalization is named after the BatchNormalization; identity's Linear node runs
      // aten::linear).
      line.op_class = k.sdk_type.empty() ? "Other" : OpClassOfSdkName(k.sdk_type);
      for (const std::string& t : types) {
        line.op_types += (line.op_types.empty() ? "" : "+") + t;
        const std::string cls = OpClassOfOnnxType(t);
        if (rank(cls) < rank(line.op_class)) line.op_class = cls;
      }
    } else {
      line.op_types = k.sdk_type.empty() ? k.name : k.sdk_type;
      line.op_class = OpClassOfSdkName(line.op_types);
      if (line.op_class == "Other" && !k.sdk_type.empty()) line.op_class = OpClassOfSdkName(k.name);
    }
    total_ms += line.ms_per_inference;
    table.lines.push_back(std::move(line));
  }
  for (ProfileLine& line : table.lines) {
    line.share = total_ms > 0 ? line.ms_per_inference / total_ms : 0;
  }
  std::stable_sort(table.lines.begin(), table.lines.end(),
                   [](const ProfileLine& a, const ProfileLine& b) {
                     return a.ms_per_inference > b.ms_per_inference;
                   });
  if (dropped > 0) {
    table.notes.push_back(std::to_string(dropped) +
                          " node name(s) the profiler gave are not nodes of the model's graph "
                          "(left out of `nodes`)");
  }
  return table;
}

double ProfiledMs(const ProfileTable& table) {
  double total = 0;
  for (const ProfileLine& line : table.lines) total += line.ms_per_inference;
  return total;
}

double KernelsPerInference(const ProfileTable& table) {
  double kernels = 0;
  for (const ProfileLine& line : table.lines) kernels += line.calls_per_inference;
  return kernels;
}

ProfileSummary Summarize(const ProfileTable& table, const Graph& graph) {
  ProfileSummary s;
  s.ir_nodes = static_cast<int64_t>(graph.nodes.size());
  s.kernels_per_inference = KernelsPerInference(table);
  s.profiled_ms = ProfiledMs(table);
  for (const auto& [cls, ms] : TimeByOpClass(table)) {
    if (s.top_op_class.empty() || ms > s.top_share) {
      s.top_op_class = cls;
      s.top_share = ms;
    }
  }
  s.top_share = s.profiled_ms > 0 ? s.top_share / s.profiled_ms : 0;
  return s;
}

std::map<std::string, double> TimeByOpClass(const ProfileTable& table) {
  std::map<std::string, double> by_class;
  for (const ProfileLine& line : table.lines) by_class[line.op_class] += line.ms_per_inference;
  return by_class;
}

std::string FormatProfileCsv(const ProfileTable& table) {
  std::string out;
  for (size_t i = 0; i < kProfileColumns.size(); ++i) {
    out += (i ? "," : "") + kProfileColumns[i];
  }
  out += "\n";
  for (const ProfileLine& line : table.lines) {
    std::string nodes;
    if (!line.nodes_known) {
      nodes = kUnknownNodes;
    } else {
      for (const std::string& n : line.nodes) nodes += (nodes.empty() ? "" : ";") + EscapeNode(n);
    }
    // Text cells guarded against spreadsheet formulas (a kernel or node may be named so).
    const std::vector<std::string> fields = {CsvGuardText(line.kernel),
                                             CsvGuardText(nodes),
                                             CsvGuardText(line.op_types),
                                             CsvGuardText(line.op_class),
                                             Number(line.calls_per_inference),
                                             Number(line.ms_per_inference),
                                             Number(line.share),
                                             CsvGuardText(line.device)};
    for (size_t i = 0; i < fields.size(); ++i) {
      std::string f;
      for (char c : fields[i]) f += (c == '\n' || c == '\r') ? ' ' : c;
      out += (i ? "," : "") + CsvEscape(f);
    }
    out += "\n";
  }
  return out;
}

ProfileTable ParseProfileCsv(const std::string& text, const std::string& source) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line)) {
    throw InputError("profile '" + source + "' is empty (expected a header line: " +
                     "kernel,nodes,op_types,op_class,calls_per_inference,ms_per_inference," +
                     "share,device)");
  }
  std::vector<std::string> header;
  try {
    header = CsvSplitLine(line);
  } catch (const std::exception& e) {
    throw InputError("profile '" + source + "' is not valid CSV: " + e.what());
  }
  if (header != kProfileColumns) {
    throw InputError("profile '" + source + "' has the header '" + line +
                     "'; expected kernel,nodes,op_types,op_class,calls_per_inference," +
                     "ms_per_inference,share,device");
  }
  ProfileTable table;
  size_t number = 1;
  while (std::getline(in, line)) {
    ++number;
    const std::string where = "profile '" + source + "' line " + std::to_string(number);
    std::vector<std::string> f = CsvFields(line, kProfileColumns.size(), where);
    for (const size_t text : {0, 1, 2, 3, 7}) f[text] = CsvUnguardText(f[text]);
    ProfileLine p;
    p.kernel = f[0];
    p.nodes_known = f[1] != kUnknownNodes;
    if (p.nodes_known) p.nodes = SplitNodes(f[1]);
    p.op_types = f[2];
    p.op_class = f[3];
    if (std::find(OpClasses().begin(), OpClasses().end(), p.op_class) == OpClasses().end()) {
      throw InputError(where + ": op_class '" + p.op_class + "' is not one of the classes " +
                       "(Conv, ConvTranspose, MatMul, Softmax, Normalization, Pool, Reduce, " +
                       "Elementwise, DataMovement, Other)");
    }
    try {
      p.calls_per_inference = ParseNonNegative(f[4], "calls_per_inference");
      p.ms_per_inference = ParseNonNegative(f[5], "ms_per_inference");
      p.share = ParseNonNegative(f[6], "share");
    } catch (const std::invalid_argument& e) {
      throw InputError(where + ": " + e.what());
    }
    if (p.share > 1.000001) {
      throw InputError(where + ": share " + f[6] + " is more than 1 (a fraction of the total)");
    }
    p.device = f[7];
    table.lines.push_back(std::move(p));
  }
  return table;
}

}  // namespace ngraphbench
