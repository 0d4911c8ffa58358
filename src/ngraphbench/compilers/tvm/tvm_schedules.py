"""The default CPU schedules that tvm_compile.py gives TIR functions without a tuning record
(default_schedule, a module pass; the rules and their reasons are described below).

Imported by tvm_compile.py, which runs as a script: python puts this folder on sys.path. The C++
module's cache key covers every tvm_*.py beside it, so a changed schedule is a new build, never a
stale cached one.
"""

import contextlib
import math
import sys


# Also tvm_compile.py's (it imports them from here): log lines go to the compile log, whose last
# line the C++ module quotes in its CompileError.
def log(message):
    print(f"tvm_compile: {message}", file=sys.stderr, flush=True)


def last_line(text):
    """One line of an error for the row's settings, which are ';'-separated key=value pairs."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return (lines[-1].strip() if lines else "").replace(";", ",")[:300]


# --- The default CPU schedule of untuned functions -------------------------------------------
#
# TVM 0.27 has no default CPU schedule for convolutions and matrix products (dlight's CPU rules
# cover GEMV and softmax-like reductions; there is no BYOC library in the wheel), so untuned they
# run as plain scalar loops, 30-60x slower than after a short tuning. Instead each TIR function
# that no tuning record scheduled gets one fixed, measurement-free schedule:
#   - a contraction (one reduction block, two operands read along the reduction: Conv, MatMul):
#     a register tile of at most _VECTORS_MAX vectors along the output's contiguous axis times at
#     most _TILE_MAX x _TILE_MAX rows along axes that reuse an operand, accumulated in registers,
#     outer tiles fused and parallel, the elementwise epilogue computed from the accumulators;
#     odd sizes (197 tokens) are padded (pad_einsum) rather than losing the vector or the tile;
#   - dlight's CPU Reduction rule (softmax, normalizations) where it applies; a reduction over
#     a whole sample or over many values instead gets parallel partial sums (schedule_partial_sums);
#   - injective functions: producers inlined, outer loops fused and parallel, inner vectorized.
# A function whose schedule raises keeps TVM's loops (logged). The constants were chosen on
# conv_blocks and mha_blocks shapes on a 2-core AVX-512 CPU, where conv_blocks w64 d4 b8 ran in
# 70 ms untuned against 125 ms after 64 MetaSchedule trials.
_VECTORS_MAX = 2
_TILE_MAX = 4


def schedule_func(func, target):
    """The default schedule of one PrimFunc (a traced s_tir.Schedule of it), or None where no rule
    applies; raises where a rule fails."""
    # Not dlight's CPU GEMV rule: it vectorizes 128 lanes around the reduction loop, and LLVM took
    # over 10 minutes on one such function of efficientnet_b0 (a squeeze-excitation 1x1 Conv).
    for rule in (schedule_contraction, schedule_reduction, schedule_injective_func):
        sch = rule(func, target, False)
        if isinstance(sch, list):
            sch = sch[0]
        if sch is not None:
            return sch
    return None


def default_schedule(target, unscheduled):
    """A module pass that schedules every PrimFunc not yet marked scheduled; the names of those
    left with TVM's loops are appended to `unscheduled`."""
    import tvm  # pylint: disable=import-outside-toplevel
    from tvm import tirx  # pylint: disable=import-outside-toplevel

    @tvm.transform.module_pass(opt_level=0, name="NgraphbenchDefaultSchedule")
    def schedule(mod, _ctx):
        updated = {}
        for gvar, func in mod.functions_items():
            if not isinstance(func, tirx.PrimFunc) or func.attrs.get("tirx.is_scheduled", False):
                continue
            try:
                sch = schedule_func(func, target)
            except Exception as e:  # pylint: disable=broad-except
                log(f"{gvar.name_hint}: no default schedule ({type(e).__name__}: "
                    f"{last_line(str(e))})")
                unscheduled.append(gvar.name_hint)
                continue
            if sch is not None:
                updated[gvar] = sch.mod["main"].with_attr("tirx.is_scheduled", True)
        for gvar, func in updated.items():
            mod[gvar] = func
        return mod

    return schedule


