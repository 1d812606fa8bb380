// SPDX-License-Identifier: GPL-2.0
/*
 * ketw full policies and POSIX stream semantics: UNTIL_FULL stops itself,
 * FLUSH streams and reports losses with OVERFLOW/RESUME, LOOP snapshots,
 * the status ioctl, FLUSH requests, watermark poll, create/destroy churn.
 */
#include "ketw_test.h"
#include <poll.h>
#include <sched.h>
#include <sys/wait.h>
#include <time.h>
#include <pthread.h>
#include "kselftest_harness.h"

#define SESSION "pol_test"

FIXTURE(pol) {
	int fd;
	struct ketw_session_attr attr;
	struct drained d;
};

FIXTURE_SETUP(pol)
{
	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);

	ketw_cleanup(SESSION);
	self->fd = ketw_open();
	ASSERT_LE(0, self->fd);
	ketw_attr_init(&self->attr, SESSION);
	memset(&self->d, 0, sizeof(self->d));
	ASSERT_EQ(0, pin_cpu(0));
}

FIXTURE_TEARDOWN(pol)
{
	ketw_ref(self->fd, KETW_IOC_DESTROY, SESSION);
	close(self->fd);
	free(self->d.buf);
}

/* Wait up to @ms for the session to reach @state (GET_ATTR: no reset). */
static int wait_state(int fd, uint32_t state, int ms)
{
	struct ketw_session_attr st;

	for (; ms > 0; ms -= 10) {
		ketw_attr_init(&st, SESSION);
		if (ioctl(fd, KETW_IOC_GET_ATTR, &st))
			return -1;
		if (st.state == state)
			return 0;
		usleep(10000);
	}
	return -1;
}

static const void *payload(const struct ketw_event_header *h)
{
	return h + 1;
}

/*
 * UNTIL_FULL: the session stops itself once a buffer is full, logs STOP
 * with the auto flag, and every loss is accounted for: in the counters,
 * in the sequence gaps and in the OVERFLOW/RESUME pair.
 */
