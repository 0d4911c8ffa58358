# Sourced by setup.sh. python/export_timm.py (timm's own definitions of the Table IV models, to
# ONNX) needs timm and its torchvision import, and onnx for the exporter and checker. Not a
# compiler: it adds no CMake flags. Uses $PY and setup.sh's pip_install.
#
# torch is pinned first: torchvision requires torch==2.13.0, and with no torch in the venv pip
# would satisfy that with the multi-GB CUDA build. PyPI's torchvision 0.28.0 is that CUDA build's
# companion, so its C++ ops do not load with the CPU torch; export_timm.py copes (see
# import_timm there), and timm needs none of those ops.
#
# onnxscript (and its onnx-ir) is what torch.onnx.export(..., dynamo=True), the torch.export-based
# exporter, builds its graph with; python/export_corpus.py uses both exporters. 0.7.2 is the newest
# on PyPI and accepts onnx 1.23.2 (onnx>=1.17, onnx_ir<2).

TIMM_VERSION=1.0.31
TIMM_TORCH_VERSION=2.13.0        # the same pin as scripts/setup/identity.sh
TIMM_TORCHVISION_VERSION=0.28.0  # the release paired with torch 2.13.0
TIMM_ONNXSCRIPT_VERSION=0.7.2    # torch.onnx's dynamo=True exporter
TIMM_ONNX_IR_VERSION=1.1.0       # onnxscript's IR (onnx_ir<2)

# torch_requirement and torch_is (the CPU or, with --gpu, the CUDA build) are identity.sh's.
if ! declare -F torch_is >/dev/null; then
  source "$(dirname "${BASH_SOURCE[0]}")/identity.sh"
fi

setup_timm() {
  if ! torch_is "$TIMM_TORCH_VERSION"; then
    pip_install "$(torch_requirement "$TIMM_TORCH_VERSION")" || {
      echo "timm: cannot install $(torch_requirement "$TIMM_TORCH_VERSION") into $VENV" >&2
      return 1
    }
  fi
  pip_install "torchvision==$TIMM_TORCHVISION_VERSION" "timm==$TIMM_VERSION" \
    huggingface_hub==2.4.0 safetensors==0.8.0 pyyaml==6.0.4 onnx==1.23.2 \
    "onnxscript==$TIMM_ONNXSCRIPT_VERSION" "onnx-ir==$TIMM_ONNX_IR_VERSION" || {
    echo "timm: pip install timm==$TIMM_VERSION and its dependencies into $VENV failed" >&2
    return 1
  }
}
