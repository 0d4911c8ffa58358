#!/usr/bin/env bash
# CTest's make_traces: scripts/make_traces.sh with the `null` compiler on a configs folder of two
# small experiments (short: repeats 3, long: 12, shared by 2 processes: 4 and 12 timed runs in
# all), so that --max-trace-runs 8 keeps short's trace and leaves long's out: the
# zip holds every row, the traces within the cap only (no scratch files, no run claims), and the
# script says how many it left out; the work folder keeps them all. A bad --max-trace-runs is
# refused (exit 2).
#
#   make_traces_test.sh <source dir> <ngraphbench binary>
#
# make_traces.sh runs <source dir>/build/ngraphbench: exits 77 (CTest: skipped) when that is
# not the binary given, i.e. the build is elsewhere.
. "$(dirname "$0")/script_test.sh"
script_test make_traces make_traces.sh "$1" "$2"
mkdir -p "$tmp/configs"
cat >"$tmp/configs/experiments.yaml" <<'YAML'
defaults:
  batch_sizes: [1]
  quick_batch_sizes: [1]
  warmup: 1
  repeats: 3
  timeout_s: 20
  min_time_s: 0
  processes: 2
  stop: fixed
experiments:
  short:
    family: linear
    widths: [8]
  long:
    family: linear
    widths: [8]
    repeats: 12
YAML
printf 'options:\n  sleep_us: 0\n' >"$tmp/configs/null.yaml"
traces() { "$ROOT/scripts/make_traces.sh" --compilers null --configs "$tmp/configs" "$@" >"$tmp/out" 2>&1; rc=$?; }

traces --experiments short,long --out "$tmp/t.zip" --max-trace-runs eight
[ "$rc" -eq 2 ] || fail "--max-trace-runs eight: exit $rc, not 2: $(cat "$tmp/out")"
grep -q "expected a whole number" "$tmp/out" || fail "--max-trace-runs eight not named: $(cat "$tmp/out")"
[ ! -e "$tmp/t.zip" ] || fail "a refusal wrote the zip"

traces --experiments short,long --out "$tmp/t.zip" --work "$tmp/w" --max-trace-runs 8
[ "$rc" -eq 0 ] || fail "exit $rc: $(cat "$tmp/out")"
grep -q "make_traces: 1 trace(s) of more than 8 timed runs left out of the zip" "$tmp/out" ||
  fail "the left-out traces not said: $(cat "$tmp/out")"
entries=$(unzip -Z1 "$tmp/t.zip" | grep '\.csv$' | sort | paste -sd' ')
[ "$entries" = "results/local/null/long_w8_b1.csv results/local/null/short_w8_b1.csv results/local/null/short_w8_b1.latencies.csv" ] ||
  fail "the zip holds: $entries"
[ -f "$tmp/w/results/local/null/long_w8_b1.latencies.csv" ] || fail "the work folder lost long's trace"
# The work folder's scratch files and run claims are not results.
[ -d "$tmp/w/results/.tmp" ] && [ -d "$tmp/w/results/local/null/.claims" ] ||
  fail "the work folder has no results/.tmp or .claims to leave out"
scratch=$(unzip -Z1 "$tmp/t.zip" | grep -E '(^results/\.tmp/|/\.claims/)' | paste -sd' ')
[ -z "$scratch" ] || fail "the zip holds scratch files or run claims: $scratch"
"$BIN" analyze "$tmp/t.zip" -o "$tmp/analysis" >"$tmp/out" 2>&1 || fail "analyze of the zip: $(cat "$tmp/out")"
echo "make_traces: ok"
