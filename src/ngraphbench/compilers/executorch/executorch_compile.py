#!/usr/bin/env python3
"""Lowers an ONNX model to an ExecuTorch program (.pte) whose operators run in XNNPACK.

Called by src/ngraphbench/compilers/executorch/executorch_compiler.cc as a subprocess: ExecuTorch's
ahead-of-time path (torch.export, the edge dialect, the XNNPACK partitioner, the program emitter)
exists only in Python. The timed execution happens in C++ (ExecuTorch's runtime in the worker),
never here.

    executorch_compile.py --onnx M.onnx --out-dir DIR [--route onnx2torch|onnx2torch_traced|auto]
    executorch_compile.py --program P.pt2 --out-dir DIR
    ... [--calibration B0.bin B1.bin ...]   (precision int8)

The path, the one ExecuTorch documents for XNNPACK:

1. ONNX -> torch.nn.Module (onnx2torch) -> torch.export with static shapes, exactly as
   inductor_compile.py does it (its functions are imported from the inductor folder beside this
   one, so both compile the same module: the benchmark's own weights, the same static-shape
   rewrites of onnx2torch's Reshape/Expand/Slice/... modules). A model given as PyTorch code
   (--program) is its own torch.export program.
   The route (--route, the C++ module's option `route`) says how the module becomes a program:
   onnx2torch: torch.export of the module, as above; onnx2torch_traced: the module traced with
   torch.jit.trace on the example inputs, then PyTorch's TorchScript-to-ExportedProgram converter
   with static shapes (inductor_compile.torchscript_to_program). Tracing runs the module, so
   every value an onnx2torch module reads from a constant operand at run time (Resize's sizes or
   scales, which torch.export cannot guard on: GuardOnDataDependentSymNode in timm's
   ghostnetv2_100) is fixed in the trace; a value read from the input would be fixed too, which
   the worker's output check would catch. auto: onnx2torch, and where its export or lowering
   fails, onnx2torch_traced; meta.json records the module that was lowered and why the first
   failed.
2. executorch.exir.to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()]):
   the edge dialect, with every subgraph that XNNPACK supports replaced by a call to the XNNPACK
   delegate. What XNNPACK does not take stays as edge operators, which the runtime executes
   with its CPU kernels (portable and optimized kernel libraries).
   Precision int8 (--calibration): before this step the program is quantized by PyTorch's PT2E
   flow (inductor_compile.quantize_pt2e) with ExecuTorch's XNNPACK quantizer,
   get_symmetric_quantization_config(is_per_channel=True): weights int8, symmetric, one scale
   per output channel; activations int8, asymmetric, one scale and zero point per tensor,
   histogram observers; calibrated on the batches the worker drew. The partitioner then takes
   each quantize/dequantize pair with the operator between them as one of XNNPACK's integer
   operators (qs8/qc8); meta.json's `xnnpack_qdq_ops` and `portable_qdq_ops` say where the
   quantize/dequantize operators went.
3. .to_executorch(): memory planning (without the inputs, see compile_program) and the
   program's flatbuffer, written to DIR/model.pte.

meta.json (written last, atomically: its presence marks a complete cache entry) counts what
XNNPACK took, with executorch.devtools.backend_debug.get_delegation_info on the lowered graph:
`delegated_ops` (operators inside XNNPACK subgraphs), `non_delegated_ops` (operators left to
the runtime's kernels, by name in `non_delegated_by_op`) and `delegate_calls` (XNNPACK
subgraphs). The C++ side reports their fraction and marks the run degraded when anything was
left outside XNNPACK.

The XNNPACK thread count is not compiled in: the runtime's thread pool is sized in the worker,
so a .pte serves every thread count.
"""

import argparse
import collections
import importlib.metadata
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# inductor_compile.py: the ONNX -> torch.export path both compilers share (see the top).
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "inductor"))


def log(message):
    print(f"executorch_compile: {message}", file=sys.stderr, flush=True)


