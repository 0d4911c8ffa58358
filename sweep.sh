#!/usr/bin/env bash
# ./sweep.sh <device> <compiler>... [-- ngraphbench run options, e.g. --quick]
# Every experiment in configs/experiments.yaml with each listed compiler. Resumable: runs whose
# row exists are skipped, so rerunning after an interruption continues where it stopped.
# Exit code: 0 all ok, 1 some rows not ok, 2 bad input, 3 the environment failed (results not
# writable, disk full), 130/143 interrupted; it stops at the first experiment that ends 2 or more.
# ./sweep.sh --slurm ...: the same as a Slurm job array, and --slurm --status (scripts/slurm_sweep.sh).
# ./sweep.sh --dry-run [--estimate] <device> <compiler>... [-- options]: runs nothing; refuses what
# `run` refuses (exit 2); lists the runs (with --estimate: each run's expected wall time, from rows
# measured on <device>, and the totals per experiment, per compiler and for the sweep).
# ./sweep.sh [--dry-run] --budget DURATION <device> <compiler>... [-- options] (12h, 90m, 1h30m):
# only the runs without a row whose estimates fit DURATION, every experiment x compiler taking
# turns, measured in 4 waves so that each has rows after the first; --dry-run prints what fits.
set -uo pipefail
cd "$(dirname "$0")"
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
[ "${1:-}" = --slurm ] && { shift; exec scripts/slurm_sweep.sh "$@"; }
usage="usage: ./sweep.sh [--dry-run [--estimate]] [--budget DURATION] <device> <compiler>... [-- ngraphbench run options]"
dry_run=0 estimate=0 budget=
while [ $# -gt 0 ]; do
  case $1 in
    --dry-run) dry_run=1 ;;
    --estimate) estimate=1 ;;
    --budget) [ $# -ge 2 ] || { echo "sweep.sh: --budget needs a duration, e.g. --budget 12h" >&2; exit 2; }
              budget=$2; shift ;;
    --budget=*) budget=${1#*=} ;;
    --slurm) echo "sweep.sh: --slurm goes first (./sweep.sh --slurm ...)" >&2; exit 2 ;;
    -*) echo "sweep.sh: unknown option '$1'; sweep.sh takes --dry-run, --estimate and --budget DURATION before <device>, and ngraphbench run options after --" >&2
        echo "$usage" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
if [ "$estimate" -eq 1 ] && [ "$dry_run" -eq 0 ]; then
  echo "sweep.sh: --estimate goes with --dry-run (./sweep.sh --dry-run --estimate <device> <compiler>...)" >&2
  exit 2
fi
if [ $# -lt 2 ]; then
  echo "$usage" >&2
  exit 2
fi
device=$1; shift
compilers=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case $1 in
    -*) echo "sweep.sh: unknown option '$1' after <device>; sweep.sh's options go before <device>, ngraphbench run options after --" >&2
        echo "$usage" >&2; exit 2 ;;
  esac
  compilers+=("$1"); shift
done
[ "${1:-}" = "--" ] && shift
for option in "$@"; do
  case $option in
    --budget|--budget=*|--runs|--runs=*)
      echo "sweep.sh: ${option%%=*} is not a run option here: give --budget DURATION before <device> (the sweep chooses each experiment's --runs)" >&2
      exit 2 ;;
  esac
done
[ -x build/ngraphbench ] || ./setup.sh || exit 1
# Every compiler named must be one `run` knows (build/compilers/ holds the descriptions of all,
# built or not), checked before any experiment runs.
for compiler in "${compilers[@]}"; do
  if [ ! -f "build/compilers/$compiler.yaml" ]; then
    known=$(cd build/compilers && ls -- *.yaml | sed 's/\.yaml$//' | paste -sd, | sed 's/,/, /g')
    echo "sweep.sh: unknown compiler '$compiler'; known compilers: $known" >&2
    exit 2
  fi
done
# Every experiment x compiler is checked as `run` checks it (its options after --, its configs,
# the results tree), before anything runs, dry or not: what a real sweep would refuse (exit 2),
# a dry run refuses too, and a real sweep does not stop halfway on bad input.
check_runs() {  # <experiments> -- <run options...>
  local experiment compiler out rc
  for compiler in "${compilers[@]}"; do
    for experiment in $1; do
      out=$(build/ngraphbench run --check "$experiment" "$compiler" --device "$device" "${@:3}" 2>&1 >/dev/null)
      rc=$?
      [ "$rc" -eq 0 ] || { printf '%s\n' "$out" >&2; exit "$rc"; }
    done
  done
}
# ./setup.sh --gpu lists the CUDA wheels' library folders (onnxruntime-gpu's providers dlopen
# libcudnn, libnvinfer ... by name).
if [ -f .deps/gpu-libs.txt ]; then
  LD_LIBRARY_PATH=$(paste -sd: .deps/gpu-libs.txt)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export LD_LIBRARY_PATH
