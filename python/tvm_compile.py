#!/usr/bin/env python3
"""Compiles an ONNX model with Apache TVM (Relax) into a library the C++ `tvm` module loads.

Called by src/ngraphbench/compilers/tvm/tvm_compiler.cc as a subprocess: TVM's frontends, its
compiler and MetaSchedule exist only in Python. The timed execution happens in C++ (tvm-ffi and
the Relax VM), never here.

    tvm_compile.py --onnx M.onnx --out-dir DIR --target host --trials 64 --tuning-timeout-s 600 \
        --tuning-db TUNEDIR --threads 2

Writes DIR/model.so and then DIR/meta.json (last, atomically: its presence marks a complete
cache entry). With --trials 0 the model is built untuned: TVM's default Relax CPU pipeline, except
that TIR functions get a fixed default CPU schedule (see default_schedule) instead of the plain
loops TVM 0.27 would emit. With --trials N > 0 MetaSchedule tunes the model's TIR tasks in a child
process under a wall-clock budget; a failed or over-budget tuning falls back to the untuned build,
and the reason is recorded in meta.json ("tuning": "failed:<reason>"), never dropped silently. A
tuned build uses a tuning record for every function that has one and the default schedule for
the rest.

Tuning records are shared per (target, TVM version, trial budget) in TUNEDIR: a TIR task that an
earlier compile already tuned there (the same workload, found by structural hash, e.g. the same
Conv layer in a deeper stack) is not tuned again, so a rerun or a larger model of the same width
reuses what it can. A batch size is part of every workload's shape, so other batch sizes tune
their own tasks.
"""

import argparse
import contextlib
import fcntl
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback


def log(message):
    print(f"tvm_compile: {message}", file=sys.stderr, flush=True)


# Tensor intrinsics for other architectures. Importing tvm.s_tir.tensor_intrin (which
# MetaSchedule's CPU rules and its candidate builder do) registers all of them and takes ~35 s,
# mostly CUDA's; every builder process of every tuning round pays it again. A CPU target uses only
# its own architecture's intrinsics, so the others are left unregistered.
_FOREIGN_INTRINSICS = {
    "x86_64": ("cuda", "rocm", "hexagon", "arm_cpu", "riscv_cpu"),
    "aarch64": ("cuda", "rocm", "hexagon", "x86", "riscv_cpu"),
}


def skip_foreign_intrinsics():
    """Runs first in the tuning process and in each MetaSchedule builder/runner process."""
    import platform  # pylint: disable=import-outside-toplevel
    import types  # pylint: disable=import-outside-toplevel

    for name in _FOREIGN_INTRINSICS.get(platform.machine(), ()):
        module = f"tvm.s_tir.tensor_intrin.{name}"
        sys.modules.setdefault(module, types.ModuleType(module))


def resolve_target(spec, threads):
    """The TVM target: 'host' (LLVM's view of this CPU), a kind ('llvm') or a JSON dict."""
    import tvm  # pylint: disable=import-outside-toplevel

    # "host" asks LLVM for this CPU (e.g. mcpu=skylake-avx512), so that tuning and codegen use its
    # real vector width.
    if spec in ("", "host"):
        config = dict(tvm.target.Target.from_device("cpu").export())
    elif spec.lstrip().startswith("{"):
        config = json.loads(spec)
    else:
        config = dict(tvm.target.Target(spec).export())
    # MetaSchedule sizes parallel loops by the target's core count: the thread pool we run with.
    config.setdefault("num-cores", threads)
    return tvm.target.Target(config)


def describe_target(target):
    """A short form for the result row, e.g. "llvm -mcpu=rocketlake -num-cores=2"."""
    attrs = target.attrs
    parts = [str(target.kind.name)]
    for key in ("mcpu", "mattr", "num-cores"):
        if key in attrs and attrs[key]:
            value = attrs[key]
            value = ",".join(value) if key == "mattr" else value
            parts.append(f"-{key}={value}")
    return " ".join(parts)


def import_onnx(onnx_path):
    import onnx  # pylint: disable=import-outside-toplevel
    from tvm import relax  # pylint: disable=import-outside-toplevel
    from tvm.relax.frontend.onnx import from_onnx  # pylint: disable=import-outside-toplevel

    # Weights stored as external data (a model over protobuf's 2 GiB) are read from the files
    # beside the model, which onnx.load resolves against the model's folder.
    model = onnx.load(onnx_path, load_external_data=True)
    # Weights become constants of the compiled library, as in every other compiler here.
    mod = from_onnx(model, keep_params_in_input=False)
    # BatchNormalization in inference form (scale and shift), as TVM's own tuning pipeline does.
    return relax.transform.DecomposeOpsForInference()(mod)


