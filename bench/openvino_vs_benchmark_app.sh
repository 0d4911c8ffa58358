#!/usr/bin/env bash
# ngraphbench's openvino module against OpenVINO's own benchmark_app on the same model, with the
# same threads, streams and inference precision, the LATENCY hint and one synchronous request
# each. The two tools alternate round by round (ngraphbench first, then benchmark_app first on the
# next round); each round gives a ratio ngraphbench / benchmark_app of the median latency, printed
# as the median ratio with IQR and min-max over rounds (bench/ratios.py). A ratio far from 1 means
# the module adds overhead (or saves some) that OpenVINO's reference tool does not. benchmark_app
# reports no CPU time, so there is no CPU-per-inference ratio.
#
# In latency mode each round also runs a third side on the same model file: a bare loop of
# OpenVINO's C++ API (bench/openvino_loop.cc, built here with g++ against the wheel's headers and
# libopenvino.so) with the same properties, warmup, repeats and 0.5 s minimum window as
# ngraphbench's; the ratio ngraphbench / that loop shows what the module costs over the SDK's own
# infer() in a C++ process, apart from what benchmark_app's Python host costs.
#
# --mode throughput compares throughput instead: ngraphbench's offline scenario with `streams:
# auto` (OpenVINO's THROUGHPUT hint and its optimal number of infer requests, one stream each)
# against `benchmark_app -hint throughput -api async` with the same threads and precision; each
# round gives a ratio ngraphbench samples/s / benchmark_app's throughput (FPS).
#
# --precision int8: ngraphbench runs NNCF's quantized model (precision int8), and benchmark_app
# times the very same OpenVINO IR with INFERENCE_PRECISION_HINT f32 for the layers left in
# floating point, as the module compiles it. One untimed ngraphbench run first quantizes the model
# into a results root of its own (<work>/prep); its row's compiler_settings quantize_key names
# the cache entry .cache/openvino-int8/<key>/quantized.{xml,bin}, which benchmark_app loads and
# which every round's results root reaches through a link to that cache folder, so each timed
# row is a cache hit on the same files (checked: quantize_key equal, quantize_cache_hit true).
# Nothing is quantized again for benchmark_app. The model file benchmark_app ran is printed.
#
#   bench/openvino_vs_benchmark_app.sh <experiment> <run_id> [options]
#     --mode latency|throughput   (default latency)
#     --threads N                 (default: every available core, as ngraphbench's default)
#     --streams 0|1               (default 0 = as the LATENCY hint decides: one)
#     --precision fp32|bf16|fp16|int8  (default fp32)
#     --warmup N --repeats N      (default 10 and 200; benchmark_app runs warmup+repeats
#                                  iterations after its own first inference)
#     --rounds N                  (default 4: the tools alternate N times, so that a change
#                                  in machine load hits both; one ratio per round)
#     --build DIR                 (default build)
# Run ids: `build/ngraphbench expand <experiment>`, e.g.
#   bench/openvino_vs_benchmark_app.sh architectures resnet50_b1 --precision int8 --rounds 6
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '2,41p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[[ $# -ge 2 ]] || usage
experiment=$1 run_id=$2
shift 2
threads=$(nproc) streams=0 precision=fp32 warmup=10 repeats=200 rounds=4 mode=latency
build=$root/build
while [[ $# -gt 1 ]]; do
  case $1 in
    --mode) mode=$2 ;;
    --threads) threads=$2 ;;
    --streams) streams=$2 ;;
    --precision) precision=$2 ;;
    --warmup) warmup=$2 ;;
    --repeats) repeats=$2 ;;
    --rounds) rounds=$2 ;;
    --build) build=$(cd "$2" && pwd) ;;
    *) usage ;;
  esac
  shift 2
done
[[ $# -eq 0 ]] || usage
[[ $streams == 0 || $streams == 1 ]] || usage
[[ $mode == latency || $mode == throughput ]] || usage
# int8: the layers NNCF left in floating point run in f32, as the module sets it.
case $precision in fp32|int8) ov_precision=f32 ;; bf16) ov_precision=bf16 ;;
  fp16) ov_precision=f16 ;; *) usage ;; esac

ngb=$build/ngraphbench
benchmark_app=$root/.venv/bin/benchmark_app
[[ -x $ngb ]] || { echo "no $ngb: run ./setup.sh first" >&2; exit 2; }
[[ -x $benchmark_app ]] || { echo "no $benchmark_app: run ./setup.sh (openvino wheel)" >&2; exit 2; }

work=$(mktemp -d /tmp/ov_vs_bapp.XXXXXX)
trap 'rm -rf "$work"' EXIT

