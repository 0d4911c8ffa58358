"""The summary of bench/calibration.sh: coverage, false positives, power and run-to-run ratios.

    python3 bench/calibration.py OUT [EXPERIMENT,...]

OUT is the bench's folder: settings.txt, wall.tsv, the results trees t<threads>/rep<i>/ and
power/<test>/<base|new>/rep<i>/ (device label `cal`), and compare/ with the CSVs of `compare`
(t<threads>/rep<i>-rep<j>.csv, power-<test>/rep<i>.csv). Columns are found by name in each CSV's
header, so other schema versions read alike. Prints to stdout; stdlib only (bench/ratios.py),
but for (e), which needs scipy's Student t (in .venv from ./setup.sh).
With a list of experiments, only their rows, pairs and invocations are counted (to compare a
bench of a larger grid with one of a part of it).
"""
import collections
import csv
import glob
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ratios  # noqa: E402

GOAL_COVERAGE, GOAL_FP, GOAL_POWER = 0.90, 0.05, 0.90
DEVICE = "cal"
ONLY = set()  # the experiments to count; empty: all


def counted(row):
    return not ONLY or row.get("experiment", "") in ONLY


def read_settings(out):
    settings = {}
    with open(os.path.join(out, "settings.txt")) as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition("=")
            settings[key] = value
    return settings


def read_tree(tree):
    """{(compiler, run_id): row} of a results tree: the files <device>/<compiler>/<run_id>.csv
    (a header and one data line); other CSVs there (latency traces) are not rows."""
    rows = {}
    for path in glob.glob(os.path.join(tree, DEVICE, "*", "*.csv")):
        try:
            row = ratios.read_row(path)
        except (StopIteration, csv.Error, UnicodeDecodeError):
            continue
        if os.path.basename(path) != row.get("run_id", "") + ".csv" or not counted(row):
            continue
        rows[(row.get("compiler", ""), row["run_id"])] = row
    return rows


def read_csv(path):
    """The rows of a CSV as dicts, or None when the file is missing (the compare failed)."""
    if not os.path.exists(path):
        return None
    with open(path, newline="") as f:
        return [row for row in csv.DictReader(f) if counted(row)]


def pct(num, den):
    return f"{100.0 * num / den:.1f}%" if den else "-"


def goal(value, target, at_least):
    if value is None:
        return ""
    met = value >= target if at_least else value <= target
    return f"goal {'>=' if at_least else '<='} {100 * target:.0f}%: {'met' if met else 'NOT met'}"


def spread(xs):
    """median [IQR] [min, max] of a list of ratios."""
    if not xs:
        return "-"
    return (f"{statistics.median(xs):.3f}  IQR [{ratios.percentile(xs, 25):.3f}, "
            f"{ratios.percentile(xs, 75):.3f}]  min-max [{min(xs):.3f}, {max(xs):.3f}]")


def cross_coverage(by_rep):
    """One run's (or ratio's) repetitions, rep -> (point, low, high): over ordered pairs i != j,
    whether rep j's point lies inside rep i's interval. Returns the pairs, those covered, those
    whose rep i has no interval (not covered), and each rep's half-width relative to its point."""
    pairs = covered = no_interval = 0
    half = []
    for i, (x, lo, hi) in by_rep.items():
        if lo is not None and hi is not None and x:
            half.append((hi - lo) / 2 / x)
        for j, (y, _, _) in by_rep.items():
            if j == i:
                continue
            pairs += 1
            if lo is None or hi is None:
                no_interval += 1
            elif lo <= y <= hi:
                covered += 1
    return pairs, covered, no_interval, half


def table(header, lines, widths):
    text = "".join(f"{h:<{w}}" if k == 0 else f"{h:>{w}}"
                   for k, (h, w) in enumerate(zip(header, widths)))
    print(text.rstrip())
    for line in lines:
        print("".join(f"{str(c):<{w}}" if k == 0 else f"{str(c):>{w}}"
                      for k, (c, w) in enumerate(zip(line, widths))).rstrip())