def write_json_atomic(path, data):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    os.replace(tmp, path)


@contextlib.contextmanager
def locked(directory):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, ".lock"), "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def open_database(directory):
    from tvm.s_tir import meta_schedule as ms  # pylint: disable=import-outside-toplevel

    os.makedirs(directory, exist_ok=True)
    return ms.database.JSONDatabase(work_dir=directory, module_equality="structural")


def fusion_passes(target):
    """Relax to fused TIR functions, as MetaSchedule's compile_relax does before applying its
    database: the workloads tuned here are the ones build() looks up."""
    from tvm import relax  # pylint: disable=import-outside-toplevel

    return [
        *relax.pipeline.library_dispatch_passes(target),
        relax.transform.LegalizeOps(),
        relax.transform.AnnotateTIROpPattern(),
        relax.transform.FoldConstant(),
        relax.transform.FuseOps(),
        relax.transform.FuseTIR(),
    ]


def fused(mod, target):
    import tvm  # pylint: disable=import-outside-toplevel

    with target, tvm.transform.PassContext(opt_level=3):
        return tvm.transform.Sequential(fusion_passes(target))(mod)


def untuned_tasks(mod, target, db_dir):
    """The model's tuning tasks, and those of them that have no record in the shared database."""
    from tvm.s_tir import meta_schedule as ms  # pylint: disable=import-outside-toplevel

    tasks = ms.relax_integration.extract_tasks(fused(mod, target), target)
    if not tasks:
        raise RuntimeError("MetaSchedule extracted no tuning tasks from the model")
    db = open_database(db_dir)
    todo = []
    for task in tasks:
        record = db.query_tuning_record(task.dispatched[0], target, task.task_name)
        if record is None:
            todo.append(task)
    return tasks, todo


def tune_child(args):
    """Runs in its own process (--tune-child); a failure's last line goes to error.txt."""
    try:
        tune_missing(args)
    except Exception as e:  # pylint: disable=broad-except
        traceback.print_exc()
        with open(os.path.join(args.scratch, "error.txt"), "w", encoding="utf-8") as f:
            f.write(f"{type(e).__name__}: {last_line(str(e))}")
        sys.exit(1)


def last_line(text):
    """One line of an error for the row's settings, which are ';'-separated key=value pairs."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return (lines[-1].strip() if lines else "").replace(";", ",")[:300]


def tune_missing(args):
    """Tunes the model's tasks that have no record in the shared database yet."""
    from tvm.s_tir import meta_schedule as ms  # pylint: disable=import-outside-toplevel

    target = resolve_target(args.target, args.threads)
    mod = import_onnx(args.onnx)
    tasks, todo = untuned_tasks(mod, target, args.tuning_db)
    result = {"tasks": len(tasks), "tasks_tuned": len(todo), "trials": 0}
    if todo:
        # The budget is per model; tasks tuned before keep their records, so only the share of the
        # budget that belongs to the remaining tasks is spent.
        budget = max(1, math.ceil(args.trials * len(todo) / len(tasks)))
        work_dir = os.path.join(args.scratch, "work")
        contexts, weights = ms.relax_integration.extracted_tasks_to_tune_contexts(
            todo, work_dir=work_dir, seed=args.seed
        )
        db = ms.tune.tune_tasks(
            tasks=contexts,
            task_weights=weights,
            work_dir=work_dir,
            max_trials_global=budget,
            num_trials_per_iter=min(64, budget),
            # Generous timeouts: on a small, busy machine a candidate's build alone can take
            # longer than the default 30 s, and a timed-out candidate is simply lost.
            builder=ms.builder.LocalBuilder(timeout_sec=120, initializer=skip_foreign_intrinsics),
            runner=ms.runner.LocalRunner(timeout_sec=60, initializer=skip_foreign_intrinsics),
            database=open_database(os.path.join(args.scratch, "db")),
        )
        result["trials"] = len(db.get_all_tuning_records())
    write_json_atomic(os.path.join(args.scratch, "tuned.json"), result)


