#!/usr/bin/env bash
# Whether ngraphbench's precision claims hold when a measurement is repeated: the same grid
# (--quick) measured R times, each repetition into its own results tree per thread setting
# (<out>/t<threads>/rep<i>, device label `cal`, threads set in a copy of configs/), then:
#   (a) coverage: per (compiler, threads, run), for each ordered pair of repetitions i != j,
#       whether rep j's latency_p50_ms lies inside rep i's [latency_p50_ci_low_ms,
#       latency_p50_ci_high_ms] (ok rows only; a row without an interval is not covered and is
#       also counted apart); goal >= 90%;
#   (b) false positives: `compare rep<i> rep<j>` for every i < j within one thread setting; the
#       pairs whose `change` is slower or faster (undecided counted apart); goal <= 5%;
#   (c) power: pairs flagged `slower` when NEW really is slower: the null compiler busy-waiting
#       1000 us (BASE) against 1100 us (NEW, +10%) on the experiments, and onnxruntime at
#       threads 2 (BASE) against threads 1 (NEW) on conv2d, rep i against rep i; goal >= 90% for
#       the 10% change;
#   (d) the run-to-run p50 ratio rep j / rep i (i < j): median, IQR and min-max;
#   (g) ratio coverage: `analyze` of each repetition's tree (<out>/analysis/t<threads>/rep<i>),
#       whether rep j's RTR (and, with identity among the compilers, speedup) lies inside rep
#       i's interval of it.
# Per compiler x threads and overall, with the goals beside the figures; it judges nothing and
# tunes nothing. Also prints the wall time of the sweep (each invocation's is in <out>/wall.tsv).
#
#   bench/calibration.sh [options]
#     --reps R                      repetitions of the grid (default 5, at least 2)
#     --schedule interleaved|backtoback
#                                   interleaved (default): for each (threads, experiment,
#                                   compiler), rep 1, 2, ..., R one after the other, so slow
#                                   drift of the machine is spread over the repetitions;
#                                   backtoback: each repetition of the whole grid after the last
#     --together                    one `run` per (threads, experiment, rep) with all compilers,
#                                   whose passes alternate their runs, as a sweep's call does:
#                                   ratios between compilers are then paired pass by pass
#     --compilers LIST              (default onnxruntime,openvino)
#     --experiments LIST            (default conv2d,fully_connected; always --quick)
#     --threads LIST                (default 1,$(nproc))
#     --ngraphbench PATH            (default build/ngraphbench)
#     --extra "ARGS"                more arguments for every `run`, e.g. "--processes 5"
#     --out DIR                     keep everything there: results trees, logs, compare CSVs,
#                                   wall.tsv and the summary (calibration.txt); default a
#                                   temporary folder, removed at the end
#     --quick-bench                 a fast rehearsal: --reps 2 --experiments conv2d
# The summary goes to stdout, progress to stderr. Exits 2 on bad arguments or when a `run` or
# `compare` exits 2 or more (bad input, environment: the rest would fail alike).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '2,42p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
reps=5 schedule=interleaved together=0
compilers=onnxruntime,openvino experiments=conv2d,fully_connected
threads=1 ngb=$root/build/ngraphbench extra="" out=""
[[ $(nproc) -gt 1 ]] && threads=1,$(nproc)
while [[ $# -gt 0 ]]; do
  case $1 in
    --quick-bench) reps=2 experiments=conv2d; shift; continue ;;
    --together) together=1; shift; continue ;;
    -h|--help) usage ;;
  esac
  [[ $# -ge 2 ]] || usage
  case $1 in
    --reps) reps=$2 ;;
    --schedule) schedule=$2 ;;
    --compilers) compilers=$2 ;;
    --experiments) experiments=$2 ;;
    --threads) threads=$2 ;;
    --ngraphbench) ngb=$(realpath "$2") ;;
    --extra) extra=$2 ;;
    --out) out=$2 ;;
    *) usage ;;
  esac
  shift 2