def main(out):
    s = read_settings(out)
    reps = int(s["reps"])
    threads = s["threads"].split(",")
    compilers = s["compilers"].split(",")
    keys = [(c, t) for c in compilers for t in threads]
    label = lambda c, t: f"{c} t{t}"  # noqa: E731

    print("calibration bench: does a repeated measurement agree with ngraphbench's claims?")
    print(f"  ngraphbench {s['ngraphbench']} ({s['version']})")
    print(f"  extra run arguments: {s['extra'] or '(none)'}; results in {out}")
    print(f"  {reps} repetitions, schedule {s['schedule']}; compilers {s['compilers']}; "
          f"experiments {s['experiments']} --quick;")
    print(f"  threads {s['threads']} ({s['nproc']} cores); device label {DEVICE}")

    # ---- Wall times ----
    wall = []
    with open(os.path.join(out, "wall.tsv")) as f:
        for line in f:
            phase, side, exp, comp, rep, start, end, seconds, rc = line.rstrip("\n").split("\t")
            if not ONLY or exp in ONLY:
                wall.append((phase, side, exp, comp, int(rep), float(seconds), int(rc)))
    sweep = float(s["sweep_end"]) - float(s["sweep_start"])
    power = float(s["power_end"]) - float(s["power_start"])
    grid = [w for w in wall if w[0] == "grid"]
    print()
    if ONLY:
        sweep = sum(w[5] for w in wall if w[0] == "grid")
        power = sum(w[5] for w in wall if w[0] != "grid")
        print(f"\nonly experiments {','.join(sorted(ONLY))}: wall times are the sums of their "
              "invocations")
    print(f"wall time: grid sweep {sweep:.1f} s ({len(grid)} `run` invocations, "
          f"{sum(w[5] for w in grid):.1f} s inside them);")
    print(f"  power checks {power:.1f} s ({len(wall) - len(grid)} invocations); "
          f"total {sweep + power:.1f} s")
    failed = [w for w in wall if w[6] != 0]
    if failed:
        print(f"  {len(failed)} invocations exited 1 (some runs not ok): " +
              ", ".join(f"{w[0]} {w[1]} {w[2]} {w[3]} rep {w[4]}" for w in failed[:8]) +
              (" ..." if len(failed) > 8 else ""))
    per = collections.defaultdict(list)
    for w in grid:
        per[(w[3], w[1][1:], w[2])].append(w[5])
    lines = [("  " + label(c, t), e, len(xs), f"{sum(xs):.1f}", f"{statistics.median(xs):.1f}",
              f"{min(xs):.1f}-{max(xs):.1f}") for (c, t, e), xs in sorted(per.items())]
    table(["  per invocation", "experiment", "runs", "sum s", "median s", "min-max s"], lines,
          [22, 18, 6, 9, 10, 14])

    # ---- The grid's rows ----
    trees = {(t, i): read_tree(os.path.join(out, f"t{t}", f"rep{i}"))
             for t in threads for i in range(1, reps + 1)}
    runs = collections.defaultdict(set)  # (compiler, threads) -> run ids
    not_ok = collections.Counter()
    invalid = collections.Counter()
    rows_seen = collections.Counter()
    for (t, i), rows in trees.items():
        for (c, rid), row in rows.items():
            runs[(c, t)].add(rid)
            rows_seen[(c, t)] += 1
            if row.get("status") != "ok":
                not_ok[(c, t)] += 1
            elif row.get("valid", "true") == "false":
                invalid[(c, t)] += 1

    def ok_row(c, t, i, rid):
        row = trees[(t, i)].get((c, rid))
        return row if row is not None and row.get("status") == "ok" else None

    # ---- (a) coverage ----
    print()
    print("(a) coverage: rep j's latency_p50_ms inside rep i's [latency_p50_ci_low_ms, "
          "latency_p50_ci_high_ms],")
    print("    ordered pairs i != j of ok rows of one run; an empty interval is not covered "
          "(no interval)")
    cov = {}
    lines = []
    for c, t in keys:
        pairs = covered = no_interval = 0
        half = []
        for rid in sorted(runs[(c, t)]):
            by_rep = {i: tuple(ratios.cell(row, col) for col in (
                          "latency_p50_ms", "latency_p50_ci_low_ms", "latency_p50_ci_high_ms"))
                      for i in range(1, reps + 1)
                      for row in [ok_row(c, t, i, rid)] if row is not None}
            p, cv, ni, h = cross_coverage(by_rep)
            pairs, covered, no_interval = pairs + p, covered + cv, no_interval + ni
            half += h
        cov[(c, t)] = (pairs, covered, no_interval)
        lines.append((label(c, t), len(runs[(c, t)]), rows_seen[(c, t)], not_ok[(c, t)],
                      invalid[(c, t)], pairs, covered, no_interval, pct(covered, pairs),
                      f"{100 * statistics.median(half):.2f}%" if half else "-"))
    pairs, covered, no_interval = (sum(v[k] for v in cov.values()) for k in range(3))
    lines.append(("all", sum(len(runs[k]) for k in keys), sum(rows_seen.values()),
                  sum(not_ok.values()), sum(invalid.values()), pairs, covered, no_interval,
                  pct(covered, pairs), ""))
    table(["", "runs", "rows", "not ok", "invalid", "pairs", "covered", "no interval",
           "coverage", "half-width"], lines, [18, 6, 6, 8, 9, 7, 9, 13, 10, 12])
    print(f"    overall coverage {pct(covered, pairs)}  "
          f"{goal(covered / pairs if pairs else None, GOAL_COVERAGE, True)}")
    print("    (rows: result rows over all reps; invalid: ok rows marked valid=false, kept;")
    print("    half-width: (high - low) / 2 / p50, median over ok rows)")

    # ---- (b) false positives ----
    print()
    print("(b) false positives: `compare rep<i> rep<j>` for i < j, one thread setting each;")
    print("    flagged = change slower or faster, over all compared pairs")
    fp = collections.defaultdict(collections.Counter)
    missing = []
    for t in threads:
        for i in range(1, reps + 1):
            for j in range(i + 1, reps + 1):
                rows = read_csv(os.path.join(out, "compare", f"t{t}", f"rep{i}-rep{j}.csv"))
                if rows is None:
                    missing.append(f"t{t} rep{i}-rep{j}")
                    continue
                for row in rows:
                    k = fp[(row.get("compiler", ""), t)]
                    k["pairs"] += 1
                    k[row.get("change", "")] += 1
                    if row.get("in_summary", "true") == "false":
                        k["out of summary"] += 1
                        k["out " + row.get("change", "")] += 1

    def fp_line(name, k):
        flagged = k["slower"] + k["faster"]
        other = k["pairs"] - flagged - k["undecided"] - k["same"]
        return (name, k["pairs"], k["slower"], k["faster"], k["undecided"], k["same"], other,
                pct(flagged, k["pairs"]), k["out of summary"],
                k["out slower"] + k["out faster"])
    total = collections.Counter()
    lines = []
    for c, t in keys:
        total.update(fp[(c, t)])
        lines.append(fp_line(label(c, t), fp[(c, t)]))
    lines.append(fp_line("all", total))
    table(["", "pairs", "slower", "faster", "undecided", "same", "other", "flagged",
           "invalid", "inv flagged"], lines, [18, 7, 8, 8, 11, 7, 7, 9, 9, 13])
    flagged = total["slower"] + total["faster"]
    print(f"    overall false positives {pct(flagged, total['pairs'])}  "
          f"{goal(flagged / total['pairs'] if total['pairs'] else None, GOAL_FP, False)}")
    print("    (invalid: pairs with a side marked invalid, which compare's summary leaves out;")
    print("    counted above all the same; inv flagged: those of them flagged)")
    if missing:
        print(f"    compare failed, no CSV: {', '.join(missing)}")

    # ---- (c) power ----
    print()
    print("(c) power: compare BASE rep i vs NEW rep i, NEW really slower; "
          "power = change slower / pairs")
    lines = []
    results = {}
    for test in ("null", "threads"):
        by = collections.defaultdict(lambda: (collections.Counter(), []))
        for i in range(1, reps + 1):
            rows = read_csv(os.path.join(out, "compare", f"power-{test}", f"rep{i}.csv"))
            if rows is None:
                missing.append(f"power-{test} rep{i}")
                continue
            for row in rows:
                for key in (row.get("experiment", ""), "all"):
                    k, rs = by[key]
                    k["pairs"] += 1
                    k[row.get("change", "")] += 1
                    if row.get("ratio"):
                        rs.append(float(row["ratio"]))
        name = {"null": "null 1000->1100us", "threads": "onnxrt t2->t1"}[test]
        for key in sorted(by, key=lambda e: (e == "all", e)):
            if key == "all" and len(by) == 2:
                continue  # one experiment: its line is the total
            k, rs = by[key]
            lines.append((name, key, k["pairs"], k["slower"], k["faster"], k["undecided"],
                          k["same"], pct(k["slower"], k["pairs"]),
                          f"{statistics.median(rs):.3f}" if rs else "-",
                          f"{min(rs):.3f}-{max(rs):.3f}" if rs else "-"))
        results[test] = by["all"][0]
    table(["", "experiment", "pairs", "slower", "faster", "undecided", "same", "power",
           "ratio", "min-max"], lines, [18, 17, 6, 7, 7, 10, 6, 8, 7, 13])
    k = results["null"]
    print(f"    power for a 10% change (null) {pct(k['slower'], k['pairs'])}  "
          f"{goal(k['slower'] / k['pairs'] if k['pairs'] else None, GOAL_POWER, True)}")
    k = results["threads"]
    print(f"    power for threads 2 -> 1 (onnxruntime conv2d, a larger change) "
          f"{pct(k['slower'], k['pairs'])}")
    print("    (ratio: the median over pairs of compare's ratio, new / base median latency)")
    power_missing = [m for m in missing if m.startswith("power")]
    if power_missing:
        print(f"    compare failed, no CSV: {', '.join(power_missing)}")

    # ---- (d) run-to-run ratios ----
    print()
    print("(d) run-to-run p50 ratio rep j / rep i, i < j, ok rows of one run:")
    print("    median, IQR and min-max over pairs")
    for c, t in keys:
        rs = []
        for rid in runs[(c, t)]:
            for i in range(1, reps + 1):
                for j in range(i + 1, reps + 1):
                    a, b = ok_row(c, t, i, rid), ok_row(c, t, j, rid)
                    if a is not None and b is not None:
                        pa, pb = ratios.cell(a, "latency_p50_ms"), ratios.cell(b, "latency_p50_ms")
                        if pa and pb is not None:
                            rs.append(pb / pa)
        print(f"    {label(c, t):<18}{len(rs):>5} pairs  {spread(rs)}")


    # ---- (e) fewer processes ----
    print()
    print("(e) the same rows cut to their first k processes (the pooled median of those processes'")
    print("    timed runs, the interval from their medians): coverage as in (a) / median half-width")
    t975 = student_t975()
    if t975 is None:
        print("    needs scipy (in .venv from ./setup.sh): not computed")
        return
    cut = {}  # (c, t, i, rid) -> {k: (p50, low, high)}
    top = None
    for (t, i), rows in trees.items():
        for (c, rid), row in rows.items():
            if row.get("status") != "ok":
                continue
            trace = read_process_trace(os.path.join(out, f"t{t}", f"rep{i}", DEVICE, c,
                                                    rid + ".latencies.csv"))
            if len(trace) < 2:
                continue
            top = len(trace) if top is None else min(top, len(trace))
            cut[(c, t, i, rid)] = {k: cut_interval(trace, k, t975) for k in range(2, len(trace) + 1)}
    if top is None:
        print("    no row with a trace of 2 or more processes")
        return
    ks = list(range(2, top + 1))
    lines = []
    for c, t in keys + [("all", None)]:
        cells = []
        for k in ks:
            pairs = covered = 0
            widths = []
            for (c2, t2, i, rid), by_k in cut.items():
                if (c, t) != ("all", None) and (c2, t2) != (c, t):
                    continue
                m, lo, hi = by_k[k]
                widths.append((hi - lo) / 2 / m)
                for j in range(1, reps + 1):
                    other = cut.get((c2, t2, j, rid))
                    if j != i and other is not None:
                        pairs += 1
                        covered += lo <= other[k][0] <= hi
            cells.append(f"{pct(covered, pairs)} / {100 * statistics.median(widths):.1f}%"
                         if widths else "-")
        lines.append([label(c, t) if t else "all"] + cells)
    table(["k processes"] + [str(k) for k in ks], lines, [18] + [18] * len(ks))
    print("    (the processes' medians as the trace gives them; a row's own K is the last column)")
    drift_section(trees, keys, reps, t975, ok_row, label)
    ratio_section(out, threads, keys, reps, label)


