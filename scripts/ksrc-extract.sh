#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Extract the few files ketw borrows from the Debian linux-source tarball:
# the kselftest harness headers and checkpatch.pl with its data files.
#
#   scripts/ksrc-extract.sh BUILD_DIR
#
# Results: BUILD_DIR/ksrc/<path as in the kernel tree>
#          BUILD_DIR/ksft/{kselftest_harness.h,kselftest.h}
# Runs once (stamp file); safe to call concurrently (flock).
# LINUX_SRC_TARBALL overrides the tarball (default: newest
# /usr/src/linux-source-*.tar.xz).
set -euo pipefail

build=${1:?usage: $0 BUILD_DIR}
mkdir -p "$build"
build=$(cd "$build" && pwd)
stamp=$build/ksrc/.extracted

files=(
	tools/testing/selftests/kselftest_harness.h
	tools/testing/selftests/kselftest.h
	scripts/checkpatch.pl
	scripts/spelling.txt
	scripts/const_structs.checkpatch
)

exec 9>"$build/.ksrc.lock"
flock 9
[ -e "$stamp" ] && exit 0

tarball=${LINUX_SRC_TARBALL:-$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n1)}
if [ -z "$tarball" ] || [ ! -r "$tarball" ]; then
	echo "ksrc-extract: no linux-source tarball (apt-get install linux-source-6.1, or set LINUX_SRC_TARBALL)" >&2
	exit 1
fi

# The first member is the top directory, e.g. "linux-source-6.1/".
top=$(tar -tJf "$tarball" 2>/dev/null | head -n1 || true)
top=${top%%/*}
[ -n "$top" ] || { echo "ksrc-extract: cannot list $tarball" >&2; exit 1; }

echo "  EXTRACT $(basename "$tarball"): ${files[*]}"
rm -rf "$build/ksrc" "$build/ksft"
mkdir -p "$build/ksrc" "$build/ksft"
tar -xJf "$tarball" -C "$build/ksrc" --strip-components=1 "${files[@]/#/$top/}"
cp "$build/ksrc/tools/testing/selftests/kselftest_harness.h" \
   "$build/ksrc/tools/testing/selftests/kselftest.h" "$build/ksft/"
touch "$stamp"
