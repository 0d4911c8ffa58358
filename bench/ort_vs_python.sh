#!/usr/bin/env bash
# ngraphbench's onnxruntime median latency against ONNX Runtime's own Python API timing the same
# model file with the same settings (intra-op threads = all cores, inter-op 1, sequential, the
# graph optimization level of the run's opt_level), side by side. The two sides alternate per
# round and per model (ngraphbench first, then Python first for the next model and the next
# round), and each (round, model) gives a ratio ngraphbench / Python: of the median latency, and
# of the CPU time per inference (the row's cpu_ms_per_inference; Python's time.process_time()
# over its timed loop / iterations). Prints the median ratio with IQR and min-max over rounds
# (bench/ratios.py), and the model file each side ran.
#
# --precision int8: ngraphbench runs with `--set precision=int8`, and Python times the very QDQ
# model ngraphbench ran. One untimed ngraphbench run per model first quantizes it into a results
# root of its own (<tmp>/prep); its row's compiler_settings quantize_key names the cache entry
# .cache/onnxruntime-int8/<key>/quantized.onnx, which Python loads and which every round's
# results root reaches through a link to that cache folder, so each timed row is a cache hit on
# the same file (checked: quantize_key equal, quantize_cache_hit true). Nothing is quantized
# again on the Python side.
#
#   bench/ort_vs_python.sh [rounds] [options]
#     rounds                             (default 3)
#     --precision fp32|int8              (default fp32)
#     --opt-level all|extended|basic|disable
#                                        (default all: ORT_ENABLE_ALL on both sides; at all,
#                                         ONNX Runtime fuses an int8 model's QDQ pairs into
#                                         integer kernels)
#     --runs "EXPERIMENT:RUN_ID ..."     (default conv_blocks:conv_blocks_w64_d4_b8
#                                         mha_blocks:mha_blocks_w256_d4_b1
#                                         fully_connected:fully_connected_w1024_b8
#                                         self_attention:self_attention_w512_b1; run ids:
#                                         `build/ngraphbench expand <experiment>`)
# Example: bench/ort_vs_python.sh 5 --precision int8 --runs architectures:resnet50_b1
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
rounds=3 precision=fp32 opt_level=all
runs="conv_blocks:conv_blocks_w64_d4_b8 mha_blocks:mha_blocks_w256_d4_b1 fully_connected:fully_connected_w1024_b8 self_attention:self_attention_w512_b1"
while [[ $# -gt 0 ]]; do
  case $1 in
    --precision|--opt-level|--runs)
      [[ $# -ge 2 ]] || usage
      case $1 in --precision) precision=$2 ;; --opt-level) opt_level=$2 ;; --runs) runs=$2 ;; esac
      shift 2 ;;
    *) [[ $1 =~ ^[1-9][0-9]*$ ]] || usage; rounds=$1; shift ;;
  esac
