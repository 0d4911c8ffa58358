#!/usr/bin/env bash
# A GPU check on a machine without network access: builds ngraphbench with the `identity` and
# `torchscript` compilers against the torch already installed there, runs a small set of runs
# on the GPU at fp32 and fp16, and writes everything under one folder.
#
#   scripts/gpu_check.sh --fetch [DIR]    on a networked Debian 12 machine (amd64): downloads
#                                         the Debian 12 .deb files of our build dependencies
#                                         into DIR (default .gpu-debs/, ignored by git)
#   scripts/gpu_check.sh [OUT]            on the GPU machine: the check; OUT defaults to
#                                         gpu-check-out/
#
# Options of the check: --debs DIR (default .gpu-debs), --prefix-only (find the build
# dependencies only in the unpacked .debs, not under /usr: the rehearsal on a machine that has
# them installed), --budget S (stop launching runs after S seconds from the start, default 390).
# Environment: PYTHON (the python whose torch is built against, default python3), JOBS (build
# jobs, default nproc).
#
# Carrying the .debs: .gpu-debs/ is ignored by git, so it travels with the working tree only
# when named explicitly, e.g. the device tool's `carry: [".gpu-debs"]` or
# `rsync -a .gpu-debs/ gpu-box:ngraphbench/.gpu-debs/` (about 7 MiB). On the GPU machine they
# are unpacked with `dpkg-deb -x` into build-gpu/prefix/ (never into /), and CMake, pkg-config
# and LD_LIBRARY_PATH are pointed at that prefix.
#
# OUT/ gets: gpu_check.log (everything, with timings), machine.txt, configs/ (the configs the
# runs used), results/<gpu>-fp32|fp16/<compiler>/ (the rows), analysis/ (ngraphbench analyze)
# and summary.txt. Without an NVIDIA GPU it still builds, runs the set (the rows then end as
# whatever status a cuda run on a CPU-only torch gets), says "no NVIDIA GPU: ..." and exits 0.
# Exit 1 only when the build fails. Run again into the same OUT, it keeps the rows that are ok
# and runs the rest (those a budget cut left out, and those not ok).
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

if [ "${1:-}" = "--fetch" ]; then
  dir=${2:-.gpu-debs}
  mkdir -p "$dir" && cd "$dir" || exit 1
  rm -f ./*.deb
  apt-get download -o APT::Architecture=amd64 -o APT::Sandbox::User=root "${DEBS[@]/%/:amd64}" "${FALLBACK_DEBS[@]/%/:amd64}" ||
    { echo "gpu_check: apt-get download failed (apt-get update first?)" >&2; exit 1; }
  du -ch ./*.deb | tail -1
  exit 0
fi

out=gpu-check-out debs=.gpu-debs prefix_only=0 budget=390
while [ $# -gt 0 ]; do
  case "$1" in
    --debs) debs=${2:?}; shift 2 ;;
    --prefix-only) prefix_only=1; shift ;;
    --budget) budget=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    -*) echo "gpu_check: unknown option '$1'" >&2; exit 2 ;;
    *) out=$1; shift ;;
  esac
done
PYTHON=${PYTHON:-python3}
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

# 1. The machine.
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
gpu=$(printf '%s' "$gpu_name" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9._-]\+/-/g; s/^-*//; s/-*$//')
{
  echo "date: $(date -u +%FT%TZ)"; echo "host: $(hostname)"; uname -a
  grep -E '^(PRETTY_NAME|VERSION_ID)=' /etc/os-release 2>/dev/null
  echo "nproc: $(nproc)"; free -m | sed -n 2p
  ldd --version 2>&1 | head -1
  grep -m1 'model name' /proc/cpuinfo
  echo "--- nvidia-smi"
  nvidia-smi 2>&1 || echo "(no nvidia-smi)"
  nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,power.limit,clocks.max.sm \
    --format=csv 2>&1 || true
  echo "--- toolchain"
  (nvcc --version || /usr/local/cuda/bin/nvcc --version) 2>&1 | tail -2
  cmake --version | head -1; ninja --version 2>&1 | sed 's/^/ninja /'; c++ --version | head -1
  "$PYTHON" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__,
"cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "gpu", torch.cuda.is_available())' 2>&1
} >"$out/machine.txt"
cat "$out/machine.txt"

