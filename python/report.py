#!/usr/bin/env python3
"""Turns the CSVs of `ngraphbench analyze` into a Markdown report with PNG figures.

    python/report.py [ANALYSIS_DIR] [--name NAME] [--reports-dir DIR]

reads ANALYSIS_DIR (default reports/analysis) and writes DIR/NAME/report.md (default
reports/report/report.md) with its figures in DIR/NAME/figures/. Every number comes from the
analysis CSVs; cells they leave empty (a missing baseline) stay empty here, with the reason shown.
Runs marked invalid are counted and listed from invalid.csv (absent in older analysis dirs).
Values with a 95% interval (analyze's <value>_ci_low / _ci_high columns) are drawn with error
bars; analysis dirs from before those columns give the same figures without them.
Needs only the standard library and matplotlib (pinned in scripts/setup/report.sh).
"""

import argparse
import math
import os
import re
import sys
from collections import OrderedDict, defaultdict

import matplotlib

matplotlib.use("Agg")  # no display on benchmark machines
# Names are drawn as they are: a "$" in a model or device name is no TeX (whose parser would
# fail on some names).
matplotlib.rcParams["text.parse_math"] = False
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402

import results_io  # noqa: E402  (the capped reader of the files the report reads)

# The compiler speedups are measured against: the one whose description says `baseline: true`
# (compilers/<name>/compiler.yaml), which `ngraphbench report` passes as --baseline.
BASELINE = None
TABLES = ("scaling.csv", "blocks.csv", "ranking.csv", "rank_reversals.csv", "failures.csv")
INVALID = "invalid.csv"  # written by analyze since result schema 2
# The interval columns of a plotted value (absent in analysis dirs from before them).
INTERVALS = {
    "throughput_median_sps": ("throughput_ci_low_sps", "throughput_ci_high_sps"),
    "ase": ("ase_ci_low", "ase_ci_high"),
    "rtr": ("rtr_ci_low", "rtr_ci_high"),
    "speedup_vs_identity": ("speedup_ci_low", "speedup_ci_high"),
}
ERROR_BARS = ("Error bars are 95% intervals from the spread between the worker processes' "
              "medians (Welch's t on their logarithms for a ratio of two runs; the row's "
              "reproduction interval for a throughput); a run of one process has none.")


def read_table(path):
    return results_io.read_table(path)


def num(text):
    """The cell's number; None for an empty cell, and for what no measurement can be (inf,
    nan), which is neither drawn nor shown."""
    if text in ("", None):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def fmt(value, digits=3):
    if value is None:
        return ""
    return f"{value:.{digits}g}"


# Text from the inputs (names, error messages) shown in report.md: every character Markdown or
# the HTML it may hold would read as markup is escaped, and a line break becomes a space (a table
# row is one line). One pass, so that no escape added is escaped again.
MD_ESCAPES = {"\\": "\\\\", "&": "&amp;", "<": "&lt;", ">": "&gt;", "|": "\\|", "`": "\\`",
              "*": "\\*", "[": "\\[", "]": "\\]", "\r\n": " ", "\n": " ", "\r": " "}
MD_SPECIAL = re.compile("|".join(re.escape(k) for k in sorted(MD_ESCAPES, key=len, reverse=True)))


def md_text(value):
    """`value` as literal text in Markdown (a table cell, a heading, an image's alt text)."""
    return MD_SPECIAL.sub(lambda m: MD_ESCAPES[m.group(0)], str(value))


def md_code(value):
    """`value` as inline code, or as escaped text where it holds what would end the code."""
    text = str(value)
    return f"`{text}`" if not re.search("[`\r\n|]", text) else md_text(text)


def on(experiment, device):
    return f"{md_text(experiment)} on {md_text(device)}"


def md_table(header, rows):
    lines = ["| " + " | ".join(md_text(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(md_text(v) for v in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def group_by(rows, *keys):
    """Groups rows by the given columns, keeping first-seen order (the CSVs are sorted)."""
    groups = OrderedDict()
    for row in rows:
        groups.setdefault(tuple(row[k] for k in keys), []).append(row)
    return groups


def compiler_styles(compilers):
    """One colour per compiler across every figure; the baseline is black and dashed."""
    palette = plt.get_cmap("tab10").colors
    others = sorted(c for c in compilers if c != BASELINE)
    styles = {c: dict(color=palette[i % len(palette)], linestyle="-") for i, c in enumerate(others)}
    styles[BASELINE] = dict(color="black", linestyle="--")
    return styles


def series(rows, styles):
    """The rows by (compiler, precision), each with its label, compiler and line style: the
    compiler's colour, solid at fp32 (or no precision: an analysis from before the column),
    dotted at another precision."""
    groups = OrderedDict()
    for row in rows:
        groups.setdefault((row["compiler"], row.get("precision", "")), []).append(row)
    out = []
    for (compiler, precision), points in sorted(groups.items()):
        if precision in ("", "fp32"):
            out.append((compiler, compiler, styles[compiler], points))
        else:
            out.append((f"{compiler} {precision}", compiler,
                        dict(styles[compiler], linestyle=":"), points))
    return out


def small_multiples(count):
    cols = min(4, count)
    rows = math.ceil(count / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 2.8 * rows), squeeze=False)
    for ax in axes.flat[count:]:
        ax.set_visible(False)
    return fig, list(axes.flat)[:count]


def log2_axis(ax, xs, label):
    """Log2 x axis ticked at the measured values, written as plain numbers."""
    ticks = sorted(set(xs))
    ax.set_xscale("log", base=2)
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(t) for t in ticks])
    ax.minorticks_off()
    ax.set_xlabel(label, fontsize=8)


def log_y_axis(ax):
    """Log y axis ticked at 1, 2 and 5 per decade, written as plain numbers."""
    ax.set_yscale("log")
    plain_log_axis(ax.yaxis)


def plain_log_axis(axis):
    """A log axis's ticks at 1, 2 and 5 per decade, written as plain numbers."""
    axis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(ticker.NullFormatter())


def finish(fig, axes, title, path):
    """One legend for all panels, right of them, then the PNG."""
    handles = {}
    for ax in axes:
        ax.tick_params(labelsize=7)
        ax.grid(True, alpha=0.3)
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    fig.legend(handles.values(), handles.keys(), loc="center right", fontsize=8)
    fig.suptitle(title, fontsize=10)
    width = fig.get_size_inches()[0]
    fig.tight_layout(rect=(0, 0, 1 - 1.4 / width, 1))
    # No "Software" stamp: the same CSVs give the same PNG bytes across matplotlib builds.
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)


