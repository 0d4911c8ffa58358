#!/usr/bin/env bash
# ./run.sh <experiment> <compiler> [device] [--quick] [more `ngraphbench run` options]
# Runs one experiment with one compiler; rows go to results/<device>/<compiler>/. Builds
# everything first (./setup.sh) when the build is missing.
set -euo pipefail
cd "$(dirname "$0")"
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  cat <<'EOF'
usage: ./run.sh <experiment> <compiler>[,<compiler>...] [device] [options]
  experiment  a name in configs/experiments.yaml (build/ngraphbench list), a path to an .onnx
              file, or a PyTorch model: timm:<name> or <file>.py:<function> with --input-shape
  compiler    one or more, comma-separated (build/ngraphbench list --compilers)
  device      the label rows are filed under: results/<device>/<compiler>/ (default: local)
options (those of `ngraphbench run`; build/ngraphbench run --help lists them all):
  --quick               batch sizes 1 and 8, a 5 s cap: a smoke run
  --set KEY=VALUE       a setting over the YAML, repeatable: threads=1, warmup=5,
                        precision=bf16, options.<key>=..., openvino.threads=2 for one compiler
  --jobs N              N workers at once, each on its own CPUs
  --results DIR         the results root (default: results)
  --retry-failed        measure again the runs whose row is not ok
Exit codes: 0 every row ok, 1 some rows not ok, 2 bad input (nothing run), 3 the environment
failed (disk full, results not writable), 130/143 interrupted (the same command resumes).
The first run builds everything (./setup.sh).
EOF
  exit 0
fi
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
