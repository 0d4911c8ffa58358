#!/usr/bin/env python3
"""Writes the interactive report: one self-contained report.html, plus report.md and its PNGs.

    python/report_html.py DIR --results INPUT [INPUT ...] [--no-static]

DIR holds the CSVs of `ngraphbench analyze` over the same INPUTs (results directories or .zip
archives of them); `ngraphbench report INPUT... -o DIR` runs analyze into DIR and then this. The
page embeds its data (the runs as columnar JSON, the analysis tables, machine.json, and each run's
latency distribution as a quantile summary of its trace) and Plotly's JavaScript bundle from the
plotly PyPI package: it opens offline, from a file, with nothing fetched. Unless --no-static,
python/report.py's Markdown report and its PNG figures (for papers) are written into DIR too.
The inputs are read by python/results_io.py under analyze's rules: an input it refuses ends the
script with exit status 2 and a message naming the file (bad input, as `ngraphbench report`
then says too); a trace or machine.json that cannot be read is left out, named on stderr and in
the page. Needs the standard library, matplotlib and plotly (pinned in scripts/setup/report.sh).
"""

import argparse
import datetime
import json
import math
import os
import re
import sys

import report  # the static report (report.md and its figures)
import report_tables  # the analysis CSVs' readers
from results_io import InputError, Tree

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATE = os.path.join(HERE, "report_template.html")
# The page's script: one function in parts by concept, joined in this order (report_app.js says
# how).
APP_PARTS = [os.path.join(HERE, name) for name in (
    "report_app.js", "report_app_charts.js", "report_app_scenarios.js", "report_app_details.js",
    "report_app_tables.js")]

# The row columns the page uses (docs/results.md); a column an older row lacks is empty.
TEXT_COLUMNS = ("run_id", "device", "compiler", "experiment", "model", "family", "precision",
                "compute_device", "timing_boundary", "status", "error", "valid",
                "invalid_reason", "process_p50s_ms", "machine_id", "host", "compiler_version",
                "notes", "stop_reason", "scenario")
NUMBER_COLUMNS = ("batch_size", "threads", "width", "depth", "params", "macs", "build_s",
                  "compile_s", "first_run_ms", "latency_p50_ms", "latency_p50_ci_low_ms",
                  "latency_p50_ci_high_ms", "latency_p99_ms", "cv", "processes",
                  "throughput_median_sps", "cpu_util_pct", "cpu_ms_per_inference",
                  "other_cpu_pct", "rss_peak_mb", "gpu_util_pct", "gpu_mem_mb", "gpu_power_w",
                  "gpu_energy_j", "energy_j", "power_w", "check_snr_db",
                  "check_top1_agreement", "check_max_rel_err")
# Kept to 7 significant digits: a cosine similarity of 0.99984 is 0.9998 at DIGITS.
PRECISE_COLUMNS = ("check_cosine",)
# From scaling.csv, joined to the run by (device, experiment, compiler, precision, model, batch
# size): the analysis has at most one run per key (analyze refuses a run present twice). An
# analysis from before its precision column joins without it.
SCALING_KEY = ("device", "experiment", "compiler", "precision", "model", "batch_size")
SCALING_NUMBERS = ("rtr", "rtr_ci_low", "rtr_ci_high", "ase", "ase_ci_low", "ase_ci_high",
                   "speedup_vs_identity", "speedup_ci_low", "speedup_ci_high")
SCALING_TEXT = ("scaling_note", "speedup_note")
# The latency distribution of a run is drawn from these quantiles of its trace (all processes'
# timed runs pooled): 25 numbers a run instead of every iteration, so 20,000 runs stay a few MB.
QUANTILES = (0, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6,
             0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.975, 0.99, 1)
DIGITS = 4  # significant digits kept in the page: more than any interval here resolves
# Side files left out (a trace or machine.json that cannot be read): each is named on stderr
# and in the page, up to this many.
MAX_LEFT_OUT_SHOWN = 200


def compact(value):
    """A number rounded to DIGITS significant digits (an int when it is one), or None."""
    if value is None or not math.isfinite(value):
        return None
    if value.is_integer() and abs(value) < 2**53:
        return int(value)  # batch sizes, counts: exact
    rounded = float(f"{value:.{DIGITS}g}")
    return int(rounded) if rounded.is_integer() else rounded


def number(text):
    try:
        return compact(report_tables.num(text))
    except ValueError:
        return None


