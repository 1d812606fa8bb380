#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Choose the kernel that ketw builds against and boots in the guest.
#
#   scripts/kernel.sh            prints KVER=..., KDIR=..., VMLINUZ=...
#                                (three lines, for eval or make)
#   scripts/kernel.sh --check    the same, and fails unless KDIR and
#                                VMLINUZ are usable
#
# The Makefile calls this from the recipes that need a kernel, never when
# it parses itself: make check, demo and bench install the kernel packages
# (scripts/deps.sh) first, in the same make run.
#
# Environment (each optional; the Makefile passes its own variables):
#   KDIR     a kernel build tree: wins; KVER is read from it
#   KVER     an installed version: /lib/modules/$KVER/build
#   VMLINUZ  the guest kernel image; default KDIR's
#            arch/x86/boot/bzImage, else /boot/vmlinuz-$KVER
#   KETW_SYSROOT  a prefix for /lib/modules and /boot (the host test
#            scripts/tests/kernel-select-test.sh uses a fake root)
#
# Without KDIR and KVER: the newest version (sort -V) with both
# /lib/modules/<version>/build and /boot/vmlinuz-<version>. What runs on
# the build host does not matter: the module only loads in the guest.
# When nothing fits, one line on stderr names what is missing; exit 1.
set -euo pipefail

root=${KETW_SYSROOT:-}
check=0
[ "${1:-}" = --check ] && check=1

die() { echo "kernel: $*" >&2; exit 1; }

kver=${KVER:-}
kdir=${KDIR:-}
if [ -n "$kdir" ]; then
	# The release modules are built for (vermagic) is UTS_RELEASE: in
	# Debian's headers kernel.release says 6.1.192 for 6.1.0-56-amd64.
	[ -n "$kver" ] || kver=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
		"$kdir/include/generated/utsrelease.h" 2>/dev/null || true)
	[ -n "$kver" ] || kver=$(cat "$kdir/include/config/kernel.release" 2>/dev/null || true)
elif [ -z "$kver" ]; then
	kver=$(for d in "$root"/lib/modules/*/build; do
		v=${d%/build}
		v=${v##*/}
		if [ -d "$d" ] && [ -e "$root/boot/vmlinuz-$v" ]; then
			echo "$v"
		fi
	done | sort -V | tail -n 1)
fi
[ -n "$kdir" ] || { [ -z "$kver" ] || kdir=$root/lib/modules/$kver/build; }

vmlinuz=${VMLINUZ:-}
if [ -z "$vmlinuz" ]; then
	if [ -n "$kdir" ] && [ -e "$kdir/arch/x86/boot/bzImage" ]; then
		vmlinuz=$kdir/arch/x86/boot/bzImage
	elif [ -n "$kver" ]; then
		vmlinuz=$root/boot/vmlinuz-$kver
	fi
fi

if [ $check = 1 ]; then
	if [ -z "$kdir" ]; then
		heads=$(ls -d "$root"/lib/modules/*/build 2>/dev/null | head -n 1 || true)
		if [ -n "$heads" ]; then
			die "no /boot/vmlinuz-<version> for any $root/lib/modules/<version>/build (install linux-image-amd64, or set KDIR or KVER and VMLINUZ)"
		fi
		die "no kernel headers: $root/lib/modules/*/build is missing (install linux-headers-amd64 and linux-image-amd64, or set KDIR)"
	fi
	[ -d "$kdir" ] || die "KDIR=$kdir is not a directory (install linux-headers-$kver, or set KDIR)"
	[ -f "$kdir/Makefile" ] || die "KDIR=$kdir has no Makefile: not a kernel build tree"
	[ -n "$vmlinuz" ] || die "no guest kernel image: set VMLINUZ (KDIR=$kdir has no arch/x86/boot/bzImage)"
	[ -r "$vmlinuz" ] || die "cannot read the guest kernel $vmlinuz (install linux-image-$kver, or set VMLINUZ)"
fi

echo "KVER=$kver"
echo "KDIR=$kdir"
echo "VMLINUZ=$vmlinuz"