TEST_F(pol, until_full_stops_itself)
{
	const struct ketw_event_header *h, *prev = NULL;
	struct ketw_session_status st;
	struct ketw_cpu_stats cs;
	uint64_t next = 0, gaps = 0, resumed = 0, last_sample_ts = 0;
	uint64_t gap, ovf_gap = 0;
	int bad = 0, stops = 0, ovf = 0;
	size_t off = 0;

	self->attr.buffer_kb = 4;
	self->attr.policy = KETW_POLICY_UNTIL_FULL;
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	ASSERT_EQ(0, sample_emit(1000));
	ASSERT_EQ(0, wait_state(self->fd, KETW_STATE_SUSPENDED, 5000));
	EXPECT_EQ(-1, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	EXPECT_EQ(EALREADY, errno);

	ASSERT_EQ(0, session_status(self->fd, SESSION, &st));
	EXPECT_EQ(KETW_STATE_SUSPENDED, st.state);
	EXPECT_EQ(KETW_FULL_FULL, st.full_status);
	EXPECT_EQ(1, st.auto_stopped);
	EXPECT_EQ(KETW_OVERRUN_OVERRUN, st.overrun_status);
	EXPECT_LT(0, st.lost);
	/* Reading the status resets the overrun status. */
	ASSERT_EQ(0, session_status(self->fd, SESSION, &st));
	EXPECT_EQ(KETW_OVERRUN_NONE, st.overrun_status);

	ASSERT_EQ(0, drain(self->fd, &self->d));
	while ((h = next_record(&self->d, &off, &bad))) {
		if (is_system(h, KETW_SYS_STOP)) {
			const struct ketw_sys_stop *sp = payload(h);

			EXPECT_NE(0, sp->auto_stop);
			stops++;
		}
		if (h->cpu != 0)
			continue;
		ASSERT_LE(next, h->sequence);
		gap = h->sequence - next;
		gaps += gap;
		next = h->sequence + 1;
		if (is_sample(h))
			last_sample_ts = h->timestamp;
		if (is_system(h, KETW_SYS_OVERFLOW)) {
			const struct ketw_sys_overflow *o = payload(h);

			EXPECT_LE(last_sample_ts, o->first_lost_timestamp);
			EXPECT_GE(h->timestamp, o->first_lost_timestamp);
			ovf_gap = gap;
			ovf++;
		} else if (gap) {
			/* Only an OVERFLOW may follow a gap. */
			EXPECT_EQ(0, gap);
		}
		if (is_system(h, KETW_SYS_RESUME)) {
			const struct ketw_sys_resume *r = payload(h);

			/* RESUME follows its OVERFLOW and counts the gap. */
			ASSERT_NE(NULL, prev);
			EXPECT_TRUE(is_system(prev, KETW_SYS_OVERFLOW));
			EXPECT_EQ(ovf_gap, r->lost);
			resumed += r->lost;
		}
		prev = h;
	}
	ASSERT_EQ(0, bad);
	EXPECT_EQ(1, stops);
	EXPECT_EQ(1, ovf);
	ASSERT_EQ(0, cpu_stats(self->fd, SESSION, 0, &cs));
	EXPECT_LT(0, cs.lost_full);
	/* Stopping reported the losses after the last record: no tail gap. */
	EXPECT_EQ(cs.sequence, next);
	EXPECT_EQ(cs.lost_full, gaps);
	EXPECT_EQ(cs.lost_full, resumed);
	EXPECT_EQ(cs.sequence, cs.written + cs.lost_full);
}

/*
 * UNTIL_FULL: the auto-stop that filling a run queues belongs to that run.
 * Stopped by hand before the auto-stop work ran, emptied and started
 * again, the session keeps running. To come in before the work, this
 * thread runs SCHED_FIFO on CPU 0, where the full buffer's irq_work
 * queues the work (ketw's workqueue is per-CPU): the worker waits until
 * the thread sleeps, after the new START.
 */
TEST_F(pol, until_full_restart_outlives_the_last_auto_stop)
{
	struct sched_param fifo = { .sched_priority = 10 };
	struct sched_param other = { .sched_priority = 0 };
	struct ketw_session_attr a;
	int round, raced = 0, stopped = 0;

	self->attr.buffer_kb = 4;
	self->attr.policy = KETW_POLICY_UNTIL_FULL;
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	ASSERT_EQ(0, sched_setscheduler(0, SCHED_FIFO, &fifo));
	for (round = 0; round < 20; round++) {
		ASSERT_EQ(0, sample_emit(200));
		if (ketw_ref(self->fd, KETW_IOC_STOP, SESSION)) {
			/* The work came first: this round tells nothing. */
			ASSERT_EQ(EALREADY, errno);
		} else {
			raced++;
		}
		free(self->d.buf);
		memset(&self->d, 0, sizeof(self->d));
		ASSERT_EQ(0, drain(self->fd, &self->d));
		ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
		/* Let the worker run; this run stores nothing, fills nothing. */
		usleep(20000);
		ketw_attr_init(&a, SESSION);
		ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_GET_ATTR, &a));
		if (a.state != KETW_STATE_RUNNING) {
			stopped++;
			ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START,
					      SESSION));
		}
	}
	sched_setscheduler(0, SCHED_OTHER, &other);
	TH_LOG("%d of %d rounds stopped by hand before the auto-stop; %d new runs stopped by the last one's",
	       raced, round, stopped);
	EXPECT_LT(0, raced);
	EXPECT_EQ(0, stopped);
}

/*
 * FLUSH: when the reader falls behind events are dropped and counted; the
 * first record stored afterwards comes behind OVERFLOW and RESUME.
 */
