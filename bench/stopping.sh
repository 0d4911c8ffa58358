#!/usr/bin/env bash
# The `ci` stopping rule against `fixed` (the paper's protocol) on the same grid, in one
# invocation: conv2d and fully_connected on onnxruntime and openvino, each run measured once
# with --stop fixed and once with --stop ci, the two alternating run by run (fixed first on even
# rounds, ci first on odd ones). Prints the sweep wall time ratio ci / fixed, and per run whether
# the fixed run's median lies inside the ci run's 95% interval and the other way round.
#   bench/stopping.sh [compilers=onnxruntime,openvino] [threads=1]
set -euo pipefail
cd "$(dirname "$0")/.."
compilers=${1:-onnxruntime,openvino} threads=${2:-1}
[ -x build/ngraphbench ] || ./setup.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/configs"
cat >"$tmp/configs/experiments.yaml" <<YAML
defaults: {batch_sizes: [1, 8], warmup: 10, repeats: 100, max_time_s: 60, timeout_s: 900}
experiments:
  conv2d: {family: conv2d, widths: [16, 32, 64, 128]}
  fully_connected: {family: linear, widths: [256, 1024, 4096]}
YAML
IFS=, read -r -a list <<<"$compilers"
for c in "${list[@]}"; do echo "threads: $threads" >"$tmp/configs/$c.yaml"; done
B=build/ngraphbench
round=0
for experiment in conv2d fully_connected; do
  for c in "${list[@]}"; do
    for run_id in $($B expand "$experiment" --configs "$tmp/configs"); do
      order="fixed ci"; [ $((round % 2)) -eq 1 ] && order="ci fixed"
      round=$((round + 1))
      for rule in $order; do
        # One run at a time: a grid made of this one run, so the two rules interleave finely.
        start=$EPOCHREALTIME
        $B worker "$experiment" "$c" "$run_id" --configs "$tmp/configs" --stop "$rule" \
          --results "$tmp/$rule" --device bench 2>/dev/null
        echo "$rule $start $EPOCHREALTIME" >>"$tmp/wall.txt"
      done
    done
  done
done
.venv/bin/python - "$tmp" <<'PY'
import csv, glob, os, sys
tmp = sys.argv[1]
wall = {"fixed": 0.0, "ci": 0.0}
for line in open(f"{tmp}/wall.txt"):
    rule, start, end = line.split()
    wall[rule] += float(end) - float(start)
wall_fixed, wall_ci = wall["fixed"], wall["ci"]
def rows(rule):
    out = {}
    for f in glob.glob(f"{tmp}/{rule}/bench/*/*.csv"):
        if f.endswith(".latencies.csv"):
            continue
        r = next(csv.DictReader(open(f)))
        out[(r["compiler"], r["run_id"])] = r
    return out
fixed, ci = rows("fixed"), rows("ci")
inside_ci = inside_fixed = both = 0
print(f"{'compiler':<12}{'run':<26}{'fixed p50':>10}{'n':>6}{'ci p50':>10}{'n':>6}"
      f"{'ci interval (ms)':>24}{'stop':>12}  fixed in ci / ci in fixed")
for key in sorted(fixed):
    f, c = fixed[key], ci.get(key)
    if c is None or f["status"] != "ok" or c["status"] != "ok":
        print(f"{key[0]:<12}{key[1]:<26} not ok: {f['status']} / {c['status'] if c else 'missing'}")
        continue
    fp, cp = float(f["latency_p50_ms"]), float(c["latency_p50_ms"])
    clo, chi = float(c["latency_p50_ci_low_ms"]), float(c["latency_p50_ci_high_ms"])
    flo, fhi = float(f["latency_p50_ci_low_ms"]), float(f["latency_p50_ci_high_ms"])
    a, b = clo <= fp <= chi, flo <= cp <= fhi
    inside_ci += a; inside_fixed += b; both += 1
    print(f"{key[0]:<12}{key[1]:<26}{fp:>10.4f}{f['repeats']:>6}{cp:>10.4f}{c['repeats']:>6}"
          f"{f'[{clo:.4f}, {chi:.4f}]':>24}{c['stop_reason']:>12}  {'yes' if a else 'NO'} / {'yes' if b else 'NO'}")
print(f"\nruns compared: {both}")
print(f"fixed medians inside the ci run's 95% interval: {inside_ci} of {both}")
print(f"ci medians inside the fixed run's 95% interval: {inside_fixed} of {both}")
print(f"sweep wall time: fixed {wall_fixed:.1f} s, ci {wall_ci:.1f} s, ci / fixed = {wall_ci / wall_fixed:.3f}")
PY
