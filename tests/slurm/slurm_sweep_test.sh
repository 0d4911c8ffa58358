#!/usr/bin/env bash
# CTest's slurm_sweep: ./sweep.sh --slurm on a private single-node Slurm cluster (cluster.sh).
#
#   slurm_sweep_test.sh <source dir> <ngraphbench binary>
#
# 1. A 3-task array of two tiny experiments with the null compiler and onnxruntime --quick (when
#    built) into a temporary results tree: every run of the expanded grid gets one `ok` row,
#    measured once (the per-run lines of all task logs), and no claim is left behind.
# 2. The resume drill: a 3-task array of slow null runs (sleep_us); array task 1 is cancelled
#    (scancel JOB_1) after it measured a run; the others finish; the same command submitted again
#    measures only what is missing (plus two rows deleted before it, so that it has work where the
#    other tasks made up for the cancelled one). Afterwards every run has one `ok` row, none ran
#    twice, and the cancelled run left no `crashed` row (a cancel signals every process at once).
# Prints one summary line: tasks, rows, duplicates, the resume result, the wall time and whether
# the build shards (`run --shard`; without it every task walks the whole grid and the results
# tree's claims keep each run measured once).
#
# Exits 77 (CTest: skipped, with the reason printed) where the machine cannot run a cluster
# (cluster.sh check: not root, Slurm or munge missing), or when the binary under test is not
# <source dir>/build/ngraphbench (the one sweep.sh runs). Each wait gives up after
# NGB_SLURM_WAIT_S seconds (default 120).
set -uo pipefail
ROOT=$(cd "$1" && pwd -P)
BIN=$2
CLUSTER=$ROOT/tests/slurm/cluster.sh
WAIT_S=${NGB_SLURM_WAIT_S:-120}
t0=${EPOCHREALTIME/[.,]/}

if ! reason=$("$CLUSTER" check 2>&1); then
  echo "slurm_sweep: skipped: ${reason#skip: }"
  exit 77
fi
if ! [ "$ROOT/build/ngraphbench" -ef "$BIN" ]; then
  echo "slurm_sweep: skipped: the binary under test ($BIN) is not $ROOT/build/ngraphbench, which sweep.sh runs"
  exit 77
fi

