# `identity` (PyTorch eager baseline): LibTorch from the CPU torch wheel. The wheel carries
# LibTorch's headers, libraries and CMake config (torch.utils.cmake_prefix_path). Pinned: an
# unpinned torch would pull a multi-GB CUDA build.
#
# With ./setup.sh --gpu (GPU=1) the CUDA build of the same release instead: on PyPI the plain
# Linux x86_64 wheel `torch-2.13.0` is that build (CUDA 13, pulling nvidia-*-cu13 wheels), while
# the CPU one carries the local version `2.13.0+cpu`. `torch==2.13.0` matches both and pip
# prefers the `+cpu` one wherever it can see it (a find-links folder or the PyTorch CPU index),
# since a local version sorts above its public one; `torch===2.13.0` (arbitrary equality: the
# exact string) matches only the public CUDA wheel.
TORCH_PIN=2.13.0

# The requirement and the python test that the installed torch satisfies it.
torch_requirement() {
  if [ "${GPU:-0}" -eq 1 ]; then echo "torch===$1"; else echo "torch==$1"; fi
}
torch_is() {
  local cuda_test=""
  [ "${GPU:-0}" -eq 0 ] || cuda_test=" or torch.version.cuda is None"
  "$PY" -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '$1'$cuda_test)" 2>/dev/null
}

# Shared with scripts/setup/torchscript.sh.
setup_libtorch() {
  if ! torch_is "$TORCH_PIN"; then
    pip_install "$(torch_requirement "$TORCH_PIN")" || {
      echo "identity/torchscript: cannot install $(torch_requirement "$TORCH_PIN") into $VENV" >&2
      return 1
    }
  fi
  local prefix
  prefix=$("$PY" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)') || return 1
  if [ ! -f "$prefix/Torch/TorchConfig.cmake" ]; then
    echo "identity/torchscript: the torch wheel has no $prefix/Torch/TorchConfig.cmake" >&2
    return 1
  fi
  CMAKE_ARGS+=(-DTorch_DIR="$prefix/Torch")
}

setup_identity() {
  setup_libtorch
}