TEST_F(pol, flush_reports_losses_in_stream)
{
	const struct ketw_event_header *h;
	struct ketw_cpu_stats cs;
	uint64_t next = 0, lost_seen = 0, gap, ovf_gap = 0;
	int bad = 0, after_resume = -1, resumes = 0;
	size_t off = 0;

	self->attr.buffer_kb = 4;
	self->attr.policy = KETW_POLICY_FLUSH;
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	ASSERT_EQ(0, sample_emit(500));		/* overflows */
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	ASSERT_EQ(0, drain_more(self->fd, &self->d));	/* catches up */
	ASSERT_EQ(0, sample_emit(10));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, drain_more(self->fd, &self->d));

	while ((h = next_record(&self->d, &off, &bad))) {
		if (h->cpu != 0)
			continue;
		ASSERT_LE(next, h->sequence);
		gap = h->sequence - next;
		next = h->sequence + 1;
		/* Every gap is explained by the OVERFLOW right after it. */
		if (is_system(h, KETW_SYS_OVERFLOW))
			ovf_gap = gap;
		else
			ASSERT_EQ(0, gap);
		if (is_system(h, KETW_SYS_RESUME)) {
			const struct ketw_sys_resume *r = payload(h);

			EXPECT_EQ(ovf_gap, r->lost);
			resumes++;
			lost_seen += r->lost;
			after_resume = 1;
			continue;
		}
		if (after_resume == 1) {
			/* The first event after the loss: index 0 of batch 2. */
			const struct ketw_sample_tick *t = payload(h);

			ASSERT_TRUE(is_sample(h));
			EXPECT_EQ(0, t->index);
			after_resume = 0;
		}
	}
	ASSERT_EQ(0, bad);
	EXPECT_EQ(1, resumes);
	EXPECT_EQ(0, after_resume);
	ASSERT_EQ(0, cpu_stats(self->fd, SESSION, 0, &cs));
	EXPECT_LT(100, cs.lost_full);
	EXPECT_EQ(cs.lost_full, lost_seen);
	EXPECT_EQ(cs.sequence, cs.written + cs.lost_full);
}

struct streamer {
	int fd;
	volatile int stop;
	uint64_t bytes;
	struct drained d;
};

/* Keep reading until told to stop and the stream says end of data. */
static void *stream_reader(void *p)
{
	struct streamer *s = p;
	ssize_t n;

	for (;;) {
		if (s->d.cap - s->d.len < 65536) {
			s->d.cap += 1 << 22;
			s->d.buf = realloc(s->d.buf, s->d.cap);
		}
		n = read(s->fd, s->d.buf + s->d.len, 65536);
		if (n <= 0)
			break;
		s->d.len += n;
	}
	return NULL;
}

/* FLUSH streams without loss while the reader keeps up. */
TEST_F(pol, flush_streams_without_loss)
{
	struct streamer s = { .fd = self->fd };
	const struct ketw_event_header *h;
	struct ketw_cpu_stats cs;
	pthread_t th;
	uint32_t expect = 0, batch;
	int bad = 0, i, n = 0;
	size_t off = 0;

	self->attr.buffer_kb = 16;
	self->attr.policy = KETW_POLICY_FLUSH;
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	ASSERT_EQ(0, pthread_create(&th, NULL, stream_reader, &s));
	for (i = 0; i < 40; i++) {
		/* ~5 KiB a batch into 16 KiB: it fits while the reader keeps up. */
		ASSERT_EQ(0, sample_emit(50));
		do {
			ASSERT_EQ(0, cpu_stats(self->fd, SESSION, 0, &cs));
			if (cs.produced != cs.consumed)
				usleep(1000);
		} while (cs.produced != cs.consumed);
	}
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, pthread_join(th, NULL));
	while ((h = next_record(&s.d, &off, &bad))) {
		const struct ketw_sample_tick *t = payload(h);

		if (!is_sample(h))
			continue;
		batch = expect % 50;
		ASSERT_EQ(batch, t->index);
		expect++;
		n++;
	}
	ASSERT_EQ(0, bad);
	EXPECT_EQ(2000, n);
	ASSERT_EQ(0, cpu_stats(self->fd, SESSION, 0, &cs));
	EXPECT_EQ(0, cs.lost_full + cs.lost_busy + cs.lost_nested);
	free(s.d.buf);
}

static int snapshot(int fd, unsigned int cpu, void *buf, size_t len,
		    struct ketw_snapshot *snap)
{
	memset(snap, 0, sizeof(*snap));
	snap->size = sizeof(*snap);
	snap->cpu = cpu;
	snprintf(snap->name, sizeof(snap->name), "%s", SESSION);
	snap->buf = (uintptr_t)buf;
	snap->buf_len = len;
	return ioctl(fd, KETW_IOC_SNAPSHOT, snap) ? -errno : 0;
}

