#!/usr/bin/env bash
# Harness overhead per timed iteration, measured with the null compiler (whose Run() does
# nothing), with the system sampler thread on (10 ms period) and off, interleaved in one run.
# Prints the median over rounds of each run's median and p99 per-iteration latency, in ns.
#   bench/harness_overhead.sh [rounds=5] [repeats=20000]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5} repeats=${2:-20000}
[ -x build/ngraphbench ] || ./setup.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/configs"
cat >"$tmp/configs/experiments.yaml" <<YAML
defaults: {batch_sizes: [1], quick_batch_sizes: [1], warmup: 1000, repeats: $repeats}
experiments:
  overhead: {family: linear, widths: [8]}
YAML
echo "options: {sleep_us: 0}" >"$tmp/configs/null.yaml"
for r in $(seq "$rounds"); do
  for mode in off on; do
    ms=0; [ $mode = on ] && ms=10
    build/ngraphbench run overhead null --configs "$tmp/configs" --results "$tmp/$mode$r" \
      --sample-ms $ms --device bench 2>/dev/null || { echo "run failed" >&2; exit 1; }
  done
done
.venv/bin/python - "$tmp" "$rounds" <<'PY'
import csv, glob, statistics, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
def stats(mode):
    p50s, p99s = [], []
    for r in range(1, rounds + 1):
        f = glob.glob(f"{tmp}/{mode}{r}/bench/null/*.latencies.csv")[0]
        ns = sorted(int(row["latency_ns"]) for row in csv.DictReader(open(f)))
        p50s.append(statistics.median(ns)); p99s.append(ns[int(0.99 * (len(ns) - 1))])
    return statistics.median(p50s), statistics.median(p99s)
off, on = stats("off"), stats("on")
print(f"{'sampler':<10}{'median ns':>12}{'p99 ns':>10}")
print(f"{'off':<10}{off[0]:>12.0f}{off[1]:>10.0f}")
print(f"{'on':<10}{on[0]:>12.0f}{on[1]:>10.0f}")
print(f"harness overhead per iteration (sampler off, median): {off[0]:.0f} ns")
print(f"sampler cost per iteration (median on - off): {on[0] - off[0]:+.0f} ns; ratio on/off {on[0] / off[0]:.3f}")
PY
