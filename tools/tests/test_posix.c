// SPDX-License-Identifier: GPL-2.0
/*
 * Tests: libketw-posix without a kernel: attributes, event sets, event
 * names, and logs read from .ketw files built here (the analyzer's
 * translation of records into POSIX events). The guest's
 * selftests/ketw/posix_*_test.c cover the rest.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "test.h"
#include "trace.h"

TEST(posix_attr_defaults_and_sets)
{
	trace_attr_t a;
	struct timespec ts;
	char s[TRACE_NAME_MAX];
	size_t z;
	int v;

	ASSERT_EQ(posix_trace_attr_init(&a), 0);
	CHECK_EQ(posix_trace_attr_getname(&a, s), 0);
	CHECK_STR(s, "");
	CHECK_EQ(posix_trace_attr_getgenversion(&a, s), 0);
	CHECK_CONTAINS(s, "ketw-posix");
	CHECK_EQ(posix_trace_attr_getclockres(&a, &ts), 0);
	CHECK(ts.tv_sec || ts.tv_nsec);
	CHECK_EQ(posix_trace_attr_getcreatetime(&a, &ts), 0);
	CHECK_EQ(posix_trace_attr_getstreamfullpolicy(&a, &v), 0);
	CHECK_EQ(v, POSIX_TRACE_LOOP);
	CHECK_EQ(posix_trace_attr_getlogfullpolicy(&a, &v), 0);
	CHECK_EQ(v, POSIX_TRACE_LOOP);
	CHECK_EQ(posix_trace_attr_getinherited(&a, &v), 0);
	CHECK_EQ(v, POSIX_TRACE_CLOSE_FOR_CHILD);
	CHECK_EQ(posix_trace_attr_getstreamsize(&a, &z), 0);
	CHECK_EQ(z, 65536);
	CHECK_EQ(posix_trace_attr_getmaxdatasize(&a, &z), 0);
	CHECK_EQ(z, 1024);
	CHECK_EQ(posix_trace_attr_getlogsize(&a, &z), 0);
	CHECK_EQ(z, 16 * 1024 * 1024);

	/* Every setter, then its getter. */
	CHECK_EQ(posix_trace_attr_setname(&a, "0123456789012345678901234567890123456789"), 0);
	CHECK_EQ(posix_trace_attr_getname(&a, s), 0);
	CHECK_EQ(strlen(s), TRACE_NAME_MAX - 1);	/* cut */
	CHECK_EQ(posix_trace_attr_setstreamfullpolicy(&a, POSIX_TRACE_UNTIL_FULL), 0);
	CHECK_EQ(posix_trace_attr_getstreamfullpolicy(&a, &v), 0);
	CHECK_EQ(v, POSIX_TRACE_UNTIL_FULL);
	CHECK_EQ(posix_trace_attr_setstreamfullpolicy(&a, POSIX_TRACE_FLUSH), 0);
	CHECK_EQ(posix_trace_attr_setlogfullpolicy(&a, POSIX_TRACE_APPEND), 0);
	CHECK_EQ(posix_trace_attr_getlogfullpolicy(&a, &v), 0);
	CHECK_EQ(v, POSIX_TRACE_APPEND);
	CHECK_EQ(posix_trace_attr_setinherited(&a, POSIX_TRACE_INHERITED), 0);
	CHECK_EQ(posix_trace_attr_getinherited(&a, &v), 0);
	CHECK_EQ(v, POSIX_TRACE_INHERITED);
	CHECK_EQ(posix_trace_attr_setstreamsize(&a, 100000), 0);
	CHECK_EQ(posix_trace_attr_getstreamsize(&a, &z), 0);
	CHECK_EQ(z, 100000);
	CHECK_EQ(posix_trace_attr_setmaxdatasize(&a, 0), 0);
	CHECK_EQ(posix_trace_attr_setmaxdatasize(&a, 300), 0);
	CHECK_EQ(posix_trace_attr_getmaxdatasize(&a, &z), 0);
	CHECK_EQ(z, 300);
	CHECK_EQ(posix_trace_attr_setlogsize(&a, 5000), 0);
	CHECK_EQ(posix_trace_attr_getlogsize(&a, &z), 0);
	CHECK_EQ(z, 5000);
	/* Sizes of events: 64 + 48 + 40 + data, rounded to 8. */
	CHECK_EQ(posix_trace_attr_getmaxusereventsize(&a, 10, &z), 0);
	CHECK_EQ(z, 64 + 48 + 40 + 16);
	CHECK_EQ(posix_trace_attr_getmaxusereventsize(&a, 1000, &z), 0);
	CHECK_EQ(z, 64 + 48 + 40 + 304);	/* cut to max-data-size */
	CHECK_EQ(posix_trace_attr_getmaxsystemeventsize(&a, &z), 0);
	CHECK_EQ(z, 384);
	CHECK_EQ(posix_trace_attr_destroy(&a), 0);
}

