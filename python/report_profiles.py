"""report.md's per-operator profiles section (profile_*.csv, from runs measured with
--profile): a table per run, time by operator class, and where the time saved went."""

import os

from report_figures import plt, safe
from report_markdown import fmt, md_table, on
from report_tables import PROFILE_OPS, PROFILE_RUNS, PROFILE_SPEEDUP, group_by, num, read_table



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