loop=""
if [[ $mode == latency ]]; then
  ovp=$("$root/.venv/bin/python" -c 'import os, openvino; print(os.path.dirname(openvino.__file__))')
  loop=$work/openvino_loop
  g++ -O2 -std=c++17 "$root/bench/openvino_loop.cc" -isystem "$ovp/include" \
    "$(ls "$ovp"/libs/libopenvino.so.* | head -1)" -Wl,-rpath,"$ovp/libs" -o "$loop" >&2 ||
    { echo "cannot build bench/openvino_loop.cc against $ovp" >&2; exit 2; }
fi

# The exact model of the run (int8: the quantized model, found below).
model=$work/model.onnx
[[ $precision == int8 ]] ||
  "$ngb" export "$experiment" "$run_id" --configs "$root/configs" -o "$model" >&2

# ngraphbench reads configs/openvino.yaml; a copy of configs/ carries the settings above.
cp -r "$root/configs" "$work/configs"
if [[ $mode == latency ]]; then
  cat > "$work/configs/openvino.yaml" <<EOF
device: cpu
precision: $precision
threads: $threads
options:
  performance_hint: LATENCY
  num_streams: $streams
EOF
else  # the offline scenario sets the THROUGHPUT hint and the streams itself
  printf 'device: cpu\nprecision: %s\nthreads: %s\n' "$precision" "$threads" \
    > "$work/configs/openvino.yaml"
fi

# benchmark_app's UI refuses -nthreads/-nstreams together with -hint, so the same properties
# go in through -load_config; -api sync = one request, like Executable::Run().
streams_json="" hint=LATENCY api=sync ngb_run_id=$run_id scenario=()
[[ $streams -gt 0 ]] && streams_json=", \"NUM_STREAMS\": \"$streams\""
if [[ $mode == throughput ]]; then
  # As many requests in flight as OpenVINO's THROUGHPUT hint finds best, on both sides.
  streams_json="" hint=THROUGHPUT api=async ngb_run_id=${run_id}_offline_sauto
  scenario=(--scenario offline --set streams=auto)
fi
# Run ids carry the precision when it is not fp32 (docs/results.md).
[[ $precision != fp32 ]] && ngb_run_id+=_$precision
cat > "$work/bapp.json" <<EOF
{"CPU": {"PERFORMANCE_HINT": "$hint", "INFERENCE_NUM_THREADS": "$threads",
         "INFERENCE_PRECISION_HINT": "$ov_precision"$streams_json}}
EOF

run_ngraphbench() {
  "$ngb" worker "$experiment" openvino "$ngb_run_id" "${scenario[@]}" --configs "$work/configs" \
    --results "$work/results$1" --device bench --warmup "$warmup" --repeats "$repeats" \
    --sample-ms 0 >&2
}
if [[ $precision == int8 ]]; then
  # Untimed: ngraphbench quantizes the model once, into prep's cache (one single-stream run,
  # whatever the mode: the quantized model depends on the model and its input shapes only).
  echo "quantizing (ngraphbench, untimed)" >&2
  "$ngb" worker "$experiment" openvino "${run_id}_int8" --configs "$work/configs" \
    --results "$work/prep" --device prep --warmup 0 --repeats 10 --sample-ms 0 \
    > "$work/prep.log" 2>&1 || prep_rc=$?
  key=$(python3 - "$work/prep/prep/openvino/${run_id}_int8.csv" "$root/bench" <<'EOF' || true
import sys
sys.path.insert(0, sys.argv[2])
import ratios
settings = ratios.read_row(sys.argv[1])["compiler_settings"]
print(dict(kv.split("=", 1) for kv in settings.split(";") if "=" in kv).get("quantize_key", ""))
EOF
)
  model=$work/prep/.cache/openvino-int8/$key/quantized.xml
  if [[ -z $key || ! -f $model ]]; then
    cat "$work/prep.log" >&2
    echo "ngraphbench did not quantize $run_id (no quantize_key in its row, or no $model)" >&2
    exit "${prep_rc:-1}"  # the worker's own exit code: 2 for bad input (docs/cli.md)
  fi
  for ((round = 1; round <= rounds; round++)); do  # every round's rows find it there
    mkdir -p "$work/results$round/.cache"
    ln -s "$work/prep/.cache/openvino-int8" "$work/results$round/.cache/openvino-int8"
  done
