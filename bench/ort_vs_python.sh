#!/usr/bin/env bash
# ngraphbench's onnxruntime median latency against ONNX Runtime's own Python API timing the same
# exported .onnx file with the same settings (intra-op threads = all cores, inter-op 1,
# sequential, ORT_ENABLE_ALL), side by side. The two sides alternate per round and per model
# (ngraphbench first, then Python first for the next model and the next round), and each
# (round, model) gives a ratio ngraphbench / Python: of the median latency, and of the CPU time
# per inference (the row's cpu_ms_per_inference; Python's time.process_time() over its timed
# loop / iterations). Prints the median ratio with IQR and min-max over rounds (bench/ratios.py).
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
cat >"$tmp/ort.py" <<'PY'
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
lat, n = [], 100
cpu = time.process_time()
for _ in range(n):
    t = time.perf_counter_ns()
    sess.run_with_iobinding(binding)
    lat.append(time.perf_counter_ns() - t)
cpu = time.process_time() - cpu
print(np.median(lat) / 1e6, cpu * 1e3 / n)
PY
runs="conv_blocks:conv_blocks_w64_d4_b8 mha_blocks:mha_blocks_w256_d4_b1 fully_connected:fully_connected_w1024_b8 self_attention:self_attention_w512_b1"
for spec in $runs; do
  build/ngraphbench export "${spec%%:*}" "${spec#*:}" -o "$tmp/${spec#*:}.onnx" 2>/dev/null
done
for r in $(seq "$rounds"); do
  m=0
  for spec in $runs; do
    id=${spec#*:}
    order="ngb python"; [ $(((r + m) % 2)) -eq 0 ] && order="python ngb"
    m=$((m + 1))
    for side in $order; do
      if [ $side = ngb ]; then
        build/ngraphbench run "$tmp/$id.onnx" onnxruntime --configs "$tmp/configs" \
          --results "$tmp/ngb$r" --device bench 2>/dev/null
      else
        echo "$r $(.venv/bin/python "$tmp/ort.py" "$tmp/$id.onnx" "$threads")" >>"$tmp/python_$id.txt"
      fi
    done
  done
  echo "round $r/$rounds done" >&2
done
.venv/bin/python - "$tmp" "$rounds" "$runs" <<'PY'
import glob, sys
sys.path.insert(0, "bench")
import ratios
tmp, rounds, runs = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
c = ratios.Comparison("ngraphbench", "python ort")
for spec in runs:
    rid = spec.split(":")[1]
    py = {int(r): (float(ms), float(cpu))
          for r, ms, cpu in (line.split() for line in open(f"{tmp}/python_{rid}.txt"))}
    for r in range(1, rounds + 1):
        path = [f for f in glob.glob(f"{tmp}/ngb{r}/bench/onnxruntime/{rid}_b*.csv")
                if not f.endswith(".latencies.csv")][0]
        row = ratios.read_row(path)
        assert row["status"] == "ok", row["error"]
        c.add(rid, "p50 ms", r, ratios.cell(row, "latency_p50_ms"), py[r][0])
        c.add(rid, "cpu ms/inf", r, ratios.cell(row, "cpu_ms_per_inference"), py[r][1])
c.print()
PY