def merge_records(src_dir, dst_dir):
    """Commits the records of a completed tuning run into the shared database."""
    from tvm.s_tir import meta_schedule as ms  # pylint: disable=import-outside-toplevel

    src, dst = open_database(src_dir), open_database(dst_dir)
    for r in src.get_all_tuning_records():
        workload = dst.commit_workload(r.workload.mod)
        dst.commit_tuning_record(
            ms.database.TuningRecord(r.trace, workload, r.run_secs, r.target, r.args_info)
        )


def die_with_parent():
    import ctypes  # pylint: disable=import-outside-toplevel

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)


def kill_tree(pid):
    """Kills a process and everything it started (MetaSchedule's builder and runner pools)."""
    import psutil  # pylint: disable=import-outside-toplevel

    try:
        root = psutil.Process(pid)
        procs = root.children(recursive=True) + [root]
    except psutil.NoSuchProcess:
        return
    for p in procs:
        with contextlib.suppress(psutil.NoSuchProcess):
            p.kill()


def run_tuning(args, scratch):
    """Tunes in a child process under a wall-clock budget. Returns (status, info)."""
    cmd = [
        sys.executable,
        os.path.abspath(__file__),
        "--tune-child",
        "--onnx", args.onnx,
        "--target", args.target,
        "--trials", str(args.trials),
        "--tuning-db", args.tuning_db,
        "--scratch", scratch,
        "--seed", str(args.seed),
        "--threads", str(args.threads),
        "--out-dir", args.out_dir,
    ]
    # The child stays in our process group, so that the scheduler's kill of a timed-out worker
    # reaches it; it also dies with us.
    child = subprocess.Popen(cmd, preexec_fn=die_with_parent)  # pylint: disable=consider-using-with
    try:
        rc = child.wait(timeout=args.tuning_timeout_s if args.tuning_timeout_s > 0 else None)
    except subprocess.TimeoutExpired:
        kill_tree(child.pid)
        child.wait()
        return f"failed:timeout after {args.tuning_timeout_s:g}s", None
    result_path = os.path.join(scratch, "tuned.json")
    if rc != 0 or not os.path.exists(result_path):
        error_path = os.path.join(scratch, "error.txt")
        if os.path.exists(error_path):
            with open(error_path, encoding="utf-8") as f:
                return f"failed:{f.read()}", None
        return f"failed:tuning process exited with status {rc}", None
    with open(result_path, encoding="utf-8") as f:
        info = json.load(f)
    if info["tasks_tuned"] and not info["trials"]:
        return "failed:no candidate built and ran (0 valid trials)", info
    return "ok", info


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


def default_schedule(target, unscheduled):
    """A module pass that schedules every PrimFunc not yet marked scheduled; the names of those
    left with TVM's loops are appended to `unscheduled`."""
    import tvm  # pylint: disable=import-outside-toplevel
    from tvm import tirx  # pylint: disable=import-outside-toplevel

    # Not dlight's CPU GEMV rule: it vectorizes 128 lanes around the reduction loop, and LLVM took
    # over 10 minutes on one such function of efficientnet_b0 (a squeeze-excitation 1x1 Conv).
    rules = [
        schedule_contraction,
        schedule_reduction,
        schedule_injective_func,
    ]

    @tvm.transform.module_pass(opt_level=0, name="NgraphbenchDefaultSchedule")
    def schedule(mod, _ctx):
        updated = {}
        for gvar, func in mod.functions_items():
            if not isinstance(func, tirx.PrimFunc) or func.attrs.get("tirx.is_scheduled", False):
                continue
            sch = None
            try:
                for rule in rules:
                    sch = rule(func, target, False)
                    if sch is not None:
                        break
            except Exception as e:  # pylint: disable=broad-except
                log(f"{gvar.name_hint}: no default schedule ({type(e).__name__}: "
                    f"{last_line(str(e))})")
                unscheduled.append(gvar.name_hint)
                continue
            if isinstance(sch, list):
                sch = sch[0]
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


def relax_pipeline(target, database, schedule, unscheduled):
    """TVM's Relax CPU pipeline with the TIR functions scheduled between fusion and lowering: a
    tuning record where the database has one (as compile_relax does), else default_schedule."""
    import tvm  # pylint: disable=import-outside-toplevel
    from tvm import relax  # pylint: disable=import-outside-toplevel
    from tvm.relax.backend.cpu_generic import (  # pylint: disable=import-outside-toplevel
        pipeline as cpu,
    )

    @tvm.transform.module_pass(opt_level=0, name="NgraphbenchRelaxPipeline")
    def pipeline(mod, _ctx):
        passes = fusion_passes(target)
        if database is not None:
            passes.append(relax.transform.MetaScheduleApplyDatabase())
        if schedule:
            passes.append(default_schedule(target, unscheduled))
        passes += cpu.dataflow_lower_passes(target) + cpu.finalize_passes(target)
        return tvm.transform.Sequential(passes)(mod)

    return pipeline


