#!/usr/bin/env bash
# A GPU check on a machine without network access: builds ngraphbench with the `identity`,
# `torchscript` and `inductor` compilers against the torch already installed there (and
# `onnxruntime` when that machine's onnxruntime has the CUDA provider), runs a small set of runs
# on the GPU with the NVML monitor (every cuda run samples the GPU through the driver's
# libnvidia-ml.so.1), and writes everything under one folder.
#
#   scripts/gpu_check.sh --fetch [DIR]    on a networked Debian 12 machine (amd64): downloads
#                                         into DIR (default .gpu-debs/, ignored by git) the
#                                         Debian 12 .deb files of our build dependencies,
#                                         DIR/wheels/ (what inductor's compile script needs
#                                         beyond torch, torchvision and onnx: onnx2torch, for
#                                         Python 3.12) and DIR/ort-include/ (ONNX Runtime's
#                                         C++ headers, from .deps/ after ./setup.sh), and prints
#                                         their size
#   scripts/gpu_check.sh [OUT]            on the GPU machine: the check; OUT defaults to
#                                         gpu-check-out/
#
# Options of the check: --debs DIR (default .gpu-debs), --prefix-only (find the build
# dependencies only in the unpacked .debs, not under /usr: the rehearsal on a machine that has
# them installed), --budget S (stop launching runs S seconds after the start, and stop a run
# still going then; default 330, so that build, runs and summary end within 6 minutes).
# Environment: PYTHON (the python whose torch is built against, default python3), JOBS (build
# jobs, default nproc).
#
# Carrying: .gpu-debs/ is ignored by git, so it travels with the working tree only when named
# explicitly, e.g. the device tool's `carry: [".gpu-debs"]` or
# `rsync -a .gpu-debs/ gpu-box:ngraphbench/.gpu-debs/` (about 8 MiB; --fetch prints it). On the
# GPU machine the .debs are unpacked with `dpkg-deb -x` into build-gpu/prefix/ (never into /),
# CMake, pkg-config and LD_LIBRARY_PATH are pointed at that prefix, and the wheels are installed
# with `pip install --no-index --target build-gpu/pylib`; build-gpu/inductor-python (python with
# that folder first on its PYTHONPATH) is inductor's compiling python.
#
# The runs (every run `--quick --processes 3`, device cuda; results/<gpu>-fp32|fp16/): conv2d
# (width 64) and architectures (resnet18), batch 1 and 8: identity and torchscript at fp32 and
# fp16, inductor at fp32 only (the precision its description allows), onnxruntime at fp32 when
# built; then conv_blocks (width 32, depth 4) while at least 60 s of the budget are left.
# Inductor's runs come last in each experiment: its first process compiles (compile_s) and the
# time that takes on the GPU machine is the least known.
#
# OUT/ gets: gpu_check.log (everything, with timings), machine.txt, configs/ (the configs the
# runs used), results/<gpu>-fp32|fp16/<compiler>/ (the rows), analysis/ (ngraphbench analyze
# --include-invalid: quick runs are often not within the validity bound) and summary.txt (rows
# per compiler x precision x status, latency and GPU columns of the ok rows, the output check's
# errors at fp16, inductor's compile_s, speedups over identity with their 95% intervals, the
# machine). Without an NVIDIA GPU it still builds, runs the set (the rows then end as status
# `skipped`, the reason in `error`), says "no NVIDIA GPU: ..." and exits 0. Exit 1 only when the
# build fails. Run again into the same OUT, it keeps the rows that are ok and runs the rest
# (those a budget cut left out, and those not ok).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

# The Debian 12 packages: headers/CMake configs (-dev) and the runtime libraries they need.
DEBS=(libyaml-cpp-dev libyaml-cpp0.7 libfmt-dev libfmt9 nlohmann-json3-dev libcli11-dev
      libonnx-dev libonnx1 libonnxifi libprotobuf-dev libprotobuf32 libprotobuf-lite32
      libzip-dev libzip4 zlib1g-dev
      pkgconf pkgconf-bin libpkgconf3)  # pkg-config, used only when the target lacks one
