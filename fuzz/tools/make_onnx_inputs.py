"""Writes the ONNX fuzz target's seeds from real exporters and its hand-made regressions.

    .venv/bin/python fuzz/tools/make_onnx_inputs.py

Seeds (fuzz/corpus/onnx/torch_*.onnx): small PyTorch modules as torch.onnx.export writes them,
once with the TorchScript exporter and once with the torch.export-based one (dynamo=True), both
at opset 17 with a dynamic batch axis: the shapes of real exports (Shape/Gather/Concat shape
arithmetic, BatchNorm folded or not, attention as MatMul/Softmax) for libFuzzer to mutate.

Regressions (fuzz/regressions/onnx/): models that must be refused with a clear error. Inputs
whose declared shape breaks a ceiling or whose working set no machine has, and Conv/pooling
nodes whose attributes disagree with their weight or input.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "corpus", "onnx")
REGRESSIONS = os.path.join(HERE, "..", "regressions", "onnx")


def conv_model(input_dims, weight_dims=(16, 16, 3, 3), op="Conv", **attrs):
    """One node on one input; a Conv reads a weight of `weight_dims`."""
    inits, inputs = [], ["x"]
    if op in ("Conv", "ConvTranspose"):
        w = np.full(weight_dims, 0.01, dtype=np.float32)
        inits.append(numpy_helper.from_array(w, "w"))
        inputs.append("w")
    node = helper.make_node(op, inputs, ["y"], name="node0", **attrs)
    graph = helper.make_graph(
        [node], "hostile",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(input_dims))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def write_regressions():
    cases = {
        # Declared inputs over the configs' ceilings: batch <= 65536, 2^28 elements a sample.
        "input_batch_2e32.onnx": conv_model([4294967296, 16, 56, 56]),
        "input_batch_100000.onnx": conv_model([100000, 16, 56, 56]),
        "input_sample_16x65536x65536.onnx": conv_model([1, 16, 65536, 65536]),
        # Within both ceilings, but a terabyte of input: over any machine's working set.
        "input_working_set_1tib.onnx": conv_model([65536, 1024, 64, 64], (1, 1024, 1, 1)),
        # Attributes that disagree with the weight or the input.
        "conv_kernel_shape_3x3_weight_5x5.onnx":
            conv_model([1, 16, 56, 56], (16, 16, 5, 5), kernel_shape=[3, 3]),
        "conv_kernel_shape_3x3_weight_1x1.onnx":
            conv_model([1, 16, 56, 56], (16, 16, 1, 1), kernel_shape=[3, 3]),
        "conv_same_upper_with_pads.onnx":
            conv_model([1, 16, 56, 56], auto_pad="SAME_UPPER", pads=[1, 1, 1, 1]),
        "conv_dilation_beyond_input.onnx": conv_model([1, 16, 8, 8], dilations=[5, 5]),
        "maxpool_pad_not_smaller_than_window.onnx":
            conv_model([1, 16, 8, 8], op="MaxPool", kernel_shape=[2, 2], pads=[2, 2, 2, 2]),
    }
    for name, model in cases.items():
        onnx.save(model, os.path.join(REGRESSIONS, name))


def write_seeds():
    import torch
    from torch import nn

    class ConvBnRelu(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(
                nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                nn.MaxPool2d(2), nn.Conv2d(8, 8, 3, stride=2, groups=2, dilation=1),
                nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))

        def forward(self, x):
            return self.body(x)

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = nn.LayerNorm(16)
            self.attn = nn.MultiheadAttention(16, 2, batch_first=True)
            self.mlp = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 16))

        def forward(self, x):
            h = self.norm(x)
            x = x + self.attn(h, h, h, need_weights=False)[0]
            return x + self.mlp(x)

    torch.manual_seed(0)
    for name, module, sample in [("conv_bn_relu", ConvBnRelu(), torch.randn(2, 3, 16, 16)),
                                 ("attention", Attention(), torch.randn(2, 5, 16))]:
        module.eval()
        for dynamo in (False, True):
            path = os.path.join(CORPUS, f"torch_{name}_{'dynamo' if dynamo else 'torchscript'}.onnx")
            torch.onnx.export(module, (sample,), path, opset_version=17, dynamo=dynamo,
                              input_names=["x"], output_names=["y"],
                              dynamic_axes=None if dynamo else {"x": {0: "batch"}},
                              dynamic_shapes=({0: torch.export.Dim("batch")},) if dynamo else None,
                              external_data=False)
            # One file: the exporter may leave external data beside it for larger models.
            onnx.save(onnx.load(path), path)


if __name__ == "__main__":
    write_regressions()
    if "--regressions-only" not in sys.argv:
        write_seeds()
