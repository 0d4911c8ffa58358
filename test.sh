#!/usr/bin/env bash
# ./test.sh [ctest options]: builds (running ./setup.sh first when the build is missing), runs
# every test through CTest, as many at once as there are cores, then fuzzes each parser of
# untrusted input for 30 s (scripts/fuzz.sh; NGB_FUZZ_SECONDS changes the time). Given ctest
# options (a filtered run), it runs those tests only and says that it did not fuzz.
set -euo pipefail
cd "$(dirname "$0")"
[ -x build/ngraphbench ] || ./setup.sh
cmake --build build -j"$(nproc)"
(cd build && ctest --output-on-failure --timeout 900 -j"$(nproc)" "$@")
if [ $# -gt 0 ]; then
  echo "test.sh: ctest options given, so no fuzzing (run scripts/fuzz.sh for it)"
else
  scripts/fuzz.sh --seconds "${NGB_FUZZ_SECONDS:-30}"
fi
