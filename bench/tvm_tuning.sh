#!/usr/bin/env bash
# What MetaSchedule auto-tuning buys: the tvm module on one model, untuned and tuned with a trial
# budget, median latency side by side with the tuning time. Both runs go through the ordinary
# scheduler and worker (ngraphbench run), each with its own configs directory; the tuned run
# starts from an empty cache, so its tuning is real (not a cached database).
#
#   bench/tvm_tuning.sh [options]
#     --width N --depth N --batch N  conv_blocks model (default 64, 4, 8: Table V's block)
#     --trials N                     MetaSchedule trial budget (default 64, a few minutes on 2 cores)
#     --tuning-timeout N             seconds (default 1200; over it the row says tuning=failed:...)
#     --warmup N --repeats N         (default 2 and 10)
#     --threads N                    (default 0 = every available core)
#     --build DIR                    (default build)
#     --keep DIR                     keep configs, results and cache in DIR (default: a temp dir)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
width=64 depth=4 batch=8 trials=64 tuning_timeout=1200 warmup=2 repeats=10 threads=0
build=$root/build keep=""
while [[ $# -gt 1 ]]; do
  case $1 in
    --width) width=$2 ;;
    --depth) depth=$2 ;;
    --batch) batch=$2 ;;
    --trials) trials=$2 ;;
    --tuning-timeout) tuning_timeout=$2 ;;
    --warmup) warmup=$2 ;;
    --repeats) repeats=$2 ;;
    --threads) threads=$2 ;;
    --build) build=$(cd "$2" && pwd) ;;
    --keep) keep=$2 ;;
    *) usage ;;
  esac
  shift 2
done
[[ $# -eq 0 ]] || usage
[[ -x $build/ngraphbench ]] || { echo "no $build/ngraphbench: run ./setup.sh" >&2; exit 1; }

if [[ -n $keep ]]; then
  mkdir -p "$keep" && work=$(cd "$keep" && pwd)
else
  work=$(mktemp -d /tmp/ngb_tvm_tuning.XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi

# One configs directory per variant: the same one-model grid, tvm.yaml differing in the budget.
# The worker's timeout covers tuning, building and the timed runs.
for variant in untuned tuned; do
  dir=$work/configs_$variant
  mkdir -p "$dir"
  cat >"$dir/experiments.yaml" <<EOF
defaults:
  batch_sizes: [$batch]
  quick_batch_sizes: [$batch]
  warmup: $warmup
  repeats: $repeats
  timeout_s: $((tuning_timeout + 600))
  timing_boundary: compute
experiments:
  conv_blocks:
    family: conv_block
    description: depth x [Conv3x3 -> BatchNorm -> ReLU] on [b, width, 56, 56]
    widths: [$width]
    depths: [$depth]
EOF
  [[ $variant == tuned ]] && n=$trials || n=0
  cat >"$dir/tvm.yaml" <<EOF
device: cpu
precision: fp32
threads: $threads
opt_level: default
options:
  target: host
  tuning_trials: $n
  tuning_timeout_s: $tuning_timeout
EOF
  echo "== $variant (tuning_trials=$n)" >&2
  "$build/ngraphbench" run conv_blocks tvm --configs "$dir" --results "$work/results_$variant" >&2
done

run_id=conv_blocks_w${width}_d${depth}_b${batch}
python3 - "$work" "$run_id" <<'EOF'
import csv, sys
work, run_id = sys.argv[1], sys.argv[2]
rows = {}
for variant in ("untuned", "tuned"):
    with open(f"{work}/results_{variant}/local/tvm/{run_id}.csv", newline="") as f:
        row = next(csv.DictReader(f))
    row["settings"] = dict(kv.split("=", 1) for kv in row["compiler_settings"].split(";") if kv)
    rows[variant] = row
print(f"{run_id}, tvm, threads {rows['untuned']['threads']}, "
      f"target {rows['untuned']['settings'].get('target', '?')}")
print(f"{'':9} {'status':>7} {'p50 ms':>10} {'p90 ms':>10} {'compile_s':>10} {'tuning_s':>9} "
      f"{'trials':>6}  tuning")
for variant, row in rows.items():
    s = row["settings"]
    p50 = float(row["latency_p50_ms"]) if row["latency_p50_ms"] else float("nan")
    p90 = float(row["latency_p90_ms"]) if row["latency_p90_ms"] else float("nan")
    print(f"{variant:9} {row['status']:>7} {p50:10.3f} {p90:10.3f} {float(row['compile_s']):10.1f} "
          f"{float(s.get('tuning_s', 0)):9.1f} {s.get('trials', '0'):>6}  {s.get('tuning', '?')}")
u, t = (float(rows[v]["latency_p50_ms"] or "nan") for v in ("untuned", "tuned"))
print(f"speedup from tuning (median latency): {u / t:.2f}x")
EOF