# 2. The build dependencies: the .debs unpacked into the prefix.
say "unpacking $(ls "$debs"/*.deb | wc -l) .debs ($(du -sh "$debs" | cut -f1)) into $PREFIX"
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

# 3. Configure and build: the binary and the identity/torchscript modules (null comes along).
torch_prefix=$("$PYTHON" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)') ||
  { say "FAILED: $PYTHON cannot import torch"; exit 1; }
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
[ -f "$BUILD/CMakeCache.txt" ] && ! grep -q "CMAKE_GENERATOR:INTERNAL=${gen[1]:-Unix Makefiles}" "$BUILD/CMakeCache.txt" &&
  rm -f "$BUILD/CMakeCache.txt"
t0=$SECONDS
say "configuring build-gpu/ (Torch_DIR=$torch_prefix/Torch)"
if ! cmake -S "$ROOT" -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DNGB_BUILD_TESTS=OFF \
    -DCMAKE_PREFIX_PATH="$PREFIX/usr" -DTorch_DIR="$torch_prefix/Torch" \
    -DNGB_WITH_IDENTITY=ON -DNGB_WITH_TORCHSCRIPT=ON -DNGB_WITH_ONNXRUNTIME=OFF \
    -DNGB_WITH_OPENVINO=OFF -DNGB_WITH_TVM=OFF "${cmake_extra[@]}" >"$out/configure.log" 2>&1; then
  cat "$out/configure.log"; say "FAILED: configure (log above)"; exit 1
fi
grep -- '-- ' "$out/configure.log" | grep -A8 'compilers:'
say "dependencies as found (CMakeCache):"
grep -E '^(yaml-cpp_DIR|fmt_DIR|nlohmann_json_DIR|CLI11_DIR|ONNX_DIR|Protobuf_LIBRARY_RELEASE|Protobuf_INCLUDE_DIR|pkgcfg_lib_LIBZIP_zip|PKG_CONFIG_EXECUTABLE|Torch_DIR)[:=]' \
  "$BUILD/CMakeCache.txt" | sed 's/^/    /'
if ! cmake --build "$BUILD" --target ngraphbench -j"$JOBS" >"$out/build.log" 2>&1; then
  tail -60 "$out/build.log"; say "FAILED: build (tail of $out/build.log above)"; exit 1
fi
say "build took $((SECONDS - t0)) s"
NGB=$BUILD/ngraphbench
ldd "$NGB" | grep -E 'yaml|fmt|onnx|protobuf|zip' | sed 's/^/    /'
readelf -d "$BUILD/libngraphbench_identity.so" | grep -o 'libtorch[a-z_]*\.so' | sort -u | tr '\n' ' '
echo; "$NGB" list --compilers 2>&1 | sed 's/^/    /'

# 4. The runs: small grids, cuda at fp32 and fp16; cheapest first, so that a budget cut still
# leaves both compilers and both precisions of what ran.
if [ -n "$gpu_name" ]; then
  label=$gpu
else
  label=nogpu
  say "no NVIDIA GPU: nvidia-smi lists none; the runs below ask for cuda and end as rows that say so"
fi
cfg=$out/configs
for prec in fp32 fp16; do
  mkdir -p "$cfg/$prec"
  sed '/^experiments:/,$d' configs/experiments.yaml >"$cfg/$prec/experiments.yaml"
  cat >>"$cfg/$prec/experiments.yaml" <<'EOF'
