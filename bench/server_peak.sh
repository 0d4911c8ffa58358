#!/usr/bin/env bash
# The server scenario on one architecture at batch 1 (docs/measurement.md, Server): for each
# compiler, find_peak (the highest Poisson rate whose percentile latency meets the bound) and
# then one run at a fixed rate above it, which should break the bound. Prints each compiler's
# steps (the row's notes), its peak, and the run above the peak: the percentile latency, the
# queries issued and completed, and the verdict.
#
#   bench/server_peak.sh [compilers=onnxruntime,openvino]
#
# Environment: SERVER_MODEL (resnet18), SERVER_STREAMS (2), SERVER_THREADS (2),
# SERVER_BOUND_MS (500), SERVER_PERCENTILE (90), SERVER_START_QPS (4), SERVER_OVER_QPS (40: the
# run above the peak), SERVER_MIN_DURATION_S (5), SERVER_MAX_TIME_S (30), NGB_BIN (default
# build/ngraphbench), SERVER_RESULTS (default a new folder in /tmp; kept: run again on the same
# one, it keeps the rows already there).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[[ ${1:-} == -h || ${1:-} == --help ]] && { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0; }
IFS=, read -r -a compilers <<<"${1:-onnxruntime,openvino}"
bin=${NGB_BIN:-$root/build/ngraphbench}
results=${SERVER_RESULTS:-$(mktemp -d /tmp/ngb_server_peak.XXXXXX)}
model=${SERVER_MODEL:-resnet18}
mkdir -p "$results/configs"
cp "$root"/configs/*.yaml "$results/configs/"
experiment() {  # name, target_qps, find_peak
  cat <<EOF
  $1:
    family: architecture
    models: [$model]
    batch_sizes: [1]
    quick_batch_sizes: [1]
    scenario: server
    streams: ${SERVER_STREAMS:-2}
    target_qps: $2
    latency_bound_ms: ${SERVER_BOUND_MS:-500}
    latency_percentile: ${SERVER_PERCENTILE:-90}
    find_peak: $3
    server_min_duration_s: ${SERVER_MIN_DURATION_S:-5}
    max_time_s: ${SERVER_MAX_TIME_S:-30}
    timeout_s: 3600
EOF
}
{
  experiment server_peak "${SERVER_START_QPS:-4}" true
  experiment server_over "${SERVER_OVER_QPS:-40}" false
} >>"$results/configs/experiments.yaml"

column() {  # row file, column name
  python3 -c 'import csv, sys; print(next(csv.DictReader(open(sys.argv[1])))[sys.argv[2]])' "$1" "$2"
}
for compiler in "${compilers[@]}"; do
  for e in server_peak server_over; do
    "$bin" run "$e" "$compiler" --configs "$results/configs" --results "$results" \
      --set "threads=${SERVER_THREADS:-2}" >&2 || echo "$e $compiler: exit $?" >&2
  done
  dir=$results/local/$compiler
  peak=$(ls "$dir"/*_server_s*_peak.csv 2>/dev/null | head -1)
  over=$(ls "$dir"/*_server_s*_q"${SERVER_OVER_QPS:-40}".csv 2>/dev/null | head -1)
  echo "== $compiler"
  if [[ -n $peak ]]; then
    echo "steps: $(column "$peak" notes | sed 's/.*find_peak/find_peak/')"
    echo "peak_qps: $(column "$peak" peak_qps) (valid $(column "$peak" valid): $(column "$peak" invalid_reason))"
  fi
  if [[ -n $over ]]; then
    echo "above the peak: $(column "$over" target_qps) QPS, p$(column "$over" latency_percentile)" \
      "$(column "$over" latency_at_percentile_ms) ms, bound $(column "$over" latency_bound_ms) ms" \
      "met: $(column "$over" bound_met), issued $(column "$over" queries_issued)," \
      "completed $(column "$over" queries_completed), achieved $(column "$over" achieved_qps) QPS"
  fi
done
echo "rows in $results/local" >&2
