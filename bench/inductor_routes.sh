#!/usr/bin/env bash
# inductor's routes from an ONNX model to torch.export (its option `route`, docs/compilers.md)
# side by side, on a folder of ONNX files: each file through identity (the coverage the
# torchscript route is to reach) and through inductor once per route, --quick at batch 1. Prints,
# per file, each cell's status, the output check's largest relative error (against onnxruntime)
# and median latency, then the ok cells per route. A correctness and coverage run: the latencies
# are one --quick worker process each, not a comparison to quote.
#
#   bench/inductor_routes.sh <dir of .onnx files> [routes=onnx2torch,torchscript]
#
# A folder of timm models, e.g. ones the corpus does not hold:
#   .venv/bin/python python/export_timm.py export swinv2_cr_tiny_ns_224 coat_lite_tiny \
#       crossvit_tiny_240 inception_v3 -o /tmp/timm_models --batch-size 1
# Environment: NGB_BIN (default build/ngraphbench), ROUTES_RESULTS (default a new folder in /tmp;
# kept: run again on the same one, it skips the rows already there), ROUTES_TIMEOUT (per run, s;
# 900).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -ge 1 && -d $1 ]] || { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 1; }
models=$(cd "$1" && pwd)
IFS=, read -r -a routes <<<"${2:-onnx2torch,torchscript}"
bin=${NGB_BIN:-$root/build/ngraphbench}
results=${ROUTES_RESULTS:-$(mktemp -d /tmp/ngb_inductor_routes.XXXXXX)}
mkdir -p "$results/configs"
cp "$root"/configs/*.yaml "$results/configs/"
# An .onnx file named on the command line takes experiments.yaml's defaults: batch 1, short.
# One worker process per run, as in bench/corpus.sh: this checks what each route computes.
sed -i -e "s/^\(  quick_batch_sizes:\)[^#]*/\1 [1]   /" -e "s/^\(  quick_max_time_s:\)[^#]*/\1 2   /" \
  -e "s/^\(  timeout_s:\)[^#]*/\1 ${ROUTES_TIMEOUT:-900}   /" \
  -e "s/^\(  processes:\)[^#]*/\1 1   /" "$results/configs/experiments.yaml"

for file in "$models"/*.onnx; do
  stem=$(basename "$file" .onnx)
  cells=("identity identity")
  for r in "${routes[@]}"; do cells+=("inductor $r"); done
  for cell in "${cells[@]}"; do
    read -r compiler label <<<"$cell"
    [[ -f $results/$label/$compiler/${stem}_b1.csv ]] && continue
    args=()
    [[ $compiler == inductor ]] && args=(--set "options.route=$label")
    echo "== $stem: $compiler $label" >&2
    "$bin" run "$file" "$compiler" --quick "${args[@]}" --device "$label" \
      --results "$results" --configs "$results/configs" >&2
  done
done

python3 - "$results" "$models" "$root/bench" "${routes[@]}" <<'EOF'
import glob, os, sys
results, models, bench, routes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
sys.path.insert(0, bench)
import ratios
labels = [("identity", "identity")] + [(r, "inductor") for r in routes]
print(f"results in {results}")
print(f"{'model':34}" + "".join(f" {label:>30}" for label, _ in labels))
ok = {label: 0 for label, _ in labels}
stems = sorted(os.path.basename(p)[:-5] for p in glob.glob(f"{models}/*.onnx"))
for stem in stems:
    line = f"{stem:34}"
    for label, compiler in labels:
        path = f"{results}/{label}/{compiler}/{stem}_b1.csv"
        if not os.path.exists(path):
            line += f" {'no row (refused)':>30}"
            continue
        row = ratios.read_row(path)
        status = row["status"]
        if status == "ok":
            ok[label] += 1
            err = row.get("check_max_rel_err") or "-"
            p50 = ratios.cell(row, "latency_p50_ms")
            settings = dict(kv.split("=", 1) for kv in row["compiler_settings"].split(";") if "=" in kv)
            module = settings.get("module", "")
            cell = f"ok {float(p50):.1f}ms err {float(err):.0e}" if err != "-" else f"ok {p50}ms"
            if compiler == "inductor" and module and module != label:
                cell += f" ({module})"
        else:
            cell = f"{status}: {row['error'][:60]}"
        line += f" {cell[:30]:>30}"
    print(line)
    for label, compiler in labels[1:]:
        path = f"{results}/{label}/{compiler}/{stem}_b1.csv"
        if os.path.exists(path):
            row = ratios.read_row(path)
            if row["status"] != "ok":
                print(f"    {label}: {row['error'][:300]}")
print("ok cells: " + ", ".join(f"{label} {ok[label]}/{len(stems)}" for label, _ in labels))
EOF
