"""Times the models of ngraphbench result rows in Python PyTorch and prints both side by side.

Reads the rows that bench/torch_vs_python.sh had `ngraphbench run` write, rebuilds each model
as torch.nn modules with the same shapes (conv_block, mha_block; see src/ngraphbench/models/
synthetic.h), and times eager PyTorch against `identity` rows and traced + frozen +
optimize_for_inference TorchScript against `torchscript` rows. Weights differ (latency does not
depend on their values); shapes, threads, warmup and repeats are the same.
"""
import argparse
import csv
import glob
import os
import statistics
import time

import torch
import torch.nn.functional as F
from torch import nn

SPATIAL = 56    # kConvSpatial
SEQUENCE = 197  # kSequenceLength
HEAD_DIM = 64   # kHeadDim


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


def median_ms(fn, x, warmup, repeats):
    with torch.inference_mode():
        for _ in range(warmup):
            fn(x)
        times = []
        for _ in range(repeats):
            start = time.perf_counter_ns()
            fn(x)
            times.append(time.perf_counter_ns() - start)
    return statistics.median(times) / 1e6


def read_rows(results):
    rows = {}
    for path in sorted(glob.glob(os.path.join(results, "*", "*.csv"))):
        if path.endswith(".latencies.csv"):
            continue
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                rows[(row["model"], int(row["batch_size"]), row["compiler"])] = row
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", required=True, help="results/<device> directory")
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    rows = read_rows(args.results)
    if not rows:
        raise SystemExit(f"no result rows under {args.results}")
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, warmup {args.warmup}, "
          f"repeats {args.repeats}; ratio = ngraphbench / Python (1.00 = same cost)")
    header = (f"{'model':<22} {'batch':>5} | {'identity':>10} {'eager':>10} {'ratio':>6} | "
              f"{'torchscript':>11} {'torch.jit':>10} {'ratio':>6}")
    print(header)
    print("-" * len(header))
    for model, batch in sorted({(m, b) for m, b, _ in rows}):
        any_row = next(r for (m, b, _), r in rows.items() if m == model and b == batch)
        net, x = build(any_row["family"], int(any_row["width"]), int(any_row["depth"]), batch)
        cells = []
        for compiler, make in (("identity", lambda: net), ("torchscript", lambda: torchscript(net, x))):
            row = rows.get((model, batch, compiler))
            if row is None or row["status"] != "ok":
                cells.append((float("nan"), float("nan"), row["status"] if row else "no row"))
                continue
            if row["threads"] != str(args.threads):
                print(f"warning: {compiler} row ran with {row['threads']} threads")
            ours = float(row["latency_p50_ms"])
            theirs = median_ms(make(), x, args.warmup, args.repeats)
            cells.append((ours, theirs, f"{ours / theirs:6.2f}"))
        (a, b, r1), (c, d, r2) = cells
        print(f"{model:<22} {batch:>5} | {a:10.3f} {b:10.3f} {r1:>6} | {c:11.3f} {d:10.3f} {r2:>6}")


if __name__ == "__main__":
    main()
