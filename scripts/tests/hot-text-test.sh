#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of module/ketw.ko's layout: the one-session write path
# (ketw_ring_write() and __ketw_write(), KETW_HOT_TEXT in module/ring.h)
# is one page-aligned section no larger than a page, so that a call
# between them never crosses a page. A change that makes either function
# grow past the page fails here, not as a guest figure that drifts. Run
# by make check (make scripts-test) after make all.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
ko=$top/module/ketw.ko
. "$top/scripts/tap.sh"

if [ ! -f "$ko" ]; then
	notok "module/ketw.ko is built" "no $ko: run make module first"
	tap_end hot-text
	exit
fi
sec=$(readelf -SW "$ko" | awk '$2 == ".text.ketw_hot" { print $6, $NF }')
read -r size align <<<"${sec:-}"
if [ -z "$sec" ]; then
	notok "ketw.ko has a .text.ketw_hot section" "$(readelf -SW "$ko" | grep -c text) text sections, none of them it"
else
	ok "ketw.ko has a .text.ketw_hot section"
	if [ "$align" = 4096 ]; then
		ok "it is page-aligned"
	else
		notok "it is page-aligned" "alignment $align"
	fi
	if [ $((16#$size)) -le 4096 ]; then
		ok "it fits in a page ($((16#$size)) bytes)"
	else
		notok "it fits in a page" "$((16#$size)) bytes: move code out of ketw_ring_write() or __ketw_write(), or drop one from KETW_HOT_TEXT"
	fi
fi
in_hot=$(objdump -t "$ko" | awk 'NF >= 6 && $(NF - 2) == ".text.ketw_hot" && $3 == "F" { print $NF }' | sort | tr "\n" " ")
if [ "$in_hot" = "__ketw_write ketw_ring_write " ]; then
	ok "it holds ketw_ring_write() and __ketw_write()"
else
	notok "it holds ketw_ring_write() and __ketw_write()" "it holds: ${in_hot:-nothing}"
fi
tap_end hot-text
