#!/usr/bin/env bash
# Installs everything ngraphbench needs on Debian 12 and builds it. Safe to run again: steps
# that are already done are skipped.
#
#   ./setup.sh                       every compiler this device can run
#   ./setup.sh --compilers a,b       only these compilers (the null compiler is always built)
#   ./setup.sh --no-build            install only
#   ./setup.sh --gpu                 the SDKs' CUDA builds (the default when `nvidia-smi -L` lists a
#                                    GPU): torch's CUDA wheel, onnxruntime-gpu and TensorRT's
#                                    libraries, all from PyPI; .deps/gpu-libs.txt then lists their
#                                    library folders, which run.sh and sweep.sh add to
#                                    LD_LIBRARY_PATH
#   ./setup.sh --cpu                 the CPU builds even where there is a GPU
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD
VENV=$ROOT/.venv
PY=$VENV/bin/python
DEPS=$ROOT/.deps
BUILD=$ROOT/build

want=""
build=1
GPU=auto
while [ $# -gt 0 ]; do
  case "$1" in
    --compilers) want=${2:?--compilers needs a comma-separated list}; shift 2 ;;
    --compilers=*) want=${1#*=}; shift ;;
    --no-build) build=0; shift ;;
    --gpu) GPU=1; shift ;;
    --cpu) GPU=0; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown argument '$1' (expected --compilers a,b, --no-build, --gpu or --cpu)" >&2
       exit 2 ;;
  esac
done
if [ "$GPU" = auto ]; then
  GPU=0
  if nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then GPU=1; fi
fi

say() { echo "setup: $*" >&2; }
[ "$GPU" -eq 0 ] || say "GPU set-up: the SDKs' CUDA builds (--cpu for the CPU ones)"

# 1. Debian packages.
debs=(cmake g++ ninja-build pkg-config python3-venv libonnx-dev libprotobuf-dev protobuf-compiler
      libyaml-cpp-dev libcli11-dev libfmt-dev nlohmann-json3-dev libgtest-dev libbenchmark-dev
      libzip-dev zip unzip  # zip, unzip: scripts/make_traces.sh and its test
      clang libclang-rt-14-dev  # clang: the fuzz targets (scripts/fuzz.sh)
      libboost-math-dev  # header-only: Student's t for the between-process intervals
      chromium chromium-driver)  # tests/report/report_browser_test.py loads report.html in it
missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Slurm and munge for the tests that start a private single-node cluster (tests/slurm/
# cluster.sh): daemons, client commands and munge, 8 packages and about 13 MB installed.
# Installed without recommends: slurm-wlm (the metapackage) and slurm-wlm-basic-plugins'
# recommends would bring 35 more (HDF5, ROCm SMI, RRD, InfluxDB... plugins). The packages'
# own services go unused (where systemd runs, munge's starts on its own socket, harmless, and
# slurmd's and slurmctld's start only once /etc/slurm/slurm.conf exists: none is written).
slurm_debs=(slurmctld slurmd slurm-client munge)
missing_slurm=()
for p in "${slurm_debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing_slurm+=("$p")
done
if [ ${#missing[@]} -gt 0 ] || [ ${#missing_slurm[@]} -gt 0 ]; then
  say "installing Debian packages: ${missing[*]} ${missing_slurm[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  [ ${#missing[@]} -eq 0 ] ||
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  [ ${#missing_slurm[@]} -eq 0 ] ||
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
      "${missing_slurm[@]}" >/dev/null
fi

# 2. The Python environment that holds the compiler SDKs from PyPI.
if [ ! -x "$PY" ]; then
  say "creating $VENV"
  python3 -m venv "$VENV"
fi
pip_install() {  # pip_install <pinned requirement>... ; skips what is already installed
  # One interpreter asks for every version at once (a `pip show` each costs seconds).
  local need=()
  mapfile -t need < <("$PY" - "$@" <<'EOF'
import re, sys
from importlib import metadata
for req in sys.argv[1:]:
    name, version = re.split(r"[=<>\[]", req, maxsplit=1)[0], req.rsplit("==", 1)[-1]
    try:
        if metadata.version(name) == version:
            continue
    except metadata.PackageNotFoundError:
        pass
    print(req)
EOF
  )
  # pip compiles every module at install: where PYTHONDONTWRITEBYTECODE is set (as it is on
  # these VMs), modules it left uncompiled would be compiled again on every import.
  [ ${#need[@]} -eq 0 ] || { say "pip install ${need[*]}"; "$PY" -m pip install -q "${need[@]}"; }
}
pip_install numpy==2.4.6
mkdir -p "$DEPS"

# 3. Compiler SDKs: one script per compiler in scripts/setup/.
# A compiler whose SDK was set up is passed as -DNGB_WITH_<NAME>=ON: CMake then fails if it
# cannot build it, and the tests fail rather than skip without it. Every other compiler is
# passed as AUTO, so that an ON left in build/'s cache by an earlier run does not outlive it.
CMAKE_ARGS=()
built=()
for script in scripts/setup/*.sh; do
  name=$(basename "$script" .sh)
  # shellcheck source=/dev/null
  source "$script"
  declare -F "setup_$name" >/dev/null || continue
  compiler=0; [ -d "src/ngraphbench/compilers/$name" ] && compiler=1
  with=AUTO
  # report.sh (the report's plotting library) is not a compiler: always installed.
  if [ "$name" != report ] && [ -n "$want" ] && [[ ",$want," != *",$name,"* ]]; then
    :
  elif "setup_$name"; then
    built+=("$name"); with=ON
  else
    say "skipping $name (not available on this device)"
  fi
  [ "$compiler" -eq 0 ] || CMAKE_ARGS+=("-DNGB_WITH_${name^^}=$with")
done

# The library folders of the CUDA wheels (nvidia-*, tensorrt_libs): onnxruntime-gpu's CUDA and
# TensorRT providers dlopen libcudart, libcudnn, libnvinfer.so.10 ... by name, which Python finds
# through onnxruntime.preload_dlls() but our C++ worker only through LD_LIBRARY_PATH.
GPU_LIBS=$DEPS/gpu-libs.txt
if [ "$GPU" -eq 1 ]; then
  "$PY" - >"$GPU_LIBS" <<'EOF'
import glob, os, site
for sp in site.getsitepackages():
    dirs = glob.glob(os.path.join(sp, "nvidia", "*", "lib"))
    dirs += glob.glob(os.path.join(sp, "nvidia", "*", "*", "lib"))  # e.g. nvidia/cu13/lib
    dirs += [os.path.join(sp, "tensorrt_libs")]
    for d in sorted(set(dirs)):
        if glob.glob(os.path.join(d, "*.so*")):
            print(d)
EOF
  say "GPU libraries: $(wc -l <"$GPU_LIBS") folders listed in $GPU_LIBS"
else
  rm -f "$GPU_LIBS"
fi

# 4. Configure and build.
if [ "$build" -eq 1 ]; then
  gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
  if [ -f "$BUILD/CMakeCache.txt" ] && ! grep -q "CMAKE_GENERATOR:INTERNAL=${gen[1]:-Unix Makefiles}" "$BUILD/CMakeCache.txt"; then
    rm -rf "$BUILD"
  fi
  cmake -S "$ROOT" -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release "${CMAKE_ARGS[@]}" >"$DEPS/configure.log" ||
    { cat "$DEPS/configure.log" >&2; exit 1; }
  grep -A20 "ngraphbench .* compilers:" "$DEPS/configure.log" | sed -n '1,20p' | grep -- "--" >&2 || true
  cmake --build "$BUILD" -j"$(nproc)"
  say "built $BUILD/ngraphbench (SDKs set up: ${built[*]:-none})"
fi
