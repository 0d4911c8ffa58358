#!/usr/bin/env bash
# bench/hostile_inputs.sh: every input in fuzz/regressions/ given to the ngraphbench command a
# user would run on it (`run` on a model or config, `analyze` on a zip, `compare` on a results
# tree holding a damaged row, `report` on one holding a damaged trace), and a few command lines,
# printing its exit code, peak RSS and first line of output. Each is expected to exit 2 with a
# message naming what was wrong (a damaged trace: exit 0, the report naming the trace it leaves
# out); a different exit code is flagged with "!!" and makes the script exit 1. NGB_BIN
# overrides build/ngraphbench.
# Then bench/hostile_inputs.py: the side files, configs, names, report inputs, implausible values
# and sweep.sh command lines of the third round, rebuilt and run, a table of their own (exit 0 or
# 2 as each case expects, nothing written on exit 2). --stall-drill adds a run whose worker is
# stopped for 40 s in its timed runs (2 more minutes); --third-round runs only the Python part.
set -uo pipefail
py_args=()
third_only=0
for arg in "$@"; do
  case "$arg" in
    --stall-drill) py_args+=(--stall-drill) ;;
    --third-round) third_only=1 ;;
    *) echo "hostile_inputs.sh: unknown argument '$arg' (expected --stall-drill, --third-round)" >&2
       exit 2 ;;
  esac
done
cd "$(dirname "$0")/.."
BIN=${NGB_BIN:-build/ngraphbench}
BIN=$(realpath "$BIN")
ROOT=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0

measure() {  # measure <label> <command...>: must exit $expect (default 2)
  local label=$1; shift
  /usr/bin/time -f "%M %x" -o "$tmp/time" "$@" >"$tmp/out" 2>&1
  read -r rss code < <(tail -1 "$tmp/time")
  [ "$code" = "${expect:-2}" ] && flag="  " || { flag="!!"; bad=1; }
  local first
  first=$(grep -v -e '^$' -e '^Command exited' -e '^analyze: ' "$tmp/out" | head -1 | sed "s|$tmp/||g; s|$ROOT/||g" | cut -c1-150)
  printf '%s %-42s exit %-3s %6.1f MB  %s\n' "$flag" "$label" "$code" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$first"
}

if [ "$third_only" = 0 ]; then
for f in fuzz/regressions/onnx/*; do
  measure "onnx/$(basename "$f")" "$BIN" run "$ROOT/$f" null --device d --results "$tmp/results"
done
for f in fuzz/regressions/config/*; do
  cfg=$tmp/configs; rm -rf "$cfg"; mkdir -p "$cfg"; cp configs/*.yaml "$cfg/"
  if grep -q -e '^experiments:' -e '^defaults:' -e '^\[' "$f"; then
    cp "$f" "$cfg/experiments.yaml"; experiment=a
  else
    cp "$f" "$cfg/null.yaml"; experiment=conv2d
  fi
  measure "config/$(basename "$f")" "$BIN" run "$experiment" null --device d --quick \
    --configs "$cfg" --results "$tmp/results"
done
ok_row=fuzz/corpus/row/ok_row.csv
run_id=$(sed -n 2p "$ok_row" | cut -d, -f2)
for f in fuzz/regressions/row/*; do
  tree=$tmp/tree; rm -rf "$tree"; mkdir -p "$tree/d/onnxruntime"
  if head -c 9 "$f" | grep -q '^iteration'; then  # a trace: beside a sound row
    # Only the report reads traces: it leaves a bad one out, naming it (exit 0).
    cp "$ok_row" "$tree/d/onnxruntime/$run_id.csv"
    cp "$f" "$tree/d/onnxruntime/$run_id.latencies.csv"
    expect=0 measure "row/$(basename "$f") (report)" "$BIN" report "$tree" -o "$tmp/report" \
      --html-only --include-invalid
    grep -q "^warning: trace '.*$run_id.latencies.csv'" "$tmp/out" ||
      { echo "!! the report did not name the bad trace"; bad=1; }
  else
    cp "$f" "$tree/d/onnxruntime/$run_id.csv"
    measure "row/$(basename "$f")" "$BIN" compare "$tree" "$tree"
  fi
done
for f in fuzz/regressions/zip/*; do
  measure "zip/$(basename "$f")" "$BIN" analyze "$ROOT/$f" -o "$tmp/analysis"
done
# Command-line cases: device labels that would leave or confuse the results tree, an output path
# that is a file, and a resume over a row copied under another run's name.
for device in ../escape '' . a/b; do
  measure "cli/--device '$device'" "$BIN" run conv2d null --quick --device "$device" \
    --results "$tmp/results"
done
touch "$tmp/taken"
measure "cli/analyze -o <existing file>" "$BIN" analyze "$ROOT/fuzz/corpus/zip/stored.zip" \
  -o "$tmp/taken"
copy=$tmp/copy
"$BIN" run conv2d null --quick --device d --results "$copy" >/dev/null 2>&1
rows=("$copy"/d/null/conv2d_w*_b1.csv)
cp "${rows[0]}" "${rows[1]}"
measure "cli/resume over a row copied to another run" "$BIN" run conv2d null --quick --device d \
  --results "$copy"
echo
fi
python3 bench/hostile_inputs.py --binary "$BIN" "${py_args[@]}" || bad=1
exit $bad
