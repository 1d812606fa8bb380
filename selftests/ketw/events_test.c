// SPDX-License-Identifier: GPL-2.0
/*
 * ketw events: what the sample provider logs arrives whole, once, in
 * order, with every header field right; filters, truncation, full
 * policies and read() semantics.
 */
#include "ketw_test.h"
#include <arpa/inet.h>
#include <pthread.h>
#include "kselftest_harness.h"

#define SESSION "ev_test"
#define MAX_CPUS 64
#define CLOCKSOURCE "/sys/devices/system/clocksource/clocksource0/"
#define MONO_CLOCK "/sys/module/ketw/mono_clock"
#define PM_TEST "/sys/power/pm_test"

FIXTURE(session) {
	int fd;
	int ncpus;
	struct ketw_session_attr attr;
	struct drained d;
};

FIXTURE_SETUP(session)
{
	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);

	ketw_cleanup(SESSION);
	self->fd = ketw_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", KETW_DEVICE, strerror(errno));
	ketw_attr_init(&self->attr, SESSION);
	self->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (self->ncpus > MAX_CPUS)
		self->ncpus = MAX_CPUS;
	memset(&self->d, 0, sizeof(self->d));
}

/* A clocksource to put back if a test that switches it failed half way. */
static char clocksource_orig[64];
/* The suspend test set /sys/power/pm_test. */
static int pm_test_set;

FIXTURE_TEARDOWN(session)
{
	if (pm_test_set)
		write_str(PM_TEST, "none");
	pm_test_set = 0;
	if (clocksource_orig[0])
		write_str(CLOCKSOURCE "current_clocksource", clocksource_orig);
	clocksource_orig[0] = '\0';
	ketw_ref(self->fd, KETW_IOC_DESTROY, SESSION);
	close(self->fd);
	free(self->d.buf);
}

static void check_payload(struct __test_metadata *_metadata,
			  const struct ketw_event_header *h, uint32_t *index)
{
	const struct ketw_sample_tick *t = (const void *)(h + 1);
	const uint8_t *tail = (const uint8_t *)(t + 1);
	uint32_t k, ntail;

	ASSERT_LE(KETW_EVENT_HEADER_SIZE + sizeof(*t), h->size);
	ASSERT_EQ(KETW_SAMPLE_MAGIC, t->magic);
	ASSERT_EQ((uint64_t)t->index * 3 + 1, t->value);
	ntail = t->index % KETW_SAMPLE_TAIL_MOD;
	ASSERT_EQ(KETW_EVENT_HEADER_SIZE + sizeof(*t) + ntail, h->size);
	for (k = 0; k < ntail; k++)
		ASSERT_EQ((uint8_t)(t->index + k), tail[k]);
	*index = t->index;
}

/*
 * 1000 events, half from each of two CPUs: every one arrives exactly once
 * with the right header and payload; per-CPU sequence numbers step by one
 * and timestamps never go back.
 */