def schedule_reduction(func, target, tunable=False):
    """dlight's CPU Reduction rule (softmax, normalizations), only where its premise holds.

    The rule parallelizes the leading spatial loops of the last block and computes every earlier
    block under them, assuming all blocks share those axes (a norm over the last axis: one row
    per iteration). It does not check that. A GroupNorm with one group (a mean over a whole
    sample's C*H*W values, broadcast back over them) has a reduction with a unit leading axis and
    an epilogue whose leading axis is the C*H*W values: the rule recomputes the whole sum once per
    value, quadratic (poolformer: ~4e10 additions per inference, minutes), and every parallel
    iteration writes the one shared accumulator, a data race. A function where a reduction does
    not span the last block's leading axes, or one that sums many values per output, gets
    schedule_partial_sums instead."""
    from tvm import s_tir, tirx  # pylint: disable=import-outside-toplevel
    from tvm.s_tir import dlight as dl  # pylint: disable=import-outside-toplevel
    from tvm.s_tir.dlight.analysis import (  # pylint: disable=import-outside-toplevel
        normalize_prim_func,
    )

    infos = normalize_prim_func(s_tir.Schedule(func))
    if not infos:
        return None
    leading = min(len(bi.dom_kind()) - len(bi.dom_kind().lstrip("S")) for bi in infos)

    def axes(info):
        return [str(d) for d in info.dom()[:leading]]

    def reduced(info):
        doms = [d for d, k in zip(info.dom(), info.dom_kind()) if k == "R"]
        if not all(isinstance(d, (int, tirx.IntImm)) for d in doms):
            return 0  # a symbolic extent
        return math.prod(int(d) for d in doms)

    # Producers that differ are fine: a zero padding (58x58 under a 56x56 pooling) computes only
    # the window each iteration needs, a scalar (the mean's division by n) is cheap to repeat.
    mismatch = any(not bi.is_injective() and axes(bi) != axes(infos[-1]) for bi in infos)
    if mismatch or any(not bi.is_injective() and reduced(bi) >= _PARTIAL_LONG for bi in infos):
        try:
            sch = schedule_partial_sums(func, target)
        except Exception as e:  # pylint: disable=broad-except
            log(f"partial sums not applied ({type(e).__name__}: {last_line(str(e))})")
            sch = None
        if sch is not None:
            return sch
        if mismatch:
            return None  # TVM's loops: correct, serial
    return dl.cpu.Reduction().apply(func, target, tunable)


# A whole-sample reduction (GroupNorm with one group: a mean and a variance over C*H*W, up to
# ~200k values) as one fp32 running sum loses accuracy with the count: ONNX Runtime, which sums
# in blocks, differed from it by over 1e-4 relative on poolformer. Splitting the sum into about
# _PARTIAL_SUMS partial sums of at least _PARTIAL_MIN values each, which are then added, bounds
# the error like a two-level pairwise sum, and the partial sums run in parallel.
# The same applies to a reduction of at least _PARTIAL_LONG values whose axes do match (that
# GroupNorm's variance, a function of its own), which the Reduction rule would sum serially too.
_PARTIAL_SUMS = 256
_PARTIAL_MIN = 64
_PARTIAL_LONG = _PARTIAL_SUMS * _PARTIAL_MIN


