// SPDX-License-Identifier: GPL-2.0
/*
 * The POSIX trace API's Trace Log option on the real module:
 * posix_trace_create_withlog(), posix_trace_flush(), posix_trace_open(),
 * posix_trace_rewind(), posix_trace_close(), the log full policies
 * (LOOP, UNTIL_FULL, APPEND, log-max-size), the stream policy FLUSH, and
 * 'ketw report' reading a log.
 */
#include "posix_test.h"
#include <sys/stat.h>
#include "kselftest_harness.h"

#define TOOL	"/ketw/ketw"

static int pt_tmpfile(char *path, size_t len)
{
	snprintf(path, len, "/tmp/posix_log_test.%d.XXXXXX", getpid());
	return mkstemp(path);
}

/* Open the log behind @path for reading: a trid, checked. */
static trace_id_t pt_open_log(struct __test_metadata *_metadata,
			      const char *path)
{
	trace_id_t trid = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, posix_trace_open(fd, &trid));
	close(fd);	/* the log is read at open */
	return trid;
}

static off_t pt_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

/* posix_trace_create_withlog(): EBADF, EINVAL for a file the policy cannot use. */
TEST(withlog_errors)
{
	char path[64];
	trace_attr_t attr;
	trace_id_t trid;
	int fd, rfd, p[2];

	KETW_REQUIRE(PT_NEED);
	fd = pt_tmpfile(path, sizeof(path));
	ASSERT_GE(fd, 0);
	rfd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(rfd, 0);
	EXPECT_EQ(EBADF, posix_trace_create_withlog(0, NULL, rfd, &trid));
	EXPECT_EQ(EBADF, posix_trace_create_withlog(0, NULL, 987, &trid));
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	/* LOOP (the default) rewrites its log: a pipe will not do. */
	EXPECT_EQ(EINVAL, posix_trace_create_withlog(0, &attr, p[1], &trid));
	ASSERT_EQ(0, posix_trace_attr_setlogfullpolicy(&attr, POSIX_TRACE_APPEND));
	ASSERT_EQ(0, posix_trace_create_withlog(0, &attr, p[1], &trid));
	EXPECT_EQ(0, posix_trace_shutdown(trid));
	memset(&attr, 0, sizeof(attr));
	EXPECT_EQ(EINVAL, posix_trace_create_withlog(0, &attr, fd, &trid));
	EXPECT_EQ(ESRCH, posix_trace_create_withlog(pt_dead_pid(), NULL, fd,
						    &trid));
	close(p[0]);
	close(p[1]);
	close(rfd);
	close(fd);
	unlink(path);
}

/*
 * A stream with log: events reach the log (default stream policy FLUSH),
 * posix_trace_open() reads them back with their names, the attributes
 * and the final status; rewind starts over; close ends the trid; the
 * analyzer's live functions refuse such a stream, the controller's
 * refuse a log.
 */