fi
# The experiments of the configs the runs read (--configs among the run options).
configs=()
for ((i = 1; i <= $#; i++)); do
  case ${!i} in
    --configs) j=$((i + 1)); configs=(--configs "${!j:-}") ;;
    --configs=*) configs=("${!i}") ;;
  esac
done
experiments=$(build/ngraphbench list --experiments --names "${configs[@]}") || exit 2
check_runs "$experiments" -- "$@"
# The options that select runs or change their estimates (expand and plan-budget take them); the
# others only change how they run.
plan=() jobs=1 retry=()
for ((i = 1; i <= $#; i++)); do
  j=$((i + 1))
  case ${!i} in
    --quick|--profile) plan+=("${!i}") ;;
    --configs|--results|--warmup|--repeats|--stop|--scenario|--shard|--processes|--set) plan+=("${!i}" "${!j:-}"); i=$j ;;
    --jobs) jobs=${!j:-1}; i=$j ;;
    --configs=*|--results=*|--warmup=*|--repeats=*|--stop=*|--scenario=*|--shard=*|--processes=*|--set=*) plan+=("${!i}") ;;
    --jobs=*) jobs=${!i#*=} ;;
    --retry-failed) retry=(--retry-failed) ;;
    --timeout|--sample-ms) i=$j ;;
  esac
done
if [ -n "$budget" ]; then
  # plan-budget: a table of what fits on stderr; on stdout the waves, one line per wave and
  # experiment x compiler, "<wave> <experiment> <compiler> <id>,<id>,...".
  # shellcheck disable=SC2086  # the experiments' names are words
  waves=$(build/ngraphbench plan-budget $experiments --compiler "$(IFS=,; echo "${compilers[*]}")" \
    --device "$device" --budget "$budget" --jobs "$jobs" --waves 4 "${retry[@]}" "${plan[@]}")
  rc=$?
  [ "$rc" -eq 0 ] || exit "$rc"
  [ "$dry_run" -eq 1 ] && exit 0
  status=0
  while read -r wave experiment compiler ids <&3; do
    [ -n "$ids" ] || continue           # nothing left to measure
    echo "sweep.sh: wave $wave of 4: $experiment $compiler, $(echo "$ids" | tr ',' '\n' | wc -l) run(s)" >&2
    build/ngraphbench run "$experiment" "$compiler" --device "$device" --runs "$ids" "$@"
    rc=$?
    case $rc in
      0) ;;
      1) status=1 ;;
      *) exit $rc ;;                   # bad input, a failed environment, interrupted: stop here
    esac
  done 3<<<"$waves"
  exit $status
fi
if [ "$dry_run" -eq 1 ]; then
  grand=0
  for compiler in "${compilers[@]}"; do
    sum=0
    for experiment in $experiments; do
      if [ "$estimate" -eq 0 ]; then
        build/ngraphbench expand "$experiment" "${plan[@]}" --compiler "$compiler" \
          --device "$device" | sed "s|^|$compiler $experiment |"
        [ "${PIPESTATUS[0]}" -eq 0 ] || exit 2
        continue
      fi
      out=$(build/ngraphbench expand "$experiment" "${plan[@]}" --estimate --compiler "$compiler" --device "$device") || exit 2
      printf '%s\n' "$out" | sed -n '2,$p' | sed '$d' | sed "s|^|$compiler $experiment |"
      total=$(printf '%s\n' "$out" | sed -n 's/^total: [0-9]* runs, \([0-9]*\) s .*/\1/p')
      echo "$compiler $experiment total: $(printf '%s\n' "$out" | tail -1 | sed 's/^total: //')"
      sum=$((sum + ${total:-0}))
    done
    if [ "$estimate" -eq 1 ]; then
      echo "$compiler: $sum s ($(awk "BEGIN { printf \"%.2f\", $sum / 3600 }") h)"
      grand=$((grand + sum))
    fi
  done
  if [ "$estimate" -eq 1 ]; then
    echo "sweep: $grand s ($(awk "BEGIN { printf \"%.2f\", $grand / 3600 }") h) one run at a time$( [ "$jobs" -gt 1 ] 2>/dev/null && awk "BEGIN { printf \", about %.2f h with --jobs $jobs\", $grand / 3600 / $jobs }")"
  fi
  exit 0
fi
status=0
for compiler in "${compilers[@]}"; do
  for experiment in $experiments; do
    build/ngraphbench run "$experiment" "$compiler" --device "$device" "$@"
    rc=$?
    case $rc in
      0) ;;
      1) status=1 ;;                   # some runs not ok: rows say why; go on
      2|3) exit $rc ;;                 # bad input or a failed environment: stop here
      *) exit $rc ;;                   # interrupted (130, 143) or killed: stop, resumable
    esac
  done
done
exit $status