def build(args, target, database):
    import tvm  # pylint: disable=import-outside-toplevel

    mod = import_onnx(args.onnx)

    unscheduled = []

    def compile_with(schedule):
        records = database if database is not None else contextlib.nullcontext()
        pipeline = relax_pipeline(target, database, schedule, unscheduled)
        with target, records, tvm.transform.PassContext(opt_level=3):
            return tvm.compile(mod, target=target, relax_pipeline=pipeline)

    # What the row reports: "default" (every function without a tuning record got the default
    # schedule), "default:N_unscheduled" or "loops:<reason>" (the whole build fell back).
    try:
        executable = compile_with(schedule=True)
        schedule = f"default:{len(unscheduled)}_unscheduled" if unscheduled else "default"
    except Exception as e:  # pylint: disable=broad-except
        # A default schedule that TVM's lowering rejects must not cost the row.
        reason = f"{type(e).__name__}: {last_line(str(e))}"
        log(f"build with the default schedule failed ({reason}); building with TVM's loops")
        executable = compile_with(schedule=False)
        schedule = "loops:" + reason.replace(";", ",").replace("=", ":")
    tmp = os.path.join(args.out_dir, "model.so.tmp.so")
    executable.export_library(tmp)
    os.replace(tmp, os.path.join(args.out_dir, "model.so"))
    return schedule


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--onnx", required=True, help="the model (ONNX ModelProto file)")
    parser.add_argument("--out-dir", required=True, help="cache entry: model.so and meta.json")
    parser.add_argument("--target", default="host", help="TVM target; 'host' = detected CPU")
    parser.add_argument("--trials", type=int, default=0, help="MetaSchedule trials; 0 = untuned")
    parser.add_argument("--tuning-timeout-s", type=float, default=0, help="0 = no limit")
    parser.add_argument("--tuning-db", default="", help="shared MetaSchedule database directory")
    parser.add_argument("--threads", type=int, default=os.cpu_count(), help="runtime threads")
    parser.add_argument("--seed", type=int, default=0, help="MetaSchedule random seed")
    parser.add_argument("--tune-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--scratch", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.tune_child:
        skip_foreign_intrinsics()
        tune_child(args)
        return 0

    skip_foreign_intrinsics()
    import tvm  # pylint: disable=import-outside-toplevel

    os.makedirs(args.out_dir, exist_ok=True)
    target = resolve_target(args.target, args.threads)
    meta = {
        "tvm_version": tvm.__version__,
        "target": describe_target(target),
        "target_json": str(target),
        "trials_requested": args.trials,
        "tuned": False,
        "trials": 0,
        "tuning": "none",
        "tuning_s": 0.0,
    }
    database = None
    if args.trials > 0:
        if not args.tuning_db:
            parser.error("--trials > 0 needs --tuning-db")
        start = time.monotonic()
        with locked(args.tuning_db), tempfile.TemporaryDirectory(dir=args.out_dir) as scratch:
            try:
                status, info = run_tuning(args, scratch)
                if status == "ok" and info["trials"]:
                    merge_records(os.path.join(scratch, "db"), args.tuning_db)
            except Exception as e:  # pylint: disable=broad-except
                traceback.print_exc()
                status, info = f"failed:{type(e).__name__}: {last_line(str(e))}", None
        meta["tuning_s"] = time.monotonic() - start
        meta["tuning"] = status
        if info:
            meta.update(tasks=info["tasks"], tasks_tuned=info["tasks_tuned"], trials=info["trials"])
        if status == "ok":
            meta["tuned"] = True
            database = open_database(args.tuning_db)
        else:
            log(f"tuning {status}; building untuned")

    start = time.monotonic()
    meta["schedule"] = build(args, target, database)
    meta["build_s"] = time.monotonic() - start
    write_json_atomic(os.path.join(args.out_dir, "meta.json"), meta)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # pylint: disable=broad-except
        traceback.print_exc()
        # The last stderr line is what the C++ module quotes in its CompileError.
        log(f"error: {type(e).__name__}: {last_line(str(e))}")
        sys.exit(1)