def write_json_atomic(path, data):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    os.replace(tmp, path)


def delegation(edge_program, meta):
    """Counts the operators XNNPACK took and those it left (see the top) into meta."""
    from executorch.devtools.backend_debug import get_delegation_info  # pylint: disable=import-outside-toplevel

    graph_module = edge_program.exported_program().graph_module
    info = get_delegation_info(graph_module)
    # getitem only picks one result of a tuple (a delegate call's outputs): no kernel runs for
    # it, so it is neither XNNPACK's work nor left outside it.
    delegated, left = 0, collections.Counter()
    for op, counts in info.delegation_by_operator.items():
        if op == "getitem":
            continue
        delegated += int(counts.delegated)
        if counts.non_delegated > 0:
            left[op] += int(counts.non_delegated)
    meta["delegated_ops"] = delegated
    meta["non_delegated_ops"] = sum(left.values())
    meta["delegate_calls"] = int(info.num_delegated_subgraphs)
    meta["non_delegated_by_op"] = dict(sorted(left.items()))
    quantized = [c for op, c in info.delegation_by_operator.items()
                 if op.startswith("quantized_decomposed_")]
    meta["xnnpack_qdq_ops"] = sum(int(c.delegated) for c in quantized)
    meta["portable_qdq_ops"] = sum(int(c.non_delegated) for c in quantized)


# What quantize() does (docs/compilers.md, Quantization).
XNNPACK_SCHEME = "pt2e:xnnpack:w=int8/per_channel/symmetric,a=int8/per_tensor/asymmetric,histogram"


def quantize(exported, calibration, torch, meta):
    """Precision int8: the program quantized by PT2E with the XNNPACK quantizer (see the top);
    the program as it is without calibration files."""
    if not calibration:
        return exported
    import inductor_compile  # pylint: disable=import-outside-toplevel,import-error
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (  # pylint: disable=import-outside-toplevel
        XNNPACKQuantizer, get_symmetric_quantization_config)

    quantizer = XNNPACKQuantizer()
    config = get_symmetric_quantization_config(is_per_channel=True)
    # A model with attention (a softmax): its linear layers and convolutions only; XNNPACK's
    # quantized additions and multiplications on the residual stream cost deit_small 15 dB of
    # signal-to-noise to fp32's outputs (docs/compilers.md, Quantization).
    attention = any(node.op == "call_function" and "softmax" in str(node.target)
                    for node in exported.graph.nodes)
    if attention:
        quantizer.set_operator_type(torch.ops.aten.linear.default, config)
        quantizer.set_operator_type(torch.ops.aten.conv2d.default, config)
    else:
        quantizer.set_global(config)
    program = inductor_compile.quantize_pt2e(exported, calibration, quantizer, "XNNPACK", torch,
                                             meta)
    meta["quantization"] = XNNPACK_SCHEME + (",attention:linear_conv_only" if attention else "")
    return program


def lower(exported, meta):
    """The edge dialect with XNNPACK's subgraphs delegated (step 2 above)."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import (  # pylint: disable=import-outside-toplevel
        XnnpackPartitioner)
    from executorch.exir import to_edge_transform_and_lower  # pylint: disable=import-outside-toplevel

    start = time.monotonic()
    edge = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()])
    meta["lower_s"] = time.monotonic() - start
    delegation(edge, meta)
    return edge


def lower_onnx(path, route, calibration, torch, meta):
    """ONNX -> onnx2torch's module -> a program by `route` (see the top) -> lowered."""
    import inductor_compile  # pylint: disable=import-outside-toplevel,import-error

    meta["onnx2torch_version"] = importlib.metadata.version("onnx2torch")
    module, inputs = inductor_compile.convert_onnx(
        path, inductor_compile.import_onnx2torch(torch), torch, meta)
    if route != "onnx2torch_traced":
        try:
            start = time.monotonic()
            with torch.no_grad():
                exported = torch.export.export(module, inputs, strict=False)
            meta["export_s"] = time.monotonic() - start
            edge = lower(quantize(exported, calibration, torch, meta), meta)
            meta["module"] = "onnx2torch"
            return edge
        except Exception as e:  # pylint: disable=broad-except
            if route != "auto":
                raise
            meta["onnx2torch_failed"] = (f"{type(e).__name__}: "
                                         f"{inductor_compile.first_line(str(e))}")
            log(f"exporting or lowering onnx2torch's module failed "
                f"({meta['onnx2torch_failed']}); tracing the module")
    start = time.monotonic()
    with torch.no_grad():
        traced = torch.jit.trace(module, inputs, check_trace=False)
    exported = inductor_compile.torchscript_to_program(traced, inputs, torch)
    meta["export_s"] = time.monotonic() - start
    meta["module"] = "onnx2torch_traced"
    return lower(quantize(exported, calibration, torch, meta), meta)


