// Single-op cases: at least one small graph for every row of the operator table
// (graph/ops.cc), each tagged with the operator it verifies. Graphs whose operator yields int64 or
// bool values end in a Cast to float, because every compiler hands back float32 outputs; those
// helper ops (Cast, Greater, Floor, Shape, ...) have cases of their own.
//
// Header-only: conformance_test.cc is the only user.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ngraphbench/graph/ir.h"
#include "ngraphbench/models/builder.h"

namespace ngraphbench::test_support {

struct OpCase {
  std::string name;  // "op_<what>"
  std::string op;    // the table row it verifies
  Graph graph;
};

namespace op_cases_detail {

using Attrs = std::map<std::string, AttrValue>;
using Ints = std::vector<int64_t>;

// ONNX TensorProto data types, for Cast's `to`.
constexpr int64_t kFloat = 1, kInt32 = 6, kInt64 = 7, kBool = 9, kDouble = 11;

inline std::string Cast(GraphBuilder& g, const std::string& x, int64_t to) {
  return g.AddNode("Cast", {x}, g.ShapeOf(x), Attrs{{"to", to}});
}

// A node with several outputs, appended to a finished graph (GraphBuilder makes one output).
inline void Append(Graph& graph, const std::string& op, std::vector<std::string> inputs,
                   const std::vector<std::pair<std::string, Shape>>& outputs, Attrs attrs = {}) {
  Node node{op, "n_" + op + "_" + std::to_string(graph.nodes.size()), std::move(inputs), {},
            std::move(attrs)};
  for (const auto& [name, shape] : outputs) {
    node.outputs.push_back(name);
    graph.value_shapes[name] = shape;
  }
  graph.nodes.push_back(std::move(node));
}

// Int64Constant makes 1-D tensors; the constants named "scalar_*" become 0-D, as Range's
// bounds, CumSum's axis and Trilu's k must be.
inline void MakeScalars(Graph& graph) {
  for (auto& init : graph.initializers) {
    if (init.name.rfind("scalar_", 0) == 0) {
      init.tensor.shape = {};
      graph.value_shapes[init.name] = {};
    }
  }
}

}  // namespace op_cases_detail

inline std::vector<OpCase> OperatorCases() {
  using namespace op_cases_detail;
  constexpr int64_t kBatch = 2;
  std::vector<OpCase> cases;
  // Graph inputs are named input*, query, key, value: GraphBuilder names node outputs x, x_1,
  // ... and t, t_1, ... without knowing the input names.
  auto add = [&](const std::string& op, const std::string& name, GraphBuilder& g,
                 const std::string& out) {
    g.Output(out);
    cases.push_back({"op_" + name, op, g.Finish()});
    MakeScalars(cases.back().graph);
  };

  // ---- Convolutions, normalizations, matrix products ------------------------------------------
  {
    GraphBuilder g("op_conv_grouped");
    std::string x = g.Input("input", {kBatch, 4, 9, 9});
    std::string w = g.ParamNormal("w", {6, 2, 3, 3}, 0.3f);
    add("Conv", "conv_grouped_strided_dilated_asymmetric", g,
        g.AddNode("Conv", {x, w}, {kBatch, 6, 4, 3},
                  Attrs{{"group", int64_t{2}},
                        {"strides", Ints{2, 2}},
                        {"dilations", Ints{2, 2}},
                        {"pads", Ints{1, 0, 2, 1}},
                        {"kernel_shape", Ints{3, 3}}}));
  }
  {
    GraphBuilder g("op_conv_depthwise");
    std::string x = g.Input("input", {kBatch, 4, 8, 8});
    add("Conv", "conv_depthwise_bias", g, g.Conv(x, 4, 3, 1, 1, /*groups=*/4, /*bias=*/true));
  }
  {
    GraphBuilder g("op_conv_same");
    std::string x = g.Input("input", {kBatch, 3, 7, 7});
    std::string w = g.ParamNormal("w", {5, 3, 2, 2}, 0.3f);
    add("Conv", "conv_auto_pad_same_upper", g,
        g.AddNode("Conv", {x, w}, {kBatch, 5, 7, 7},
                  Attrs{{"auto_pad", std::string("SAME_UPPER")}}));
  }
  {
    GraphBuilder g("op_conv_transpose");
    std::string x = g.Input("input", {kBatch, 4, 5, 5});
    std::string w = g.ParamNormal("w", {4, 3, 3, 3}, 0.3f);
    std::string b = g.ParamNormal("b", {3}, 0.1f);
    add("ConvTranspose", "conv_transpose_strided_output_padding", g,
        g.AddNode("ConvTranspose", {x, w, b}, {kBatch, 3, 10, 10},
                  Attrs{{"strides", Ints{2, 2}},
                        {"pads", Ints{1, 1, 1, 1}},
                        {"output_padding", Ints{1, 1}}}));
  }
  {
    GraphBuilder g("op_conv_transpose_grouped");
    std::string x = g.Input("input", {kBatch, 4, 5, 5});
    std::string w = g.ParamNormal("w", {4, 2, 3, 3}, 0.3f);
    add("ConvTranspose", "conv_transpose_grouped", g,
        g.AddNode("ConvTranspose", {x, w}, {kBatch, 4, 5, 5},
                  Attrs{{"group", int64_t{2}}, {"pads", Ints{1, 1, 1, 1}}}));
  }
  {
    GraphBuilder g("op_batchnorm");
    std::string x = g.Input("input", {kBatch, 5, 4, 4});
    add("BatchNormalization", "batchnorm", g, g.BatchNorm(x, 1e-3f));
  }
  {
    GraphBuilder g("op_instancenorm");
    std::string x = g.Input("input", {kBatch, 3, 5, 5});
    std::string scale = g.ParamUniform("scale", {3}, 0.5f, 1.5f);
    std::string bias = g.ParamNormal("bias", {3}, 0.1f);
    add("InstanceNormalization", "instancenorm", g,
        g.AddNode("InstanceNormalization", {x, scale, bias}, {kBatch, 3, 5, 5},
                  Attrs{{"epsilon", 1e-5f}}));
  }
  {
    GraphBuilder g("op_layernorm");
    std::string x = g.Input("input", {kBatch, 4, 8});
    add("LayerNormalization", "layernorm", g, g.LayerNorm(x));
  }
  {
    GraphBuilder g("op_linear");
    std::string x = g.Input("input", {kBatch, 3, 8});
    add("Linear", "linear", g, g.Linear(x, 5));
  }
  {
    GraphBuilder g("op_gemm_linear");
    std::string x = g.Input("input", {kBatch, 8});
    std::string w = g.ParamNormal("w", {5, 8}, 0.3f);
    std::string c = g.ParamNormal("c", {5}, 0.3f);
    add("Gemm", "gemm_transb", g,
        g.AddNode("Gemm", {x, w, c}, {kBatch, 5}, Attrs{{"transB", int64_t{1}}}));
  }
  {
    GraphBuilder g("op_gemm_general");
    std::string a = g.Input("input_a", {8, kBatch});
    std::string w = g.ParamNormal("w", {8, 5}, 0.3f);
    std::string c = g.ParamNormal("c", {1, 5}, 0.3f);
    add("Gemm", "gemm_transa_alpha_beta", g,
        g.AddNode("Gemm", {a, w, c}, {kBatch, 5},
                  Attrs{{"transA", int64_t{1}}, {"alpha", 0.5f}, {"beta", 2.0f}}));
  }
  {
    GraphBuilder g("op_matmul");
    std::string a = g.Input("input_a", {kBatch, 3, 4, 5});
    std::string b = g.Input("input_b", {kBatch, 3, 5, 6});
    add("MatMul", "matmul_batched", g, g.AddNode("MatMul", {a, b}, {kBatch, 3, 4, 6}));
  }
  {
    GraphBuilder g("op_einsum");
    std::string a = g.Input("input_a", {kBatch, 3, 4});
    std::string b = g.Input("input_b", {kBatch, 4, 5});
    add("Einsum", "einsum_batched_matmul", g,
        g.AddNode("Einsum", {a, b}, {kBatch, 3, 5},
                  Attrs{{"equation", std::string("bij,bjk->bik")}}));
  }
  {
    GraphBuilder g("op_einsum_transpose");
    std::string a = g.Input("input", {kBatch, 3, 4});
    add("Einsum", "einsum_sum_and_transpose", g,
        g.AddNode("Einsum", {a}, {4, kBatch}, Attrs{{"equation", std::string("bij->jb")}}));
  }
  {
    GraphBuilder g("op_attention");
    Shape qkv{kBatch, 2, 5, 4};
    std::string q = g.Input("query", qkv), k = g.Input("key", qkv), v = g.Input("value", qkv);
    std::string bias = g.Buffer("bias", RandomNormal({kBatch, 2, 5, 5}, 11));
    add("ScaledDotProductAttention", "attention_bias_scale", g,
        g.AddNode("ScaledDotProductAttention", {q, k, v, bias}, qkv, Attrs{{"scale", 0.3f}}));
  }
  {
    GraphBuilder g("op_attention_default");
    std::string q = g.Input("query", {kBatch, 6, 8}), k = g.Input("key", {kBatch, 7, 8}),
                v = g.Input("value", {kBatch, 7, 3});
    add("ScaledDotProductAttention", "attention_default_scale", g, g.Attention(q, k, v));
  }

  // ---- Elementwise --------------------------------------------------------------------------
  for (const char* op : {"Relu", "Gelu", "Sigmoid", "Tanh", "Erf", "HardSwish", "HardSigmoid",
                         "Identity", "Abs", "Neg", "Exp", "Floor", "Ceil", "Round", "Sign", "Sin",
                         "Cos", "Softplus", "Softsign", "Selu", "Elu", "Celu", "LeakyRelu",
                         "Dropout"}) {
    GraphBuilder g(std::string("op_") + op);
    std::string x = g.Input("input", {kBatch, 3, 7});
    add(op, op, g, g.Unary(op, x));
  }
  for (const auto& [op, attr, value] :
       {std::tuple<const char*, const char*, float>{"Elu", "alpha", 0.5f},
        {"Celu", "alpha", 0.7f},
        {"LeakyRelu", "alpha", 0.2f},
        {"Selu", "alpha", 1.5f}}) {
    GraphBuilder g(std::string("op_") + op + "_attr");
    std::string x = g.Input("input", {kBatch, 3, 7});
    add(op, std::string(op) + "_" + attr, g,
        g.AddNode(op, {x}, {kBatch, 3, 7}, Attrs{{attr, value}}));
  }
  {
    // Around x = -2.7, where the tanh approximation is furthest (4.7e-4) from the erf form and
    // the outputs are small: the two forms differ by over 4x the tolerance.
    GraphBuilder g("op_gelu_tanh");
    std::string x = g.Input("input", {kBatch, 3, 7});
    x = g.Binary("Add", g.Binary("Mul", x, g.ParamFilled("s", {}, 0.1f)),
                 g.ParamFilled("c", {}, -2.7f));
    add("Gelu", "gelu_tanh", g,
        g.AddNode("Gelu", {x}, {kBatch, 3, 7}, Attrs{{"approximate", std::string("tanh")}}));
  }
  {
    GraphBuilder g("op_hardsigmoid_torch");
    std::string x = g.Input("input", {kBatch, 3, 7});
    add("HardSigmoid", "hardsigmoid_torch", g,
        g.AddNode("HardSigmoid", {x}, {kBatch, 3, 7},
                  Attrs{{"alpha", 1.0f / 6.0f}, {"beta", 0.5f}}));
  }
  {
    GraphBuilder g("op_sqrt");  // sqrt(x * x) keeps the input non-negative
    std::string x = g.Input("input", {kBatch, 6});
    add("Sqrt", "sqrt", g, g.Unary("Sqrt", g.Binary("Mul", x, x)));
  }
  {
    GraphBuilder g("op_log");  // log(x * x + 0.1): positive
    std::string x = g.Input("input", {kBatch, 6});
    add("Log", "log", g,
        g.Unary("Log", g.Binary("Add", g.Binary("Mul", x, x), g.ParamFilled("c", {}, 0.1f))));
  }
  {
    GraphBuilder g("op_reciprocal");  // 1 / (|x| + 0.5): bounded
    std::string x = g.Input("input", {kBatch, 6});
    add("Reciprocal", "reciprocal", g,
        g.Unary("Reciprocal",
                g.Binary("Add", g.Unary("Abs", x), g.ParamFilled("c", {}, 0.5f))));
  }
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    GraphBuilder g(std::string("op_") + op);
    std::string a = g.Input("input_a", {kBatch, 3, 4});
    // Division by a constant bounded away from zero.
    std::string b = g.ParamUniform("b", {3, 1}, 0.5f, 2.0f);
    add(op, std::string(op) + "_broadcast", g, g.Binary(op, a, b));
  }
  {
    GraphBuilder g("op_div_int");  // integer division truncates toward zero
    std::string x = g.Input("input", {kBatch, 8});
    std::string i = Cast(g, g.Binary("Mul", x, g.ParamFilled("s", {}, 10.0f)), kInt64);
    add("Div", "div_int64_truncates", g,
        Cast(g, g.Binary("Div", i, g.Int64Constant("d", {3})), kFloat));
  }
  {
    GraphBuilder g("op_mod_fmod");
    std::string x = g.Input("input", {kBatch, 3, 4});
    std::string m = g.ParamUniform("m", {4}, 0.5f, 2.0f);
    add("Mod", "mod_fmod", g,
        g.AddNode("Mod", {x, m}, {kBatch, 3, 4}, Attrs{{"fmod", int64_t{1}}}));
  }
  {
    GraphBuilder g("op_mod_int");  // the divisor's sign, as Python's %
    std::string x = g.Input("input", {kBatch, 8});
    std::string i = Cast(g, g.Binary("Mul", x, g.ParamFilled("s", {}, 10.0f)), kInt64);
    add("Mod", "mod_int64", g,
        Cast(g, g.AddNode("Mod", {i, g.Int64Constant("d", {3})}, {kBatch, 8}), kFloat));
  }
  {
    GraphBuilder g("op_pow_scalar");
    std::string x = g.Input("input", {kBatch, 5});
    std::string e = g.ParamFilled("e", {}, 3.0f);
    add("Pow", "pow_scalar_exponent", g, g.AddNode("Pow", {x, e}, {kBatch, 5}));
  }
  {
    GraphBuilder g("op_pow_tensor");
    std::string x = g.Unary("Sigmoid", g.Input("input", {kBatch, 4}));
    std::string e = g.ParamUniform("e", {4}, 0.5f, 2.5f);
    add("Pow", "pow_tensor_exponent", g, g.AddNode("Pow", {x, e}, {kBatch, 4}));
  }
  {
    GraphBuilder g("op_prelu_channel");  // torch.nn.PReLU(C) exports its weight as [C, 1, 1]
    std::string x = g.Input("input", {kBatch, 3, 4, 4});
    std::string slope = g.ParamUniform("slope", {3, 1, 1}, 0.05f, 0.5f);
    add("PRelu", "prelu_per_channel", g, g.AddNode("PRelu", {x, slope}, {kBatch, 3, 4, 4}));
  }
  {
    GraphBuilder g("op_prelu_last_axis");
    std::string x = g.Input("input", {kBatch, 3, 4, 5});
    std::string slope = g.ParamUniform("slope", {5}, 0.05f, 0.5f);
    add("PRelu", "prelu_broadcast_last_axis", g,
        g.AddNode("PRelu", {x, slope}, {kBatch, 3, 4, 5}));
  }
  for (const char* op : {"Sum", "Mean", "Max", "Min"}) {
    GraphBuilder g(std::string("op_") + op);
    std::string a = g.Input("input_a", {kBatch, 3, 4}), b = g.Input("input_b", {3, 4});
    std::string c = g.ParamNormal("c", {4}, 1.0f);
    add(op, std::string(op) + "_three_inputs_broadcast", g,
        g.AddNode(op, {a, b, c}, {kBatch, 3, 4}));
  }
  {
    GraphBuilder g("op_clip");
    std::string x = g.Input("input", {kBatch, 9});
    std::string lo = g.ParamFilled("lo", {}, 0.0f), hi = g.ParamFilled("hi", {}, 6.0f);
    add("Clip", "clip_relu6", g,
        g.AddNode("Clip", {g.Binary("Mul", x, g.ParamFilled("s", {}, 4.0f)), lo, hi},
                  {kBatch, 9}));
  }
  {
    GraphBuilder g("op_clip_min");
    std::string x = g.Input("input", {kBatch, 9});
    add("Clip", "clip_min_only", g,
        g.AddNode("Clip", {x, g.ParamFilled("lo", {}, -0.5f)}, {kBatch, 9}));
  }