tmp=$(mktemp -d /tmp/ngb-slurm-test-XXXXXX)
chmod 0755 "$tmp"
cleanup() {
  "$CLUSTER" stop "$tmp/cluster" --clean >>"$tmp/cluster.log" 2>&1 || cat "$tmp/cluster.log"
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
fail() { echo "slurm_sweep: FAILED: $*"; exit 1; }

if ! "$CLUSTER" start "$tmp/cluster" >"$tmp/cluster.log" 2>&1; then
  cat "$tmp/cluster.log"
  fail "cluster.sh start"
fi
grep 'cluster up' "$tmp/cluster.log"
eval "$("$CLUSTER" env "$tmp/cluster")"

R=$tmp/results
DEV=cpu
LOGS=$R/$DEV/.slurm/logs
shard=no
"$BIN" run --help 2>&1 | grep -q -- --shard && shard=yes

# Two configs directories: tiny fast runs, and slow null runs (0.1 s per inference) for the drill.
mkdir -p "$tmp/fast" "$tmp/slow"
# One process a run: the drill is about shards, claims and cancels of whole runs (the claims of
# a run's processes are the Concurrent tests' job).
common='  processes: 1
  stop: fixed
  warmup: 1
  repeats: 3
  min_time_s: 0
  max_time_s: 2
  quick_max_time_s: 2
  timeout_s: 60
  check: off'
cat >"$tmp/fast/experiments.yaml" <<EOF
defaults:
  batch_sizes: [1, 2, 4]
  quick_batch_sizes: [1, 2]
$common
experiments:
  lin:
    family: linear
    description: one linear layer, tiny
    widths: [8, 16, 32]
  conv:
    family: conv2d
    description: one Conv3x3, tiny
    widths: [4, 8]
EOF
cat >"$tmp/slow/experiments.yaml" <<EOF
defaults:
  batch_sizes: [1, 2, 4]
  quick_batch_sizes: [1]
$common
experiments:
  slow:
    family: linear
    description: one linear layer; the null compiler busy-waits 0.1 s per inference
    widths: [8, 16, 32, 64]
EOF
cp "$ROOT/configs/null.yaml" "$tmp/fast/"
sed 's/^\( *sleep_us:\) *[0-9]*/\1 100000/' "$ROOT/configs/null.yaml" >"$tmp/slow/null.yaml"
grep -q 'sleep_us: 100000' "$tmp/slow/null.yaml" || fail "cannot set sleep_us in null.yaml"
compilers=(null)
if "$BIN" list --compilers 2>/dev/null | grep -qw onnxruntime; then
  compilers+=(onnxruntime)
  # One intra-op thread: the tasks share the node's CPUs, one CPU each.
  sed 's/^threads:.*/threads: 1/' "$ROOT/configs/onnxruntime.yaml" >"$tmp/fast/onnxruntime.yaml"
fi

# Submits, prints the job id; the sbatch script and the submission's messages go to the log.
submit() {
  local out
  out=$("$ROOT/sweep.sh" --slurm --tasks 3 --results "$R" "$@" 2>>"$tmp/submit.log") ||
    { cat "$tmp/submit.log"; fail "sweep.sh --slurm $*"; }
  [[ $out =~ ^[0-9]+$ ]] || fail "sweep.sh --slurm printed '$out', not a job id"
  echo "$out"
}
# Waits until job $1 has left squeue's active states.
wait_job() {
  local deadline=$((SECONDS + WAIT_S))
  while [ -n "$(squeue -h -j "$1" 2>/dev/null)" ]; do
    [ $SECONDS -lt $deadline ] || { squeue -r -j "$1"; fail "job $1 not done after $WAIT_S s"; }
    sleep 0.3
  done
}
task_states() { squeue -h -r -t all -j "$1" -o '%i=%T' 2>/dev/null | sort | tr '\n' ' '; }
# "<compiler> <run_id>" for every run a task measured: the scheduler's per-run line ends with
# "(elapsed M:SS, ETA M:SS)"; its header line
# "<experiment> <compiler> on <device>[ (shard i/N: ...)]: ..." says which compiler.
measured() {
  awk '/^[^ ]+ [^ ]+ on [^ ]+( \(shard [^)]*\))?: [0-9]+ runs,/ { c = $2 }
       /^\[ *[0-9]+\/[0-9]+\] .*\(elapsed [0-9:]+, ETA [0-9:]+\)$/ {
         sub(/^\[ *[0-9]+\/[0-9]+\] */, ""); print c, $1 }' "$@"
}
# The expected "<compiler> <run_id>" lines: every experiment of configs dir $1 (with $2 = --quick
# or nothing) for each compiler in the rest.
expected() {
  local cfg=$1 quick=$2 c e; shift 2
  for c in "$@"; do
    for e in $("$BIN" list --experiments --names --configs "$cfg"); do
      "$BIN" expand "$e" --configs "$cfg" ${quick:+"$quick"} | sed "s/^/$c /"
    done
  done
}
# Checks that each expected run has exactly one row, `ok`, and was measured once in the logs
# given; prints "<runs> <rows ok> <duplicates>".
check_rows() {
  local want=$1; shift
  python3 - "$R/$DEV" "$want" "$@" <<'EOF'
import csv, os, sys
from collections import Counter
root, want = sys.argv[1], sys.argv[2]
logs_measured = Counter(line.strip() for line in open(sys.argv[3]) if line.strip())
runs = [tuple(l.split()) for l in open(want) if l.strip()]
bad = []
ok = 0
for compiler, run_id in runs:
    path = os.path.join(root, compiler, run_id + ".csv")
    if not os.path.exists(path):
        bad.append(f"{compiler}/{run_id}: no row")
        continue
    rows = list(csv.reader(open(path, newline="")))
    status = rows[1][rows[0].index("status")] if len(rows) == 2 else f"{len(rows) - 1} data lines"
    if status == "ok":
        ok += 1
    else:
        bad.append(f"{compiler}/{run_id}: status {status}")
dups = {k: n for k, n in logs_measured.items() if n > 1}
for k, n in dups.items():
    bad.append(f"{k}: measured {n} times")
unmeasured = [f"{c} {r}" for c, r in runs if logs_measured[f"{c} {r}"] == 0]
for u in unmeasured:
    bad.append(f"{u}: row but no measurement in the task logs")
extra = [k for k in logs_measured if tuple(k.split()) not in set(runs)]
for k in extra:
    bad.append(f"{k}: measured but not in the grid")
for b in bad[:20]:
    print("  " + b, file=sys.stderr)
print(len(runs), ok, sum(n - 1 for n in dups.values()), len(bad))
EOF
}

# ---- 1. the sweep: 3 tasks, two experiments, null + onnxruntime --quick ----------------------
expected "$tmp/fast" --quick "${compilers[@]}" >"$tmp/want1"
job1=$(submit "$DEV" "${compilers[@]}" -- --configs "$tmp/fast" --quick) || exit 1
echo "slurm_sweep: submitted job $job1: 3 tasks, ${compilers[*]} --quick, $(wc -l <"$tmp/want1") runs (shard: $shard)"
wait_job "$job1"
states1=$(task_states "$job1")
echo "slurm_sweep: job $job1 tasks: $states1"
measured "$LOGS/${job1}"_*.log >"$tmp/measured1"
read -r runs1 ok1 dups1 bad1 < <(check_rows "$tmp/want1" "$tmp/measured1")
if [ "${bad1:-1}" -ne 0 ] || [[ $states1 != *COMPLETED*COMPLETED*COMPLETED* ]]; then
  tail -n 30 "$LOGS/${job1}"_*.log
  fail "sweep: ${ok1:-?} of ${runs1:-?} runs ok, ${dups1:-?} measured twice, ${bad1:-?} problems; tasks $states1"
fi
echo "slurm_sweep: sweep: $ok1 of $runs1 runs ok, each measured once ($(wc -l <"$tmp/measured1") measured lines in the 3 task logs)"

# ---- 2. the resume drill: cancel task 1 mid-sweep, resubmit -------------------------------
expected "$tmp/slow" "" null >"$tmp/want2"
job2=$(submit "$DEV" null -- --configs "$tmp/slow") || exit 1
# Task 1 has measured a run and goes on to the next: cancel it now.
deadline=$((SECONDS + WAIT_S))
until [ -f "$LOGS/${job2}_1.log" ] && [ -n "$(measured "$LOGS/${job2}_1.log")" ]; do
  if [ $SECONDS -ge $deadline ] || [ -z "$(squeue -h -j "$job2" 2>/dev/null)" ]; then
    cat "$LOGS/${job2}"_*.log 2>/dev/null
    fail "task ${job2}_1 never measured a run"
  fi
  sleep 0.1
done
scancel "${job2}_1" || fail "scancel ${job2}_1"
wait_job "$job2"
states2=$(task_states "$job2")
echo "slurm_sweep: job $job2 tasks after scancel ${job2}_1: $states2"
[[ $states2 == *"${job2}_1=CANCELLED"* ]] || fail "task ${job2}_1 is not CANCELLED: $states2"
grep -E '\] .* stopped \(|interrupted by SIG' "$LOGS/${job2}_1.log" | sed 's/^/  task 1: /'
if grep -E 'killed by signal|crashed' "$LOGS/${job2}"_*.log; then
  fail "the cancel left a crashed row"
fi
missing=0
while read -r c r; do [ -f "$R/$DEV/$c/$r.csv" ] || missing=$((missing + 1)); done <"$tmp/want2"
measured "$LOGS/${job2}"_*.log >"$tmp/measured2a"
echo "slurm_sweep: after the cancel: $(wc -l <"$tmp/measured2a") of $(wc -l <"$tmp/want2") runs measured, $missing without a row"
# Two rows task 0 wrote are lost too (deleted with their traces), so that the resubmission has
# work even where the other tasks made up for the cancelled one (without --shard every task walks
# the whole grid); their first measurement no longer counts.
measured "$LOGS/${job2}_0.log" | head -n 2 >"$tmp/lost"
while read -r c r; do rm -f "$R/$DEV/$c/$r.csv" "$R/$DEV/$c/$r.latencies.csv"; done <"$tmp/lost"
lost=$(wc -l <"$tmp/lost")
grep -vxFf "$tmp/lost" "$tmp/measured2a" >"$tmp/measured2a.kept"
missing=$((missing + lost))
job3=$(submit "$DEV" null -- --configs "$tmp/slow") || exit 1
wait_job "$job3"
states3=$(task_states "$job3")
echo "slurm_sweep: resubmitted as job $job3, tasks: $states3"
measured "$LOGS/${job3}"_*.log >"$tmp/measured2b"
cat "$tmp/measured2a.kept" "$tmp/measured2b" >"$tmp/measured2"
read -r runs2 ok2 dups2 bad2 < <(check_rows "$tmp/want2" "$tmp/measured2")
resumed=$(wc -l <"$tmp/measured2b")
if [ "${bad2:-1}" -ne 0 ] || [ "$resumed" -ne "$missing" ] ||
   [[ $states3 != *COMPLETED*COMPLETED*COMPLETED* ]]; then
  tail -n 30 "$LOGS/${job2}"_*.log "$LOGS/${job3}"_*.log
  fail "resume: ${ok2:-?} of ${runs2:-?} ok, ${dups2:-?} measured twice, $resumed measured by the resubmission for $missing missing, ${bad2:-?} problems; tasks $states3"
fi

# Nothing left behind: no claim, no worker log.
left=$(find "$R" \( -path '*/.claims/*' -o -path '*/.tmp/*' \) -type f | wc -l)
[ "$left" -eq 0 ] || { find "$R" \( -path '*/.claims/*' -o -path '*/.tmp/*' \) -type f; fail "$left claim or temporary file(s) left"; }
status_out=$("$ROOT/sweep.sh" --slurm --status --results "$R" "$DEV") || fail "sweep.sh --slurm --status"
while IFS= read -r line; do echo "  status: $line"; done <<<"$status_out"
grep -q "^  null: $((runs2 + $(grep -c '^null ' "$tmp/want1"))) rows (ok " <<<"$status_out" ||
  fail "--status does not count the null rows"

t1=${EPOCHREALTIME/[.,]/}
wall=$(( (t1 - t0) / 1000000 )).$(( (t1 - t0) / 100000 % 10 ))
echo "slurm_sweep: PASS: tasks 3+3+3 (shard: $shard), rows $((ok1 + ok2)) ok of $((runs1 + runs2)) runs, duplicates $((dups1 + dups2)); resume: task 1 cancelled, $((missing - lost)) run(s) without a row + $lost deleted, the resubmission measured $resumed, all $runs2 ok once; wall ${wall} s"