def precise(text):
    """A number at 7 significant digits, or None."""
    try:
        value = report_tables.num(text)
    except ValueError:
        return None
    return None if value is None else float(f"{value:.7g}")


def text_column(values):
    """A column of strings, dictionary-encoded when that is smaller (most are: devices,
    compilers, statuses, the same invalid reason on many runs)."""
    distinct = sorted(set(values))
    if len(distinct) * 4 > len(values):
        return values
    index = {v: i for i, v in enumerate(distinct)}
    return {"dict": distinct, "codes": [index[v] for v in values]}


def quantiles(samples):
    """QUANTILES of the sorted samples, linear between order statistics (numpy's default)."""
    last = len(samples) - 1
    out = []
    for p in QUANTILES:
        position = p * last
        low = math.floor(position)
        high = min(low + 1, last)
        low_value, high_value = float(samples[low]), float(samples[high])
        out.append(low_value + (high_value - low_value) * (position - low))
    return out


def distribution(tree, trace_key, left_out):
    """[sample count, quantiles in ms...] of a run's trace, or None without one. A trace that
    cannot be read (not a regular file, too large, not a trace) is left out, its message added
    to left_out: only the report reads traces, and the run's numbers stand without it."""
    try:
        samples = tree.latencies(trace_key)
    except InputError as e:
        left_out.append(f"{e}: the run's latency distribution is left out")
        return None
    if samples is None or not len(samples):
        return None
    samples.sort()
    return [len(samples)] + [compact(q / 1e6) for q in quantiles(samples)]


def optional_table(analysis_dir, name):
    path = os.path.join(analysis_dir, name)
    return report_tables.read_table(path) if os.path.exists(path) else []


def process_medians(text):
    """A row's process_p50s_ms ("1.02;0.98"), each at the page's precision; what is not a
    finite number is left out."""
    values = (number(v) for v in (text or "").split(";") if v)
    return ";".join(str(v) for v in values if v is not None)


def collect(analysis_dir, inputs):
    """The page's data: every run of every input (skipped and failed ones too) with its
    analysis values, its distribution, and the analysis tables the page draws."""
    scaling_rows = report_tables.read_table(os.path.join(analysis_dir, "scaling.csv"))
    key = tuple(k for k in SCALING_KEY if not scaling_rows or k in scaling_rows[0])
    scaling = {tuple(r[k] for k in key): r for r in scaling_rows}
    rows, dists, machines, left_out = [], [], {}, []
    for path in inputs:
        tree = Tree(path)
        try:
            for row, trace_key in tree.rows():
                rows.append(row)
                dists.append(distribution(tree, trace_key, left_out))
            found, problems = tree.machines()
            left_out += [f"{p}: left out of the machine context" for p in problems]
            for device, entries in found.items():
                machines.setdefault(device, {}).update(entries)
        finally:
            tree.close()
    order = sorted(range(len(rows)), key=lambda i: tuple(
        rows[i].get(k, "") for k in ("device", "experiment", "compiler", "model")) +
        (int(rows[i].get("batch_size") or 0),))
    rows = [rows[i] for i in order]
    dists = [dists[i] for i in order]

    for r in rows:  # rows from before scenarios (schema 8) are single stream
        r["scenario"] = r.get("scenario") or "single_stream"
    # Only a single-stream run has scaling values: an offline or server run of the same model
    # and batch size stands beside it.
    joined = [scaling.get(tuple(r.get(k, "") for k in key), {})
              if r["scenario"] == "single_stream" else {} for r in rows]
    cols = {}
    for r in rows:  # each process's median, at the precision of every other number here
        r["process_p50s_ms"] = process_medians(r.get("process_p50s_ms"))
    for name in TEXT_COLUMNS:
        cols[name] = text_column([r.get(name) or "" for r in rows])
    for name in NUMBER_COLUMNS:
        cols[name] = [number(r.get(name)) for r in rows]
    for name in PRECISE_COLUMNS:
        cols[name] = [precise(r.get(name)) for r in rows]
    for name in SCALING_NUMBERS:
        cols[name] = [number(s.get(name)) for s in joined]
    for name in SCALING_TEXT:
        cols[name] = text_column([s.get(name) or "" for s in joined])

    invalid_path = os.path.join(analysis_dir, report_tables.INVALID)
    invalid = report_tables.read_table(invalid_path) if os.path.exists(invalid_path) else []
    return {
        "inputs": [os.path.basename(os.path.normpath(p)) for p in inputs],
        "generated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "invalid_included": any(not report_tables.left_out_of_numbers(r) for r in invalid),
        "baseline": report_tables.BASELINE,
        "runs": {"n": len(rows), "cols": cols},
        "quantile_probs": list(QUANTILES),
        "dists": dists,
        "ranking": report_tables.read_table(os.path.join(analysis_dir, "ranking.csv")),
        "reversals": report_tables.read_table(os.path.join(analysis_dir, "rank_reversals.csv")),
        # Written by analyze only when a run has a profile.
        "profile_runs": optional_table(analysis_dir, "profile_runs.csv"),
        "profile_ops": optional_table(analysis_dir, "profile_op_classes.csv"),
        "profile_speedup": optional_table(analysis_dir, "profile_speedup_by_op.csv"),
        # Written by analyze only when the inputs hold offline or server runs.
        "roads": optional_table(analysis_dir, report_tables.ROADS),
        "offline_runs": optional_table(analysis_dir, report_tables.OFFLINE_RUNS),
        "server_runs": optional_table(analysis_dir, report_tables.SERVER_RUNS),
        "server_steps": optional_table(analysis_dir, report_tables.SERVER_STEPS),
        "machines": machines,
        "left_out": left_out[:MAX_LEFT_OUT_SHOWN],
        "left_out_count": len(left_out),
    }


