# Sourced by the CTest scripts that drive a user's script against the build (sweep_budget_test.sh,
# make_traces_test.sh): `script_test <test name> <script> <source dir> <ngraphbench binary>` sets
# ROOT, BIN and a temporary folder $tmp (removed on exit), defines fail(), and exits 77 (CTest:
# skipped) when <source dir>/build/ngraphbench, which the script runs, is not the binary given.
script_test() {
  set -uo pipefail
  TEST_NAME=$1
  ROOT=$3
  BIN=$4
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  if [ ! "$ROOT/build/ngraphbench" -ef "$BIN" ]; then
    echo "$TEST_NAME: skipped: $2 runs $ROOT/build/ngraphbench, and the binary under test is $BIN"
    exit 77
  fi
}
fail() { echo "$TEST_NAME: FAILED: $*"; exit 1; }
