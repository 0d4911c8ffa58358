#!/usr/bin/env python3
"""Compiles an ONNX model with Apache TVM (Relax) into a library the C++ `tvm` module loads.

Called by src/ngraphbench/compilers/tvm/tvm_compiler.cc as a subprocess: TVM's frontends, its
compiler and MetaSchedule exist only in Python. The timed execution happens in C++ (tvm-ffi and
the Relax VM), never here.

    tvm_compile.py --onnx M.onnx --out-dir DIR --target host --trials 64 --patience 32 \
        --tuning-timeout-s 600 --tuning-db TUNEDIR --threads 2

Writes DIR/model.so and then DIR/meta.json (last, atomically: its presence marks a complete
cache entry). With --trials 0 the model is built untuned: TVM's default Relax CPU pipeline, except
that TIR functions get a fixed default CPU schedule (tvm_schedules.py) instead of the plain
loops TVM 0.27 would emit. With --trials N > 0 MetaSchedule tunes the model's TIR tasks in a child
process under a wall-clock budget; a failed or over-budget tuning falls back to the untuned build,
and the reason is recorded in meta.json ("tuning": "failed:<reason>"), never dropped silently. A
tuned build uses a tuning record for every function that has one and the default schedule for the
rest. With --patience P > 0 a task stops early once P of its trials in a row have not improved its
best time by 1 % (its share of the budget then goes to the other tasks); meta.json counts the tasks
stopped so ("tasks_stopped_early"). The search has a time of its own, --search-s (by default three
quarters of --tuning-timeout-s): past it, each task stops after the iteration it is in, and what was
found so far is chosen from as below and kept like a completed tuning (meta.json: "search_cut":
true, "tasks_cut" tasks stopped so); only a tuning that does not end within --tuning-timeout-s, its
search's first iteration over every task and the final choice included, is killed and falls back to
the untuned build. After the search, each tuned task's best records and its default schedule are
measured again side by side (select_records) and the task keeps the fastest ("tasks_default_kept"
counts those that kept the default schedule). Then the tuned and the untuned library are both built
and timed side by side, and the faster becomes model.so ("kept", "tuned_ms", "untuned_ms"): a budget
too small to find anything better, or a record that won alone and loses inside the model, cannot
make a tuned run slower than the untuned one.

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
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

# The default CPU schedules of untuned functions, a module of their own beside this script (python
# puts the script's folder on sys.path). The C++ module's cache key covers every tvm_*.py beside it.
from tvm_schedules import default_schedule, last_line, log, schedule_func
# What the kernels of a quantized (QDQ) model compute in: tvm_kernels.py, beside this script.
from tvm_kernels import count_kernels
# The target, and for a cross build its linker: tvm_target.py, beside this script.
from tvm_target import cross_arch, describe_target, linker, resolve_target


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


# A trial improves a task when it beats the task's best time so far by this fraction: the
# runner's own noise is about that large on a busy machine, and a smaller gain would keep a task
# tuning on noise.
IMPROVEMENT = 0.01


def stopping_callback(patience, n_tasks, budget, stopped, deadline, cut):
    """A MeasureCallback that terminates a task after `patience` trials in a row without an
    improvement of IMPROVEMENT over its best (patience 0: never), adding each such task's id to
    `stopped`; and, once time.monotonic() passes `deadline`, every task still running, adding
    their ids to `cut`.

    Two moments when MetaSchedule's gradient task scheduler must not see a task terminated: it
    hands every task out once before it looks at which are terminated, so no task is terminated
    before all `n_tasks` have reported their first trials; and once `budget` trials were sent it
    joins the last running task and terminates it itself (a second termination is an error), so
    nothing is terminated once the trials reported reach the budget."""
    from tvm.ir.utils import derived_object  # pylint: disable=import-outside-toplevel
    from tvm.s_tir.meta_schedule.measure_callback import (  # pylint: disable=import-outside-toplevel
        PyMeasureCallback,
    )

    @derived_object
    class Stopping(PyMeasureCallback):
        """Per task: its best mean run time and the trials since it last improved."""

        def __init__(self):
            self.best = {}
            self.since = {}
            self.reported = 0

        def apply(self, task_scheduler, task_id, measure_candidates, builder_results,
                  runner_results):
            best = self.best.get(task_id, math.inf)
            since = self.since.get(task_id, 0)
            for result in runner_results:
                secs = [float(x) for x in (result.run_secs or [])]
                mean = sum(secs) / len(secs) if secs and result.error_msg is None else math.inf
                if mean < best * (1 - IMPROVEMENT):
                    best, since = mean, 0
                else:
                    since += 1
            self.best[task_id], self.since[task_id] = best, since
            self.reported += len(runner_results)
            if len(self.best) < n_tasks or self.reported >= budget:
                return
            if time.monotonic() > deadline:
                for tid, record in enumerate(task_scheduler.tasks_):
                    if not record.is_terminated and tid not in stopped | cut:
                        cut.add(tid)
                        task_scheduler.terminate_task(tid)
                return
            for tid, count in self.since.items():
                if patience > 0 and count >= patience and tid not in stopped | cut:
                    stopped.add(tid)
                    task_scheduler.terminate_task(tid)

    return Stopping()


# The share of --tuning-timeout-s that the search gets by default; the rest is left for the
# final choice (select_records: a few builds and 3 rounds of runs per task).
SEARCH_SHARE = 0.75


def search_seconds(args):
    """The search's own time (0: none): --search-s, or SEARCH_SHARE of --tuning-timeout-s."""
    if args.search_s > 0:
        return args.search_s
    return SEARCH_SHARE * args.tuning_timeout_s if args.tuning_timeout_s > 0 else 0


