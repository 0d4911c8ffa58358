#!/usr/bin/env bash
# ./sweep.sh <device> <compiler>... [-- ngraphbench run options, e.g. --quick]
# Every experiment in configs/experiments.yaml with each listed compiler. Resumable: runs whose
# row exists are skipped, so rerunning after an interruption continues where it stopped.
# Exit code: 0 all ok, 1 some rows not ok, 2 bad input, 3 the environment failed (results not
# writable, disk full), 130/143 interrupted; it stops at the first experiment that ends 2 or more.
# ./sweep.sh --slurm ...: the same as a Slurm job array, and --slurm --status (scripts/slurm_sweep.sh).
set -uo pipefail
cd "$(dirname "$0")"
[ "${1:-}" = --slurm ] && { shift; exec scripts/slurm_sweep.sh "$@"; }
if [ $# -lt 2 ]; then
  echo "usage: ./sweep.sh <device> <compiler>... [-- ngraphbench run options]" >&2
  exit 2
fi
device=$1; shift
compilers=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do compilers+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
[ -x build/ngraphbench ] || ./setup.sh || exit 1
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
