"""report.md's offline and server section: batching against concurrency, the offline runs,
latency against throughput and the peak QPS under the bound, from the tables analyze writes only
when the inputs hold offline or server runs."""

import os
from collections import defaultdict

from report_figures import (finish, legible_multiples, log2_axis, log_y_axis, plain_log_axis,
                            plt, safe)
from report_markdown import fmt, md_table, md_text, on
from report_tables import (OFFLINE_RUNS, ROADS, SERVER_RUNS, SERVER_STEPS, geomean, group_by,
                           num, optional_table)

ROAD_STYLES = {"batching": dict(linestyle="-", marker="o"),
               "concurrency": dict(linestyle=":", marker="s")}


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
