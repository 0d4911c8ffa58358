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
# ./setup.sh --gpu lists the CUDA wheels' library folders (onnxruntime-gpu's providers dlopen
# libcudnn, libnvinfer ... by name).
if [ -f .deps/gpu-libs.txt ]; then
  LD_LIBRARY_PATH=$(paste -sd: .deps/gpu-libs.txt)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export LD_LIBRARY_PATH
fi
exec build/ngraphbench run "$experiment" "$compiler" --device "$device" "$@"
