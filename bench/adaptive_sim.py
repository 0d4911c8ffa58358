#!/usr/bin/env python3
"""The adaptive stopping rule (stop: ci) simulated: how often a repeat's quoted median falls
inside a run's 95 % interval, with and without the median's variance factor c_K.

Each run: processes of `repeats / start` timed runs each; a process's log-median is drawn
N(0, sigma^2) and its runs scatter around it log-normally with sd `--within`; the run starts with
`start` processes and adds one while its interval is wider than the target, up to the cap; its
quoted median is the pooled runs' median (as a row's latency_p50_ms). Coverage: the second of
a pair of independent runs has its median inside the first's interval. Prints, per sigma and
variant, coverage, the mean process count and the share of runs within the target.

    bench/adaptive_sim.py [--pairs N] [--within W] [--seed S]
Needs numpy and scipy. Deterministic for a seed.
"""
import argparse
import math

import numpy as np
from scipy import stats

from calibration import median_variance_factor


def half_width(log_medians, factor):
    k = len(log_medians)
    c = median_variance_factor(k) if factor else 1.0
    return stats.t.ppf(0.975, k - 1) * np.std(log_medians, ddof=1) * math.sqrt(2 * c / k)


def one_run(rng, sigma, within, factor, start=3, cap=10, target=0.05, repeats=100):
    n = math.ceil(repeats / start)
    runs, logs = [], []
    while True:
        runs.append(np.exp(rng.normal(0, sigma) + rng.normal(0, within, n)))
        logs.append(math.log(np.median(runs[-1])))
        if len(logs) >= start and (math.sinh(half_width(logs, factor)) <= target
                                   or len(logs) >= cap):
            break
    h = half_width(logs, factor)
    return float(np.median(np.concatenate(runs))), h, len(logs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--within", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print("sigma  variant        coverage  processes  within_target")
    for sigma in (0.01, 0.02, 0.03, 0.05, 0.08):
        for factor in (False, True):
            rng = np.random.default_rng(args.seed)
            hits, ks, met = 0, 0, 0
            for _ in range(args.pairs):
                p50, h, k = one_run(rng, sigma, args.within, factor)
                other, _, _ = one_run(rng, sigma, args.within, factor)
                hits += p50 * math.exp(-h) <= other <= p50 * math.exp(h)
                ks += k
                met += math.sinh(h) <= 0.05
            name = "median c_K" if factor else "mean (c = 1)"
            print(f"{sigma:5.2f}  {name:13}  {hits / args.pairs:8.3f}  {ks / args.pairs:9.1f}  "
                  f"{met / args.pairs:13.2f}", flush=True)


if __name__ == "__main__":
    main()
