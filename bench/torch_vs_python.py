"""Times ngraphbench's synthetic models in Python PyTorch; prints both sides' ratios per round.

`time` rebuilds one model as torch.nn modules with the same shapes (conv_block, mha_block; see
src/ngraphbench/models/synthetic.h) and times it either in eager PyTorch (the twin of
`identity`) or traced + frozen + optimize_for_inference TorchScript (the twin of `torchscript`),
with the CPU time per inference (time.process_time() over the timed loop / iterations) and this
process's minor page faults per timed iteration. bench/torch_vs_python.sh runs it next to the
matching `ngraphbench run`, the two alternating. `report` pairs each round's Python figures with
that round's rows and prints the median per-round ratios with IQR and min-max
(bench/ratios.py). Weights differ (latency does not depend on their values); shapes, threads,
warmup and repeats are the same.
"""
import argparse
import glob
import json
import os
import resource
import statistics
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn

SPATIAL = 56    # kConvSpatial
SEQUENCE = 197  # kSequenceLength
HEAD_DIM = 64   # kHeadDim
PYTHON = {"identity": "eager", "torchscript": "torch.jit"}  # ngraphbench's twin

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ratios  # noqa: E402


class MhaBlock(nn.Module):
    """Self-attention as the IR spells it: Linear Q, K, V, SDPA per head, Linear out, ReLU."""

    def __init__(self, width):
        super().__init__()
        self.heads = max(1, width // HEAD_DIM)
        self.q, self.k, self.v, self.o = (nn.Linear(width, width) for _ in range(4))

    def forward(self, x):
        b, s, w = x.shape
        def split(t):
            return t.reshape(b, s, self.heads, w // self.heads).permute(0, 2, 1, 3)
        y = F.scaled_dot_product_attention(split(self.q(x)), split(self.k(x)), split(self.v(x)))
        return torch.relu(self.o(y.permute(0, 2, 1, 3).reshape(b, s, w)))


def build(family, width, depth, batch):
    if family == "conv_block":
        layers = []
        for _ in range(depth):
            layers += [nn.Conv2d(width, width, 3, padding=1, bias=False), nn.BatchNorm2d(width),
                       nn.ReLU()]
        return nn.Sequential(*layers).eval(), torch.randn(batch, width, SPATIAL, SPATIAL)
    if family == "mha_block":
        return (nn.Sequential(*(MhaBlock(width) for _ in range(depth))).eval(),
                torch.randn(batch, SEQUENCE, width))
    raise SystemExit(f"family {family!r} is not rebuilt in Python; use conv_block or mha_block")


def torchscript(model, x):
    with torch.no_grad():
        traced = torch.jit.trace(model, x)
    return torch.jit.optimize_for_inference(torch.jit.freeze(traced))


def time_ms(fn, x, warmup, repeats):
    """Median latency in ms, CPU ms per inference and minor page faults per timed iteration."""
    with torch.inference_mode():
        for _ in range(warmup):
            fn(x)
        times = []
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        cpu = time.process_time()
        for _ in range(repeats):
            start = time.perf_counter_ns()
            fn(x)
            times.append(time.perf_counter_ns() - start)
        cpu = time.process_time() - cpu
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    return statistics.median(times) / 1e6, cpu * 1e3 / repeats, faults / repeats


def time_model(args):
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    out = []
    for batch in args.batches:
        net, x = build(args.family, args.width, args.depth, batch)
        fn = net if args.compiler == "identity" else torchscript(net, x)
        ms, cpu_ms, faults = time_ms(fn, x, args.warmup, args.repeats)
        out.append({"family": args.family, "width": args.width, "depth": args.depth,
                    "batch": batch, "compiler": args.compiler, "python_ms": ms,
                    "python_cpu_ms": cpu_ms, "python_faults_per_iter": faults})
    with open(args.out, "w") as f:
        json.dump(out, f)


def read_rows(results):
    """ngraphbench rows under results/<device>/<compiler>/, by (compiler, family, width, depth,
    batch)."""
    rows = {}
    for path in sorted(glob.glob(os.path.join(results, "*", "*", "*.csv"))):
        if path.endswith(".latencies.csv"):
            continue
        row = ratios.read_row(path)
        rows[(row["compiler"], row["family"], int(row["width"]), int(row["depth"]),
              int(row["batch_size"]))] = row
    return rows


def report(args):
    print(f"torch {torch.__version__}, {args.threads} threads, warmup {args.warmup}, repeats "
          f"{args.repeats}; faults = Python's minor page faults per iteration; ngraphbench's "
          f"workers fix their heap (measure/heap.h), malloc below is the Python side's")
    for malloc in ("glibc", "pinned"):
        rounds = sorted(glob.glob(os.path.join(args.dir, malloc, "round*")))
        if not rounds:
            continue
        c = ratios.Comparison("ngraphbench", "python")
        faults = {}
        for round_dir in rounds:
            r = int(os.path.basename(round_dir)[len("round"):])
            rows = read_rows(round_dir)
            for path in sorted(glob.glob(os.path.join(round_dir, "python_*.json"))):
                for p in json.load(open(path)):
                    key = (p["compiler"], p["family"], p["width"], p["depth"], p["batch"])
                    row = rows.get(key)
                    if row is None or row["status"] != "ok":
                        raise SystemExit(f"round {r}: {key}: "
                                         f"{row['error'] if row else 'no ngraphbench row'}")
                    if row["threads"] != str(args.threads):
                        raise SystemExit(f"{p['compiler']} row ran with {row['threads']} "
                                         f"threads, not {args.threads}")
                    label = f"{row['model']} b{p['batch']} {p['compiler']}/{PYTHON[p['compiler']]}"
                    c.add(label, "p50 ms", r, ratios.cell(row, "latency_p50_ms"), p["python_ms"])
                    c.add(label, "cpu ms/inf", r, ratios.cell(row, "cpu_ms_per_inference"),
                          p["python_cpu_ms"])
                    faults.setdefault(label, []).append(p["python_faults_per_iter"])
        print(f"\nmalloc: {malloc}")
        c.print()
        print("Python's minor page faults per iteration, median over rounds: " +
              ", ".join(f"{label} {statistics.median(f):.0f}" for label, f in faults.items()))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("time", help="time one model in Python, as one ngraphbench compiler runs it")
    t.add_argument("--family", required=True, choices=("conv_block", "mha_block"))
    t.add_argument("--width", type=int, required=True)
    t.add_argument("--depth", type=int, required=True)
    t.add_argument("--batches", type=lambda s: [int(b) for b in s.split(",")], required=True,
                   help="comma-separated batch sizes")
    t.add_argument("--compiler", required=True, choices=sorted(PYTHON),
                   help="the ngraphbench compiler whose Python twin to time")
    t.add_argument("--out", required=True, help="JSON file to write")
    r = sub.add_parser("report", help="print the per-round ratios")
    r.add_argument("--dir", required=True, help="the bench's directory of rounds")
    for p in (t, r):
        p.add_argument("--threads", type=int, required=True)
        p.add_argument("--warmup", type=int, default=10)
        p.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    time_model(args) if args.command == "time" else report(args)


if __name__ == "__main__":
    main()