/* Check a snapshot: whole records, newest last; return the last index. */
static int snapshot_last_index(struct __test_metadata *_metadata,
			       const void *buf, size_t len, int *count)
{
	struct drained d = { .buf = (void *)buf, .len = len };
	const struct ketw_event_header *h;
	const struct ketw_sample_tick *t;
	size_t off = 0;
	int bad = 0, last = -1;

	*count = 0;
	while ((h = next_record(&d, &off, &bad))) {
		if (h->flags & KETW_RECORD_PADDING || !is_sample(h))
			continue;
		t = payload(h);
		EXPECT_EQ(KETW_SAMPLE_MAGIC, t->magic);
		/* Batches of 1000 then 7: 998, 999, 0, 1, ... */
		if (last >= 0)
			EXPECT_EQ(((uint32_t)last + 1) % 1000, t->index);
		last = t->index;
		(*count)++;
	}
	EXPECT_EQ(0, bad);
	return last;
}

/* LOOP: a snapshot copies the newest records while the session runs. */
TEST_F(pol, loop_snapshot_while_running)
{
	struct ketw_snapshot snap;
	struct ketw_session_attr got;
	static char buf[1 << 16];
	int count, count2;

	self->attr.buffer_kb = 8;
	self->attr.policy = KETW_POLICY_LOOP;
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	ASSERT_EQ(0, sample_emit(1000));
	ASSERT_EQ(-ENOBUFS, snapshot(self->fd, 0, buf, 4096, &snap));
	ASSERT_EQ(0, snapshot(self->fd, 0, buf, sizeof(buf), &snap));
	EXPECT_EQ(0, snap.dropped);
	EXPECT_LT(0, snap.len);
	EXPECT_GE(8192, snap.len);
	EXPECT_EQ(999, snapshot_last_index(_metadata, buf, snap.len, &count));
	EXPECT_LT(20, count);

	/* Not consumed: a second snapshot sees the same. */
	ASSERT_EQ(0, snapshot(self->fd, 0, buf, sizeof(buf), &snap));
	EXPECT_EQ(999, snapshot_last_index(_metadata, buf, snap.len, &count2));
	EXPECT_EQ(count, count2);

	ASSERT_EQ(0, sample_emit(7));
	ASSERT_EQ(0, snapshot(self->fd, 0, buf, sizeof(buf), &snap));
	EXPECT_EQ(6, snapshot_last_index(_metadata, buf, snap.len, &count2));

	ketw_attr_init(&got, SESSION);
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_GET_ATTR, &got));
	EXPECT_EQ(KETW_STATE_RUNNING, got.state);
	EXPECT_EQ(-EINVAL, snapshot(self->fd, 9999, buf, sizeof(buf), &snap));
}

static void *drain_until_eof(void *p)
{
	struct streamer *s = p;
	char buf[65536];

	while (read(s->fd, buf, sizeof(buf)) > 0)
		;
	return NULL;
}

/* A FLUSH request completes when a reader drains; times out without one. */
TEST_F(pol, flush_request)
{
	struct streamer s = { .fd = self->fd };
	struct ketw_session_status st;
	const struct ketw_event_header *h;
	int bad = 0, fstart = 0, fstop = 0, errs = 0;
	size_t off = 0;
	pthread_t th;
	int fd2;

	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	ASSERT_EQ(0, sample_emit(100));
	ASSERT_EQ(0, pthread_create(&th, NULL, drain_until_eof, &s));
	EXPECT_EQ(0, ketw_ref(self->fd, KETW_IOC_FLUSH, SESSION));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, pthread_join(th, NULL));

	/* No reader now: the flush times out and says so, once. */
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	ASSERT_EQ(0, sample_emit(10));
	fd2 = ketw_open();
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-1, ketw_ref(fd2, KETW_IOC_FLUSH, SESSION));
	EXPECT_EQ(ETIMEDOUT, errno);
	close(fd2);
	ASSERT_EQ(0, session_status(self->fd, SESSION, &st));
	EXPECT_EQ(-ETIMEDOUT, st.flush_error);
	EXPECT_EQ(KETW_FLUSH_NOT_FLUSHING, st.flush_status);
	ASSERT_EQ(0, session_status(self->fd, SESSION, &st));
	EXPECT_EQ(0, st.flush_error);
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	/* Nothing to flush in a stopped session. */
	EXPECT_EQ(-1, ketw_ref(self->fd, KETW_IOC_FLUSH, SESSION));
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, drain(self->fd, &self->d));
	while ((h = next_record(&self->d, &off, &bad))) {
		fstart += is_system(h, KETW_SYS_FLUSH_START);
		fstop += is_system(h, KETW_SYS_FLUSH_STOP);
		if (is_system(h, KETW_SYS_ERROR)) {
			const struct ketw_sys_error *e = payload(h);

			EXPECT_EQ(-ETIMEDOUT, e->error);
			errs++;
		}
	}
	ASSERT_EQ(0, bad);
	/* The first pair was drained by the thread; the second is here. */
	EXPECT_EQ(1, fstart);
	EXPECT_EQ(1, fstop);
	EXPECT_EQ(1, errs);
}

