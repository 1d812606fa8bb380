#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a kernel module build (the arguments: make and its own) and fail if
# it fails or prints a warning: the compiler's, objtool's (a call inside
# a user access section, an unreachable instruction) or modpost's. The
# kernel's build lets those pass; ketw's module builds without any, on
# Debian's kernel and on the debug kernels (whose KASAN and UBSAN checks
# are calls objtool can catch where Debian's build has none).
#
#   scripts/kbuild.sh make -C KDIR M=DIR modules
set -o pipefail

log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$@" 2>&1 | tee "$log"
rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
# Not about ketw's code: a compiler other than the kernel's (the build
# goes on with it, and says so).
warnings=$(grep -E '(^|[[:space:]:])(warning|WARNING):' "$log" |
	grep -v 'the compiler differs from the one used to build the kernel')
if [ -n "$warnings" ]; then
	printf 'kbuild: the build above printed warnings:\n%s\n' "$warnings" >&2
	exit 1
fi
