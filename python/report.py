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

This module holds the report's outline and its core sections; the CSVs are read by
report_tables.py, Markdown is written by report_markdown.py, the shared figures are drawn by
report_figures.py, and the optional sections are report_precision.py (other precisions than fp32),
report_profiles.py (per-operator profiles) and report_scenarios.py (offline and server runs).
"""

import argparse
import os
import sys
from collections import defaultdict

import report_tables as tables
import results_io
from report_figures import compiler_styles, plot_batch_scaling, plot_vs_depth, safe
from report_markdown import (clip, fmt, interval_text, md_code, md_table, md_text, on,
                             reversed_text)
from report_precision import precision_section
from report_profiles import profile_section
from report_scenarios import scenarios_section
from report_tables import (INTERVALS, INVALID, OFFLINE_RUNS, ROADS, SERVER_RUNS, TABLES,
                           compiler_label, geomean, group_by, left_out_of_numbers, num,
                           optional_table, read_table)

ERROR_BARS = ("Error bars are 95% reproduction intervals (where a repeat of the runs puts the "
              "number) from the spread between the worker processes' medians (for a ratio of "
              "two runs, paired process by process where the runs were measured pass by pass, "
              "else unpaired; for a throughput, the row's interval of its median); a run of one "
              "process has none.")


def speedup_summary(scaling):
    """Geometric-mean speedup over identity per (device, experiment, batch size) and compiler
    (and precision)."""
    out = []
    compilers = sorted({compiler_label(r) for r in scaling if r["compiler"] != tables.BASELINE})
    for (device, experiment, batch), rows in sorted(
            group_by(scaling, "device", "experiment", "batch_size").items(),
            key=lambda kv: (kv[0][0], kv[0][1], int(kv[0][2]))):
        cells = []
        for compiler in compilers:
            values = [num(r["speedup_vs_identity"]) for r in rows
                      if compiler_label(r) == compiler and r["compiler"] != tables.BASELINE
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
               if r["compiler"] != tables.BASELINE):
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
    tables.BASELINE = args.baseline
    try:
        path = write_report(args.analysis_dir, os.path.join(args.reports_dir, args.name))
    except results_io.InputError as e:  # bad input: exit status 2, as ngraphbench's
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    print(path)


if __name__ == "__main__":
    main()
