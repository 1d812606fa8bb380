// SPDX-License-Identifier: GPL-2.0
/*
 * The POSIX trace API (libketw-posix, <trace.h>) on the real module: the
 * trace controller's and the analyzer's functions on active streams,
 * each requirement of POSIX.1-2017 that a program can observe, and each
 * function's errors. Logs: posix_log_test; the process filter and the
 * standard's usage pattern: posix_pattern_test; attributes and event
 * sets, which need no kernel: tools/tests/test_posix.c too.
 */
#include "posix_test.h"
#include <sys/time.h>
#include "libketw.h"
#include "kselftest_harness.h"

/* A stream of this process, created and checked. */
static trace_id_t pt_create(struct __test_metadata *_metadata,
			    const trace_attr_t *attr)
{
	trace_id_t trid = 0;

	ASSERT_EQ(0, posix_trace_create(0, attr, &trid));
	return trid;
}

/* posix_trace_create(): a suspended stream, default attributes for NULL. */
TEST(create_suspended_with_defaults)
{
	struct posix_trace_status_info st;
	trace_attr_t attr;
	trace_id_t trid;
	int policy, inherit;
	size_t size;
	char name[TRACE_NAME_MAX];

	KETW_REQUIRE(PT_NEED);
	trid = pt_create(_metadata, NULL);
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	EXPECT_EQ(POSIX_TRACE_SUSPENDED, st.posix_stream_status);
	EXPECT_EQ(POSIX_TRACE_NOT_FULL, st.posix_stream_full_status);
	EXPECT_EQ(POSIX_TRACE_NO_OVERRUN, st.posix_stream_overrun_status);
	EXPECT_EQ(POSIX_TRACE_NOT_FLUSHING, st.posix_stream_flush_status);
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_get_attr(trid, &attr));
	ASSERT_EQ(0, posix_trace_attr_getstreamfullpolicy(&attr, &policy));
	EXPECT_EQ(POSIX_TRACE_LOOP, policy);
	ASSERT_EQ(0, posix_trace_attr_getinherited(&attr, &inherit));
	EXPECT_EQ(POSIX_TRACE_CLOSE_FOR_CHILD, inherit);
	ASSERT_EQ(0, posix_trace_attr_getname(&attr, name));
	EXPECT_STREQ("", name);
	ASSERT_EQ(0, posix_trace_attr_getstreamsize(&attr, &size));
	EXPECT_GT(size, 0);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/* posix_trace_create(): EINVAL, ESRCH, EPERM. */
TEST(create_errors)
{
	trace_attr_t attr;
	trace_id_t trid;
	int status;
	pid_t pid;

	KETW_REQUIRE(PT_NEED);
	memset(&attr, 0, sizeof(attr));	/* never initialized */
	EXPECT_EQ(EINVAL, posix_trace_create(0, &attr, &trid));
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr, POSIX_TRACE_FLUSH));
	/* FLUSH is a policy of streams with log only. */
	EXPECT_EQ(EINVAL, posix_trace_create(0, &attr, &trid));
	EXPECT_EQ(ESRCH, posix_trace_create(pt_dead_pid(), NULL, &trid));
	EXPECT_EQ(ESRCH, posix_trace_create(-5, NULL, &trid));
	/* A user without the privilege to trace. */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		if (setgid(1000) || setuid(1000))
			_exit(2);
		_exit(posix_trace_create(0, NULL, &trid) == EPERM ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* Up to TRACE_SYS_MAX streams at once, then EAGAIN. */
TEST(create_until_eagain)
{
	trace_id_t trids[TRACE_SYS_MAX + 1];
	trace_attr_t attr;
	int i, n, err = 0;

	KETW_REQUIRE(PT_NEED);
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 4096));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, 16));
	for (n = 0; n <= TRACE_SYS_MAX; n++) {
		err = posix_trace_create(0, &attr, &trids[n]);
		if (err)
			break;
	}
	EXPECT_EQ(EAGAIN, err);
	EXPECT_LE(n, TRACE_SYS_MAX);
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, posix_trace_shutdown(trids[i]));
	/* Room again. */
	ASSERT_EQ(0, posix_trace_create(0, &attr, &trids[0]));
	EXPECT_EQ(0, posix_trace_shutdown(trids[0]));
}

