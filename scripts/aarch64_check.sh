#!/usr/bin/env bash
# ngraphbench on aarch64, checked on this x86-64 machine under qemu-user emulation (docs/hardware.md,
# "aarch64"). Not part of ./test.sh: it downloads about 600 MB of aarch64 wheels once (3.7 GB more
# with inductor), and its first build takes tens of minutes on a small machine.
#
#   scripts/aarch64_check.sh [--compilers identity,torchscript,onnxruntime,openvino,tvm,inductor,
#                            executorch]
#                            [--widths 16,32,64] [--jobs N] [--cpu neoverse-n1] [--no-unit-tests]
#
# 1. Which pinned SDK wheel (scripts/setup/*.sh) PyPI has for manylinux aarch64 and CPython 3.11
#    (Debian 12's): a table, per compiler.
# 2. An arm64 Debian 12 root (debootstrap --foreign: downloaded and unpacked natively, no second
#    stage), cached in $NGB_ARM64_ROOT: the sysroot of the cross build and the libraries the
#    emulated programs load.
# 3. A cross build with aarch64-linux-gnu-g++ against that root and the wheels' libraries
#    (ONNX Runtime's libonnxruntime.so; LibTorch, its CPU half or with inductor the whole wheel;
#    OpenVINO's libraries, headers and CMake config, with its ARM CPU plugin; TVM's and tvm-ffi's
#    runtime, whose compiler runs in this host's .venv and cross compiles for aarch64;
#    ExecuTorch's runtime, whose lowering runs in this host's .venv; for inductor, whose compiler generates C++ for the CPU it runs on, the
#    root's python 3.11 with the aarch64 torch wheel and its CUDA libraries installed beside the
#    root, run under qemu, its g++ the host's cross compiler (tools/g++)), in
#    $NGB_AARCH64_DIR/build: ngraphbench, the modules
#    of the compilers asked for and of their output check's reference (onnxruntime; identity for
#    onnxruntime), and every unit test in tests/unit (those need no SDK; --no-unit-tests builds
#    and runs none).
# 4. Under qemu-user (binfmt, so that the workers ngraphbench starts are emulated too): the unit
#    tests, then `ngraphbench run conv2d <compiler> --quick --processes 1` for each compiler, with
#    the output check against the reference as always, at the widths given (the wider convs take
#    minutes per inference under emulation). Warmup and repeats are cut to 1 and 3: timings under
#    emulation mean nothing, and the tool marks every such row invalid saying so.
#
# qemu-user passes the host's /proc/cpuinfo through, which aarch64 libraries that parse it (ONNX
# Runtime's cpuinfo) cannot read: the root gets a proc/cpuinfo describing the CPU qemu emulates
# (its MIDR and HWCAPs, read by a small program run under it), which qemu serves in place of the
# host's. --cpu picks that CPU (qemu's names; default neoverse-n1: qemu's default, "max", has
# SVE2 and SME, whose emulation is several times slower).
#
# Needs root on a Debian 12 host (apt-get, binfmt_misc) and PyPI. Exit codes: 0 every unit test
# passed and every row is ok, checked and marked emulated; 1 otherwise; 3 the environment failed.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
START=$(date +%s)
ROOT=${NGB_ARM64_ROOT:-$HOME/.cache/ngraphbench/arm64-root}
DIR=${NGB_AARCH64_DIR:-/var/tmp/ngb-aarch64}
WHEELS=$DIR/wheels SDK=$DIR/sdk BUILD=$DIR/build LOGS=$DIR/logs RESULTS=$DIR/results
compilers=identity,torchscript,onnxruntime,openvino,tvm,inductor,executorch
widths=16,32,64
unit_tests=1
jobs=1
QCPU=neoverse-n1
while [ $# -gt 0 ]; do
  case "$1" in
    --compilers) compilers=${2:?--compilers needs a list}; shift 2 ;;
    --widths) widths=${2:?--widths needs a list, e.g. 16,32}; shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --cpu) QCPU=${2:?--cpu needs one of qemu-aarch64-static -cpu help}; shift 2 ;;
    --no-unit-tests) unit_tests=0; shift ;;
    -h|--help) sed -n '2,39p' "$0"; exit 0 ;;
    *) echo "aarch64_check.sh: unknown argument '$1' (expected --compilers, --widths, --jobs," \
            "--cpu, --no-unit-tests)" >&2; exit 2 ;;
  esac
