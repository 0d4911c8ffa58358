#!/usr/bin/env bash
# ngraphbench's LibTorch compilers against the same models in Python PyTorch, side by side:
#   identity     vs  eager torch.nn modules under torch.inference_mode()
#   torchscript  vs  torch.jit.trace + torch.jit.freeze + torch.jit.optimize_for_inference
# on conv_blocks (width 64, depth 8) and mha_blocks (width 256, depth 4), batch 1 and 8, with the
# same thread count. Per round, each (heap, model, compiler) runs both sides, alternating which
# goes first (ngraphbench first, then Python first for the next one and the next round), and
# gives a ratio ngraphbench / Python of the median latency and of the CPU time per inference
# (the row's cpu_ms_per_inference; Python's time.process_time() over its timed loop). Prints
# the median ratio with IQR and min-max over rounds (bench/ratios.py). A ratio near 1 says the
# C++ baseline costs what PyTorch costs.
#
# Each round runs the Python side twice (ngraphbench's workers always fix their heap, see
# src/ngraphbench/measure/heap.h):
#   glibc   glibc's defaults. Its mmap and trim thresholds adapt to what the process allocated
#           and freed before, so a process can page-fault on each op's fresh output buffer.
#   pinned  MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_ fixed as the workers fix them:
#           only the kernels and the per-op overhead differ.
# The Python side prints its minor page faults per iteration, which shows that difference.
#
# Usage: bench/torch_vs_python.sh [--build DIR] [--threads N] [--warmup N] [--repeats N]
#                                 [--rounds N]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build
THREADS=$(nproc)
WARMUP=10
REPEATS=50
ROUNDS=3
while [ $# -gt 0 ]; do
  case $1 in
    --build) BUILD=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    *) echo "unknown argument '$1'; see the usage line in $0" >&2; exit 2 ;;
  esac
done

BIN=$BUILD/ngraphbench
PY=$ROOT/.venv/bin/python
[ -x "$BIN" ] || { echo "no $BIN: run ./setup.sh first (or pass --build DIR)" >&2; exit 2; }
[ -x "$PY" ] || { echo "no $PY: run ./setup.sh first" >&2; exit 2; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/configs"
cat >"$TMP/configs/experiments.yaml" <<YAML
defaults:
  batch_sizes: [1, 8]
  quick_batch_sizes: [1, 8]
  warmup: $WARMUP
  repeats: $REPEATS
  max_time_s: 0
  timeout_s: 900
  timing_boundary: compute
experiments:
  conv_blocks:
    family: conv_block
    description: depth x [Conv3x3 -> BatchNorm -> ReLU] on [b, width, 56, 56]
    widths: [64]
    depths: [8]
  mha_blocks:
    family: mha_block
    description: depth x [multi-head self-attention -> ReLU] on [b, 197, width]
    widths: [256]
    depths: [4]
YAML
for compiler in identity torchscript; do
  sed "s/^threads:.*/threads: $THREADS/" "$ROOT/configs/$compiler.yaml" >"$TMP/configs/$compiler.yaml"
done

# experiment name, family, width, depth: the grid above, for the Python twin.
MODELS="conv_blocks:conv_block:64:8 mha_blocks:mha_block:256:4"
for round in $(seq "$ROUNDS"); do
  m=0
  for malloc in glibc pinned; do
    env=()
    if [ "$malloc" = pinned ]; then
      env=(MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=2147483647)
    fi
    out=$TMP/$malloc/round$round
    mkdir -p "$out"
    for spec in $MODELS; do
      IFS=: read -r experiment family width depth <<<"$spec"
      for compiler in identity torchscript; do
        order="ngraphbench python"; [ $(((round + m) % 2)) -eq 0 ] && order="python ngraphbench"
        m=$((m + 1))
        for side in $order; do
          if [ $side = ngraphbench ]; then
            "$BIN" run "$experiment" "$compiler" --configs "$TMP/configs" \
              --results "$out" --device bench >/dev/null 2>&1 ||
              { echo "ngraphbench run $experiment $compiler failed; rows in $out" >&2; exit 1; }
          else
            env "${env[@]}" "$PY" "$ROOT/bench/torch_vs_python.py" time --family "$family" \
              --width "$width" --depth "$depth" --batches 1,8 --compiler "$compiler" \
              --threads "$THREADS" --warmup "$WARMUP" --repeats "$REPEATS" \
              --out "$out/python_${experiment}_$compiler.json"
          fi
        done
      done
    done
    echo "round $round ($malloc) done" >&2
  done
done

"$PY" "$ROOT/bench/torch_vs_python.py" report --dir "$TMP" --threads "$THREADS" \
  --warmup "$WARMUP" --repeats "$REPEATS"