TEST(withlog_roundtrip)
{
	struct pt_seen *seen = calloc(1, sizeof(*seen));
	struct posix_trace_status_info st, st2;
	struct posix_trace_event_info ev;
	trace_event_id_t a, b, id;
	trace_attr_t attr;
	trace_id_t trid, log;
	char path[64], name[TRACE_EVENT_NAME_MAX], data[8];
	int fd, policy, un, i, seen_a = 0;
	size_t len;

	KETW_REQUIRE(PT_NEED);
	fd = pt_tmpfile(path, sizeof(path));
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setname(&attr, "logged"));
	ASSERT_EQ(0, posix_trace_create_withlog(0, &attr, fd, &trid));
	ASSERT_EQ(0, posix_trace_get_attr(trid, &attr));
	ASSERT_EQ(0, posix_trace_attr_getstreamfullpolicy(&attr, &policy));
	EXPECT_EQ(POSIX_TRACE_FLUSH, policy);
	ASSERT_EQ(0, posix_trace_eventid_open("log_a", &a));
	ASSERT_EQ(0, posix_trace_eventid_open("log_b", &b));
	ASSERT_EQ(0, posix_trace_start(trid));
	for (i = 0; i < 10; i++)
		pt_event(i % 2 ? b : a, i);
	/* Read from its log, not live. */
	EXPECT_EQ(EINVAL, posix_trace_trygetnext_event(trid, &ev, data,
						sizeof(data), &len, &un));
	EXPECT_EQ(EINVAL, posix_trace_getnext_event(trid, &ev, data,
						sizeof(data), &len, &un));
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(0, posix_trace_shutdown(trid));

	log = pt_open_log(_metadata, path);
	ASSERT_EQ(0, pt_collect(log, seen, true));
	ASSERT_GE(seen->n, 12);
	EXPECT_EQ(POSIX_TRACE_START, seen->id[0]);
	EXPECT_EQ(POSIX_TRACE_STOP, seen->id[seen->n - 1]);
	EXPECT_EQ(5, pt_count(seen, pt_index(seen, POSIX_TRACE_START, 0) >= 0 ?
				    seen->id[1] : 0));
	for (i = 1; i <= 10; i++)
		EXPECT_EQ((uint32_t)(i - 1), seen->val[i]);
	ASSERT_EQ(0, posix_trace_eventid_get_name(log, seen->id[1], name));
	EXPECT_STREQ("log_a", name);
	ASSERT_EQ(0, posix_trace_eventid_get_name(log, seen->id[2], name));
	EXPECT_STREQ("log_b", name);
	/* The log's list of event types has both names. */
	ASSERT_EQ(0, posix_trace_eventtypelist_rewind(log));
	for (;;) {
		ASSERT_EQ(0, posix_trace_eventtypelist_getnext_id(log, &id, &un));
		if (un)
			break;
		if (!posix_trace_eventid_get_name(log, id, name))
			seen_a += !strcmp(name, "log_a") || !strcmp(name, "log_b");
	}
	EXPECT_EQ(2, seen_a);
	/* getnext at the end: unavailable; rewind: the first again. */
	ASSERT_EQ(0, posix_trace_getnext_event(log, &ev, data, sizeof(data),
					       &len, &un));
	EXPECT_NE(0, un);
	ASSERT_EQ(0, posix_trace_rewind(log));
	ASSERT_EQ(0, posix_trace_getnext_event(log, &ev, data, sizeof(data),
					       &len, &un));
	EXPECT_EQ(0, un);
	EXPECT_EQ(POSIX_TRACE_START, ev.posix_event_id);
	/* Attributes and status of the completed stream, never reset. */
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_get_attr(log, &attr));
	ASSERT_EQ(0, posix_trace_attr_getname(&attr, name));
	EXPECT_STREQ("logged", name);
	ASSERT_EQ(0, posix_trace_get_status(log, &st));
	EXPECT_EQ(POSIX_TRACE_SUSPENDED, st.posix_stream_status);
	ASSERT_EQ(0, posix_trace_get_status(log, &st2));
	EXPECT_EQ(0, memcmp(&st, &st2, sizeof(st)));
	/* The controller's functions refuse a log. */
	EXPECT_EQ(EINVAL, posix_trace_start(log));
	EXPECT_EQ(EINVAL, posix_trace_stop(log));
	EXPECT_EQ(EINVAL, posix_trace_shutdown(log));
	EXPECT_EQ(EINVAL, posix_trace_flush(log));
	EXPECT_EQ(EINVAL, posix_trace_clear(log));
	EXPECT_EQ(EINVAL, posix_trace_trygetnext_event(log, &ev, data,
						sizeof(data), &len, &un));
	EXPECT_EQ(EINVAL, posix_trace_trid_eventid_open(log, "x", &id));
	ASSERT_EQ(0, posix_trace_close(log));
	EXPECT_EQ(EINVAL, posix_trace_close(log));
	EXPECT_EQ(EINVAL, posix_trace_rewind(log));
	close(fd);
	unlink(path);
	free(seen);
}

