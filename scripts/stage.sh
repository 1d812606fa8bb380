#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Stage a root the way a package build would, for the guest's oot_test:
# make install DESTDIR=ROOT, then samples/out-of-tree built from ROOT
# alone (a copy of its four files, ketw's header and Module.symvers from
# ROOT) and installed into ROOT too, depmod'ed.
#
#   scripts/stage.sh ROOT
#
# Environment: KVER and KDIR (the Makefile's scripts/kernel.sh choice);
# KMOD_DIR as for scripts/install.sh. Leaves ROOT.oot/, the sample's build.
set -euo pipefail

root=${1:?usage: $0 ROOT}
top=$(cd "$(dirname "$0")/.." && pwd)
: "${KVER:?}" "${KDIR:?}"
prefix=/usr/local

rm -rf "$root" "$root.oot"
DESTDIR=$root PREFIX=$prefix "$top/scripts/install.sh" install >/dev/null
mkdir -p "$root.oot"
cp "$top"/samples/out-of-tree/{Kbuild,Makefile,ketw_oot.c,ketw_oot.h} "$root.oot/"
make -s -C "$root.oot" KDIR="$KDIR" KETW_DIR="$root$prefix/src/ketw" >/dev/null
make -s -C "$root.oot" KDIR="$KDIR" INSTALL_MOD_PATH="$root" install 2>&1 |
	{ grep -v 'WARNING: could not open modules\.' || true; }
grep -qx "extra/ketw_oot.ko: updates/ketw.ko" "$root/lib/modules/$KVER/modules.dep" || {
	echo "stage: $root/lib/modules/$KVER/modules.dep lacks ketw_oot's dependency on ketw" >&2
	exit 1
}
echo "  STAGE   $root (ketw.ko and ketw_oot.ko for $KVER)"
