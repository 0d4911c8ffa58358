"""What the fused TIR functions of a model compute in, for precision int8 (tvm_compile.py
--precision int8, on the QDQ model ONNX Runtime's quantizer made).

TVM 0.27's Relax ONNX frontend imports QuantizeLinear as relax.op.quantize and DequantizeLinear as
relax.op.dequantize (out_dtype float32), and the Conv or MatMul after a DequantizeLinear as the
float operator it is in ONNX, on the dequantized float tensor. No pass of the CPU pipeline turns
a dequantize-operator-quantize chain into an integer operator (Relay's QNN canonicalization and
FakeQuantizationToInteger have no Relax counterpart); LegalizeOps lowers quantize to a
round-and-clip and dequantize to a subtract-and-multiply in float32 (the weights' dequantize is
then folded into float32 constants by FoldConstant). Whether that holds for the
model at hand is what count_kernels reads off the fused module, not assumed: every contraction's
accumulator type, and the functions that take or make 8-bit integers.

Imported by tvm_compile.py (python puts this folder on sys.path); the C++ module's cache key
covers every tvm_*.py beside it.
"""

from tvm_schedules import _vars_in


def _blocks(func):
    """(contraction accumulator types, dtypes of every buffer read or written) of the function's
    blocks; a contraction is a reduction block reading two or more operands along the reduction
    (Conv, MatMul)."""
    from tvm import s_tir, tirx  # pylint: disable=import-outside-toplevel

    sch = s_tir.Schedule(func)
    root = sch.get_sblock(sch.mod["main"].body.block.name_hint)
    accumulators, dtypes = [], set()
    for block in sch.get_child_blocks(root):
        stmt = sch.get(block)
        dtypes |= {str(r.source.dtype) for r in list(stmt.reads) + list(stmt.writes)}
        red = {iv.var for iv in stmt.iter_vars if iv.iter_type == tirx.IterVar.CommReduce}
        if red and sum(1 for r in stmt.reads if _vars_in(r.region) & red) >= 2:
            accumulators.append(str(stmt.writes[0].source.dtype))
    return accumulators, dtypes


def count_kernels(fused_mod):
    """Over the TIR functions of `fused_mod` (after FuseTIR): int8_kernels, those with a
    contraction accumulating in integers (int8 operands, int32 sums); float_kernels, those with a
    contraction accumulating in floating point; int8_io_functions, those reading or writing 8-bit
    integers (the quantize and dequantize steps, where they are kernels of their own); and
    float_kernel_names, the float kernels' names."""
    from tvm import tirx  # pylint: disable=import-outside-toplevel

    counts = {"int8_kernels": 0, "float_kernels": 0, "int8_io_functions": 0}
    float_names = []
    for gvar, func in fused_mod.functions_items():
        if not isinstance(func, tirx.PrimFunc):
            continue
        accumulators, dtypes = _blocks(func)
        if dtypes & {"int8", "uint8"}:
            counts["int8_io_functions"] += 1
        if any("float" in t for t in accumulators):
            counts["float_kernels"] += 1
            float_names.append(gvar.name_hint)
        elif any("int" in t for t in accumulators):
            counts["int8_kernels"] += 1
    counts["float_kernel_names"] = ",".join(sorted(float_names))
    return counts