TEST(posix_attr_einval)
{
	trace_attr_t a, bad;
	struct timespec ts;
	char s[TRACE_NAME_MAX];
	size_t z;
	int v;

	memset(&bad, 0, sizeof(bad));
	CHECK_EQ(posix_trace_attr_init(NULL), EINVAL);
	CHECK_EQ(posix_trace_attr_destroy(&bad), EINVAL);
	CHECK_EQ(posix_trace_attr_getclockres(&bad, &ts), EINVAL);
	CHECK_EQ(posix_trace_attr_getcreatetime(&bad, &ts), EINVAL);
	CHECK_EQ(posix_trace_attr_getgenversion(&bad, s), EINVAL);
	CHECK_EQ(posix_trace_attr_getname(&bad, s), EINVAL);
	CHECK_EQ(posix_trace_attr_setname(&bad, "x"), EINVAL);
	CHECK_EQ(posix_trace_attr_getinherited(&bad, &v), EINVAL);
	CHECK_EQ(posix_trace_attr_setinherited(&bad, POSIX_TRACE_INHERITED), EINVAL);
	CHECK_EQ(posix_trace_attr_getlogfullpolicy(&bad, &v), EINVAL);
	CHECK_EQ(posix_trace_attr_setlogfullpolicy(&bad, POSIX_TRACE_LOOP), EINVAL);
	CHECK_EQ(posix_trace_attr_getstreamfullpolicy(&bad, &v), EINVAL);
	CHECK_EQ(posix_trace_attr_setstreamfullpolicy(&bad, POSIX_TRACE_LOOP), EINVAL);
	CHECK_EQ(posix_trace_attr_getlogsize(&bad, &z), EINVAL);
	CHECK_EQ(posix_trace_attr_setlogsize(&bad, 8192), EINVAL);
	CHECK_EQ(posix_trace_attr_getmaxdatasize(&bad, &z), EINVAL);
	CHECK_EQ(posix_trace_attr_setmaxdatasize(&bad, 8), EINVAL);
	CHECK_EQ(posix_trace_attr_getmaxsystemeventsize(&bad, &z), EINVAL);
	CHECK_EQ(posix_trace_attr_getmaxusereventsize(&bad, 8, &z), EINVAL);
	CHECK_EQ(posix_trace_attr_getstreamsize(&bad, &z), EINVAL);
	CHECK_EQ(posix_trace_attr_setstreamsize(&bad, 8192), EINVAL);

	ASSERT_EQ(posix_trace_attr_init(&a), 0);
	CHECK_EQ(posix_trace_attr_setinherited(&a, 7), EINVAL);
	CHECK_EQ(posix_trace_attr_setlogfullpolicy(&a, POSIX_TRACE_FLUSH), EINVAL);
	CHECK_EQ(posix_trace_attr_setstreamfullpolicy(&a, POSIX_TRACE_APPEND), EINVAL);
	CHECK_EQ(posix_trace_attr_setstreamsize(&a, 100), EINVAL);
	CHECK_EQ(posix_trace_attr_setlogsize(&a, 100), EINVAL);
	CHECK_EQ(posix_trace_attr_setmaxdatasize(&a, 1 << 20), EINVAL);
	CHECK_EQ(posix_trace_attr_setname(&a, NULL), EINVAL);
	CHECK_EQ(posix_trace_attr_getname(&a, NULL), EINVAL);
	CHECK_EQ(posix_trace_attr_getstreamsize(&a, NULL), EINVAL);
	/* Refused values left it as it was. */
	CHECK_EQ(posix_trace_attr_getinherited(&a, &v), 0);
	CHECK_EQ(v, POSIX_TRACE_CLOSE_FOR_CHILD);
	CHECK_EQ(posix_trace_attr_destroy(&a), 0);
	CHECK_EQ(posix_trace_attr_destroy(&a), EINVAL);	/* destroyed */
	CHECK_EQ(posix_trace_attr_getname(&a, s), EINVAL);
}

