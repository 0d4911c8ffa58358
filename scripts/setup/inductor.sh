# Sourced by setup.sh. `inductor` (TorchInductor ahead of time): the same torch wheel as
# `identity` (its LibTorch runs the .pt2 packages; its Python stack compiles them) plus onnx2torch,
# which src/ngraphbench/compilers/inductor/inductor_compile.py uses to turn the benchmark's ONNX models into a
# torch.nn.Module. Uses $PY and setup.sh's pip_install; appends to CMAKE_ARGS; returns 1 when it
# cannot (setup.sh then passes NGB_WITH_INDUCTOR=AUTO instead of ON).
#
# onnx2torch requires torchvision, which pip would otherwise resolve to a torch it likes: it is
# pinned to the release paired with torch 2.13.0 (as scripts/setup/timm.sh does). PyPI's
# torchvision is CUDA-built; the compile script copes with its C++ ops not loading.
INDUCTOR_ONNX2TORCH_VERSION=1.5.15
INDUCTOR_TORCHVISION_VERSION=0.28.0  # the release paired with torch 2.13.0
# torchao holds PT2E's quantizers and prepare/convert (precision int8); 0.18.0 is the release
# executorch 1.5.1 brings, so both compilers quantize with the same one.
INDUCTOR_TORCHAO_VERSION=0.18.0

# setup_libtorch (torch==2.13.0 and -DTorch_DIR) is identity.sh's.
if ! declare -F setup_libtorch >/dev/null; then
  source "$(dirname "${BASH_SOURCE[0]}")/identity.sh"
fi

setup_inductor() {
  setup_libtorch || return 1
  pip_install "torchvision==$INDUCTOR_TORCHVISION_VERSION" \
    "onnx2torch==$INDUCTOR_ONNX2TORCH_VERSION" onnx==1.23.2 || {
    echo "inductor: pip install onnx2torch==$INDUCTOR_ONNX2TORCH_VERSION into $VENV failed" >&2
    return 1
  }
  # Without it fp32 still compiles; int8 then fails naming the missing module.
  pip_install "torchao==$INDUCTOR_TORCHAO_VERSION" ||
    echo "inductor: pip install torchao==$INDUCTOR_TORCHAO_VERSION failed: precision int8 will" \
      "fail naming it" >&2
  # Inductor compiles its kernels with the host's C++ compiler while packaging.
  if ! command -v "${CXX:-c++}" >/dev/null 2>&1 && ! command -v g++ >/dev/null 2>&1; then
    echo "inductor: no C++ compiler (Inductor builds its CPU kernels with one)" >&2
    return 1
  fi
  CMAKE_ARGS+=("-DNGB_INDUCTOR_PYTHON=$PY")
}