def compile_program(args):
    import torch  # pylint: disable=import-outside-toplevel
    from executorch.exir import ExecutorchBackendConfig  # pylint: disable=import-outside-toplevel
    from executorch.exir.passes import MemoryPlanningPass  # pylint: disable=import-outside-toplevel

    os.makedirs(args.out_dir, exist_ok=True)
    meta = {
        "torch_version": torch.__version__,
        "executorch_version": importlib.metadata.version("executorch"),
        "route": args.route,
    }
    if args.program:
        start = time.monotonic()
        exported = torch.export.load(args.program)
        meta["export_s"] = time.monotonic() - start
        meta["module"] = "torch.export"
        edge = lower(quantize(exported, args.calibration, torch, meta), meta)
    else:
        edge = lower_onnx(args.onnx, args.route, args.calibration, torch, meta)

    # The inputs stay out of the memory plan (alloc_graph_input=False): a planned input's
    # buffer is free for reuse once its last reader has run, so a later subgraph may overwrite
    # it, and a second execute() without new inputs (every timed run after the first) would
    # compute on garbage (mha_block: 2.3 off). Unplanned, the runtime reads the worker's own
    # input buffers, which nothing in the program writes.
    start = time.monotonic()
    program = edge.to_executorch(ExecutorchBackendConfig(
        memory_planning_pass=MemoryPlanningPass(alloc_graph_input=False)))
    meta["emit_s"] = time.monotonic() - start
    # Written under a scratch name and renamed: the C++ side commits the whole entry folder
    # only once meta.json is there, but a partial .pte must never look complete either.
    path = os.path.join(args.out_dir, "model.pte")
    with open(path + ".tmp", "wb") as f:
        program.write_to_file(f)
    os.replace(path + ".tmp", path)
    meta["pte_bytes"] = os.path.getsize(path)
    write_json_atomic(os.path.join(args.out_dir, "meta.json"), meta)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--onnx", help="the model (ONNX ModelProto file)")
    source.add_argument("--program", help="a model given as PyTorch code: its torch.export "
                        "program (torch.export.save), lowered as it is")
    parser.add_argument("--out-dir", required=True, help="cache entry: model.pte and meta.json")
    parser.add_argument("--route", default="onnx2torch",
                        choices=["onnx2torch", "onnx2torch_traced", "auto"],
                        help="with --onnx: how onnx2torch's module becomes a program (see the top)")
    parser.add_argument("--calibration", nargs="+", default=[],
                        help="precision int8: tensor files, one calibration batch each; the "
                        "program is quantized with the XNNPACK quantizer (PT2E) first")
    compile_program(parser.parse_args())
    return 0


if __name__ == "__main__":
    # python/script_exit.py, on the PYTHONPATH the worker gives this script: exit 1 on an error,
    # 74 when the storage failed (a full disk is not the compiler's failure).
    import script_exit  # pylint: disable=import-error

    script_exit.run_main(main, "executorch_compile")
