# ONNX Runtime: the library from the onnxruntime wheel; the C/C++ headers from Debian trixie's
# libonnxruntime-dev, extracted only (its library needs a newer glibc than Debian 12 has).
ORT_VERSION=1.32.0

# Returns 1 when a step fails: setup.sh runs this inside `if`, where `set -e` does not apply,
# and passes -DNGB_WITH_ONNXRUNTIME=ON only for a set-up that succeeded.
setup_onnxruntime() {
  pip_install "onnxruntime==$ORT_VERSION" || return 1
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
