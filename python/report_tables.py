"""The analysis CSVs the static report reads, and the numbers in them.

The names of analyze's tables, the reader of one table (results_io's capped reader), a cell as a
number, a value's 95% interval, and the grouping and summaries every section of report.md shares.
"""

import math
import os
from collections import OrderedDict

import results_io  # the capped reader of the files the report reads

# The compiler speedups are measured against: the one whose description says `baseline: true`
# (compilers/<name>/compiler.yaml), which `ngraphbench report` passes as --baseline.
BASELINE = None
TABLES = ("scaling.csv", "blocks.csv", "ranking.csv", "rank_reversals.csv", "failures.csv")
INVALID = "invalid.csv"  # written by analyze since result schema 2
PRECISION = "precision_speedup.csv"  # written by analyze since it has a precision column
PROFILE_RUNS, PROFILE_OPS, PROFILE_SPEEDUP = (
    "profile_runs.csv", "profile_op_classes.csv", "profile_speedup_by_op.csv")
# Written by analyze only when the inputs hold offline runs (the first two) or server runs.
ROADS, OFFLINE_RUNS, SERVER_RUNS, SERVER_STEPS = (
    "batch_vs_streams.csv", "offline_runs.csv", "server_runs.csv", "server_steps.csv")
# The interval columns of a plotted value (absent in analysis dirs from before them).
INTERVALS = {
    "throughput_median_sps": ("throughput_ci_low_sps", "throughput_ci_high_sps"),
    "ase": ("ase_ci_low", "ase_ci_high"),
    "rtr": ("rtr_ci_low", "rtr_ci_high"),
    "speedup_vs_identity": ("speedup_ci_low", "speedup_ci_high"),
}


def read_table(path):
    return results_io.read_table(path)


def optional_table(analysis_dir, name):
    """The table, or None when analyze did not write it."""
    path = os.path.join(analysis_dir, name)
    return read_table(path) if os.path.exists(path) else None


def num(text):
    """The cell's number; None for an empty cell, and for what no measurement can be (inf,
    nan), which is neither drawn nor shown."""
    if text in ("", None):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def interval(row, column):
    """(low, high) of the value's 95% interval, or None where the row has none."""
    low_col, high_col = INTERVALS.get(column, (None, None))
    low, high = num(row.get(low_col)), num(row.get(high_col))
    return (low, high) if low is not None and high is not None else None


def group_by(rows, *keys):
    """Groups rows by the given columns, keeping first-seen order (the CSVs are sorted)."""
    groups = OrderedDict()
    for row in rows:
        groups.setdefault(tuple(row[k] for k in keys), []).append(row)
    return groups


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def compiler_label(row):
    """The compiler, with its precision where that is not fp32 (an int8 run is another column)."""
    precision = row.get("precision", "")
    return row["compiler"] + ("" if precision in ("", "fp32") else f" {precision}")


def left_out_of_numbers(invalid_row):
    return invalid_row.get("left_out", "true") == "true"
