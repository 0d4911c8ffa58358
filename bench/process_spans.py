#!/usr/bin/env python3
"""How far apart in time a run's processes were, and what that did to their spread, read from the
rows of a results tree (their `process_ends_unix_ms` and `process_p50s_ms`).

    bench/process_spans.py <results>/<device>

Over the ok rows that are not degraded and have the end time of every process:

(a) within each run, its pairs of processes under NEAR apart against its pairs FAR or more apart
    (for three NEAR / FAR cuts), over the runs that have both: the mean of each side's
    (ln a - ln b)^2 / 2 per run, averaged over the runs and shown as an sd, and in how many runs
    the far pairs differed more. A run's own spread is the same on both sides, so a difference is
    the time between the processes: the machine's drift.
(b) the rows by the span of their processes (the first one's end to the last one's): how many,
    the share valid, the median sd of their processes' log-medians and the mean processes. The
    experiments and runs differ between these groups too; (a) is the fair comparison.
"""
import itertools, math, os, statistics as st, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ratios  # noqa: E402 (bench/ratios.py, beside this script)

if len(sys.argv) != 2 or sys.argv[1].startswith('-'):
    sys.exit(__doc__)

runs = []  # (ends in s, log-medians, valid)
for path in ratios.row_paths(sys.argv[1]):
    row = ratios.read_row(path)
    if row.get("status") != "ok" or "degraded" in row.get("invalid_reason", ""):
        continue
    ends = [int(x) / 1000 for x in row.get("process_ends_unix_ms", "").split(";") if x]
    p50s = [float(x) for x in row.get("process_p50s_ms", "").split(";") if x]
    if len(ends) < 2 or len(ends) != len(p50s):
        continue
    runs.append((ends, [math.log(x) for x in p50s], row.get("valid") == "true"))
print(f"{len(runs)} rows with every process's end time (ok, not degraded)")

print("\n(a) within a run: pairs of processes near in time against pairs far apart")
for near, far in ((300, 1200), (600, 1800), (900, 3600)):
    both = []
    for ends, logs, _ in runs:
        sides = ([], [])
        for i, j in itertools.combinations(range(len(ends)), 2):
            gap, half_sq = abs(ends[i] - ends[j]), (logs[i] - logs[j]) ** 2 / 2
            if gap < near:
                sides[0].append(half_sq)
            elif gap >= far:
                sides[1].append(half_sq)
        if sides[0] and sides[1]:
            both.append((st.mean(sides[0]), st.mean(sides[1])))
    if not both:
        print(f"  under {near} s against {far} s or more: no run has both")
        continue
    near_sd = math.sqrt(st.mean(n for n, _ in both)) * 100
    far_sd = math.sqrt(st.mean(f for _, f in both)) * 100
    wider = sum(f > n for n, f in both)
    print(f"  under {near:>4} s against {far:>4} s or more: {len(both):4d} runs, "
          f"sd {near_sd:.2f} % against {far_sd:.2f} %, the far pairs differ more in {wider} "
          f"({wider / len(both) * 100:.0f} %)")

print("\n(b) rows by the span of their processes (the experiments differ between the groups)")
edges = [0, 120, 600, 1800, 3600, 4 * 3600, math.inf]
for lo, hi in zip(edges, edges[1:]):
    group = [(logs, valid) for ends, logs, valid in runs
             if len(ends) >= 3 and lo <= max(ends) - min(ends) < hi]
    if not group:
        continue
    valid = sum(v for _, v in group)
    sd = st.median(st.stdev(logs) for logs, _ in group) * 100
    k = st.mean(len(logs) for logs, _ in group)
    label = f"{lo / 60:.0f}-{hi / 60:.0f} min" if hi < math.inf else f"over {lo / 60:.0f} min"
    print(f"  {label:>12}: {len(group):5d} rows, {valid / len(group) * 100:5.1f} % valid, "
          f"median sd {sd:.1f} %, {k:.1f} processes")
