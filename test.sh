#!/usr/bin/env bash
# ./test.sh [ctest options]: builds (running ./setup.sh first when the build is missing), runs
# every test through CTest, as many at once as there are cores, then fuzzes each parser of
# untrusted input for 30 s (scripts/fuzz.sh; NGB_FUZZ_SECONDS changes the time). Given ctest
# options (a filtered run), it runs those tests only and says that it did not fuzz.
set -euo pipefail
cd "$(dirname "$0")"
if [ $# -eq 0 ]; then
  # The fuzz targets build at low priority from the start, on the cycles that the set-up (pip
  # installs one wheel at a time, on one core), the build and the tests leave; a failed build
  # (on a fresh machine, before ./setup.sh installed clang) is built again, or reported, by the
  # fuzz run at the end. In a session of its own (a process group that a failed test run takes
  # down with it), which Linux's autogroup scheduling would otherwise give an equal share of
  # the CPU beside the tests': its autogroup is niced too.
  setsid sh -c 'echo 19 >/proc/self/autogroup 2>/dev/null
                exec nice -n 19 scripts/fuzz.sh --build-only' >/dev/null 2>&1 &
  fuzz_build=$!
  trap 'kill -- -"$fuzz_build" 2>/dev/null || true' EXIT
fi
[ -x build/ngraphbench ] || ./setup.sh
cmake --build build -j"$(nproc)"
if [ $# -gt 0 ]; then
  (cd build && ctest --output-on-failure --timeout 900 -j"$(nproc)" "$@")
  echo "test.sh: ctest options given, so no fuzzing (run scripts/fuzz.sh for it)"
  exit 0
fi
(cd build && ctest --output-on-failure --timeout 900 -j"$(nproc)")
wait "$fuzz_build" || true
scripts/fuzz.sh --seconds "${NGB_FUZZ_SECONDS:-30}"