TEST(posix_eventsets)
{
	trace_event_set_t set;
	trace_event_id_t id;
	int m, n;

	CHECK_EQ(posix_trace_eventset_empty(&set), 0);
	for (id = 0, n = 0; id < KETW_POSIX_EVENT_ID_MAX; id++) {
		CHECK_EQ(posix_trace_eventset_ismember(id, &set, &m), 0);
		n += m;
	}
	CHECK_EQ(n, 0);
	CHECK_EQ(posix_trace_eventset_add(40, &set), 0);
	CHECK_EQ(posix_trace_eventset_add(40, &set), 0);	/* no error twice */
	CHECK_EQ(posix_trace_eventset_ismember(40, &set, &m), 0);
	CHECK(m);
	CHECK_EQ(posix_trace_eventset_del(40, &set), 0);
	CHECK_EQ(posix_trace_eventset_del(40, &set), 0);
	CHECK_EQ(posix_trace_eventset_ismember(40, &set, &m), 0);
	CHECK(!m);
	CHECK_EQ(posix_trace_eventset_fill(&set, POSIX_TRACE_SYSTEM_EVENTS), 0);
	for (id = 0, n = 0; id < KETW_POSIX_EVENT_ID_MAX; id++) {
		posix_trace_eventset_ismember(id, &set, &m);
		n += m;
	}
	CHECK_EQ(n, 8);
	posix_trace_eventset_ismember(POSIX_TRACE_ERROR, &set, &m);
	CHECK(m);
	posix_trace_eventset_ismember(POSIX_TRACE_UNNAMED_USER_EVENT, &set, &m);
	CHECK(!m);
	CHECK_EQ(posix_trace_eventset_fill(&set, POSIX_TRACE_WOPID_EVENTS), 0);
	posix_trace_eventset_ismember(POSIX_TRACE_START, &set, &m);
	CHECK(!m);
	CHECK_EQ(posix_trace_eventset_fill(&set, POSIX_TRACE_ALL_EVENTS), 0);
	posix_trace_eventset_ismember(POSIX_TRACE_UNNAMED_USER_EVENT, &set, &m);
	CHECK(m);
	posix_trace_eventset_ismember(KETW_POSIX_EVENT_ID_MAX - 1, &set, &m);
	CHECK(m);
	CHECK_EQ(posix_trace_eventset_fill(&set, 99), EINVAL);
	CHECK_EQ(posix_trace_eventset_add(KETW_POSIX_EVENT_ID_MAX, &set), EINVAL);
	CHECK_EQ(posix_trace_eventset_del(KETW_POSIX_EVENT_ID_MAX, &set), EINVAL);
	CHECK_EQ(posix_trace_eventset_ismember(KETW_POSIX_EVENT_ID_MAX, &set, &m), EINVAL);
	CHECK_EQ(posix_trace_eventset_empty(NULL), EINVAL);
	CHECK_EQ(posix_trace_eventset_ismember(1, &set, NULL), EINVAL);
}

TEST(posix_eventid_open_without_kernel)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_event_id_t a, b, a2;
	trace_id_t trid;
	int i;

	CHECK_EQ(posix_trace_eventid_open("one", &a), 0);
	CHECK_EQ(posix_trace_eventid_open("two", &b), 0);
	CHECK_EQ(posix_trace_eventid_open("one", &a2), 0);
	CHECK_EQ(a, a2);
	CHECK(a != b);
	CHECK(a >= KETW_POSIX_USER_EVENT_MIN && a < KETW_POSIX_EVENT_ID_MAX);
	memset(name, 'x', sizeof(name));
	name[TRACE_EVENT_NAME_MAX] = '\0';
	CHECK_EQ(posix_trace_eventid_open(name, &a2), ENAMETOOLONG);
	for (i = 2; i < TRACE_USER_EVENT_MAX; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		ASSERT_EQ(posix_trace_eventid_open(name, &a2), 0);
		CHECK(a2 != POSIX_TRACE_UNNAMED_USER_EVENT);
	}
	CHECK_EQ(posix_trace_eventid_open("past-the-limit", &a2), 0);
	CHECK_EQ(a2, POSIX_TRACE_UNNAMED_USER_EVENT);
	/* No module here: nothing is traced, and no stream can start. */
	posix_trace_event(a, "x", 1);
	if (access("/dev/ketw", F_OK))
		CHECK_EQ(posix_trace_create(0, NULL, &trid), EAGAIN);
	CHECK_EQ(posix_trace_create(0, NULL, NULL), EINVAL);
}

