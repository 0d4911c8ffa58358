#!/usr/bin/env bash
# Drill: the scheduler of an interleaved two-compiler sweep killed with SIGKILL at random moments,
# and resumed each time, on one results tree. A SIGKILL gives the scheduler no chance to clean up:
# its workers die with it (they ask the kernel for SIGKILL when their parent dies), the claims it
# held name a process that is gone, and the parts of runs whose processes were not all measured
# stay in <dir>/.parts/. After each kill it checks every row on disk: complete (it reads, has the
# run's number of processes, and its trace holds that many processes and `repeats` timed runs);
# then it starts the same command again, which resumes. Once the sweep has ended it counts, over
# every log: rows written twice (two `  = <run>` lines of one compiler), processes measured twice
# (two ok lines of one compiler, run and process), processes left running, and leftover parts,
# claims and temporary files. Builds nothing.
#   bench/kill_drill.sh [kills=10] [compilers=null,onnxruntime] [experiment=conv2d]
# Environment: NGB_BIN (default build/ngraphbench), NGB_PROCESSES (default 3), NGB_SEED (the
# random kill times; default 1), NGB_MAX_WAIT_S (longest wait before a kill; default 6).
# Prints one line per kill and a summary; exits 1 when anything was found.
set -uo pipefail
cd "$(dirname "$0")/.."
kills=${1:-10}
compilers=${2:-null,onnxruntime}
experiment=${3:-conv2d}
bin=${NGB_BIN:-build/ngraphbench}
processes=${NGB_PROCESSES:-3}
max_wait=${NGB_MAX_WAIT_S:-6}
[ -x "$bin" ] || { echo "no executable $bin (build it, or set NGB_BIN)" >&2; exit 2; }
bin=$(realpath "$bin")
PY=$(command -v python3)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
results=$tmp/results
RANDOM=${NGB_SEED:-1}
cmd=("$bin" run "$experiment" "$compilers" --quick --processes "$processes" --device d
     --results "$results")

# check_rows: "<rows> <partial>" for the rows on disk now.
check_rows() {
  "$PY" - "$results/d" "$processes" <<'PY'
import csv, glob, os, sys
root, k = sys.argv[1], int(sys.argv[2])
rows = partial = 0
for path in glob.glob(os.path.join(root, "*", "*.csv")):
    if path.endswith(".latencies.csv"):
        continue
    rows += 1
    try:
        lines = list(csv.reader(open(path, newline="")))
        r = dict(zip(lines[0], lines[1]))
        assert len(lines) == 2 and r["status"] == "ok" and int(r["processes"]) == k
        trace = list(csv.reader(open(path[:-4] + ".latencies.csv", newline="")))
        assert trace[0] == ["process", "iteration", "latency_ns"]
        assert len({t[0] for t in trace[1:]}) == k and len(trace) - 1 == int(r["repeats"])
    except Exception as e:  # noqa: BLE001 - any defect counts
        partial += 1
        print(f"  partial row {path}: {e!r}", file=sys.stderr)
print(rows, partial)
PY
}

total=$(for c in ${compilers//,/ }; do "$bin" expand "$experiment" --quick; done | wc -l)
bad=0
partial_total=0
for kill in $(seq 1 "$kills"); do
  setsid "${cmd[@]}" >"$tmp/log.$kill" 2>&1 &
  pid=$!
  wait_ms=$((300 + RANDOM % (max_wait * 1000)))
  sleep "$(printf '%d.%03d' $((wait_ms / 1000)) $((wait_ms % 1000)))"
  if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
  wait "$pid" 2>/dev/null
  sleep 0.3  # the workers' death signal
  left=$(pgrep -f -- "--results $results" | wc -l)
  read -r rows partial < <(check_rows)
  parts=$(find "$results" -path '*/.parts/*.csv' ! -name '*.latencies.csv' 2>/dev/null | wc -l)
  partial_total=$((partial_total + partial))
  [ "$left" = 0 ] && [ "$partial" = 0 ] || bad=1
  printf 'kill %2d after %5.2f s: rows %3d of %d complete, partial %d, parts waiting %3d, processes left %d\n' \
    "$kill" "$(echo "$wait_ms / 1000" | bc -l)" "$rows" "$total" "$partial" "$parts" "$left"
done
"${cmd[@]}" >"$tmp/log.final" 2>&1
final=$?
read -r rows partial < <(check_rows)
partial_total=$((partial_total + partial))
"$PY" - "$tmp" "$processes" "$total" "$rows" "$partial_total" "$final" <<'PY' || bad=1
import collections, glob, os, re, sys
tmp, k, total, rows, partial, final = sys.argv[1], *map(int, sys.argv[2:])
written = collections.Counter()
measured = collections.Counter()
for path in glob.glob(os.path.join(tmp, "log.*")):
    for line in open(path):
        m = re.match(r"\[\s*\d+/\d+\]\s+(\S+)\s+(\S+)\s+p(\d+)\s+ok\s", line)
        if m:
            measured[(m[2], m[1], m[3])] += 1
        m = re.match(r"  = (\S+)\s+(\S+)\s", line)
        if m:
            written[(m[2], m[1])] += 1
dup_rows = sum(1 for n in written.values() if n > 1)
twice = sum(1 for n in measured.values() if n > 1)
print(f"final run: exit {final}; rows {rows} of {total} complete, partial rows over all checks "
      f"{partial}, rows written twice {dup_rows}, processes measured twice {twice} (of "
      f"{len(measured)} measured, {total * k} in the grid)")
sys.exit(0 if final == 0 and rows == total and partial == 0 and dup_rows == 0 and twice == 0
         else 1)
PY
leftover=$(find "$results" \( -path '*/.parts/*' -o -path '*/.claims/*' -o -name '*.tmp.*' \
  -o -path '*/.tmp/*' \) -type f 2>/dev/null | wc -l)
echo "leftover parts, claims and temporary files: $leftover"
find "$results" \( -path '*/.parts/*' -o -path '*/.claims/*' -o -name '*.tmp.*' -o -path '*/.tmp/*' \) \
  -type f 2>/dev/null | sed "s|^$results/|  |" | head -20
[ "$leftover" = 0 ] || bad=1
exit $bad