def safe(text):
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


def interval(row, column):
    """(low, high) of the value's 95% interval, or None where the row has none."""
    low_col, high_col = INTERVALS.get(column, (None, None))
    low, high = num(row.get(low_col)), num(row.get(high_col))
    return (low, high) if low is not None and high is not None else None


def plot_line(ax, points, x_column, column, label, style):
    """One compiler's values against x_column, with error bars where they have an interval."""
    xy = sorted(((int(p[x_column]), num(p[column]), interval(p, column)) for p in points
                 if num(p[column]) is not None), key=lambda point: point[:2])
    if not xy:
        return
    ax.plot([x for x, _, _ in xy], [y for _, y, _ in xy], marker="o", markersize=3, label=label,
            **style)
    bars = [(x, y, ci) for x, y, ci in xy if ci is not None]
    if bars:
        # A value rounded in its CSV may lie a hair outside its interval (a throughput whose
        # interval ends at it): that bar starts at the value.
        ax.errorbar([x for x, _, _ in bars], [y for _, y, _ in bars],
                    yerr=[[max(0.0, y - ci[0]) for _, y, ci in bars],
                          [max(0.0, ci[1] - y) for _, y, ci in bars]],
                    fmt="none", ecolor=style["color"], elinewidth=0.8, capsize=2)


def plot_batch_scaling(rows, column, ylabel, styles, path, title, ase_bounds=False):
    """One panel per model, one line per compiler, batch size on a log2 axis, values on a log
    axis (ASE spans 1/b to 1). ase_bounds draws
    the two reference readings of ASE: 1 (the batch takes as long as one sample: perfect scaling)
    and 1/b (the batch takes b times as long: batching gains nothing)."""
    models = group_by(rows, "model")
    fig, axes = small_multiples(len(models))
    for ax, ((model,), model_rows) in zip(axes, models.items()):
        for label, _, style, points in series(model_rows, styles):
            plot_line(ax, points, "batch_size", column, label, style)
        batches = sorted({int(r["batch_size"]) for r in model_rows})
        if ase_bounds:
            ax.plot(batches, [1.0] * len(batches), color="grey", linestyle=":",
                    label="1 = perfect")
            ax.plot(batches, [1.0 / b for b in batches], color="grey", linestyle="-.",
                    label="1/b = no gain")
        log2_axis(ax, batches, "batch size")
        log_y_axis(ax)
        ax.set_title(model, fontsize=9)
        ax.set_ylabel(ylabel, fontsize=8)
    finish(fig, axes, title, path)


def plot_vs_depth(rows, column, ylabel, speedup, styles, path, title):
    """One panel per width, one line per compiler, depth on a log2 axis, values on a log axis (a
    speedup of 2 and one of 1/2 lie equally far from 1). For speedups identity is the line at 1."""
    widths = sorted(group_by(rows, "width").items(), key=lambda kv: int(kv[0][0]))
    fig, axes = small_multiples(len(widths))
    for ax, ((width,), width_rows) in zip(axes, widths):
        for label, compiler, style, points in series(width_rows, styles):
            if speedup and compiler == BASELINE:
                continue
            plot_line(ax, points, "depth", column, label, style)
        if speedup:
            ax.axhline(1.0, label=BASELINE, **styles[BASELINE])
        log_y_axis(ax)
        log2_axis(ax, [int(r["depth"]) for r in width_rows], "depth")
        ax.set_title(f"width {width}", fontsize=9)
        ax.set_ylabel(ylabel, fontsize=8)
    finish(fig, axes, title, path)


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def compiler_label(row):
    """The compiler, with its precision where that is not fp32 (an int8 run is another column)."""
    precision = row.get("precision", "")
    return row["compiler"] + ("" if precision in ("", "fp32") else f" {precision}")


def speedup_summary(scaling):
    """Geometric-mean speedup over identity per (device, experiment, batch size) and compiler
    (and precision)."""
    out = []
    compilers = sorted({compiler_label(r) for r in scaling if r["compiler"] != BASELINE})
    for (device, experiment, batch), rows in sorted(
            group_by(scaling, "device", "experiment", "batch_size").items(),
            key=lambda kv: (kv[0][0], kv[0][1], int(kv[0][2]))):
        cells = []
        for compiler in compilers:
            values = [num(r["speedup_vs_identity"]) for r in rows
                      if compiler_label(r) == compiler and r["compiler"] != BASELINE
                      and num(r["speedup_vs_identity"]) is not None]
            cells.append(f"{fmt(geomean(values))} ({len(values)})" if values else "")
        if any(cells):
            out.append([device, experiment, batch] + cells)
    return compilers, out


