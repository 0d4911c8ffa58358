#!/usr/bin/env bash
# What MetaSchedule auto-tuning buys: the tvm module on a model or a few, untuned and tuned with a
# trial budget (and early stopping), median latency side by side with the tuning time. Both variants go through the ordinary
# scheduler and worker (ngraphbench run), each with its own configs and results directory; the
# tuned variant starts from an empty cache, so its tuning (in its first round) is real, not a
# cached database; later rounds load the compiled libraries from the cache. The two variants
# alternate over rounds (untuned first, then tuned first on the next round), and each round gives
# a ratio untuned / tuned (the speedup) of the median latency and of cpu_ms_per_inference;
# printed as the median with IQR and min-max over rounds (bench/ratios.py).
#
#   bench/tvm_tuning.sh [options]
#     --width N --depth N --batch N  conv_blocks model (default 64, 4, 8: Table V's block)
#     --models LIST                  instead: these models at --batch, comma-separated: Table IV's
#                                    architectures (resnet50, deit_small_patch16_224) or timm:<name>
#                                    (input 3x224x224), e.g. resnet50,timm:inception_v3
#     --trials N                     MetaSchedule trial budget (default 64, a few minutes on 2 cores)
#     --patience N                   stop a task after N trials without a 1% gain (default 0: never)
#     --tuning-timeout N             seconds (default 1200; over it the row says tuning=failed:...)
#     --warmup N --repeats N         (default 2 and 10)
#     --rounds N                     (default 5)
#     --threads N                    (default 0 = every available core)
#     --build DIR                    (default build)
#     --keep DIR                     keep configs, results and cache in DIR (default: a temp dir)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
width=64 depth=4 batch=8 trials=64 patience=0 tuning_timeout=1200 warmup=2 repeats=10 threads=0
rounds=5 build=$root/build keep="" models=""
while [[ $# -gt 1 ]]; do
  case $1 in
    --width) width=$2 ;;
    --depth) depth=$2 ;;
    --batch) batch=$2 ;;
    --models) models=$2 ;;
    --trials) trials=$2 ;;
    --patience) patience=$2 ;;
    --tuning-timeout) tuning_timeout=$2 ;;
    --warmup) warmup=$2 ;;
    --repeats) repeats=$2 ;;
    --rounds) rounds=$2 ;;
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
  if [[ -n $models ]]; then
    arch="" torch=""
    IFS=, read -r -a list <<<"$models"
    for m in "${list[@]}"; do
      if [[ $m == timm:* ]]; then torch+="${torch:+, }$m"; else arch+="${arch:+, }$m"; fi
    done
    sed -i '/^experiments:/,$d' "$dir/experiments.yaml"
    {
      echo "experiments:"
      if [[ -n $arch ]]; then
        printf '  architectures:\n    family: architecture\n    models: [%s]\n' "$arch"
      fi
      if [[ -n $torch ]]; then
        printf '  torch_models:\n    family: torch\n    models: [%s]\n' "$torch"
        printf '    input_shape: [3, 224, 224]\n'
      fi
    } >>"$dir/experiments.yaml"
  fi
  [[ $variant == tuned ]] && n=$trials || n=0
  cat >"$dir/tvm.yaml" <<EOF
device: cpu
precision: fp32
threads: $threads
opt_level: default
options:
  target: host
  tuning_trials: $n
  tuning_patience: $patience
  tuning_timeout_s: $tuning_timeout
EOF
done
experiments=conv_blocks
if [[ -n $models ]]; then
  experiments=$(sed -n 's/^  \([a-z_]*\):$/\1/p' "$work/configs_untuned/experiments.yaml" | paste -sd,)
fi
# One results root per variant (its .cache/tvm shared by the rounds), one device label per round.
# Exit 1 (a row not ok) goes on: the report lists it; anything else stops.
for ((round = 1; round <= rounds; round++)); do
  order="untuned tuned"; ((round % 2)) || order="tuned untuned"
  for variant in $order; do
    echo "== round $round/$rounds: $variant" >&2
    IFS=, read -r -a exps <<<"$experiments"
    for e in "${exps[@]}"; do
      "$build/ngraphbench" run "$e" tvm --configs "$work/configs_$variant" \
        --results "$work/results_$variant" --device "round$round" >&2 || [[ $? -eq 1 ]]
    done
  done
done

python3 - "$work" "$rounds" "$root/bench" <<'EOF'
import glob, os, sys
work, rounds = sys.argv[1], int(sys.argv[2])
sys.path.insert(0, sys.argv[3])
import ratios
run_ids = sorted(os.path.basename(p)[:-4]
                 for p in glob.glob(f"{work}/results_untuned/round1/tvm/*.csv")
                 if ".latencies." not in p and ".profile." not in p)
c = ratios.Comparison("untuned", "tuned")
for run_id in run_ids:
    rows = {(v, r): ratios.read_row(f"{work}/results_{v}/round{r}/tvm/{run_id}.csv")
            for v in ("untuned", "tuned") for r in range(1, rounds + 1)}
    for row in rows.values():
        row["settings"] = dict(kv.split("=", 1) for kv in row["compiler_settings"].split(";") if kv)
    first = rows[("untuned", 1)]
    print(f"{run_id}, tvm, threads {first['threads']}, target {first['settings'].get('target', '?')}")
    # Round 1 built (and tuned) from an empty cache; later rounds load the cached library.
    print(f"  {'round 1':9} {'status':>7} {'p50 ms':>10} {'compile_s':>10} {'tuning_s':>9} "
          f"{'trials':>6} {'tasks':>5} {'stopped':>7}  tuning")
    for variant in ("untuned", "tuned"):
        row = rows[(variant, 1)]
        s, p50 = row["settings"], ratios.cell(row, "latency_p50_ms")
        print(f"  {variant:9} {row['status']:>7} {p50 if p50 is not None else float('nan'):10.3f} "
              f"{ratios.cell(row, 'compile_s') or float('nan'):10.1f} "
              f"{float(s.get('tuning_s', 0)):9.1f} {s.get('trials', '0'):>6} "
              f"{s.get('tasks', '-'):>5} {s.get('tasks_stopped_early', '-'):>7}  "
              f"{s.get('tuning', '?')}")
    bad = [f"{v} round {r}: {row['status']} {row['error']}" for (v, r), row in rows.items()
           if row["status"] != "ok"]
    if bad:
        print("  not ok, left out of the ratios: " + "; ".join(bad))
    for r in range(1, rounds + 1):
        u, t = rows[("untuned", r)], rows[("tuned", r)]
        ok = u["status"] == "ok" and t["status"] == "ok"
        for metric, column in (("p50 ms", "latency_p50_ms"),
                               ("cpu ms/inf", "cpu_ms_per_inference")):
            c.add(run_id, metric, r, ratios.cell(u, column) if ok else None,
                  ratios.cell(t, column) if ok else None)
c.note("untuned / tuned = the speedup from tuning")
c.print(per_round=True)
EOF

