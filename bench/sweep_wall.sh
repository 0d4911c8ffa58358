#!/usr/bin/env bash
# The wall time of one grid measured by two checkouts of ngraphbench (e.g. before and after a
# change of defaults), side by side in alternating rounds (A then B, then B then A), each side
# with its own build and its own configs/: per round the ratio B / A of the walls, and the share
# of valid rows of each side, printed as medians with their spread (bench/ratios.py).
#   bench/sweep_wall.sh --a DIR_A --b DIR_B [--rounds 2] [--experiments conv2d,fully_connected]
#                       [--compilers onnxruntime,openvino,identity] [--out DIR] [-- run options]
# DIR is a checkout with build/ngraphbench built; the run options (default --quick) go to every
# `run` of both sides. --out keeps every results tree (default: a temporary folder).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
a="" b="" rounds=2 experiments=conv2d,fully_connected compilers=onnxruntime,openvino,identity out=""
while [[ $# -gt 0 && $1 != -- ]]; do
  [[ $# -ge 2 ]] || { sed -n '2,9p' "$0" >&2; exit 2; }
  case $1 in
    --a) a=$(realpath "$2") ;;
    --b) b=$(realpath "$2") ;;
    --rounds) rounds=$2 ;;
    --experiments) experiments=$2 ;;
    --compilers) compilers=$2 ;;
    --out) out=$2 ;;
    *) echo "sweep_wall.sh: unknown option '$1'" >&2; sed -n '2,9p' "$0" >&2; exit 2 ;;
  esac
  shift 2
done
[[ ${1:-} == -- ]] && shift
run_options=("$@")
[[ ${#run_options[@]} -gt 0 ]] || run_options=(--quick)
for d in "$a" "$b"; do
  [[ -n $d && -x $d/build/ngraphbench ]] || { echo "sweep_wall.sh: --a and --b must be checkouts with build/ngraphbench" >&2; exit 2; }
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "sweep_wall.sh: --rounds must be a number >= 1" >&2; exit 2; }
if [[ -n $out ]]; then mkdir -p "$out"; out=$(realpath "$out"); else out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi
IFS=, read -r -a experiment_list <<<"$experiments"
: >"$out/wall.tsv"
for r in $(seq "$rounds"); do
  order="A B"; [[ $((r % 2)) -eq 0 ]] && order="B A"
  for side in $order; do
    dir=$a; [[ $side == B ]] && dir=$b
    start=$(date +%s.%N)
    for e in "${experiment_list[@]}"; do
      (cd "$dir" && build/ngraphbench run "$e" "$compilers" --results "$out/$side/r$r" \
         --device bench "${run_options[@]}" >"$out/$side.r$r.$e.log" 2>&1) || {
        rc=$?; [[ $rc -le 1 ]] || { echo "sweep_wall.sh: side $side run $e exited $rc (see $out/$side.r$r.$e.log)" >&2; exit 2; }
      }
    done
    end=$(date +%s.%N)
    printf '%s\t%s\t%s\n' "$r" "$side" "$(awk "BEGIN { print $end - $start }")" >>"$out/wall.tsv"
    echo "round $r side $side: $(tail -1 "$out/wall.tsv" | cut -f3) s" >&2
  done
done
python3 - "$out" "$rounds" "$root/bench" <<'PY'
import csv, glob, os, sys
out, rounds = sys.argv[1], int(sys.argv[2])
sys.path.insert(0, sys.argv[3])
import ratios
wall = {}
for line in open(os.path.join(out, "wall.tsv")):
    r, side, s = line.split()
    wall[(int(r), side)] = float(s)
def valid(side, r):
    rows = [f for f in glob.glob(f"{out}/{side}/r{r}/bench/*/*.csv")
            if not f.endswith(".latencies.csv") and ".profile." not in f]
    ok = v = 0
    for f in rows:
        row = next(csv.DictReader(open(f)))
        ok += row["status"] == "ok"
        v += row["status"] == "ok" and row["valid"] == "true"
    return v, len(rows)
c = ratios.Comparison("B", "A")
for r in range(1, rounds + 1):
    c.add("grid", "wall s", round_=r, a=wall[(r, "B")], b=wall[(r, "A")])
    for side in "AB":
        v, n = valid(side, r)
        print(f"round {r} side {side}: wall {wall[(r, side)]:.1f} s, valid rows {v} of {n}")
c.print()
PY
