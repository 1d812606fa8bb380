#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-compare A=<commit> B=<commit>: the write rows of make bench
# for two commits, in one guest boot, their modules loaded turn about
# (scripts/guest/bench-compare.sh), so that a change's effect is a ratio
# between commits, not between days.
#
#   scripts/bench-compare.sh A B
#
# Each commit's tree (git archive) goes to build/compare/<sha>/src, where
# its ketw.ko and ketw_bench.ko are built against KDIR (the same kernel
# for both) and its ketw tool and ketw-uprov-bench (with its own libketw)
# statically; a commit built before against the same KVER is not built
# again. The guest's harness is this tree's.
#
# Environment: KDIR, KVER, VMLINUZ (make's scripts/kernel.sh), BUILD
# (default build/), COMPARE_ROUNDS (default 4: each module loaded that
# many times), and run-vm.sh's VM_* knobs; BENCH_APPEND (default
# tsc=reliable) as for make bench.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
: "${KDIR:?set KDIR (make bench-compare does)}"
: "${KVER:?set KVER (make bench-compare does)}"
: "${VMLINUZ:?set VMLINUZ (make bench-compare does)}"
rounds=${COMPARE_ROUNDS:-4}
case $rounds in
'' | *[!0-9]* | 0) echo "bench-compare: COMPARE_ROUNDS=$rounds is not a number of rounds" >&2; exit 2 ;;
esac

[ $# = 2 ] && [ -n "$1" ] && [ -n "$2" ] ||
	{ echo "usage: make bench-compare A=<commit> B=<commit>" >&2; exit 2; }

resolve() {
	git -C "$top" rev-parse --verify --quiet "$1^{commit}" ||
		{ echo "bench-compare: '$1' is not a commit" >&2; exit 2; }
}
a=$(resolve "$1")
b=$(resolve "$2")

# build SHA: its module, bench module and static tool in build/compare/SHA.
build() {
	local sha=$1 d=$BUILD/compare/$1 log
	log=$d/build.log
	if [ -f "$d/built-$KVER" ]; then
		echo "  COMPARE ${sha:0:12}: built before ($d)"
		return
	fi
	echo "  COMPARE ${sha:0:12}: building in $d (log $log)"
	rm -rf "$d"
	mkdir -p "$d/src"
	git -C "$top" archive "$sha" | tar -C "$d/src" -xf -
	[ -f "$d/src/module/bench/ketw_bench.c" ] ||
		{ echo "bench-compare: ${sha:0:12} has no module/bench/ketw_bench.c" >&2; exit 1; }
	if ! { make -C "$KDIR" M="$d/src" modules &&
		make -C "$d/src/tools" ketw/ketw STATIC=1; } >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		echo "bench-compare: ${sha:0:12} does not build (all in $log)" >&2
		exit 1
	fi
	for f in module/ketw.ko module/bench/ketw_bench.ko tools/ketw/ketw; do
		[ -f "$d/src/$f" ] || { echo "bench-compare: ${sha:0:12} built no $f" >&2; exit 1; }
	done
	touch "$d/built-$KVER"
}

# uprov SHA: its user-provider bench, where the commit has one (the guest
# notes the rows skipped where not), also in a tree built before it was
# asked for.
uprov() {
	local d=$BUILD/compare/$1/src
	[ -f "$d/tools/bench/ketw-uprov-bench.c" ] || return 0
	[ ! -f "$d/tools/bench/ketw-uprov-bench" ] || return 0
	if ! make -C "$d/tools/bench" "$d/tools/bench/ketw-uprov-bench" \
		>>"$BUILD/compare/$1/build.log" 2>&1; then
		tail -n 30 "$BUILD/compare/$1/build.log" >&2
		echo "bench-compare: ${1:0:12}'s ketw-uprov-bench does not build" \
			"(all in $BUILD/compare/$1/build.log)" >&2
		exit 1
	fi
}
build "$a"
[ "$b" = "$a" ] || build "$b"
uprov "$a"
uprov "$b"

# What the guest gets in /ketw/bench: each side's files under its letter.
g=$BUILD/compare/guest
rm -rf "$g"
mkdir -p "$g"
for side in a b; do
	sha=$a
	[ $side = a ] || sha=$b
	s=$BUILD/compare/$sha/src
	cp "$s/module/ketw.ko" "$g/$side-ketw.ko"
	cp "$s/module/bench/ketw_bench.ko" "$g/$side-ketw_bench.ko"
	cp "$s/tools/ketw/ketw" "$g/$side-ketw"
	[ ! -f "$s/tools/bench/ketw-uprov-bench" ] ||
		cp "$s/tools/bench/ketw-uprov-bench" "$g/$side-ketw-uprov-bench"
	echo "$side $(git -C "$top" log -1 --format='%h %s' "$sha" | cut -c1-90)" >>"$g/compare.txt"
done
cp "$top/scripts/guest/bench-compare.sh" "$top/scripts/guest/bench-lib.sh" "$g/"

initrd=$BUILD/initramfs-bench-compare.cpio.gz
KETW_MODULES='' KETW_TOOL='' KETW_PROXY='' KETW_TESTS_DIR='' EXTRA_BINS='' KETW_STAGE='' \
	KETW_BENCH_FILES="$(echo "$g"/*)" "$top/scripts/mkinitramfs.sh" "$initrd"

# Each load takes about 20 s under TCG; boot and margin on top.
VMLINUZ=$VMLINUZ INITRD=$initrd VM_DIR=$BUILD/vm-bench-compare \
	VM_TIMEOUT=${VM_TIMEOUT:-$((600 + rounds * 2 * 60))} VM_DEBUG='' \
	BENCH_OUT=$BUILD/bench-compare.txt \
	VM_APPEND="${BENCH_APPEND-tsc=reliable} ketwbench=compare ketwrounds=$rounds ${VM_APPEND:-}" \
	"$top/scripts/run-vm.sh" bench