def plotly_bundle():
    try:
        from plotly.offline import get_plotlyjs
    except ImportError:
        sys.exit("report_html.py: the plotly package is missing; run ./setup.sh (it installs the "
                 "version pinned in scripts/setup/report.sh)")
    return get_plotlyjs()


def script_text(text, is_json):
    """Text safe inside <script>...</script>, which only "</script" can end early (and "<!--"
    confuse): JSON escapes every "<" (\\u003c, the same string to JSON.parse); code, where that
    would change its meaning outside strings, escapes the slash of "</script" (the same string
    or regular expression)."""
    if is_json:
        return text.replace("<", "\\u003c")
    return re.sub(r"</(script)", r"<\/\1", text, flags=re.IGNORECASE)


def write_html(data, path):
    with open(TEMPLATE, encoding="utf-8") as f:
        page = f.read()
    app = ""
    for part in APP_PARTS:
        with open(part, encoding="utf-8") as f:
            app += f.read()
    payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    # str.replace with a function: the replacements hold backslashes that must stay as they are.
    for marker, content, is_json in (("/*NGB_PLOTLY*/", plotly_bundle(), False),
                                     ("/*NGB_APP*/", app, False), ("/*NGB_DATA*/", payload, True)):
        if page.count(marker) != 1:
            sys.exit(f"report_html.py: {TEMPLATE} must hold {marker} once")
        head, tail = page.split(marker)
        page = head + script_text(content, is_json) + tail
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(page)
    os.replace(tmp, path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", help="the output directory of `ngraphbench analyze` over INPUTs; "
                        "the report is written into it")
    parser.add_argument("--results", nargs="+", required=True, metavar="INPUT",
                        help="the results directories or .zip files analyze read")
    parser.add_argument("--no-static", action="store_true",
                        help="only report.html: no report.md and PNG figures")
    parser.add_argument("--baseline", required=True,
                        help="the compiler speedups are measured against (its description says "
                        "baseline: true)")
    args = parser.parse_args(argv)
    report_tables.BASELINE = args.baseline
    missing = [t for t in report_tables.TABLES if not os.path.exists(os.path.join(args.dir, t))]
    if missing:
        sys.exit(f"report_html.py: {args.dir} lacks {', '.join(missing)}; expected the output "
                 "directory of `ngraphbench analyze` (run `ngraphbench report`, which runs it)")
    html = os.path.join(args.dir, "report.html")
    try:
        data = collect(args.dir, args.results)
        for message in data["left_out"][:10]:
            print(f"warning: {message}", file=sys.stderr)
        if data["left_out_count"] > 10:
            print(f"warning: {data['left_out_count'] - 10} more files left out (listed in "
                  f"{html})", file=sys.stderr)
        write_html(data, html)
        print(html)
        if not args.no_static:
            print(report.write_report(args.dir, args.dir))
    except InputError as e:  # `ngraphbench report` exits 2: bad input
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