  // ---- Comparisons, logic, selection, types ---------------------------------------------------
  for (const char* op : {"Less", "Greater", "LessOrEqual", "GreaterOrEqual"}) {
    GraphBuilder g(std::string("op_") + op);
    std::string a = g.Input("input_a", {kBatch, 3, 4}), b = g.Input("input_b", {3, 4});
    add(op, op, g, Cast(g, g.AddNode(op, {a, b}, {kBatch, 3, 4}), kFloat));
  }
  {
    GraphBuilder g("op_equal");  // floor(x) == 0 holds for about a third of N(0, 1)
    std::string x = g.Input("input", {kBatch, 3, 7});
    add("Equal", "equal_float", g,
        Cast(g, g.Binary("Equal", g.Unary("Floor", x), g.ParamFilled("zero", {}, 0.0f)),
             kFloat));
  }
  {
    GraphBuilder g("op_equal_int");
    std::string x = g.Input("input", {kBatch, 3, 7});
    std::string i = Cast(g, g.Unary("Floor", x), kInt64);
    add("Equal", "equal_int64", g,
        Cast(g, g.Binary("Equal", i, g.Int64Constant("minus_one", {-1})), kFloat));
  }
  {
    GraphBuilder g("op_not");
    std::string x = g.Input("input", {kBatch, 3, 4});
    std::string positive = g.Binary("Greater", x, g.ParamFilled("zero", {}, 0.0f));
    add("Not", "not", g, Cast(g, g.Unary("Not", positive), kFloat));
  }
  for (const char* op : {"And", "Or", "Xor"}) {
    GraphBuilder g(std::string("op_") + op);
    std::string a = g.Input("input_a", {kBatch, 3, 4}), b = g.Input("input_b", {3, 4});
    std::string zero = g.ParamFilled("zero", {}, 0.0f);
    add(op, op, g,
        Cast(g, g.Binary(op, g.Binary("Greater", a, zero), g.Binary("Less", b, zero)), kFloat));
  }
  {
    GraphBuilder g("op_where");
    std::string a = g.Input("input_a", {kBatch, 3, 4}), b = g.Input("input_b", {3, 4});
    add("Where", "where_on_activations", g,
        g.AddNode("Where", {g.Binary("Greater", a, b), a, b}, {kBatch, 3, 4}));
  }
  {
    GraphBuilder g("op_cast_int64");  // float -> int64 truncates toward zero
    std::string x = g.Input("input", {kBatch, 8});
    add("Cast", "cast_float_int64_float", g,
        Cast(g, Cast(g, g.Binary("Mul", x, g.ParamFilled("s", {}, 3.0f)), kInt64), kFloat));
  }
  {
    GraphBuilder g("op_cast_int32_bool_double");
    std::string x = g.Input("input", {kBatch, 8});
    std::string i32 = Cast(g, g.Binary("Mul", x, g.ParamFilled("s", {}, 3.0f)), kInt32);
    std::string flag = Cast(g, g.Unary("Floor", x), kBool);
    std::string sum = g.Binary("Add", Cast(g, i32, kDouble), Cast(g, flag, kDouble));
    add("Cast", "cast_int32_bool_double", g, Cast(g, sum, kFloat));
  }
  {
    GraphBuilder g("op_castlike");
    std::string x = g.Input("input", {kBatch, 8});
    std::string i = Cast(g, g.Binary("Mul", x, g.ParamFilled("s", {}, 3.0f)), kInt64);
    add("CastLike", "castlike_int64_to_float", g, g.AddNode("CastLike", {i, x}, {kBatch, 8}));
  }

