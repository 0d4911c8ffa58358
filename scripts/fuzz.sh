#!/usr/bin/env bash
# scripts/fuzz.sh [--seconds N] [--seed S] [--build-only] [target...]
# Builds the libFuzzer targets in build-fuzz/ (clang, ASan + UBSan) and runs each for N seconds
# (default 60) on its seed corpus, fuzz/corpus/<target>/, as many targets at once as there are
# cores (each one process on one core); inputs it finds go to build-fuzz/corpus/<target>/,
# crashes to build-fuzz/crashes/<target>/. Targets: config onnx row zip results (default: all).
# Prints a line per target: executions, crashes, CPU minutes. --build-only builds, runs nothing.
# Exit 0 when no target crashed, 1 when one did, 2 on bad arguments, 3 when clang is missing.
#
# ./test.sh runs it for 30 s per target with a fixed seed (building it while the tests run). For a maintainer's campaign:
#   scripts/fuzz.sh --seconds 3600 --seed 0     (seed 0: a new random seed per run)
# A crash: reproduce with build-fuzz/<target>_fuzzer <crash file>, fix it, then add the file to
# fuzz/regressions/<target>/ (CTest replays every file there and requires a clear error).
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=60
seed=1
build_only=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=${2:?--seconds needs a number}; shift 2 ;;
    --seed) seed=${2:?--seed needs a number}; shift 2 ;;
    --build-only) build_only=1; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    config|onnx|row|zip|results) targets+=("$1"); shift ;;
    *) echo "fuzz.sh: unknown argument '$1' (expected --seconds N, --seed S, --build-only, or targets among config onnx row zip results)" >&2; exit 2 ;;
  esac
done
[[ $seconds =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] || { echo "fuzz.sh: --seconds must be a positive integer, got '$seconds'" >&2; exit 2; }
[[ $seed =~ ^[0-9]+$ ]] || { echo "fuzz.sh: --seed must be a non-negative integer, got '$seed'" >&2; exit 2; }
[ ${#targets[@]} -gt 0 ] || targets=(config onnx row zip results)

if ! command -v clang++ >/dev/null; then
  echo "fuzz.sh: clang++ not found; ./setup.sh installs it (Debian: clang libclang-rt-14-dev)" >&2
  exit 3
fi

BUILD=build-fuzz
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
mkdir -p "$BUILD"
# No compiler module: the targets link none, and configuring looks for no SDK (./test.sh starts
# this build before ./setup.sh has installed them).
no_compilers=()
for dir in src/ngraphbench/compilers/*/; do
  name=$(basename "$dir")
  grep -q ngb_compiler_wanted "$dir/CMakeLists.txt" && no_compilers+=("-DNGB_WITH_${name^^}=OFF")
done
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake -S . -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER=clang++ -DNGB_FUZZ=ON -DNGB_BUILD_TESTS=OFF \
    "${no_compilers[@]}" >"$BUILD/configure.log" 2>&1 ||
    { cat "$BUILD/configure.log" >&2; rm -f "$BUILD/CMakeCache.txt"; exit 3; }
fi
cmake --build "$BUILD" -j"$(nproc)" --target "${targets[@]/%/_fuzzer}" >"$BUILD/build.log" 2>&1 ||
  { tail -40 "$BUILD/build.log" >&2; echo "fuzz.sh: building the fuzz targets failed (log: $BUILD/build.log)" >&2; exit 3; }

[ "$build_only" -eq 0 ] || exit 0

# One target for `seconds`, in a subshell of its own: `times` there reports its fuzzer's CPU.
# Writes the target's line of the table to $BUILD/fuzz-<target>.line and its status to .rc.
fuzz_one() {  # <target>
  local t=$1 work=$BUILD/corpus/$1 crashes=$BUILD/crashes/$1 log=$BUILD/fuzz-$1.log
  local dict=() start elapsed rc cpu execs rate found
  mkdir -p "$work" "$crashes"
  [ -f "fuzz/$t.dict" ] && dict=(-dict="fuzz/$t.dict")
  touch "$BUILD/fuzz-$t.start"  # crashes of earlier runs stay in $crashes; only new ones count
  start=$(date +%s)
  "$BUILD/${t}_fuzzer" "$work" "fuzz/corpus/$t" "${dict[@]}" -seed="$seed" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
    -artifact_prefix="$crashes/" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  elapsed=$(( $(date +%s) - start ))
  times >"$BUILD/fuzz-$t.times"  # in this shell: in a pipe, `times` would count the pipe's
  cpu=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
                       printf "%.2f", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) / 60 }' "$BUILD/fuzz-$t.times")
  execs=$(awk '/^stat::number_of_executed_units:/ { print $NF }' "$log" | tail -1)
  rate=$(awk '/^stat::average_exec_per_sec:/ { print $NF }' "$log" | tail -1)
  found=$(find "$crashes" -type f -newer "$BUILD/fuzz-$t.start" | wc -l)
  rm -f "$BUILD/fuzz-$t.start" "$BUILD/fuzz-$t.times"
  printf '%-7s %8s %10s %9s %8s %8s\n' "$t" "$elapsed" "${execs:-?}" "${rate:-?}" "$found" \
    "$cpu" >"$BUILD/fuzz-$t.line"
  if [ "$rc" -ne 0 ] || [ "$found" -gt 0 ]; then
    { echo "  $t: libFuzzer exited $rc; log: $log"
      grep -m3 -E "ERROR: |SUMMARY: |Test unit written" "$log" | sed 's/^/  /'; } >&2
    echo 1 >"$BUILD/fuzz-$t.rc"
  else
    echo 0 >"$BUILD/fuzz-$t.rc"
  fi
}

# As many targets at once as there are cores, the table in the targets' order.
at_once=$(nproc)
running=()
for t in "${targets[@]}"; do
  if [ ${#running[@]} -ge "$at_once" ]; then
    wait "${running[0]}"
    running=("${running[@]:1}")
  fi
  fuzz_one "$t" &
  running+=($!)
done
wait
printf '%-7s %8s %10s %9s %8s %8s\n' target seconds executions exec/s crashes cpu_min
status=0
total_cpu=0
for t in "${targets[@]}"; do
  cat "$BUILD/fuzz-$t.line"
  cpu=$(awk '{ print $NF }' "$BUILD/fuzz-$t.line")
  total_cpu=$(awk -v a="$total_cpu" -v b="$cpu" 'BEGIN { printf "%.2f", a + b }')
  [ "$(cat "$BUILD/fuzz-$t.rc")" -eq 0 ] || status=1
  rm -f "$BUILD/fuzz-$t.line" "$BUILD/fuzz-$t.rc"
done
echo "total CPU minutes: $total_cpu"
exit $status
