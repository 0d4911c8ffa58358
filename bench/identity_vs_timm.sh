#!/usr/bin/env bash
# ngraphbench's `identity` (ATen eager, C++) against timm's own models in Python eager
# (torch.inference_mode), same threads, batch 1 and 8, interleaved, side by side:
# resnet50, deit_small_patch16_224, swin_tiny_patch4_window7_224, convnext_tiny.
# Ratio = ngraphbench median / Python median; above 1 means the C++ baseline is slower.
#   bench/identity_vs_timm.sh [--threads N] [--repeats N]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
THREADS=$(nproc) REPEATS=30
while [ $# -gt 0 ]; do
  case $1 in
    --threads) THREADS=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    *) echo "unknown argument '$1' (expected --threads N, --repeats N)" >&2; exit 2 ;;
  esac
done
BIN=$ROOT/build/ngraphbench PY=$ROOT/.venv/bin/python
[ -x "$BIN" ] || { echo "no $BIN: run ./setup.sh first" >&2; exit 2; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
MODELS="resnet50 deit_small_patch16_224 swin_tiny_patch4_window7_224 convnext_tiny"
mkdir -p "$TMP/configs"
cat >"$TMP/configs/experiments.yaml" <<YAML
defaults: {batch_sizes: [1, 8], quick_batch_sizes: [1, 8], warmup: 5, repeats: $REPEATS,
           max_time_s: 120, timeout_s: 1800}
experiments:
  arch: {family: architecture, models: [$(echo $MODELS | sed 's/ /, /g')]}
YAML
echo "threads: $THREADS" >"$TMP/configs/identity.yaml"
for model in $MODELS; do
  # one model at a time, each followed by its Python twin, so both see the same machine state
  sed "s/models: \[.*\]/models: [$model]/" "$TMP/configs/experiments.yaml" >"$TMP/configs/e.yaml"
  mv "$TMP/configs/e.yaml" "$TMP/configs/experiments.yaml"
  "$BIN" run arch identity --configs "$TMP/configs" --results "$TMP/results" --device bench \
    2>/dev/null || { echo "identity run of $model failed" >&2; exit 1; }
  "$PY" - "$ROOT" "$model" "$THREADS" "$REPEATS" >>"$TMP/python.csv" <<'PY'
import sys, time, statistics
root, model, threads, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
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
        for _ in range(repeats):
            t = time.perf_counter_ns()
            m(x)
            lat.append(time.perf_counter_ns() - t)
    print(f"{model},{batch},{statistics.median(lat) / 1e6}")
PY
done
"$PY" - "$TMP" <<'PY'
import csv, glob, sys
tmp = sys.argv[1]
py = {(m, int(b)): float(v) for m, b, v in csv.reader(open(f"{tmp}/python.csv"))}
print(f"{'model':<32}{'batch':>6}{'identity ms':>13}{'timm eager ms':>15}{'ratio':>8}")
for f in sorted(glob.glob(f"{tmp}/results/bench/identity/*.csv")):
    if f.endswith(".latencies.csv"):
        continue
    row = next(csv.DictReader(open(f)))
    key = (row["model"], int(row["batch_size"]))
    a, b = float(row["latency_p50_ms"]), py[key]
    print(f"{key[0]:<32}{key[1]:>6}{a:>13.2f}{b:>15.2f}{a / b:>8.3f}")
PY
