#!/usr/bin/env bash
# Drill: two `ngraphbench run` started at once on one fresh results tree, as two shells (or two
# machines sharing a tree) would. Per trial it counts runs measured by both (a run id with a
# status line `[i/n] <run_id> <status>` in both outputs), runs without exactly one row, files left
# under .tmp/ and .claims/ and `*.tmp.*` temporaries (and breakers or locks), and processes of
# the drill still running afterwards; it prints one line per trial and a total. Builds nothing.
#   bench/concurrent_sweeps.sh [trials=3]
# Environment: NGB_BIN (default build/ngraphbench), NGB_EXPERIMENT (default fully_connected, 35
# runs; its --quick grid has only 10), NGB_RUN_ARGS (more `run` arguments, e.g. --quick).
# Exits 1 when any trial found a problem.
set -uo pipefail
cd "$(dirname "$0")/.."
trials=${1:-3}
bin=${NGB_BIN:-build/ngraphbench}
experiment=${NGB_EXPERIMENT:-fully_connected}
read -r -a extra <<<"${NGB_RUN_ARGS:-}"
[ -x "$bin" ] || { echo "no executable $bin (build it, or set NGB_BIN)" >&2; exit 2; }
bin=$(realpath "$bin")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

quick=()
for a in "${extra[@]}"; do [ "$a" = --quick ] && quick=(--quick); done
"$bin" expand "$experiment" "${quick[@]}" >"$tmp/expected" || exit 2
runs=$(wc -l <"$tmp/expected")

# Run ids with a status line in a scheduler's output: the runs it measured itself.
measured() {
  sed -nE 's/^\[ *[0-9]+\/[0-9]+\] +([^ ]+) +(ok|wrong|error|crashed|timeout) .*/\1/p' "$1" | sort
}
count() { grep -c "$@" || true; }

problems=0
sum_twice=0 sum_rows=0 sum_left=0 sum_procs=0 sum_a=0 sum_b=0
for t in $(seq "$trials"); do
  dir=$tmp/t$t; tree=$dir/results; mkdir -p "$dir"
  start=$(date +%s.%N)
  "$bin" run "$experiment" null --device drill --results "$tree" "${extra[@]}" >"$dir/a.log" 2>&1 &
  a=$!
  "$bin" run "$experiment" null --device drill --results "$tree" "${extra[@]}" >"$dir/b.log" 2>&1 &
  b=$!
  wait $a; code_a=$?
  wait $b; code_b=$?
  seconds=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')
  sleep 0.2  # workers die with their scheduler (PDEATHSIG): give them the moment it takes

  measured "$dir/a.log" >"$dir/a.ids"; measured "$dir/b.log" >"$dir/b.ids"
  by_a=$(wc -l <"$dir/a.ids"); by_b=$(wc -l <"$dir/b.ids")
  twice=$(sort "$dir/a.ids" "$dir/b.ids" | uniq -d | wc -l)
  left_a=$(count 'left to it$' "$dir/a.log"); left_b=$(count 'left to it$' "$dir/b.log")
  kept_a=$(count 'measured by another scheduler' "$dir/a.log")
  kept_b=$(count 'measured by another scheduler' "$dir/b.log")
  # Rows: every expected run has its <run_id>.csv, and there is no other row file.
  run_dir=$tree/drill/null
  missing=0
  while read -r id; do [ -f "$run_dir/$id.csv" ] || missing=$((missing + 1)); done <"$tmp/expected"
  row_files=$(find "$run_dir" -maxdepth 1 -name '*.csv' ! -name '*.latencies.csv' 2>/dev/null |
              wc -l)
  bad_rows=$((missing + (row_files > runs ? row_files - runs : 0)))
  left_tmp=$(find "$tree" -path '*/.tmp/*' -type f 2>/dev/null | wc -l)
  left_claims=$(find "$tree" -path '*/.claims/*' -type f 2>/dev/null | wc -l)
  left_temps=$(find "$tree" -type f \( -name '*.tmp.*' -o -name '*.break' -o -name '*.lock' \) \
               2>/dev/null | wc -l)
  left=$((left_tmp + left_claims + left_temps))
  # Processes of this drill (schedulers and workers name the tree on their command line).
  procs=$(pgrep -f -- "$tree" | wc -l)

  verdict=ok
  if [ "$twice" -ne 0 ] || [ "$bad_rows" -ne 0 ] || [ "$left" -ne 0 ] || [ "$procs" -ne 0 ] ||
     [ $((by_a + by_b)) -ne "$runs" ] || [ "$code_a" -ne 0 ] || [ "$code_b" -ne 0 ]; then
    verdict=PROBLEM; problems=$((problems + 1))
  fi
  format='trial %d: %d runs, measured A %d + B %d = %d, measured twice %d, '
  format+='runs without exactly one row %d; left to the other A %d B %d, '
  format+='found measured A %d B %d; leftovers .tmp %d .claims %d temporaries %d, '
  format+='processes %d; exit A %d B %d; %.1f s  %s\n'
  printf "$format" \
    "$t" "$runs" "$by_a" "$by_b" $((by_a + by_b)) "$twice" "$bad_rows" "$left_a" "$left_b" \
    "$kept_a" "$kept_b" "$left_tmp" "$left_claims" "$left_temps" "$procs" "$code_a" "$code_b" \
    "$seconds" "$verdict"
  sum_a=$((sum_a + by_a)); sum_b=$((sum_b + by_b)); sum_twice=$((sum_twice + twice))
  sum_rows=$((sum_rows + bad_rows)); sum_left=$((sum_left + left)); sum_procs=$((sum_procs + procs))
done
format='total: %d trials, %d runs each, measured A %d + B %d, measured twice %d, '
format+='runs without exactly one row %d, leftover files %d, leftover processes %d, '
format+='trials with a problem %d\n'
printf "$format" \
  "$trials" "$runs" "$sum_a" "$sum_b" "$sum_twice" "$sum_rows" "$sum_left" "$sum_procs" "$problems"
[ "$problems" -eq 0 ]
