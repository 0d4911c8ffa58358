"""Paired ratios over alternating rounds, printed as a median with its spread (bench/ scripts).

Every bench/ comparison measures its two sides, A and B, once per round and per model, in
alternating order (A then B, then B then A on the next round), so that drift in the machine's
load hits both sides alike. On a shared 2-core VM two identical runs differ by up to 25 %, so a
single ratio, or a ratio of two medians, says little: each round gives its own ratio A / B, and a
comparison is the median of those ratios with their interquartile range, min-max and the number
of rounds. A ratio whose IQR straddles 1 does not show a difference.

Stdlib only, so any python3 can import it:

    sys.path.insert(0, "<repo>/bench")
    import ratios
    c = ratios.Comparison("ngraphbench", "python")
    c.add("conv_blocks_w64_d4_b8", "p50 ms", round_=1, a=12.3, b=12.0)
    c.add("conv_blocks_w64_d4_b8", "cpu ms/inf", round_=1, a=24.1, b=None)  # None: not measured
    c.print()
"""
import csv
import glob
import math
import os
import re
import statistics
import sys


def percentile(values, q):
    """q-th percentile by linear interpolation between closest ranks (NumPy's default, as the
    rows' own percentiles): position q/100 * (n - 1) in the sorted values."""
    xs = sorted(values)
    pos = q / 100.0 * (len(xs) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (pos - lo) * (xs[hi] - xs[lo])


def row_paths(device_dir):
    """The row files of a results tree's device folder, <device_dir>/<compiler>/<run_id>.csv,
    sorted: every CSV there but a run's side files (latency trace, profile, server steps)."""
    return sorted(path for path in glob.glob(os.path.join(device_dir, "*", "*.csv"))
                  if not re.search(r"\.(latencies|profile|server_steps)\.csv$", path))


def read_row(path):
    """The one row of an ngraphbench result CSV, as a dict."""
    with open(path, newline="") as f:
        return next(csv.DictReader(f))


def phases(row):
    """A row's phases_s (each phase's wall time summed over its processes) as {phase: seconds};
    empty for a row from before rows had them."""
    return {k: float(v) for k, v in
            (part.split("=", 1) for part in (row.get("phases_s") or "").split(";") if "=" in part)}


def cell(row, column):
    """A numeric cell as float, or None when empty or absent (an older schema, a figure the run
    could not measure: `notes` says why)."""
    value = row.get(column, "")
    return float(value) if value not in ("", None) else None


class Comparison:
    """Values of sides A and B per (label, metric, round); prints the per-round ratios A / B."""

    def __init__(self, side_a, side_b):
        self.side_a, self.side_b = side_a, side_b
        self.cells = {}        # (label, metric) -> {round: (a, b)}
        self.notes = []

    def add(self, label, metric, round_, a, b):
        """One round's pair; a or b None where that side did not measure it this round."""
        self.cells.setdefault((label, metric), {})[round_] = (a, b)

    def note(self, text):
        """A line printed under the table, e.g. why a metric has no ratio."""
        self.notes.append(text)

    def ratios(self, label, metric):
        """{round: a / b} over the rounds where both sides have a value."""
        return {r: a / b for r, (a, b) in sorted(self.cells[(label, metric)].items())
                if a is not None and b is not None and b != 0}

    def print(self, per_round=False, overall=True, out=sys.stdout):
        """The table: per (label, metric) the medians of each side over rounds and the median
        per-round ratio with IQR and min-max. `overall` adds per metric a line over all labels:
        per round the geometric mean of the labels' ratios (rounds where every label has one).
        `per_round` lists each row's ratios in round order."""
        labels = list(dict.fromkeys(label for label, _ in self.cells))
        metrics = list(dict.fromkeys(metric for _, metric in self.cells))
        w = max([len(s) for s in labels] + [len("all (geomean)"), 5]) + 2
        wa, wb = max(12, len(self.side_a) + 2), max(12, len(self.side_b) + 2)
        print(f"ratio = {self.side_a} / {self.side_b}, one per round (above 1: "
              f"{self.side_a} higher); median, IQR and min-max over rounds", file=out)
        print(f"{'':<{w}}{'metric':<12}{self.side_a:>{wa}}{self.side_b:>{wb}}{'ratio':>8}"
              f"{'IQR':>18}{'min-max':>18}{'rounds':>8}", file=out)

        def line(label, metric, a, b, rs, why=None):
            med = lambda xs: f"{statistics.median(xs):.4g}" if xs else "-"
            text = f"{label:<{w}}{metric:<12}{med(a):>{wa}}{med(b):>{wb}}"
            if rs:
                text += (f"{statistics.median(rs):>8.3f}"
                         f"{f'[{percentile(rs, 25):.3f}, {percentile(rs, 75):.3f}]':>18}"
                         f"{f'[{min(rs):.3f}, {max(rs):.3f}]':>18}{len(rs):>8}")
            else:
                missing = [side for side, xs in ((self.side_a, a), (self.side_b, b)) if not xs]
                text += f"{'n/a':>8}  " + (why or (f"no value from {' or '.join(missing)}"
                                                   if missing else "no round with both sides"))
            print(text, file=out)
            if per_round and rs:
                print(f"{'':<{w}}{'':<12}per round: " + " ".join(f"{x:.3f}" for x in rs),
                      file=out)

        for label in labels:
            for metric in metrics:
                if (label, metric) not in self.cells:
                    continue
                pairs = self.cells[(label, metric)].values()
                line(label, metric, [a for a, _ in pairs if a is not None],
                     [b for _, b in pairs if b is not None],
                     list(self.ratios(label, metric).values()))
        if overall and len(labels) > 1:
            for metric in metrics:
                per_label = [self.ratios(label, metric) for label in labels
                             if (label, metric) in self.cells]
                rounds = set.intersection(*(set(rs) for rs in per_label))
                geo = [math.exp(statistics.fmean(math.log(rs[r]) for rs in per_label))
                       for r in sorted(rounds)]
                line("all (geomean)", metric, [], [], geo, "no round where every row has a ratio")
        for text in self.notes:
            print(text, file=out)