/* Every function taking a trid refuses a bad or stale one with EINVAL. */
TEST(invalid_trid)
{
	struct posix_trace_event_info ev;
	struct posix_trace_status_info st;
	struct timespec at = pt_abstime(10);
	trace_event_set_t set;
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t bad[2], trid;
	char name[TRACE_EVENT_NAME_MAX];
	size_t len;
	int un, i;

	KETW_REQUIRE(PT_NEED);
	trid = pt_create(_metadata, NULL);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	bad[0] = trid;		/* stale */
	bad[1] = 0x7fff00;	/* never given */
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	posix_trace_eventset_empty(&set);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(EINVAL, posix_trace_start(bad[i]));
		EXPECT_EQ(EINVAL, posix_trace_stop(bad[i]));
		EXPECT_EQ(EINVAL, posix_trace_shutdown(bad[i]));
		EXPECT_EQ(EINVAL, posix_trace_clear(bad[i]));
		EXPECT_EQ(EINVAL, posix_trace_flush(bad[i]));
		EXPECT_EQ(EINVAL, posix_trace_get_attr(bad[i], &attr));
		EXPECT_EQ(EINVAL, posix_trace_get_status(bad[i], &st));
		EXPECT_EQ(EINVAL, posix_trace_get_filter(bad[i], &set));
		EXPECT_EQ(EINVAL, posix_trace_set_filter(bad[i], &set,
							 POSIX_TRACE_SET_EVENTSET));
		EXPECT_EQ(EINVAL, posix_trace_trid_eventid_open(bad[i], "x", &id));
		EXPECT_EQ(EINVAL, posix_trace_eventid_get_name(bad[i],
						POSIX_TRACE_START, name));
		EXPECT_EQ(EINVAL, posix_trace_eventtypelist_getnext_id(bad[i],
								       &id, &un));
		EXPECT_EQ(EINVAL, posix_trace_eventtypelist_rewind(bad[i]));
		EXPECT_EQ(EINVAL, posix_trace_getnext_event(bad[i], &ev, name,
						sizeof(name), &len, &un));
		EXPECT_EQ(EINVAL, posix_trace_trygetnext_event(bad[i], &ev, name,
						sizeof(name), &len, &un));
		EXPECT_EQ(EINVAL, posix_trace_timedgetnext_event(bad[i], &ev,
						name, sizeof(name), &len, &un, &at));
		EXPECT_EQ(EINVAL, posix_trace_rewind(bad[i]));
		EXPECT_EQ(EINVAL, posix_trace_close(bad[i]));
	}
	/* A live stream is no log, and has no log to flush. */
	trid = pt_create(_metadata, NULL);
	EXPECT_EQ(EINVAL, posix_trace_rewind(trid));
	EXPECT_EQ(EINVAL, posix_trace_close(trid));
	EXPECT_EQ(EINVAL, posix_trace_flush(trid));
	EXPECT_EQ(0, posix_trace_shutdown(trid));
}

