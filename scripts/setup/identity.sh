# `identity` (PyTorch eager baseline): LibTorch from the CPU torch wheel. The wheel carries
# LibTorch's headers, libraries and CMake config (torch.utils.cmake_prefix_path). Pinned: an
# unpinned torch would pull a multi-GB CUDA build.
TORCH_PIN=2.13.0

# Shared with scripts/setup/torchscript.sh.
setup_libtorch() {
  if ! "$PY" -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '$TORCH_PIN')" \
      2>/dev/null; then
    pip_install "torch==$TORCH_PIN" || {
      echo "identity/torchscript: cannot install torch==$TORCH_PIN into $VENV" >&2
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