/* poll() reports readable at the watermark, hang-up once drained. */
TEST_F(pol, poll_at_watermark)
{
	struct pollfd p = { .fd = self->fd, .events = POLLIN };
	char buf[1 << 16];

	self->attr.buffer_kb = 16;
	self->attr.watermark = 25;	/* 4 KiB */
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	ASSERT_EQ(25, self->attr.watermark);
	ASSERT_EQ(0, sample_emit(5));	/* ~500 bytes */
	EXPECT_EQ(0, poll(&p, 1, 0));
	ASSERT_EQ(0, sample_emit(60));	/* past 4 KiB */
	EXPECT_EQ(1, poll(&p, 1, 2000));
	EXPECT_TRUE(p.revents & POLLIN);
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	while (read(self->fd, buf, sizeof(buf)) > 0)
		;
	EXPECT_EQ(1, poll(&p, 1, 0));
	EXPECT_TRUE(p.revents & POLLHUP);

	ketw_attr_init(&self->attr, "pol_test_wm");
	self->attr.watermark = 101;
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_CREATE, &self->attr));
	EXPECT_EQ(EINVAL, errno);
}

/*
 * KETW_SESSION_WAKE_ANY: readable at the first record, far below the
 * watermark, and a poller sleeping on an empty session wakes for one
 * event logged later.
 */
TEST_F(pol, poll_wake_any)
{
	struct pollfd p = { .fd = self->fd, .events = POLLIN };
	struct timespec t0, t1;
	char buf[1 << 16];
	pid_t pid;
	int st;

	self->attr.buffer_kb = 16;
	self->attr.watermark = 100;
	self->attr.flags = KETW_SESSION_WAKE_ANY | KETW_SESSION_NO_RUNDOWN;
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	/* START alone makes it readable; read it, then it is empty. */
	EXPECT_EQ(1, poll(&p, 1, 0));
	ASSERT_LT(0, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(0, poll(&p, 1, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		usleep(300000);
		_exit(sample_emit(1) ? 1 : 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	EXPECT_EQ(1, poll(&p, 1, 10000));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	EXPECT_TRUE(p.revents & POLLIN);
	/* Woken by the event, not by the timeout. */
	EXPECT_GT(8, t1.tv_sec - t0.tv_sec);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, st);
	ASSERT_LT(0, read(self->fd, buf, sizeof(buf)));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
}

/* A thousand sessions made and destroyed leave nothing behind. */
TEST_F(pol, thousand_create_destroy_cycles)
{
	struct ketw_session_attr a;
	int i, ok = 0;

	for (i = 0; i < 1000; i++) {
		ketw_attr_init(&a, "cycle");
		a.buffer_kb = 4;
		a.policy = 1 + i % 3;
		if (ioctl(self->fd, KETW_IOC_CREATE, &a))
			break;
		/* Starting costs a grace period at destroy: every tenth. */
		if (i % 10 == 0 && ketw_ref(self->fd, KETW_IOC_START, "cycle"))
			break;
		if (ketw_ref(self->fd, KETW_IOC_DESTROY, "cycle"))
			break;
		ok++;
	}
	EXPECT_EQ(1000, ok) TH_LOG("cycle %d: %s", i, strerror(errno));
	/* The name is free again and the module works. */
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	ASSERT_EQ(0, sample_emit(3));
}

TEST_HARNESS_MAIN
