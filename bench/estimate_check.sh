#!/usr/bin/env bash
# Whether `expand --estimate` holds: for a sample of runs (each compiler on each experiment, a
# tuned tvm run included), the estimate made before anything was measured (into an empty results
# tree, so from the priors) against the wall time of measuring that run alone (`run --runs ID`).
# Prints per run the estimate, the measured wall and their ratio, then per compiler and in all
# the summed ratio (goal: within +-25 %).
#   bench/estimate_check.sh [--sample FILE] [--compilers LIST] [--out DIR] [--ngraphbench PATH]
#                           [-- run options]
# FILE: lines "experiment run_id" (default: one run of each experiment, below); every line is
# measured for every compiler of LIST (default the seven CPU compilers). --out keeps the results
# tree and estimate.tsv (default: a temporary folder). Run it on a quiet machine: its walls are
# what the estimate is judged by.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ngb=$root/build/ngraphbench sample="" out=""
compilers=identity,torchscript,onnxruntime,openvino,tvm,inductor,executorch
while [[ $# -gt 0 && $1 != -- ]]; do
  [[ $# -ge 2 ]] || { sed -n '2,12p' "$0" >&2; exit 2; }
  case $1 in
    --sample) sample=$2 ;;
    --compilers) compilers=$2 ;;
    --out) out=$2 ;;
    --ngraphbench) ngb=$(realpath "$2") ;;
    *) echo "estimate_check.sh: unknown option '$1'" >&2; sed -n '2,12p' "$0" >&2; exit 2 ;;
  esac
  shift 2
done
[[ ${1:-} == -- ]] && shift
run_options=("$@")
[[ -x $ngb ]] || { echo "estimate_check.sh: no ngraphbench at $ngb (build first)" >&2; exit 2; }
if [[ -n $out ]]; then mkdir -p "$out"; out=$(realpath "$out"); else out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi
if [[ -n $sample ]]; then
  mapfile -t lines < <(grep -v '^[[:space:]]*\(#\|$\)' "$sample")
else
  # Mid-sized runs; conv_blocks and mha_blocks at depth 1, the first of their tuning workload.
  lines=("conv2d conv2d_w64_b4" "fully_connected fully_connected_w1024_b8"
         "self_attention self_attention_w256_b4" "conv_blocks conv_blocks_w32_d1_b4"
         "mha_blocks mha_blocks_w128_d1_b4" "architectures resnet18_b1")
fi
results=$out/results
IFS=, read -r -a compiler_list <<<"$compilers"
tsv=$out/estimate.tsv
[[ -s $tsv ]] || printf 'compiler\texperiment\trun_id\testimate_s\tmeasured_s\texit\n' >"$tsv"
for c in "${compiler_list[@]}"; do
  for line in "${lines[@]}"; do
    read -r exp id <<<"$line"
    if grep -q "^$c	$exp	$id	" "$tsv"; then continue; fi  # measured before: resume
    est=$("$ngb" expand "$exp" --estimate --compiler "$c" --results "$results" \
            --configs "$root/configs" "${run_options[@]}" | awk -v id="$id" '$1 == id {print $2}')
    [[ -n $est ]] || { echo "estimate_check.sh: $id is not in $exp" >&2; exit 2; }
    start=$(date +%s.%N)
    set +e
    "$ngb" run "$exp" "$c" --runs "$id" --results "$results" --configs "$root/configs" \
      "${run_options[@]}" >"$out/$c.$id.log" 2>&1
    code=$?
    set -e
    wall=$(echo "$(date +%s.%N) - $start" | bc)
    printf '%s\t%s\t%s\t%s\t%.1f\t%s\n' "$c" "$exp" "$id" "$est" "$wall" "$code" | tee -a "$tsv" >&2
  done
done
python3 - "$tsv" <<'PY'
import csv, collections, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
print(f"{'compiler':12} {'run_id':34} {'estimate_s':>10} {'measured_s':>10} {'ratio':>6}  exit")
by = collections.defaultdict(lambda: [0.0, 0.0])
for r in rows:
    e, m = float(r["estimate_s"]), float(r["measured_s"])
    by[r["compiler"]][0] += e; by[r["compiler"]][1] += m
    by["all"][0] += e; by["all"][1] += m
    print(f"{r['compiler']:12} {r['run_id']:34} {e:10.1f} {m:10.1f} {e / m:6.2f}  {r['exit']}")
print("\nestimate / measured, summed (goal 0.75-1.25):")
for c, (e, m) in by.items():
    print(f"  {c:12} {e:9.0f} s / {m:9.0f} s = {e / m:.2f}{'' if 0.75 <= e / m <= 1.25 else '  (outside)'}")
PY
