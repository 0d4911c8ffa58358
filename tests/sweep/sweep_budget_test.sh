#!/usr/bin/env bash
# CTest's sweep_budget: ./sweep.sh --budget with the `null` compiler, on a configs folder of two
# small experiments (tiny: 2 widths x 3 batch sizes; wide: 1 width x 3) and a results tree of its
# own:
#   --dry-run --budget     the table of what fits per experiment x compiler, nothing written
#   --budget (small)       a real sweep in waves: after it both experiments have rows, and only
#                          the runs that fit were measured
#   --budget (large)       continues: the rest is measured, nothing twice
#   the same again         nothing left, nothing measured
# and the refusals, exit 2: a bad duration, an unknown option, an unknown compiler, --budget or
# --runs among the run options, and in a dry run what `run` refuses among its options.
#
#   sweep_budget_test.sh <source dir> <ngraphbench binary>
#
# sweep.sh runs <source dir>/build/ngraphbench: exits 77 (CTest: skipped) when that is not the
# binary given, i.e. the build is elsewhere.
. "$(dirname "$0")/script_test.sh"
script_test sweep_budget sweep.sh "$1" "$2"
mkdir -p "$tmp/configs"
cat >"$tmp/configs/experiments.yaml" <<'YAML'
defaults:
  batch_sizes: [1, 2, 4]
  quick_batch_sizes: [1]
  warmup: 2
  repeats: 5
  timeout_s: 20
  min_time_s: 0
  processes: 2
  stop: fixed
experiments:
  tiny:
    family: linear
    widths: [8, 16]
  wide:
    family: linear
    widths: [32]
YAML
printf 'options:\n  sleep_us: 0\n' >"$tmp/configs/null.yaml"
opts=(-- --configs "$tmp/configs" --results "$tmp/results")
sweep() { "$ROOT/sweep.sh" "$@" >"$tmp/out" 2>&1; rc=$?; }
# The rows of an experiment's runs under results/local/null (not traces, not hidden files).
rows() { (cd "$tmp/results/local/null" 2>/dev/null && ls -- *.csv 2>/dev/null | grep -v '\.latencies\.csv$' | sed 's/\.csv$//' | sort); }

# Refusals first: nothing may be written.
sweep --dry-run --budget 12 local null "${opts[@]}"
[ "$rc" -eq 2 ] || fail "--budget 12: exit $rc, not 2: $(cat "$tmp/out")"
grep -q "expected a duration" "$tmp/out" && grep -q "1h30m" "$tmp/out" || fail "--budget 12 does not name the form: $(cat "$tmp/out")"
sweep --dry-run --budget 12h --bogus local null "${opts[@]}"
[ "$rc" -eq 2 ] || fail "--bogus: exit $rc, not 2"
grep -q "unknown option '--bogus'" "$tmp/out" || fail "--bogus not named: $(cat "$tmp/out")"
sweep --dry-run --budget 12h local null --quick "${opts[@]}"
[ "$rc" -eq 2 ] || fail "a run option before --: exit $rc, not 2"
grep -q "unknown option '--quick' after <device>" "$tmp/out" || fail "--quick before -- not named: $(cat "$tmp/out")"
sweep --dry-run --budget 12h local null nosuch "${opts[@]}"
[ "$rc" -eq 2 ] || fail "unknown compiler: exit $rc, not 2"
grep -q "unknown compiler 'nosuch'; known compilers: .*null" "$tmp/out" || fail "unknown compiler not named: $(cat "$tmp/out")"
sweep --budget 12h local null "${opts[@]}" --runs tiny_w8_b1
[ "$rc" -eq 2 ] || fail "--runs among the run options: exit $rc, not 2"
grep -q -- "--runs is not a run option here" "$tmp/out" || fail "--runs among the run options not refused: $(cat "$tmp/out")"
# A dry run refuses what the real sweep's `run` refuses, with its message: an unknown run
# option, a bad value of one, an unknown key for --set.
sweep --dry-run local null "${opts[@]}" --bogus
[ "$rc" -eq 2 ] || fail "--dry-run with an unknown run option: exit $rc, not 2: $(cat "$tmp/out")"
grep -q "not expected: --bogus" "$tmp/out" || fail "--bogus after -- not named: $(cat "$tmp/out")"
sweep --dry-run --estimate local null "${opts[@]}" --jobs 0
[ "$rc" -eq 2 ] || fail "--dry-run --estimate --jobs 0: exit $rc, not 2: $(cat "$tmp/out")"
grep -q -- "--jobs is 0" "$tmp/out" || fail "--jobs 0 not named: $(cat "$tmp/out")"
sweep --dry-run --budget 12h local null "${opts[@]}" --set nosuch=1
[ "$rc" -eq 2 ] || fail "--dry-run --budget --set nosuch=1: exit $rc, not 2: $(cat "$tmp/out")"
grep -q "'nosuch' is not a known key" "$tmp/out" || fail "--set nosuch not named: $(cat "$tmp/out")"
[ ! -e "$tmp/results" ] || fail "a refusal wrote $(find "$tmp/results")"

