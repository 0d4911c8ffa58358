#!/usr/bin/env bash
# ngraphbench's `identity` (ATen eager, C++) against timm's own models in Python eager
# (torch.inference_mode), same threads, batch 1 and 8, side by side:
# resnet50, deit_small_patch16_224, swin_tiny_patch4_window7_224, convnext_tiny.
# The two sides alternate per round and per model (ngraphbench first, then Python first for the
# next model and the next round); each (round, model, batch) gives a ratio ngraphbench / Python
# of the median latency and of the CPU time per inference (the row's cpu_ms_per_inference;
# Python's time.process_time() over its timed loop / repeats). Prints the median ratio with IQR
# and min-max over rounds (bench/ratios.py); above 1 means the C++ baseline is slower.
#   bench/identity_vs_timm.sh [--threads N] [--repeats N] [--rounds N (default 5)]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
THREADS=$(nproc) REPEATS=30 ROUNDS=5
while [ $# -gt 0 ]; do
  case $1 in
    --threads) THREADS=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    *) echo "unknown argument '$1' (expected --threads N, --repeats N, --rounds N)" >&2; exit 2 ;;
  esac
done
BIN=$ROOT/build/ngraphbench PY=$ROOT/.venv/bin/python
[ -x "$BIN" ] || { echo "no $BIN: run ./setup.sh first" >&2; exit 2; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
MODELS="resnet50 deit_small_patch16_224 swin_tiny_patch4_window7_224 convnext_tiny"
mkdir -p "$TMP/configs"
echo "threads: $THREADS" >"$TMP/configs/identity.yaml"
# Not "timm.py": the script's directory comes first on sys.path, where `import timm` would find it.
cat >"$TMP/timm_eager.py" <<'PY'
import sys, time, statistics
root, model, threads, repeats, r = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
sys.path.insert(0, root + "/python")
import torch
import export_timm
timm = export_timm.import_timm()
torch.set_num_threads(threads)
m = timm.create_model(model, pretrained=False).eval()
for batch in (1, 8):
    x = torch.randn(batch, 3, 224, 224)
    with torch.inference_mode():
        for _ in range(5):
            m(x)
        lat = []
        cpu = time.process_time()
        for _ in range(repeats):
            t = time.perf_counter_ns()
            m(x)
            lat.append(time.perf_counter_ns() - t)
        cpu = time.process_time() - cpu
    print(f"{r},{model},{batch},{statistics.median(lat) / 1e6},{cpu * 1e3 / repeats}")
PY
for r in $(seq "$ROUNDS"); do
  i=0
  for model in $MODELS; do
    # one model at a time, next to its Python twin, so both see the same machine state
    cat >"$TMP/configs/experiments.yaml" <<YAML
defaults: {batch_sizes: [1, 8], quick_batch_sizes: [1, 8], warmup: 5, repeats: $REPEATS,
           max_time_s: 120, timeout_s: 1800}
experiments:
  arch: {family: architecture, models: [$model]}
YAML
    order="ngraphbench python"; [ $(((r + i) % 2)) -eq 0 ] && order="python ngraphbench"
    i=$((i + 1))
    for side in $order; do
      if [ $side = ngraphbench ]; then
        # one results root (its output-check cache shared), one device label per round
        "$BIN" run arch identity --configs "$TMP/configs" --results "$TMP/results" \
          --device "round$r" 2>/dev/null || { echo "identity run of $model failed" >&2; exit 1; }
      else
        "$PY" "$TMP/timm_eager.py" "$ROOT" "$model" "$THREADS" "$REPEATS" "$r" >>"$TMP/python.csv"
      fi
    done
  done
  echo "round $r/$ROUNDS done" >&2
done
"$PY" - "$TMP" "$ROOT/bench" <<'PY'
import csv, glob, sys
tmp = sys.argv[1]
sys.path.insert(0, sys.argv[2])
import ratios
py = {(int(r), m, int(b)): (float(ms), float(cpu))
      for r, m, b, ms, cpu in csv.reader(open(f"{tmp}/python.csv"))}
c = ratios.Comparison("identity", "timm eager")
for r, model, batch in sorted(py, key=lambda k: (k[1], k[2], k[0])):
    row = ratios.read_row(f"{tmp}/results/round{r}/identity/{model}_b{batch}.csv")
    assert row["status"] == "ok", f"{model} b{batch} round {r}: {row['status']} {row['error']}"
    label = f"{model} b{batch}"
    c.add(label, "p50 ms", r, ratios.cell(row, "latency_p50_ms"), py[(r, model, batch)][0])
    c.add(label, "cpu ms/inf", r, ratios.cell(row, "cpu_ms_per_inference"), py[(r, model, batch)][1])
c.print()
PY