/* 'ketw report' reads a log: it is a .ketw trace file. */
TEST(log_read_by_ketw_report)
{
	char path[64], cmd[160], *out = NULL;
	trace_event_id_t a;
	trace_id_t trid;
	int fd;

	KETW_REQUIRE(PT_NEED);
	KETW_REQUIRE_PATH(TOOL, X_OK, "the ketw tool");
	fd = pt_tmpfile(path, sizeof(path));
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, posix_trace_create_withlog(0, NULL, fd, &trid));
	ASSERT_EQ(0, posix_trace_eventid_open("reported", &a));
	ASSERT_EQ(0, posix_trace_start(trid));
	pt_event(a, 1);
	pt_event(a, 2);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	snprintf(cmd, sizeof(cmd), TOOL " report %s", path);
	ASSERT_EQ(0, run_cmd(cmd, &out));
	EXPECT_GE(count_of(out, "START"), 1);
	EXPECT_GE(count_of(out, "STOP"), 1);
	/* The two events and the log's own record, of the POSIX provider. */
	EXPECT_GE(count_of(out, "706f7369-7874-7261-6365-000000000001"), 3);
	free(out);
	close(fd);
	unlink(path);
}

/*
 * posix_trace_flush(): the events and a FLUSH_START and FLUSH_STOP in
 * the log, readable while the stream goes on; flush status and error in
 * get_status.
 */
TEST(flush)
{
	struct pt_seen *seen = calloc(1, sizeof(*seen));
	struct posix_trace_status_info st;
	trace_event_id_t a;
	trace_attr_t attr;
	trace_id_t trid, log;
	char path[64];
	int fd, fs, fe;

	KETW_REQUIRE(PT_NEED);
	fd = pt_tmpfile(path, sizeof(path));
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr, POSIX_TRACE_LOOP));
	ASSERT_EQ(0, posix_trace_attr_setlogfullpolicy(&attr, POSIX_TRACE_APPEND));
	ASSERT_EQ(0, posix_trace_create_withlog(0, &attr, fd, &trid));
	ASSERT_EQ(0, posix_trace_eventid_open("flushed", &a));
	ASSERT_EQ(0, posix_trace_start(trid));
	pt_event(a, 1);
	pt_event(a, 2);
	ASSERT_EQ(0, posix_trace_flush(trid));
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	EXPECT_EQ(POSIX_TRACE_NOT_FLUSHING, st.posix_stream_flush_status);
	EXPECT_EQ(0, st.posix_stream_flush_error);
	EXPECT_EQ(POSIX_TRACE_RUNNING, st.posix_stream_status);
	log = pt_open_log(_metadata, path);	/* the stream still runs */
	ASSERT_EQ(0, pt_collect(log, seen, true));
	fs = pt_index(seen, POSIX_TRACE_FLUSH_START, 0);
	fe = pt_index(seen, POSIX_TRACE_FLUSH_STOP, 0);
	ASSERT_GE(fs, 0);
	ASSERT_GT(fe, fs);
	EXPECT_EQ(2, pt_count(seen, a));
	/* Recorded before the flush began, they come first in time. */
	EXPECT_LT(pt_index(seen, a, pt_index(seen, a, 0) + 1), fe);
	ASSERT_EQ(0, posix_trace_close(log));
	EXPECT_EQ(0, posix_trace_shutdown(trid));
	close(fd);
	unlink(path);
	free(seen);
}

/*
 * log-full-policy UNTIL_FULL: the log stops growing at log-max-size,
 * the stream stops, the log ends with a STOP; log full and overrun
 * status (the overrun reset once read).
 */
