#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make vm-profile, in the QEMU guest: bench.sh runs this instead of
# itself when the kernel command line has ketwbench=profile. Never run
# on a host.
#
# perf samples the bench CPU on a timer (cpu-clock: TCG has no cycle
# counter) while ketw_bench writes events into N LOOP sessions; each
# sampled address is printed with its count, for the host to give to
# the part of the write that owns it (scripts/vm-profile.sh).
#
# Needs /ketw/bench/ketw_bench.ko, bench-lib.sh, perf (EXTRA_BINS=perf)
# and the ketw tool. Kernel command line knobs:
#   ketwprofsizes=8,64     payload sizes
#   ketwprofsessions=1,16  numbers of sessions taking each event
#   ketwprofevents=N       events per measurement (default 1000000)
# Prints, between "@@KETW@@ BENCH-TABLE-BEGIN" and "...-END" (the host
# saves them to build/vm-profile.raw):
#   RUN sessions=N size=S ps=PS      ketw_bench's figure for the run
#   SAMPLE COUNT SYM+OFF DSO         one line per sampled address
set -u

KETW=/ketw/ketw
DIR=/ketw/bench
TAG=profile
SIZES="8 64"
NSESSIONS="1 16"
EVENTS=1000000
OUT=/tmp/profile.out
for arg in $(cat /proc/cmdline); do
	case $arg in
	ketwprofsizes=*) SIZES=$(echo "${arg#*=}" | tr , ' ') ;;
	ketwprofsessions=*) NSESSIONS=$(echo "${arg#*=}" | tr , ' ') ;;
	ketwprofevents=[1-9]*) EVENTS=${arg#*=} ;;
	esac
done
# shellcheck source=scripts/guest/bench-lib.sh
. $DIR/bench-lib.sh

command -v perf >/dev/null || die "no perf in the guest (make vm-profile adds the host's)"
insmod $DIR/ketw_bench.ko || die "insmod ketw_bench.ko"
echo "$EVENTS" >"$PARAMS/iters" || die "ketw_bench iters"
echo 1 >"$PARAMS/reps" || die "ketw_bench reps"
cpu=$(cat "$PARAMS/cpu")
# Module symbols for perf; root only, in this throwaway guest.
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid

: >"$OUT"
nsess=0
for n in $NSESSIONS; do
	while [ $nsess -lt "$n" ]; do
		nsess=$((nsess + 1))
		$KETW start -s "kprof$nsess" -b 1024 -P loop -p ketw-bench \
			>/dev/null || die "ketw start: session $nsess of $n"
	done
	echo "$n" >"$PARAMS/sessions" || die "ketw_bench sessions=$n"
	for s in $SIZES; do
		echo "profile: $n session(s), $s B"
		# A run unprofiled first: warm-up, and the figure without perf.
		bench_try write "$s" || die "ketw_bench write $s"
		plain=$(kv ps)
		perf record -q -C "$cpu" -e cpu-clock -c 20000 -o /tmp/p.data -- \
			sh -c "echo 'write $s' >$PARAMS/run" ||
			die "perf record (see dmesg)"
		res=$(cat "$PARAMS/result")
		echo "RUN sessions=$n size=$s ps=$(kv ps) plain_ps=$plain" >>"$OUT"
		perf script -i /tmp/p.data -F ip,sym,symoff,dso 2>/dev/null |
			awk '{ print $2, $3 }' | sort | uniq -c |
			awk '{ print "SAMPLE", $1, $2, $3 }' >>"$OUT"
	done
done
$KETW reset --all --yes >/dev/null 2>&1
rmmod ketw_bench

mark "BENCH-TABLE-BEGIN"
cat "$OUT"
mark "BENCH-TABLE-END"
