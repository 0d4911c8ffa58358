#!/usr/bin/env bash
# ngraphbench's `inductor` (AOTInductor package timed in C++) against Python's torch.compile on
# the same module, side by side: conv_blocks (width 64, depth 8) and mha_blocks (width 256,
# depth 4), batch 1 and 8, the same thread count (default 1).
#
# Same module: each run's ONNX comes from `ngraphbench export`, and the Python side converts it
# with the functions of src/ngraphbench/compilers/inductor/inductor_compile.py itself (imported by
# path; the ngraphbench side is pointed at that same file with
# NGRAPHBENCH_INDUCTOR_COMPILE_SCRIPT). Same Inductor settings: the compiler's defaults
# (freezing on, max_autotune off, cpp.threads = threads) against torch.compile's default mode
# with freezing on (bench/inductor_vs_torch_compile.py). --max-autotune turns max_autotune on on
# both sides (a temp inductor.yaml; mode="max-autotune-no-cudagraphs").
#
# Per round, each model runs both sides, alternating which goes first (ngraphbench first, then
# Python first for the next model and the next round), and each (round, run) gives a ratio
# ngraphbench / Python of the median latency (the row's latency_p50_ms; Python's median of
# time.perf_counter over its timed calls) and of the CPU time per inference (the row's
# cpu_ms_per_inference; Python's time.process_time() over its timed loop / iterations). Prints
# the median ratio with IQR and min-max over rounds (bench/ratios.py), and each side's compile
# time in round 1 (cold) as information.
#
# Python's heap: ngraphbench's workers fix glibc's mmap and trim thresholds
# (src/ngraphbench/measure/heap.h); by default the Python side runs with the same two
# (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_), so only the compiled code and the per-call
# overhead differ. --python-heap glibc leaves glibc's adaptive defaults instead, under which an
# op's fresh output buffer can page-fault each call (bench/torch_vs_python.sh shows both); the
# report prints Python's minor page faults per timed call either way.
#
# Caches: ngraphbench keeps its compiled packages under the one results root of this bench
# (<root>/.cache/inductor; each round's rows are moved out after its run, so every round measures
# again, loading the package); Python's Inductor cache is this bench's too (TORCHINDUCTOR_CACHE_DIR
# in the temp folder), and each Python process (one per round and run) compiles in its first call
# (cold in round 1, from that cache later) and then times.
#
# Usage: bench/inductor_vs_torch_compile.sh [--build DIR] [--threads N] [--warmup N]
#                                           [--repeats N] [--rounds N] [--max-autotune]
#                                           [--python-heap pinned|glibc]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build
THREADS=1
WARMUP=10
REPEATS=50
ROUNDS=5
AUTOTUNE=()
HEAP=pinned
while [ $# -gt 0 ]; do
  case $1 in
    --build) BUILD=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --max-autotune) AUTOTUNE=(--max-autotune); shift ;;
    --python-heap) HEAP=$2; shift 2 ;;
    *) echo "unknown argument '$1'; see the usage line in $0" >&2; exit 2 ;;
  esac
done

case $HEAP in
  pinned) HEAP_ENV=(MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=2147483647) ;;
  glibc) HEAP_ENV=() ;;
  *) echo "--python-heap is pinned or glibc, not '$HEAP'" >&2; exit 2 ;;
esac

BIN=$BUILD/ngraphbench
PY=$ROOT/.venv/bin/python
BENCH_PY=$ROOT/bench/inductor_vs_torch_compile.py
[ -x "$BIN" ] || { echo "no $BIN: run ./setup.sh first (or pass --build DIR)" >&2; exit 2; }
[ -x "$PY" ] || { echo "no $PY: run ./setup.sh first" >&2; exit 2; }
grep -qE '^ +inductor ' <<<"$("$BIN" list 2>/dev/null)" ||
  { echo "$BIN has no inductor compiler (see \`$BIN list\`)" >&2; exit 2; }
# Both sides build the module with this one file.
export NGRAPHBENCH_INDUCTOR_COMPILE_SCRIPT=$ROOT/src/ngraphbench/compilers/inductor/inductor_compile.py

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/configs" "$TMP/onnx"
cat >"$TMP/configs/experiments.yaml" <<YAML
defaults:
  batch_sizes: [1, 8]
  quick_batch_sizes: [1, 8]
  warmup: $WARMUP
  repeats: $REPEATS
  max_time_s: 0
  timeout_s: 1800
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
sed -e "s/^threads:.*/threads: $THREADS/" \
  -e "s/^\( *max_autotune:\) *[a-z]*/\1 $([ ${#AUTOTUNE[@]} -gt 0 ] && echo true || echo false)/" \
  "$ROOT/configs/inductor.yaml" >"$TMP/configs/inductor.yaml"

EXPERIMENTS="conv_blocks mha_blocks"
declare -A IDS
for experiment in $EXPERIMENTS; do
  IDS[$experiment]=$("$BIN" expand "$experiment" --configs "$TMP/configs")
  for id in ${IDS[$experiment]}; do
    mkdir -p "$TMP/onnx/$id"
    "$BIN" export "$experiment" "$id" --configs "$TMP/configs" -o "$TMP/onnx/$id/model.onnx" \
      >/dev/null 2>&1 || { echo "ngraphbench export $experiment $id failed" >&2; exit 1; }
  done
done

NGB=$TMP/ngb   # one results root: its .cache/inductor holds the packages across rounds
for round in $(seq "$ROUNDS"); do
  out=$TMP/round$round
  mkdir -p "$out"
  m=0
  for experiment in $EXPERIMENTS; do
    order="ngraphbench python"; [ $(((round + m) % 2)) -eq 0 ] && order="python ngraphbench"
    m=$((m + 1))
    for side in $order; do
      if [ $side = ngraphbench ]; then
        "$BIN" run "$experiment" inductor --configs "$TMP/configs" --results "$NGB" \
          --device bench >"$TMP/ngraphbench.log" 2>&1 ||
          { cat "$TMP/ngraphbench.log" >&2; echo "ngraphbench run $experiment inductor failed" >&2
            exit 1; }
        # The rows leave the results root, so the next round measures again.
        mv "$NGB"/bench/inductor/*.csv "$out/"
      else
        for id in ${IDS[$experiment]}; do
          env "${HEAP_ENV[@]}" TORCHINDUCTOR_CACHE_DIR="$TMP/python-inductor-cache" \
            "$PY" "$BENCH_PY" time \
            --onnx "$TMP/onnx/$id/model.onnx" --run-id "$id" --threads "$THREADS" \
            --warmup "$WARMUP" --repeats "$REPEATS" "${AUTOTUNE[@]}" \
            --out "$out/python_$id.json" >"$TMP/python.log" 2>&1 ||
            { cat "$TMP/python.log" >&2; echo "python torch.compile of $id failed" >&2; exit 1; }
        done
      fi
    done
  done
  echo "round $round/$ROUNDS done" >&2
done

"$PY" "$BENCH_PY" report --dir "$TMP" --threads "$THREADS" --warmup "$WARMUP" \
  --repeats "$REPEATS" --python-heap "$HEAP" "${AUTOTUNE[@]}"
