#!/usr/bin/env python3
"""The figures the estimate's priors come from, read from the rows of a results tree.

    bench/estimate_priors.py <results>/<device> [--experiments a,b,...]

For each compiler, over its ok rows (every experiment, or those named): the median of the first
process's build + compile + first run (the prior's compile: prior_compile_s in the compiler's
compiler.yaml); of a later process's build + compile (a cache load for a compiler that caches its
compile: kPriorCacheLoadS); of what each process spends outside build, compile, warmup and the
timed runs (start, reference, load, check: kRunOverheadS); the multiply-accumulates per second
per thread (kPriorMacsPerSecond); and the mean processes of the rows that took them under stop
`ci`. Then those rows' processes by their latency (a decade of milliseconds each) and the
least-squares line through them, processes = a + b log10(latency in ms): the prior's
kPriorCiProcessesAt1Ms and kPriorCiProcessesPerDecade (experiments/estimate.h). Last, per
compiler, the first process's build + compile + first run (less a cold compile's tuning; cache
hits left out) against the model's graph nodes: the least-squares line through each model's
median, seconds = a + b nodes, the compiler.yaml's prior_compile_s (a) and
prior_compile_s_per_node (b). The nodes come from the tree's model facts cache
(<results>/.cache/macs/, three-line entries), which an estimate of this build writes; a run
still being measured counts by its first process (<compiler>/.parts/<run_id>.p0.csv) for this
fit alone. Run an estimate of the tree first: `./sweep.sh --dry-run --estimate <device>
<compiler> -- --results <results>`. Rows without `phases_s` (from before rows had them) are
left out.
"""
import glob, math, os, statistics as st, sys
from collections import defaultdict
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ratios  # noqa: E402 (bench/ratios.py, beside this script)

args = sys.argv[1:]
if not args or args[0].startswith('-'):
    sys.exit(__doc__)
tree, experiments = args[0], None
if len(args) == 3 and args[1] == '--experiments':
    experiments = set(args[2].split(','))
elif len(args) != 1:
    sys.exit(__doc__)

# The graph nodes of each model, from the facts cache beside the device folder: <model>.<key>.txt
# holding the MACs, the kernels and the nodes, a line each (older entries have no third line).
nodes = {}
for path in glob.glob(os.path.join(os.path.dirname(os.path.abspath(tree)), '.cache', 'macs',
                                   '*.txt')):
    with open(path) as f:
        lines = f.read().split('\n')
    if len(lines) == 4 and lines[2].isdigit():
        nodes[os.path.basename(path).rsplit('.', 2)[0]] = int(lines[2])

fig = defaultdict(lambda: defaultdict(list))
compile_by_model = defaultdict(lambda: defaultdict(list))  # compiler -> model -> first fixed s


def least_squares(points):
    """The least-squares line through (x, y) points: intercept, slope and the residuals' sd."""
    xs, ys = [x for x, _ in points], [y for _, y in points]
    b, a = st.linear_regression(xs, ys)
    return a, b, st.pstdev([y - (a + b * x) for x, y in points])


def add_first_compile(row):
    """The row's (or part's) first process's build + compile + first run, less a cold compile's
    tuning, under its compiler and model; a compile cache hit is no compile and is left out."""
    settings = dict(kv.split('=', 1) for kv in row['compiler_settings'].split(';') if '=' in kv)
    if settings.get('cache_hit') == 'true':
        return
    compile_by_model[row['compiler']][row['model']].append(
        (ratios.cell(row, 'build_s') or 0) + (ratios.cell(row, 'compile_s') or 0) +
        (ratios.cell(row, 'first_run_ms') or 0) / 1e3 - float(settings.get('tuning_s') or 0))