/* A trid is valid only in the process that created it. */
TEST(trid_not_valid_in_child)
{
	struct posix_trace_status_info st;
	trace_id_t trid;
	int status;
	pid_t pid;

	KETW_REQUIRE(PT_NEED);
	trid = pt_create(_metadata, NULL);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(posix_trace_get_status(trid, &st) == EINVAL &&
		      posix_trace_start(trid) == EINVAL &&
		      posix_trace_shutdown(trid) == EINVAL ? 0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* The child's exit did not take the stream. */
	EXPECT_EQ(0, posix_trace_get_status(trid, &st));
	EXPECT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * posix_trace_start(): RUNNING and a START event (its data: the filter);
 * posix_trace_stop(): SUSPENDED and a STOP event (data 0: explicit);
 * a second start or stop has no effect and records nothing; a stopped
 * stream starts again.
 */
TEST(start_stop_events)
{
	struct posix_trace_status_info st;
	struct posix_trace_event_info ev;
	trace_event_set_t set, got;
	struct pt_seen *seen = calloc(1, sizeof(*seen));
	unsigned char data[512];
	trace_event_id_t id;
	trace_id_t trid;
	size_t len;
	int val;

	KETW_REQUIRE(PT_NEED);
	ASSERT_NE(NULL, seen);
	trid = pt_create(_metadata, NULL);
	ASSERT_EQ(0, posix_trace_eventid_open("start_stop", &id));
	posix_trace_eventset_empty(&set);
	posix_trace_eventset_add(id + 1, &set);
	ASSERT_EQ(0, posix_trace_set_filter(trid, &set, POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	EXPECT_EQ(POSIX_TRACE_RUNNING, st.posix_stream_status);
	ASSERT_EQ(0, pt_next(trid, &ev, data, sizeof(data), &len, 1000));
	EXPECT_EQ(POSIX_TRACE_START, ev.posix_event_id);
	ASSERT_EQ(sizeof(got), len);
	memcpy(&got, data, sizeof(got));
	EXPECT_EQ(0, memcmp(&got, &set, sizeof(set)));
	EXPECT_EQ(0, posix_trace_start(trid));	/* running: no effect */
	pt_event(id, 1);
	ASSERT_EQ(0, posix_trace_stop(trid));
	EXPECT_EQ(0, posix_trace_stop(trid));	/* suspended: no effect */
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	EXPECT_EQ(POSIX_TRACE_SUSPENDED, st.posix_stream_status);
	ASSERT_EQ(0, pt_collect(trid, seen, false));
	EXPECT_EQ(0, pt_count(seen, POSIX_TRACE_START));
	EXPECT_EQ(1, pt_count(seen, id));
	ASSERT_EQ(1, pt_count(seen, POSIX_TRACE_STOP));
	EXPECT_EQ(seen->n - 1, pt_index(seen, POSIX_TRACE_STOP, 0));
	EXPECT_EQ(sizeof(int), seen->len[seen->n - 1]);
	memcpy(&val, &seen->val[seen->n - 1], sizeof(val));
	EXPECT_EQ(0, val);
	/* Suspended: events are not recorded. */
	pt_event(id, 2);
	ASSERT_EQ(0, pt_collect(trid, seen, false));
	EXPECT_EQ(0, seen->n);
	/* Started again (resumed): START, then the events. */
	ASSERT_EQ(0, posix_trace_start(trid));
	pt_event(id, 3);
	ASSERT_EQ(0, pt_collect(trid, seen, false));
	ASSERT_EQ(2, seen->n);
	EXPECT_EQ(POSIX_TRACE_START, seen->id[0]);
	EXPECT_EQ(id, seen->id[1]);
	EXPECT_EQ(3, seen->val[1]);
	EXPECT_EQ(0, posix_trace_shutdown(trid));
	free(seen);
}

__attribute__((noinline)) static void *pt_here(void)
{
	return __builtin_return_address(0);
}

/*
 * posix_trace_event(): the id, the process, the thread, the trace
 * point's address, the time, the data, NOT_TRUNCATED.
 */
TEST(event_info)
{
	struct posix_trace_event_info ev;
	char data[64];
	trace_event_id_t id;
	trace_id_t trid;
	uint64_t before, after;
	void *near;
	size_t len;

	KETW_REQUIRE(PT_NEED);
	trid = pt_create(_metadata, NULL);
	ASSERT_EQ(0, posix_trace_eventid_open("event_info", &id));
	EXPECT_GE(id, KETW_POSIX_USER_EVENT_MIN);
	ASSERT_EQ(0, posix_trace_start(trid));
	before = mono_ns();
	near = pt_here();
	posix_trace_event(id, "hello", 6);
	after = mono_ns();
	ASSERT_EQ(0, pt_find(trid, id, &ev, data, sizeof(data), &len, 1000));
	EXPECT_EQ(getpid(), ev.posix_pid);
	EXPECT_NE(0, pthread_equal(pthread_self(), ev.posix_thread_id));
	EXPECT_EQ(POSIX_TRACE_NOT_TRUNCATED, ev.posix_truncation_status);
	EXPECT_EQ(6, len);
	EXPECT_STREQ("hello", data);
	EXPECT_GE(pt_ts_ns(&ev.posix_timestamp), before);
	EXPECT_LE(pt_ts_ns(&ev.posix_timestamp), after);
	/* The call site: a few instructions after pt_here()'s. */
	ASSERT_NE(NULL, ev.posix_prog_address);
	EXPECT_GT((char *)ev.posix_prog_address, (char *)near);
	EXPECT_LT((char *)ev.posix_prog_address - (char *)near, 256);
	EXPECT_EQ(0, posix_trace_shutdown(trid));
}

/* Events from another thread carry that thread's id. */
static void *pt_thread_event(void *arg)
{
	pt_event(*(trace_event_id_t *)arg, 7);
	return NULL;
}

TEST(event_thread_id)
{
	struct posix_trace_event_info ev;
	trace_event_id_t id;
	trace_id_t trid;
	pthread_t t;
	char data[8];
	size_t len;

	KETW_REQUIRE(PT_NEED);
	trid = pt_create(_metadata, NULL);
	ASSERT_EQ(0, posix_trace_eventid_open("thread_ev", &id));
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_EQ(0, pthread_create(&t, NULL, pt_thread_event, &id));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, pt_find(trid, id, &ev, data, sizeof(data), &len, 1000));
	EXPECT_NE(0, pthread_equal(t, ev.posix_thread_id));
	EXPECT_EQ(0, pthread_equal(pthread_self(), ev.posix_thread_id));
	EXPECT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * posix_trace_eventid_open(): one id per name, the same for the same
 * name; ENAMETOOLONG; POSIX_TRACE_UNNAMED_USER_EVENT once the process
 * has TRACE_USER_EVENT_MAX names, and that event is traced.
 */
TEST(eventid_open_names)
{
	char name[TRACE_EVENT_NAME_MAX + 8];
	trace_event_id_t a, b, a2, id;
	struct posix_trace_event_info ev;
	trace_id_t trid;
	char data[8];
	size_t len;
	int i;

	KETW_REQUIRE(PT_NEED);
	ASSERT_EQ(0, posix_trace_eventid_open("alpha", &a));
	ASSERT_EQ(0, posix_trace_eventid_open("beta", &b));
	ASSERT_EQ(0, posix_trace_eventid_open("alpha", &a2));
	EXPECT_EQ(a, a2);
	EXPECT_NE(a, b);
	memset(name, 'n', sizeof(name));
	name[TRACE_EVENT_NAME_MAX] = '\0';
	EXPECT_EQ(ENAMETOOLONG, posix_trace_eventid_open(name, &id));
	name[TRACE_EVENT_NAME_MAX - 1] = '\0';	/* the longest */
	EXPECT_EQ(0, posix_trace_eventid_open(name, &id));
	for (i = 3; i < TRACE_USER_EVENT_MAX; i++) {
		snprintf(name, sizeof(name), "name%d", i);
		ASSERT_EQ(0, posix_trace_eventid_open(name, &id));
		ASSERT_NE(POSIX_TRACE_UNNAMED_USER_EVENT, id);
	}
	ASSERT_EQ(0, posix_trace_eventid_open("one-too-many", &id));
	EXPECT_EQ(POSIX_TRACE_UNNAMED_USER_EVENT, id);
	/* Names opened before stay. */
	ASSERT_EQ(0, posix_trace_eventid_open("alpha", &a2));
	EXPECT_EQ(a, a2);
	trid = pt_create(_metadata, NULL);
	ASSERT_EQ(0, posix_trace_start(trid));
	pt_event(POSIX_TRACE_UNNAMED_USER_EVENT, 9);
	ASSERT_EQ(0, pt_find(trid, POSIX_TRACE_UNNAMED_USER_EVENT, &ev, data,
			     sizeof(data), &len, 1000));
	EXPECT_EQ(4, len);
	EXPECT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * posix_trace_trid_eventid_open(), posix_trace_eventid_get_name(),
 * posix_trace_eventid_equal().
 */
TEST(trid_eventid_and_names)
{
	char name[TRACE_EVENT_NAME_MAX + 8];
	trace_event_id_t a, a2, b;
	trace_id_t trid;

	KETW_REQUIRE(PT_NEED);
	trid = pt_create(_metadata, NULL);
	ASSERT_EQ(0, posix_trace_trid_eventid_open(trid, "gamma", &a));
	ASSERT_EQ(0, posix_trace_eventid_open("gamma", &a2));
	EXPECT_EQ(a, a2);	/* one mapping for the stream and its process */
	ASSERT_EQ(0, posix_trace_trid_eventid_open(trid, "delta", &b));
	EXPECT_NE(a, b);
	memset(name, 'n', sizeof(name));
	name[TRACE_EVENT_NAME_MAX] = '\0';
	EXPECT_EQ(ENAMETOOLONG, posix_trace_trid_eventid_open(trid, name, &b));

	ASSERT_EQ(0, posix_trace_eventid_get_name(trid, a, name));
	EXPECT_STREQ("gamma", name);
	ASSERT_EQ(0, posix_trace_eventid_get_name(trid, a, name));
	EXPECT_STREQ("gamma", name);	/* the same every time */
	ASSERT_EQ(0, posix_trace_eventid_get_name(trid, POSIX_TRACE_START, name));
	EXPECT_STREQ("POSIX_TRACE_START", name);
	ASSERT_EQ(0, posix_trace_eventid_get_name(trid,
			POSIX_TRACE_UNNAMED_USER_EVENT, name));
	/* No name for it: EINVAL. */
	EXPECT_EQ(EINVAL, posix_trace_eventid_get_name(trid,
			KETW_POSIX_EVENT_ID_MAX - 1 == a ? a - 1 :
			KETW_POSIX_EVENT_ID_MAX - 1, name));
	EXPECT_EQ(EINVAL, posix_trace_eventid_get_name(trid, 5000, name));

	EXPECT_NE(0, posix_trace_eventid_equal(trid, a, a2));
	EXPECT_EQ(0, posix_trace_eventid_equal(trid, a, b));
	EXPECT_EQ(0, posix_trace_eventid_equal(trid, POSIX_TRACE_START,
					       POSIX_TRACE_STOP));
	EXPECT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * posix_trace_eventtypelist_getnext_id() and _rewind(): every event type
 * of the stream once, then unavailable; rewind starts over.
 */
TEST(eventtypelist)
{
	trace_event_id_t a, id, first = 0;
	trace_id_t trid;
	int un, n = 0, seen_a = 0, seen_start = 0, seen_error = 0;

	KETW_REQUIRE(PT_NEED);
	trid = pt_create(_metadata, NULL);
	ASSERT_EQ(0, posix_trace_trid_eventid_open(trid, "listed", &a));
	for (;;) {
		ASSERT_EQ(0, posix_trace_eventtypelist_getnext_id(trid, &id, &un));
		if (un)
			break;
		if (!n)
			first = id;
		n++;
		seen_a += id == a;
		seen_start += id == POSIX_TRACE_START;
		seen_error += id == POSIX_TRACE_ERROR;
	}
	EXPECT_EQ(1, seen_a);
	EXPECT_EQ(1, seen_start);
	EXPECT_EQ(1, seen_error);
	EXPECT_GE(n, 10);
	/* Past the end it stays unavailable. */
	ASSERT_EQ(0, posix_trace_eventtypelist_getnext_id(trid, &id, &un));
	EXPECT_NE(0, un);
	ASSERT_EQ(0, posix_trace_eventtypelist_rewind(trid));
	ASSERT_EQ(0, posix_trace_eventtypelist_getnext_id(trid, &id, &un));
	EXPECT_EQ(0, un);
	EXPECT_EQ(first, id);
	EXPECT_EQ(EINVAL, posix_trace_eventtypelist_getnext_id(trid, NULL, &un));
	EXPECT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * Data longer than max-data-size is cut when recorded
 * (TRUNCATED_RECORD); a reader's buffer smaller than the data gets
 * num_bytes of it (TRUNCATED_READ).
 */
TEST(truncation)
{
	struct posix_trace_event_info ev;
	unsigned char big[100], data[128];
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t trid;
	size_t len, i;

	KETW_REQUIRE(PT_NEED);
	for (i = 0; i < sizeof(big); i++)
		big[i] = i;
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, 16));
	trid = pt_create(_metadata, &attr);
	ASSERT_EQ(0, posix_trace_eventid_open("trunc", &id));
	ASSERT_EQ(0, posix_trace_start(trid));
	posix_trace_event(id, big, sizeof(big));
	posix_trace_event(id, big, 10);
	posix_trace_event(id, big, 16);
	ASSERT_EQ(0, pt_find(trid, id, &ev, data, sizeof(data), &len, 1000));
	EXPECT_EQ(POSIX_TRACE_TRUNCATED_RECORD, ev.posix_truncation_status);
	EXPECT_EQ(16, len);
	EXPECT_EQ(0, memcmp(data, big, 16));
	/* A buffer of 4 for 10 bytes. */
	ASSERT_EQ(0, pt_find(trid, id, &ev, data, 4, &len, 1000));
	EXPECT_EQ(POSIX_TRACE_TRUNCATED_READ, ev.posix_truncation_status);
	EXPECT_EQ(4, len);
	EXPECT_EQ(0, memcmp(data, big, 4));
	/* Exactly max-data-size: whole. */
	ASSERT_EQ(0, pt_find(trid, id, &ev, data, 16, &len, 1000));
	EXPECT_EQ(POSIX_TRACE_NOT_TRUNCATED, ev.posix_truncation_status);
	EXPECT_EQ(16, len);
	EXPECT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * posix_trace_set_filter() SET, ADD, SUB; posix_trace_get_filter();
 * filtered events are not recorded; a change while running records
 * FILTER with the old and the new set; system events filtered out are
 * not reported; a bad how is EINVAL.
 */
TEST(filter)
{
	struct pt_seen *seen = calloc(1, sizeof(*seen));
	struct posix_trace_event_info ev;
	trace_event_set_t set, got, sets[2];
	trace_event_id_t a, b, c;
	trace_id_t trid;
	size_t len;
	int m;

	KETW_REQUIRE(PT_NEED);
	ASSERT_NE(NULL, seen);
	trid = pt_create(_metadata, NULL);
	ASSERT_EQ(0, posix_trace_get_filter(trid, &got));
	posix_trace_eventset_empty(&set);
	EXPECT_EQ(0, memcmp(&set, &got, sizeof(set)));	/* empty at first */
	ASSERT_EQ(0, posix_trace_eventid_open("filt_a", &a));
	ASSERT_EQ(0, posix_trace_eventid_open("filt_b", &b));
	ASSERT_EQ(0, posix_trace_eventid_open("filt_c", &c));
	posix_trace_eventset_add(a, &set);
	ASSERT_EQ(0, posix_trace_set_filter(trid, &set, POSIX_TRACE_SET_EVENTSET));
	posix_trace_eventset_empty(&set);
	posix_trace_eventset_add(b, &set);
	ASSERT_EQ(0, posix_trace_set_filter(trid, &set, POSIX_TRACE_ADD_EVENTSET));
	ASSERT_EQ(0, posix_trace_get_filter(trid, &got));
	posix_trace_eventset_ismember(a, &got, &m);
	EXPECT_TRUE(m);
	posix_trace_eventset_ismember(b, &got, &m);
	EXPECT_TRUE(m);
	posix_trace_eventset_ismember(c, &got, &m);
	EXPECT_FALSE(m);
	EXPECT_EQ(EINVAL, posix_trace_set_filter(trid, &set, 42));
	EXPECT_EQ(EINVAL, posix_trace_set_filter(trid, NULL,
						 POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_get_filter(trid, &set));
	EXPECT_EQ(0, memcmp(&set, &got, sizeof(set)));	/* unchanged */

	ASSERT_EQ(0, posix_trace_start(trid));
	pt_event(a, 1);
	pt_event(b, 2);
	pt_event(c, 3);
	ASSERT_EQ(0, pt_collect(trid, seen, false));
	EXPECT_EQ(0, pt_count(seen, a));
	EXPECT_EQ(0, pt_count(seen, b));
	EXPECT_EQ(1, pt_count(seen, c));
	/* SUB while running: FILTER {a, b} -> {b}; a is recorded again. */
	posix_trace_eventset_empty(&set);
	posix_trace_eventset_add(a, &set);
	ASSERT_EQ(0, posix_trace_set_filter(trid, &set, POSIX_TRACE_SUB_EVENTSET));
	ASSERT_EQ(0, pt_find(trid, POSIX_TRACE_FILTER, &ev, sets, sizeof(sets),
			     &len, 1000));
	ASSERT_EQ(sizeof(sets), len);
	posix_trace_eventset_ismember(a, &sets[0], &m);
	EXPECT_TRUE(m);
	posix_trace_eventset_ismember(a, &sets[1], &m);
	EXPECT_FALSE(m);
	posix_trace_eventset_ismember(b, &sets[1], &m);
	EXPECT_TRUE(m);
	pt_event(a, 4);
	pt_event(b, 5);
	ASSERT_EQ(0, pt_collect(trid, seen, false));
	EXPECT_EQ(1, pt_count(seen, a));
	EXPECT_EQ(0, pt_count(seen, b));
	/* System events filtered out: no STOP, no START reported. */
	posix_trace_eventset_fill(&set, POSIX_TRACE_SYSTEM_EVENTS);
	ASSERT_EQ(0, posix_trace_set_filter(trid, &set, POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	pt_event(c, 6);
	ASSERT_EQ(0, pt_collect(trid, seen, false));
	EXPECT_EQ(1, seen->n);
	EXPECT_EQ(c, seen->id[0]);
	/* Everything filtered out. */
	posix_trace_eventset_fill(&set, POSIX_TRACE_ALL_EVENTS);
	ASSERT_EQ(0, posix_trace_set_filter(trid, &set, POSIX_TRACE_SET_EVENTSET));
	pt_event(c, 7);
	pt_event(POSIX_TRACE_UNNAMED_USER_EVENT, 8);
	ASSERT_EQ(0, pt_collect(trid, seen, false));
	EXPECT_EQ(0, seen->n);
	EXPECT_EQ(0, posix_trace_shutdown(trid));
	free(seen);
}

struct pt_waiter {
	trace_id_t trid;
	trace_event_id_t id;
	int err;
	int unavailable;
	trace_event_id_t got;
	uint64_t took_ns;
};

static void *pt_wait_thread(void *arg)
{
	struct pt_waiter *w = arg;
	struct posix_trace_event_info ev;
	uint64_t t0 = mono_ns();
	char data[64];
	size_t len;

	w->err = posix_trace_getnext_event(w->trid, &ev, data, sizeof(data),
					   &len, &w->unavailable);
	w->got = ev.posix_event_id;
	w->took_ns = mono_ns() - t0;
	return NULL;
}

/* posix_trace_getnext_event() waits for an event, without spinning. */
TEST(getnext_blocks_until_event)
{
	struct pt_waiter w = { 0 };
	struct pt_seen *seen = calloc(1, sizeof(*seen));
	struct timespec cpu0, cpu1;
	pthread_t t;

	KETW_REQUIRE(PT_NEED);
	w.trid = pt_create(_metadata, NULL);
	ASSERT_EQ(0, posix_trace_eventid_open("wake_up", &w.id));
	ASSERT_EQ(0, posix_trace_start(w.trid));
	ASSERT_EQ(0, pt_collect(w.trid, seen, false));	/* the START */
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
	ASSERT_EQ(0, pthread_create(&t, NULL, pt_wait_thread, &w));
	usleep(300 * 1000);
	pt_event(w.id, 1);
	ASSERT_EQ(0, pthread_join(t, NULL));
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
	EXPECT_EQ(0, w.err);
	EXPECT_EQ(0, w.unavailable);
	EXPECT_EQ(w.id, w.got);
	EXPECT_GE(w.took_ns, 250000000ull);
	/* It slept: far less CPU than the wait took. */
	EXPECT_LT(pt_ts_ns(&cpu1) - pt_ts_ns(&cpu0), w.took_ns / 4);
	EXPECT_EQ(0, posix_trace_shutdown(w.trid));
	free(seen);
}

/* A stream that stops wakes its reader: the STOP, then unavailable. */
TEST(getnext_returns_when_stopped)
{
	struct pt_waiter w = { 0 };
	struct posix_trace_event_info ev;
	char data[64];
	size_t len;
	pthread_t t;
	int un;

	KETW_REQUIRE(PT_NEED);
	w.trid = pt_create(_metadata, NULL);
	ASSERT_EQ(0, posix_trace_start(w.trid));
	ASSERT_EQ(0, pt_find(w.trid, POSIX_TRACE_START, &ev, data, sizeof(data),
			     &len, 1000));
	ASSERT_EQ(0, pthread_create(&t, NULL, pt_wait_thread, &w));
	usleep(200 * 1000);
	ASSERT_EQ(0, posix_trace_stop(w.trid));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, w.err);
	EXPECT_EQ(POSIX_TRACE_STOP, w.got);
	ASSERT_EQ(0, posix_trace_getnext_event(w.trid, &ev, data, sizeof(data),
					       &len, &un));
	EXPECT_NE(0, un);
	EXPECT_EQ(0, posix_trace_shutdown(w.trid));
}

static void pt_on_signal(int sig)
{
	(void)sig;
}

/* A signal ends the wait with EINTR, whatever SA_RESTART says. */
TEST(getnext_eintr)
{
	struct posix_trace_event_info ev;
	struct sigaction sa;
	struct itimerval it = { .it_value = { .tv_usec = 200000 } };
	trace_id_t trid;
	char data[8];
	size_t len;
	int un, round;

	KETW_REQUIRE(PT_NEED);
	trid = pt_create(_metadata, NULL);
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_EQ(0, pt_find(trid, POSIX_TRACE_START, &ev, data, sizeof(data),
			     &len, 1000));
	for (round = 0; round < 2; round++) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = pt_on_signal;
		sa.sa_flags = round ? SA_RESTART : 0;
		ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
		ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
		EXPECT_EQ(EINTR, posix_trace_getnext_event(trid, &ev, data,
						sizeof(data), &len, &un));
		struct timespec at = pt_abstime(5000);

		ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
		EXPECT_EQ(EINTR, posix_trace_timedgetnext_event(trid, &ev, data,
						sizeof(data), &len, &un, &at));
	}
	EXPECT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * posix_trace_timedgetnext_event(): ETIMEDOUT at the deadline; an
 * invalid abstime is EINVAL when it would wait, unchecked when an event
 * is there; a deadline past already with an event there is no timeout.
 */
TEST(timedgetnext)
{
	struct posix_trace_event_info ev;
	struct timespec at, bad = { .tv_nsec = 1000000000L };
	trace_event_id_t id;
	trace_id_t trid;
	uint64_t t0;
	char data[8];
	size_t len;
	int un;

	KETW_REQUIRE(PT_NEED);
	trid = pt_create(_metadata, NULL);
	ASSERT_EQ(0, posix_trace_eventid_open("timed", &id));
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_EQ(0, pt_find(trid, POSIX_TRACE_START, &ev, data, sizeof(data),
			     &len, 1000));
	at = pt_abstime(300);
	t0 = mono_ns();
	EXPECT_EQ(ETIMEDOUT, posix_trace_timedgetnext_event(trid, &ev, data,
						sizeof(data), &len, &un, &at));
	EXPECT_GE(mono_ns() - t0, 250000000ull);
	EXPECT_LT(mono_ns() - t0, 2000000000ull);
	EXPECT_EQ(EINVAL, posix_trace_timedgetnext_event(trid, &ev, data,
						sizeof(data), &len, &un, &bad));
	pt_event(id, 1);
	EXPECT_EQ(0, posix_trace_timedgetnext_event(trid, &ev, data,
						sizeof(data), &len, &un, &bad));
	EXPECT_EQ(id, ev.posix_event_id);
	pt_event(id, 2);
	at = pt_abstime(-1000);	/* passed */
	EXPECT_EQ(0, posix_trace_timedgetnext_event(trid, &ev, data,
						sizeof(data), &len, &un, &at));
	EXPECT_EQ(0, un);
	EXPECT_EQ(id, ev.posix_event_id);
	EXPECT_EQ(ETIMEDOUT, posix_trace_timedgetnext_event(trid, &ev, data,
						sizeof(data), &len, &un, &at));
	EXPECT_EQ(0, posix_trace_shutdown(trid));
}

/* posix_trace_trygetnext_event() never waits. */
TEST(trygetnext)
{
	struct posix_trace_event_info ev;
	trace_event_id_t id;
	trace_id_t trid;
	uint64_t t0;
	char data[8];
	size_t len;
	int un = 0;

	KETW_REQUIRE(PT_NEED);
	trid = pt_create(_metadata, NULL);
	ASSERT_EQ(0, posix_trace_eventid_open("try", &id));
	ASSERT_EQ(0, posix_trace_trygetnext_event(trid, &ev, data, sizeof(data),
						  &len, &un));
	EXPECT_NE(0, un);	/* suspended, empty */
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_EQ(0, pt_find(trid, POSIX_TRACE_START, &ev, data, sizeof(data),
			     &len, 1000));
	t0 = mono_ns();
	ASSERT_EQ(0, posix_trace_trygetnext_event(trid, &ev, data, sizeof(data),
						  &len, &un));
	EXPECT_NE(0, un);	/* running, empty */
	EXPECT_LT(mono_ns() - t0, 50000000ull);
	pt_event(id, 1);
	ASSERT_EQ(0, posix_trace_trygetnext_event(trid, &ev, data, sizeof(data),
						  &len, &un));
	EXPECT_EQ(0, un);
	EXPECT_EQ(id, ev.posix_event_id);
	EXPECT_EQ(EINVAL, posix_trace_trygetnext_event(trid, NULL, data,
						       sizeof(data), &len, &un));
	EXPECT_EQ(0, posix_trace_shutdown(trid));
}

/* posix_trace_shutdown() with a thread waiting in getnext: EINVAL there. */
TEST(shutdown_while_waiting)
{
	struct pt_waiter w[3] = { { 0 } };
	pthread_t t[3];
	trace_id_t trid;
	int i;

	KETW_REQUIRE(PT_NEED);
	trid = pt_create(_metadata, NULL);
	ASSERT_EQ(0, posix_trace_start(trid));
	for (i = 0; i < 3; i++) {
		w[i].trid = trid;
		ASSERT_EQ(0, pthread_create(&t[i], NULL, pt_wait_thread, &w[i]));
	}
	usleep(300 * 1000);
	/* One of them took the START; the others wait. */
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, pthread_join(t[i], NULL));
		if (w[i].err == 0) {
			EXPECT_EQ(POSIX_TRACE_START, w[i].got);
		} else {
			EXPECT_EQ(EINVAL, w[i].err);
		}
	}
	EXPECT_EQ(EINVAL, posix_trace_shutdown(trid));
}

/*
 * get_status: LOOP overwrote events: FULL and OVERRUN; reading the
 * status resets the overrun, not the full status.
 */
TEST(status_overrun_loop)
{
	struct posix_trace_status_info st;
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t trid;
	char pad[200] = { 0 };
	int i;

	KETW_REQUIRE(PT_NEED);
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 4096));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, 256));
	trid = pt_create(_metadata, &attr);
	ASSERT_EQ(0, posix_trace_eventid_open("flood", &id));
	ASSERT_EQ(0, posix_trace_start(trid));
	pin_cpu(0);
	for (i = 0; i < 2000; i++)
		posix_trace_event(id, pad, sizeof(pad));
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	EXPECT_EQ(POSIX_TRACE_RUNNING, st.posix_stream_status);
	EXPECT_EQ(POSIX_TRACE_FULL, st.posix_stream_full_status);
	EXPECT_EQ(POSIX_TRACE_OVERRUN, st.posix_stream_overrun_status);
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	EXPECT_EQ(POSIX_TRACE_NO_OVERRUN, st.posix_stream_overrun_status);
	EXPECT_EQ(POSIX_TRACE_FULL, st.posix_stream_full_status);
	EXPECT_EQ(EINVAL, posix_trace_get_status(trid, NULL));
	/* posix_trace_clear(): empty, NOT_FULL, still running. */
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(0, posix_trace_clear(trid));
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	EXPECT_EQ(POSIX_TRACE_NOT_FULL, st.posix_stream_full_status);
	EXPECT_EQ(POSIX_TRACE_SUSPENDED, st.posix_stream_status);
	EXPECT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * UNTIL_FULL: the stream stops when full (SUSPENDED, FULL); read, it
 * reports a STOP (data non-zero: the full policy) after the last event,
 * restarts once empty, and reports a START before the next event.
 */
TEST(until_full)
{
	struct pt_seen *seen = calloc(1, sizeof(*seen));
	struct posix_trace_status_info st;
	struct posix_trace_event_info ev;
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t trid;
	char pad[200] = { 0 };
	uint32_t val;
	size_t len;
	int i, stop, last;

	KETW_REQUIRE(PT_NEED);
	ASSERT_NE(NULL, seen);
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 4096));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, 256));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
						POSIX_TRACE_UNTIL_FULL));
	trid = pt_create(_metadata, &attr);
	ASSERT_EQ(0, posix_trace_eventid_open("fill", &id));
	ASSERT_EQ(0, posix_trace_start(trid));
	pin_cpu(0);
	for (i = 0; i < 2000; i++) {
		memcpy(pad, &i, sizeof(i));
		posix_trace_event(id, pad, sizeof(pad));
	}
	usleep(100 * 1000);	/* the stop runs from a work item */
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	EXPECT_EQ(POSIX_TRACE_SUSPENDED, st.posix_stream_status);
	EXPECT_EQ(POSIX_TRACE_FULL, st.posix_stream_full_status);
	EXPECT_EQ(POSIX_TRACE_OVERRUN, st.posix_stream_overrun_status);
	/* Started while still full: no error, it stays suspended till read. */
	EXPECT_EQ(0, posix_trace_start(trid));
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	EXPECT_EQ(POSIX_TRACE_SUSPENDED, st.posix_stream_status);
	ASSERT_EQ(0, pt_collect(trid, seen, false));
	stop = pt_index(seen, POSIX_TRACE_STOP, 0);
	ASSERT_GE(stop, 1);
	last = -1;
	for (i = 0; i < stop; i++)
		if (seen->id[i] == id)
			last = i;
	/* STOP after the last event (OVERFLOW and RESUME may come between). */
	ASSERT_GE(last, 0);
	for (i = last + 1; i < stop; i++)
		EXPECT_TRUE(seen->id[i] == POSIX_TRACE_OVERFLOW ||
			    seen->id[i] == POSIX_TRACE_RESUME);
	memcpy(&val, &seen->val[stop], sizeof(val));
	EXPECT_NE(0, val);
	/* Read empty, it ran again: a second START, after the STOP. */
	EXPECT_EQ(0, pt_index(seen, POSIX_TRACE_START, 0));
	EXPECT_EQ(2, pt_count(seen, POSIX_TRACE_START));
	EXPECT_GT(pt_index(seen, POSIX_TRACE_START, 1), stop);
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	EXPECT_EQ(POSIX_TRACE_RUNNING, st.posix_stream_status);
	pt_event(id, 4343);
	ASSERT_EQ(0, pt_find(trid, id, &ev, pad, sizeof(pad), &len, 1000));
	EXPECT_EQ(4343, *(uint32_t *)pad);
	EXPECT_EQ(0, posix_trace_shutdown(trid));
	free(seen);
}

