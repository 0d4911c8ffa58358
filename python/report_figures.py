"""The figures of report.md (matplotlib): one colour per compiler, panels of small multiples,
log axes written as plain numbers, error bars from the 95% intervals, and the batch-scaling and
depth figures; the optional sections' own figures are in their modules."""

import math
from collections import OrderedDict

import matplotlib

matplotlib.use("Agg")  # no display on benchmark machines
# Names are drawn as they are: a "$" in a model or device name is no TeX (whose parser would
# fail on some names).
matplotlib.rcParams["text.parse_math"] = False
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402

import report_tables as tables  # noqa: E402
from report_tables import group_by, interval, num  # noqa: E402



def compiler_styles(compilers):
    """One colour per compiler across every figure; the baseline is black and dashed."""
    palette = plt.get_cmap("tab10").colors
    others = sorted(c for c in compilers if c != tables.BASELINE)
    styles = {c: dict(color=palette[i % len(palette)], linestyle="-") for i, c in enumerate(others)}
    styles[tables.BASELINE] = dict(color="black", linestyle="--")
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


def legible_multiples(count):
    """small_multiples, at least wide enough for one panel beside the legend and the title."""
    fig, axes = small_multiples(count)
    width, height = fig.get_size_inches()
    fig.set_size_inches(max(width, 7.5), max(height, 3.4))
    return fig, axes


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
            if speedup and compiler == tables.BASELINE:
                continue
            plot_line(ax, points, "depth", column, label, style)
        if speedup:
            ax.axhline(1.0, label=tables.BASELINE, **styles[tables.BASELINE])
        log_y_axis(ax)
        log2_axis(ax, [int(r["depth"]) for r in width_rows], "depth")
        ax.set_title(f"width {width}", fontsize=9)
        ax.set_ylabel(ylabel, fontsize=8)
    finish(fig, axes, title, path)
