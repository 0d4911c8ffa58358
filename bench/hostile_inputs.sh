#!/usr/bin/env bash
# bench/hostile_inputs.sh: every input in fuzz/regressions/ given to the ngraphbench command a
# user would run on it (`run` on a model or config, `analyze` on a zip, `compare` on a results
# tree holding a damaged row or trace), and a few command lines, printing its exit code, peak RSS and first line of output.
# Each is expected to exit 2 with a message naming what was wrong; a different exit code is
# flagged with "!!" and makes the script exit 1. NGB_BIN overrides build/ngraphbench.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${NGB_BIN:-build/ngraphbench}
BIN=$(realpath "$BIN")
ROOT=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0

measure() {  # measure <label> <command...>
  local label=$1; shift
  /usr/bin/time -f "%M %x" -o "$tmp/time" "$@" >"$tmp/out" 2>&1
  read -r rss code < <(tail -1 "$tmp/time")
  [ "$code" = 2 ] && flag="  " || { flag="!!"; bad=1; }
  local first
  first=$(grep -v -e '^$' -e '^Command exited' "$tmp/out" | head -1 | sed "s|$tmp/||g; s|$ROOT/||g" | cut -c1-150)
  printf '%s %-42s exit %-3s %6.1f MB  %s\n' "$flag" "$label" "$code" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$first"
}

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
    cp "$ok_row" "$tree/d/onnxruntime/$run_id.csv"
    cp "$f" "$tree/d/onnxruntime/$run_id.latencies.csv"
  else
    cp "$f" "$tree/d/onnxruntime/$run_id.csv"
  fi
  measure "row/$(basename "$f")" "$BIN" compare "$tree" "$tree"
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
exit $bad
