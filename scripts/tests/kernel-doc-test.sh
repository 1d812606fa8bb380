#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Every symbol the module exports (EXPORT_SYMBOL*() in module/) has a
# kernel-doc comment ("/**" then " * name() - ...") in module/: the
# drivers that call it read it there. make module's W=1 build checks
# each such comment's form (kernel-doc); this checks that there is one.
# Run by make check (make scripts-test).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/tap.sh"

syms=$(grep -rhoE 'EXPORT_SYMBOL(_GPL)?\([A-Za-z0-9_]+\)' "$top/module" --include='*.c' |
	sed -E 's/.*\((.*)\)/\1/' | sort -u)
[ -n "$syms" ] || { notok "the module exports symbols" "no EXPORT_SYMBOL found in module/"; tap_end kernel-doc; exit; }
for s in $syms; do
	if grep -rqE -B1 "^ \* $s\(\) - " "$top/module" --include='*.[ch]' &&
		grep -rhE -B1 "^ \* $s\(\) - " "$top/module" --include='*.[ch]' | grep -q '^/\*\*$'; then
		ok "$s has kernel-doc"
	else
		notok "$s has kernel-doc" "no '/**' and ' * $s() - ...' in module/"
	fi
done
tap_end kernel-doc