# The ratios `analyze` derives with an interval (scaling.csv): column of the point, of the
# interval's ends, of the note that says whether the interval is unpaired; rows counted.
RATIOS = [("rtr", "rtr", "rtr_ci_low", "rtr_ci_high", "scaling_note",
           lambda row: row.get("batch_size") not in ("", "1")),
          ("speedup", "speedup_vs_identity", "speedup_ci_low", "speedup_ci_high", "speedup_note",
           lambda row: row.get("compiler") != "identity")]


def ratio_section(out, threads, keys, reps, label):
    """(g): the intervals of ratios, as `analyze` of each repetition's tree gives them
    (analysis/t<threads>/rep<i>/scaling.csv, ok rows, invalid ones included): coverage of rep
    j's ratio by rep i's interval, as (a) for the latency. A ratio of two runs of one `run`
    call is paired pass by pass (RTR: batch b against batch 1 of one compiler; a speedup over
    identity with --together); one of two calls is unpaired (a speedup over identity measured
    in a call of its own)."""
    print()
    print("(g) ratio intervals from `analyze` of each repetition (analysis/t<threads>/rep<i>):")
    print("    rep j's ratio inside rep i's interval, ordered pairs i != j; RTR (batch b against")
    print("    batch 1) and, with identity measured, speedup over it; unpaired: the ratios whose")
    print("    runs were not measured pass by pass (other calls): the unpaired interval")
    points = {}  # (metric, compiler, threads, key) -> {rep: (point, low, high)}
    unpaired_at = set()  # (metric, compiler, threads, key, rep) of the unpaired intervals
    missing = []
    for t in threads:
        for i in range(1, reps + 1):
            path = os.path.join(out, "analysis", f"t{t}", f"rep{i}", "scaling.csv")
            rows = read_csv(path)
            if rows is None:
                missing.append(f"t{t} rep{i}")
                continue
            for row in rows:
                for name, col, lo, hi, note, wanted in RATIOS:
                    if not wanted(row) or ratios.cell(row, col) is None:
                        continue
                    key = (row.get("precision", ""), row.get("model", ""), row.get("batch_size"))
                    at = (name, row.get("compiler", ""), t, key)
                    points.setdefault(at, {})[i] = (
                        ratios.cell(row, col), ratios.cell(row, lo), ratios.cell(row, hi))
                    if "interval unpaired" in row.get(note, ""):
                        unpaired_at.add(at + (i,))
    if missing:
        print(f"    no analysis for {', '.join(missing)}: not computed there")
    lines = []
    overall = collections.Counter()
    for name, *_ in RATIOS:
        for c, t in keys + [("all", None)]:
            pairs = covered = no_interval = 0
            half = []
            for (n, c2, t2, key), by_rep in points.items():
                if n != name or ((c, t) != ("all", None) and (c2, t2) != (c, t)):
                    continue
                p, cv, ni, h = cross_coverage(by_rep)
                pairs, covered, no_interval = pairs + p, covered + cv, no_interval + ni
                half += h
            unpaired = sum(1 for n, c2, t2, *_ in unpaired_at
                           if n == name and ((c, t) == ("all", None) or (c2, t2) == (c, t)))
            if not half and not pairs:
                continue
            if (c, t) == ("all", None):
                overall.update(pairs=pairs, covered=covered)
            lines.append((f"{name} {label(c, t) if t else 'all'}", len(half), unpaired, pairs,
                          covered, no_interval, pct(covered, pairs),
                          f"{100 * statistics.median(half):.2f}%" if half else "-"))
    if not lines:
        print("    no ratio with an interval")
        return
    table(["", "ratios", "unpaired", "pairs", "covered", "no interval", "coverage",
           "half-width"], lines, [24, 8, 10, 7, 9, 13, 10, 12])
    share = overall["covered"] / overall["pairs"] if overall["pairs"] else None
    print(f"    overall ratio coverage {pct(overall['covered'], overall['pairs'])}  "
          f"{goal(share, GOAL_COVERAGE, True)}")
    print("    (ratios: the points over all reps; half-width: (high - low) / 2 / ratio, median)")


