"""Post-training quantization of an ONNX model with NNCF for the `openvino` compiler's precision
int8 (src/ngraphbench/compilers/openvino/openvino_compiler.cc runs it in a helper process and
compiles the model it writes).

The scheme (docs/compilers.md, Quantization): nncf.quantize with its defaults for a CPU target
(preset PERFORMANCE: weights int8, symmetric, per output channel; activations int8/uint8,
symmetric, per tensor), calibrated on the worker's calibration batches (core/tensor.h,
CalibrationSeed), each a file in the output check's tensor format (measure/check.h), one tensor
per model input in the graph's input order. Writes <out-dir>/quantized.xml and .bin (OpenVINO IR,
FakeQuantize nodes that the CPU plugin runs as integer kernels) and, last, <out-dir>/meta.json.
A model with attention (a Softmax) has its elementwise operators, normalizations and Softmax
left in floating point (an ignored scope of those op types), its convolutions and matrix
products quantized: NNCF's defaults cost deit_small 12 dB of signal-to-noise to fp32's outputs,
its transformer model type still 4 dB more than this (docs/compilers.md, Quantization).
"""
import argparse
import json
import os
import time

from script_exit import run_main
from tensor_file import read_tensor_file


# The OpenVINO op types a model with attention keeps in floating point: everything NNCF would
# quantize but its convolutions and matrix products.
FLOAT_IN_ATTENTION_MODELS = ["Add", "Subtract", "Multiply", "Divide", "Power", "Sqrt", "Erf",
                             "Gelu", "Softmax", "MVN", "NormalizeL2", "ReduceMean", "Concat",
                             "Gather"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--onnx", required=True)
    p.add_argument("--out-dir", required=True)
    p.add_argument("--calibration", nargs="+", required=True)
    args = p.parse_args()

    import nncf
    import openvino as ov

    model = ov.Core().read_model(args.onnx)
    batches = [read_tensor_file(path) for path in args.calibration]
    n_inputs = len(model.inputs)
    for path, batch in zip(args.calibration, batches):
        if len(batch) != n_inputs:
            raise ValueError(f"{path}: {len(batch)} tensors, the model has {n_inputs} inputs")
    # Attention: convolutions and matrix products only (see the top).
    attention = any(op.get_type_name() == "Softmax" for op in model.get_ops())
    scope = {}
    if attention:
        scope["ignored_scope"] = nncf.IgnoredScope(types=FLOAT_IN_ATTENTION_MODELS, validate=False)
    start = time.perf_counter()
    quantized = nncf.quantize(model, nncf.Dataset(batches, lambda batch: tuple(batch)),
                              subset_size=len(batches), **scope)
    ov.save_model(quantized, os.path.join(args.out_dir, "quantized.xml"), compress_to_fp16=False)
    fake_quantize = sum(1 for op in quantized.get_ops() if op.get_type_name() == "FakeQuantize")
    meta = {
        "scheme": "nncf:preset=performance,w=int8/per_channel/symmetric,a=per_tensor" +
                  (",attention:conv_matmul_only" if attention else ""),
        "calibration_batches": len(batches),
        "quantize_s": time.perf_counter() - start,
        "fake_quantize": fake_quantize,
        "nncf": nncf.__version__,
    }
    tmp = os.path.join(args.out_dir, "meta.json.tmp")
    with open(tmp, "w") as f:
        json.dump(meta, f)
    os.replace(tmp, os.path.join(args.out_dir, "meta.json"))
    return 0


if __name__ == "__main__":
    run_main(main, "openvino quantize")