def invalid_summary(invalid):
    """The sentence on runs marked invalid; invalid is None for analysis dirs without the file."""
    if invalid is None:
        return (f"No `{INVALID}` (an analysis from before result schema 2): runs marked invalid "
                "are not known.")
    if not invalid:
        return "No run was marked invalid."
    left_out = sum(1 for r in invalid if left_out_of_numbers(r))
    kept = len(invalid) - left_out
    text = ""
    if left_out:
        text = (f"{left_out} ok runs left out of every number as invalid (listed under \"Runs "
                "marked invalid\"; `ngraphbench analyze --include-invalid` keeps them).")
    if kept:
        text += (" " if text else "") + (f"{kept} runs marked invalid were kept in the numbers "
                                         "(`--include-invalid`).")
    return text


def left_out_of_numbers(invalid_row):
    return invalid_row.get("left_out", "true") == "true"


def reversed_text(ranking_row):
    """'2 of 3', with how many are significant and tied where the analysis judged them."""
    text = f"{ranking_row['reversed_pairs']} of {ranking_row['pairs']}"
    if ranking_row.get("significant_reversals") not in (None, "") and int(
            ranking_row["reversed_pairs"]) > 0:
        text += (f" ({ranking_row['significant_reversals']} significant, "
                 f"{ranking_row['tied_reversals']} tied)")
    return text


def interval_text(row, prefix):
    """'0.48–0.52' from <prefix>_ci_low and _ci_high; '' where they are empty."""
    low, high = num(row.get(f"{prefix}_ci_low")), num(row.get(f"{prefix}_ci_high"))
    return f"{fmt(low, 4)}–{fmt(high, 4)}" if low is not None and high is not None else ""


def clip(text, length=160):
    return (text[:length] + "…") if len(text) > length else text


PRECISION = "precision_speedup.csv"  # written by analyze since it has a precision column


def plot_accuracy_latency(rows, styles, path, title):
    """One panel per model: each run at a precision other than fp32 a point (latency p50 with its
    95% interval as a horizontal bar, SNR in dB against the fp32 reference), and each compiler's
    fp32 run a vertical line at its latency (its interval shaded): left of its line is faster,
    higher is closer to fp32."""
    models = group_by(rows, "model")
    fig, axes = legible_multiples(len(models))
    for ax, ((model,), model_rows) in zip(axes, models.items()):
        fp32_drawn = set()
        for r in model_rows:
            style = styles[r["compiler"]]
            latency, snr = num(r["latency_p50_ms"]), num(r["check_snr_db"])
            if latency is not None and snr is not None:
                low = num(r["latency_p50_ci_low_ms"])
                high = num(r["latency_p50_ci_high_ms"])
                xerr = ([[max(0.0, latency - low)], [max(0.0, high - latency)]]
                        if low is not None and high is not None else None)
                ax.errorbar([latency], [snr], xerr=xerr, fmt="o", markersize=4,
                            color=style["color"], elinewidth=0.8, capsize=2,
                            label=f"{r['compiler']} {r['precision']}")
            fp32 = num(r["fp32_latency_p50_ms"])
            if fp32 is not None and r["compiler"] not in fp32_drawn:
                fp32_drawn.add(r["compiler"])
                ax.axvline(fp32, color=style["color"], linestyle="--", linewidth=0.9,
                           label=f"{r['compiler']} fp32")
                low = num(r["fp32_latency_p50_ci_low_ms"])
                high = num(r["fp32_latency_p50_ci_high_ms"])
                if low is not None and high is not None:
                    ax.axvspan(low, high, color=style["color"], alpha=0.12, linewidth=0)
        ax.set_xscale("log")
        plain_log_axis(ax.xaxis)
        ax.margins(y=0.3)
        ax.set_xlabel("latency p50 (ms)", fontsize=8)
        ax.set_ylabel("SNR vs fp32 (dB)", fontsize=8)
        ax.set_title(model, fontsize=9)
    finish(fig, axes, title, path)


def precision_section(analysis_dir, fig_dir, styles):
    """Speedup over fp32 and accuracy of the runs at other precisions, where there are any."""
    rows = optional_table(analysis_dir, PRECISION)
    if not rows:
        return []
    md = ["## Precision: speedup over fp32 and accuracy\n",
          "Each run at a precision other than fp32 against the same compiler's fp32 run "
          "(same device, experiment, model, batch size and other settings): speedup = "
          "T_precision/T_fp32 with its 95% interval (Welch on the two runs' process medians), "
          "and the output check against the fp32 reference: cosine similarity, SNR in dB and "
          "top-1 agreement (docs/results.md, Quantized rows).\n"]
    md.append(md_table(
        ["device", "experiment", "compiler", "precision", "model", "batch size", "p50 ms",
         "fp32 p50 ms", "speedup", "95%", "cosine", "SNR dB", "top-1", "note"],
        [[r["device"], r["experiment"], r["compiler"], r["precision"], r["model"],
          r["batch_size"], fmt(num(r["latency_p50_ms"]), 4), fmt(num(r["fp32_latency_p50_ms"]), 4),
          fmt(num(r["speedup_vs_fp32"])), interval_text(r, "speedup"),
          fmt(num(r["check_cosine"]), 5), fmt(num(r["check_snr_db"])),
          fmt(num(r["check_top1_agreement"])), clip(r["note"])] for r in rows]))
    for (device, experiment, batch), group in group_by(rows, "device", "experiment",
                                                       "batch_size").items():
        if not any(num(r["check_snr_db"]) is not None for r in group):
            continue
        name = safe(f"{device}_{experiment}_b{batch}_accuracy_vs_latency.png")
        plot_accuracy_latency(group, styles, os.path.join(fig_dir, name),
                              f"{experiment} on {device}, batch {batch}: accuracy against latency")
        md.append(f"![accuracy against latency, {on(experiment, device)}, batch "
                  f"{md_text(batch)}](figures/{name})\n")
    md.append("Points: the runs at another precision (bars: the 95% interval of the median "
              "latency); dashed lines: each compiler's fp32 run (shaded: its interval). Left of "
              "its compiler's line is faster than fp32; higher is closer to the fp32 outputs.\n")
    return md