/* A user.posix record: the head (thread, name), then @len bytes. */
static size_t posix_rec(unsigned char *p, unsigned int cpu, uint64_t seq,
			uint64_t ts, uint16_t flags, uint32_t id,
			const char *name, const void *data, size_t len)
{
	static const uint8_t guid[KETW_GUID_SIZE] = {
		0x70, 0x6f, 0x73, 0x69, 0x78, 0x74, 0x72, 0x61,
		0x63, 0x65, 0, 0, 0, 0, 0, 0x01 };
	unsigned char payload[256] = { 0 };
	struct ketw_event_header *h = (void *)p;
	uint64_t thread = 0x1234;
	size_t span;

	memcpy(payload, &thread, 8);
	strncpy((char *)payload + 8, name, 31);
	memcpy(payload + 40, data, len);
	span = test_record(p, cpu, seq, ts, KETW_RECORD_USER | flags, id,
			   payload, 40 + len);
	memcpy(h->provider_guid, guid, KETW_GUID_SIZE);
	return span;
}

static int posix_log_file(const char *path)
{
	static _Alignas(8) unsigned char buf[4096];
	struct ketw_sys_start st = { 0 };
	struct ketw_sys_stop sp = { .auto_stop = 1 };
	struct ketw_output_info info;
	struct ketw_output *out;
	size_t off = 0;
	int err;

	test_info(&info, 2);
	err = ketw_output_create(path, &info, &out);
	if (err)
		return err;
	off += test_record(buf + off, 0, 0, 100, KETW_RECORD_SYSTEM,
			   KETW_SYS_START, &st, sizeof(st));
	off += posix_rec(buf + off, 0, 1, 200, 0, 77, "open", "abcdefgh", 8);
	off += posix_rec(buf + off, 0, 2, 400, KETW_RECORD_TRUNCATED, 78,
			 "close", "xy", 2);
	off += test_record(buf + off, 0, 3, 900, KETW_RECORD_SYSTEM,
			   KETW_SYS_STOP, &sp, sizeof(sp));
	err = ketw_output_add_records(out, 0, buf, off);
	off = 0;
	off += posix_rec(buf + off, 1, 0, 300, 0, 77, "open", "12345678", 8);
	off += posix_rec(buf + off, 1, 1, 500, 0, POSIX_TRACE_UNNAMED_USER_EVENT,
			 "", "u", 1);
	/* Another provider's event: not a POSIX event. */
	off += test_record(buf + off, 1, 2, 600, 0, 5, "zz", 2);
	if (!err)
		err = ketw_output_add_records(out, 1, buf, off);
	if (!err)
		err = ketw_output_close(out);
	else
		ketw_output_abort(out, path);
	return err;
}