def process_logs(row):
    """The log of each process's median (process_p50s_ms, ';'-separated), [] without it."""
    cells = [x for x in (row.get("process_p50s_ms") or "").split(";") if x]
    try:
        return [math.log(float(x)) for x in cells if float(x) > 0]
    except ValueError:
        return []


def drift_section(trees, keys, reps, t975, ok_row, label):
    """(f): how far whole repetitions (sweeps) move against the spread within one, and what
    coverage an interval would have with a drift term d added to its variance,
    half = sqrt((t * s * sqrt(2 c_K / K))^2 + (1.96 * sqrt(2) * d)^2), with the share of rows
    that interval would leave within the validity bound (5 %)."""
    print()
    print("(f) drift between repetitions: within = median sd of a row's process log-medians;")
    print("    between = median over runs of the sd of their rows' log p50 across repetitions;")
    print("    then coverage as in (a) / rows within +-5% with a drift term d in the interval")
    drifts = [0.0, 0.005, 0.01, 0.02, 0.03]
    lines = []
    for c, t in keys + [("all", None)]:
        within, between = [], []
        covered = collections.Counter()
        inside = collections.Counter()
        pairs = rows = 0
        ids = {rid for (t2, _), tree in trees.items() for (c2, rid) in tree
               if (c, t) == ("all", None) or (c2, t2) == (c, t)}
        for (c2, t2) in ([(c, t)] if t is not None else keys):
            for rid in sorted(ids):
                got = {i: ok_row(c2, t2, i, rid) for i in range(1, reps + 1)}
                got = {i: r for i, r in got.items() if r is not None}
                p50 = {i: math.log(ratios.cell(r, "latency_p50_ms")) for i, r in got.items()
                       if ratios.cell(r, "latency_p50_ms")}
                if len(p50) >= 2:
                    between.append(statistics.stdev(p50.values()))
                for i, r in got.items():
                    logs = process_logs(r)
                    if len(logs) < 2 or i not in p50:
                        continue
                    s = statistics.stdev(logs)
                    within.append(s)
                    k = len(logs)
                    base = t975(k) * s * math.sqrt(2 * median_variance_factor(k) / k)
                    rows += 1
                    for d in drifts:
                        half = math.hypot(base, 1.96 * math.sqrt(2) * d)
                        inside[d] += math.exp(half) - 1 <= 0.05
                        for j, other in p50.items():
                            if j != i:
                                covered[d] += abs(other - p50[i]) <= half
                    pairs += sum(1 for j in p50 if j != i)
        cells = [f"{100 * statistics.median(within):.1f}%" if within else "-",
                 f"{100 * statistics.median(between):.1f}%" if between else "-"]
        cells += [f"{pct(covered[d], pairs)} / {pct(inside[d], rows)}" for d in drifts]
        lines.append([label(c, t) if t else "all"] + cells)
    table(["", "within", "between"] + [f"d {100 * d:g}%" for d in drifts], lines,
          [18, 8, 9] + [16] * len(drifts))