done
[[ $reps =~ ^[0-9]+$ && $reps -ge 2 ]] || { echo "--reps must be a number >= 2" >&2; exit 2; }
[[ $schedule == interleaved || $schedule == backtoback ]] || usage
[[ -x $ngb ]] || { echo "no executable $ngb (build it, or pass --ngraphbench)" >&2; exit 2; }
IFS=, read -r -a compiler_list <<<"$compilers"
IFS=, read -r -a experiment_list <<<"$experiments"
IFS=, read -r -a threads_list <<<"$threads"
read -r -a extra_args <<<"$extra"
for t in "${threads_list[@]}"; do
  [[ $t =~ ^[0-9]+$ ]] || { echo "--threads: '$t' is not a number" >&2; exit 2; }
done

if [[ -n $out ]]; then
  mkdir -p "$out"; out=$(realpath "$out")
  # `run` resumes a tree: rows already there would not be measured again.
  if compgen -G "$out/t*/rep*" >/dev/null || [[ -e $out/power ]]; then
    echo "$out already holds results of a calibration bench: give an empty --out" >&2; exit 2
  fi
else
  out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
fi
py=python3; [[ -x $root/.venv/bin/python ]] && py=$root/.venv/bin/python
mkdir -p "$out/configs" "$out/logs" "$out/compare"
: >"$out/wall.tsv"
cat >"$out/settings.txt" <<EOF
reps=$reps
schedule=$schedule
together=$together
compilers=$compilers
experiments=$experiments
threads=$threads
ngraphbench=$ngb
version=$("$ngb" --version 2>/dev/null | head -1)
extra=$extra
nproc=$(nproc)
EOF

# A copy of configs/ with `threads: <t>` for every compiler of the grid (and onnxruntime, which
# the power check uses); prints its path.
threads_configs() {  # <threads>
  local dir=$out/configs/t$1 c
  if [[ ! -d $dir ]]; then
    cp -r "$root/configs" "$dir"
    for c in "${compiler_list[@]}" onnxruntime; do
      { [[ -f $root/configs/$c.yaml ]] && grep -vE '^threads:' "$root/configs/$c.yaml"
        echo "threads: $1"; } >"$dir/$c.yaml"
    done
  fi
  echo "$dir"
}

# A copy of configs/ whose null compiler busy-waits <us> microseconds per run; prints its path.
null_configs() {  # <us>
  local dir=$out/configs/null-$1
  if [[ ! -d $dir ]]; then
    cp -r "$root/configs" "$dir"
    sed -i -E "s/^(  sleep_us:) *[0-9]+/\1 $1/" "$dir/null.yaml"
    grep -qE "^  sleep_us: $1( |$)" "$dir/null.yaml" ||
      { echo "could not set sleep_us in $dir/null.yaml" >&2; exit 2; }
  fi
  echo "$dir"
}

count=0
# One `run` invocation, timed; a line in wall.tsv: phase, threads or side, experiment, compiler,
# rep, start, end, seconds, exit status. Exit 1 (some runs not ok) is noted and the bench goes on.
invoke() {  # <phase> <label> <experiment> <compiler> <rep> <configs> <results>
  local log=$out/logs/$1-$2-$3-$4-rep$5.log start end rc=0
  count=$((count + 1))
  start=$EPOCHREALTIME
  "$ngb" run "$3" "$4" --quick --configs "$6" --results "$7" --device cal \
    ${extra_args[@]+"${extra_args[@]}"} >"$log" 2>&1 || rc=$?
  end=$EPOCHREALTIME
  local seconds
  seconds=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$start" "$end" \
    "$seconds" "$rc" >>"$out/wall.tsv"
  echo "[$count/$total] $1 $2 $3 $4 rep $5: ${seconds} s, exit $rc" >&2
  if [[ $rc -ge 2 ]]; then
    echo "\`run\` exited $rc (see $log):" >&2; tail -20 "$log" >&2; exit 2
  fi
}

# `compare` BASE NEW into a CSV; exit 2 (bad input) stops the bench.
compare() {  # <base> <new> <csv>
  local rc=0
  "$ngb" compare "$1" "$2" --csv "$3" >"${3%.csv}.md" 2>&1 || rc=$?
  if [[ $rc -ne 0 ]]; then
    echo "\`compare $1 $2\` exited $rc:" >&2; tail -20 "${3%.csv}.md" >&2
    [[ $rc -lt 2 ]] || exit 2
  fi
}

