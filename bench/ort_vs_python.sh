#!/usr/bin/env bash
# ngraphbench's onnxruntime median latency against ONNX Runtime's own Python API timing the same
# exported .onnx file with the same settings (intra-op threads = all cores, inter-op 1,
# sequential, ORT_ENABLE_ALL), side by side, interleaved over rounds. Ratio = ngraphbench / Python.
#   bench/ort_vs_python.sh [rounds=3]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
[ -x build/ngraphbench ] || ./setup.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
threads=$(nproc)
mkdir -p "$tmp/configs"
cp configs/experiments.yaml "$tmp/configs/"
cat >"$tmp/configs/onnxruntime.yaml" <<YAML
threads: $threads
opt_level: all
options: {inter_op_threads: 1, execution_mode: sequential}
YAML
runs="conv_blocks:conv_blocks_w64_d4_b8 mha_blocks:mha_blocks_w256_d4_b1 fully_connected:fully_connected_w1024_b8 self_attention:self_attention_w512_b1"
for spec in $runs; do
  build/ngraphbench export "${spec%%:*}" "${spec#*:}" -o "$tmp/${spec#*:}.onnx" 2>/dev/null
done
for r in $(seq "$rounds"); do
  for spec in $runs; do
    id=${spec#*:}
    build/ngraphbench run "$tmp/$id.onnx" onnxruntime --configs "$tmp/configs" \
      --results "$tmp/ngb$r" --device bench 2>/dev/null
    .venv/bin/python - "$tmp/$id.onnx" "$threads" >>"$tmp/python_$id.txt" <<'PY'
import sys, time
import numpy as np
import onnxruntime as ort
path, threads = sys.argv[1], int(sys.argv[2])
so = ort.SessionOptions()
so.intra_op_num_threads = threads
so.inter_op_num_threads = 1
so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
inp = sess.get_inputs()[0]
x = np.random.default_rng(0).standard_normal(inp.shape).astype(np.float32)
binding = sess.io_binding()
binding.bind_cpu_input(inp.name, x)
out = sess.get_outputs()[0]
y = np.empty(out.shape, dtype=np.float32)
binding.bind_output(out.name, "cpu", 0, np.float32, y.shape, y.ctypes.data)
sess.run_with_iobinding(binding)  # first run
for _ in range(10):
    sess.run_with_iobinding(binding)
lat = []
for _ in range(100):
    t = time.perf_counter_ns()
    sess.run_with_iobinding(binding)
    lat.append(time.perf_counter_ns() - t)
print(np.median(lat) / 1e6)
PY
  done
done
.venv/bin/python - "$tmp" "$rounds" "$runs" <<'PY'
import csv, glob, statistics, sys
tmp, rounds, runs = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
print(f"{'model':<28}{'ngraphbench ms':>16}{'python ort ms':>15}{'ratio':>8}")
ratios = []
for spec in runs:
    rid = spec.split(":")[1]
    ngb = []
    for r in range(1, rounds + 1):
        path = [f for f in glob.glob(f"{tmp}/ngb{r}/bench/onnxruntime/{rid}_b*.csv")
                if not f.endswith(".latencies.csv")][0]
        row = next(csv.DictReader(open(path)))
        assert row["status"] == "ok", row["error"]
        ngb.append(float(row["latency_p50_ms"]))
    py = [float(l) for l in open(f"{tmp}/python_{rid}.txt")]
    a, b = statistics.median(ngb), statistics.median(py)
    ratios.append(a / b)
    print(f"{rid:<28}{a:>16.3f}{b:>15.3f}{a / b:>8.3f}")
print(f"median ratio ngraphbench/python: {statistics.median(ratios):.3f}")
PY
