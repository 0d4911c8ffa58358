#!/usr/bin/env bash
# The build's version stamp (cmake/version.cmake, core/version.h): `git describe --always --dirty`
# of the source as built, rewritten at every build only when it changed, and what the binary under
# test prints for --version.
#   version_test.sh <source dir> <ngraphbench binary> <generated version.cc> [cmake]
# (cmake: the one that configured the build, as the build runs version.cmake; default: PATH's)
set -uo pipefail
ROOT=$1
BIN=$2
GENERATED=$3
CMAKE=${4:-cmake}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "version: FAILED: $*"; exit 1; }

stamp() {
  "$CMAKE" -DSOURCE_DIR="$tmp/src" -DPROJECT_VERSION=1.2.3 -DOUT="$tmp/version.cc" \
    -P "$ROOT/cmake/version.cmake" || fail "cmake -P version.cmake exited $?"
}
# The version a generated version.cc returns (the scratch one by default).
stamped() { sed -n 's/.*return "\(.*\)";.*/\1/p' "${1:-$tmp/version.cc}"; }

# Outside a git checkout: the project version alone.
mkdir -p "$tmp/src"
stamp
[ "$(stamped)" = "1.2.3" ] || fail "outside git: '$(stamped)', expected 1.2.3"

# A clean checkout: +<abbreviated commit>; an edit makes it -dirty; a commit clean again.
git() { command git -C "$tmp/src" -c user.name=test -c user.email=test@example.org "$@"; }
git init -q && echo a > "$tmp/src/file" && git add file && git commit -qm one || fail "git init"
stamp
[ "$(stamped)" = "1.2.3+$(git rev-parse --short HEAD)" ] || fail "clean: '$(stamped)'"
echo b > "$tmp/src/file"
stamp
[ "$(stamped)" = "1.2.3+$(git rev-parse --short HEAD)-dirty" ] || fail "edited: '$(stamped)'"
git commit -qam two
stamp
[ "$(stamped)" = "1.2.3+$(git rev-parse --short HEAD)" ] || fail "committed: '$(stamped)'"

# An unchanged version leaves the file as it was (nothing is compiled or linked again).
touch -d '2000-01-01' "$tmp/version.cc"
stamp
[ "$(stat -c %Y "$tmp/version.cc")" = "$(date -d '2000-01-01' +%s)" ] ||
  fail "an unchanged version rewrote version.cc"

# The binary prints the version its build stamped.
expected=$(stamped "$GENERATED")
[ -n "$expected" ] || fail "no version in $GENERATED"
printed=$("$BIN" --version)
[ "$printed" = "$expected" ] || fail "--version printed '$printed', the build stamped '$expected'"
echo "version: ok ($expected)"
