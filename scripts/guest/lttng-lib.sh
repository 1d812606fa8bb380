# SPDX-License-Identifier: GPL-2.0
#
# LTTng's session daemon in the ketw guest: sourced by bench-lttng.sh
# and lttng-merge.sh. The initramfs has LTTng when it was packed with
# KETW_LTTNG=1 and LTTng could be had (scripts/initramfs-add-lttng.sh);
# otherwise /ketw/lttng/unavailable says why.
#
#   lttng_up      start lttng-sessiond (kernel tracing: it loads LTTng's
#                 modules through libkmod, with the probes of
#                 $LTTNG_PROBES) and load lttng-test.ko, whose
#                 /proc/lttng-test-filter-event logs N
#                 lttng_test_filter_event events for an N written to it.
#                 Returns 1 with $LTTNG_WHY set when something fails.
#   lttng_down    destroy every session, stop the daemon, unload
#                 lttng-test.ko.

LTTNG_LOG=/tmp/lttng-sessiond.log
LTTNG_PROC=/proc/lttng-test-filter-event
LTTNG_PROBES=${LTTNG_PROBES:-sched}
LTTNG_WHY=
lttng_pid=

lttng_up() {
	if [ ! -f /ketw/lttng/available ]; then
		LTTNG_WHY=$(cat /ketw/lttng/unavailable 2>/dev/null)
		[ -n "$LTTNG_WHY" ] ||
			LTTNG_WHY="the initramfs was packed without LTTng (KETW_LTTNG=1)"
		return 1
	fi
	echo "lttng: $(cat /ketw/lttng/available)"
	mkdir -p /var/run /root
	export HOME=/root
	# --background keeps its stderr for the log; it returns once the
	# daemon is ready.
	lttng-sessiond --background --kmod-probes="$LTTNG_PROBES" -v \
		>"$LTTNG_LOG" 2>&1
	rc=$?
	lttng_pid=$(cat /var/run/lttng/lttng-sessiond.pid 2>/dev/null)
	if [ $rc != 0 ] || [ -z "$lttng_pid" ]; then
		LTTNG_WHY="lttng-sessiond failed (rc=$rc): $(grep -i -m 1 'error' "$LTTNG_LOG")"
		return 1
	fi
	if ! lsmod | grep -q '^lttng_tracer '; then
		LTTNG_WHY="lttng-sessiond loaded no lttng-tracer module: $(grep -i -m 1 'modul' "$LTTNG_LOG")"
		return 1
	fi
	out=$(modprobe lttng-test 2>&1)
	if [ ! -e "$LTTNG_PROC" ]; then
		LTTNG_WHY="modprobe lttng-test made no $LTTNG_PROC: $out"
		return 1
	fi
	return 0
}

lttng_down() {
	lttng destroy --all >/dev/null 2>&1
	if [ -n "$lttng_pid" ]; then
		kill -TERM "$lttng_pid" 2>/dev/null
		i=0
		while kill -0 "$lttng_pid" 2>/dev/null && [ $i -lt 100 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		lttng_pid=
	fi
	! lsmod | grep -q '^lttng_test ' || rmmod lttng_test
}
