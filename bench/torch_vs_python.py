"""Times the models of ngraphbench result rows in Python PyTorch; prints both side by side.

`time` reads the rows that bench/torch_vs_python.sh had `ngraphbench run` write in one round,
rebuilds each model as torch.nn modules with the same shapes (conv_block, mha_block; see
src/ngraphbench/models/synthetic.h), and times eager PyTorch (against `identity`) and traced +
frozen + optimize_for_inference TorchScript (against `torchscript`), with this process's minor
page faults per timed iteration. `report` prints the medians over rounds and their ratios.
Weights differ (latency does not depend on their values); shapes, threads, warmup and repeats
are the same.
"""
import argparse
import csv
import glob
import json
import os
import resource
import statistics
import time

import torch
import torch.nn.functional as F
from torch import nn

SPATIAL = 56    # kConvSpatial
SEQUENCE = 197  # kSequenceLength
HEAD_DIM = 64   # kHeadDim
PAIRS = (("identity", "eager"), ("torchscript", "torch.jit"))


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
    """Median latency in ms and minor page faults per timed iteration."""
    with torch.inference_mode():
        for _ in range(warmup):
            fn(x)
        times = []
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for _ in range(repeats):
            start = time.perf_counter_ns()
            fn(x)
            times.append(time.perf_counter_ns() - start)
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    return statistics.median(times) / 1e6, faults / repeats


def read_rows(results):
    rows = {}
    for path in sorted(glob.glob(os.path.join(results, "*", "*.csv"))):
        if path.endswith(".latencies.csv"):
            continue
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                rows[(row["model"], int(row["batch_size"]), row["compiler"])] = row
    return rows


def time_round(args):
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    rows = read_rows(args.results)
    if not rows:
        raise SystemExit(f"no result rows under {args.results}")
    out = []
    for model, batch in sorted({(m, b) for m, b, _ in rows}):
        any_row = next(r for (m, b, _), r in rows.items() if m == model and b == batch)
        net, x = build(any_row["family"], int(any_row["width"]), int(any_row["depth"]), batch)
        for compiler, python in PAIRS:
            row = rows.get((model, batch, compiler))
            if row is None or row["status"] != "ok":
                raise SystemExit(f"{model} b{batch} {compiler}: "
                                 f"{row['error'] if row else 'no row'}")
            if row["threads"] != str(args.threads):
                raise SystemExit(f"{compiler} row ran with {row['threads']} threads, "
                                 f"not {args.threads}")
            fn = net if compiler == "identity" else torchscript(net, x)
            ms, faults = time_ms(fn, x, args.warmup, args.repeats)
            out.append({"model": model, "batch": batch, "compiler": compiler, "python": python,
                        "ngraphbench_ms": float(row["latency_p50_ms"]), "python_ms": ms,
                        "python_faults_per_iter": faults})
    with open(args.out, "w") as f:
        json.dump(out, f)


def report(args):
    print(f"torch {torch.__version__}, {args.threads} threads, warmup {args.warmup}, repeats "
          f"{args.repeats}; medians over rounds; ratio = ngraphbench / Python (1.00 = same cost); "
          f"faults = Python's minor page faults per iteration; ngraphbench's workers fix their "
          f"heap (measure/heap.h), malloc below is the Python side's")
    for malloc in ("glibc", "pinned"):
        cells = {}
        for path in sorted(glob.glob(os.path.join(args.dir, malloc, "round*", "python.json"))):
            for c in json.load(open(path)):
                cells.setdefault((c["model"], c["batch"], c["compiler"]), []).append(c)
        if not cells:
            continue
        rounds = len(next(iter(cells.values())))
        print(f"\nmalloc: {malloc} ({rounds} rounds)")
        header = (f"{'model':<22} {'batch':>5} | {'identity':>9} {'eager':>9} {'ratio':>6} "
                  f"{'faults':>7} | {'torchscript':>11} {'torch.jit':>9} {'ratio':>6} {'faults':>7}")
        print(header)
        print("-" * len(header))
        for model, batch in sorted({(m, b) for m, b, _ in cells}):
            line = f"{model:<22} {batch:>5}"
            for compiler, _ in PAIRS:
                c = cells[(model, batch, compiler)]
                ours = statistics.median(x["ngraphbench_ms"] for x in c)
                theirs = statistics.median(x["python_ms"] for x in c)
                faults = statistics.median(x["python_faults_per_iter"] for x in c)
                width = 9 if compiler == "identity" else 11
                line += (f" | {ours:{width}.3f} {theirs:9.3f} {ours / theirs:6.2f} "
                         f"{faults:7.0f}")
            print(line)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("time", help="time one round in Python next to its ngraphbench rows")
    t.add_argument("--results", required=True, help="results/<device> directory of the round")
    t.add_argument("--out", required=True, help="JSON file to write")
    r = sub.add_parser("report", help="print the rounds side by side")
    r.add_argument("--dir", required=True, help="the bench's directory of rounds")
    for p in (t, r):
        p.add_argument("--threads", type=int, required=True)
        p.add_argument("--warmup", type=int, default=10)
        p.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    time_round(args) if args.command == "time" else report(args)


if __name__ == "__main__":
    main()