PROFILE_RUNS, PROFILE_OPS, PROFILE_SPEEDUP = (
    "profile_runs.csv", "profile_op_classes.csv", "profile_speedup_by_op.csv")


def plot_profile(rows, path, title):
    """Stacked bars: one per run (model, batch size, compiler), its time per inference by
    operator class."""
    labels = list(dict.fromkeys(f"{r['model']} b{r['batch_size']}\n{r['compiler']}" for r in rows))
    classes = list(dict.fromkeys(r["op_class"] for r in rows))
    fig, ax = plt.subplots(figsize=(max(6, 0.7 * len(labels) + 2), 4.5))
    bottom = [0.0] * len(labels)
    for k, cls in enumerate(classes):
        ms = {f"{r['model']} b{r['batch_size']}\n{r['compiler']}": num(r["ms_per_inference"]) or 0
              for r in rows if r["op_class"] == cls}
        heights = [ms.get(label, 0.0) for label in labels]
        ax.bar(range(len(labels)), heights, bottom=bottom, label=cls,
               color=plt.get_cmap("tab10")(k % 10))
        bottom = [b + h for b, h in zip(bottom, heights)]
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("ms per inference")
    ax.legend(fontsize=8, ncol=2)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def profile_section(analysis_dir, fig_dir):
    """The per-operator profiles, where analyze wrote them (a run measured with --profile)."""
    md = ["## Where the time goes: per-operator profiles\n"]
    path = os.path.join(analysis_dir, PROFILE_RUNS)
    if not os.path.exists(path):
        md.append("No run was measured with `--profile` (docs/profiles.md).\n")
        return md
    runs = read_table(path)
    ops = read_table(os.path.join(analysis_dir, PROFILE_OPS))
    pairs = read_table(os.path.join(analysis_dir, PROFILE_SPEEDUP))
    md.append("Each compiler's own profiler, its kernels' time per inference by operator class. "
              "Fusion ratio = graph nodes / kernels per inference; profiled / p50 near 1 means "
              "the profile accounts for the timed latency.\n")
    md.append(md_table(
        ["device", "model", "batch size", "compiler", "kernels / inference", "graph nodes",
         "fusion ratio", "profiled ms", "p50 ms", "profiled / p50", "top class"],
        [[r["device"], r["model"], r["batch_size"], r["compiler"],
          fmt(num(r["kernels_per_inference"]), 4), r["ir_nodes"], fmt(num(r["fusion_ratio"])),
          fmt(num(r["profile_ms"])), fmt(num(r["latency_p50_ms"])),
          fmt(num(r["profile_over_p50"])),
          f"{r['top_op_class']} {fmt(100 * (num(r['top_op_share']) or 0))}%"] for r in runs]))
    for (device, experiment), rows in group_by(ops, "device", "experiment").items():
        name = safe(f"{device}_{experiment}_profile_by_op_class.png")
        plot_profile(rows, os.path.join(fig_dir, name),
                     f"{experiment} on {device}: time per inference by operator class")
        md.append(f"![time by operator class, {on(experiment, device)}](figures/{name})\n")
    if pairs:
        md.append("Time saved by the compiler over the baseline, by operator class, as a "
                  "fraction of the whole time saved (the fractions of a pair sum to 1).\n")
        md.append(md_table(
            ["device", "model", "batch size", "baseline", "compiler", "class", "baseline ms",
             "compiler ms", "saved ms", "fraction of saved"],
            [[r["device"], r["model"], r["batch_size"], r["baseline"], r["compiler"],
              r["op_class"], fmt(num(r["baseline_ms"])), fmt(num(r["compiler_ms"])),
              fmt(num(r["saved_ms"])), fmt(num(r["fraction_of_saved"]))] for r in pairs]))
    return md


# Written by analyze only when the inputs hold offline runs (the first two) or server runs.
ROADS, OFFLINE_RUNS, SERVER_RUNS, SERVER_STEPS = (
    "batch_vs_streams.csv", "offline_runs.csv", "server_runs.csv", "server_steps.csv")
ROAD_STYLES = {"batching": dict(linestyle="-", marker="o"),
               "concurrency": dict(linestyle=":", marker="s")}


def optional_table(analysis_dir, name):
    """The table, or None when analyze did not write it."""
    path = os.path.join(analysis_dir, name)
    return read_table(path) if os.path.exists(path) else None


