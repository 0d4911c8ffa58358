#!/usr/bin/env bash
# Harness overhead per timed iteration, measured with the null compiler (whose Run() does
# nothing), with the system sampler thread on (10 ms period) and off, alternating run by run
# (off then on, then on then off on the next round). Prints the median over rounds of each run's
# median and p99 per-iteration latency, in ns, and the per-round ratios on / off of the median,
# the p99 and cpu_ms_per_inference with their IQR and min-max (bench/ratios.py).
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
  order="off on"; [ $((r % 2)) -eq 0 ] && order="on off"
  for mode in $order; do
    ms=0; [ $mode = on ] && ms=10
    build/ngraphbench run overhead null --configs "$tmp/configs" --results "$tmp/$mode$r" \
      --sample-ms $ms --device bench 2>/dev/null || { echo "run failed" >&2; exit 1; }
  done
done
.venv/bin/python - "$tmp" "$rounds" <<'PY'
import csv, glob, statistics, sys
sys.path.insert(0, "bench")
import ratios
tmp, rounds = sys.argv[1], int(sys.argv[2])
def measure(mode, r):
    """Median and p99 ns of one run's raw latencies, and its cpu_ms_per_inference."""
    f = glob.glob(f"{tmp}/{mode}{r}/bench/null/*.latencies.csv")[0]
    ns = [int(row["latency_ns"]) for row in csv.DictReader(open(f))]
    row = ratios.read_row(f.replace(".latencies.csv", ".csv"))
    return (statistics.median(ns), ratios.percentile(ns, 99),
            ratios.cell(row, "cpu_ms_per_inference"), row.get("notes", ""))
runs = {(mode, r): measure(mode, r) for mode in ("off", "on") for r in range(1, rounds + 1)}
c = ratios.Comparison("sampler on", "sampler off")
for r in range(1, rounds + 1):
    on, off = runs[("on", r)], runs[("off", r)]
    c.add("null", "median ns", r, on[0], off[0])
    c.add("null", "p99 ns", r, on[1], off[1])
    c.add("null", "cpu ms/inf", r, on[2], off[2])
missing = [m[3] for m in runs.values() if m[2] is None]  # e.g. a window under 10 sampler periods
if missing:
    c.note(f"cpu ms/inf missing in {len(missing)} runs; the first one's notes: {missing[0]}")
c.print(per_round=True)
off50 = statistics.median(runs[("off", r)][0] for r in range(1, rounds + 1))
on50 = statistics.median(runs[("on", r)][0] for r in range(1, rounds + 1))
print(f"harness overhead per iteration (sampler off, median over rounds): {off50:.0f} ns")
print(f"sampler cost per iteration (median on - median off): {on50 - off50:+.0f} ns")
PY
