#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build, or find in the cache, a debug kernel for the ketw guest.
#
#   scripts/debug-kernel.sh kasan|kcsan
#
# Prints the kernel build directory (a KDIR for out-of-tree modules, with
# arch/x86/boot/bzImage) on stdout; progress goes to stderr.
#
# The kernel is Debian's linux-source-6.1 (/usr/src/linux-source-6.1.tar.xz)
# configured as tinyconfig + scripts/kconfig/guest.config + <flavour>.config.
# It is cached outside the clone, in $KETW_CACHE (default ~/.cache/ketw),
# under a key made of the source package's version, the fragments and the
# compiler, and built only when that key has no finished build yet (a new
# build removes the flavour's older ones: 1-2 GB each). Every
# option of the fragments is checked after olddefconfig: one that Kconfig
# dropped (a missing dependency) stops the build with its name.
#
# Knobs: KETW_CACHE, KETW_KSRC_TARBALL, JOBS (default: all CPUs).
set -euo pipefail

flavour=${1:?usage: $0 kasan|kcsan}
top=$(cd "$(dirname "$0")/.." && pwd)
frags=("$top/scripts/kconfig/guest.config" "$top/scripts/kconfig/$flavour.config")
for f in "${frags[@]}"; do
	[ -r "$f" ] || { echo "debug-kernel: no config fragment $f" >&2; exit 1; }
done
tarball=${KETW_KSRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
[ -r "$tarball" ] || { echo "debug-kernel: no $tarball (install linux-source-6.1)" >&2; exit 1; }
cache=${KETW_CACHE:-$HOME/.cache/ketw}
jobs=${JOBS:-$(nproc)}

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null ||
	 stat -c %s-%Y "$tarball")
key=$( { echo "$srcver"; cat "${frags[@]}"; gcc --version | head -n 1; } |
	sha256sum | cut -c1-16)
out=$cache/kernel-$flavour-$key
if [ -f "$out/.ketw-done" ]; then
	echo "$out"
	exit 0
fi

mkdir -p "$cache"
# One build of a key at a time (two clones may share the cache).
exec 9>"$cache/.lock-$flavour-$key"
flock 9
if [ -f "$out/.ketw-done" ]; then
	echo "$out"
	exit 0
fi

src=$cache/src-$srcver
if [ ! -f "$src/.ketw-done" ]; then
	echo "debug-kernel: extracting $tarball" >&2
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xf "$tarball" -C "$src.tmp" --strip-components=1
	touch "$src.tmp/.ketw-done"
	mv "$src.tmp" "$src"
fi

start=$(date +%s)
rm -rf "$out"
mkdir -p "$out"
echo "debug-kernel: configuring $flavour (tinyconfig + fragments) in $out" >&2
make -s -C "$src" O="$out" tinyconfig >&2
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
	"${frags[@]}" >/dev/null
make -s -C "$src" O="$out" olddefconfig >&2
missing=()
while read -r line; do
	case $line in CONFIG_*=*) ;; *) continue ;; esac
	grep -qx "$line" "$out/.config" || missing+=("$line")
done < <(cat "${frags[@]}")
if [ ${#missing[@]} -gt 0 ]; then
	echo "debug-kernel: Kconfig dropped: ${missing[*]}" >&2
	exit 1
fi
echo "debug-kernel: building $flavour with $jobs jobs (4 to 10 min on 2 cores)" >&2
make -s -C "$src" O="$out" -j"$jobs" bzImage modules >&2
touch "$out/.ketw-done"
echo "debug-kernel: $flavour built in $(($(date +%s) - start)) s" >&2
# Builds of older configurations of this flavour are of no use any more.
for old in "$cache"/kernel-"$flavour"-*; do
	[ "$old" = "$out" ] || rm -rf "$old" "$cache/.lock-${old##*/kernel-}"
done
echo "$out"