# The prior estimate of one null run (all 9 runs have the same): a budget of 4.5 of them fits 4.
one=$("$BIN" expand tiny --estimate --compiler null --configs "$tmp/configs" --results "$tmp/results" | awk 'NR == 2 { print $2 }')
budget=$(awk "BEGIN { printf \"%ds\", $one * 4.5 }")

sweep --dry-run --budget "$budget" local null "${opts[@]}"
[ "$rc" -eq 0 ] || fail "--dry-run --budget $budget: exit $rc: $(cat "$tmp/out")"
grep -Eq '^tiny +null +2 .* 4 ' "$tmp/out" || fail "tiny's line of the table: $(cat "$tmp/out")"
grep -Eq '^wide +null +2 .* 1 ' "$tmp/out" || fail "wide's line of the table: $(cat "$tmp/out")"
grep -q "fits: 4 runs, .* h; does not fit: 5 runs" "$tmp/out" || fail "the summary: $(cat "$tmp/out")"
[ -z "$(rows)" ] || fail "the dry run measured $(rows)"

# Round-robin over the two groups: tiny_w8_b1, wide_w32_b1, tiny_w16_b1, wide_w32_b4 fit.
sweep --budget "$budget" local null "${opts[@]}"
[ "$rc" -eq 0 ] || fail "--budget $budget: exit $rc: $(cat "$tmp/out")"
[ "$(rows | paste -sd' ')" = "tiny_w16_b1 tiny_w8_b1 wide_w32_b1 wide_w32_b4" ] || fail "measured $(rows | paste -sd' '): $(cat "$tmp/out")"
# Wave 1 has both experiments, before any later wave.
waves=$(grep -o '^sweep.sh: wave [0-9] of 4: [a-z]*' "$tmp/out" | awk '{ print $3 "-" $6 }' | paste -sd' ')
[ "$waves" = "1-tiny 1-wide 3-tiny 3-wide" ] || fail "the waves: $waves: $(cat "$tmp/out")"
first=$(grep -c '^  = ' "$tmp/out")

sweep --budget 10h local null "${opts[@]}"
[ "$rc" -eq 0 ] || fail "--budget 10h: exit $rc: $(cat "$tmp/out")"
[ "$(rows | wc -l)" -eq 9 ] || fail "after --budget 10h: $(rows | paste -sd' ')"
second=$(grep -c '^  = ' "$tmp/out")
[ "$((first + second))" -eq 9 ] || fail "$first + $second rows written for 9 runs: $(cat "$tmp/out")"
grep '^  = ' "$tmp/out" | grep -Eq ' (tiny_w8_b1|tiny_w16_b1|wide_w32_b1|wide_w32_b4) ' && fail "measured again: $(cat "$tmp/out")"

sums=$(find "$tmp/results/local/null" -maxdepth 1 -name '*.csv' -exec md5sum {} + | sort)
sweep --budget 10h local null "${opts[@]}"
[ "$rc" -eq 0 ] || fail "again: exit $rc: $(cat "$tmp/out")"
grep -q "nothing is left to measure" "$tmp/out" || fail "again: $(cat "$tmp/out")"
grep -q '^sweep.sh: wave' "$tmp/out" && fail "again ran a wave: $(cat "$tmp/out")"
[ "$sums" = "$(find "$tmp/results/local/null" -maxdepth 1 -name '*.csv' -exec md5sum {} + | sort)" ] || fail "again changed the rows"
echo "sweep_budget: ok"
