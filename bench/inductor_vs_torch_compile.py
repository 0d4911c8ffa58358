"""Times the module ngraphbench's `inductor` compiles under Python's torch.compile; prints both
sides' ratios per round.

`time` builds, from the run's ONNX file (`ngraphbench export`), exactly the torch.nn.Module that
src/ngraphbench/compilers/inductor/inductor_compile.py hands to torch.export: that file is
imported as a module by path and its own functions do the work (drop_inert_allowzero,
example_inputs, import_onnx2torch + onnx2torch.convert, specialize_shape_operands), so the
ONNX -> module path is the same code, not a copy. Then, as the compiler's defaults
(configs/inductor.yaml; compiler.yaml): torch._inductor.config.freezing = True,
max_autotune = False, cpp.threads = torch.set_num_threads(T) = OMP_NUM_THREADS = T, and
`torch.compile(module, mode=None)`: the default mode, i.e. no max-autotune and no CUDA graphs,
the Inductor pipeline `inductor` itself uses (AOTInductor's aoti_compile_and_package with the
same configs). With --max-autotune both sides turn max_autotune on (the .sh writes
`max_autotune: true` into the run's inductor.yaml; here mode="max-autotune-no-cudagraphs").
Everything runs under torch.no_grad(). The first call compiles (its wall time is printed as
information and excluded), then `warmup` calls, then `repeats` calls each timed with
time.perf_counter: the median latency, and the CPU time per inference (time.process_time() over
the timed loop / repeats), and the minor page faults per timed call. The input is random normal
of the ONNX input's shape. The heap (glibc's thresholds) is the caller's: the .sh fixes it as
ngraphbench's workers fix theirs unless asked not to.

Inductor's own cache (TORCHINDUCTOR_CACHE_DIR) is the bench's: the first round's first call is a
cold compile, later rounds' first calls hit it (the compiled kernels are the same either way),
as ngraphbench's package cache makes its later rounds load the package.

`report` pairs each round's Python figures with that round's ngraphbench rows and prints the
median per-round ratios ngraphbench / Python with IQR and min-max (bench/ratios.py), and each
side's compile time (ngraphbench's compile_s of round 1, a cold compile of the package; Python's
first torch.compile'd call of round 1, a cold compile).
"""
import argparse
import glob
import importlib.util
import json
import os
import resource
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ratios  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMPILE_SCRIPT = os.path.join(ROOT, "src", "ngraphbench", "compilers", "inductor",
                              "inductor_compile.py")


