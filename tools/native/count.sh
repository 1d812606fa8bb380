#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Instructions per write, natively (make native-count): the native bench's
# three rings (bench --count SIZE: ketw_ring_write(), the spinlock ring,
# the no-sync ring; one writer, LOOP, 4 MiB wrapping, the MONO clock) run
# under callgrind, which counts the instructions each function executes,
# callees included, here only inside bench's counted(). Unlike the
# timings, the counts do not depend on what else the machine runs: the
# same binary gives the same figures. They are no timing either: a write that waits
# (RDTSCP, a cache miss) costs more than its count says.
#
#   tools/native/count.sh [BENCH] [SIZE ...]
#   knobs: EVENTS (20000 writes of each ring per size, after a wrap)
set -eu

BENCH=${1:-build/native/bench}
[ $# -gt 0 ] && shift
SIZES=${*:-8 64 256}
EVENTS=${EVENTS:-20000}

command -v valgrind >/dev/null 2>&1 || {
	echo "count: valgrind not found (apt-get install valgrind)" >&2
	exit 2
}
[ -x "$BENCH" ] || { echo "count: $BENCH not built (make -C tools/native)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "instructions per write (callgrind, callees included), $EVENTS writes each after a wrap"
printf '%-8s %16s %14s %8s %14s %8s\n' payload ketw_ring_write "spinlock ring" ratio \
	"no-sync ring" ratio
for size in $SIZES; do
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" \
		--toggle-collect='counted*' \
		"$BENCH" --count "$size" --events "$EVENTS" >"$tmp/out" 2>&1 || {
		echo "count: valgrind failed: $(tail -3 "$tmp/out")" >&2
		exit 1
	}
	# The inclusive cost of each function from its callers' records
	# (fn= and cfn= name a function by "(id) name" the first time, by
	# "(id)" after; "calls=N ..." is followed by the cost line). Only
	# what ran inside counted() was collected, EVENTS writes of each.
	awk -v size="$size" -v events="$EVENTS" '
	/^c?fn=\([0-9]+\) / { id = $1; sub(/^c?fn=/, "", id); name[id] = $2 }
	/^cfn=/ { f = $1; sub(/^cfn=/, "", f) }
	/^calls=/ { getline; ir[f] += $2 }
	END {
		for (k in ir) {
			if (name[k] == "ketw_ring_write") w = ir[k] / events
			else if (name[k] ~ /^spin_write/) sp = ir[k] / events
			else if (name[k] ~ /^nosync_write/) ns = ir[k] / events
		}
		if (!w || !sp || !ns) { print "count: a function is missing" > "/dev/stderr"; exit 1 }
		printf "%5s B %16.1f %14.1f %8.2f %14.1f %8.2f\n", size, w, sp, w / sp, ns, w / ns
	}' "$tmp/cg"
done