/*
 * posix_trace_clear(): the recorded events are gone, the stream keeps
 * running and its names.
 */
TEST(clear)
{
	struct pt_seen *seen = calloc(1, sizeof(*seen));
	struct posix_trace_status_info st;
	trace_event_id_t id, id2;
	trace_id_t trid;
	char name[TRACE_EVENT_NAME_MAX];

	KETW_REQUIRE(PT_NEED);
	trid = pt_create(_metadata, NULL);
	ASSERT_EQ(0, posix_trace_eventid_open("cleared", &id));
	ASSERT_EQ(0, posix_trace_start(trid));
	pt_event(id, 1);
	pt_event(id, 2);
	ASSERT_EQ(0, posix_trace_clear(trid));
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	EXPECT_EQ(POSIX_TRACE_RUNNING, st.posix_stream_status);
	EXPECT_EQ(POSIX_TRACE_NOT_FULL, st.posix_stream_full_status);
	pt_event(id, 3);
	ASSERT_EQ(0, pt_collect(trid, seen, false));
	ASSERT_EQ(1, seen->n);
	EXPECT_EQ(id, seen->id[0]);
	EXPECT_EQ(3, seen->val[0]);
	ASSERT_EQ(0, posix_trace_eventid_get_name(trid, id, name));
	EXPECT_STREQ("cleared", name);
	ASSERT_EQ(0, posix_trace_eventid_open("cleared", &id2));
	EXPECT_EQ(id, id2);
	EXPECT_EQ(0, posix_trace_shutdown(trid));
	free(seen);
}