TEST_F(session, thousand_events_all_fields)
{
	const int per_cpu = 500;
	int cpus = self->ncpus >= 2 ? 2 : 1;
	uint8_t seen[2][500];
	uint64_t last_seq[MAX_CPUS], last_ts[MAX_CPUS], t0, t1;
	int have[MAX_CPUS] = { 0 };
	const struct ketw_event_header *h;
	int bad = 0, nsample = 0, nstart = 0, nstop = 0, c;
	size_t off = 0;
	uint32_t idx;

	memset(seen, 0, sizeof(seen));
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	t0 = mono_ns();
	for (c = 0; c < 2; c++) {
		ASSERT_EQ(0, pin_cpu(c % cpus));
		ASSERT_EQ(0, sample_emit(per_cpu));
	}
	t1 = mono_ns();
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, drain(self->fd, &self->d));

	while ((h = next_record(&self->d, &off, &bad))) {
		ASSERT_LT(h->cpu, (uint32_t)self->ncpus);
		if (have[h->cpu]) {
			ASSERT_EQ(last_seq[h->cpu] + 1, h->sequence)
				TH_LOG("cpu %u: sequence %llu after %llu", h->cpu,
				       (unsigned long long)h->sequence,
				       (unsigned long long)last_seq[h->cpu]);
			ASSERT_LE(last_ts[h->cpu], h->timestamp);
		} else {
			ASSERT_EQ(0, h->sequence);
		}
		have[h->cpu] = 1;
		last_seq[h->cpu] = h->sequence;
		last_ts[h->cpu] = h->timestamp;
		if (is_system(h, KETW_SYS_START)) {
			nstart++;
			continue;
		}
		if (is_system(h, KETW_SYS_STOP)) {
			nstop++;
			continue;
		}
		ASSERT_TRUE(is_sample(h));
		/* From this task: context task, interrupts on, depth 0. */
		ASSERT_EQ(0, h->flags & ~KETW_RECORD_NEED_RESCHED);
		ASSERT_EQ(KETW_SAMPLE_TICK_TYPE, h->type);
		ASSERT_EQ(KETW_SAMPLE_TICK_LEVEL, h->level);
		ASSERT_EQ(KETW_SAMPLE_TICK_VERSION, h->version);
		ASSERT_EQ(KETW_SAMPLE_EV_TICK, h->event_id);
		ASSERT_EQ(KETW_SAMPLE_TICK_KEYWORD, h->keyword);
		ASSERT_EQ((uint32_t)getpid(), h->process_id);
		ASSERT_EQ((uint32_t)gettid(), h->thread_id);
		ASSERT_LE(t0, h->timestamp);
		ASSERT_GE(t1, h->timestamp);
		check_payload(_metadata, h, &idx);
		ASSERT_LT(idx, (uint32_t)per_cpu);
		/* Batch 0 ran on CPU 0, batch 1 on CPU 1 (or 0 if alone). */
		c = (cpus == 2) ? (int)h->cpu : (seen[0][idx] ? 1 : 0);
		ASSERT_LT(c, 2);
		ASSERT_EQ(0, seen[c][idx]) TH_LOG("event %u twice", idx);
		seen[c][idx] = 1;
		nsample++;
	}
	ASSERT_EQ(0, bad);
	ASSERT_EQ(2 * per_cpu, nsample);
	ASSERT_EQ(1, nstart);
	ASSERT_EQ(1, nstop);
}

/* The per-CPU counters agree with what was drained. */
TEST_F(session, stats_match_stream)
{
	uint64_t count[MAX_CPUS] = { 0 }, total = 0;
	const struct ketw_event_header *h;
	struct ketw_cpu_stats st;
	size_t off = 0;
	int bad = 0, c;

	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	ASSERT_EQ(0, sample_emit(300));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, drain(self->fd, &self->d));
	while ((h = next_record(&self->d, &off, &bad)))
		count[h->cpu]++;
	ASSERT_EQ(0, bad);
	for (c = 0; c < self->ncpus; c++) {
		ASSERT_EQ(0, cpu_stats(self->fd, SESSION, c, &st));
		EXPECT_EQ(count[c], st.written);
		EXPECT_EQ(count[c], st.read);
		EXPECT_EQ(0, st.lost_full + st.lost_busy + st.lost_nested +
			     st.overwritten + st.truncated);
		EXPECT_EQ(st.produced, st.consumed);
		EXPECT_EQ(count[c], st.sequence);
		total += st.written;
	}
	/* 300 samples plus START and STOP. */
	ASSERT_EQ(302, total);
}

/* A payload longer than max_data_size is cut and flagged. */
TEST_F(session, truncated_record)
{
	const struct ketw_event_header *h;
	struct ketw_cpu_stats st;
	uint64_t truncated = 0;
	size_t off = 0;
	int bad = 0, n = 0, c;

	self->attr.max_data_size = 20;
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	ASSERT_EQ(20, self->attr.max_data_size);
	ASSERT_EQ(0, sample_emit(40));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, drain(self->fd, &self->d));
	while ((h = next_record(&self->d, &off, &bad))) {
		const struct ketw_sample_tick *t = (const void *)(h + 1);
		uint32_t full;

		if (!is_sample(h)) {
			ASSERT_EQ(0, h->flags & KETW_RECORD_TRUNCATED);
			continue;
		}
		full = sizeof(*t) + t->index % KETW_SAMPLE_TAIL_MOD;
		if (full > 20) {
			ASSERT_EQ(KETW_RECORD_TRUNCATED,
				  h->flags & ~KETW_RECORD_NEED_RESCHED);
			ASSERT_EQ(KETW_EVENT_HEADER_SIZE + 20, h->size);
		} else {
			ASSERT_EQ(0, h->flags & ~KETW_RECORD_NEED_RESCHED);
			ASSERT_EQ(KETW_EVENT_HEADER_SIZE + full, h->size);
		}
		ASSERT_EQ(KETW_SAMPLE_MAGIC, t->magic);
		n++;
	}
	ASSERT_EQ(0, bad);
	ASSERT_EQ(40, n);
	for (c = 0; c < self->ncpus; c++) {
		ASSERT_EQ(0, cpu_stats(self->fd, SESSION, c, &st));
		truncated += st.truncated;
	}
	/* Indices with a tail of 5 bytes or more: 5..31 and 37..39. START
	 * and STOP are system events: never cut. */
	ASSERT_EQ(27 + 3, truncated);
}