done
for c in ${compilers//,/ }; do
  case "$c" in
    identity|torchscript|onnxruntime|openvino|tvm|inductor|executorch) ;;
    *) echo "aarch64_check.sh: --compilers: '$c' has no aarch64 build here (identity," \
            "torchscript, onnxruntime, openvino, tvm, inductor, executorch; docs/hardware.md" \
            "says why tensorrt does not)" >&2; exit 2 ;;
  esac
done
[[ $widths =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "aarch64_check.sh: --widths '$widths': give" \
  "widths of configs/experiments.yaml's conv2d, comma-separated, e.g. 16,32" >&2; exit 2; }
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "aarch64_check.sh: --jobs '$jobs': give a positive number" >&2; exit 2; }
[ "$(uname -m)" = x86_64 ] || { echo "aarch64_check.sh: runs on x86-64 hosts (this is $(uname -m))" >&2; exit 3; }
[ "$(id -u)" -eq 0 ] || { echo "aarch64_check.sh: needs root (apt-get, binfmt_misc)" >&2; exit 3; }
mkdir -p "$WHEELS" "$SDK" "$LOGS"
say() { echo "aarch64: $*" >&2; }
die() { echo "aarch64: $*" >&2; exit 3; }
PY=python3; [ -x "$REPO/.venv/bin/python" ] && PY=$REPO/.venv/bin/python

# --- 0. Host packages and binfmt ---------------------------------------------------------------
debs=(qemu-user-static binfmt-support g++-aarch64-linux-gnu debootstrap cmake ninja-build protobuf-compiler)
missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends "${missing[@]}" >/dev/null; } || die "apt-get install ${missing[*]} failed"
fi
# binfmt: the workers, reference children and tests that ngraphbench starts are aarch64
# programs too. The F flag (Debian's qemu-user-static sets it) keeps working in any mount tree.
if [ ! -e /proc/sys/fs/binfmt_misc/status ]; then
  mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || die "cannot mount binfmt_misc"
fi
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64 >/dev/null ||
  die "cannot register qemu-aarch64 with binfmt_misc"
grep -q '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64 || die "binfmt qemu-aarch64 is disabled"

# --- 1. Wheels ---------------------------------------------------------------------------------
# The pins, from the compilers' set-up scripts (each only defines variables and functions).
for s in identity onnxruntime openvino tvm inductor executorch; do
  # shellcheck source=/dev/null
  source "$REPO/scripts/setup/$s.sh"
done
platforms=()
for v in 2_17 2_24 2_25 2_27 2_28 2_31 2_34 2_35 2_36; do platforms+=(--platform "manylinux_${v}_aarch64"); done
platforms+=(--platform manylinux2014_aarch64)
wheel() {  # wheel <requirement>: the aarch64 wheel's file in $WHEELS, downloaded once; "" if none
  local name=${1%%=*} file
  file=$(ls "$WHEELS/${name//-/_}"-"${1##*=}"-*.whl 2>/dev/null | head -1 || true)
  if [ -z "$file" ]; then
    nice -n 19 "$PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.11 \
      "${platforms[@]}" -d "$WHEELS" "$1" >>"$LOGS/pip.log" 2>&1 || true
    file=$(ls "$WHEELS/${name//-/_}"-"${1##*=}"-*.whl 2>/dev/null | head -1 || true)
  fi
  echo "$file"
}
# PyPI's aarch64 torch is the CUDA build (grep reads the whole listing: no early exit under
# pipefail).
cuda_build() { [ "$(unzip -Z1 "$1" | grep -c '^torch/lib/libtorch_cuda\.so$')" -gt 0 ]; }
declare -A REQ=(
  [identity]="torch==$TORCH_PIN" [torchscript]="torch==$TORCH_PIN" [inductor]="torch==$TORCH_PIN"
  [onnxruntime]="onnxruntime==$ORT_VERSION" [openvino]="openvino==$OPENVINO_VERSION"
  [tvm]="apache-tvm==$TVM_VERSION" [executorch]="executorch==$EXECUTORCH_VERSION")
declare -A WHEEL=()
table="compiler     requirement                 aarch64 wheel on PyPI (cp311, manylinux)"
for c in identity torchscript onnxruntime openvino tvm inductor executorch; do
  WHEEL[$c]=$(wheel "${REQ[$c]}")
  found=${WHEEL[$c]:+$(basename "${WHEEL[$c]}")}
  case "$c:$found" in
    identity:torch*|torchscript:torch*|inductor:torch*)
      cuda_build "${WHEEL[$c]}" && found+=" (the CUDA 13 build)" ;;
  esac
  table+=$(printf '\n%-12s %-27s %s' "$c" "${REQ[$c]}" "${found:-none}")
