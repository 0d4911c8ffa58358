#!/usr/bin/env bash
# CTest's corpus_subset: a model shaped like the corpus of users' models' vision transformers
# (timm's test_vit: timm's VisionTransformer with a class token, whose exporters compute its
# shape at run time, as they do for the corpus's vit_tiny_patch16_224, with the same operators
# at 6 blocks of width 64 instead of 12 of 192, which halves the slow compilers' compile times;
# convolutional timm models go through every compiler in CTest torch_models), written by both
# of PyTorch's exporters (python/export_corpus.py), through every built CPU compiler at batch 1
# (bench/corpus.sh). Every cell must be ok, with outputs within 1e-4 of ONNX Runtime on the
# original file. The whole corpus (18 models, about an hour with tvm) is bench/corpus.sh's job.
#
#   corpus_subset.sh <source dir> <ngraphbench binary>
#
# Exits 77 (CTest: skipped, with the reason printed) only when the venv lacks timm, onnxscript
# or onnxruntime, i.e. ./setup.sh did not install them.
set -uo pipefail
ROOT=$1
BIN=$2
PY=$ROOT/.venv/bin/python
MODELS=(test_vit)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! "$PY" -c "import sys; sys.path.insert(0, '$ROOT/python'); import export_timm, onnx, \
onnxruntime, onnxscript; export_timm.import_timm()" >/dev/null 2>&1; then
  echo "corpus_subset: skipped: timm, onnx, onnxscript or onnxruntime is not importable from $PY (./setup.sh installs them)"
  exit 77
fi
if ! "$PY" "$ROOT/python/export_corpus.py" -o "$tmp/corpus" "${MODELS[@]}" >"$tmp/export.log" 2>&1; then
  cat "$tmp/export.log"
  echo "corpus_subset: FAILED: export_corpus.py"
  exit 1
fi
grep -E '^[a-z0-9_]+\.(torchscript|dynamo)\.onnx:|exported' "$tmp/export.log"
# glibc fills every allocation with garbage (and freed memory too): a compiled kernel that reads
# memory it never wrote gives garbage outputs, instead of zeros or old values that might pass.
MALLOC_PERTURB_=165 NGB_BIN=$BIN CORPUS_RESULTS=$tmp/results "$ROOT/bench/corpus.sh" \
  "$tmp/corpus" >"$tmp/table" 2>&1
status=$?
cat "$tmp/table"
[ "$status" -eq 0 ] || { echo "corpus_subset: FAILED: bench/corpus.sh exited $status"; exit 1; }

files=$((${#MODELS[@]} * 2))
read -r ok all < <(sed -n 's|^ok cells / all cells: \([0-9]*\) / \([0-9]*\)$|\1 \2|p' "$tmp/table")
read -r close dumped < <(sed -n 's|^outputs within 1e-4 of ONNX Runtime on the original file: \([0-9]*\) / \([0-9]*\) dumped$|\1 \2|p' "$tmp/table")
fail=0
if [ -z "${all:-}" ] || [ "$all" -lt "$files" ] || [ $((all % files)) -ne 0 ]; then
  echo "corpus_subset: FAILED: expected ${files} files x every built compiler, got '${all:-no table}' cells"
  fail=1
elif [ "$ok" -ne "$all" ]; then
  echo "corpus_subset: FAILED: $ok of $all cells are ok"
  fail=1
fi
if [ -z "${dumped:-}" ] || [ "$dumped" -ne "${all:-0}" ] || [ "$close" -ne "$dumped" ]; then
  echo "corpus_subset: FAILED: ${close:-?} of ${dumped:-?} dumped outputs within 1e-4 of ONNX Runtime (expected all $all cells dumped and within)"
  fail=1
fi
[ "$fail" -eq 0 ] && echo "corpus_subset: $ok / $all cells ok, all within 1e-4 of ONNX Runtime on the original file"
exit "$fail"
