// SPDX-License-Identifier: GPL-2.0
/*
 * The POSIX trace API's process filter and Trace Inherit option on the
 * real module, and the standard's usage pattern: a controller forks a
 * traced child with inheritance, filters, reads live, then analyses a
 * log written with posix_trace_create_withlog(). Also a traced process
 * in a pid namespace of its own, seen from outside and from inside.
 *
 * These need the kernel's process filter (KETW_IOC_SET_PIDS).
 */
#include "posix_test.h"
#include <sched.h>
#include "kselftest_harness.h"

/* A child that waits for a byte on @go, then runs @fn and exits. */
static pid_t pt_spawn(int go[2], void (*fn)(void *), void *arg)
{
	char c;
	pid_t pid;

	if (pipe(go))
		return -1;
	pid = fork();
	if (pid)
		return pid;
	close(go[1]);
	if (read(go[0], &c, 1) != 1)
		_exit(3);
	fn(arg);
	_exit(0);
}

static void pt_release(int go[2])
{
	close(go[0]);
	if (write(go[1], "g", 1) != 1)
		perror("write");
	close(go[1]);
}

static void pt_emit_named(void *arg)
{
	trace_event_id_t id;

	if (posix_trace_eventid_open(arg, &id))
		_exit(2);
	pt_event(id, getpid());
}

/*
 * posix_trace_create(pid): only that process is traced; not the
 * controller, not the traced process's children (CLOSE_FOR_CHILD).
 */