done
echo "$table" >"$LOGS/wheels.txt"
say "wheels:"; cat "$LOGS/wheels.txt" >&2

# --- 2. The arm64 root -------------------------------------------------------------------------
ROOT_DEBS=libc6-dev,libstdc++-12-dev,libyaml-cpp-dev,libfmt-dev,nlohmann-json3-dev,libcli11-dev
ROOT_DEBS+=,libgtest-dev,libgmock-dev,libonnx-dev,libprotobuf-dev,libzip-dev,libboost-dev,libgomp1
ROOT_DEBS+=,python3  # inductor's compiling python (3.11, the wheels' cp311)
if [ "$(cat "$ROOT/.ngb-debs" 2>/dev/null)" != "$ROOT_DEBS" ]; then
  say "making the arm64 root in $ROOT (debootstrap --foreign, a few minutes)"
  rm -rf "$ROOT.tmp" && mkdir -p "$(dirname "$ROOT")"
  nice -n 19 debootstrap --arch=arm64 --foreign --variant=minbase --include="$ROOT_DEBS" bookworm \
    "$ROOT.tmp" http://deb.debian.org/debian >"$LOGS/debootstrap.log" 2>&1 ||
    die "debootstrap failed: $LOGS/debootstrap.log"
  # --foreign unpacks only the essential packages; the rest wait for a second stage run inside
  # the root. Unpacking them is all a sysroot and qemu's library prefix need.
  for d in "$ROOT.tmp"/var/cache/apt/archives/*.deb; do dpkg-deb -x "$d" "$ROOT.tmp"; done
  # Absolute links (libz.so -> /lib/...) would point at the host's files from outside the root.
  (cd "$ROOT.tmp" && find usr lib etc -type l -lname '/*' | while read -r l; do
     ln -sfn "$(realpath -sm --relative-to="$(dirname "$l")" ".$(readlink "$l")")" "$l"; done)
  echo "$ROOT_DEBS" >"$ROOT.tmp/.ngb-debs"
  rm -rf "$ROOT" && mv "$ROOT.tmp" "$ROOT"
fi
export QEMU_LD_PREFIX=$ROOT QEMU_CPU=$QCPU

# The emulated CPU's cpuinfo, served by qemu from the root in place of the host's.
mkdir -p "$DIR/tools" "$ROOT/proc"
cat >"$DIR/tools/emulated_cpuinfo.c" <<'EOF'
/* /proc/cpuinfo as an aarch64 kernel prints it for the CPU this program runs on: Features from
   AT_HWCAP and AT_HWCAP2 (the kernel's names, in its order), the MIDR_EL1 fields. */
#include <stdio.h>
#include <sys/auxv.h>
#include <unistd.h>
static const char* const kHwcap[] = {
    "fp", "asimd", "evtstrm", "aes", "pmull", "sha1", "sha2", "crc32", "atomics", "fphp",
    "asimdhp", "cpuid", "asimdrdm", "jscvt", "fcma", "lrcpc", "dcpop", "sha3", "sm3", "sm4",
    "asimddp", "sha512", "sve", "asimdfhm", "dit", "uscat", "ilrcpc", "flagm", "ssbs", "sb",
    "paca", "pacg"};
static const char* const kHwcap2[] = {
    "dcpodp", "sve2", "sveaes", "svepmull", "svebitperm", "svesha3", "svesm4", "flagm2",
    "frint", "svei8mm", "svef32mm", "svef64mm", "svebf16", "i8mm", "bf16", "dgh", "rng", "bti",
    "mte", "ecv", "afp", "rpres", "mte3", "sme", "sme_i16i64", "sme_f64f64", "sme_i8i32",
    "sme_f16f32", "sme_b16f32", "sme_f32f32", "sme_fa64", "wfxt"};