static int count_samples(struct __test_metadata *_metadata, int fd,
			 struct drained *d)
{
	const struct ketw_event_header *h;
	size_t off = 0;
	int bad = 0, n = 0;

	EXPECT_EQ(0, drain(fd, d));
	while ((h = next_record(d, &off, &bad)))
		n += is_sample(h);
	EXPECT_EQ(0, bad);
	return n;
}

/* The session's level and keywords decide what it takes (ETW semantics). */
TEST_F(session, level_and_keyword_filter)
{
	static const struct {
		uint32_t level;
		uint64_t any, all;
		int taken;
	} cases[] = {
		{ KETW_LEVEL_WARNING, 0, 0, 0 },	/* tick is INFO */
		{ KETW_LEVEL_INFO, 0, 0, 1 },
		{ KETW_LEVEL_VERBOSE, 0, 0, 1 },
		{ KETW_LEVEL_ALL, 0x2, 0, 0 },		/* tick has keyword 0x1 */
		{ KETW_LEVEL_ALL, 0x3, 0, 1 },
		{ KETW_LEVEL_ALL, 0, 0x3, 0 },
		{ KETW_LEVEL_ALL, 0, 0x1, 1 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long long before = read_ll(SAMPLE_PARAM("stored"));

		ketw_attr_init(&self->attr, SESSION);
		self->attr.level = cases[i].level;
		self->attr.match_any = cases[i].any;
		self->attr.match_all = cases[i].all;
		ASSERT_EQ(0, session_start(self->fd, &self->attr));
		ASSERT_EQ(0, sample_emit(25));
		ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
		EXPECT_EQ(cases[i].taken ? 25 : 0,
			  count_samples(_metadata, self->fd, &self->d))
			TH_LOG("case %u", i);
		EXPECT_EQ(cases[i].taken ? 25 : 0,
			  read_ll(SAMPLE_PARAM("stored")) - before);
		ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_DESTROY, SESSION));
	}
}

/* Two running sessions each get their own copy of every event. */
TEST_F(session, two_sessions_each_get_all)
{
	struct ketw_session_attr b;
	struct drained d2 = { 0 };
	long long before = read_ll(SAMPLE_PARAM("stored"));
	int fd2 = ketw_open();

	ASSERT_LE(0, fd2);
	ketw_cleanup("ev_test2");
	ketw_attr_init(&b, "ev_test2");
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	ASSERT_EQ(0, session_start(fd2, &b));
	ASSERT_EQ(0, sample_emit(100));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, ketw_ref(fd2, KETW_IOC_STOP, "ev_test2"));
	EXPECT_EQ(100, count_samples(_metadata, self->fd, &self->d));
	EXPECT_EQ(100, count_samples(_metadata, fd2, &d2));
	EXPECT_EQ(200, read_ll(SAMPLE_PARAM("stored")) - before);
	EXPECT_EQ(0, ketw_ref(fd2, KETW_IOC_DESTROY, "ev_test2"));
	close(fd2);
	free(d2.buf);
}

/* The sample records of @d, by payload index; false if one is missing. */
static int samples_by_index(const struct drained *d, unsigned int n,
			    const struct ketw_event_header **by)
{
	const struct ketw_event_header *h;
	const struct ketw_sample_tick *t;
	size_t off = 0;
	int bad = 0;

	memset(by, 0, n * sizeof(*by));
	while ((h = next_record(d, &off, &bad))) {
		if (!is_sample(h) || h->size < KETW_EVENT_HEADER_SIZE + sizeof(*t))
			continue;
		t = (const void *)(h + 1);
		if (t->index < n)
			by[t->index] = h;
	}
	while (n--)
		if (!by[n])
			return 0;
	return !bad;
}