def legible_multiples(count):
    """small_multiples, at least wide enough for one panel beside the legend and the title."""
    fig, axes = small_multiples(count)
    width, height = fig.get_size_inches()
    fig.set_size_inches(max(width, 7.5), max(height, 3.4))
    return fig, axes


def plot_roads(rows, styles, path, title):
    """One panel per model: throughput against k samples in flight, by batching (a batch of k,
    one request at a time; solid) and by concurrency (k streams of one sample; dotted), one colour
    per compiler."""
    models = group_by(rows, "model")
    fig, axes = legible_multiples(len(models))
    for ax, ((model,), model_rows) in zip(axes, models.items()):
        for (compiler,), points in sorted(group_by(model_rows, "compiler").items()):
            for road, column in (("batching", "batching_sps"),
                                 ("concurrency", "concurrency_sps")):
                xy = sorted((int(p["samples_in_flight"]), num(p[column])) for p in points
                            if num(p[column]) is not None)
                if xy:
                    ax.plot([x for x, _ in xy], [y for _, y in xy], markersize=3,
                            color=styles[compiler]["color"], label=f"{compiler}, {road}",
                            **ROAD_STYLES[road])
        log2_axis(ax, [int(r["samples_in_flight"]) for r in model_rows],
                  "samples in flight (batch size, or streams)")
        log_y_axis(ax)
        ax.set_title(model, fontsize=9)
        ax.set_ylabel("samples/s", fontsize=8)
    finish(fig, axes, title, path)


def plot_latency_throughput(offline, steps, styles, path, title):
    """One panel per model: per-request latency against samples/s. Offline: one point per
    streams count (p99), joined in order of streams; server: one point per rate measured (the
    latency at the run's percentile, queueing included), joined in order of rate, the row's own
    step ringed; the bound as a grey line."""
    models = list(dict.fromkeys([r["model"] for r in offline] + [r["model"] for r in steps]))
    fig, axes = legible_multiples(len(models))
    for ax, model in zip(axes, models):
        for (compiler, batch), points in sorted(group_by(
                [r for r in offline if r["model"] == model], "compiler", "batch_size").items()):
            xy = sorted(((int(p["streams"]), num(p["samples_per_s"]), num(p["latency_p99_ms"]))
                         for p in points if num(p["latency_p99_ms"]) is not None))
            if xy:
                ax.plot([x for _, x, _ in xy], [y for _, _, y in xy], marker="o", markersize=3,
                        linestyle="-", color=styles[compiler]["color"],
                        label=f"{compiler}, offline p99")
                for streams, x, y in xy:
                    ax.annotate(str(streams), (x, y), fontsize=6, xytext=(2, 2),
                                textcoords="offset points")
        bounds = set()
        for (compiler, run_id), points in sorted(group_by(
                [r for r in steps if r["model"] == model], "compiler", "run_id").items()):
            xy = sorted((num(p["target_qps"]), num(p["samples_per_s"]),
                         num(p["latency_at_percentile_ms"]), p["reported"] == "true")
                        for p in points)
            percentile = points[0]["latency_percentile"]
            ax.plot([x for _, x, _, _ in xy], [y for _, _, y, _ in xy], marker="^", markersize=4,
                    linestyle="--", color=styles[compiler]["color"],
                    label=f"{compiler}, server p{fmt(num(percentile))}")
            ax.plot([x for _, x, _, r in xy if r], [y for _, _, y, r in xy if r], marker="o",
                    markersize=9, linestyle="none", markerfacecolor="none",
                    color=styles[compiler]["color"])
            if num(points[0]["latency_bound_ms"]) is not None:
                bounds.add(num(points[0]["latency_bound_ms"]))
        for bound in sorted(bounds):
            ax.axhline(bound, color="grey", linestyle="-.", linewidth=1, label="latency bound")
        ax.set_xscale("log")
        plain_log_axis(ax.xaxis)
        log_y_axis(ax)
        ax.set_xlabel("samples/s", fontsize=8)
        ax.set_ylabel("latency of one request (ms)", fontsize=8)
        ax.set_title(model, fontsize=9)
    finish(fig, axes, title, path)


def peak_label(r):
    return (f"{r['model']} b{r['batch_size']} s{r['streams']}\n"
            f"p{fmt(num(r['latency_percentile']))} ≤ {fmt(num(r['latency_bound_ms']))} ms")


def plot_peaks(rows, styles, path, title):
    """Bars on a log axis: the peak QPS under the bound of every find_peak run, grouped by model
    (with its batch size, streams and bound), one bar per compiler; a run with no peak has no
    bar."""
    labels = list(dict.fromkeys(peak_label(r) for r in rows))
    compilers = sorted({r["compiler"] for r in rows})
    width = 0.8 / len(compilers)
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(labels) + 2), 4))
    for k, compiler in enumerate(compilers):
        peaks = {peak_label(r): num(r["peak_qps"]) for r in rows if r["compiler"] == compiler}
        xs = [i + (k - (len(compilers) - 1) / 2) * width for i in range(len(labels))]
        ax.bar(xs, [peaks.get(label) or float("nan") for label in labels], width=width,
               label=compiler, color=styles[compiler]["color"])
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=7)
    if any(r["peak_qps"] for r in rows):
        log_y_axis(ax)  # models' peaks differ by orders of magnitude
    ax.set_ylabel("peak QPS under the bound")
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)