/* posix_trace_get_attr(): what create was given, and the stream's own. */
TEST(get_attr)
{
	struct timespec t0, t1, ct, res;
	trace_attr_t attr, got;
	trace_id_t trid;
	char name[TRACE_NAME_MAX], ver[TRACE_NAME_MAX];
	size_t size, maxdata;
	int policy, inherit;

	KETW_REQUIRE(PT_NEED);
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setname(&attr, "my-trace"));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 100000));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, 300));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
						POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, posix_trace_attr_setinherited(&attr, POSIX_TRACE_INHERITED));
	clock_gettime(CLOCK_REALTIME, &t0);
	trid = pt_create(_metadata, &attr);
	clock_gettime(CLOCK_REALTIME, &t1);
	/* Later changes to attr do not touch the stream. */
	ASSERT_EQ(0, posix_trace_attr_setname(&attr, "changed"));
	ASSERT_EQ(0, posix_trace_attr_init(&got));
	ASSERT_EQ(0, posix_trace_get_attr(trid, &got));
	ASSERT_EQ(0, posix_trace_attr_getname(&got, name));
	EXPECT_STREQ("my-trace", name);
	ASSERT_EQ(0, posix_trace_attr_getgenversion(&got, ver));
	EXPECT_NE(0, strlen(ver));
	ASSERT_EQ(0, posix_trace_attr_getstreamsize(&got, &size));
	EXPECT_GE(size, 100000);
	ASSERT_EQ(0, posix_trace_attr_getmaxdatasize(&got, &maxdata));
	EXPECT_EQ(300, maxdata);
	ASSERT_EQ(0, posix_trace_attr_getstreamfullpolicy(&got, &policy));
	EXPECT_EQ(POSIX_TRACE_UNTIL_FULL, policy);
	ASSERT_EQ(0, posix_trace_attr_getinherited(&got, &inherit));
	EXPECT_EQ(POSIX_TRACE_INHERITED, inherit);
	ASSERT_EQ(0, posix_trace_attr_getcreatetime(&got, &ct));
	EXPECT_GE(pt_ts_ns(&ct), pt_ts_ns(&t0));
	EXPECT_LE(pt_ts_ns(&ct), pt_ts_ns(&t1));
	ASSERT_EQ(0, posix_trace_attr_getclockres(&got, &res));
	EXPECT_GT(pt_ts_ns(&res), 0);
	EXPECT_EQ(EINVAL, posix_trace_get_attr(trid, NULL));
	EXPECT_EQ(0, posix_trace_shutdown(trid));
}

/* exec() and exit() take a process's streams with them. */
TEST(streams_go_with_process)
{
	struct ketw_session_info *infos;
	unsigned int nr, i, mine = 0;
	trace_id_t trid;
	char prefix[32];
	int status, fd;
	pid_t pid;

	KETW_REQUIRE(PT_NEED);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(posix_trace_create(0, NULL, &trid) ? 1 : 0);	/* no shutdown */
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	snprintf(prefix, sizeof(prefix), "posix-%d-", pid);
	fd = ketw_open();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ketw_sessions_get(fd, &infos, &nr));
	for (i = 0; i < nr; i++)
		mine += !strncmp(infos[i].name, prefix, strlen(prefix));
	EXPECT_EQ(0, mine);
	free(infos);
	close(fd);
}

TEST_HARNESS_MAIN
