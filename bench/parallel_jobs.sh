#!/usr/bin/env bash
# What `run --jobs N` costs in measurement: the same grid run with --jobs 1 and with --jobs N
# (each worker pinned to its own CPUs), into separate results trees, in alternating order over
# the rounds (1 then N, then N then 1), with `threads: 1` from a temporary copy of configs/.
# Prints each round's sweep wall times, the wall ratio jobs N / jobs 1 (median, IQR, min-max
# over rounds, bench/ratios.py), and per run the ratio of p50 latency parallel / alone, with the
# median and the worst over runs. Neighbouring workers share caches, memory bandwidth and the
# package's power budget: the p50 ratio shows how much that moved the numbers. It only prints;
# it judges nothing.
#   bench/parallel_jobs.sh [rounds=3]
# Environment: NGB_BIN (default build/ngraphbench), NGB_EXPERIMENT (default fully_connected),
# NGB_COMPILER (default onnxruntime), NGB_JOBS (default 2), NGB_RUN_ARGS (more `run` arguments;
# default --quick).
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
bin=${NGB_BIN:-build/ngraphbench}
experiment=${NGB_EXPERIMENT:-fully_connected}
compiler=${NGB_COMPILER:-onnxruntime}
jobs=${NGB_JOBS:-2}
read -r -a extra <<<"${NGB_RUN_ARGS:---quick}"
[ -x "$bin" ] || { echo "no executable $bin (build it, or set NGB_BIN)" >&2; exit 2; }
bin=$(realpath "$bin")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# threads 1 and no affinity of its own (a CPU list would be refused with --jobs); the rest of
# the compiler's config as the repository has it.
cp -r configs "$tmp/configs"
{ [ -f "configs/$compiler.yaml" ] && grep -vE '^(threads|affinity):' "configs/$compiler.yaml"
  echo "threads: 1"; } >"$tmp/configs/$compiler.yaml"

# One sweep into its own tree; prints its wall seconds.
sweep() {  # <jobs> <round>
  local tree=$tmp/r$2-j$1 start end
  start=$(date +%s.%N)
  "$bin" run "$experiment" "$compiler" --configs "$tmp/configs" --results "$tree" \
    --device bench --jobs "$1" "${extra[@]}" >"$tree.log" 2>&1
  local rc=$?
  end=$(date +%s.%N)
  if [ $rc -gt 1 ]; then
    echo "round $2, --jobs $1 exited $rc:" >&2; tail -5 "$tree.log" >&2; exit $rc
  fi
  echo "$start $end" | awk '{printf "%.2f\n", $2 - $1}'
}

for r in $(seq "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then order="1 $jobs"; else order="$jobs 1"; fi
  for j in $order; do
    s=$(sweep "$j" "$r") || exit $?
    echo "$r $j $s" >>"$tmp/walls"
    echo "round $r: --jobs $j took $s s"
  done
done

python3 - "$tmp" "$jobs" "$compiler" <<'EOF'
import glob, os, statistics, sys
sys.path.insert(0, "bench")
import ratios

tmp, jobs, compiler = sys.argv[1], sys.argv[2], sys.argv[3]
walls = {}
for line in open(os.path.join(tmp, "walls")):
    r, j, s = line.split()
    walls.setdefault(int(r), {})[j] = float(s)

c = ratios.Comparison(f"jobs {jobs}", "jobs 1")
for r, w in sorted(walls.items()):
    c.add("sweep", "wall s", r, w[jobs], w["1"])
    for path in sorted(glob.glob(os.path.join(tmp, f"r{r}-j1/bench/{compiler}/*.csv"))):
        if path.endswith(".latencies.csv"):
            continue
        name = os.path.basename(path)
        other = os.path.join(tmp, f"r{r}-j{jobs}/bench/{compiler}", name)
        alone = ratios.read_row(path)
        parallel = ratios.read_row(other) if os.path.exists(other) else {}
        ok = lambda row: row.get("status") == "ok"
        c.add(name[:-4], "p50 ms", r,
              ratios.cell(parallel, "latency_p50_ms") if ok(parallel) else None,
              ratios.cell(alone, "latency_p50_ms") if ok(alone) else None)
c.print(overall=False)

per_run = {label: statistics.median(rs.values()) for (label, metric) in c.cells
           if metric == "p50 ms" and (rs := c.ratios(label, metric))}
if per_run:
    worst = max(per_run, key=per_run.get)
    print(f"p50 parallel / alone over {len(per_run)} runs (each the median over rounds): "
          f"median {statistics.median(per_run.values()):.3f}, "
          f"worst {per_run[worst]:.3f} ({worst})")
EOF
