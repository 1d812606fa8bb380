#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build, or find in the cache, LTTng's kernel modules for the guest kernel.
#
#   scripts/lttng-modules.sh
#
# Prints a root directory on stdout that holds lib/modules/KVER/extra/
# lttng/**.ko with depmod's files beside them (modules.dep.bin and the
# others), ready to be copied into the guest's / (scripts/initramfs-add-
# lttng.sh). Progress goes to stderr. When LTTng cannot be had (no
# lttng-modules-dkms package to download, a build that fails) it prints
# one line "lttng-modules: <reason>" on stderr and exits 1.
#
# Debian's lttng-modules-dkms is never installed: its DKMS build fails
# against 6.1.0-56 (a stable update gave the hrtimer_start tracepoint an
# argument that src/probes/lttng-probe-timer.c does not know), and a
# failed postinst leaves dpkg half-configured. Instead the .deb is taken
# from apt's cache or fetched with apt-get download, unpacked with
# dpkg-deb -x, the probes of LTTNG_DROP_PROBES taken out of
# src/probes/Kbuild, and the rest built against KDIR with CONFIG_LTTNG=m,
# as the package's dkms.conf does. Modules lose their debug sections (the
# initramfs stays small).
#
# The result is cached in $KETW_CACHE (default ~/.cache/ketw), keyed by
# the package's version, the kernel (KVER and its Module.symvers), the
# dropped probes and the compiler; a later run takes a second.
#
# Environment: KVER, KDIR (default: scripts/kernel.sh's choice),
# KETW_CACHE, LTTNG_DROP_PROBES (default "timer"), JOBS (default: all CPUs).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
pkg=lttng-modules-dkms
cache=${KETW_CACHE:-$HOME/.cache/ketw}
drop=${LTTNG_DROP_PROBES-timer}
jobs=${JOBS:-$(nproc)}

die() { echo "lttng-modules: $*" >&2; exit 1; }

if [ -z "${KDIR:-}" ] || [ -z "${KVER:-}" ]; then
	k=$("$top/scripts/kernel.sh" --check) || die "no kernel to build against"
	eval "$k"
fi
[ -f "$KDIR/Makefile" ] || die "no kernel build directory $KDIR"
modsrc=/lib/modules/$KVER
for f in modules.builtin modules.builtin.modinfo modules.order; do
	[ -r "$modsrc/$f" ] || die "no $modsrc/$f (depmod needs the kernel's list of built-in modules)"
done
command -v depmod >/dev/null || die "no depmod (apt-get install kmod)"

# The package: the candidate version, from apt's cache or downloaded.
ver=$(apt-cache policy "$pkg" 2>/dev/null | sed -n 's/^ *Candidate: //p')
[ -n "$ver" ] && [ "$ver" != "(none)" ] ||
	die "apt knows no $pkg package (Debian's main archive has it)"
debname="${pkg}_${ver/:/%3a}_all.deb"
debs=$cache/debs
deb=
for d in /var/cache/apt/archives "$debs"; do
	[ -s "$d/$debname" ] && { deb=$d/$debname; break; }
done

key=$( { echo "$ver"; echo "$KVER"; md5sum <"$KDIR/Module.symvers" 2>/dev/null;
	echo "drop: $drop"; gcc --version | head -n 1; } | sha256sum | cut -c1-16)
upver=${ver#*:}
upver=${upver%%-*}
out=$cache/lttng-modules-$upver-$KVER-$key
if [ -f "$out/.ketw-done" ]; then
	echo "$out"
	exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.lock-lttng-modules-$key"
flock 9
if [ -f "$out/.ketw-done" ]; then
	echo "$out"
	exit 0
fi

if [ -z "$deb" ]; then
	mkdir -p "$debs"
	echo "lttng-modules: apt-get download $pkg=$ver" >&2
	(cd "$debs" && apt-get download "$pkg=$ver" >&2 2>"$debs/download.log") ||
		die "apt-get download $pkg=$ver failed: $(tail -n 1 "$debs/download.log")"
	deb=$debs/$debname
	[ -s "$deb" ] || die "apt-get download left no $deb"
fi

start=$(date +%s)
work=$out.build
rm -rf "$out" "$work"
mkdir -p "$work"
dpkg-deb -x "$deb" "$work/pkg" || die "dpkg-deb -x $deb failed"
src=$(find "$work/pkg/usr/src" -mindepth 1 -maxdepth 1 -type d -name 'lttng-modules-*' | head -n 1)
[ -n "$src" ] && [ -f "$src/src/probes/Kbuild" ] || die "$deb holds no lttng-modules source tree"
for p in $drop; do
	grep -q "lttng-probe-$p\.o" "$src/src/probes/Kbuild" ||
		{ rm -rf "$work"; die "src/probes/Kbuild has no lttng-probe-$p.o to drop (LTTNG_DROP_PROBES)"; }
	sed -i "/lttng-probe-$p\.o/d" "$src/src/probes/Kbuild"
done

echo "lttng-modules: building $(basename "$src") for $KVER with $jobs jobs" \
	"(about 2 min on 2 cores; without probes: ${drop:-none})" >&2
if ! make -C "$KDIR" M="$src" CONFIG_LTTNG=m -j"$jobs" modules \
	>"$work/build.log" 2>&1; then
	grep -m 3 -E 'error|Error' "$work/build.log" >&2 || true
	die "the build against $KDIR failed (log: $work/build.log)"
fi

root=$work/root
dest=$root/lib/modules/$KVER/extra/lttng
n=0
while IFS= read -r ko; do
	rel=${ko#"$src/src/"}
	install -D -m 0644 "$ko" "$dest/$rel"
	strip --strip-debug "$dest/$rel"
	n=$((n + 1))
done < <(find "$src/src" -name '*.ko' | sort)
[ "$n" -gt 0 ] || die "the build made no modules (log: $work/build.log)"
[ -f "$dest/tests/lttng-test.ko" ] || die "the build made no tests/lttng-test.ko"
for f in modules.builtin modules.builtin.modinfo modules.order; do
	install -m 0644 "$modsrc/$f" "$root/lib/modules/$KVER/$f"
done
depmod -b "$root" "$KVER" || die "depmod -b $root $KVER failed"
echo "$upver" >"$root/lib/modules/$KVER/extra/lttng/VERSION"
mv "$root" "$out"
rm -rf "$work"
touch "$out/.ketw-done"
echo "lttng-modules: $n modules in $out ($(($(date +%s) - start)) s)" >&2
echo "$out"