  // ---- Shapes and index arithmetic ------------------------------------------------------------
  {
    GraphBuilder g("op_shape");  // x + float(shape(x)): shape [2, 4, 3] broadcasts on the last axis
    std::string x = g.Input("input", {kBatch, 4, 3});
    add("Shape", "shape_of_activation", g,
        g.Binary("Add", x, Cast(g, g.AddNode("Shape", {x}, {3}), kFloat)));
  }
  {
    GraphBuilder g("op_shape_start_end");
    std::string x = g.Input("input", {kBatch, 5, 2});
    std::string s = g.AddNode("Shape", {x}, {1},
                              Attrs{{"start", int64_t{1}}, {"end", int64_t{-1}}});
    add("Shape", "shape_start_end", g, g.Binary("Mul", x, Cast(g, s, kFloat)));
  }
  {
    GraphBuilder g("op_size");
    std::string x = g.Input("input", {kBatch, 3, 4});
    add("Size", "size", g, g.Binary("Mul", x, Cast(g, g.AddNode("Size", {x}, {}), kFloat)));
  }
  {
    GraphBuilder g("op_constant_of_shape");
    std::string x = g.Input("input", {kBatch, 3, 4});
    std::string zeros = g.AddNode("ConstantOfShape", {g.AddNode("Shape", {x}, {3})},
                                  {kBatch, 3, 4});
    add("ConstantOfShape", "constant_of_shape_of_activation", g,
        g.Binary("Add", g.Unary("Sigmoid", x), zeros));
  }
  {
    GraphBuilder g("op_range_int");
    std::string x = g.Input("input", {kBatch, 3, 7});
    std::string r = g.AddNode("Range",
                              {g.Int64Constant("scalar_start", {0}), g.Int64Constant("scalar_limit", {7}),
                               g.Int64Constant("scalar_delta", {1})},
                              {7});
    add("Range", "range_int64", g, g.Binary("Add", x, Cast(g, r, kFloat)));
  }
  {
    GraphBuilder g("op_range_float");
    std::string x = g.Input("input", {kBatch, 3, 7});
    std::string r = g.AddNode("Range",
                              {g.ParamFilled("start", {}, 0.5f), g.ParamFilled("limit", {}, 4.0f),
                               g.ParamFilled("delta", {}, 0.5f)},
                              {7});
    add("Range", "range_float", g, g.Binary("Mul", x, r));
  }
  {
    GraphBuilder g("op_reshape");
    std::string x = g.Input("input", {kBatch, 3, 4});
    add("Reshape", "reshape_zero_minus_one", g,
        g.AddNode("Reshape", {x, g.Int64Constant("shape", {0, -1})}, {kBatch, 12}));
  }
  {
    // Shape -> Slice -> Concat -> Reshape, as an exporter writes x.view(x.size(0), -1) when
    // nothing folded it: the shape is computed on int64 values at run time.
    GraphBuilder g("op_reshape_computed");
    std::string x = g.Input("input", {kBatch, 3, 4});
    std::string shape = g.AddNode("Shape", {x}, {3});
    std::string batch = g.AddNode(
        "Slice", {shape, g.Int64Constant("starts", {0}), g.Int64Constant("ends", {1})}, {1});
    std::string target = g.AddNode("Concat", {batch, g.Int64Constant("rest", {-1})}, {2},
                                   Attrs{{"axis", int64_t{0}}});
    add("Reshape", "reshape_computed_shape", g, g.AddNode("Reshape", {x, target}, {kBatch, 12}));
  }
  {
    GraphBuilder g("op_transpose");
    std::string x = g.Input("input", {kBatch, 3, 4, 5});
    add("Transpose", "transpose", g, g.Transpose(x, {0, 2, 1, 3}));
  }
  {
    GraphBuilder g("op_flatten");
    std::string x = g.Input("input", {kBatch, 3, 4, 5});
    add("Flatten", "flatten_axis2", g,
        g.AddNode("Flatten", {x}, {kBatch * 3, 20}, Attrs{{"axis", int64_t{2}}}));
  }
  {
    GraphBuilder g("op_concat");
    std::string a = g.Input("input_a", {kBatch, 3, 4}), b = g.Input("input_b", {kBatch, 2, 4});
    add("Concat", "concat_axis1", g,
        g.AddNode("Concat", {a, b}, {kBatch, 5, 4}, Attrs{{"axis", int64_t{1}}}));
  }
  {
    GraphBuilder g("op_slice");
    std::string x = g.Input("input", {kBatch, 5, 6});
    add("Slice", "slice_clamped_negative_steps2", g,
        g.AddNode("Slice",
                  {x, g.Int64Constant("starts", {1, -3}), g.Int64Constant("ends", {100, -1}),
                   g.Int64Constant("axes", {2, 1}), g.Int64Constant("steps", {2, 1})},
                  {kBatch, 2, 3}));
  }
  {
    GraphBuilder g("op_split");
    std::string x = g.Input("input", {kBatch, 6, 4});
    std::string sizes = g.Int64Constant("split", {2, 4});
    Graph graph = g.Finish();
    Append(graph, "Split", {x, sizes}, {{"part_a", {kBatch, 2, 4}}, {"part_b", {kBatch, 4, 4}}},
           Attrs{{"axis", int64_t{1}}});
    graph.outputs = {{"part_a", {kBatch, 2, 4}}, {"part_b", {kBatch, 4, 4}}};
    cases.push_back({"op_split_sizes", "Split", std::move(graph)});
  }
  {
    GraphBuilder g("op_split_equal");
    std::string x = g.Input("input", {kBatch, 3, 6});
    Graph graph = g.Finish();
    Append(graph, "Split", {x}, {{"third_a", {kBatch, 3, 2}}, {"third_b", {kBatch, 3, 2}},
                                 {"third_c", {kBatch, 3, 2}}},
           Attrs{{"axis", int64_t{-1}}});
    graph.outputs = {{"third_a", {kBatch, 3, 2}}, {"third_b", {kBatch, 3, 2}},
                     {"third_c", {kBatch, 3, 2}}};
    cases.push_back({"op_split_equal", "Split", std::move(graph)});
  }
  {
    GraphBuilder g("op_squeeze");
    std::string x = g.Input("input", {kBatch, 1, 3});
    add("Squeeze", "squeeze", g,
        g.AddNode("Squeeze", {x, g.Int64Constant("axes", {1})}, {kBatch, 3}));
  }
  {
    GraphBuilder g("op_unsqueeze");
    std::string x = g.Input("input", {kBatch, 3});
    add("Unsqueeze", "unsqueeze", g,
        g.AddNode("Unsqueeze", {x, g.Int64Constant("axes", {0, 3})}, {1, kBatch, 3, 1}));
  }
  {
    GraphBuilder g("op_expand");
    std::string x = g.Input("input", {3, 1});
    add("Expand", "expand", g,
        g.AddNode("Expand", {x, g.Int64Constant("shape", {kBatch, 1, 4})}, {kBatch, 3, 4}));
  }
  {
    GraphBuilder g("op_expand_computed");  // expand_as: the shape of another activation
    std::string x = g.Input("input", {3, 1});
    std::string y = g.Input("input_b", {kBatch, 3, 4});
    std::string e = g.AddNode("Expand", {x, g.AddNode("Shape", {y}, {3})}, {kBatch, 3, 4});
    add("Expand", "expand_computed_shape", g, g.Binary("Add", e, y));
  }
  {
    GraphBuilder g("op_tile");
    std::string x = g.Input("input", {kBatch, 3, 4});
    add("Tile", "tile", g,
        g.AddNode("Tile", {x, g.Int64Constant("repeats", {1, 2, 3})}, {kBatch, 6, 12}));
  }
  {
    GraphBuilder g("op_gather");
    std::string x = g.Input("input", {kBatch, 4, 3});
    add("Gather", "gather_axis1_negative", g,
        g.AddNode("Gather", {x, g.Int64Constant("idx", {2, 0, -1})}, {kBatch, 3, 3},
                  Attrs{{"axis", int64_t{1}}}));
  }
  {
    GraphBuilder g("op_gather2d");
    std::string x = g.Input("input", {kBatch, 4, 3});
    add("Gather", "gather_2d_indices", g,
        g.AddNode("Gather", {x, g.Int64Constant("idx", {0, 1, 3, 0}, {2, 2})},
                  {kBatch, 2, 2, 3}, Attrs{{"axis", int64_t{1}}}));
  }
  {
    GraphBuilder g("op_gather_computed");  // indices from ArgMax of another input
    std::string x = g.Input("input", {kBatch, 5, 3});
    std::string y = g.Input("input_b", {kBatch, 5});
    std::string idx = g.AddNode("ArgMax", {y}, {kBatch},
                                Attrs{{"axis", int64_t{1}}, {"keepdims", int64_t{0}}});
    add("Gather", "gather_computed_indices", g,
        g.AddNode("Gather", {x, idx}, {kBatch, kBatch, 3}, Attrs{{"axis", int64_t{1}}}));
  }
  {
    GraphBuilder g("op_gather_elements");
    std::string x = g.Input("input", {kBatch, 3, 4});
    add("GatherElements", "gather_elements_axis1", g,
        g.AddNode("GatherElements",
                  {x, g.Int64Constant("idx", {0, 2, 1, 1, 2, 0, 0, 1, 1, 1, 2, 0, 0, 0, 2, 2},
                                      {kBatch, 2, 4})},
                  {kBatch, 2, 4}, Attrs{{"axis", int64_t{1}}}));
  }
  {
    GraphBuilder g("op_scatter_elements");  // torch.scatter(x, 1, idx, updates)
    std::string x = g.Input("input", {kBatch, 3, 4});
    std::string updates = g.Input("input_b", {kBatch, 1, 4});
    add("ScatterElements", "scatter_elements_axis1", g,
        g.AddNode("ScatterElements",
                  {x, g.Int64Constant("idx", {0, 2, 1, 1, 2, 0, 1, 2}, {kBatch, 1, 4}), updates},
                  {kBatch, 3, 4}, Attrs{{"axis", int64_t{1}}}));
  }
  {
    GraphBuilder g("op_scatter_nd");  // x[[0, 1], [1, 2]] = updates, as index_put_ exports
    std::string x = g.Input("input", {kBatch, 3, 4});
    std::string updates = g.Input("input_b", {2, 4});
    add("ScatterND", "scatter_nd_rows", g,
        g.AddNode("ScatterND", {x, g.Int64Constant("idx", {0, 1, 1, 2}, {2, 2}), updates},
                  {kBatch, 3, 4}));
  }
  {
    GraphBuilder g("op_depth_to_space_dcr");
    std::string x = g.Input("input", {kBatch, 8, 3, 3});
    add("DepthToSpace", "depth_to_space_dcr", g,
        g.AddNode("DepthToSpace", {x}, {kBatch, 2, 6, 6}, Attrs{{"blocksize", int64_t{2}}}));
  }
  {
    GraphBuilder g("op_depth_to_space_crd");  // torch.nn.PixelShuffle
    std::string x = g.Input("input", {kBatch, 8, 3, 3});
    add("DepthToSpace", "depth_to_space_crd", g,
        g.AddNode("DepthToSpace", {x}, {kBatch, 2, 6, 6},
                  Attrs{{"blocksize", int64_t{2}}, {"mode", std::string("CRD")}}));
  }
  {
    GraphBuilder g("op_space_to_depth");
    std::string x = g.Input("input", {kBatch, 2, 4, 6});
    add("SpaceToDepth", "space_to_depth", g,
        g.AddNode("SpaceToDepth", {x}, {kBatch, 8, 2, 3}, Attrs{{"blocksize", int64_t{2}}}));
  }
  for (const auto& [mode, pads, out_h, out_w] :
       {std::tuple<const char*, Ints, int64_t, int64_t>{"constant", {0, 0, 1, 2, 0, 0, 2, 1}, 8, 8},
        {"reflect", {0, 0, 1, 1, 0, 0, 2, 1}, 8, 7},
        {"edge", {0, 0, 0, 2, 0, 0, 1, 0}, 6, 7}}) {
    GraphBuilder g(std::string("op_pad_") + mode);
    std::string x = g.Input("input", {kBatch, 3, 5, 5});
    std::vector<std::string> inputs = {x, g.Int64Constant("pads", pads)};
    if (std::string(mode) == "constant") inputs.push_back(g.ParamFilled("value", {}, 0.5f));
    add("Pad", std::string("pad_") + mode, g,
        g.AddNode("Pad", inputs, {kBatch, 3, out_h, out_w}, Attrs{{"mode", std::string(mode)}}));
  }
  {
    GraphBuilder g("op_trilu_upper");
    std::string x = g.Input("input", {kBatch, 4, 5});
    add("Trilu", "trilu_upper_k1", g,
        g.AddNode("Trilu", {x, g.Int64Constant("scalar_k", {1})}, {kBatch, 4, 5}));
  }
  {
    GraphBuilder g("op_trilu_lower");
    std::string x = g.Input("input", {kBatch, 4, 5});
    add("Trilu", "trilu_lower_k_minus1", g,
        g.AddNode("Trilu", {x, g.Int64Constant("scalar_k", {-1})}, {kBatch, 4, 5},
                  Attrs{{"upper", int64_t{0}}}));
  }
  {
    GraphBuilder g("op_cumsum");
    std::string x = g.Input("input", {kBatch, 3, 4});
    add("CumSum", "cumsum_axis1", g,
        g.AddNode("CumSum", {x, g.Int64Constant("scalar_axis", {1})}, {kBatch, 3, 4}));
  }
  {
    GraphBuilder g("op_cumsum_exclusive_reverse");
    std::string x = g.Input("input", {kBatch, 3, 4});
    add("CumSum", "cumsum_exclusive_reverse", g,
        g.AddNode("CumSum", {x, g.Int64Constant("scalar_axis", {-1})}, {kBatch, 3, 4},
                  Attrs{{"exclusive", int64_t{1}}, {"reverse", int64_t{1}}}));
  }

