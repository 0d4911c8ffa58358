"""Static post-training quantization of an ONNX model for the `onnxruntime` compiler's
precision int8 (src/ngraphbench/compilers/onnxruntime/ort_compiler.cc runs it in a helper
process and loads the model it writes).

The scheme (docs/compilers.md, Quantization): onnxruntime.quantization.quantize_static in the
QDQ format; weights int8, symmetric, one scale per output channel; activations uint8, asymmetric,
one scale and zero point per tensor, calibrated with MinMax over the calibration batches the
worker drew (core/tensor.h, CalibrationSeed: never the run's checked inputs). Each calibration
file holds one batch of every model input in the graph's input order, in the output check's
tensor file format (measure/check.h: "NGBTENS1", a uint64 count, per tensor a uint64 rank, int64
dims and float32 data, little-endian).

With --activations int8_symmetric the activations are int8 with a zero point of 0 instead (the
tensorrt compiler's variant: TensorRT takes symmetric int8 Q/DQ only); weights and calibration
as above.
A model with attention (a Softmax node) has only its layers with weights quantized: Conv, Gemm
and the MatMuls with an initializer operand. Its elementwise operators, normalizations, Softmax
and the products of two activations (attention's scores and their weighting of the values) stay
float: quantized per tensor they cost deit_small 15 dB of signal-to-noise (cosine 0.94 against
0.998 to fp32's outputs), the residual additions most of it (docs/compilers.md, Quantization).

Then the census of what ONNX Runtime runs of the quantized model (docs/compilers.md,
Quantization): for each graph optimization level, the op types of the graph a CPU session
optimizes it to (SessionOptions.optimized_model_filepath), written to a temporary file and
counted; the worker picks the run's level (compilers/quantize_common/int8_census.h says which op
types are integer kernels). The graph transformations ONNX Runtime picks may depend on the CPU
(the cache entry is this machine's, as the quantized model's calibration is not).

Writes <out-dir>/quantized.onnx and, last, <out-dir>/meta.json.
"""
import argparse
import json
import os
import sys
import time

from script_exit import run_main
from tensor_file import read_tensor_file

# The worker's opt_level names (onnxruntime's compiler.yaml) and ONNX Runtime's levels.
OPT_LEVELS = {
    "disable": "ORT_DISABLE_ALL",
    "basic": "ORT_ENABLE_BASIC",
    "extended": "ORT_ENABLE_EXTENDED",
    "all": "ORT_ENABLE_ALL",
}


def optimized_op_types(onnxruntime, onnx, model_path, out_dir):
    """{level: {op type: count}} of the CPU session's optimized graph at each level."""
    census = {}
    for name, level in OPT_LEVELS.items():
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = getattr(onnxruntime.GraphOptimizationLevel, level)
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only: level all warns that its graph is the CPU's
        path = os.path.join(out_dir, f"optimized-{name}.onnx.tmp")
        options.optimized_model_filepath = path
        try:
            onnxruntime.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
            ops = {}
            for node in onnx.load(path, load_external_data=False).graph.node:
                ops[node.op_type] = ops.get(node.op_type, 0) + 1
            census[name] = ops
        finally:
            if os.path.exists(path):
                os.remove(path)
    return census


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--onnx", required=True)
    p.add_argument("--out-dir", required=True)
    p.add_argument("--calibration", nargs="+", required=True,
                   help="tensor files, one calibration batch each")
    p.add_argument("--activations", choices=["uint8_asymmetric", "int8_symmetric"],
                   default="uint8_asymmetric")
    args = p.parse_args()
    symmetric = args.activations == "int8_symmetric"

    import onnx
    import onnxruntime
    from onnxruntime import quantization as q

    model = onnx.load(args.onnx, load_external_data=False)
    initializers = {i.name for i in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in initializers]
    batches = [read_tensor_file(path) for path in args.calibration]
    for path, batch in zip(args.calibration, batches):
        if len(batch) != len(names):
            raise ValueError(f"{path}: {len(batch)} tensors, the model has {len(names)} inputs")

    class Reader(q.CalibrationDataReader):
        def __init__(self):
            self.it = iter(batches)

        def get_next(self):
            batch = next(self.it, None)
            return None if batch is None else dict(zip(names, batch))

    # Attention: the layers with weights only (see the top).
    attention = any(node.op_type == "Softmax" for node in model.graph.node)
    scope = {}
    if attention:
        scope["op_types_to_quantize"] = ["Conv", "Gemm", "MatMul"]
        scope["nodes_to_exclude"] = [
            node.name for node in model.graph.node
            if node.op_type == "MatMul" and not any(i in initializers for i in node.input)]
    start = time.perf_counter()
    out = os.path.join(args.out_dir, "quantized.onnx")
    # quant_pre_process (shape inference and the optimizer's folding) is left out: the model is
    # quantized as exported, so that int8 and fp32 rows run the same graph.
    q.quantize_static(
        args.onnx, out, Reader(),
        quant_format=q.QuantFormat.QDQ,
        per_channel=True,
        weight_type=q.QuantType.QInt8,
        activation_type=q.QuantType.QInt8 if symmetric else q.QuantType.QUInt8,
        calibrate_method=q.CalibrationMethod.MinMax,
        extra_options={"WeightSymmetric": True, "ActivationSymmetric": symmetric},
        **scope,
    )
    quantize_s = time.perf_counter() - start
    quantized = onnx.load(out, load_external_data=False)
    ops = {}
    for node in quantized.graph.node:
        ops[node.op_type] = ops.get(node.op_type, 0) + 1
    meta = {
        "scheme": "qdq:w=int8/per_channel/symmetric,a=" +
                  ("int8/per_tensor/symmetric" if symmetric else "uint8/per_tensor/asymmetric") +
                  ",minmax" + (",attention:weight_layers_only" if attention else ""),
        "calibration_batches": len(batches),
        "quantize_s": quantize_s,
        "quantize_linear": ops.get("QuantizeLinear", 0),
        "dequantize_linear": ops.get("DequantizeLinear", 0),
        "onnxruntime": onnxruntime.__version__,
    }
    # A census that fails (a model too large to save as one protobuf) leaves the int8 run
    # without one, which the worker says, rather than failing the quantization.
    start = time.perf_counter()
    try:
        meta["optimized_ops"] = optimized_op_types(onnxruntime, onnx, out, args.out_dir)
    except Exception as e:  # noqa: BLE001 (any failure of the SDK's)
        meta["optimized_ops_error"] = f"{type(e).__name__}: {e}"[:300]
    meta["census_s"] = time.perf_counter() - start
    tmp = os.path.join(args.out_dir, "meta.json.tmp")
    with open(tmp, "w") as f:
        json.dump(meta, f)
    os.replace(tmp, os.path.join(args.out_dir, "meta.json"))
    return 0


if __name__ == "__main__":
    run_main(main, "onnxruntime quantize")