/*
 * Three sessions take every event: the record in each is the same event
 * read once, not three times. Two MONO sessions get the same timestamp
 * (the clock is read once for both) and every header word but the
 * sequence number; a LOCAL session gets the same words and its own
 * clock's time.
 */
TEST_F(session, sessions_share_one_event)
{
	static const char *const names[3] = { SESSION, "ev_test2", "ev_test3" };
	const struct ketw_event_header *by[3][64];
	struct drained d[3] = { { 0 } };
	struct ketw_session_attr a[3];
	const struct ketw_event_header *x, *y;
	int fd[3], i, k, differ = 0;

	for (i = 0; i < 3; i++) {
		fd[i] = i ? ketw_open() : self->fd;
		ASSERT_LE(0, fd[i]);
		if (i)
			ketw_cleanup(names[i]);
		ketw_attr_init(&a[i], names[i]);
		a[i].clock = i == 2 ? KETW_CLOCK_LOCAL : KETW_CLOCK_MONO;
		ASSERT_EQ(0, session_start(fd[i], &a[i]));
	}
	ASSERT_EQ(0, sample_emit(64));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, ketw_ref(fd[i], KETW_IOC_STOP, names[i]));
		ASSERT_EQ(0, drain(fd[i], &d[i]));
		ASSERT_TRUE(samples_by_index(&d[i], 64, by[i]))
			TH_LOG("%s: not all 64 sample events", names[i]);
	}
	for (k = 0; k < 64; k++) {
		x = by[0][k];
		for (i = 1; i < 3; i++) {
			y = by[i][k];
			EXPECT_EQ(x->size, y->size);
			EXPECT_EQ(x->type, y->type);
			EXPECT_EQ(x->level, y->level);
			EXPECT_EQ(x->version, y->version);
			EXPECT_EQ(x->flags, y->flags);
			EXPECT_EQ(x->event_id, y->event_id);
			EXPECT_EQ(x->cpu, y->cpu);
			EXPECT_EQ(x->thread_id, y->thread_id);
			EXPECT_EQ(x->process_id, y->process_id);
			EXPECT_EQ(x->keyword, y->keyword);
			EXPECT_EQ(0, memcmp(x->provider_guid, y->provider_guid,
					    KETW_GUID_SIZE));
			EXPECT_EQ(0, memcmp(x + 1, y + 1,
					    x->size - KETW_EVENT_HEADER_SIZE));
		}
		/* One read of MONO for both MONO sessions. */
		EXPECT_EQ(x->timestamp, by[1][k]->timestamp)
			TH_LOG("event %d: %llu vs %llu", k,
			       (unsigned long long)x->timestamp,
			       (unsigned long long)by[1][k]->timestamp);
		/* LOCAL is another clock: its own reading, in order. */
		if (k && by[2][k]->cpu == by[2][k - 1]->cpu)
			EXPECT_LE(by[2][k - 1]->timestamp, by[2][k]->timestamp);
		differ += x->timestamp != by[2][k]->timestamp;
	}
	/* Two clocks, two readings: LOCAL's are not MONO's copied. */
	EXPECT_LT(0, differ);
	for (i = 1; i < 3; i++) {
		EXPECT_EQ(0, ketw_ref(fd[i], KETW_IOC_DESTROY, names[i]));
		close(fd[i]);
	}
	for (i = 0; i < 3; i++)
		free(d[i].buf);
}

/* read(): too small a buffer, non-blocking on empty, end of data. */
TEST_F(session, read_semantics)
{
	char small[KETW_EVENT_HEADER_SIZE - 1], big[4096];
	int fd2 = ketw_open();

	ASSERT_LE(0, fd2);
	/* Not attached to any session. */
	EXPECT_EQ(-1, read(fd2, big, sizeof(big)));
	EXPECT_EQ(EINVAL, errno);
	close(fd2);

	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	/* START is there but does not fit. */
	EXPECT_EQ(-1, read(self->fd, small, sizeof(small)));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_LT(0, read(self->fd, big, sizeof(big)));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-1, read(self->fd, big, sizeof(big)));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	/* STOP, then end of data. */
	EXPECT_LT(0, read(self->fd, big, sizeof(big)));
	EXPECT_EQ(0, read(self->fd, big, sizeof(big)));
}