def load_compile_script(path):
    """inductor_compile.py as a module (its main() only runs as a script)."""
    spec = importlib.util.spec_from_file_location("inductor_compile", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def time_model(args):
    # Before torch is imported, as inductor_compile.py sets it for the compile.
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import onnx  # pylint: disable=import-outside-toplevel
    import torch  # pylint: disable=import-outside-toplevel
    import torch._inductor.config  # pylint: disable=import-outside-toplevel

    ic = load_compile_script(args.compile_script)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    start = time.perf_counter()
    model = onnx.load(args.onnx, load_external_data=True)
    ic.drop_inert_allowzero(model)
    example = ic.example_inputs(model, torch)
    module = ic.import_onnx2torch(torch).convert(model).eval()
    with torch.no_grad():
        specialized = ic.specialize_shape_operands(module, example, torch)
    convert_s = time.perf_counter() - start

    inputs = tuple(torch.randn(x.shape, dtype=x.dtype) for x in example)
    torch._inductor.config.freezing = True  # pylint: disable=protected-access
    torch._inductor.config.max_autotune = args.max_autotune  # pylint: disable=protected-access
    torch._inductor.config.cpp.threads = args.threads  # pylint: disable=protected-access
    mode = "max-autotune-no-cudagraphs" if args.max_autotune else None
    compiled = torch.compile(module, mode=mode)

    with torch.no_grad():
        start = time.perf_counter()
        compiled(*inputs)  # compiles
        first_call_s = time.perf_counter() - start
        for _ in range(args.warmup):
            compiled(*inputs)
        times = []
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        cpu = time.process_time()
        for _ in range(args.repeats):
            start = time.perf_counter()
            compiled(*inputs)
            times.append(time.perf_counter() - start)
        cpu = time.process_time() - cpu
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    result = {"run_id": args.run_id, "python_ms": statistics.median(times) * 1e3,
              "python_cpu_ms": cpu * 1e3 / args.repeats,
              "python_faults_per_iter": faults / args.repeats, "first_call_s": first_call_s,
              "convert_s": convert_s, "shapes_specialized": specialized,
              "threads": torch.get_num_threads(), "mode": mode or "default",
              "torch": torch.__version__}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(result, f)


def read_rows(round_dir):
    """ngraphbench rows of one round (the round's CSVs, moved there after each run), by run id."""
    rows = {}
    for path in sorted(glob.glob(os.path.join(round_dir, "*.csv"))):
        if path.endswith(".latencies.csv"):
            continue
        row = ratios.read_row(path)
        rows[row["run_id"]] = row
    return rows


def report(args):
    rounds = sorted(glob.glob(os.path.join(args.dir, "round*")),
                    key=lambda d: int(os.path.basename(d)[len("round"):]))
    c = ratios.Comparison("ngraphbench", "python")
    compile_times = {}   # label -> (ngraphbench compile_s, python first call s) of round 1
    faults = {}          # label -> Python's minor page faults per timed call, per round
    torch_version, mode = "?", "?"
    for round_dir in rounds:
        r = int(os.path.basename(round_dir)[len("round"):])
        rows = read_rows(round_dir)
        for path in sorted(glob.glob(os.path.join(round_dir, "python_*.json"))):
            with open(path, encoding="utf-8") as f:
                p = json.load(f)
            torch_version, mode = p["torch"], p["mode"]
            row = rows.get(p["run_id"])
            if row is None or row["status"] != "ok":
                raise SystemExit(f"round {r}: {p['run_id']}: "
                                 f"{row['error'] if row else 'no ngraphbench row'}")
            if row["threads"] != str(args.threads) or p["threads"] != args.threads:
                raise SystemExit(f"{p['run_id']}: ngraphbench ran with {row['threads']} threads, "
                                 f"Python with {p['threads']}, not {args.threads}")
            label = p["run_id"]
            c.add(label, "p50 ms", r, ratios.cell(row, "latency_p50_ms"), p["python_ms"])
            c.add(label, "cpu ms/inf", r, ratios.cell(row, "cpu_ms_per_inference"),
                  p["python_cpu_ms"])
            faults.setdefault(label, []).append(p["python_faults_per_iter"])
            if r == 1:
                compile_times[label] = (ratios.cell(row, "compile_s"), p["first_call_s"],
                                        p["convert_s"])
    print(f"torch {torch_version}, {args.threads} threads, warmup {args.warmup}, repeats "
          f"{args.repeats}, {len(rounds)} rounds; ngraphbench `inductor` (AOTInductor package, "
          f"freezing, max_autotune {'on' if args.max_autotune else 'off'}) vs torch.compile "
          f"(mode {mode}, freezing) on the same onnx2torch module; Python's heap: "
          f"{args.python_heap}")
    c.print()
    print("Python's minor page faults per timed call, median over rounds: " +
          ", ".join(f"{label} {statistics.median(f):.0f}" for label, f in faults.items()))
    print("compile time, round 1 (cold): ngraphbench compile_s (onnx2torch + torch.export + "
          "AOTInductor, in its subprocess) / Python's first torch.compile'd call (+ its "
          "onnx2torch conversion before it)")
    for label, (ngb, first, convert) in compile_times.items():
        ngb_text = f"{ngb:.1f} s" if ngb is not None else "-"
        print(f"  {label:<24} ngraphbench {ngb_text:>8}   python {first:6.1f} s "
              f"(+ {convert:.1f} s convert)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("time", help="torch.compile the run's module in Python and time it")
    t.add_argument("--onnx", required=True, help="the run's model (ngraphbench export)")
    t.add_argument("--run-id", required=True)
    t.add_argument("--out", required=True, help="JSON file to write")
    t.add_argument("--compile-script", default=COMPILE_SCRIPT,
                   help="ngraphbench's inductor_compile.py, whose functions build the module")
    r = sub.add_parser("report", help="print the per-round ratios")
    r.add_argument("--dir", required=True, help="the bench's directory of rounds")
    r.add_argument("--python-heap", default="pinned", choices=("pinned", "glibc"),
                   help="how the .sh ran Python's heap (printed only)")
    for p in (t, r):
        p.add_argument("--threads", type=int, required=True)
        p.add_argument("--warmup", type=int, default=10)
        p.add_argument("--repeats", type=int, default=50)
        p.add_argument("--max-autotune", action="store_true",
                       help="max_autotune on, mode max-autotune-no-cudagraphs")
    args = parser.parse_args()
    time_model(args) if args.command == "time" else report(args)


if __name__ == "__main__":
    main()
