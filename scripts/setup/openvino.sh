# OpenVINO: the `openvino` wheel carries the C++ headers, libraries, plugins and CMake config
# (and benchmark_app, which bench/openvino_vs_benchmark_app.sh compares against). Its CMake
# config sets _GLIBCXX_USE_CXX11_ABI=1, the same ABI as the rest of the build.
OPENVINO_VERSION=2026.4.1
NNCF_VERSION=3.4.0

setup_openvino() {
  case "$(uname -m)" in
    x86_64 | aarch64) ;;
    *) echo "openvino: no openvino wheel for $(uname -m)" >&2; return 1 ;;
  esac
  pip_install "openvino==$OPENVINO_VERSION" || return 1
  # NNCF: precision int8's post-training quantization (compilers/openvino/ov_quantize.py). Without
  # it fp32, bf16 and fp16 still run; an int8 row ends as an error naming the missing module.
  pip_install "nncf==$NNCF_VERSION" ||
    echo "openvino: nncf==$NNCF_VERSION did not install: precision int8 will not quantize" >&2
  local cmake_dir
  cmake_dir=$("$PY" -c "from openvino.utils import get_cmake_path; print(get_cmake_path())") || {
    echo "openvino: the wheel in $VENV has no CMake config (openvino.utils.get_cmake_path)" >&2
    return 1
  }
  # setup.sh adds -DNGB_WITH_OPENVINO=ON: a wheel that CMake cannot use is a configure error.
  CMAKE_ARGS+=(-DOpenVINO_DIR="$cmake_dir")
}