def roads_summary(rows):
    """Per compiler: at how many (model, k) concurrency or batching gives more samples/s, and
    the geometric mean and range of concurrency / batching."""
    out = []
    for (compiler,), points in sorted(group_by(rows, "compiler").items()):
        ratios = [num(r["concurrency_over_batching"]) for r in points
                  if num(r["concurrency_over_batching"]) is not None]
        if not ratios:
            continue
        wins = sum(1 for r in points if r["better"] == "concurrency")
        out.append([compiler, len(ratios), wins, sum(1 for r in points if r["better"] == "batching"),
                    fmt(geomean(ratios)), f"{fmt(min(ratios))}–{fmt(max(ratios))}"])
    return out


def scenarios_section(analysis_dir, fig_dir, styles):
    """Batching against concurrency, the offline runs, latency against throughput and the peak
    QPS under the bound: only where analyze wrote their tables (the inputs hold offline or server
    runs), so that a report of single-stream runs alone stays as it was."""
    roads, offline = (optional_table(analysis_dir, t) for t in (ROADS, OFFLINE_RUNS))
    servers, steps = (optional_table(analysis_dir, t) for t in (SERVER_RUNS, SERVER_STEPS))
    if roads is None and servers is None:
        return []
    roads, offline, servers, steps = (t or [] for t in (roads, offline, servers, steps))
    md = ["## Offline and server: samples in flight, latency against throughput\n",
          "The paper's metrics (RTR, ASE, speedups, rankings) stay defined on one request at a "
          "time and the batch size; these stand beside them. k samples can be in flight in two "
          "ways: one batch of k, one request at a time (batching: single_stream, batch k, its "
          "median-latency throughput), or k requests of one sample each, each on its own "
          "execution context (concurrency: offline, batch 1, k streams, samples/s over the "
          "window). concurrency / batching above 1: the streams give more samples/s. A point "
          "value: an offline run's samples/s has no interval. A cell is empty where a road has "
          "no measured run at that k or the two runs' settings differ; nothing is "
          "extrapolated.\n"]
    if not roads:
        md.append("No measured offline run at batch size 1.\n")
    summary = roads_summary(roads)
    if summary:
        md.append(md_table(["compiler", "(model, k) compared", "concurrency better",
                            "batching better", "geomean concurrency / batching", "range"],
                           summary))
    for (device, experiment), rows in group_by(roads, "device", "experiment").items():
        md.append(f"### Batching or concurrency: {on(experiment, device)}\n")
        if any(num(r["batching_sps"]) is not None or num(r["concurrency_sps"]) is not None
               for r in rows):
            name = safe(f"{device}_{experiment}_batching_vs_concurrency.png")
            plot_roads(rows, styles, os.path.join(fig_dir, name),
                       f"{experiment} on {device}: samples/s against samples in flight")
            md.append(f"![batching against concurrency, {on(experiment, device)}]"
                      f"(figures/{name})\n")
        compared = [r for r in rows if num(r["concurrency_over_batching"]) is not None]
        if compared:
            md.append(md_table(
                ["compiler", "model", "k", "batching samples/s", "concurrency samples/s",
                 "concurrency / batching", "better", "batching p50 / p99 ms",
                 "concurrency p50 / p99 ms"],
                [[r["compiler"], r["model"], r["samples_in_flight"], fmt(num(r["batching_sps"]), 4),
                  fmt(num(r["concurrency_sps"]), 4), fmt(num(r["concurrency_over_batching"])),
                  r["better"],
                  f"{fmt(num(r['batching_latency_p50_ms']))} / "
                  f"{fmt(num(r['batching_latency_p99_ms']))}",
                  f"{fmt(num(r['concurrency_latency_p50_ms']))} / "
                  f"{fmt(num(r['concurrency_latency_p99_ms']))}"] for r in compared]))
        notes = defaultdict(int)
        for r in rows:
            if num(r["concurrency_over_batching"]) is None and r["note"]:
                notes[r["note"]] += 1
        if notes:
            md.append("Not compared, and why:\n")
            md.append(md_table(["reason", "cells"], sorted(notes.items())))

    if offline:
        md.append("### Offline runs\n")
        md.append(md_table(
            ["device", "experiment", "compiler", "run", "streams", "threads / stream",
             "samples/s", "p50 ms", "p99 ms", "CPU %"],
            [[r["device"], r["experiment"], r["compiler"], r["run_id"], r["streams"],
              r["threads_per_stream"], fmt(num(r["samples_per_s"]), 4),
              fmt(num(r["latency_p50_ms"])), fmt(num(r["latency_p99_ms"])),
              fmt(num(r["cpu_util_pct"]))] for r in offline]))

    curves = defaultdict(lambda: ([], []))
    for r in offline:
        curves[(r["device"], r["experiment"])][0].append(r)
    for r in steps:
        curves[(r["device"], r["experiment"])][1].append(r)
    for (device, experiment), (offline_rows, step_rows) in sorted(curves.items()):
        md.append(f"### Latency against throughput: {on(experiment, device)}\n")
        name = safe(f"{device}_{experiment}_latency_vs_throughput.png")
        plot_latency_throughput(offline_rows, step_rows, styles, os.path.join(fig_dir, name),
                                f"{experiment} on {device}: latency against samples/s")
        md.append(f"![latency against throughput, {on(experiment, device)}](figures/{name})\n")
        md.append("Offline: one point per streams count (its number beside it), the p99 of one "
                  "request's latency. Server: one point per rate measured (find_peak's steps, or "
                  "the run's one rate), the latency at the run's percentile from each query's "
                  "scheduled arrival (queueing included); ringed: the step the row reports; "
                  "dash-dotted: the bound.\n")

    if servers:
        md.append("### Server runs\n")
        md.append(md_table(
            ["device", "experiment", "compiler", "run", "target QPS", "achieved QPS",
             "latency at percentile", "bound ms", "bound met", "valid", "peak QPS"],
            [[r["device"], r["experiment"], r["compiler"], r["run_id"],
              fmt(num(r["target_qps"]), 4), fmt(num(r["achieved_qps"]), 4),
              f"p{fmt(num(r['latency_percentile']))} {fmt(num(r['latency_at_percentile_ms']))} ms",
              fmt(num(r["latency_bound_ms"])), r["bound_met"], r["valid"] or "true",
              (fmt(num(r["peak_qps"]), 4) or "none") if r["find_peak"] == "true" else ""]
             for r in servers]))
    peaks = [r for r in servers if r["find_peak"] == "true"]
    for (device, experiment), rows in group_by(peaks, "device", "experiment").items():
        md.append(f"### Peak QPS under the bound: {on(experiment, device)}\n")
        name = safe(f"{device}_{experiment}_peak_qps.png")
        plot_peaks(rows, styles, os.path.join(fig_dir, name),
                   f"{experiment} on {device}: highest rate that met the bound (find_peak)")
        md.append(f"![peak QPS, {on(experiment, device)}](figures/{name})\n")
        none = [r["run_id"] + " (" + r["compiler"] + ")" for r in rows if not r["peak_qps"]]
        if none:
            md.append(f"No rate met the bound: {md_text(', '.join(none))}.\n")
    return md