TEST(posix_open_log)
{
	const char *path = test_path("posix.ketw");
	struct posix_trace_status_info st;
	struct posix_trace_event_info ev;
	trace_event_id_t ids[8], open_id, id;
	char data[16], name[TRACE_EVENT_NAME_MAX];
	trace_id_t trid;
	size_t len;
	int fd, un, n = 0, val;

	ASSERT_EQ(posix_log_file(path), 0);
	fd = open(path, O_RDONLY);
	ASSERT(fd >= 0);
	ASSERT_EQ(posix_trace_open(fd, &trid), 0);
	close(fd);
	/* Oldest first, all CPUs merged: START 100, open 200, open 300, ... */
	for (;;) {
		ASSERT_EQ(posix_trace_getnext_event(trid, &ev, data, sizeof(data),
						    &len, &un), 0);
		if (un)
			break;
		ASSERT(n < 8);
		ids[n++] = ev.posix_event_id;
		if (ev.posix_timestamp.tv_nsec == 200) {
			CHECK_EQ(len, 8);
			CHECK(!memcmp(data, "abcdefgh", 8));
			CHECK_EQ(ev.posix_pid, 1000);
			CHECK_EQ((uint64_t)ev.posix_thread_id, 0x1234);
			CHECK_EQ(ev.posix_truncation_status, POSIX_TRACE_NOT_TRUNCATED);
		}
		if (ev.posix_timestamp.tv_nsec == 400)
			CHECK_EQ(ev.posix_truncation_status,
				 POSIX_TRACE_TRUNCATED_RECORD);
		if (ev.posix_event_id == POSIX_TRACE_STOP) {
			memcpy(&val, data, sizeof(val));
			CHECK(val != 0);
			CHECK_EQ(ev.posix_pid, 0);
		}
	}
	ASSERT_EQ(n, 6);
	CHECK_EQ(ids[0], POSIX_TRACE_START);
	CHECK_EQ(ids[1], 77);	/* the tracer's id, free here */
	CHECK_EQ(ids[2], 77);
	CHECK_EQ(ids[3], 78);
	CHECK_EQ(ids[4], POSIX_TRACE_UNNAMED_USER_EVENT);
	CHECK_EQ(ids[5], POSIX_TRACE_STOP);
	CHECK_EQ(posix_trace_eventid_get_name(trid, 77, name), 0);
	CHECK_STR(name, "open");
	CHECK_EQ(posix_trace_eventid_get_name(trid, 78, name), 0);
	CHECK_STR(name, "close");
	CHECK_EQ(posix_trace_eventid_get_name(trid, 79, name), EINVAL);
	/* The event type list: the system events, unnamed, open, close. */
	n = 0;
	open_id = 0;
	for (;;) {
		ASSERT_EQ(posix_trace_eventtypelist_getnext_id(trid, &id, &un), 0);
		if (un)
			break;
		n++;
		if (id == 77)
			open_id = id;
	}
	CHECK_EQ(n, 11);
	CHECK_EQ(open_id, 77);
	/* A buffer too small: TRUNCATED_READ. */
	ASSERT_EQ(posix_trace_rewind(trid), 0);
	ASSERT_EQ(posix_trace_getnext_event(trid, &ev, data, 0, &len, &un), 0);
	CHECK_EQ(ev.posix_event_id, POSIX_TRACE_START);
	ASSERT_EQ(posix_trace_getnext_event(trid, &ev, data, 3, &len, &un), 0);
	CHECK_EQ(ev.posix_truncation_status, POSIX_TRACE_TRUNCATED_READ);
	CHECK_EQ(len, 3);
	CHECK(!memcmp(data, "abc", 3));
	/* A log without the library's record: suspended, defaults. */
	CHECK_EQ(posix_trace_get_status(trid, &st), 0);
	CHECK_EQ(st.posix_stream_status, POSIX_TRACE_SUSPENDED);
	/* The controller's and live-only functions refuse a log. */
	CHECK_EQ(posix_trace_start(trid), EINVAL);
	CHECK_EQ(posix_trace_shutdown(trid), EINVAL);
	CHECK_EQ(posix_trace_trygetnext_event(trid, &ev, data, sizeof(data),
					      &len, &un), EINVAL);
	CHECK_EQ(posix_trace_close(trid), 0);
	CHECK_EQ(posix_trace_close(trid), EINVAL);
	CHECK_EQ(posix_trace_getnext_event(trid, &ev, data, sizeof(data),
					   &len, &un), EINVAL);
}

TEST(posix_open_not_a_log)
{
	const char *path = test_path("not-a-log");
	trace_id_t trid;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT(fd >= 0);
	ASSERT_EQ(write(fd, "not a trace", 11), 11);
	CHECK_EQ(posix_trace_open(fd, &trid), EINVAL);
	close(fd);
	CHECK_EQ(posix_trace_open(fd, &trid), EINVAL);	/* closed */
	fd = open(path, O_WRONLY);
	ASSERT(fd >= 0);
	CHECK_EQ(posix_trace_open(fd, &trid), EINVAL);	/* not readable */
	close(fd);
}