  // ---- Reductions, softmax, top-k ---------------------------------------------------------------
  {
    GraphBuilder g("op_softmax");
    std::string x = g.Input("input", {kBatch, 5, 3});
    add("Softmax", "softmax_axis1", g,
        g.AddNode("Softmax", {x}, {kBatch, 5, 3}, Attrs{{"axis", int64_t{1}}}));
  }
  {
    GraphBuilder g("op_logsoftmax");
    std::string x = g.Input("input", {kBatch, 5, 3});
    add("LogSoftmax", "logsoftmax_axis1", g,
        g.AddNode("LogSoftmax", {x}, {kBatch, 5, 3}, Attrs{{"axis", int64_t{1}}}));
  }
  {
    GraphBuilder g("op_reducemean");
    std::string x = g.Input("input", {kBatch, 3, 4});
    add("ReduceMean", "reducemean_axis1", g,
        g.AddNode("ReduceMean", {x}, {kBatch, 4},
                  Attrs{{"axes", Ints{1}}, {"keepdims", int64_t{0}}}));
  }
  {
    GraphBuilder g("op_reducemean_keep");
    std::string x = g.Input("input", {kBatch, 3, 4});
    add("ReduceMean", "reducemean_last_keepdims", g,
        g.AddNode("ReduceMean", {x}, {kBatch, 3, 1}, Attrs{{"axes", Ints{-1}}}));
  }
  {
    GraphBuilder g("op_reducesum");  // opset 13: axes are an input
    std::string x = g.Input("input", {kBatch, 3, 4});
    add("ReduceSum", "reducesum_axes_input", g,
        g.AddNode("ReduceSum", {x, g.Int64Constant("axes", {1})}, {kBatch, 4},
                  Attrs{{"keepdims", int64_t{0}}}));
  }
  for (const auto& [op, axes, keep, out] :
       {std::tuple<const char*, Ints, int64_t, Shape>{"ReduceMax", {-1}, 1, {kBatch, 3, 1}},
        {"ReduceMin", {0, 2}, 0, {3}},
        {"ReduceProd", {1}, 0, {kBatch, 4}},
        {"ReduceL2", {2}, 1, {kBatch, 3, 1}},
        {"ReduceLogSumExp", {1}, 0, {kBatch, 4}}}) {
    GraphBuilder g(std::string("op_") + op);
    std::string x = g.Input("input", {kBatch, 3, 4});
    add(op, op, g, g.AddNode(op, {x}, out, Attrs{{"axes", axes}, {"keepdims", keep}}));
  }
  {
    GraphBuilder g("op_argmax");
    std::string x = g.Input("input", {kBatch, 5, 3});
    add("ArgMax", "argmax_axis1", g,
        Cast(g, g.AddNode("ArgMax", {x}, {kBatch, 3},
                          Attrs{{"axis", int64_t{1}}, {"keepdims", int64_t{0}}}),
             kFloat));
  }
  {
    GraphBuilder g("op_argmin");
    std::string x = g.Input("input", {kBatch, 5, 3});
    add("ArgMin", "argmin_last_keepdims", g,
        Cast(g, g.AddNode("ArgMin", {x}, {kBatch, 5, 1}, Attrs{{"axis", int64_t{-1}}}), kFloat));
  }
  for (const auto& [largest, axis, out] :
       {std::tuple<int64_t, int64_t, Shape>{1, -1, {kBatch, 4, 3}}, {0, 1, {kBatch, 3, 6}}}) {
    const std::string name = largest ? "topk_largest_last_axis" : "topk_smallest_axis1";
    GraphBuilder g("op_" + name);
    std::string x = g.Input("input", {kBatch, 4, 6});
    std::string k = g.Int64Constant("k", {3});
    Graph graph = g.Finish();
    Append(graph, "TopK", {x, k}, {{"values", out}, {"indices", out}},
           Attrs{{"axis", axis}, {"largest", largest}});
    Append(graph, "Cast", {"indices"}, {{"indices_f", out}}, Attrs{{"to", kFloat}});
    graph.outputs = {{"values", out}, {"indices_f", out}};
    cases.push_back({"op_" + name, "TopK", std::move(graph)});
  }