TEST(log_until_full)
{
	struct pt_seen *seen = calloc(1, sizeof(*seen));
	struct posix_trace_status_info st;
	trace_event_id_t a;
	trace_attr_t attr;
	trace_id_t trid, log;
	char path[64], pad[100] = { 0 };
	int fd, i;

	KETW_REQUIRE(PT_NEED);
	fd = pt_tmpfile(path, sizeof(path));
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setlogfullpolicy(&attr,
						POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, posix_trace_attr_setlogsize(&attr, 16384));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr, POSIX_TRACE_LOOP));
	ASSERT_EQ(0, posix_trace_create_withlog(0, &attr, fd, &trid));
	ASSERT_EQ(0, posix_trace_eventid_open("until", &a));
	ASSERT_EQ(0, posix_trace_start(trid));
	for (i = 0; i < 300; i++) {
		memcpy(pad, &i, sizeof(i));
		posix_trace_event(a, pad, sizeof(pad));
		if (i % 50 == 49)
			ASSERT_EQ(0, posix_trace_flush(trid));
	}
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	EXPECT_EQ(POSIX_TRACE_FULL, st.posix_log_full_status);
	EXPECT_EQ(POSIX_TRACE_OVERRUN, st.posix_log_overrun_status);
	EXPECT_EQ(POSIX_TRACE_SUSPENDED, st.posix_stream_status);
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	EXPECT_EQ(POSIX_TRACE_NO_OVERRUN, st.posix_log_overrun_status);
	EXPECT_EQ(POSIX_TRACE_FULL, st.posix_log_full_status);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	EXPECT_LE(pt_size(path), 16384);
	log = pt_open_log(_metadata, path);
	ASSERT_EQ(0, pt_collect(log, seen, true));
	ASSERT_GE(seen->n, 20);
	EXPECT_EQ(POSIX_TRACE_STOP, seen->id[seen->n - 1]);
	EXPECT_EQ(0, seen->val[1]);	/* the first events are kept */
	EXPECT_LT(pt_count(seen, a), 300);
	ASSERT_EQ(0, posix_trace_get_status(log, &st));
	EXPECT_EQ(POSIX_TRACE_FULL, st.posix_log_full_status);
	ASSERT_EQ(0, posix_trace_close(log));
	close(fd);
	unlink(path);
	free(seen);
}

/* log-full-policy LOOP: the most recent events, within log-max-size. */
TEST(log_loop)
{
	struct pt_seen *seen = calloc(1, sizeof(*seen));
	trace_event_id_t a;
	trace_attr_t attr;
	trace_id_t trid, log;
	char path[64], pad[100] = { 0 };
	int fd, i, last;

	KETW_REQUIRE(PT_NEED);
	fd = pt_tmpfile(path, sizeof(path));
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setlogfullpolicy(&attr, POSIX_TRACE_LOOP));
	ASSERT_EQ(0, posix_trace_attr_setlogsize(&attr, 16384));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr, POSIX_TRACE_LOOP));
	ASSERT_EQ(0, posix_trace_create_withlog(0, &attr, fd, &trid));
	ASSERT_EQ(0, posix_trace_eventid_open("looped", &a));
	ASSERT_EQ(0, posix_trace_start(trid));
	for (i = 0; i < 300; i++) {
		memcpy(pad, &i, sizeof(i));
		posix_trace_event(a, pad, sizeof(pad));
		if (i % 20 == 19)
			ASSERT_EQ(0, posix_trace_flush(trid));
	}
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	EXPECT_LE(pt_size(path), 16384);
	log = pt_open_log(_metadata, path);
	ASSERT_EQ(0, pt_collect(log, seen, true));
	last = -1;
	for (i = 0; i < (int)seen->n; i++)
		if (seen->id[i] == a)
			last = i;
	ASSERT_GE(last, 0);
	EXPECT_EQ(299, seen->val[last]);	/* the newest is there */
	EXPECT_NE(0, seen->val[pt_index(seen, a, 0)]);	/* the oldest is not */
	EXPECT_GE(pt_count(seen, a), 20);
	ASSERT_EQ(0, posix_trace_close(log));
	close(fd);
	unlink(path);
	free(seen);
}

/* log-full-policy APPEND: log-max-size does not bound it. */
TEST(log_append)
{
	struct pt_seen *seen = calloc(1, sizeof(*seen));
	trace_event_id_t a;
	trace_attr_t attr;
	trace_id_t trid, log;
	char path[64], pad[100] = { 0 };
	int fd, i;

	KETW_REQUIRE(PT_NEED);
	fd = pt_tmpfile(path, sizeof(path));
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setlogfullpolicy(&attr, POSIX_TRACE_APPEND));
	ASSERT_EQ(0, posix_trace_attr_setlogsize(&attr, 16384));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr, POSIX_TRACE_LOOP));
	ASSERT_EQ(0, posix_trace_create_withlog(0, &attr, fd, &trid));
	ASSERT_EQ(0, posix_trace_eventid_open("appended", &a));
	ASSERT_EQ(0, posix_trace_start(trid));
	for (i = 0; i < 300; i++) {
		memcpy(pad, &i, sizeof(i));
		posix_trace_event(a, pad, sizeof(pad));
		if (i % 20 == 19)
			ASSERT_EQ(0, posix_trace_flush(trid));
	}
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	EXPECT_GT(pt_size(path), 16384);
	log = pt_open_log(_metadata, path);
	ASSERT_EQ(0, pt_collect(log, seen, true));
	EXPECT_EQ(300, pt_count(seen, a));
	ASSERT_EQ(0, posix_trace_close(log));
	close(fd);
	unlink(path);
	free(seen);
}