struct reader_arg {
	int fd;
	ssize_t got;
	uint64_t when;
};

static void *blocking_reader(void *p)
{
	struct reader_arg *a = p;
	char buf[65536];

	a->got = read(a->fd, buf, sizeof(buf));
	a->when = mono_ns();
	return NULL;
}

/* A blocked reader wakes when events arrive. */
TEST_F(session, blocking_read_wakes)
{
	struct reader_arg a = { .fd = self->fd };
	char buf[4096];
	pthread_t th;
	uint64_t emitted;

	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	ASSERT_LT(0, read(self->fd, buf, sizeof(buf)));	/* START */
	ASSERT_EQ(0, pthread_create(&th, NULL, blocking_reader, &a));
	usleep(300000);
	emitted = mono_ns();
	ASSERT_EQ(0, sample_emit(3));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_LT(0, a.got);
	ASSERT_LE(emitted, a.when) TH_LOG("reader returned before the events");
}

/* LOOP keeps exactly the newest events and counts what it overwrote. */
TEST_F(session, loop_keeps_newest)
{
	const struct ketw_event_header *h;
	struct ketw_cpu_stats st;
	uint32_t idx, first = 0, prev = 0;
	size_t off = 0;
	int bad = 0, n = 0;

	ASSERT_EQ(0, pin_cpu(0));
	self->attr.buffer_kb = 8;
	self->attr.policy = KETW_POLICY_LOOP;
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	ASSERT_EQ(0, sample_emit(1000));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, drain(self->fd, &self->d));
	while ((h = next_record(&self->d, &off, &bad))) {
		if (!is_sample(h))
			continue;
		check_payload(_metadata, h, &idx);
		if (n) {
			ASSERT_EQ(prev + 1, idx);
		} else {
			first = idx;
		}
		prev = idx;
		n++;
	}
	ASSERT_EQ(0, bad);
	ASSERT_LT(0, n);
	ASSERT_EQ(999, prev);
	ASSERT_EQ(1000 - n, first);
	ASSERT_EQ(0, cpu_stats(self->fd, SESSION, 0, &st));
	/* Everything written was either read or overwritten. */
	ASSERT_EQ(st.written, st.read + st.overwritten);
	ASSERT_EQ(1002, st.written);
	ASSERT_EQ(0, st.lost_full + st.lost_busy);
}

/*
 * emit_filter: N events of KETW_SAMPLE_FILTER_SIZE bytes, in order, with
 * the values of LTTng's lttng_test_filter_event (make bench times the
 * two); emit_filter refuses what is not a number, or too many.
 */
TEST_F(session, emit_filter_lttng_payload)
{
	static const int64_t values[3] = { 1, 2, 3 };
	const struct ketw_event_header *h;
	size_t off = 0;
	int bad = 0, n = 0;

	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	ASSERT_EQ(0, write_str(SAMPLE_PARAM("emit_filter"), "100"));
	ASSERT_EQ(-EINVAL, write_str(SAMPLE_PARAM("emit_filter"), "ten"));
	ASSERT_EQ(-EINVAL, write_str(SAMPLE_PARAM("emit_filter"), "10000001"));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, drain(self->fd, &self->d));
	while ((h = next_record(&self->d, &off, &bad))) {
		const uint8_t *p = (const uint8_t *)(h + 1);
		int32_t i32;
		int64_t i64;
		uint32_t be;

		if (!is_sample(h))
			continue;
		ASSERT_EQ(KETW_SAMPLE_EV_FILTER, h->event_id);
		ASSERT_EQ(KETW_SAMPLE_FILTER_KEYWORD, h->keyword);
		ASSERT_EQ(KETW_SAMPLE_FILTER_VERSION, h->version);
		ASSERT_EQ(KETW_EVENT_HEADER_SIZE + KETW_SAMPLE_FILTER_SIZE, h->size);
		memcpy(&i32, p, 4);				/* intfield */
		ASSERT_EQ(n, i32);
		memcpy(&i64, p + 8, 8);				/* longfield */
		ASSERT_EQ(n, i64);
		memcpy(&i32, p + 16, 4);			/* signedfield */
		ASSERT_EQ(-1, i32);
		memcpy(&be, p + 20, 4);				/* netintfield */
		ASSERT_EQ(htonl(n), be);
		ASSERT_EQ(0, memcmp(p + 28, values, sizeof(values)));	/* arrfield1 */
		ASSERT_STREQ("test", (const char *)p + 52);	/* arrfield2 */
		ASSERT_STREQ("test", (const char *)p + 150);	/* stringfield */
		ASSERT_STREQ("\\*", (const char *)p + 155);	/* stringfield2 */
		memcpy(&i32, p + KETW_SAMPLE_FILTER_SIZE - 4, 4);	/* enumnegative */
		ASSERT_EQ(-1, i32);
		n++;
	}
	ASSERT_EQ(0, bad);
	ASSERT_EQ(100, n);
}

