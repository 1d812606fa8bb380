#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Pack the guest initramfs (cpio newc, gzip).
#
#   scripts/mkinitramfs.sh OUTPUT.cpio.gz
#
# Guest layout:
#   /init                   scripts/guest/init
#   /bin/busybox, /bin/sh   busybox-static (the rest is --install'ed by /init)
#   /ketw/<name>.ko         each of $KETW_MODULES, loaded in that order;
#                           /ketw/modules lists them
#   /ketw/ketw              $KETW_TOOL with its shared libraries (if set)
#   /ketw/ketw-fault-proxy  $KETW_PROXY (default tools/tests/ketw-fault-proxy,
#                           if built): the stream tests' fault proxy
#   /etc/hosts, /etc/nsswitch.conf, libnss_files
#                           name lookups on the loopback (trace-cmd -N)
#   /ketw/tests/            every file of $KETW_TESTS_DIR and the *.sh of
#                           $SELFTESTS_SRCDIR
#   /ketw/demo.sh           scripts/guest/demo.sh
#   /ketw/bench.sh          scripts/guest/bench.sh
#   /ketw/bench/            each of $KETW_BENCH_FILES (make bench: the
#                           ketw_bench.ko module and ketw-drain-bench)
#   <path>                  each of $EXTRA_BINS (make: /usr/bin/trace-cmd),
#                           with its shared libraries
#   /ketw/stage/            the staged root $KETW_STAGE (make stage: make
#                           install DESTDIR= plus samples/out-of-tree), if set
#   /ketw/kmod/             with it, kmod's modprobe and depmod (busybox's
#                           modprobe has no -d)
#   /ketw/bench-lttng.sh    scripts/guest/bench-lttng.sh (bench.sh runs it)
#   /ketw/lttng-merge.sh    scripts/guest/lttng-merge.sh (make lttng-test)
#   /ketw/lttng-lib.sh      scripts/guest/lttng-lib.sh (LTTng's daemon)
#   LTTng's kernel tracing  with KETW_LTTNG=1: scripts/initramfs-add-lttng.sh
#                           (lttng-tools, LTTng's modules; or
#                           /ketw/lttng/unavailable saying why not)
set -euo pipefail

out=${1:?usage: $0 OUTPUT.cpio.gz}
top=$(cd "$(dirname "$0")/.." && pwd)
: "${KETW_MODULES=$top/module/ketw.ko $top/module/samples/ketw_sample.ko $top/module/samples/ketw_stress.ko}"
: "${KETW_TOOL=$top/tools/ketw/ketw}"
: "${KETW_PROXY=$top/tools/tests/ketw-fault-proxy}"
: "${KETW_TESTS_DIR=$top/build/selftests/ketw}"
: "${SELFTESTS_SRCDIR=$top/selftests/ketw}"
: "${EXTRA_BINS=}"
: "${KETW_BENCH_FILES=}"
: "${KETW_STAGE=}"
: "${KETW_LTTNG=}"
: "${BUSYBOX:=/bin/busybox}"

stage=$out.d
rm -rf "$stage"
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,root,etc,ketw/tests}
add_bin() { "$top/scripts/initramfs-add-bin.sh" "$stage" "$@"; }

add_bin "$BUSYBOX" /bin/busybox
ln -s busybox "$stage/bin/sh"
install -m 0755 "$top/scripts/guest/init" "$stage/init"
install -m 0755 "$top/scripts/guest/demo.sh" "$stage/ketw/demo.sh"
install -m 0755 "$top/scripts/guest/bench.sh" "$stage/ketw/bench.sh"
install -m 0755 "$top/scripts/guest/bench-lttng.sh" "$stage/ketw/bench-lttng.sh"
install -m 0755 "$top/scripts/guest/lttng-merge.sh" "$stage/ketw/lttng-merge.sh"
install -m 0644 "$top/scripts/guest/lttng-lib.sh" "$stage/ketw/lttng-lib.sh"

: >"$stage/ketw/modules"
for ko in $KETW_MODULES; do
	[ -f "$ko" ] || { echo "mkinitramfs: missing module $ko (run make module)" >&2; exit 1; }
	install -m 0644 "$ko" "$stage/ketw/"
	basename "$ko" >>"$stage/ketw/modules"
done

if [ -n "$KETW_TOOL" ]; then
	[ -x "$KETW_TOOL" ] || { echo "mkinitramfs: missing tool $KETW_TOOL (run make tools)" >&2; exit 1; }
	add_bin "$KETW_TOOL" /ketw/ketw
fi

if [ -n "$KETW_PROXY" ] && [ -x "$KETW_PROXY" ]; then
	add_bin "$KETW_PROXY" /ketw/ketw-fault-proxy
fi

# Names on the loopback, for what resolves them (trace-cmd record -N):
# glibc reads nsswitch.conf and loads libnss_files for "files".
printf '127.0.0.1\tlocalhost ketw-guest\n::1\tlocalhost ip6-localhost\n' \
	>"$stage/etc/hosts"
printf 'hosts: files\npasswd: files\ngroup: files\n' >"$stage/etc/nsswitch.conf"
for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64 /usr/lib64; do
	if [ -e "$d/libnss_files.so.2" ]; then
		install -D -m 0644 "$(readlink -f "$d/libnss_files.so.2")" \
			"$stage$d/libnss_files.so.2"
		break
	fi
done

if [ -d "$KETW_TESTS_DIR" ]; then
	find "$KETW_TESTS_DIR" -maxdepth 1 -type f -exec install -m 0755 -t "$stage/ketw/tests" {} +
fi
find "$SELFTESTS_SRCDIR" -maxdepth 1 -type f -name '*.sh' \
	-exec install -m 0755 -t "$stage/ketw/tests" {} + 2>/dev/null || true

for f in $KETW_BENCH_FILES; do
	[ -f "$f" ] || { echo "mkinitramfs: missing bench file $f (run make bench)" >&2; exit 1; }
	install -D -m 0755 -t "$stage/ketw/bench" "$f"
done

for b in $EXTRA_BINS; do
	p=$(command -v "$b") || { echo "mkinitramfs: no $b (EXTRA_BINS; make deps installs trace-cmd)" >&2; exit 1; }
	add_bin "$p"
done

if [ -n "$KETW_STAGE" ]; then
	[ -d "$KETW_STAGE/lib/modules" ] || { echo "mkinitramfs: no staged root $KETW_STAGE (run make stage)" >&2; exit 1; }
	cp -a "$KETW_STAGE" "$stage/ketw/stage"
	kmod=$(command -v kmod) || { echo "mkinitramfs: no kmod (make deps installs it)" >&2; exit 1; }
	add_bin "$kmod" /ketw/kmod/kmod
	ln -s kmod "$stage/ketw/kmod/modprobe"
	ln -s kmod "$stage/ketw/kmod/depmod"
fi

[ "$KETW_LTTNG" != 1 ] || "$top/scripts/initramfs-add-lttng.sh" "$stage"

# /dev/console also comes from the kernel's built-in initramfs; add it
# when we can, so a kernel without one still has a console.
mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || true

(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
echo "  INITRD  $out ($(du -h "$out" | cut -f1), $(wc -l <"$stage/ketw/modules") modules," \
	"$(find "$stage/ketw/tests" -type f | wc -l) test files)"