fi
run_benchmark_app() {
  "$benchmark_app" -m "$model" -d CPU -load_config "$work/bapp.json" -api "$api" \
    -niter $((warmup + repeats)) -report_type no_counters -report_folder "$work" \
    > "$work/bapp$1.log" 2>&1 || { cat "$work/bapp$1.log" >&2; exit 1; }
}
run_loop() {
  [[ -z $loop ]] && return 0
  "$loop" "$model" "$threads" "$ov_precision" "$streams" "$warmup" "$repeats" 0.5 \
    > "$work/loop$1.txt" 2>&1 || { cat "$work/loop$1.txt" >&2; exit 1; }
}
# The order alternates (ABC, then CBA...), so that no tool always runs in another's wake.
for ((round = 1; round <= rounds; round++)); do
  echo "round $round/$rounds" >&2
  if ((round % 2)); then
    run_ngraphbench $round; run_benchmark_app $round; run_loop $round
  else
    run_loop $round; run_benchmark_app $round; run_ngraphbench $round
  fi
done

python3 - "$work" "$ngb_run_id" "$rounds" "$root/bench" "$mode" "$model" "${key:-}" <<'EOF'
import re, sys
work, run_id, rounds, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[5]
model, key = sys.argv[6], sys.argv[7]
sys.path.insert(0, sys.argv[4])
import ratios
c = ratios.Comparison("ngraphbench", "benchmark_app")
cpp = ratios.Comparison("ngraphbench", "C++ API loop")
ngb_min, bapp_min, ngb_cpu = [], [], []
for r in range(1, rounds + 1):
    row = ratios.read_row(f"{work}/results{r}/bench/openvino/{run_id}.csv")
    if row["status"] != "ok":
        sys.exit(f"ngraphbench run failed: {row['status']}: {row['error']}")
    settings = dict(kv.split("=", 1) for kv in row["compiler_settings"].split(";") if "=" in kv)
    if key and (settings.get("quantize_key"), settings.get("quantize_cache_hit")) != (key, "true"):
        sys.exit(f"round {r}: ngraphbench did not run the cached model {key}: "
                 + row["compiler_settings"])
    ngb_min.append(float(row["latency_min_ms"]))
    if ratios.cell(row, "cpu_ms_per_inference") is not None:
        ngb_cpu.append(ratios.cell(row, "cpu_ms_per_inference"))
    log = open(f"{work}/bapp{r}.log").read()
    bapp = {}
    for stat in ("Median", "Min"):
        m = re.search(stat + r":\s+([\d.]+)\s+(ms|us)", log)
        if not m:
            sys.exit(f"no {stat} latency in benchmark_app's output:\n" + log[-2000:])
        bapp[stat] = float(m.group(1)) / (1000.0 if m.group(2) == "us" else 1.0)
    bapp_min.append(bapp["Min"])
    if mode == "throughput":
        m = re.search(r"Throughput:\s+([\d.]+)\s+FPS", log)
        if not m:
            sys.exit("no throughput in benchmark_app's output:\n" + log[-2000:])
        c.add(row["run_id"], "samples/s", r, float(row["samples_per_s"]), float(m.group(1)))
    else:
        c.add(row["run_id"], "p50 ms", r, float(row["latency_p50_ms"]), bapp["Median"])
        loop = dict(zip(*[iter(open(f"{work}/loop{r}.txt").read().split())] * 2))
        cpp.add(row["run_id"], "p50 ms", r, float(row["latency_p50_ms"]), float(loop["p50_ms"]))
props = dict(re.findall(r"\[ INFO \]\s+(NUM_STREAMS|INFERENCE_NUM_THREADS|PERFORMANCE_HINT|"
                        r"OPTIMAL_NUMBER_OF_INFER_REQUESTS|"
                        r"INFERENCE_PRECISION_HINT|ENABLE_CPU_PINNING): (.*)", log))
print(f"model                  {row['model']} batch {row['batch_size']} "
      f"input {row['input_shape']} ({row['run_id']})")
print(f"openvino               {row['compiler_version']}")
print(f"ngraphbench settings   {row['compiler_settings']}")
print("benchmark_app settings " + ", ".join(f"{k}={v}" for k, v in props.items()))
print(f"benchmark_app model    {model}"
      + (f"\n                       (ngraphbench's quantize_key {key}: the same file every round)"
         if key else ""))
c.note("cpu ms/inf: benchmark_app reports no CPU time, so no ratio; ngraphbench's "
       + (f"cpu_ms_per_inference, median over rounds: {ratios.percentile(ngb_cpu, 50):.4g} ms"
          if ngb_cpu else "cpu_ms_per_inference: not in the rows"))
c.print(per_round=True)
if mode == "latency":
    cpp.print(per_round=True)
# The minimum is the run least disturbed by other processes: on a busy machine it shows the
# module's own overhead better than the median does.
print(f"min latency ms over all rounds  ngraphbench {min(ngb_min):.4f}   benchmark_app "
      f"{min(bapp_min):.4f}   ratio {min(ngb_min) / min(bapp_min):.3f}")
EOF
