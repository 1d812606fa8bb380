/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the POSIX trace API's conformance tests (posix_*_test.c):
 * reading events with a deadline, collecting what a stream holds.
 */
#ifndef _KETW_POSIX_TEST_H
#define _KETW_POSIX_TEST_H

#include "ketw_test.h"
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <trace.h>

#define PT_NEED	(KETW_NEED_ROOT | KETW_NEED_DEV)

/* CLOCK_REALTIME @ms from now, for posix_trace_timedgetnext_event(). */
static inline struct timespec pt_abstime(long ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

static inline uint64_t pt_ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ull + ts->tv_nsec;
}

/*
 * The next event within @ms: 0 and *@ev; ETIMEDOUT; ENODATA when the
 * stream reported nothing left (unavailable); another error.
 */
static inline int pt_next(trace_id_t trid, struct posix_trace_event_info *ev,
			  void *data, size_t num, size_t *len, long ms)
{
	struct timespec at = pt_abstime(ms);
	int unavailable = 0;
	int err = posix_trace_timedgetnext_event(trid, ev, data, num, len,
						 &unavailable, &at);

	if (!err && unavailable)
		return ENODATA;
	return err;
}

/* Read until an event of @id: 0, or pt_next()'s error. */
static inline int pt_find(trace_id_t trid, trace_event_id_t id,
			  struct posix_trace_event_info *ev, void *data,
			  size_t num, size_t *len, long ms)
{
	int err;

	do {
		err = pt_next(trid, ev, data, num, len, ms);
	} while (!err && ev->posix_event_id != id);
	return err;
}

#define PT_SEEN_MAX	4096

/* What a stream or log reported, in order. */
struct pt_seen {
	unsigned int n;
	trace_event_id_t id[PT_SEEN_MAX];
	pid_t pid[PT_SEEN_MAX];
	int trunc[PT_SEEN_MAX];
	uint32_t val[PT_SEEN_MAX];	/* the first 4 bytes of the data */
	size_t len[PT_SEEN_MAX];
};

/*
 * Every event until the stream has none now (trygetnext), or until a log
 * ends (getnext: @log). Returns 0 or the error.
 */
static inline int pt_collect(trace_id_t trid, struct pt_seen *s, bool log)
{
	struct posix_trace_event_info ev;
	unsigned char data[512];
	size_t len;
	int unavailable, err;

	s->n = 0;
	for (;;) {
		err = log ? posix_trace_getnext_event(trid, &ev, data,
						      sizeof(data), &len,
						      &unavailable) :
			    posix_trace_trygetnext_event(trid, &ev, data,
							 sizeof(data), &len,
							 &unavailable);
		if (err || unavailable)
			return err;
		if (s->n == PT_SEEN_MAX)
			return E2BIG;
		s->id[s->n] = ev.posix_event_id;
		s->pid[s->n] = ev.posix_pid;
		s->trunc[s->n] = ev.posix_truncation_status;
		s->len[s->n] = len;
		s->val[s->n] = 0;
		memcpy(&s->val[s->n], data, len < 4 ? len : 4);
		s->n++;
	}
}

static inline unsigned int pt_count(const struct pt_seen *s,
				    trace_event_id_t id)
{
	unsigned int i, n = 0;

	for (i = 0; i < s->n; i++)
		n += s->id[i] == id;
	return n;
}

/* Index of the first event @id from @from, or -1. */
static inline int pt_index(const struct pt_seen *s, trace_event_id_t id,
			   unsigned int from)
{
	unsigned int i;

	for (i = from; i < s->n; i++)
		if (s->id[i] == id)
			return i;
	return -1;
}

/* posix_trace_event() of a 4-byte value. */
static inline void pt_event(trace_event_id_t id, uint32_t v)
{
	posix_trace_event(id, &v, sizeof(v));
}

/* The pid of a process that is gone (a child, reaped). */
static inline pid_t pt_dead_pid(void)
{
	pid_t pid = fork();

	if (!pid)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

#endif /* _KETW_POSIX_TEST_H */