def student_t975():
    """k -> Student's t 97.5 % quantile with k - 1 degrees of freedom, or None without scipy."""
    try:
        from scipy import stats
    except ImportError:
        return None
    return lambda k: float(stats.t.ppf(0.975, k - 1))


def read_process_trace(path):
    """{process: [latency_ns, ...]} of a row's trace (columns process, iteration, latency_ns);
    {} when it is missing or has no process column (one process a row)."""
    if not os.path.exists(path):
        return {}
    by = collections.defaultdict(list)
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if "process" not in row:
                return {}
            by[int(row["process"])].append(int(row["latency_ns"]))
    return by


# K * Var(median of K standard normal draws), as MedianVarianceFactor in measure/repeat.h.
MEDIAN_VARIANCE_FACTOR = [1.0, 1.0, 1.0, 1.346, 1.1928, 1.4342, 1.2885, 1.4731, 1.3454, 1.4949,
                          1.3833, 1.5088, 1.4102, 1.5184, 1.4303, 1.5254, 1.446, 1.5308, 1.4585,
                          1.535, 1.4687]


def median_variance_factor(k):
    if k < len(MEDIAN_VARIANCE_FACTOR):
        return MEDIAN_VARIANCE_FACTOR[k]
    return math.pi / 2 - (0.68 if k % 2 else 2.04) / k


def cut_interval(trace, k, t975):
    """(p50, low, high) in ms of the run cut to its first k processes: the pooled median, and
    p50 * exp(+-t * s * sqrt(2 * c_k / k)), s the sd of the k processes' log-medians, c_k the
    median's variance factor (as the rows)."""
    procs = sorted(trace)[:k]
    pooled = ratios.percentile([v for p in procs for v in trace[p]], 50) / 1e6
    logs = [math.log(ratios.percentile(trace[p], 50)) for p in procs]
    half = t975(k) * statistics.stdev(logs) * math.sqrt(2 * median_variance_factor(k) / k)
    return pooled, pooled * math.exp(-half), pooled * math.exp(half)


if __name__ == "__main__":
    if len(sys.argv) > 2:
        ONLY.update(e for e in sys.argv[2].split(",") if e)
    main(sys.argv[1])
