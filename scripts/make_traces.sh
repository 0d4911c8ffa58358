#!/usr/bin/env bash
# Produces the released traces: quick grids (the experiments' quick_batch_sizes) of the
# architectures and the synthetic experiments with every built compiler (with --full, the
# experiments' whole batch range and their protocol's time caps), into a temporary results
# tree, zipped as results/<device>/<compiler>/<run_id>{.csv,.latencies.csv}. `ngraphbench
# analyze` reads the zip as it reads the tree. Each experiment is one `run` of all the
# compilers, so their processes alternate in time and a speedup compares measurements taken side
# by side.
#
#   scripts/make_traces.sh [--device LABEL] [--compilers a,b] [--experiments a,b] [--out PATH]
#                          [--configs DIR] [--repeats N] [--jobs N] [--add] [--work DIR]
#                          [--full] [--max-trace-runs N]
#
# --add starts from the rows already in --out: the experiments named are measured into that
# results tree, and the rows of the others are kept as they are (a run already there with the
# same settings is kept too, as `run` keeps it when resuming).
#
# --work DIR measures into DIR/results (created when missing) and keeps it afterwards, with its
# compile caches: a sweep stopped part-way (Ctrl-C, a lost session) resumes when the same command
# is given again, measuring only what is missing. Without it a temporary folder is used and
# removed at the end.
#
# --full measures the experiments' batch_sizes with max_time_s instead of --quick's
# quick_batch_sizes and quick_max_time_s: the curves RTR and ASE are computed from. Its batch 1
# and 8 are the quick grid's runs with other settings, which `run` refuses to mix in one tree:
# give the quick and the full calls different compilers (tvm tunes outside --quick).
#
# --max-trace-runs N leaves out of the zip the traces (<run_id>.latencies.csv) of runs that timed
# more than N runs in all, and names how many (default 20000, 0 for none left out): the fastest
# runs time 100,000 and more to fill min_time_s, about 1 MB zipped each. Their rows, with every
# statistic of all the timed runs, are in; the report shows no latency distribution for them,
# and --work keeps every trace.
#
# Defaults: device `local`, every compiler module in build/ except `null` (a test double),
# experiments architectures,conv_blocks,mha_blocks,conv2d,fully_connected,self_attention,
# out resources/traces/results_raw.zip, configs/, each experiment's repeats and one worker at a
# time. Runs that fail are kept: they are rows with a status.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=$ROOT/build/ngraphbench

