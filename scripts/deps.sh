#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian 12 packages that building and testing ketw needs,
# only those that are missing. Without root it names them and fails.
# flex, bison, bc, libelf-dev and libssl-dev build the debug kernels
# (scripts/debug-kernel.sh) from linux-source-6.1. kmod (depmod, and
# modprobe -d in the guest), dkms, openssl (its throwaway signing key)
# and pkgconf (a program built against the staged ketw.pc) are for make
# install-check. python3-docutils checks Documentation/*.rst
# (scripts/tests/docs-test.sh); sparse checks the kernel sources (make
# sparse). babeltrace2, libbabeltrace2-dev,
# python3-bt2 and chromium are for the viewers (make viewers-test: the
# babeltrace2 plugin is built against libbabeltrace2, tested with
# babeltrace2 and its Python bindings; ketw plot is screenshotted by
# headless Chromium). lttng-tools (lttng, lttng-sessiond, lttng-consumerd)
# go into the guest for make bench's ketw-vs-LTTng row and make
# lttng-test; LTTng's kernel modules are built from lttng-modules-dkms's
# source by scripts/lttng-modules.sh, never installed (its DKMS build
# fails against Debian's 6.1 kernel).
set -euo pipefail

pkgs=(
	make gcc libc6-dev clang
	linux-image-amd64 linux-headers-amd64 linux-source-6.1
	qemu-system-x86 busybox-static cpio gzip xz-utils
	libclang-rt-14-dev
	trace-cmd libtracefs-dev libtraceevent-dev
	flex bison bc libelf-dev libssl-dev
	kmod dkms openssl pkgconf
	python3-docutils sparse
	babeltrace2 libbabeltrace2-dev python3-bt2 chromium
	lttng-tools
)

missing=()
for p in "${pkgs[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: missing Debian packages: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: run as root: apt-get install ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