experiments:
  conv2d:
    family: conv2d
    description: one Conv3x3 width->width on [b, width, 56, 56]
    widths: [16, 64]
  conv_blocks:
    family: conv_block
    description: depth x [Conv3x3 -> BatchNorm -> ReLU] on [b, width, 56, 56]
    widths: [32]
    depths: [1, 4]
  architectures:
    family: architecture
    description: ResNet and DeiT, 224x224x3, 1000 classes
    models: [resnet18, deit_tiny_patch16_224]
EOF
  for c in identity torchscript; do
    sed -e "s/^device: cpu /device: cuda/" -e "s/^precision: fp32/precision: $prec/" "configs/$c.yaml" >"$cfg/$prec/$c.yaml"
  done
done
results=$out/results
cut_short=0
for exp in conv2d conv_blocks architectures; do
  for prec in fp32 fp16; do
    for c in identity torchscript; do
      left=$((budget - (SECONDS - START)))
      if [ "$left" -le 10 ]; then
        say "budget: ${budget}s reached, not starting $exp $c $prec"; cut_short=1; continue
      fi
      say "run $exp $c cuda $prec (up to ${left}s left)"
      timeout --signal=TERM --kill-after=20 "$left" "$NGB" run "$exp" "$c" --quick \
        --configs "$cfg/$prec" --results "$results" --device "$label-$prec" --timeout 120 \
        --retry-failed
      say "  -> exit $?"
    done
  done
done

# 5. What came out.
say "ngraphbench analyze"
"$NGB" analyze "$results" -o "$out/analysis" 2>&1 | tail -5
"$PYTHON" - "$results" <<'EOF' 2>&1 | tee "$out/summary.txt"
import csv, glob, math, os, sys
rows = []
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*", "*", "*.csv"))):
    if f.endswith(".latencies.csv"):
        continue
    with open(f, newline="") as fh:
        rows.extend(csv.DictReader(fh))
if not rows:
    print("no rows"); sys.exit(0)
cols = ["latency_p50_ms", "gpu_util_pct", "gpu_mem_mb", "gpu_power_w", "gpu_energy_j",
        "check_max_rel_err"]
cols = [c for c in cols if c in rows[0]]
head = ["run_id", "compiler", "precision", "status"] + cols
table = [head] + [[r.get(k, "") for k in head] for r in rows]
w = [max(len(t[i]) for t in table) for i in range(len(head))]
for t in table:
    print("  ".join(v.ljust(w[i]) for i, v in enumerate(t)))
counts = {}
for r in rows:
    counts[r["status"]] = counts.get(r["status"], 0) + 1
print("statuses:", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
for r in rows:
    if r["status"] != "ok" and r.get("error"):
        print(f"first non-ok row ({r['run_id']} {r['compiler']} {r['precision']}): {r['error'][:300]}")
        break
print("\ntorchscript over identity (identity p50 / torchscript p50):")
p50 = {(r["run_id"], r["precision"], r["compiler"]): float(r["latency_p50_ms"])
       for r in rows if r["status"] == "ok" and r.get("latency_p50_ms")}
for prec in ("fp32", "fp16"):
    ratios = []
    for (run, p, c), v in sorted(p50.items()):
        if p == prec and c == "identity" and (run, p, "torchscript") in p50:
            s = v / p50[(run, p, "torchscript")]
            ratios.append(s)
            print(f"  {prec} {run}: {s:.2f}x")
    if ratios:
        g = math.exp(sum(math.log(s) for s in ratios) / len(ratios))
        print(f"  {prec}: geometric mean {g:.2f}x over {len(ratios)} runs")
    else:
        print(f"  {prec}: no run ok on both")
EOF
[ -z "$gpu_name" ] && say "no NVIDIA GPU: nvidia-smi lists none, so the build was checked and every cuda run ended as a row without a measurement"
[ "$cut_short" -eq 1 ] && say "some runs were not started: the budget of ${budget}s ran out"
say "done in $((SECONDS - START)) s; outputs in $out"
exit 0