# Runtime libraries most images already have; unpacked apart and used only when missing.
FALLBACK_DEBS=(zlib1g libbz2-1.0 libssl3)
# inductor's compile script needs onnx2torch beyond torch, torchvision and onnx (which the GPU
# image has); the version is scripts/setup/inductor.sh's. A pure-Python wheel, installed without
# its dependencies.
ONNX2TORCH_VERSION=$(sed -n 's/^INDUCTOR_ONNX2TORCH_VERSION=\([0-9.]*\).*/\1/p' scripts/setup/inductor.sh)
WHEELS=("onnx2torch==${ONNX2TORCH_VERSION:?scripts/setup/inductor.sh names no onnx2torch version}")
WHEELS_PYTHON=3.12  # the GPU image's python
CARRY_LIMIT_MIB=64

if [ "${1:-}" = "--fetch" ]; then
  dir=${2:-.gpu-debs}
  mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || exit 1
  (cd "$dir" && rm -f ./*.deb &&
    apt-get download -o APT::Architecture=amd64 -o APT::Sandbox::User=root "${DEBS[@]/%/:amd64}" "${FALLBACK_DEBS[@]/%/:amd64}") ||
    { echo "gpu_check: apt-get download failed (apt-get update first?)" >&2; exit 1; }
  rm -rf "$dir/wheels"
  py=$(command -v python3 || command -v python) || { echo "gpu_check: no python3 for pip download" >&2; exit 1; }
  "$py" -m pip download -q --no-deps --only-binary=:all: --python-version "$WHEELS_PYTHON" \
      --platform manylinux2014_x86_64 --platform any -d "$dir/wheels" "${WHEELS[@]}" ||
    { echo "gpu_check: pip download ${WHEELS[*]} failed" >&2; exit 1; }
  rm -rf "$dir/ort-include"
  if [ -f .deps/onnxruntime/include/onnxruntime_cxx_api.h ]; then
    cp -r .deps/onnxruntime/include "$dir/ort-include"
  else
    echo "gpu_check: no .deps/onnxruntime/include (./setup.sh extracts it): onnxruntime cannot be built on the GPU machine even where its onnxruntime has the CUDA provider" >&2
  fi
  echo "carried from $dir:"
  (cd "$dir" && echo "  $(ls ./*.deb | wc -l) .debs: $(du -ch ./*.deb | tail -1 | cut -f1)" &&
    du -sh wheels ort-include 2>/dev/null | sed 's/^/  /')
  bytes=$(du -sb "$dir" | cut -f1)
  awk -v b="$bytes" -v l="$CARRY_LIMIT_MIB" 'BEGIN {printf "total: %.1f MiB (%d bytes; the limit is %d MiB)\n", b / 1048576, b, l}'
  [ "$bytes" -lt $((CARRY_LIMIT_MIB * 1048576)) ] || { echo "gpu_check: $dir is over ${CARRY_LIMIT_MIB} MiB" >&2; exit 1; }
  exit 0
fi

out=gpu-check-out debs=.gpu-debs prefix_only=0 budget=330
while [ $# -gt 0 ]; do
  case "$1" in
    --debs) debs=${2:?}; shift 2 ;;
    --prefix-only) prefix_only=1; shift ;;
    --budget) budget=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,50p' "$0"; exit 0 ;;
    -*) echo "gpu_check: unknown option '$1'" >&2; exit 2 ;;
    *) out=$1; shift ;;
  esac
done
case "$budget" in ''|*[!0-9]*) echo "gpu_check: --budget takes whole seconds, not '$budget'" >&2; exit 2 ;; esac
PYTHON=${PYTHON:-python3}
PYTHON=$(command -v "$PYTHON") || { echo "gpu_check: no python '${PYTHON}' (set PYTHON)" >&2; exit 1; }
[[ "$PYTHON" == /* ]] || PYTHON=$PWD/$PYTHON  # absolute, symbolic links kept (a venv's python)
JOBS=${JOBS:-$(nproc)}
START=$SECONDS
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
debs=$(cd "$debs" 2>/dev/null && pwd) || { echo "gpu_check: no .deb folder '$debs' (run --fetch on a networked Debian 12 machine)" >&2; exit 1; }
BUILD=$ROOT/build-gpu
PREFIX=$BUILD/prefix
LOG=$out/gpu_check.log
exec > >(tee -a "$LOG") 2>&1
say() { printf '[gpu_check %4ds] %s\n' "$((SECONDS - START))" "$*"; }
say "start $(date -u +%FT%TZ) out=$out python=$PYTHON jobs=$JOBS budget=${budget}s"
say "carried: $debs, $(du -sh "$debs" | cut -f1) ($(ls "$debs"/*.deb 2>/dev/null | wc -l) .debs, wheels: $(ls "$debs"/wheels 2>/dev/null | tr '\n' ' '))"

# 1. The machine. machine.env holds the lines the summary quotes.
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
gpu=$(printf '%s' "$gpu_name" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9._-]\+/-/g; s/^-*//; s/-*$//')
nvml=$(ldconfig -p 2>/dev/null | awk '/libnvidia-ml\.so\.1 /{print $NF; exit}')
"$PYTHON" - >"$out/machine.env" 2>&1 <<'EOF'
import importlib, sys
print("python:", sys.version.split()[0], sys.executable)
for name in ("torch", "triton", "torchvision", "onnx", "onnxruntime"):
    try:
        m = importlib.import_module(name)
        print(f"{name}:", getattr(m, "__version__", "?"))
    except Exception as e:  # noqa: BLE001 - the summary says what failed, whatever it was
        print(f"{name}: not importable ({type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''})")
try:
    import torch
    print("torch_cuda:", torch.version.cuda, "cudnn", torch.backends.cudnn.version(),
          "available", torch.cuda.is_available())
    if torch.cuda.is_available():
        p = torch.cuda.get_device_properties(0)
        print("torch_gpu:", p.name, f"sm_{p.major}{p.minor}", p.multi_processor_count, "SMs",
              round(p.total_memory / 2**30, 1), "GiB")
except Exception as e:  # noqa: BLE001
    print("torch_cuda: error", e)
try:
    import onnxruntime
    print("onnxruntime_providers:", " ".join(onnxruntime.get_available_providers()))
except Exception as e:  # noqa: BLE001
    print("onnxruntime_providers: none (", type(e).__name__, ")")
EOF
{
  echo "gpu: ${gpu_name:-none (nvidia-smi lists no GPU)}"
  echo "driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)"
  echo "nvcc: $( (nvcc --version || /usr/local/cuda/bin/nvcc --version) 2>/dev/null | grep -o 'release [0-9.]*' | head -1)"
  echo "nvml: ${nvml:-libnvidia-ml.so.1 not found by ldconfig}"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
} >>"$out/machine.env"
{
  echo "date: $(date -u +%FT%TZ)"; echo "host: $(hostname)"; uname -a
  grep -E '^(PRETTY_NAME|VERSION_ID)=' /etc/os-release 2>/dev/null
  echo "nproc: $(nproc)"; free -m | sed -n 2p
  ldd --version 2>&1 | head -1
  echo "--- nvidia-smi"
  nvidia-smi 2>&1 || echo "(no nvidia-smi)"
  nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,power.limit,clocks.max.sm \
    --format=csv 2>&1 || true
  echo "--- toolchain"
  (nvcc --version || /usr/local/cuda/bin/nvcc --version) 2>&1 | tail -2
  cmake --version | head -1; ninja --version 2>&1 | sed 's/^/ninja /'; c++ --version | head -1
  echo "--- python packages"
  cat "$out/machine.env"
} >"$out/machine.txt"
cat "$out/machine.txt"

# 2. The build dependencies: the .debs unpacked into the prefix.
say "unpacking $(ls "$debs"/*.deb | wc -l) .debs into $PREFIX"
rm -rf "$PREFIX"; mkdir -p "$PREFIX/fallback"
for f in "$debs"/*.deb; do
  name=$(dpkg-deb -f "$f" Package)
  if [[ " ${FALLBACK_DEBS[*]} " == *" $name "* ]]; then dpkg-deb -x "$f" "$PREFIX/fallback"
  else dpkg-deb -x "$f" "$PREFIX"; fi
done
MA=x86_64-linux-gnu
# pkg-config files name prefix=/usr: point them at the prefix.
sed -i "s|^prefix=/usr\$|prefix=$PREFIX/usr|" "$PREFIX"/usr/lib/$MA/pkgconfig/*.pc "$PREFIX"/usr/share/pkgconfig/*.pc 2>/dev/null
export PKG_CONFIG_PATH=$PREFIX/usr/lib/$MA/pkgconfig:$PREFIX/usr/share/pkgconfig
libpath=$PREFIX/usr/lib/$MA
for so in libz.so.1 libbz2.so.1.0 libssl.so.3 libcrypto.so.3; do
  if ! ldconfig -p 2>/dev/null | grep -q "^[[:space:]]*$so "; then
    say "$so missing on this machine: using the one from the .debs"
    libpath=$libpath:$PREFIX/fallback/lib/$MA:$PREFIX/fallback/usr/lib/$MA
    break
  fi
done
export LD_LIBRARY_PATH=$libpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cmake_extra=()
if ! command -v pkg-config >/dev/null; then
  cmake_extra+=(-DPKG_CONFIG_EXECUTABLE="$PREFIX/usr/bin/pkgconf")
fi
if [ "$prefix_only" -eq 1 ]; then
  # Nothing from /usr's packages: pkg-config sees only the prefix, find_* skip /usr.
  export PKG_CONFIG_LIBDIR=$PKG_CONFIG_PATH
  cmake_extra+=(-DCMAKE_IGNORE_PREFIX_PATH=/usr -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
fi
command -v nvcc >/dev/null || { [ -x /usr/local/cuda/bin/nvcc ] && export PATH=$PATH:/usr/local/cuda/bin; }
if [ -n "$gpu_name" ] && [ -z "${TORCH_CUDA_ARCH_LIST:-}" ]; then
  TORCH_CUDA_ARCH_LIST=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1)
  export TORCH_CUDA_ARCH_LIST
fi

# inductor: the carried wheels into build-gpu/pylib, and a python that puts them first.
PYLIB=$BUILD/pylib
IND_PY=$BUILD/inductor-python
inductor=OFF
inductor_why=""
mkdir -p "$BUILD"
rm -rf "$PYLIB"
if ! ls "$debs"/wheels/*.whl >/dev/null 2>&1; then
  inductor_why="no wheels in $debs/wheels (run --fetch)"
elif ! "$PYTHON" -m pip install --isolated -q --disable-pip-version-check --no-index --no-deps \
       --find-links "$debs/wheels" --target "$PYLIB" "${WHEELS[@]}" >"$out/pip.log" 2>&1; then
  inductor_why="pip install ${WHEELS[*]} from $debs/wheels failed: $(tail -1 "$out/pip.log")"
else
  printf '#!/bin/sh\n# %s, with the carried wheels (%s) first on its PYTHONPATH.\nPYTHONPATH=%s${PYTHONPATH:+:$PYTHONPATH} exec %s "$@"\n' \
    "$PYTHON" "${WHEELS[*]}" "$PYLIB" "$PYTHON" >"$IND_PY"
  chmod +x "$IND_PY"
  if where=$("$IND_PY" -c 'import importlib.util as u; print(u.find_spec("onnx2torch").origin)' 2>&1); then
    inductor=ON
    say "inductor: onnx2torch from $where"
  else
    inductor_why="$IND_PY cannot find onnx2torch: $where"
  fi
fi
[ "$inductor" = ON ] || say "inductor: not built: $inductor_why"

# onnxruntime on CUDA: only where this machine's onnxruntime has the CUDA provider (its library
# with the carried headers).
ort=OFF
ort_args=()
providers=$(sed -n 's/^onnxruntime_providers: //p' "$out/machine.env")
if [[ " $providers " != *" CUDAExecutionProvider "* ]]; then
  ort_why="$PYTHON's onnxruntime has no CUDAExecutionProvider (providers: ${providers:-none})"
elif [ ! -f "$debs/ort-include/onnxruntime_cxx_api.h" ]; then
  ort_why="the CUDA provider is there, but $debs/ort-include/ (ONNX Runtime's headers) was not carried"
else
  ort_lib=$("$PYTHON" -c 'import glob, os, onnxruntime; print(sorted(glob.glob(os.path.join(os.path.dirname(onnxruntime.__file__), "capi", "libonnxruntime.so.*")))[-1])' 2>/dev/null)
  if [ -z "$ort_lib" ]; then
    ort_why="its onnxruntime package has no capi/libonnxruntime.so.*"
  else
    ort=ON ort_why=""
    ort_args=(-DNGB_ORT_LIBRARY="$ort_lib" -DNGB_ORT_INCLUDE_DIR="$debs/ort-include")
    # The CUDA provider's libraries (cuBLAS, cuDNN, ...) from the nvidia-* wheels beside it.
    nvlibs=$("$PYTHON" -c 'import glob, os, onnxruntime; print(":".join(sorted(glob.glob(os.path.join(os.path.dirname(os.path.dirname(onnxruntime.__file__)), "nvidia", "*", "lib")))))' 2>/dev/null)
    [ -n "$nvlibs" ] && export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$nvlibs
  fi
fi
say "onnxruntime on cuda: $([ "$ort" = ON ] && echo "built ($ort_lib)" || echo "not built: $ort_why")"

# 3. Configure and build: the binary and the modules.
torch_prefix=$("$PYTHON" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)') ||
  { say "FAILED: $PYTHON cannot import torch"; exit 1; }
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
[ -f "$BUILD/CMakeCache.txt" ] && ! grep -q "CMAKE_GENERATOR:INTERNAL=${gen[1]:-Unix Makefiles}" "$BUILD/CMakeCache.txt" &&
  rm -f "$BUILD/CMakeCache.txt"
t0=$SECONDS
say "configuring build-gpu/ (Torch_DIR=$torch_prefix/Torch)"
if ! cmake -S "$ROOT" -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DNGB_BUILD_TESTS=OFF \
    -DCMAKE_PREFIX_PATH="$PREFIX/usr" -DTorch_DIR="$torch_prefix/Torch" \
    -DNGB_WITH_IDENTITY=ON -DNGB_WITH_TORCHSCRIPT=ON -DNGB_WITH_INDUCTOR=$inductor \
    -DNGB_INDUCTOR_PYTHON="$([ "$inductor" = ON ] && echo "$IND_PY")" \
    -DNGB_WITH_ONNXRUNTIME=$ort "${ort_args[@]}" -DNGB_WITH_TENSORRT=OFF \
    -DNGB_WITH_OPENVINO=OFF -DNGB_WITH_TVM=OFF -DNGB_WITH_EXECUTORCH=OFF \
    "${cmake_extra[@]}" >"$out/configure.log" 2>&1; then
  cat "$out/configure.log"; say "FAILED: configure (log above)"; exit 1
fi
grep -- '-- ' "$out/configure.log" | grep -A10 'compilers:'
say "dependencies as found (CMakeCache):"
grep -E '^(yaml-cpp_DIR|fmt_DIR|nlohmann_json_DIR|CLI11_DIR|ONNX_DIR|Protobuf_LIBRARY_RELEASE|Protobuf_INCLUDE_DIR|pkgcfg_lib_LIBZIP_zip|PKG_CONFIG_EXECUTABLE|Torch_DIR|NGB_INDUCTOR_PYTHON|NGB_ORT_LIBRARY)[:=]' \
  "$BUILD/CMakeCache.txt" | sed 's/^/    /'
compilers=(identity torchscript)
[ "$inductor" = ON ] && compilers+=(inductor)
[ "$ort" = ON ] && compilers+=(onnxruntime)
if ! cmake --build "$BUILD" --target ngraphbench "${compilers[@]/#/ngraphbench_}" -j"$JOBS" >"$out/build.log" 2>&1; then
  tail -60 "$out/build.log"; say "FAILED: build (tail of $out/build.log above)"; exit 1
fi
say "build took $((SECONDS - t0)) s"
NGB=$BUILD/ngraphbench
ldd "$NGB" | grep -E 'yaml|fmt|onnx|protobuf|zip' | sed 's/^/    /'
for c in "${compilers[@]}"; do
  printf '    %s: %s\n' "$c" "$(readelf -d "$BUILD/libngraphbench_$c.so" | grep -o 'lib\(torch\|c10\|onnxruntime\)[a-z_]*\.so[.0-9]*' | sort -u | tr '\n' ' ')"
done
"$NGB" list --compilers 2>&1 | sed 's/^/    /' | tee "$out/compilers.txt"

# 4. The runs, on cuda, every one --quick with 3 processes. Cheapest and most telling first, so
# that a budget cut still leaves identity and torchscript at both precisions of what ran.
if [ -n "$gpu_name" ]; then
  label=$gpu
else
  label=nogpu
  say "no NVIDIA GPU: nvidia-smi lists none; the runs below ask for cuda and end as rows that say so"
fi
[ -n "$gpu_name" ] && [ -z "$nvml" ] &&
  say "NVML: libnvidia-ml.so.1 is not in ldconfig's cache: the GPU columns will be empty, with the reason in notes"
cfg=$out/configs
for prec in fp32 fp16; do
  mkdir -p "$cfg/$prec"
  sed '/^experiments:/,$d' configs/experiments.yaml >"$cfg/$prec/experiments.yaml"
  cat >>"$cfg/$prec/experiments.yaml" <<'EOF'
experiments:
  conv2d:
    family: conv2d
    description: one Conv3x3 width->width on [b, width, 56, 56]
    widths: [64]
  architectures:
    family: architecture
    description: ResNet-18, 224x224x3, 1000 classes
    models: [resnet18]
  conv_blocks:
    family: conv_block
    description: depth x [Conv3x3 -> BatchNorm -> ReLU] on [b, width, 56, 56]
    widths: [32]
    depths: [4]
EOF
  for c in "${compilers[@]}"; do
    sed -e "s/^device: cpu /device: cuda/" -e "s/^device: cpu\$/device: cuda/" \
        -e "s/^precision: fp32/precision: $prec/" "configs/$c.yaml" >"$cfg/$prec/$c.yaml"
  done
done
# (experiment, precision, compiler, worker timeout): inductor and onnxruntime at fp32 only, the
# only precision their descriptions allow.
plan=()
for exp in conv2d architectures conv_blocks; do
  plan+=("$exp fp32 identity 120" "$exp fp32 torchscript 120")
  [ "$ort" = ON ] && plan+=("$exp fp32 onnxruntime 120")
  plan+=("$exp fp16 identity 120" "$exp fp16 torchscript 120")
  [ "$inductor" = ON ] && plan+=("$exp fp32 inductor 240")
done
results=$out/results
cut_short=0
for item in "${plan[@]}"; do
  read -r exp prec c tmo <<<"$item"
  left=$((budget - (SECONDS - START)))
  if [ "$left" -le 10 ] || { [ "$exp" = conv_blocks ] && [ "$left" -lt 60 ]; }; then
    say "budget: ${left}s of ${budget}s left, not starting $exp $c $prec"; cut_short=1; continue
  fi
  say "run $exp $c cuda $prec (${left}s of the budget left)"
  timeout --signal=TERM --kill-after=20 "$left" "$NGB" run "$exp" "$c" --quick --processes 3 \
    --configs "$cfg/$prec" --results "$results" --device "$label-$prec" --timeout "$tmo" \
    --retry-failed
  rc=$?
  say "  -> exit $rc$([ "$rc" -eq 124 ] && echo ": stopped at the budget")"
  [ "$rc" -eq 124 ] && cut_short=1
done

# 5. What came out.
say "ngraphbench analyze --include-invalid"
rm -rf "$out/analysis"
"$NGB" analyze "$results" -o "$out/analysis" --include-invalid 2>&1 | tail -5
{
  echo "inductor: $([ "$inductor" = ON ] && echo "built, compiling with $IND_PY" || echo "not built: $inductor_why")"
  echo "onnxruntime on cuda: $([ "$ort" = ON ] && echo "built ($ort_lib)" || echo "not built: $ort_why")"
} >>"$out/machine.env"
"$PYTHON" - "$results" "$out/analysis/scaling.csv" "$out/machine.env" <<'EOF' 2>&1 | tee "$out/summary.txt"
import csv, glob, math, os, sys
results, scaling, machine = sys.argv[1:4]

def num(v, fmt="{:.4g}"):
    try:
        return fmt.format(float(v))
    except (TypeError, ValueError):
        return "-"

def table(head, body):
    if not body:
        print("  (none)")
        return
    t = [head] + body
    w = [max(len(str(r[i])) for r in t) for i in range(len(head))]
    for r in t:
        print("  " + "  ".join(str(v).ljust(w[i]) for i, v in enumerate(r)).rstrip())

print("== machine")
with open(machine) as fh:
    for line in fh:
        print("  " + line.rstrip())

rows = []
for f in sorted(glob.glob(os.path.join(results, "*", "*", "*.csv"))):
    if not f.endswith(".latencies.csv") and not f.endswith(".profile.csv"):
        with open(f, newline="") as fh:
            rows.extend(csv.DictReader(fh))
print(f"\n== rows: {len(rows)}, per compiler x precision x status")
counts = {}
for r in rows:
    k = (r["compiler"], r["precision"], r["status"])
    counts[k] = counts.get(k, 0) + 1
table(["compiler", "precision", "status", "rows"], [list(k) + [v] for k, v in sorted(counts.items())])
seen = set()
for r in rows:
    k = (r["compiler"], r["precision"], r["status"])
    if r["status"] != "ok" and k not in seen:
        seen.add(k)
        print(f"  {r['compiler']} {r['precision']} {r['status']}, e.g. {r['run_id']}: {r.get('error', '')[:300]}")

ok = [r for r in rows if r["status"] == "ok"]
print("\n== ok rows: latency p50 [95% interval] (ms) and the GPU columns (NVML)")
table(["device", "compiler", "run_id", "p50", "[ci_low, ci_high]", "valid", "gpu_util_pct",
       "gpu_mem_mb", "gpu_power_w", "gpu_energy_j"],
      [[r["device"], r["compiler"], r["run_id"], num(r["latency_p50_ms"]),
        f"[{num(r['latency_p50_ci_low_ms'])}, {num(r['latency_p50_ci_high_ms'])}]",
        r.get("valid", ""), num(r["gpu_util_pct"], "{:.1f}"), num(r["gpu_mem_mb"], "{:.0f}"),
        num(r["gpu_power_w"], "{:.1f}"), num(r["gpu_energy_j"], "{:.4g}")] for r in ok[:40]])
if len(ok) > 40:
    print(f"  ... {len(ok) - 40} more ok rows in {results}")
for r in ok:
    gpu_notes = [n.strip() for n in r.get("notes", "").split(";") if "gpu" in n.lower() or "nvml" in n.lower()]
    if gpu_notes:
        print(f"  notes of {r['device']}/{r['compiler']}/{r['run_id']}: {'; '.join(gpu_notes)[:300]}")
        break

print("\n== the output check at fp16 (against the reference in check_reference)")
table(["compiler", "run_id", "status", "reference", "max_abs_err", "max_rel_err", "tolerance"],
      [[r["compiler"], r["run_id"], r["status"], r.get("check_reference", ""),
        num(r.get("check_max_abs_err")), num(r.get("check_max_rel_err")),
        num(r.get("check_tolerance"))] for r in rows if r["precision"] == "fp16"])

print("\n== inductor: compile_s (the first process compiles; the later ones load its package)")
table(["device", "run_id", "status", "compile_s", "build_s"],
      [[r["device"], r["run_id"], r["status"], num(r.get("compile_s")), num(r.get("build_s"))]
       for r in rows if r["compiler"] == "inductor"])

print("\n== speedup over identity (analyze --include-invalid: identity's latency / the compiler's), 95% interval")
sp = []
if os.path.exists(scaling):
    with open(scaling, newline="") as fh:
        for s in csv.DictReader(fh):
            if s["compiler"] != "identity":
                sp.append(s)
valid = {(r["device"], r["compiler"], r["model"], r["batch_size"]): r.get("valid", "") for r in ok}
table(["device", "compiler", "model", "batch", "speedup", "[ci_low, ci_high]", "rows valid", "note"],
      [[s["device"], s["compiler"], s["model"], s["batch_size"], num(s["speedup_vs_identity"], "{:.3f}"),
        f"[{num(s['speedup_ci_low'], '{:.3f}')}, {num(s['speedup_ci_high'], '{:.3f}')}]",
        "/".join(valid.get((s["device"], c, s["model"], s["batch_size"]), "?") or "?" for c in ("identity", s["compiler"])),
        s.get("speedup_note", "")[:80]] for s in sp])
geo = {}
for s in sp:
    try:
        geo.setdefault((s["device"], s["compiler"]), []).append(math.log(float(s["speedup_vs_identity"])))
    except (TypeError, ValueError):
        pass
for (dev, c), logs in sorted(geo.items()):
    print(f"  {dev} {c}: geometric mean {math.exp(sum(logs) / len(logs)):.3f}x over {len(logs)} runs")
EOF
[ -z "$gpu_name" ] && say "no NVIDIA GPU: nvidia-smi lists none, so the build was checked and every cuda run ended as a row without a measurement"
[ "$cut_short" -eq 1 ] && say "some runs were not started or were stopped: the budget of ${budget}s ran out"
say "done in $((SECONDS - START)) s; outputs in $out"
exit 0
