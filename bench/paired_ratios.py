#!/usr/bin/env python3
"""Ratio intervals from process medians, unpaired against paired, checked against a repeat.

    bench/paired_ratios.py <results>/<device> [<repeat results>/<device>]   (needs scipy)

For each speedup over identity and each batch-b-over-batch-1 ratio of one compiler in a results
tree: the 95 % confidence interval's half-width from Welch's t on the log process medians
against a paired t over process index (process k of both runs, measured in the same pass of a
sweep, close in time; the pairing `analyze` uses where the rows' process_ends_unix_ms say the
runs were measured pass by pass, its reproduction interval being sqrt(2 c_K) times wider). Then, for pairs with at least 5 processes, whether the 95 % prediction interval from
processes 0-2 holds the ratio of processes 3-4 (measured later), for both estimators.

Given a second tree, the same grid measured again by another sweep: for each ratio in both, the
two sweeps' estimates are compared as `compare` compares two runs (t on the difference of the
log ratios over both standard errors, Welch-Satterthwaite degrees of freedom); the share of
ratios flagged as changed at p < 0.05 is what an interval's claim costs when the measurement is
repeated (5 % for intervals that hold). Pairing by index assumes both trees were measured pass
by pass (make_traces.sh's sweeps are).
"""
import math, os, re, statistics as st, sys
from scipy import stats
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ratios  # noqa: E402 (bench/ratios.py, beside this script)


def read_tree(root):
    """{(compiler, run_id): [process medians]} of the ok rows under <root>/<compiler>/."""
    rows = {}
    for f in ratios.row_paths(root):
        r = ratios.read_row(f)
        if r['status'] != 'ok' or not r['process_p50s_ms']:
            continue
        rows[(f.split('/')[-2], r['run_id'])] = [float(x) for x in r['process_p50s_ms'].split(';')]
    return rows


def ratio_pairs(rows):
    """{(kind, compiler, run_id): (numerator's medians, denominator's)}: L_identity / L_c
    (the speedup) and L_c(1) / L_c(b) (ASE)."""
    out = {}
    for (c, r), v in rows.items():
        if c != 'identity' and ('identity', r) in rows:
            out[('speedup', c, r)] = (rows[('identity', r)], v)
        m = re.match(r'(.+)_b(\d+)$', r)
        if m and m.group(2) != '1' and (c, m.group(1) + '_b1') in rows:
            out[('batch', c, r)] = (rows[(c, m.group(1) + '_b1')], v)
    return out


def welch(a, b):
    """(log ratio, se, df) from Welch's t on the log medians."""
    la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
    va, vb = st.variance(la) / len(la), st.variance(lb) / len(lb)
    df = (va + vb) ** 2 / (va * va / (len(la) - 1) + vb * vb / (len(lb) - 1))
    return st.mean(la) - st.mean(lb), math.sqrt(va + vb), df


def paired(a, b):
    """(log ratio, se, df) from a paired t over the first min(K_a, K_b) processes."""
    n = min(len(a), len(b))
    d = [math.log(a[i] / b[i]) for i in range(n)]
    return st.mean(d), st.stdev(d) / math.sqrt(n), n - 1


def half_width(est):
    _, se, df = est
    return math.sinh(stats.t.ppf(.975, df) * se)


def quartiles(values):
    return '/'.join(f'{x * 100:.1f}' for x in st.quantiles(values, n=4))


def within_sweep(pairs, label):
    W, P, cov_p, cov_w, n = [], [], 0, 0, 0
    for a, b in pairs:
        W.append(half_width(welch(a, b)))
        P.append(half_width(paired(a, b)))
        if len(a) >= 5 and len(b) >= 5:
            n += 1
            d = [math.log(a[i] / b[i]) for i in range(3)]
            fut = st.mean(math.log(a[i] / b[i]) for i in (3, 4))
            h = stats.t.ppf(.975, 2) * st.stdev(d) * math.sqrt(1 / 3 + 1 / 2)
            cov_p += abs(fut - st.mean(d)) <= h
            la, lb = [math.log(x) for x in a[:3]], [math.log(x) for x in b[:3]]
            fw = st.mean(math.log(x) for x in a[3:5]) - st.mean(math.log(x) for x in b[3:5])
            se = math.sqrt((st.variance(la) + st.variance(lb)) * (1 / 3 + 1 / 2))
            cov_w += abs(fw - (st.mean(la) - st.mean(lb))) <= stats.t.ppf(.975, 4) * se
    print(f'{label}: {len(W)} pairs; half-width % quartiles welch {quartiles(W)}, '
          f'paired {quartiles(P)}; later processes inside (of {n}): paired {cov_p}, welch {cov_w}')


def across_sweeps(first, second, kind):
    keys = sorted(k for k in first if k in second and k[0] == kind)
    for name, estimator in (('welch', welch), ('paired', paired)):
        flagged, inside, widths = 0, 0, []
        for k in keys:
            l1, se1, df1 = estimator(*first[k])
            l2, se2, df2 = estimator(*second[k])
            se = math.sqrt(se1 ** 2 + se2 ** 2)
            if se == 0:
                flagged += l1 != l2
                continue
            if se1 and se2:
                df = se ** 4 / (se1 ** 4 / df1 + se2 ** 4 / df2)
            else:
                df = df1 if se1 else df2
            flagged += 2 * stats.t.sf(abs(l1 - l2) / se, df) < 0.05
            inside += abs(l2 - l1) <= stats.t.ppf(.975, df1) * se1
            widths.append(half_width((l1, se1, df1)))
        share = 100 * flagged / len(keys) if keys else float('nan')
        print(f'{kind} across sweeps, {name}: {len(keys)} ratios, flagged as changed {flagged} '
              f'({share:.1f} %; 5 % for intervals that hold), repeat inside the first sweep\'s '
              f'interval {inside}, half-width % quartiles {quartiles(widths)}')


first = ratio_pairs(read_tree(sys.argv[1]))
for kind, label in (('speedup', 'speedup over identity'),
                    ('batch', 'batch b over batch 1 (RTR/ASE)')):
    within_sweep([v for k, v in first.items() if k[0] == kind], label)
if len(sys.argv) > 2:
    second = ratio_pairs(read_tree(sys.argv[2]))
    for kind in ('speedup', 'batch'):
        across_sweeps(first, second, kind)