device=local
compilers=""
experiments=architectures,conv_blocks,mha_blocks,conv2d,fully_connected,self_attention
out=$ROOT/resources/traces/results_raw.zip
extra=()
add=0
work=""
grid=(--quick)
max_trace_runs=20000
while [ $# -gt 0 ]; do
  case "$1" in
    --device) device=${2:?--device needs a label}; shift 2 ;;
    --compilers) compilers=${2:?--compilers needs a comma-separated list}; shift 2 ;;
    --experiments) experiments=${2:?--experiments needs a comma-separated list}; shift 2 ;;
    --out) out=${2:?--out needs a path}; shift 2 ;;
    --configs) extra+=(--configs "${2:?--configs needs a directory}"); shift 2 ;;
    --repeats) extra+=(--repeats "${2:?--repeats needs a number}"); shift 2 ;;
    --jobs) extra+=(--jobs "${2:?--jobs needs a number}"); shift 2 ;;
    --add) add=1; shift ;;
    --work) work=${2:?--work needs a directory}; shift 2 ;;
    --full) grid=(); shift ;;
    --max-trace-runs) max_trace_runs=${2:?--max-trace-runs needs a number}; shift 2 ;;
    -h|--help) sed -n '2,37p' "$0"; exit 0 ;;
    *) echo "make_traces.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$out" in /*) ;; *) out=$ROOT/$out ;; esac
case "$max_trace_runs" in
  ''|*[!0-9]*) echo "make_traces.sh: --max-trace-runs is '$max_trace_runs'; expected a whole" \
                    "number (0: no trace left out)" >&2; exit 2 ;;
esac

[ -x "$BIN" ] || { echo "make_traces.sh: $BIN is missing; run ./setup.sh first" >&2; exit 2; }
command -v zip >/dev/null ||
  { echo "make_traces.sh: needs zip (apt-get install -y zip)" >&2; exit 2; }

if [ -z "$compilers" ]; then
  found=()
  for module in "$ROOT"/build/libngraphbench_*.so; do
    [ -e "$module" ] || continue
    name=${module##*/libngraphbench_}
    name=${name%.so}
    [ "$name" = null ] || found+=("$name")
  done
  [ ${#found[@]} -gt 0 ] || { echo "make_traces.sh: no compiler modules in build/" >&2; exit 2; }
  compilers=$(IFS=,; echo "${found[*]}")
fi

# The runs in a traces zip: its rows, not the files beside them (traces, profiles, server steps).
count_runs() {  # <zip>
  unzip -Z1 "$1" | grep -E '^results/[^/]+/[^/]+/[^/]+\.csv$' |
    grep -vcE '\.(latencies|profile|server_steps)\.csv$' || true
}

if [ -n "$work" ]; then
  mkdir -p "$work"
  tmp=$(cd "$work" && pwd)
  rm -rf "$tmp/analysis"
else
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
fi
if [ "$add" = 1 ] && [ -d "$tmp/results" ]; then
  echo "make_traces: resuming in $tmp/results" >&2
elif [ "$add" = 1 ]; then
  [ -f "$out" ] || { echo "make_traces.sh: --add needs an existing $out" >&2; exit 2; }
  command -v unzip >/dev/null ||
    { echo "make_traces.sh: --add needs unzip (apt-get install -y unzip)" >&2; exit 2; }
  (cd "$tmp" && unzip -q "$out")
  echo "make_traces: adding to the $(count_runs "$out") runs of $out" >&2
fi
echo "make_traces: device $device, compilers $compilers, experiments $experiments" >&2
IFS=, read -r -a experiment_list <<<"$experiments"
for experiment in "${experiment_list[@]}"; do
  rc=0
  "$BIN" run "$experiment" "$compilers" "${grid[@]}" --device "$device" --results "$tmp/results" \
    "${extra[@]}" || rc=$?
  # 1 = the sweep finished but some runs are not ok: those rows belong in the traces too.
  if [ "$rc" -gt 1 ]; then
    echo "make_traces: '$experiment' with '$compilers' failed (exit $rc)" >&2
    exit "$rc"
  fi
done

# The traces must load: analyze them once before publishing.
"$BIN" analyze "$tmp/results" -o "$tmp/analysis"

mkdir -p "$(dirname "$out")"
rm -f "$out.tmp"
# Rows and traces only (and .parts/, the processes of unfinished runs, from which --add
# resumes): the compilers' caches (results/.cache: TVM libraries, reference outputs), the
# workers' scratch files (results/.tmp) and the schedulers' run claims (<compiler>/.claims) are
# not results; nor, beyond --max-trace-runs timed runs, a run's trace (a header line, then a line
# per timed run).
: >"$tmp/left_out.txt"
if [ "$max_trace_runs" -gt 0 ]; then
  (cd "$tmp" && find results -path 'results/.cache' -prune -o -name '*.latencies.csv' -print |
    while read -r trace; do
      [ "$(wc -l <"$trace")" -le $((max_trace_runs + 1)) ] || echo "$trace"
    done) >"$tmp/left_out.txt"
  [ ! -s "$tmp/left_out.txt" ] ||
    echo "make_traces: $(wc -l <"$tmp/left_out.txt") trace(s) of more than $max_trace_runs" \
         "timed runs left out of the zip (their rows are in it)" >&2
fi
(cd "$tmp" && zip -qr -X "$out.tmp" results -x 'results/.cache/*' -x 'results/.tmp/*' \
                  -x '*/.claims/*' -x@left_out.txt)
mv "$out.tmp" "$out"
echo "make_traces: wrote $out ($(count_runs "$out") runs)" >&2