def schedule_partial_sums(func, target):
    """Each reduction block's reduction loops fused, split and rfactored into partial sums (one
    parallel loop over the leading axes and the parts); the elementwise blocks inlined where they
    can be, the rest parallel and vectorized. None where a function does not fit the pattern."""
    from tvm import tirx  # pylint: disable=import-outside-toplevel

    opened = _open(func, target)
    if opened is None:
        return None
    sch, root, blocks, lanes = opened
    names = [sch.get(b).name_hint for b in blocks]
    outputs = {sch.get(b).name_hint for b in sch.get_output_blocks(root)}
    reductions = [n for n, b in zip(names, blocks) if _reduction_vars(sch, b)]
    if not reductions:
        return None

    def size(block):
        return math.prod(int(e) for e in sch.get(block).writes[0].source.shape)

    # A producer smaller than the output (a softmax's exponentials over 4x256 values scaling 64
    # channels) stays a stage of its own: inlined, it would be recomputed for every channel.
    largest = max(size(b) for b in blocks if sch.get(b).name_hint in outputs)
    for n, b in zip(names, blocks):
        if n not in reductions and n not in outputs and size(b) >= largest:
            with contextlib.suppress(Exception):
                sch.compute_inline(sch.get_sblock(n))
    for n in reductions:
        block = sch.get_sblock(n)
        ivs, loops, extents = _loop_nest(sch, block)
        kinds = [iv.iter_type for iv in ivs]
        first = next(i for i, k in enumerate(kinds) if k == tirx.IterVar.CommReduce)
        if any(k != tirx.IterVar.DataPar for k in kinds[:first]) or any(
                k != tirx.IterVar.CommReduce for k in kinds[first:]):
            raise ValueError("reduction loops are not the innermost")
        total = math.prod(extents[first:])
        limit = min(_PARTIAL_SUMS, total // _PARTIAL_MIN)
        if limit <= 1:
            continue  # short: one sum
        parts = _largest_divisor(total, limit)
        k = sch.fuse(*loops[first:]) if len(loops) - first > 1 else loops[first]
        if parts < limit // 4:
            # Few divisors (a prime count): equal parts, the last one shorter (never empty: an
            # empty part's block would not run, and its partial sum would stay uninitialized).
            outer, _ = sch.split(k, [None, -(-total // limit)])
        else:
            outer, _ = sch.split(k, [parts, None])
        partial = sch.rfactor(outer, 0)
        sch.parallel(sch.fuse(*sch.get_loops(partial)[:first + 1]))
    for b in sch.get_child_blocks(root):
        if not _reduction_vars(sch, b):
            _schedule_injective_block(sch, b, lanes)
    return sch


def _largest_divisor(n, limit):
    return max(d for d in range(1, min(n, limit) + 1) if n % d == 0)


def _loop_extents(sch, loops):
    from tvm import tirx  # pylint: disable=import-outside-toplevel

    extents = [sch.get(loop).extent for loop in loops]
    if not all(isinstance(e, tirx.IntImm) for e in extents):
        raise ValueError("a loop extent is not a constant")
    return [int(e) for e in extents]


def _vars_in(region):
    # pylint: disable-next=import-outside-toplevel
    from tvm.s_tir.dlight.analysis.common_analysis import collect_vars_used_in_prim_expr

    found = set()
    for r in region:
        found |= collect_vars_used_in_prim_expr(r.min)
    return found


def _reduction_vars(sch, block):
    from tvm import tirx  # pylint: disable=import-outside-toplevel

    return {iv.var for iv in sch.get(block).iter_vars if iv.iter_type == tirx.IterVar.CommReduce}


def _open(func, target):
    """(schedule, root block, its child blocks, vector lanes), or None for nested blocks."""
    from tvm import s_tir  # pylint: disable=import-outside-toplevel
    from tvm.target.codegen import llvm_get_vector_width  # pylint: disable=import-outside-toplevel

    sch = s_tir.Schedule(func)
    root = sch.get_sblock(sch.mod["main"].body.block.name_hint)
    blocks = sch.get_child_blocks(root)
    if not blocks or any(sch.get_child_blocks(b) for b in blocks):
        return None
    bits = max(8, sch.get(blocks[-1]).writes[0].source.dtype.bits)
    lanes = max(4, llvm_get_vector_width(target) // bits)
    return sch, root, blocks, lanes


def _schedule_injective_block(sch, block, lanes):
    loops = sch.get_loops(block)
    extent = _loop_extents(sch, loops)[-1]
    inner, outer = loops[-1], loops[:-1]
    if extent > 4 * lanes:
        o, inner = sch.split(inner, [None, lanes])
        outer = outer + [o]
    if outer:
        sch.parallel(sch.fuse(*outer) if len(outer) > 1 else outer[0])
    if extent > 1:
        sch.vectorize(inner)


def schedule_injective_func(func, target, _tunable=False):
    opened = _open(func, target)
    if opened is None:
        return None
    sch, root, blocks, lanes = opened
    if any(_reduction_vars(sch, b) for b in blocks):
        return None
    outputs = {sch.get(b).name_hint for b in sch.get_output_blocks(root)}
    for b in blocks:
        if sch.get(b).name_hint not in outputs:
            with contextlib.suppress(Exception):
                sch.compute_inline(b)
    for b in sch.get_child_blocks(root):
        _schedule_injective_block(sch, b, lanes)
    return sch


def schedule_contraction(func, target, _tunable=False):
    opened = _open(func, target)
    if opened is None:
        return None
    sch, root, blocks, lanes = opened
    reductions = [b for b in blocks if _reduction_vars(sch, b)]
    if len(reductions) != 1:
        return None
    main = reductions[0]
    red = _reduction_vars(sch, main)
    if sum(1 for r in sch.get(main).reads if _vars_in(r.region) & red) < 2:
        return None  # one operand (a sum or a maximum): not a contraction
    _tile_contraction(sch, root, main, lanes)
    return sch


def _loop_nest(sch, block):
    ivs = list(sch.get(block).iter_vars)
    loops = sch.get_loops(block)
    if len(loops) != len(ivs):
        raise ValueError("the block's loops do not match its iterators")
    return ivs, loops, _loop_extents(sch, loops)


def _register_tile(stmt, ivs, extents, spatial, lanes):
    """(vector axis, {iterator index: tile size}); a size need not divide its extent (padding)."""
    accumulators_max = 16 if lanes * stmt.writes[0].source.dtype.bits >= 512 else 8
    last = stmt.writes[0].region[-1].min
    vec = next((i for i in spatial if ivs[i].var.same_as(last)), None)
    if vec is None:
        vec = [i for i in spatial if extents[i] > 1][-1]
    n = extents[vec]
    if n <= lanes:
        width = n
    elif n % lanes == 0:
        width = _largest_divisor(n // lanes, _VECTORS_MAX) * lanes
    else:
        width = _largest_divisor(n, lanes)
        if width < lanes // 2:
            width = lanes  # padded
    tile = {vec: width}
    accumulators = -(-width // lanes)
    reads = [_vars_in(r.region) for r in stmt.reads]
    for i in reversed(spatial):
        if i == vec or extents[i] == 1 or len(tile) == 3:
            continue
        if all(ivs[i].var in r for r in reads):
            continue  # every operand changes along this axis: a row tile would save no loads
        limit = min(_TILE_MAX, accumulators_max // accumulators)
        size = _largest_divisor(extents[i], limit)
        if size == 1 and extents[i] > limit:
            size = limit  # padded
        if size > 1:
            tile[i] = size
            accumulators *= size
    return vec, tile


def _tile_contraction(sch, root, main, lanes):
    from tvm import tirx  # pylint: disable=import-outside-toplevel

    stmt = sch.get(main)
    name = stmt.name_hint
    ivs, loops, extents = _loop_nest(sch, main)
    spatial = [i for i, iv in enumerate(ivs) if iv.iter_type == tirx.IterVar.DataPar]
    reduction = [i for i, iv in enumerate(ivs) if iv.iter_type == tirx.IterVar.CommReduce]
    if len(spatial) + len(reduction) != len(ivs) or not spatial:
        raise ValueError("iterators other than spatial and reduction")

    # The elementwise epilogue becomes one block; the contraction's own producers (e.g. zero
    # padding) stay stages. A producer only the epilogue reads (a residual branch's LayerScale
    # multiply ahead of a Conv's bias add) is inlined into it: left at the root it would stop the
    # epilogue from moving under the tile loop, and the whole function from being scheduled.
    names = [sch.get(b).name_hint for b in sch.get_child_blocks(root)]
    outputs = {sch.get(b).name_hint for b in sch.get_output_blocks(root)}
    operands = {r.source.same_as for r in stmt.reads}
    for n in names[:names.index(name)]:
        block = sch.get_sblock(n)
        if not any(same(sch.get(block).writes[0].source) for same in operands):
            with contextlib.suppress(Exception):
                sch.compute_inline(block)
    names = [sch.get(b).name_hint for b in sch.get_child_blocks(root)]
    for n in names[names.index(name) + 1:]:
        if n not in outputs:
            sch.compute_inline(sch.get_sblock(n))

    # Elements of the contraction's output, before any padding of the tile (below).
    computed = math.prod(extents[i] for i in spatial)
    vec, tile = _register_tile(stmt, ivs, extents, spatial, lanes)
    if any(extents[i] % size for i, size in tile.items()):
        try:
            sch.pad_einsum(main, [tile.get(i, 1) for i in range(len(ivs))])
            ivs, loops, extents = _loop_nest(sch, main)
        except Exception:  # pylint: disable=broad-except
            # Not a plain einsum (e.g. a convolution's y + ky): only dividing sizes.
            tile = {i: size for i, size in tile.items() if extents[i] % size == 0}
            tile.setdefault(vec, _largest_divisor(extents[vec], lanes))
    blocks = sch.get_child_blocks(root)
    names = [sch.get(b).name_hint for b in blocks]
    pos = names.index(name)

    outer, inner = [], {}
    for i in spatial:
        if i in tile:
            outer_loop, inner[i] = sch.split(loops[i], [None, tile[i]])
            outer.append(outer_loop)
        else:
            outer.append(loops[i])
    rows = [inner[i] for i in spatial if i in inner and i != vec]
    sch.reorder(*outer, *[loops[i] for i in reduction], *rows, inner[vec])
    tiles = sch.fuse(*outer)
    sch.parallel(tiles)
    write_back = sch.cache_write(main, 0, "local")
    sch.reverse_compute_at(write_back, tiles, preserve_unit_loops=True)
    consumers, stages = [write_back], []
    for n in names[pos + 1:]:
        block = sch.get_sblock(n)
        try:
            sch.reverse_compute_inline(block)
        except Exception:  # pylint: disable=broad-except
            if _domain_size(sch, block) > computed:
                # It writes elements that no tile computes: a Pad after the Conv (HGNetV2's stem
                # pads the Conv's output ahead of a ceil_mode MaxPool). Computed under the tile
                # loop it would cover only the region the tiles produce and leave the border
                # unwritten, so it stays a stage of its own after the whole contraction.
                stages.append(block)
            else:
                sch.reverse_compute_at(block, tiles, preserve_unit_loops=True)  # e.g. unpadding
                consumers.append(block)
    for block in consumers:
        with contextlib.suppress(Exception):
            sch.vectorize(sch.get_loops(block)[-1])
    for loop in rows:
        sch.unroll(loop)
    # Before the initialization is split off: vectorize rejects the update block alone.
    sch.vectorize(inner[vec])
    sch.decompose_reduction(main, loops[reduction[0]])
    for block in list(blocks[:pos]) + stages:
        _schedule_injective_block(sch, block, lanes)


def _domain_size(sch, block):
    """How many points a block's iterators span (a constant, else an error)."""
    return math.prod(int(iv.dom.extent) for iv in sch.get(block).iter_vars)