def write_report(analysis_dir, out_dir):
    missing = [t for t in TABLES if not os.path.exists(os.path.join(analysis_dir, t))]
    if missing:
        sys.exit(f"report.py: {analysis_dir} lacks {', '.join(missing)}; expected the output "
                 f"directory of `ngraphbench analyze` (default reports/analysis)")
    scaling, blocks, ranking, reversals, failures = (
        read_table(os.path.join(analysis_dir, t)) for t in TABLES)
    invalid_path = os.path.join(analysis_dir, INVALID)
    invalid = read_table(invalid_path) if os.path.exists(invalid_path) else None

    fig_dir = os.path.join(out_dir, "figures")
    os.makedirs(fig_dir, exist_ok=True)
    # Every compiler a figure may draw, offline and server runs' too, keeps one colour.
    scenario_tables = [optional_table(analysis_dir, t) or [] for t in (ROADS, OFFLINE_RUNS,
                                                                       SERVER_RUNS)]
    styles = compiler_styles({r["compiler"] for r in scaling} |
                             {r["compiler"] for table in scenario_tables for r in table})
    md = ["# ngraphbench report\n",
          f"From {md_code(analysis_dir)}: {len(scaling)} runs measured, {len(failures)} not ok. "
          f"{invalid_summary(invalid)} "
          f"Devices: {md_text(', '.join(sorted({r['device'] for r in scaling}))) or '-'}. "
          f"Compilers: {md_text(', '.join(sorted({r['compiler'] for r in scaling}))) or '-'}.\n",
          "Throughput T is the median-latency throughput in samples/s, L the latency of one "
          "batch. RTR(b) = T(b)/T(1). ASE(b) = T(b)/(b·T(1)) = L(1)/L(b): 1 means the whole "
          "batch of b takes as long as one sample alone (throughput grows linearly with b: "
          "perfect scaling); 1/b means batching gains nothing (the batch takes b times as long); "
          "above 1 is an anomaly (a batch faster than one sample) worth investigating. Speedup = "
          "T_compiler(b)/T_identity(b) at the same device, experiment, model and batch size. "
          "Kendall's tau-b compares a compiler's ranking of the architectures by throughput with "
          "identity's (1 = same order, -1 = reversed). Two runs are compared only when their "
          "threads, precision, timing boundary and compute device agree. A cell is empty where "
          "its baseline run is missing, did not end ok, is invalid or ran with other settings. "
          + (ERROR_BARS if scaling and INTERVALS["ase"][0] in scaling[0] else
             "This analysis has no interval columns (an older ngraphbench): no error bars.")
          + "\n"]

    compilers, summary = speedup_summary(scaling)
    md.append("## Speedup over identity\n")
    if summary:
        md.append("Geometric mean over the models with a speedup (number of models in "
                  "brackets).\n")
        md.append(md_table(["device", "experiment", "batch size"] + compilers, summary))
    else:
        md.append("No speedups: no compiler has a run with a matching identity run.\n")

    md.append("## Batch scaling\n")
    for (device, experiment), rows in group_by(scaling, "device", "experiment").items():
        if len({r["batch_size"] for r in rows}) < 2:
            continue  # one batch size: nothing scales
        stem = safe(f"{device}_{experiment}")
        md.append(f"### {on(experiment, device)}\n")
        for column, label, what in (
                ("throughput_median_sps", "throughput (samples/s)", "throughput"),
                ("ase", "ASE = L(1)/L(b)", "ase")):
            name = f"{stem}_{what}_vs_batch.png"
            plot_batch_scaling(rows, column, label, styles, os.path.join(fig_dir, name),
                               f"{experiment} on {device}: {label} against batch size",
                               ase_bounds=what == "ase")
            md.append(f"![{what} against batch size, {on(experiment, device)}](figures/{name})\n")
        md.append("ASE between the grey lines: at 1 (dotted) the batch takes as long as one "
                  "sample (perfect scaling), at 1/b (dash-dotted) it takes b times as long "
                  "(batching gains nothing); above 1 is an anomaly to investigate.\n")

    md.append("## Blocks: throughput and speedup against depth and width\n")
    if not blocks:
        md.append("No block experiment runs.\n")
    for (device, experiment, batch), rows in group_by(blocks, "device", "experiment",
                                                      "batch_size").items():
        md.append(f"### {on(experiment, device)}, batch size {md_text(batch)}\n")
        stem = safe(f"{device}_{experiment}_b{batch}")
        plot_vs_depth(rows, "throughput_median_sps", "throughput (samples/s)", False, styles,
                      os.path.join(fig_dir, f"{stem}_throughput_vs_depth.png"),
                      f"{experiment} on {device}, batch {batch}: throughput against depth")
        md.append(f"![throughput against depth](figures/{stem}_throughput_vs_depth.png)\n")
        if any(num(r["speedup_vs_identity"]) is not None for r in rows
               if r["compiler"] != BASELINE):
            plot_vs_depth(rows, "speedup_vs_identity", "speedup over identity", True, styles,
                          os.path.join(fig_dir, f"{stem}_speedup_vs_depth.png"),
                          f"{experiment} on {device}, batch {batch}: speedup against depth")
            md.append(f"![speedup against depth](figures/{stem}_speedup_vs_depth.png)\n")
        else:
            md.append("No speedup figure: no compiler has a matching identity run.\n")

    md.append("## Architecture ranking: does compilation reverse it?\n")
    if ranking:
        md.append(md_table(
            ["device", "batch size", "compiler", "models", "Kendall tau-b", "reversed pairs",
             "note"],
            [[r["device"], r["batch_size"], r["compiler"], r["models_ranked"],
              fmt(num(r["kendall_tau_b"])), reversed_text(r), r["note"]]
             for r in ranking]))
    else:
        md.append("No runs of the architectures experiment.\n")
    if reversals:
        md.append("\nReversed pairs: identity runs model A faster, the compiler runs model B "
                  "faster (samples/s).\n")
        judged = "verdict" in reversals[0]  # analysis dirs from before the verdict lack it
        if judged:
            md.append("A reversal is significant when both orderings are: the 95% interval of "
                      "L_A/L_B (latency of A over B's) lies below 1 under identity and above 1 "
                      "under the compiler; otherwise it is a tie, within what repeating the runs "
                      "could change.\n")
        header = ["device", "batch size", "compiler", "A", "B", "identity A", "identity B",
                  "compiler A", "compiler B"]
        if judged:
            header += ["identity L_A/L_B 95%", "compiler L_A/L_B 95%", "verdict"]
        rows = []
        for r in reversals:
            row = [r["device"], r["batch_size"], r["compiler"], r["model_a"], r["model_b"],
                   fmt(num(r["identity_a_sps"]), 4), fmt(num(r["identity_b_sps"]), 4),
                   fmt(num(r["compiler_a_sps"]), 4), fmt(num(r["compiler_b_sps"]), 4)]
            if judged:
                row += [interval_text(r, "identity_latency_ratio"),
                        interval_text(r, "compiler_latency_ratio"), r["verdict"]]
            rows.append(row)
        md.append(md_table(header, rows))

    md.extend(precision_section(analysis_dir, fig_dir, styles))
    md.extend(scenarios_section(analysis_dir, fig_dir, styles))
    md.extend(profile_section(analysis_dir, fig_dir))

    md.append("## Runs that did not end ok\n")
    if failures:
        md.append(md_table(
            ["device", "experiment", "compiler", "model", "batch size", "status", "error"],
            [[r["device"], r["experiment"], r["compiler"], r["model"], r["batch_size"],
              r["status"], clip(r["error"])]
             for r in failures]))
    else:
        md.append("None.\n")

    md.append("## Runs marked invalid\n")
    md.append(invalid_summary(invalid) + "\n")
    if invalid:
        md.append(md_table(
            ["device", "experiment", "compiler", "run", "left out", "reason"],
            [[r["device"], r["experiment"], r["compiler"], r["run_id"],
              "yes" if left_out_of_numbers(r) else "no", clip(r["invalid_reason"])]
             for r in invalid]))

    notes = defaultdict(int)
    for r in scaling:
        for column in ("scaling_note", "speedup_note"):
            if r[column]:
                notes[r[column]] += 1
    md.append("## Empty cells and why\n")
    if notes:
        md.append(md_table(["reason", "rows"], sorted(notes.items())))
    else:
        md.append("Every baseline was present.\n")

    path = os.path.join(out_dir, "report.md")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(md))
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("analysis_dir", nargs="?", default="reports/analysis",
                        help="output directory of `ngraphbench analyze`")
    parser.add_argument("--name", default="report", help="report folder name")
    parser.add_argument("--reports-dir", default="reports", help="parent of the report folder")
    parser.add_argument("--baseline", required=True,
                        help="the baseline compiler (`ngraphbench list --compilers` marks it)")
    args = parser.parse_args(argv)
    global BASELINE  # pylint: disable=global-statement
    BASELINE = args.baseline
    try:
        path = write_report(args.analysis_dir, os.path.join(args.reports_dir, args.name))
    except results_io.InputError as e:  # bad input: exit status 2, as ngraphbench's
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    print(path)


if __name__ == "__main__":
    main()
