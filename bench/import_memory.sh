#!/usr/bin/env bash
# bench/import_memory.sh [MiB]: peak RSS of `ngraphbench run <model> null` on large .onnx files,
# as a multiple of the file's size. The files (default 1024 MiB of weights each):
#   random      random bytes named .onnx (refused: not a ModelProto)
#   unused      a valid one-Relu model carrying one unused float32 initializer of that size
#   used        a valid model adding that initializer's mean to its input (imported and run)
#   capped      `used` again with NGRAPHBENCH_MAX_TENSOR_MB set below its size (refused)
# Needs the .venv's onnx and numpy (./setup.sh installs them). NGB_BIN overrides build/ngraphbench.
set -euo pipefail
cd "$(dirname "$0")/.."
MIB=${1:-1024}
BIN=$(realpath "${NGB_BIN:-build/ngraphbench}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

.venv/bin/python - "$tmp" "$MIB" <<'EOF'
import os, sys
import numpy as np
import onnx
from onnx import TensorProto, helper

out, mib = sys.argv[1], int(sys.argv[2])
n = mib * (1 << 20) // 4
with open(os.path.join(out, "random.onnx"), "wb") as f:
    for _ in range(mib):
        f.write(os.urandom(1 << 20))

def model(name, used):
    w = helper.make_tensor("w", TensorProto.FLOAT, [n], np.ones(n, np.float32).tobytes(), raw=True)
    # Small inputs and outputs, so that the weight dominates: y = x + mean(w), or y = relu(x).
    if used:
        nodes = [helper.make_node("ReduceMean", ["w"], ["m"], axes=[0], keepdims=1),
                 helper.make_node("Add", ["x", "m"], ["y"])]
    else:
        nodes = [helper.make_node("Relu", ["x"], ["y"])]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])
    g = helper.make_graph(nodes, name, [x], [y], [w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())

model("unused", False)
model("used", True)
EOF

printf '%-8s %10s %10s %7s %5s  %s\n' file file_MB peak_MB ratio exit first_line
measure() {  # measure <label> <file> [env...]
  local label=$1 file=$2; shift 2
  local code=0
  env "$@" /usr/bin/time -f "%M" -o "$tmp/time" "$BIN" run "$file" null --device d \
    --quick --results "$tmp/results-$label" >"$tmp/out" 2>&1 || code=$?
  local rss_kb size
  rss_kb=$(tail -1 "$tmp/time")
  size=$(stat -c %s "$file")
  awk -v l="$label" -v s="$size" -v r="$rss_kb" -v c="$code" -v f="$(grep -v '^$' "$tmp/out" | grep -v '^Command' | head -1 | sed "s|$tmp/||g" | cut -c1-110)" \
    'BEGIN { printf "%-8s %10.1f %10.1f %7.2f %5s  %s\n", l, s / 1048576, r / 1024, r * 1024 / s, c, f }'
}
measure random "$tmp/random.onnx"
measure unused "$tmp/unused.onnx"
measure used "$tmp/used.onnx"
measure capped "$tmp/used.onnx" NGRAPHBENCH_MAX_TENSOR_MB=$((MIB / 2))
