#!/usr/bin/env bash
# ./test.sh [ctest options]: builds (running ./setup.sh first when the build is missing) and
# runs every test through CTest.
set -euo pipefail
cd "$(dirname "$0")"
[ -x build/ngraphbench ] || ./setup.sh
cmake --build build -j"$(nproc)"
cd build
ctest --output-on-failure --timeout 900 "$@"
