#!/usr/bin/env bash
# Drill: `ngraphbench run` interrupted mid-sweep by SIGINT (Ctrl-C) or SIGTERM, as a user or a
# batch system would. Per trial it starts a sweep on a fresh results tree, sends the signal after
# a few seconds, and checks the exit code (130 / 143), that a summary and the command that
# resumes were printed, and what is left behind: files under .tmp/ and .claims/, `*.tmp.*`
# temporaries, rows without their trace (or traces without their row), and processes of the
# drill still running. Then it runs the resume command and checks that every run has one row.
# Builds nothing.
#   bench/interrupt_drill.sh [trials=3]
# Environment: NGB_BIN (default build/ngraphbench), NGB_EXPERIMENT (default fully_connected),
# NGB_SIGNAL_AFTER_S (default 3). Exits 1 when any trial found a problem.
set -uo pipefail
cd "$(dirname "$0")/.."
trials=${1:-3}
bin=${NGB_BIN:-build/ngraphbench}
experiment=${NGB_EXPERIMENT:-fully_connected}
after=${NGB_SIGNAL_AFTER_S:-3}
[ -x "$bin" ] || { echo "no executable $bin (build it, or set NGB_BIN)" >&2; exit 2; }
bin=$(realpath "$bin")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
runs=$("$bin" expand "$experiment" | wc -l)
bad=0

for trial in $(seq 1 "$trials"); do
  for sig in INT TERM; do
    results=$tmp/results-$trial-$sig
    setsid "$bin" run "$experiment" null --device d --results "$results" >"$tmp/out" 2>&1 &
    pid=$!
    sleep "$after"
    kill -"$sig" "$pid"
    wait "$pid"
    code=$?
    want=$([ "$sig" = INT ] && echo 130 || echo 143)
    sleep 0.5
    dir=$results/d/null
    left_tmp=$(find "$results" -path '*/.tmp/*' 2>/dev/null | wc -l)
    left_claims=$(find "$results" -path '*/.claims/*' 2>/dev/null | wc -l)
    temporaries=$(find "$results" -name '*.tmp.*' 2>/dev/null | wc -l)
    rows=$(find "$dir" -maxdepth 1 -name '*.csv' ! -name '*.latencies.csv' 2>/dev/null | wc -l)
    traces=$(find "$dir" -maxdepth 1 -name '*.latencies.csv' 2>/dev/null | wc -l)
    procs=$(pgrep -f -- "--results $results" | wc -l)
    summary=$(grep -c '^interrupted' "$tmp/out")
    resume=$(grep -o 'resume with: .*' "$tmp/out" | head -1 | sed 's/^resume with: //')
    ok=1
    [ "$code" = "$want" ] && [ "$summary" -ge 1 ] && [ -n "$resume" ] && [ "$left_tmp" = 0 ] &&
      [ "$left_claims" = 0 ] && [ "$temporaries" = 0 ] && [ "$rows" = "$traces" ] &&
      [ "$procs" = 0 ] || ok=0
    # The printed command finishes the sweep: one row per run afterwards.
    if [ -n "$resume" ]; then
      eval "$resume" >"$tmp/resume" 2>&1 || ok=0
    fi
    after_rows=$(find "$dir" -maxdepth 1 -name '*.csv' ! -name '*.latencies.csv' 2>/dev/null | wc -l)
    [ "$after_rows" = "$runs" ] || ok=0
    [ "$ok" = 1 ] || bad=1
    printf 'trial %s SIG%s: exit %s (want %s), summary %s, rows before resume %s (traces %s), leftovers .tmp %s .claims %s temporaries %s, processes %s; after resume %s of %s rows  %s\n' \
      "$trial" "$sig" "$code" "$want" "$([ "$summary" -ge 1 ] && echo yes || echo no)" "$rows" \
      "$traces" "$left_tmp" "$left_claims" "$temporaries" "$procs" "$after_rows" "$runs" \
      "$([ "$ok" = 1 ] && echo ok || echo '!! problem')"
  done
done
sed -n '/^interrupted/,$p' "$tmp/out" | sed "s|$tmp/||g" | head -5
exit "$bad"