# The compilers of each grid invocation: one each, or all of them in one call (--together).
grid_calls=("${compiler_list[@]}")
[[ $together == 1 ]] && grid_calls=("$compilers")
n_grid=$((${#threads_list[@]} * ${#experiment_list[@]} * ${#grid_calls[@]} * reps))
total=$((n_grid + 2 * ${#experiment_list[@]} * reps + 2 * reps))

# ---- The grid, R times ----
sweep_start=$EPOCHREALTIME
if [[ $schedule == interleaved ]]; then
  for t in "${threads_list[@]}"; do
    cfg=$(threads_configs "$t")
    for e in "${experiment_list[@]}"; do
      for c in "${grid_calls[@]}"; do
        for i in $(seq "$reps"); do
          invoke grid "t$t" "$e" "$c" "$i" "$cfg" "$out/t$t/rep$i"
        done
      done
    done
  done
else
  for i in $(seq "$reps"); do
    for t in "${threads_list[@]}"; do
      cfg=$(threads_configs "$t")
      for e in "${experiment_list[@]}"; do
        for c in "${grid_calls[@]}"; do
          invoke grid "t$t" "$e" "$c" "$i" "$cfg" "$out/t$t/rep$i"
        done
      done
    done
  done
fi
sweep_end=$EPOCHREALTIME

# ---- Power: BASE and NEW measured next to each other, rep i against rep i ----
# The two sides alternate (BASE first on odd reps, NEW first on even ones); the schedule orders
# the reps as for the grid: interleaved runs an experiment's reps in a row, backtoback the whole
# power grid once per rep.
power_pair() {  # <test> <experiment> <compiler> <rep> <base configs> <new configs>
  local side order="base new"
  [[ $(($4 % 2)) -eq 0 ]] && order="new base"
  for side in $order; do
    local cfg=$5; [[ $side == new ]] && cfg=$6
    invoke "power-$1" "$side" "$2" "$3" "$4" "$cfg" "$out/power/$1/$side/rep$4"
  done
}
power_start=$EPOCHREALTIME
null_base=$(null_configs 1000)
null_new=$(null_configs 1100)
t2=$(threads_configs 2)
t1=$(threads_configs 1)
if [[ $schedule == interleaved ]]; then
  for e in "${experiment_list[@]}"; do
    for i in $(seq "$reps"); do power_pair null "$e" null "$i" "$null_base" "$null_new"; done
  done
  for i in $(seq "$reps"); do power_pair threads conv2d onnxruntime "$i" "$t2" "$t1"; done
else
  for i in $(seq "$reps"); do
    for e in "${experiment_list[@]}"; do
      power_pair null "$e" null "$i" "$null_base" "$null_new"
    done
    power_pair threads conv2d onnxruntime "$i" "$t2" "$t1"
  done
fi
power_end=$EPOCHREALTIME
printf 'sweep_start=%s\nsweep_end=%s\npower_start=%s\npower_end=%s\n' \
  "$sweep_start" "$sweep_end" "$power_start" "$power_end" >>"$out/settings.txt"

# ---- Compares ----
for t in "${threads_list[@]}"; do
  mkdir -p "$out/compare/t$t"
  for i in $(seq "$reps"); do
    for j in $(seq $((i + 1)) "$reps"); do
      compare "$out/t$t/rep$i" "$out/t$t/rep$j" "$out/compare/t$t/rep$i-rep$j.csv"
    done
  done
done
for test in null threads; do
  mkdir -p "$out/compare/power-$test"
  for i in $(seq "$reps"); do
    compare "$out/power/$test/base/rep$i" "$out/power/$test/new/rep$i" \
      "$out/compare/power-$test/rep$i.csv"
  done
done

# ---- Ratios: `analyze` of each repetition's tree (ok rows, invalid ones included) ----
for t in "${threads_list[@]}"; do
  for i in $(seq "$reps"); do
    log=$out/logs/analyze-t$t-rep$i.log
    "$ngb" analyze "$out/t$t/rep$i" --include-invalid -o "$out/analysis/t$t/rep$i" >"$log" 2>&1 ||
      { echo "\`analyze $out/t$t/rep$i\` failed (see $log)" >&2; tail -5 "$log" >&2; }
  done
done

"$py" "$root/bench/calibration.py" "$out" | tee "$out/calibration.txt"
