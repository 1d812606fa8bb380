// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: where a session's clock stands against CLOCK_REALTIME, for the
 * CLOCK section of a trace file and the stream's frames: files of several
 * machines then merge by wall-clock time.
 */
#include <errno.h>
#include <time.h>

#include "internal.h"

static uint64_t ketw_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int ketw_clock_offset(unsigned int clock, int64_t *offset, uint64_t *at)
{
	uint64_t r0, c, r1, best = UINT64_MAX;
	clockid_t id;
	int i;

	switch (clock) {
	case KETW_CLOCK_MONO:
		id = CLOCK_MONOTONIC;
		break;
	case KETW_CLOCK_BOOT:
		id = CLOCK_BOOTTIME;
		break;
	default:	/* LOCAL: sched_clock, not readable from here */
		return -EOPNOTSUPP;
	}
	/* The tightest of three reads between two of the real-time clock. */
	for (i = 0; i < 3; i++) {
		r0 = ketw_ns(CLOCK_REALTIME);
		c = ketw_ns(id);
		r1 = ketw_ns(CLOCK_REALTIME);
		if (r1 - r0 < best) {
			best = r1 - r0;
			*offset = (int64_t)(r0 + (r1 - r0) / 2 - c);
			*at = c;
		}
	}
	return 0;
}
