# Sourced by setup.sh. Apache TVM (Relax) from PyPI: the apache-tvm wheel holds the Python
# compiler stack and libtvm_runtime.so, apache-tvm-ffi the C++ headers and libtvm_ffi.so.
# Uses $PY; appends to CMAKE_ARGS; returns 1 when this device cannot have TVM (setup.sh then
# passes NGB_WITH_TVM=AUTO instead of ON).

TVM_VERSION=0.27.0.post1
# apache-tvm 0.27.0.post1 accepts apache-tvm-ffi>=0.1.14.post0, but with 0.1.15.x
# tvm.ir.save_json (and so every MetaSchedule tuning database) segfaults: keep 0.1.14.
TVM_FFI_VERSION=0.1.14.post1

setup_tvm() {
  if [ "$(uname -m)" != x86_64 ] && [ "$(uname -m)" != aarch64 ]; then
    echo "tvm: no apache-tvm wheel for $(uname -m)" >&2
    return 1
  fi
  # MetaSchedule: xgboost (its default cost model; the -cpu build avoids CUDA libraries), psutil
  # and cloudpickle (its builder and runner process pools).
  pip_install "apache-tvm==$TVM_VERSION" "apache-tvm-ffi==$TVM_FFI_VERSION" \
    xgboost-cpu==3.2.0 scipy==1.17.1 psutil==7.2.2 cloudpickle==3.1.2 onnx==1.23.2 ||
    { echo "tvm: pip install apache-tvm==$TVM_VERSION into $VENV failed" >&2; return 1; }
  # setup.sh adds -DNGB_WITH_TVM=ON: a wheel that CMake cannot use is a configure error.
  CMAKE_ARGS+=("-DNGB_TVM_PYTHON=$PY")
}