TEST(traces_only_its_process)
{
	struct pt_seen *seen = calloc(1, sizeof(*seen));
	trace_event_id_t mine;
	trace_id_t trid;
	int go[2], status;
	pid_t child;

	KETW_REQUIRE(PT_NEED);
	child = pt_spawn(go, pt_emit_named, "from_child");
	ASSERT_GT(child, 0);
	ASSERT_EQ(0, posix_trace_create(child, NULL, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_EQ(0, posix_trace_eventid_open("from_controller", &mine));
	pt_event(mine, 1);
	pt_release(go);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(0, pt_collect(trid, seen, false));
	ASSERT_EQ(3, seen->n);	/* START, the child's event, STOP */
	EXPECT_EQ(POSIX_TRACE_START, seen->id[0]);
	EXPECT_EQ(child, seen->pid[1]);
	EXPECT_EQ((uint32_t)child, seen->val[1]);
	EXPECT_EQ(POSIX_TRACE_STOP, seen->id[2]);
	EXPECT_EQ(0, posix_trace_shutdown(trid));
	free(seen);
}

/* Emit, fork a child that emits, wait for it. */
static void pt_emit_and_fork(void *arg)
{
	pid_t pid;

	pt_emit_named(arg);
	pid = fork();
	if (!pid) {
		pt_emit_named(arg);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

/*
 * POSIX_TRACE_INHERITED: the children the traced process forks after
 * the stream's creation are traced too, into the same stream, with the
 * same event ids; POSIX_TRACE_CLOSE_FOR_CHILD: they are not.
 */
TEST(inheritance)
{
	struct pt_seen *seen = calloc(1, sizeof(*seen));
	trace_attr_t attr;
	trace_id_t trid;
	int go[2], status, round, i, users;
	pid_t child;

	KETW_REQUIRE(PT_NEED);
	for (round = 0; round < 2; round++) {
		child = pt_spawn(go, pt_emit_and_fork, "family");
		ASSERT_GT(child, 0);
		ASSERT_EQ(0, posix_trace_attr_init(&attr));
		ASSERT_EQ(0, posix_trace_attr_setinherited(&attr, round ?
				POSIX_TRACE_INHERITED : POSIX_TRACE_CLOSE_FOR_CHILD));
		ASSERT_EQ(0, posix_trace_create(child, &attr, &trid));
		ASSERT_EQ(0, posix_trace_start(trid));
		pt_release(go);
		ASSERT_EQ(child, waitpid(child, &status, 0));
		ASSERT_EQ(0, WEXITSTATUS(status));
		ASSERT_EQ(0, pt_collect(trid, seen, false));
		users = 0;
		for (i = 0; i < (int)seen->n; i++) {
			if (seen->id[i] < KETW_POSIX_USER_EVENT_MIN)
				continue;
			users++;
			EXPECT_EQ(seen->id[i], seen->id[pt_index(seen, seen->id[i], 0)]);
			if (users == 1) {
				EXPECT_EQ(child, seen->pid[i]);
			} else {
				EXPECT_NE(child, seen->pid[i]);
			}
			EXPECT_EQ((uint32_t)seen->pid[i], seen->val[i]);
		}
		EXPECT_EQ(round ? 2 : 1, users);
		EXPECT_EQ(0, posix_trace_shutdown(trid));
	}
	free(seen);
}

/* The traced family of the usage pattern: work, noise, a grandchild's work. */
static void pt_worker(void *arg)
{
	trace_event_id_t work, noise;
	pid_t pid;
	int i;

	(void)arg;
	if (posix_trace_eventid_open("work", &work) ||
	    posix_trace_eventid_open("noise", &noise))
		_exit(2);
	for (i = 0; i < 5; i++) {
		pt_event(work, i);
		pt_event(noise, i);
	}
	pid = fork();
	if (!pid) {
		pt_event(work, 100);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

/*
 * The standard's usage pattern. Live: a controller forks the child to
 * trace, creates a stream for it with inheritance, filters "noise" out
 * (its id from posix_trace_trid_eventid_open()), starts, lets the child
 * run and reads the events as they come, naming them. Then the same
 * with a log, analysed with posix_trace_open().
 */
TEST(usage_pattern)
{
	struct posix_trace_event_info ev;
	trace_event_set_t filter;
	trace_event_id_t work, noise, id;
	trace_attr_t attr;
	trace_id_t trid, log;
	char data[16], name[TRACE_EVENT_NAME_MAX], path[64];
	int go[2], status = 0, un, works, noises, grandchild, fd = -1, phase, err;
	size_t len;
	pid_t child;

	KETW_REQUIRE(PT_NEED);
	snprintf(path, sizeof(path), "/tmp/posix_pattern.%d.log", getpid());
	for (phase = 0; phase < 2; phase++) {
		child = pt_spawn(go, pt_worker, NULL);
		ASSERT_GT(child, 0);
		ASSERT_EQ(0, posix_trace_attr_init(&attr));
		ASSERT_EQ(0, posix_trace_attr_setname(&attr, "pattern"));
		ASSERT_EQ(0, posix_trace_attr_setinherited(&attr,
						POSIX_TRACE_INHERITED));
		if (phase) {
			fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
			ASSERT_GE(fd, 0);
			ASSERT_EQ(0, posix_trace_create_withlog(child, &attr, fd,
								&trid));
		} else {
			ASSERT_EQ(0, posix_trace_create(child, &attr, &trid));
		}
		ASSERT_EQ(0, posix_trace_trid_eventid_open(trid, "noise", &noise));
		ASSERT_EQ(0, posix_trace_trid_eventid_open(trid, "work", &work));
		ASSERT_EQ(0, posix_trace_eventset_empty(&filter));
		ASSERT_EQ(0, posix_trace_eventset_add(noise, &filter));
		ASSERT_EQ(0, posix_trace_set_filter(trid, &filter,
						    POSIX_TRACE_SET_EVENTSET));
		ASSERT_EQ(0, posix_trace_start(trid));
		pt_release(go);
		if (phase) {
			ASSERT_EQ(child, waitpid(child, &status, 0));
			ASSERT_EQ(0, posix_trace_shutdown(trid));
			ASSERT_EQ(0, lseek(fd, 0, SEEK_SET));
			ASSERT_EQ(0, posix_trace_open(fd, &log));
			close(fd);
			trid = log;
		}
		works = noises = grandchild = 0;
		for (;;) {
			if (phase) {
				err = posix_trace_getnext_event(trid, &ev, data,
						sizeof(data), &len, &un);
				if (!err && un)
					break;
			} else {
				err = pt_next(trid, &ev, data, sizeof(data),
					      &len, 3000);
				if (works == 6 || err == ETIMEDOUT)
					break;
			}
			ASSERT_EQ(0, err);
			id = ev.posix_event_id;
			if (id < KETW_POSIX_USER_EVENT_MIN)
				continue;
			ASSERT_EQ(0, posix_trace_eventid_get_name(trid, id, name));
			works += !strcmp(name, "work");
			noises += !strcmp(name, "noise");
			if (!strcmp(name, "work") && ev.posix_pid != child) {
				grandchild++;
				EXPECT_EQ(100, *(uint32_t *)data);
			}
		}
		EXPECT_EQ(6, works);
		EXPECT_EQ(0, noises);
		EXPECT_EQ(1, grandchild);
		if (!phase) {
			ASSERT_EQ(child, waitpid(child, &status, 0));
			EXPECT_EQ(0, posix_trace_shutdown(trid));
		} else {
			EXPECT_EQ(0, posix_trace_close(trid));
		}
		EXPECT_EQ(0, WEXITSTATUS(status));
	}
	unlink(path);
}

struct pt_ns_result {
	pid_t host_pid;		/* the traced process, in our namespace */
	pid_t inner_pid;	/* as it sees itself */
	pid_t inner_seen;	/* posix_pid its own analyzer saw */
	int err;
};

/*
 * A traced process in a pid namespace of its own: a controller outside
 * gives its pid as the controller sees it, and reads that pid back; the
 * process tracing itself inside reads its own number (1).
 */
TEST(pid_namespace)
{
	struct pt_seen *seen = calloc(1, sizeof(*seen));
	struct pt_ns_result r = { 0 };
	int go[2], res[2], status;
	trace_id_t trid;
	pid_t mid, inner, host;

	KETW_REQUIRE(PT_NEED);
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(res));
	mid = fork();
	ASSERT_GE(mid, 0);
	if (!mid) {
		if (unshare(CLONE_NEWPID))
			_exit(4);
		inner = fork();
		if (!inner) {
			struct posix_trace_event_info ev;
			trace_event_id_t id;
			trace_id_t own;
			char c, data[8];
			size_t len;

			r.inner_pid = getpid();
			r.err = posix_trace_create(0, NULL, &own);
			if (!r.err)
				r.err = posix_trace_start(own);
			if (read(go[0], &c, 1) != 1)
				_exit(3);
			posix_trace_eventid_open("in_ns", &id);
			pt_event(id, 1);
			if (!r.err)
				r.err = pt_find(own, id, &ev, data, sizeof(data),
						&len, 1000);
			r.inner_seen = ev.posix_pid;
			if (write(res[1], &r, sizeof(r)) != sizeof(r))
				_exit(5);
			_exit(0);
		}
		r.host_pid = inner;
		if (write(res[1], &r.host_pid, sizeof(r.host_pid)) != sizeof(pid_t))
			_exit(5);
		waitpid(inner, &status, 0);
		_exit(WEXITSTATUS(status));
	}
	close(res[1]);
	ASSERT_EQ(sizeof(pid_t), read(res[0], &r.host_pid, sizeof(pid_t)));
	ASSERT_EQ(0, posix_trace_create(r.host_pid, NULL, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	close(go[0]);
	ASSERT_EQ(1, write(go[1], "g", 1));
	host = r.host_pid;	/* the inner process knows only its own */
	ASSERT_EQ(sizeof(r), read(res[0], &r, sizeof(r)));
	r.host_pid = host;
	ASSERT_EQ(mid, waitpid(mid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, r.err);
	EXPECT_EQ(1, r.inner_pid);
	EXPECT_EQ(1, r.inner_seen);
	ASSERT_EQ(0, pt_collect(trid, seen, false));
	ASSERT_EQ(2, seen->n);	/* START, the event */
	EXPECT_EQ(r.host_pid, seen->pid[1]);
	EXPECT_EQ(0, posix_trace_shutdown(trid));
	free(seen);
}

TEST_HARNESS_MAIN
