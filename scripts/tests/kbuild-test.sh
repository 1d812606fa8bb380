#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of scripts/kbuild.sh, the wrapper that fails a module build
# on any warning, with fake builds that print what Kbuild's tools print.
# Run by make check (make scripts-test).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/tap.sh"

# case NAME WANT_RC TEXT [BUILD_RC]: a build that prints TEXT and exits BUILD_RC.
case_() {
	local out rc
	out=$("$top/scripts/kbuild.sh" bash -c "printf '%b' \"\$1\"; exit \$2" _ "$3" "${4:-0}" 2>&1)
	rc=$?
	if [ "$rc" = "$2" ]; then ok "$1"; else notok "$1" "want rc $2, got $rc" "$out"; fi
}

case_ "a clean build passes" 0 "  CC [M]  module/ring.o\n  LD [M]  module/ketw.ko\n"
case_ "objtool's warning fails it" 1 \
	"  CC [M]  module/user_write.o\nmodule/user_write.o: warning: objtool: ketw_user_writev+0x2a1: call to __access_ok() with UACCESS enabled\n"
case_ "the compiler's warning fails it" 1 \
	"module/ring.c:12:5: warning: unused variable 'x' [-Wunused-variable]\n"
case_ "modpost's warning fails it" 1 \
	"WARNING: modpost: module/ketw: section mismatch in reference\n"
case_ "a failed build keeps its status" 2 "module/ring.c:1: error: oops\n" 2
case_ "another compiler than the kernel's passes" 0 \
	"warning: the compiler differs from the one used to build the kernel\n"
case_ "a word that only contains 'warning' passes" 0 \
	"  CC [M]  module/nowarning.o\n"

tap_end kbuild-test
