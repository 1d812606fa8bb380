#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Put LTTng's kernel tracing into an initramfs staging tree, if it can
# be had; never fails for want of it.
#
#   scripts/initramfs-add-lttng.sh ROOT
#
# Adds, when lttng-tools is installed and scripts/lttng-modules.sh has
# (or builds) LTTng's modules for the guest kernel:
#   /usr/bin/lttng, /usr/bin/lttng-sessiond and lttng-consumerd at its
#   libexec path, with their shared libraries
#   /lib/modules/KVER/...     LTTng's modules and depmod's files (the
#                             session daemon loads them through libkmod)
#   /usr/share/xml/lttng/session.xsd
#   /etc/passwd, /etc/group   root, and the 'tracing' group the session
#                             daemon looks up
#   /ketw/lttng/available     LTTng's version
# Otherwise only /ketw/lttng/unavailable, one line saying why: the guest
# scripts (scripts/guest/bench-lttng.sh, lttng-merge.sh) print it.
set -uo pipefail

root=${1:?usage: $0 ROOT}
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root/ketw/lttng"

unavailable() {
	echo "$*" >"$root/ketw/lttng/unavailable"
	echo "  LTTNG   not in the guest: $*" >&2
	exit 0
}

bins=(/usr/bin/lttng /usr/bin/lttng-sessiond)
consumerd=
for d in /usr/lib/x86_64-linux-gnu/lttng/libexec /usr/lib/lttng/libexec /usr/libexec/lttng; do
	[ -x "$d/lttng-consumerd" ] && { consumerd=$d/lttng-consumerd; break; }
done
for b in "${bins[@]}"; do
	[ -x "$b" ] || unavailable "no $b (apt-get install lttng-tools)"
done
[ -n "$consumerd" ] || unavailable "no lttng-consumerd (apt-get install lttng-tools)"
xsd=/usr/share/xml/lttng/session.xsd
[ -r "$xsd" ] || unavailable "no $xsd (apt-get install liblttng-ctl0)"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
mods=$("$top/scripts/lttng-modules.sh" 2> >(tee "$log" >&2))
rc=$?
wait
if [ $rc -ne 0 ] || [ ! -d "$mods/lib/modules" ]; then
	why=$(grep '^lttng-modules: ' "$log" | tail -n 1)
	unavailable "${why:-lttng-modules: scripts/lttng-modules.sh failed}"
fi

for b in "${bins[@]}" "$consumerd"; do
	"$top/scripts/initramfs-add-bin.sh" "$root" "$b" ||
		unavailable "cannot copy $b and its libraries"
done
mkdir -p "$root/lib/modules"
cp -a "$mods/lib/modules/." "$root/lib/modules/"
install -D -m 0644 "$xsd" "$root$xsd"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\ntracing:x:900:root\n' >"$root/etc/group"
ver=$(cat "$mods"/lib/modules/*/extra/lttng/VERSION 2>/dev/null)
echo "lttng-tools $(dpkg-query -W -f='${Version}' lttng-tools 2>/dev/null)," \
	"lttng-modules ${ver:-?}" >"$root/ketw/lttng/available"
echo "  LTTNG   in the guest: $(cat "$root/ketw/lttng/available")" >&2