int main(void) {
  unsigned long hwcap = getauxval(AT_HWCAP), hwcap2 = getauxval(AT_HWCAP2), midr = 0;
  if (hwcap & (1UL << 11)) __asm__ volatile("mrs %0, MIDR_EL1" : "=r"(midr)); /* HWCAP_CPUID */
  for (long cpu = 0; cpu < sysconf(_SC_NPROCESSORS_ONLN); ++cpu) {
    printf("processor\t: %ld\nBogoMIPS\t: 0.00\nFeatures\t:", cpu);
    for (int bit = 0; bit < 32; ++bit) if (hwcap & (1UL << bit)) printf(" %s", kHwcap[bit]);
    for (int bit = 0; bit < 32; ++bit) if (hwcap2 & (1UL << bit)) printf(" %s", kHwcap2[bit]);
    printf("\nCPU implementer\t: 0x%02lx\nCPU architecture: 8\nCPU variant\t: 0x%lx\n"
           "CPU part\t: 0x%03lx\nCPU revision\t: %lu\n\n",
           (midr >> 24) & 0xff, (midr >> 20) & 0xf, (midr >> 4) & 0xfff, midr & 0xf);
  }
  return 0;
}
EOF
aarch64-linux-gnu-gcc -static -O1 "$DIR/tools/emulated_cpuinfo.c" -o "$DIR/tools/emulated_cpuinfo" ||
  die "cannot build tools/emulated_cpuinfo with aarch64-linux-gnu-gcc"
"$DIR/tools/emulated_cpuinfo" >"$ROOT/proc/cpuinfo.tmp" && mv "$ROOT/proc/cpuinfo.tmp" "$ROOT/proc/cpuinfo" ||
  die "cannot run an aarch64 program under qemu-user (QEMU_CPU=$QCPU)"