def trials_per_iter(budget, n_tasks):
    """Candidates a task measures per search iteration. The task scheduler first gives every task
    one iteration: at MetaSchedule's usual 64 a small budget would go to the first few tasks
    (256 trials to 4 of resnet50's 25) and leave the rest untuned, so an iteration is a quarter of
    a task's share, at least 4 and at most 64 candidates."""
    return max(4, min(64, budget // max(1, n_tasks) // 4))


def tune_child(args):
    """Runs in its own process (--tune-child); a failure's last line goes to error.txt."""
    try:
        tune_missing(args)
    except Exception as e:  # pylint: disable=broad-except
        traceback.print_exc()
        with open(os.path.join(args.scratch, "error.txt"), "w", encoding="utf-8") as f:
            f.write(f"{type(e).__name__}: {last_line(str(e))}")
        sys.exit(1)


def tune_missing(args):
    """Tunes the model's tasks that have no record in the shared database yet."""
    from tvm.s_tir import meta_schedule as ms  # pylint: disable=import-outside-toplevel

    search_s = search_seconds(args)
    deadline = time.monotonic() + search_s if search_s > 0 else math.inf
    target = resolve_target(args.target, args.threads)
    mod = import_onnx(args.onnx)
    tasks, todo = untuned_tasks(mod, target, args.tuning_db)
    result = {"tasks": len(tasks), "tasks_tuned": len(todo), "trials": 0, "tasks_stopped_early": 0,
              "tasks_default_kept": 0, "tasks_cut": 0}
    if todo:
        # The budget is per model; tasks tuned before keep their records, so only the share of the
        # budget that belongs to the remaining tasks is spent.
        budget = max(1, math.ceil(args.trials * len(todo) / len(tasks)))
        work_dir = os.path.join(args.scratch, "work")
        contexts, weights = ms.relax_integration.extracted_tasks_to_tune_contexts(
            todo, work_dir=work_dir, seed=args.seed
        )
        stopped, cut = set(), set()
        callbacks = list(ms.measure_callback.MeasureCallback.create("default")) + [
            stopping_callback(args.patience, len(todo), budget, stopped, deadline, cut)]
        # Generous timeouts: on a small, busy machine a candidate's build alone can take longer
        # than the default 30 s, and a timed-out candidate is simply lost.
        builder = ms.builder.LocalBuilder(timeout_sec=120, initializer=skip_foreign_intrinsics)
        runner = ms.runner.LocalRunner(timeout_sec=60, evaluator_config=evaluator_config(),
                                       initializer=skip_foreign_intrinsics)
        db = ms.tune.tune_tasks(
            tasks=contexts,
            task_weights=weights,
            work_dir=work_dir,
            max_trials_global=budget,
            num_trials_per_iter=trials_per_iter(budget, len(todo)),
            builder=builder,
            runner=runner,
            database=open_database(os.path.join(args.scratch, "db")),
            measure_callbacks=callbacks,
        )
        result["trials"] = len(db.get_all_tuning_records())
        result["tasks_stopped_early"] = len(stopped)
        result["tasks_cut"] = len(cut)
        result["tasks_default_kept"] = select_records(
            todo, target, db, open_database(os.path.join(args.scratch, "selected")), builder, runner)
    write_json_atomic(os.path.join(args.scratch, "tuned.json"), result)


# The final choice of each tuned task's schedule. The search ranks its candidates by times taken
# minutes apart, while other work may come and go on the machine: on a busy 2-core VM the same
# default schedule measured from 0.16 to 7.5 ms, and a tuned build chose records whose search time
# had been taken in a quiet moment (deit_small ran 15 % slower tuned, inception_v3 37 %). So the
# search's SELECT_TOP best records of a task and its default schedule are measured again side by
# side, SELECT_ROUNDS rounds over all tasks, and the task keeps the fastest by its median round.
SELECT_TOP = 3
SELECT_ROUNDS = 3


def evaluator_config():
    """How a candidate is timed, in the search and in the final choice: each run from a flushed
    CPU cache, as a model's layer runs after the layers before it have evicted its weights (a
    candidate timed warm, its weights still in cache, can rank above one that streams them better)."""
    from tvm.s_tir import meta_schedule as ms  # pylint: disable=import-outside-toplevel

    return ms.runner.EvaluatorConfig(number=1, repeat=10, min_repeat_ms=0,
                                     enable_cpu_cache_flush=True)


def select_records(tasks, target, search_db, selected_db, builder, runner):
    """Commits one record per task to `selected_db`: the fastest, re-measured side by side, of the
    search's best records and the default schedule (tvm_schedules.py), so that neither the
    machine's noise during the search nor a budget too small to find anything better makes a tuned
    build slower than the untuned one. A task gets its record whichever wins, so that a later
    compile does not tune it again. Returns how many tasks kept the default schedule."""
    from tvm.s_tir import meta_schedule as ms  # pylint: disable=import-outside-toplevel

    device = "cpu" if target.kind.name == "llvm" else target.kind.name  # as the runner opens it
    candidates = []  # (task index, is the default, schedule's module, trace)
    for i, task in enumerate(tasks):
        mod = task.dispatched[0]
        if search_db.has_workload(mod):
            for record in search_db.get_top_k(search_db.commit_workload(mod), SELECT_TOP):
                candidate = record.as_measure_candidate()
                candidates.append((i, False, candidate.sch.mod, record.trace))
        try:
            sch = schedule_func(mod["main"], target)
        except Exception as e:  # pylint: disable=broad-except
            log(f"{task.task_name}: no default schedule to measure ({type(e).__name__}: "
                f"{last_line(str(e))})")
            sch = None
        if sch is not None:
            candidates.append((i, True, sch.mod, sch.trace))
    built = builder.build([ms.builder.BuilderInput(c[2], target) for c in candidates])
    inputs, measured = [], []
    for c, b in zip(candidates, built):
        if b.error_msg is None:
            args_info = ms.arg_info.ArgInfo.from_entry_func(c[2], remove_preproc=True)
            inputs.append(ms.runner.RunnerInput(b.artifact_path, device, args_info))
            measured.append((c, args_info, []))
        else:
            log(f"{tasks[c[0]].task_name}: a candidate did not build: {last_line(b.error_msg)}")
    for _ in range(SELECT_ROUNDS):
        for (_, _, means), future in zip(measured, runner.run(inputs)):
            r = future.result()
            ok = r.error_msg is None and r.run_secs
            means.append(statistics.mean(float(x) for x in r.run_secs) if ok else math.inf)
    best = {}  # task index: (median seconds, is the default, trace, args_info)
    for (i, is_default, _, trace), args_info, means in measured:
        median = statistics.median(means)
        if median < math.inf and (i not in best or median < best[i][0]):
            best[i] = (median, is_default, trace, args_info)
    for i, (median, _, trace, args_info) in best.items():
        workload = selected_db.commit_workload(tasks[i].dispatched[0])
        selected_db.commit_tuning_record(
            ms.database.TuningRecord(trace, workload, [median], target, args_info))
    for b in built:
        if b.artifact_path:
            with contextlib.suppress(OSError):
                os.remove(b.artifact_path)
    return sum(1 for _, is_default, _, _ in best.values() if is_default)


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
        "--patience", str(args.patience),
        "--tuning-timeout-s", str(args.tuning_timeout_s),
        "--search-s", str(args.search_s),
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


def build(args, mod, target, database, name="model.so"):
    """Builds `mod` (import_onnx's) into out_dir/name; returns what the row's `schedule` reports."""
    import tvm  # pylint: disable=import-outside-toplevel

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
    tmp = os.path.join(args.out_dir, name + ".tmp.so")
    executable.export_library(tmp, fcompile=linker(target))
    os.replace(tmp, os.path.join(args.out_dir, name))
    return schedule


# The tuned build against the untuned one, timed side by side before either is kept. MetaSchedule
# times each task alone; inside the model a task's inputs and weights meet other caches, and a
# record that won alone can lose there (deit_small on a 2-core VM: one matmul's record, timed
# within 2 % of the default schedule alone, made the model 6 % slower). Each of COMPARE_ROUNDS rounds runs both libraries in turn
# for about COMPARE_ROUND_S each, and the median over rounds of each round's median compares.
COMPARE_ROUNDS = 7
COMPARE_ROUND_S = 0.25


def time_libraries(onnx_path, paths):
    """Per library, the median over rounds of its per-round median latency, in ms (the process's
    TVM_NUM_THREADS pool, which the C++ module sets as it will run)."""
    import numpy as np  # pylint: disable=import-outside-toplevel
    import tvm  # pylint: disable=import-outside-toplevel
    from tvm import relax  # pylint: disable=import-outside-toplevel

    import onnx  # pylint: disable=import-outside-toplevel

    graph = onnx.load(onnx_path, load_external_data=False).graph
    weights = {t.name for t in graph.initializer}
    rng = np.random.default_rng(0)
    inputs = []
    for value in graph.input:  # the Relax function's parameters, in order
        if value.name in weights:
            continue
        tensor_type = value.type.tensor_type
        shape = [d.dim_value for d in tensor_type.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(tensor_type.elem_type)
        data = (rng.standard_normal(shape) if np.issubdtype(dtype, np.floating)
                else np.zeros(shape)).astype(dtype)
        inputs.append(tvm.runtime.tensor(data))
    mains = [relax.VirtualMachine(tvm.runtime.load_module(p), tvm.cpu())["main"] for p in paths]
    runs = []
    for main in mains:  # warm-up, and one run's time for the rounds' length
        main(*inputs)
        start = time.perf_counter()
        main(*inputs)
        runs.append(max(3, int(COMPARE_ROUND_S / max(time.perf_counter() - start, 1e-6))))
    medians = [[] for _ in mains]
    for _ in range(COMPARE_ROUNDS):
        for main, n, out in zip(mains, runs, medians):
            times = []
            for _ in range(n):
                start = time.perf_counter()
                main(*inputs)
                times.append(time.perf_counter() - start)
            out.append(statistics.median(times) * 1e3)
    return [statistics.median(m) for m in medians]


def build_tuned(args, mod, target, database, meta):
    """Builds the tuned library and the untuned one, and keeps the faster as model.so."""
    out = args.out_dir
    tuned_schedule = build(args, mod, target, database, "tuned.so")
    untuned_schedule = build(args, mod, target, None, "untuned.so")
    tuned_ms, untuned_ms = time_libraries(
        args.onnx, [os.path.join(out, "tuned.so"), os.path.join(out, "untuned.so")])
    keep = "tuned" if tuned_ms < untuned_ms else "untuned"
    meta.update(tuned_ms=round(tuned_ms, 4), untuned_ms=round(untuned_ms, 4), kept=keep,
                tuned=keep == "tuned")
    log(f"tuned {tuned_ms:.3f} ms, untuned {untuned_ms:.3f} ms: keeping the {keep} library")
    os.replace(os.path.join(out, keep + ".so"), os.path.join(out, "model.so"))
    os.remove(os.path.join(out, ("untuned" if keep == "tuned" else "tuned") + ".so"))
    return tuned_schedule if keep == "tuned" else untuned_schedule


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--onnx", required=True, help="the model (ONNX ModelProto file)")
    parser.add_argument("--out-dir", required=True, help="cache entry: model.so and meta.json")
    parser.add_argument("--target", default="host", help="TVM target; 'host' = detected CPU")
    parser.add_argument("--trials", type=int, default=0, help="MetaSchedule trials; 0 = untuned")
    parser.add_argument("--patience", type=int, default=0,
                        help="stop a task after this many trials without a 1%% improvement; 0 = never")
    parser.add_argument("--tuning-timeout-s", type=float, default=0, help="0 = no limit")
    parser.add_argument("--search-s", type=float, default=0,
                        help="the search's own time, after which every task stops and the records "
                        f"found are kept; 0 = {SEARCH_SHARE:g} x --tuning-timeout-s")
    parser.add_argument("--tuning-db", default="", help="shared MetaSchedule database directory")
    parser.add_argument("--threads", type=int, default=os.cpu_count(), help="runtime threads")
    parser.add_argument("--machine", default="",
                        help="the architecture the library runs on (uname -m); default: this one")
    parser.add_argument("--seed", type=int, default=0, help="MetaSchedule random seed")
    parser.add_argument("--precision", choices=["fp32", "int8"], default="fp32",
                        help="int8: the model is a QDQ model; meta.json counts its kernels by "
                        "the type they compute in (tvm_kernels.py)")
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
    target = resolve_target(args.target, args.threads, args.machine)
    if args.trials > 0 and cross_arch(target):
        raise RuntimeError(f"tuning measures its candidates on this machine ({os.uname().machine}),"
                           f" not on the target's {cross_arch(target)}: set tuning_trials=0, or "
                           f"compile with a python on {cross_arch(target)}")
    meta = {
        "tvm_version": tvm.__version__,
        "machine": cross_arch(target) or os.uname().machine,  # what the library runs on
        "target": describe_target(target),
        "target_json": str(target),
        "trials_requested": args.trials,
        "patience": args.patience,
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
                    merge_records(os.path.join(scratch, "selected"), args.tuning_db)
            except Exception as e:  # pylint: disable=broad-except
                traceback.print_exc()
                status, info = f"failed:{type(e).__name__}: {last_line(str(e))}", None
        meta["tuning_s"] = time.monotonic() - start
        meta["tuning"] = status
        if info:
            meta.update(tasks=info["tasks"], tasks_tuned=info["tasks_tuned"], trials=info["trials"],
                        tasks_stopped_early=info["tasks_stopped_early"],
                        tasks_default_kept=info["tasks_default_kept"], tasks_cut=info["tasks_cut"],
                        search_cut=info["tasks_cut"] > 0)
        if status == "ok":
            meta["tuned"] = True
            database = open_database(args.tuning_db)
        else:
            log(f"tuning {status}; building untuned")

    start = time.monotonic()
    mod = import_onnx(args.onnx)
    if args.precision == "int8":
        meta.update(count_kernels(fused(mod, target)))
    if database is not None:
        meta["schedule"] = build_tuned(args, mod, target, database, meta)
    else:
        meta["schedule"] = build(args, mod, target, None)
    meta["build_s"] = time.monotonic() - start
    write_json_atomic(os.path.join(args.out_dir, "meta.json"), meta)
    return 0


if __name__ == "__main__":
    # python/script_exit.py, on the PYTHONPATH the worker gives this script: exit 1 on an error,
    # 74 when the storage failed (a full disk is not the compiler's failure).
    import script_exit  # pylint: disable=import-error

    script_exit.run_main(main, "tvm_compile", last_line)