/* Stream policy FLUSH: the log fills while the stream runs, unasked. */
TEST(stream_flush_policy)
{
	struct pt_seen *seen = calloc(1, sizeof(*seen));
	trace_event_id_t a;
	trace_id_t trid, log;
	char path[64], pad[200] = { 0 };
	int fd, i, tries;

	KETW_REQUIRE(PT_NEED);
	fd = pt_tmpfile(path, sizeof(path));
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, posix_trace_create_withlog(0, NULL, fd, &trid));
	ASSERT_EQ(0, posix_trace_eventid_open("auto", &a));
	ASSERT_EQ(0, posix_trace_start(trid));
	for (i = 0; i < 50; i++)
		posix_trace_event(a, pad, sizeof(pad));
	for (tries = 0; tries < 50; tries++) {
		usleep(100 * 1000);
		log = pt_open_log(_metadata, path);
		ASSERT_EQ(0, pt_collect(log, seen, true));
		ASSERT_EQ(0, posix_trace_close(log));
		if (pt_count(seen, a) == 50)
			break;
	}
	EXPECT_EQ(50, pt_count(seen, a));
	EXPECT_EQ(0, posix_trace_shutdown(trid));
	close(fd);
	unlink(path);
	free(seen);
}

/* posix_trace_open(): EINVAL for what is not a log. */
TEST(open_errors)
{
	trace_id_t trid;
	char path[64];
	int fd, wfd;

	KETW_REQUIRE(PT_NEED);
	fd = pt_tmpfile(path, sizeof(path));
	ASSERT_GE(fd, 0);
	ASSERT_EQ(5, write(fd, "hello", 5));
	EXPECT_EQ(EINVAL, posix_trace_open(fd, &trid));
	EXPECT_EQ(EINVAL, posix_trace_open(-1, &trid));
	wfd = open(path, O_WRONLY | O_CLOEXEC);
	ASSERT_GE(wfd, 0);
	EXPECT_EQ(EINVAL, posix_trace_open(wfd, &trid));
	close(wfd);
	close(fd);
	unlink(path);
}

/* A process that exits without posix_trace_shutdown() still ends its log. */
TEST(log_ended_at_exit)
{
	struct pt_seen *seen = calloc(1, sizeof(*seen));
	struct posix_trace_status_info st;
	trace_id_t log;
	char path[64];
	int fd, status;
	pid_t pid;

	KETW_REQUIRE(PT_NEED);
	fd = pt_tmpfile(path, sizeof(path));
	ASSERT_GE(fd, 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		trace_event_id_t a;
		trace_id_t trid;

		if (posix_trace_create_withlog(0, NULL, fd, &trid) ||
		    posix_trace_eventid_open("at_exit", &a) ||
		    posix_trace_start(trid))
			_exit(1);
		pt_event(a, 1);
		exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	log = pt_open_log(_metadata, path);
	ASSERT_EQ(0, pt_collect(log, seen, true));
	ASSERT_GE(seen->n, 3);
	EXPECT_EQ(POSIX_TRACE_STOP, seen->id[seen->n - 1]);
	ASSERT_EQ(0, posix_trace_get_status(log, &st));
	EXPECT_EQ(POSIX_TRACE_SUSPENDED, st.posix_stream_status);
	ASSERT_EQ(0, posix_trace_close(log));
	close(fd);
	unlink(path);
	free(seen);
}

TEST_HARNESS_MAIN
