#!/usr/bin/env bash
# ngraphbench's LibTorch compilers against the same models in Python PyTorch, side by side:
#   identity     vs  eager torch.nn modules under torch.inference_mode()
#   torchscript  vs  torch.jit.trace + torch.jit.freeze + torch.jit.optimize_for_inference
# on conv_blocks (width 64, depth 8) and mha_blocks (width 256, depth 4), batch 1 and 8, with the
# same thread count. A ratio near 1 says the C++ baseline costs what PyTorch costs.
#
# Usage: bench/torch_vs_python.sh [--build DIR] [--threads N] [--warmup N] [--repeats N]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build
THREADS=$(nproc)
WARMUP=10
REPEATS=50
while [ $# -gt 0 ]; do
  case $1 in
    --build) BUILD=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
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

for experiment in conv_blocks mha_blocks; do
  for compiler in identity torchscript; do
    "$BIN" run "$experiment" "$compiler" --configs "$TMP/configs" --results "$TMP/results" \
      --device bench >&2
  done
done

"$PY" "$ROOT/bench/torch_vs_python.py" --results "$TMP/results/bench" --threads "$THREADS" \
  --warmup "$WARMUP" --repeats "$REPEATS"