by_latency = []  # (log10 latency in ms, processes) of the rows under stop ci
for path in ratios.row_paths(tree):
    try:
        row = ratios.read_row(path)
    except StopIteration:  # a header without a row
        continue
    if row['status'] != 'ok' or not row['phases_s']:
        continue
    if experiments and row['experiment'] not in experiments:
        continue
    phases = ratios.phases(row)
    k = int(row['processes'] or 1)
    first_fixed = (ratios.cell(row, 'build_s') or 0) + (ratios.cell(row, 'compile_s') or 0)
    first_run_s = (ratios.cell(row, 'first_run_ms') or 0) / 1e3
    per = fig[row['compiler']]
    per['first'].append(first_fixed + first_run_s)
    add_first_compile(row)
    if k > 1:
        per['later'].append((phases.get('build', 0) + phases.get('compile', 0) - first_fixed) /
                            (k - 1))
    outside = sum(phases.values()) - sum(phases.get(p, 0)
                                         for p in ('build', 'compile', 'warmup', 'timed'))
    per['overhead'].append(outside / k)
    threads = int(row['threads'] or 1)
    latency_ms = ratios.cell(row, 'latency_mean_ms') or 0
    if row['macs'] and latency_ms > 0:
        work = float(row['macs']) * int(row['batch_size'])
        per['gmacs'].append(work / (latency_ms / 1e3) / threads / 1e9)
    if row['processes_reason']:  # set under stop ci only
        per['processes'].append(k)
        if latency_ms > 0:
            by_latency.append((math.log10(latency_ms), k))

def med(values):
    return f"{st.median(values):8.3f}" if values else f"{'-':>8}"

print(f"{'compiler':12}{'rows':>5}{'first s':>8}{'later s':>8}{'other s':>8}{'G/s/thr':>8}"
      f"{'procs':>7}")
every = defaultdict(list)
for compiler in sorted(fig):
    per = fig[compiler]
    for key, values in per.items():
        every[key] += values
    procs = f"{st.mean(per['processes']):7.2f}" if per['processes'] else f"{'-':>7}"
    print(f"{compiler:12}{len(per['first']):5}{med(per['first'])}{med(per['later'])}"
          f"{med(per['overhead'])}{med(per['gmacs'])}{procs}")
if every['first']:
    procs = f"{st.mean(every['processes']):7.2f}" if every['processes'] else f"{'-':>7}"
    print(f"{'all':12}{len(every['first']):5}{med(every['first'])}{med(every['later'])}"
          f"{med(every['overhead'])}{med(every['gmacs'])}{procs}")

if len(by_latency) > 1:
    print("\nprocesses under stop ci by latency:")
    decades = defaultdict(list)
    for x, k in by_latency:
        decades[math.floor(x)].append(k)
    most = max(k for _, k in by_latency)
    for d in sorted(decades):
        ks = decades[d]
        print(f"  {10.0 ** d:g}-{10.0 ** (d + 1):g} ms: {len(ks):4} rows, mean {st.mean(ks):.2f}, "
              f"at the most taken ({most}) {sum(k == most for k in ks) / len(ks):.0%}")
    a, b, sd = least_squares(by_latency)
    print(f"  least squares: processes = {a:.2f} + {b:.2f} log10(latency in ms), residual sd "
          f"{sd:.2f}; mean {st.mean(k for _, k in by_latency):.2f} a row")

# The first processes of runs without a row yet: a part holds its process's build and compile as
# a row does.
for path in sorted(glob.glob(os.path.join(tree, '*', '.parts', '*.p0.csv'))):
    row_path = os.path.join(os.path.dirname(os.path.dirname(path)),
                            os.path.basename(path)[:-len('.p0.csv')] + '.csv')
    if os.path.exists(row_path):
        continue
    try:
        row = ratios.read_row(path)
    except StopIteration:
        continue
    if row['status'] != 'ok' or (experiments and row['experiment'] not in experiments):
        continue
    add_first_compile(row)

print("\nfirst process's build + compile + first run by the model's graph nodes "
      "(per-model medians):")
missing = sorted({m for per in compile_by_model.values() for m in per if m not in nodes})
if missing:
    print(f"  no node count for {len(missing)} model(s) ({', '.join(missing[:4])}...): run an "
          "estimate of this build on the tree first (see the top of this script)")
for compiler in sorted(compile_by_model):
    points = [(nodes[m], st.median(v)) for m, v in compile_by_model[compiler].items() if m in nodes]
    xs = sorted({x for x, _ in points})
    if len(xs) < 2:
        continue
    a, b, sd = least_squares(points)
    print(f"  {compiler:12} {len(points):3} models, {xs[0]}-{xs[-1]} nodes: "
          f"prior_compile_s {a:.3g} + prior_compile_s_per_node {b:.3g}, residual sd {sd:.2f} s")
