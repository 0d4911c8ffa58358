# Sourced by setup.sh. `executorch` (PyTorch's on-device runtime with its XNNPACK backend): the
# executorch wheel from PyPI holds both halves, the Python lowering that
# src/ngraphbench/compilers/executorch/executorch_compile.py runs (torch.export, edge dialect,
# XNNPACK partitioner, .pte) and the C++ runtime the module links (headers, libexecutorch*.so
# and the CMake package in <site-packages>/executorch/lib/cmake/executorch, which the module's
# CMakeLists.txt finds from the python given here). The compile script converts ONNX with
# onnx2torch exactly as inductor's does, so it needs inductor's onnx2torch and torchvision pins.
# Uses $PY and setup.sh's pip_install; appends to CMAKE_ARGS; returns 1 when it cannot
# (setup.sh then passes NGB_WITH_EXECUTORCH=AUTO instead of ON).
#
# executorch 1.5.1 does not pin torch (nor does its torchao 0.18), and lowers and runs with the
# torch 2.13.0 that identity.sh pins: checked with `pip install --dry-run executorch==1.5.1` on
# the full .venv (it adds its own dependencies: torchao, coremltools, pandas, scikit-learn,
# hydra-core, ...; it changes none of the installed packages).
EXECUTORCH_VERSION=1.5.1

# torch_is, torch_requirement and TORCH_PIN are identity.sh's; the onnx2torch and torchvision
# pins inductor.sh's (which sources identity.sh).
if ! declare -F setup_inductor >/dev/null; then
  source "$(dirname "${BASH_SOURCE[0]}")/inductor.sh"
fi

setup_executorch() {
  # torch first: with no torch in the venv, torchvision's requirement would pull the CUDA build.
  if ! torch_is "$TORCH_PIN"; then
    pip_install "$(torch_requirement "$TORCH_PIN")" || {
      echo "executorch: cannot install $(torch_requirement "$TORCH_PIN") into $VENV" >&2
      return 1
    }
  fi
  pip_install "executorch==$EXECUTORCH_VERSION" "torchvision==$INDUCTOR_TORCHVISION_VERSION" \
    "onnx2torch==$INDUCTOR_ONNX2TORCH_VERSION" onnx==1.23.2 || {
    echo "executorch: pip install executorch==$EXECUTORCH_VERSION into $VENV failed" >&2
    return 1
  }
  # setup.sh adds -DNGB_WITH_EXECUTORCH=ON: a wheel that CMake cannot use is a configure error.
  CMAKE_ARGS+=("-DNGB_EXECUTORCH_PYTHON=$PY")
}