/* A session outlives the file that made it. */
TEST_F(session, persists_after_close)
{
	struct ketw_session_attr got;
	int fd;

	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	close(self->fd);
	self->fd = ketw_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, sample_emit(10));
	ketw_attr_init(&got, SESSION);
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_GET_ATTR, &got));
	ASSERT_EQ(KETW_STATE_RUNNING, got.state);
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	fd = self->fd;
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_ATTACH, SESSION));
	ASSERT_EQ(10, count_samples(_metadata, fd, &self->d));
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/*
 * The MONO clock follows the kernel's clocksource: computed by ketw from
 * the TSC while the timekeeper runs on it, the timekeeper's own read on
 * any other (/sys/module/ketw/mono_clock says which). On each
 * clocksource the guest offers, records carry times
 * between two clock_gettime(CLOCK_MONOTONIC) taken around them, never
 * going back on a CPU, and so they do across a switch made while a
 * session runs.
 */
TEST_F(session, mono_clock_on_every_clocksource)
{
	char avail[256], orig[64], how[16], *name, *save = NULL;
	const struct ketw_event_header *h;
	uint64_t t0, t1, last_ts[MAX_CPUS];
	int have[MAX_CPUS] = { 0 }, bad = 0, n = 0, tried = 0, on_tsc = 0;
	size_t off = 0;

	ASSERT_EQ(0, read_line(CLOCKSOURCE "available_clocksource", avail,
			       sizeof(avail)));
	ASSERT_EQ(0, read_line(CLOCKSOURCE "current_clocksource", orig,
			       sizeof(orig)));
	snprintf(clocksource_orig, sizeof(clocksource_orig), "%s", orig);
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	t0 = mono_ns();
	for (name = strtok_r(avail, " ", &save); name;
	     name = strtok_r(NULL, " ", &save)) {
		if (!strcmp(name, "jiffies") || !strcmp(name, "refined-jiffies"))
			continue;	/* too coarse to bracket a record */
		ASSERT_EQ(0, write_str(CLOCKSOURCE "current_clocksource", name))
			TH_LOG("select clocksource %s", name);
		on_tsc += !strcmp(name, "tsc");
		/* ketw reads the TSC itself exactly while it is the clocksource. */
		ASSERT_EQ(0, read_line(MONO_CLOCK, how, sizeof(how)));
		EXPECT_STREQ(strcmp(name, "tsc") ? "timekeeper" : "tsc", how);
		ASSERT_EQ(0, sample_emit(100));
		tried++;
	}
	t1 = mono_ns();
	ASSERT_EQ(0, write_str(CLOCKSOURCE "current_clocksource", orig));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, drain(self->fd, &self->d));
	while ((h = next_record(&self->d, &off, &bad))) {
		ASSERT_LT(h->cpu, (uint32_t)self->ncpus);
		if (have[h->cpu])
			ASSERT_LE(last_ts[h->cpu], h->timestamp);
		have[h->cpu] = 1;
		last_ts[h->cpu] = h->timestamp;
		if (!is_sample(h))
			continue;
		ASSERT_LE(t0, h->timestamp);
		ASSERT_GE(t1, h->timestamp);
		n++;
	}
	ASSERT_EQ(0, bad);
	EXPECT_EQ(100 * tried, n);
	/* make check boots with tsc=reliable, and offers another one too. */
	EXPECT_EQ(1, on_tsc) TH_LOG("tsc not offered: %s", avail);
	EXPECT_LE(2, tried);
}

/*
 * A probe on ketw's write path that logs from inside it, in the writer's
 * own context (ketw_sample's "recurse": a kprobe on ketw_ring_write()),
 * is refused, not followed: each of its events takes a sequence number
 * (a gap in the stream) and is counted lost_nested, the next record
 * carries the OVERFLOW and RESUME for it, and every outer event is stored.
 */
