"""report.md's precision section: the runs at a precision other than fp32 against their fp32
runs (precision_speedup.csv), a table and an accuracy-against-latency figure."""

import os

from report_figures import finish, legible_multiples, plain_log_axis, safe
from report_markdown import clip, fmt, interval_text, md_table, md_text, on
from report_tables import PRECISION, group_by, num, optional_table



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
          "T_precision/T_fp32 with its 95% reproduction interval from the two runs' process "
          "medians (paired by pass where they were measured in one sweep, else unpaired), "
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
