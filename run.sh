#!/usr/bin/env bash
# ./run.sh <experiment> <compiler> [device] [--quick] [more `ngraphbench run` options]
# Runs one experiment with one compiler; rows go to results/<device>/<compiler>/. Builds
# everything first (./setup.sh) when the build is missing.
set -euo pipefail
cd "$(dirname "$0")"
if [ $# -lt 2 ] || [[ $1 == -* ]] || [[ $2 == -* ]]; then
  echo "usage: ./run.sh <experiment> <compiler> [device] [--quick] [ngraphbench run options]" >&2
  echo "       experiments: configs/experiments.yaml, or a path to an .onnx file" >&2
  exit 2
fi
experiment=$1 compiler=$2
shift 2
device=local
if [ $# -gt 0 ] && [[ $1 != -* ]]; then device=$1; shift; fi
[ -x build/ngraphbench ] || ./setup.sh
exec build/ngraphbench run "$experiment" "$compiler" --device "$device" "$@"