TEST_F(session, recursion_refused_and_counted)
{
	const int n = 50;
	const struct ketw_event_header *h;
	struct ketw_cpu_stats st;
	long long hits0, hits1;
	uint64_t resumed = 0, last_seq = 0, gaps = 0;
	int bad = 0, warns = 0, have = 0;
	size_t off = 0;
	char num[16];

	ASSERT_EQ(0, pin_cpu(0));
	hits0 = read_ll(SAMPLE_PARAM("probe_hits"));
	ASSERT_LE(0, hits0);
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	snprintf(num, sizeof(num), "%d", n);
	ASSERT_EQ(0, write_str(SAMPLE_PARAM("recurse"), num))
		TH_LOG("recurse: %s", strerror(errno));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	hits1 = read_ll(SAMPLE_PARAM("probe_hits"));
	/* Once per outer event (and for the STOP record, logged meanwhile). */
	ASSERT_LE(hits0 + n, hits1);
	ASSERT_EQ(0, drain(self->fd, &self->d));
	while ((h = next_record(&self->d, &off, &bad))) {
		if (h->cpu != 0)
			continue;
		/* A lost event leaves a gap of its own number. */
		if (have) {
			ASSERT_LT(last_seq, h->sequence);
			gaps += h->sequence - last_seq - 1;
		}
		have = 1;
		last_seq = h->sequence;
		if (is_system(h, KETW_SYS_RESUME))
			resumed += ((const struct ketw_sys_resume *)(h + 1))->lost;
		if (is_sample(h) && h->event_id == KETW_SAMPLE_EV_WARN)
			warns++;
	}
	ASSERT_EQ(0, bad);
	EXPECT_EQ(n, warns);
	EXPECT_EQ((uint64_t)n, resumed);
	EXPECT_EQ((uint64_t)n, gaps);
	ASSERT_EQ(0, cpu_stats(self->fd, SESSION, 0, &st));
	EXPECT_EQ((uint64_t)n, st.lost_nested);
	EXPECT_EQ(st.written + st.lost_nested, st.sequence);
}

/*
 * Across a suspend and resume (the kernel's own path down to its
 * syscore step, with /sys/power/pm_test "core": a 5 s wait in place of
 * the sleep), records keep CLOCK_MONOTONIC times and ketw reads the TSC
 * itself again once the timekeeper has run after resume (it leaves it to
 * the timekeeper while suspended).
 */
TEST_F(session, mono_clock_across_suspend)
{
	const struct ketw_event_header *h;
	uint64_t t0, t_mid, t1, last = 0;
	int bad = 0, n = 0, i;
	size_t off = 0;
	char how[16] = "";

	ASSERT_EQ(0, pin_cpu(0));
	ASSERT_EQ(0, write_str(PM_TEST, "core")) TH_LOG("pm_test: %s", strerror(errno));
	pm_test_set = 1;
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	t0 = mono_ns();
	ASSERT_EQ(0, sample_emit(20));
	ASSERT_EQ(0, write_str("/sys/power/state", "mem"))
		TH_LOG("suspend: %s", strerror(errno));
	t_mid = mono_ns();
	for (i = 0; i < 200; i++) {	/* the next tick, at most 2 s */
		ASSERT_EQ(0, read_line(MONO_CLOCK, how, sizeof(how)));
		if (!strcmp(how, "tsc"))
			break;
		usleep(10000);
	}
	EXPECT_STREQ("tsc", how);
	ASSERT_EQ(0, sample_emit(20));
	t1 = mono_ns();
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, drain(self->fd, &self->d));
	while ((h = next_record(&self->d, &off, &bad))) {
		if (!is_sample(h))
			continue;
		ASSERT_EQ(0, h->cpu);
		ASSERT_LE(last, h->timestamp);
		last = h->timestamp;
		ASSERT_LE(t0, h->timestamp);
		ASSERT_GE(t1, h->timestamp);
		/* The second batch, logged after resume. */
		if (n >= 20)
			ASSERT_LE(t_mid, h->timestamp);
		n++;
	}
	ASSERT_EQ(0, bad);
	EXPECT_EQ(40, n);
}

TEST_HARNESS_MAIN