# --- 3. SDKs and the cross build ---------------------------------------------------------------
cmake_args=(-DNGB_WITH_TENSORRT=OFF)
# The modules built: those asked for and their output check's reference, which computes in a
# child of the run (onnxruntime; identity for onnxruntime).
modules=",$compilers,"
for c in ${compilers//,/ }; do
  if [ "$c" = onnxruntime ]; then modules+="identity,"; else modules+="onnxruntime,"; fi
done
want() { [[ $modules == *",$1,"* ]]; }
# unpack_once <what> <dir> <file> <wheel> <pattern>... [-- <wheel> <pattern>...]: each wheel's
# files matching its patterns into <dir>, unless <dir>/<file> is there; unpacked into <dir>.tmp
# and renamed into place once all are in, so that an interrupted unpack is done again.
unpack_once() {
  local what=$1 dir=$2 file=$3 wheel patterns; shift 3
  [ -f "$dir/$file" ] && return 0
  say "unpacking $what from $(basename "$1")"
  rm -rf "$dir.tmp"
  while [ $# -gt 0 ]; do
    wheel=$1 patterns=(); shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do patterns+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    unzip -q -o "$wheel" "${patterns[@]}" -d "$dir.tmp" || die "cannot unpack $(basename "$wheel")"
  done
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
}
if want onnxruntime && [ -n "${WHEEL[onnxruntime]}" ]; then
  if [ ! -f "$SDK/ort/include/onnxruntime_cxx_api.h" ]; then
    [ -f "$REPO/.deps/onnxruntime/include/onnxruntime_cxx_api.h" ] ||
      die "ONNX Runtime's headers: run ./setup.sh --compilers onnxruntime --no-build first"
    mkdir -p "$SDK/ort/include" && cp -r "$REPO/.deps/onnxruntime/include/." "$SDK/ort/include/"
  fi
  ort_lib=$(ls "$SDK"/ort/onnxruntime/capi/libonnxruntime.so.* 2>/dev/null | head -1 || true)
  if [ -z "$ort_lib" ]; then
    unzip -q -o "${WHEEL[onnxruntime]}" 'onnxruntime/capi/libonnxruntime.so*' -d "$SDK/ort"
    ort_lib=$(ls "$SDK"/ort/onnxruntime/capi/libonnxruntime.so.* | head -1)
  fi
  cmake_args+=(-DNGB_WITH_ONNXRUNTIME=ON -DNGB_ORT_LIBRARY="$ort_lib"
               -DNGB_ORT_INCLUDE_DIR="$SDK/ort/include")
else
  cmake_args+=(-DNGB_WITH_ONNXRUNTIME=OFF)
fi
# Inductor: AOTInductor generates C++ for the CPU its python runs on and compiles it there, so
# inductor_compile.py runs on the emulated CPU: the root's python 3.11 (binfmt starts it under
# qemu) with torch, torchvision and onnx2torch of the aarch64 wheels in $SDK/pyarm. PyPI's torch
# is the CUDA build, whose python module loads libtorch_cuda.so and so the CUDA libraries of its
# dependencies (they load without a GPU); nvidia-nccl-cu13==2.29.7, its pin, has no aarch64
# wheel, so 2.32.6 (the same libnccl.so.2) stands in. Its g++ is the host's cross compiler
# (tools/g++, at native speed) against the root, -march=native (a compiler's detection of the CPU
# it runs on) given as the emulated CPU.
if want inductor && [ -n "${WHEEL[inductor]}" ]; then
  PYARM=$SDK/pyarm
  if [ ! -f "$PYARM/.ngb-complete" ]; then
    say "installing the aarch64 torch, torchvision, onnx2torch and their CUDA libraries in $PYARM" \
        "(about 3.7 GB)"
    rm -rf "$PYARM.tmp"
    pip_arm=(nice -n 19 "$PY" -m pip install -q --target "$PYARM.tmp" --only-binary=:all:
             --python-version 3.11 --implementation cp "${platforms[@]}")
    { "${pip_arm[@]}" --no-deps "torch==$TORCH_PIN" "torchvision==$INDUCTOR_TORCHVISION_VERSION" \
        "onnx2torch==$INDUCTOR_ONNX2TORCH_VERSION" &&
      "${pip_arm[@]}" \
        "cuda-toolkit[cublas,cudart,cufft,cufile,cupti,curand,cusparse,nvrtc]==13.0.3" \
        nvidia-cudnn-cu13==9.20.0.48 nvidia-cusparselt-cu13==0.8.1 nvidia-nccl-cu13==2.32.6 \
        nvidia-nvshmem-cu13==3.4.5 onnx==1.23.2 "setuptools>=77.0.3" sympy networkx jinja2 fsspec \
        filelock typing-extensions numpy pillow; } >>"$LOGS/pip.log" 2>&1 ||
      die "pip install of inductor's aarch64 python packages failed: $LOGS/pip.log"
    touch "$PYARM.tmp/.ngb-complete"
    rm -rf "$PYARM" && mv "$PYARM.tmp" "$PYARM"
  fi
  cat >"$DIR/tools/g++" <<EOF
#!/bin/sh
# Written by scripts/aarch64_check.sh: g++ of the emulated aarch64 machine, the host's cross
# compiler against the arm64 root, with -march=native as the emulated CPU.
for a; do
  shift
  case "\$a" in -march=native|-mcpu=native|-mtune=native) a=-mcpu=\${QEMU_CPU:-$QCPU} ;; esac
  set -- "\$@" "\$a"
done
exec aarch64-linux-gnu-g++ --sysroot="$ROOT" "\$@"
EOF
  cat >"$DIR/tools/python-aarch64" <<EOF
#!/bin/sh
# Written by scripts/aarch64_check.sh: inductor's compiling python on the emulated aarch64
# machine (the arm64 root's python 3.11, started under qemu-user by binfmt).
PYTHONPATH=$PYARM\${PYTHONPATH:+:\$PYTHONPATH} CXX=$DIR/tools/g++ exec "$ROOT/usr/bin/python3.11" "\$@"
EOF
  chmod +x "$DIR/tools/g++" "$DIR/tools/python-aarch64"
  cmake_args+=(-DNGB_WITH_INDUCTOR=ON -DNGB_INDUCTOR_PYTHON="$DIR/tools/python-aarch64")
else
  cmake_args+=(-DNGB_WITH_INDUCTOR=OFF)
fi

if { want identity || want torchscript || want inductor; } && [ -n "${WHEEL[identity]}" ]; then
  # The modules link LibTorch's CPU half, libtorch_cpu.so and libc10.so. inductor's packages also
  # need libtorch.so, whose CUDA half loads every CUDA library: with inductor, the modules link
  # the whole wheel inductor's python has in $PYARM, as on x86-64 they link the venv's.
  if want inductor; then
    T=$PYARM/torch torch_libs="torch_all;torch_cpu;c10"
  else
    T=$SDK/torch/torch torch_libs="torch_cpu;c10"
    if [ ! -f "$T/lib/libtorch_cpu.so" ]; then
      say "unpacking LibTorch from $(basename "${WHEEL[identity]}")"
      unzip -q -o "${WHEEL[identity]}" 'torch/include/*' 'torch/lib/*' -x 'torch/lib/libtorch_cuda*' \
        'torch/lib/libtorch_nvshmem*' -d "$SDK/torch"
    fi
    # PyPI's aarch64 torch is the CUDA build: libtorch_cpu.so needs libcudart and libcupti, which
    # load without a GPU, from where its RPATH looks ($ORIGIN/../../nvidia/cu13/lib).
    if [ ! -f "$SDK/torch/nvidia/cu13/lib/libcudart.so.13" ] && cuda_build "${WHEEL[identity]}"; then
      for r in "nvidia-cuda-runtime==13.0.96" "nvidia-cuda-cupti==13.0.85"; do
        w=$(wheel "$r"); [ -n "$w" ] || die "no aarch64 wheel for $r (libtorch_cpu.so needs it)"
        unzip -q -o "$w" 'nvidia/cu13/lib/*' -d "$SDK/torch"
      done
    fi
  fi
  rpath_link="-Wl,-rpath-link,$T/lib"
  for d in "$T"/../nvidia/*/lib; do [ -d "$d" ] && rpath_link+=";-Wl,-rpath-link,$(realpath "$d")"; done
  # Its TorchConfig.cmake wants the CUDA toolkit.
  mkdir -p "$DIR/torch-cmake"
  cat >"$DIR/torch-cmake/TorchConfig.cmake" <<EOF
# Written by scripts/aarch64_check.sh: LibTorch from the aarch64 torch wheel ($torch_libs).
set(_t $T)
add_library(c10 SHARED IMPORTED)
set_target_properties(c10 PROPERTIES IMPORTED_LOCATION \${_t}/lib/libc10.so)
add_library(torch_cpu SHARED IMPORTED)
set_target_properties(torch_cpu PROPERTIES IMPORTED_LOCATION \${_t}/lib/libtorch_cpu.so)
add_library(torch_all SHARED IMPORTED)
set_target_properties(torch_all PROPERTIES IMPORTED_LOCATION \${_t}/lib/libtorch.so)
add_library(torch INTERFACE IMPORTED)
set_target_properties(torch PROPERTIES
  INTERFACE_LINK_LIBRARIES "$torch_libs"
  INTERFACE_INCLUDE_DIRECTORIES "\${_t}/include;\${_t}/include/torch/csrc/api/include"
  INTERFACE_LINK_OPTIONS "$rpath_link")
set(TORCH_LIBRARIES torch)
set(TORCH_INCLUDE_DIRS "\${_t}/include;\${_t}/include/torch/csrc/api/include")
set(Torch_VERSION $TORCH_PIN)
set(Torch_FOUND TRUE)
EOF
  cmake_args+=(-DTorch_DIR="$DIR/torch-cmake" -DCMAKE_DISABLE_FIND_PACKAGE_Torch=OFF)
  for c in identity torchscript; do
    if want $c; then cmake_args+=("-DNGB_WITH_${c^^}=ON"); else cmake_args+=("-DNGB_WITH_${c^^}=OFF"); fi
  done
else
  # Not the x86-64 torch of the venv, which CMake would find otherwise.
  cmake_args+=(-DNGB_WITH_IDENTITY=OFF -DNGB_WITH_TORCHSCRIPT=OFF -DCMAKE_DISABLE_FIND_PACKAGE_Torch=ON)
fi

# OpenVINO: its wheel carries the headers, the libraries (libopenvino.so, the ONNX frontend, the
# ARM CPU plugin, found beside libopenvino.so at run time) and the CMake config that the x86-64
# build takes from the venv's wheel.
if want openvino && [ -n "${WHEEL[openvino]}" ]; then
  OV=$SDK/openvino
  unpack_once OpenVINO "$OV" openvino/cmake/OpenVINOConfig.cmake "${WHEEL[openvino]}" \
    'openvino/cmake/*' 'openvino/include/*' 'openvino/libs/*'
  cmake_args+=(-DNGB_WITH_OPENVINO=ON -DOpenVINO_DIR="$OV/openvino/cmake")
else
  cmake_args+=(-DNGB_WITH_OPENVINO=OFF)
fi

# ExecuTorch: the module links the C++ runtime of the aarch64 wheel (headers, libexecutorch*.so,
# CMake package) and lowers with executorch_compile.py in this host's .venv, which the emulated
# worker starts as a native x86-64 program: a .pte program (XNNPACK's serialized subgraphs and
# the portable operators) does not depend on the CPU that runs it.
if want executorch && [ -n "${WHEEL[executorch]}" ]; then
  ET=$SDK/executorch
  unpack_once "ExecuTorch's runtime" "$ET" executorch/lib/cmake/executorch/executorch-config.cmake \
    "${WHEEL[executorch]}" 'executorch/lib/*' 'executorch/include/*' 'executorch/share/*' \
    'executorch/data/*' 'executorch/devtools/etdump/*'
  [ -x "$REPO/.venv/bin/python" ] ||
    die "executorch lowers with this host's .venv: run ./setup.sh --compilers executorch first"
  cmake_args+=(-DNGB_WITH_EXECUTORCH=ON -DNGB_EXECUTORCH_PYTHON="$REPO/.venv/bin/python"
               -DNGB_EXECUTORCH_RUNTIME_ROOT="$ET/executorch")
else
  cmake_args+=(-DNGB_WITH_EXECUTORCH=OFF)
fi

# TVM: the module links libtvm_runtime.so and libtvm_ffi.so of the aarch64 wheels (the headers
# are the host's, the same versions) and compiles with tvm_compile.py in this host's .venv, which
# the emulated worker starts as a native x86-64 program: told the worker's architecture, it builds
# target host for the generic aarch64 CPU and links the library with aarch64-linux-gnu-g++.
if want tvm && [ -n "${WHEEL[tvm]}" ]; then
  TV=$SDK/tvm ffi=""
  if [ ! -f "$TV/tvm_ffi/lib/libtvm_ffi.so" ]; then
    ffi=$(wheel "apache-tvm-ffi==$TVM_FFI_VERSION")
    [ -n "$ffi" ] || die "no aarch64 wheel for apache-tvm-ffi==$TVM_FFI_VERSION"
  fi
  unpack_once "TVM's runtime" "$TV" tvm_ffi/lib/libtvm_ffi.so \
    "${WHEEL[tvm]}" 'tvm/lib/libtvm_runtime.so' -- "$ffi" 'tvm_ffi/lib/libtvm_ffi.so'
  [ -x "$REPO/.venv/bin/python" ] ||
    die "tvm compiles with this host's .venv: run ./setup.sh --compilers tvm first"
  cmake_args+=(-DNGB_WITH_TVM=ON -DNGB_TVM_PYTHON="$REPO/.venv/bin/python"
               -DNGB_TVM_RUNTIME_ROOT="$TV")
else
  cmake_args+=(-DNGB_WITH_TVM=OFF)
fi

cat >"$DIR/toolchain.cmake" <<EOF
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_SYSROOT $ROOT)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static;-L;$ROOT;-cpu;$QCPU)
EOF
# A build folder configured from another checkout is started again.
if [ -f "$BUILD/CMakeCache.txt" ] &&
   ! grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$REPO" "$BUILD/CMakeCache.txt"; then
  rm -rf "$BUILD"
fi
say "configuring $BUILD"
# -O1: the emulated run checks that the code works; its timings are not kept.
nice -n 19 cmake -S "$REPO" -B "$BUILD" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$DIR/toolchain.cmake" \
  -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" \
  -DProtobuf_PROTOC_EXECUTABLE="$(command -v protoc)" "${cmake_args[@]}" >"$LOGS/configure.log" 2>&1 ||
  { tail -20 "$LOGS/configure.log" >&2; die "configure failed: $LOGS/configure.log"; }
grep -E -- "--   (identity|torchscript|onnxruntime|openvino|tvm|inductor|executorch|null):" "$LOGS/configure.log" >&2 || true
tests=()
[ "$unit_tests" -eq 0 ] ||
  mapfile -t tests < <(grep -oE "ngb_add_test\([a-z_0-9]+ SOURCES unit/" "$REPO/tests/CMakeLists.txt" |
                       sed -E 's/ngb_add_test\(([a-z_0-9]+) .*/\1/')
build_start=$(date +%s)
say "building ngraphbench and ${#tests[@]} unit tests (ninja -j$jobs, log $LOGS/build.log)"
nice -n 19 ninja -C "$BUILD" -j"$jobs" ngraphbench "${tests[@]}" >"$LOGS/build.log" 2>&1 ||
  { grep -A5 FAILED "$LOGS/build.log" | head -30 >&2; die "the aarch64 build failed: $LOGS/build.log"; }
build_s=$(( $(date +%s) - build_start ))

# --- 4. Under emulation ------------------------------------------------------------------------
test_start=$(date +%s)
passed=0 failed=0 skipped=0 failed_tests=()
for t in "${tests[@]}"; do
  # Run from the build folder as ctest does; a test's own timeout is generous under emulation.
  (cd "$BUILD" && timeout 900 "./$t" --gtest_brief=1) >"$LOGS/$t.log" 2>&1 || true
  p=$(sed -nE 's/^\[  PASSED  \] ([0-9]+) tests?.*/\1/p' "$LOGS/$t.log" | tail -1)
  f=$(sed -nE 's/^\[  FAILED  \] ([0-9]+) tests?[,.].*/\1/p' "$LOGS/$t.log" | tail -1)
  s=$(sed -nE 's/^\[  SKIPPED \] ([0-9]+) tests?[,.].*/\1/p' "$LOGS/$t.log" | tail -1)
  if [ -z "$p" ] && [ -z "$f" ]; then failed_tests+=("$t (did not finish: $LOGS/$t.log)"); failed=$((failed + 1)); continue; fi
  passed=$((passed + ${p:-0})) failed=$((failed + ${f:-0})) skipped=$((skipped + ${s:-0}))
  [ -z "$f" ] || failed_tests+=("$t: $(grep -E '^\[  FAILED  \] [A-Za-z]' "$LOGS/$t.log" | sed 's/^\[  FAILED  \] //' | sort -u | tr '\n' ' ')")
done
test_s=$(( $(date +%s) - test_start ))

runs=""
for w in ${widths//,/ }; do runs+="${runs:+,}conv2d_w${w}_b1,conv2d_w${w}_b8"; done
run_start=$(date +%s)
rm -rf "$RESULTS"
declare -A RC=()
for c in ${compilers//,/ }; do
  if [ ! -f "$BUILD/libngraphbench_$c.so" ]; then RC[$c]="not built"; continue; fi
  say "run conv2d $c --quick --processes 1 (under qemu-user, $QCPU)"
  rc=0
  (cd "$REPO" && "$BUILD/ngraphbench" run conv2d "$c" --quick --processes 1 --runs "$runs" \
     --set warmup=1 --set repeats=3 --results "$RESULTS") >"$LOGS/run-$c.log" 2>&1 || rc=$?
  RC[$c]="exit $rc"
done
run_s=$(( $(date +%s) - run_start ))

# --- Summary -----------------------------------------------------------------------------------
ok=1
[ "$failed" -eq 0 ] || ok=0
echo
echo "=== ngraphbench on aarch64 under qemu-user ($QCPU), $(date -u +%Y-%m-%dT%H:%MZ) ==="
cat "$LOGS/wheels.txt"
echo "build: ${build_s}s (ninja -j$jobs; $(ls "$BUILD"/libngraphbench_*.so | sed 's/.*libngraphbench_//; s/\.so$//' | tr '\n' ' '))"
if [ "$unit_tests" -eq 1 ]; then
  echo "unit tests: $passed passed, $failed failed, $skipped skipped in ${#tests[@]} executables (${test_s}s)"
else
  echo "unit tests: not built or run (--no-unit-tests)"
fi
for f in "${failed_tests[@]}"; do echo "  failed: $f"; done
echo "machine.json cpu_model: $("$PY" -c 'import json,sys; print("; ".join(m["cpu_model"] for m in json.load(open(sys.argv[1])).values()))' "$RESULTS/local/machine.json" 2>/dev/null || echo '(none)')"
echo "conv2d --quick --processes 1, widths $widths (${run_s}s):"
for c in ${compilers//,/ }; do
  if ! "$PY" - "$RESULTS/local/$c" "$c" "${RC[$c]}" <<'EOF'; then ok=0; fi
import csv, glob, os, sys
folder, compiler, rc = sys.argv[1:4]
rows = []
for path in sorted(glob.glob(os.path.join(folder, "*.csv"))):
    if path.endswith(".latencies.csv"):
        continue
    with open(path, newline="") as f:
        rows += list(csv.DictReader(f))
good = [r for r in rows if r["status"] == "ok" and r.get("check_verdict") == "pass"
        and r["valid"] == "false" and "emulated CPU" in r["invalid_reason"]]
worst = max((float(r["check_max_rel_err"]) for r in good if r.get("check_max_rel_err")), default=None)
print(f"  {compiler:12s} {rc:9s} rows {len(rows)}, ok and checked {len(good)}, "
      f"marked emulated {sum('emulated CPU' in r['invalid_reason'] for r in rows)}"
      + (f", max rel err {worst:.1e} vs {rows[0]['check_reference']}" if worst is not None else ""))
for r in rows:
    if r not in good:
        print(f"    {r['run_id']}: {r['status']} {r.get('check_verdict', '')} {r.get('error', '')[:200]}")
sys.exit(0 if rows and len(good) == len(rows) else 1)
EOF
done
echo "wall time: $(( $(date +%s) - START ))s; logs: $LOGS"
[ "$ok" -eq 1 ]