done
[[ $precision == fp32 || $precision == int8 ]] || usage
[[ $opt_level =~ ^(all|extended|basic|disable)$ ]] || usage
for spec in $runs; do [[ $spec == *:?* && $spec == ?*:* ]] || usage; done
[[ -n ${runs// /} ]] || usage
[ -x build/ngraphbench ] || ./setup.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
threads=$(nproc)
mkdir -p "$tmp/configs"
cp configs/experiments.yaml "$tmp/configs/"
cat >"$tmp/configs/onnxruntime.yaml" <<YAML
threads: $threads
opt_level: $opt_level
options: {inter_op_threads: 1, execution_mode: sequential}
YAML
set_precision=()
[[ $precision == int8 ]] && set_precision=(--set precision=int8)
cat >"$tmp/ort.py" <<'PY'
import sys, time
import numpy as np
import onnxruntime as ort
path, threads, opt_level = sys.argv[1], int(sys.argv[2]), sys.argv[3]
so = ort.SessionOptions()
so.intra_op_num_threads = threads
so.inter_op_num_threads = 1
so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
so.graph_optimization_level = {
    "disable": ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
    "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
    "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
    "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL}[opt_level]
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
# A row's cell, or one of its compiler_settings ("k=v;k=v"): row.py FILE_GLOB FIELD [SETTING].
cat >"$tmp/row.py" <<'PY'
import glob, sys
sys.path.insert(0, "bench")
import ratios
files = [f for f in glob.glob(sys.argv[1]) if not f.endswith((".latencies.csv", ".profile.csv"))]
if len(files) != 1:
    sys.exit(f"expected one row matching {sys.argv[1]}, found {len(files)}")
value = ratios.read_row(files[0]).get(sys.argv[2], "")
if len(sys.argv) > 3:
    value = dict(kv.split("=", 1) for kv in value.split(";") if "=" in kv).get(sys.argv[3], "")
print(value)
PY
field() { .venv/bin/python "$tmp/row.py" "$@"; }
for spec in $runs; do
  id=${spec#*:}
  build/ngraphbench export "${spec%%:*}" "$id" -o "$tmp/$id.onnx" 2>"$tmp/export.log" \
    || { cat "$tmp/export.log" >&2; exit 2; }
  echo "$tmp/$id.onnx" >"$tmp/model_$id.txt"
done
if [[ $precision == int8 ]]; then
  # Untimed: ngraphbench quantizes each model once, into prep's cache.
  for spec in $runs; do
    id=${spec#*:}
    echo "quantizing $id (ngraphbench, untimed)" >&2
    unset prep_rc
    build/ngraphbench run "$tmp/$id.onnx" onnxruntime --configs "$tmp/configs" \
      --results "$tmp/prep" --device prep "${set_precision[@]}" --warmup 0 --repeats 10 \
      --stop fixed --processes 1 --sample-ms 0 >"$tmp/prep.log" 2>&1 || prep_rc=$?
    key=$(field "$tmp/prep/prep/onnxruntime/${id}_b*.csv" compiler_settings quantize_key) || key=
    model=$tmp/prep/.cache/onnxruntime-int8/$key/quantized.onnx
    if [[ -z $key || ! -f $model ]]; then
      cat "$tmp/prep.log" >&2
      echo "ngraphbench did not quantize $id (no quantize_key in its row, or no $model)" >&2
      exit "${prep_rc:-1}"  # ngraphbench's own exit code: 2 for bad input (docs/cli.md)
    fi
    echo "$model" >"$tmp/model_$id.txt"
    echo "$key" >"$tmp/key_$id.txt"
  done
fi
for r in $(seq "$rounds"); do
  if [[ $precision == int8 ]]; then  # this round's rows find the models quantized above
    mkdir -p "$tmp/ngb$r/.cache"
    ln -s "$tmp/prep/.cache/onnxruntime-int8" "$tmp/ngb$r/.cache/onnxruntime-int8"
  fi
  m=0
  for spec in $runs; do
    id=${spec#*:}
    order="ngb python"; [ $(((r + m) % 2)) -eq 0 ] && order="python ngb"
    m=$((m + 1))
    for side in $order; do
      if [ $side = ngb ]; then
        build/ngraphbench run "$tmp/$id.onnx" onnxruntime --configs "$tmp/configs" \
          --results "$tmp/ngb$r" --device bench "${set_precision[@]}" 2>/dev/null
      else
        echo "$r $(.venv/bin/python "$tmp/ort.py" "$(cat "$tmp/model_$id.txt")" "$threads" \
          "$opt_level")" >>"$tmp/python_$id.txt"
      fi
    done
  done
  echo "round $r/$rounds done" >&2
done
.venv/bin/python - "$tmp" "$rounds" "$runs" "$precision" "$opt_level" <<'PY'
import glob, sys
sys.path.insert(0, "bench")
import ratios
tmp, rounds, runs, precision, opt_level = (sys.argv[1], int(sys.argv[2]), sys.argv[3].split(),
                                           sys.argv[4], sys.argv[5])
c = ratios.Comparison("ngraphbench", "python ort")
for spec in runs:
    rid = spec.split(":")[1]
    model = open(f"{tmp}/model_{rid}.txt").read().strip()
    key = open(f"{tmp}/key_{rid}.txt").read().strip() if precision == "int8" else None
    py = {int(r): (float(ms), float(cpu))
          for r, ms, cpu in (line.split() for line in open(f"{tmp}/python_{rid}.txt"))}
    for r in range(1, rounds + 1):
        path = [f for f in glob.glob(f"{tmp}/ngb{r}/bench/onnxruntime/{rid}_b*.csv")
                if not f.endswith((".latencies.csv", ".profile.csv"))][0]
        row = ratios.read_row(path)
        assert row["status"] == "ok", row["error"]
        settings = dict(kv.split("=", 1) for kv in row["compiler_settings"].split(";")
                        if "=" in kv)
        assert settings.get("graph_optimization_level") == opt_level, row["compiler_settings"]
        if key is not None:  # the timed row ran the file Python ran
            assert settings.get("quantize_key") == key and \
                settings.get("quantize_cache_hit") == "true", row["compiler_settings"]
        label = rid + ("_int8" if key else "")
        c.add(label, "p50 ms", r, ratios.cell(row, "latency_p50_ms"), py[r][0])
        c.add(label, "cpu ms/inf", r, ratios.cell(row, "cpu_ms_per_inference"), py[r][1])
    print(f"{label}: both sides ran {model}"
          + (f" (quantize_key {key}, {settings.get('quantization')}, "
             f"qdq_nodes {settings.get('qdq_nodes')})" if key else ""))
import onnxruntime
print(f"precision {precision}, opt_level {opt_level}; ngraphbench {row['compiler_version']}, "
      f"python onnxruntime {onnxruntime.__version__}")
c.print()
PY
