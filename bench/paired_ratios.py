#!/usr/bin/env python3
"""Ratio intervals from process medians, unpaired against paired (a study, not used by analyze).

    bench/paired_ratios.py <results>/<device>   (needs scipy)

For each speedup over identity and each batch-b-over-batch-1 ratio of one compiler in a results
tree: the 95 % interval's half-width from Welch's t on the log process medians (what analyze's
CompareProcessMedians does) against a paired t over process index (process k of both runs,
measured in the same pass of a sweep, close in time). Then, for pairs with at least 5
processes, whether the 95 % prediction interval from processes 0-2 holds the ratio of processes
3-4 (measured later), for both estimators.
"""
import glob, math, os, re, statistics as st, sys
from scipy import stats
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ratios  # noqa: E402 (bench/ratios.py, beside this script)
root = sys.argv[1]
rows = {}
for f in glob.glob(f'{root}/*/*.csv'):
    if re.search(r'\.(latencies|profile|server_steps)\.csv$', f): continue
    r = ratios.read_row(f)
    if r['status'] != 'ok' or not r['process_p50s_ms']: continue
    rows[(f.split('/')[-2], r['run_id'])] = [float(x) for x in r['process_p50s_ms'].split(';')]
def welch_hw(a, b):
    la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
    va, vb = st.variance(la)/len(la), st.variance(lb)/len(lb)
    df = (va+vb)**2/(va*va/(len(la)-1)+vb*vb/(len(lb)-1))
    return math.sinh(stats.t.ppf(.975, df)*math.sqrt(va+vb))
def paired_hw(a, b):
    n = min(len(a), len(b)); d = [math.log(a[i]/b[i]) for i in range(n)]
    return math.sinh(stats.t.ppf(.975, n-1)*st.stdev(d)/math.sqrt(n))
def check(pairs, label):
    W, P, cov_p, cov_w, n = [], [], 0, 0, 0
    for a, b in pairs:
        W.append(welch_hw(a, b)); P.append(paired_hw(a, b))
        if len(a) >= 5 and len(b) >= 5:
            n += 1
            d = [math.log(a[i]/b[i]) for i in range(3)]
            fut = st.mean(math.log(a[i]/b[i]) for i in (3, 4))
            cov_p += abs(fut-st.mean(d)) <= stats.t.ppf(.975, 2)*st.stdev(d)*math.sqrt(1/3+1/2)
            la, lb = [math.log(x) for x in a[:3]], [math.log(x) for x in b[:3]]
            fw = st.mean(math.log(x) for x in a[3:5]) - st.mean(math.log(x) for x in b[3:5])
            se = math.sqrt((st.variance(la)+st.variance(lb))*(1/3+1/2))
            cov_w += abs(fw-(st.mean(la)-st.mean(lb))) <= stats.t.ppf(.975, 4)*se
    q = lambda v: '/'.join(f'{x*100:.1f}' for x in st.quantiles(v, n=4))
    print(f'{label}: {len(W)} pairs; half-width % quartiles welch {q(W)}, paired {q(P)}; '
          f'later processes inside (of {n}): paired {cov_p}, welch {cov_w}')
sp = [(rows[('identity', r)], rows[(c, r)])
      for (c, r) in rows if c != 'identity' and ('identity', r) in rows]
check(sp, 'speedup over identity')
rtr = []
for (c, r), v in rows.items():
    m = re.match(r'(.+)_b(\d+)$', r)
    if m and m.group(2) != '1' and (c, m.group(1)+'_b1') in rows:
        rtr.append((rows[(c, m.group(1)+'_b1')], v))
check(rtr, 'batch b over batch 1 (RTR/ASE)')