  // ---- Pooling and resizing -------------------------------------------------------------------
  {
    GraphBuilder g("op_gap");
    std::string x = g.Input("input", {kBatch, 3, 5, 5});
    add("GlobalAveragePool", "global_average_pool", g,
        g.AddNode("GlobalAveragePool", {x}, {kBatch, 3, 1, 1}));
  }
  {
    GraphBuilder g("op_gmp");
    std::string x = g.Input("input", {kBatch, 3, 5, 5});
    add("GlobalMaxPool", "global_max_pool", g, g.AddNode("GlobalMaxPool", {x}, {kBatch, 3, 1, 1}));
  }
  for (int64_t include_pad : {0, 1}) {
    GraphBuilder g("op_avgpool");
    std::string x = g.Input("input", {kBatch, 3, 8, 8});
    add("AveragePool", "average_pool_count_include_pad" + std::to_string(include_pad), g,
        g.AddNode("AveragePool", {x}, {kBatch, 3, 4, 4},
                  Attrs{{"kernel_shape", Ints{3, 3}},
                        {"strides", Ints{2, 2}},
                        {"pads", Ints{1, 1, 1, 1}},
                        {"count_include_pad", include_pad}}));
  }
  {
    GraphBuilder g("op_maxpool");
    std::string x = g.Input("input", {kBatch, 3, 8, 8});
    add("MaxPool", "max_pool", g,
        g.AddNode("MaxPool", {x}, {kBatch, 3, 4, 4},
                  Attrs{{"kernel_shape", Ints{3, 3}},
                        {"strides", Ints{2, 2}},
                        {"pads", Ints{1, 1, 1, 1}}}));
  }
  // Resize: the F.interpolate modes as the exporter writes them, and ONNX's default nearest mode.
  struct ResizeCase {
    const char* name;
    const char* mode;
    const char* ctm;
    const char* nearest;  // "" = attribute not set
    bool scales;          // scales 2x, else sizes [2, 3, 7, 9]
  };
  for (const ResizeCase& r :
       {ResizeCase{"nearest_torch", "nearest", "asymmetric", "floor", true},
        ResizeCase{"nearest_onnx_default_sizes", "nearest", "half_pixel", "", false},
        ResizeCase{"linear_pytorch_half_pixel", "linear", "pytorch_half_pixel", "", true},
        ResizeCase{"linear_align_corners_sizes", "linear", "align_corners", "", false},
        ResizeCase{"cubic_half_pixel", "cubic", "half_pixel", "", true}}) {
    GraphBuilder g(std::string("op_resize_") + r.name);
    std::string x = g.Input("input", {kBatch, 3, 4, 5});
    Attrs attrs = {{"mode", std::string(r.mode)},
                   {"coordinate_transformation_mode", std::string(r.ctm)}};
    if (*r.nearest) attrs["nearest_mode"] = std::string(r.nearest);
    if (std::string(r.mode) == "cubic") attrs["cubic_coeff_a"] = -0.75f;
    std::vector<std::string> inputs = {x, ""};
    Shape out;
    if (r.scales) {
      HostTensor scales{{4}, {1.0f, 1.0f, 2.0f, 2.0f}};
      inputs.push_back(g.Buffer("scales", scales));
      out = {kBatch, 3, 8, 10};
    } else {
      inputs.push_back("");
      inputs.push_back(g.Int64Constant("sizes", {kBatch, 3, 7, 9}));
      out = {kBatch, 3, 7, 9};
    }
    add("Resize", std::string("resize_") + r.name, g,
        g.AddNode("Resize", inputs, out, std::move(attrs)));
  }
  return cases;
}

}  // namespace ngraphbench::test_support
