# ONNX Runtime: the library from the onnxruntime wheel; the C/C++ headers from Debian trixie's
# libonnxruntime-dev, extracted only (its library needs a newer glibc than Debian 12 has).
ORT_VERSION=1.32.0
# With ./setup.sh --gpu (GPU=1): onnxruntime-gpu, which installs the same `onnxruntime` Python
# package (so the one is uninstalled before the other). PyPI has no onnxruntime-gpu 1.32.0: the
# newest is 1.31.1. Its wheel is built for CUDA 13 (libcudart.so.13, libcublas.so.13,
# libcudnn.so.9; the extras [cuda,cudnn] pull those nvidia-* wheels) and its TensorRT provider
# for TensorRT 10 (NEEDED libnvinfer.so.10, libnvonnxparser.so.10): tensorrt-cu13-libs 10.x, not
# 11.x. Our headers (API version 21) work with either library.
ORT_GPU_VERSION=1.31.1
ORT_TENSORRT_LIBS=tensorrt-cu13-libs==10.16.1.11

# Returns 1 when a step fails: setup.sh runs this inside `if`, where `set -e` does not apply,
# and passes -DNGB_WITH_ONNXRUNTIME=ON only for a set-up that succeeded.
setup_onnxruntime() {
  if [ "${GPU:-0}" -eq 1 ]; then
    setup_onnxruntime_gpu || return 1
  else
    # A venv set up with --gpu before: the two wheels share the onnxruntime package folder.
    if "$PY" -m pip show -q onnxruntime-gpu >/dev/null 2>&1; then
      say "uninstalling onnxruntime-gpu (set up with --gpu before)"
      "$PY" -m pip uninstall -q -y onnxruntime-gpu onnxruntime || return 1
    fi
    pip_install "onnxruntime==$ORT_VERSION" || return 1
  fi
  local lib
  lib=$("$PY" -c 'import glob, os, onnxruntime; print(sorted(glob.glob(os.path.join(os.path.dirname(onnxruntime.__file__), "capi", "libonnxruntime.so.*")))[-1])') ||
    { echo "onnxruntime: the wheel in $VENV has no capi/libonnxruntime.so.*" >&2; return 1; }
  local inc=$DEPS/onnxruntime/include
  if [ ! -f "$inc/onnxruntime_cxx_api.h" ]; then
    say "extracting ONNX Runtime headers from Debian trixie's libonnxruntime-dev"
    local apt=$DEPS/apt-trixie
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/deb"
    echo "deb http://deb.debian.org/debian trixie main" >"$apt/sources.list"
    local o=(-oDir::Etc::SourceList="$apt/sources.list" -oDir::Etc::SourceParts=/dev/null
             -oDir::State::Lists="$apt/lists" -oDir::Cache="$apt/cache" -oAPT::Sandbox::User=root
             -oDebug::NoLocking=1)
    { apt-get "${o[@]}" update -qq &&
      (cd "$apt/deb" && apt-get "${o[@]}" download libonnxruntime-dev) &&
      rm -rf "$apt/x" && dpkg-deb -x "$apt"/deb/libonnxruntime-dev_*.deb "$apt/x" &&
      mkdir -p "$inc" && cp -r "$apt/x/usr/include/onnxruntime/." "$inc/"; } ||
      { echo "onnxruntime: cannot extract the headers from trixie's libonnxruntime-dev" >&2
        rm -rf "$apt/x"; return 1; }
    rm -rf "$apt/x"
  fi
  CMAKE_ARGS+=(-DNGB_ORT_LIBRARY="$lib" -DNGB_ORT_INCLUDE_DIR="$inc")
}

setup_onnxruntime_gpu() {
  if [ "$("$PY" -m pip show onnxruntime-gpu 2>/dev/null | awk '/^Version:/{print $2}')" != "$ORT_GPU_VERSION" ]; then
    if "$PY" -m pip show -q onnxruntime >/dev/null 2>&1; then
      say "uninstalling onnxruntime (the CPU wheel) for onnxruntime-gpu"
      "$PY" -m pip uninstall -q -y onnxruntime || return 1
    fi
    say "pip install onnxruntime-gpu[cuda,cudnn]==$ORT_GPU_VERSION"
    "$PY" -m pip install -q "onnxruntime-gpu[cuda,cudnn]==$ORT_GPU_VERSION" || return 1
  fi
  # TensorRT's libraries (site-packages/tensorrt_libs/) for the TensorRT provider. On PyPI
  # tensorrt-cu13-libs is a stub (wheel-stub) whose build fetches the wheel from pypi.nvidia.com:
  # without that host, the CUDA provider still works and only TensorRT is missing.
  pip_install "$ORT_TENSORRT_LIBS" ||
    say "onnxruntime: $ORT_TENSORRT_LIBS not installed (its wheel comes from pypi.nvidia.com); the TensorRT provider will not load"
}
