#!/usr/bin/env bash
# How many warmup runs a fresh worker process needs before its latency settles: every run of a
# sample measured with no warmup (--warmup 0) in 4 processes of 40 timed runs each, then, per
# compiler, each timed run's latency over its process's steady median (runs 20-39), and the
# bias of a process median of 30 runs taken after w warmup runs against the one after 10
# (runs 10-39), for w = 0 ... 6. The sample (default: conv_blocks, mha_blocks and architectures
# at batch 1 and 8, seven CPU compilers, untuned tvm) is what docs/measurement.md's Warmup
# quotes.
#   bench/warmup_transient.sh [--out DIR] [--compilers a,b] [--threads N]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="" threads=1
compilers=identity,onnxruntime,openvino,torchscript,tvm,inductor,executorch
while [[ $# -gt 0 ]]; do
  [[ $# -ge 2 ]] || { sed -n '2,9p' "$0" >&2; exit 2; }
  case $1 in
    --out) out=$2 ;;
    --compilers) compilers=$2 ;;
    --threads) threads=$2 ;;
    *) echo "warmup_transient.sh: unknown option '$1'" >&2; sed -n '2,9p' "$0" >&2; exit 2 ;;
  esac
  shift 2
done
[[ -x $root/build/ngraphbench ]] || (cd "$root" && ./setup.sh)
if [[ -n $out ]]; then
  mkdir -p "$out"; out=$(realpath "$out")
else
  out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
fi
untuned=()  # tvm as --quick runs it: a sample of a minute, not hours of tuning
[[ ,$compilers, == *,tvm,* ]] && untuned=(--set tvm.options.tuning_trials=0)
sample() {
  (cd "$root" && build/ngraphbench run "$1" "$compilers" --runs "$2" --warmup 0 --repeats 160 \
     --processes 4 --stop fixed --set max_time_s=120 --set min_time_s=0.2 \
     --set threads="$threads" "${untuned[@]}" --results "$out" --device warmup) || [[ $? -le 1 ]]
}
sample conv_blocks conv_blocks_w16_d1_b1,conv_blocks_w32_d4_b8,conv_blocks_w64_d2_b1,\
conv_blocks_w128_d8_b1,conv_blocks_w256_d1_b8
sample mha_blocks mha_blocks_w64_d1_b1,mha_blocks_w256_d4_b1,mha_blocks_w512_d2_b8
sample architectures resnet18_b1,efficientnet_b0_b1,deit_tiny_patch16_224_b1
python3 - "$out/warmup" <<'PY'
import csv, glob, os, statistics as st, sys
by_compiler = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*", "*.latencies.csv"))):
    compiler = os.path.basename(os.path.dirname(f))
    processes = {}
    for r in csv.DictReader(open(f)):
        processes.setdefault(r["process"], []).append(int(r["latency_ns"]))
    for lat in processes.values():
        if len(lat) < 40:
            continue
        steady, after10 = st.median(lat[20:40]), st.median(lat[10:40])
        by_compiler.setdefault(compiler, []).append(
            ([x / steady for x in lat[:8]],
             {w: st.median(lat[w:w + 30]) / after10 - 1 for w in range(7)}))
every = [p for ps in by_compiler.values() for p in ps]
print("timed run i's latency / its process's median of runs 20-39 (median over processes)")
print(f"{'compiler':12s} {'processes':>9s} " + " ".join(f"{'i' + str(i):>6s}" for i in range(8)))
for c, ps in sorted(by_compiler.items()):
    cells = [f"{st.median(p[0][i] for p in ps):6.3f}" for i in range(8)]
    print(f"{c:12s} {len(ps):9d} " + " ".join(cells))
print("\na process's median of 30 runs after w warmup runs against after 10: mean bias, % "
      "(share of processes beyond +-2 %)")
for c, ps in sorted(by_compiler.items()) + [("all", every)]:
    cells = []
    for w in range(7):
        b = [p[1][w] for p in ps]
        beyond = 100 * sum(abs(x) > 0.02 for x in b) / len(b)
        cells.append(f"w{w} {100 * st.mean(b):+5.2f} ({beyond:3.0f}%)")
    print(f"{c:12s} " + "  ".join(cells))
PY
