// SPDX-License-Identifier: GPL-2.0
/*
 * The mapped meta page is untrusted (Documentation/ketw-lifetimes.rst):
 * every field of it, for each policy, gets hostile values (ahead of
 * commit, behind it by more than the buffer, misaligned, 0, 2^32 - 8)
 * while writers write and read(), poll(), STATUS, CPU_STATS and SNAPSHOT
 * run. Each call must return, what read() returns must be whole records,
 * and once read() has resynchronised the session records and delivers new
 * events again. Before the fix, oldest = commit + 8 in LOOP kept read()
 * in the kernel for good (soft lockup, immune to SIGKILL).
 */
#include "ketw_test.h"
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <sys/wait.h>
#include "kselftest_harness.h"

#define SESSION	"meta_test"
#define KB	8

struct field {
	const char *name;
	size_t off;
	int wide;	/* a __u64 */
};

#define F32(f) { #f, offsetof(struct ketw_meta_page, f), 0 }
#define F64(f) { #f, offsetof(struct ketw_meta_page, f), 1 }

static const struct field fields[] = {
	F32(version), F32(meta_size), F32(cpu), F32(policy),
	F64(data_offset), F32(data_size), F32(watermark), F32(commit),
	F32(oldest), F32(reserved0[0]), F32(reserved0[1]), F64(written),
	F64(lost_full), F64(lost_busy), F64(lost_nested), F64(overwritten),
	F64(truncated), F64(resyncs), F64(reserved1[0]), F64(reserved1[2]),
	F32(consumed), F32(reserved2), F64(read),
};

enum hostile { AHEAD, BEHIND, MISALIGNED, ZERO, TOP, NR_HOSTILE };
static const char *const hostile_names[] = {
	"commit+8", "commit-size-8", "commit+3", "0", "2^32-8",
};

static uint32_t hostile_value(enum hostile h, uint32_t commit, uint32_t size)
{
	switch (h) {
	case AHEAD:	 return commit + 8;
	case BEHIND:	 return commit - size - 8;
	case MISALIGNED: return commit + 3;
	case ZERO:	 return 0;
	default:	 return 0xfffffff8u;
	}
}

static void on_alarm(int sig)
{
	static const char msg[] = "meta_test: a call did not return in time\n";

	(void)sig;
	/* The harness sees the child die of a signal: a failure. */
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(99);
	_exit(98);
}

/* Watchdog for each step: the kernel must hand control back. */
static void watch(unsigned int secs)
{
	signal(SIGALRM, on_alarm);
	alarm(secs);
}

static int well_formed(const unsigned char *buf, size_t len, int *samples)
{
	struct drained d = { .buf = (unsigned char *)buf, .len = len };
	const struct ketw_event_header *h;
	size_t off = 0;
	int bad = 0;

	while ((h = next_record(&d, &off, &bad)))
		*samples += is_sample(h);
	return !bad;
}

FIXTURE(meta) {
	int fd;
	struct ketw_session_attr attr;
	struct ketw_meta_page *meta;
};

FIXTURE_VARIANT(meta) {
	uint32_t policy;
};

FIXTURE_VARIANT_ADD(meta, loop) { .policy = KETW_POLICY_LOOP };
FIXTURE_VARIANT_ADD(meta, until_full) { .policy = KETW_POLICY_UNTIL_FULL };
FIXTURE_VARIANT_ADD(meta, flush) { .policy = KETW_POLICY_FLUSH };

FIXTURE_SETUP(meta)
{
	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);

	ASSERT_EQ(0, pin_cpu(0));
	ketw_cleanup(SESSION);
	self->fd = ketw_open();
	ASSERT_LE(0, self->fd);
	ketw_attr_init(&self->attr, SESSION);
	self->attr.buffer_kb = KB;
	self->attr.policy = variant->policy;
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &self->attr));
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, KETW_SAMPLE_NAME, NULL,
				 0, 0, 0, NULL, 0, 0));
	self->meta = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			  self->fd, KETW_MMAP_CPU(0));
	ASSERT_NE(MAP_FAILED, self->meta);
}

FIXTURE_TEARDOWN(meta)
{
	munmap(self->meta, 4096);
	ketw_ref(self->fd, KETW_IOC_DESTROY, SESSION);
	close(self->fd);
}

/* Every call that reads the ring, once; none may hang. */
static void poke_everything(struct __test_metadata *_metadata, int fd,
			    unsigned char *buf, size_t len, int *samples)
{
	struct ketw_session_status st = { .size = sizeof(st) };
	struct ketw_snapshot snap = { .size = sizeof(snap) };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct ketw_cpu_stats cs;
	ssize_t n;

	n = read(fd, buf, len);
	if (n > 0) {
		EXPECT_TRUE(well_formed(buf, n, samples));
	} else {
		EXPECT_TRUE(n == 0 || errno == EAGAIN)
			TH_LOG("read: %s", strerror(errno));
	}
	EXPECT_LE(0, poll(&pfd, 1, 0));
	snprintf(st.name, sizeof(st.name), "%s", SESSION);
	EXPECT_EQ(0, ioctl(fd, KETW_IOC_STATUS, &st));
	EXPECT_EQ(0, cpu_stats(fd, SESSION, 0, &cs));
	snprintf(snap.name, sizeof(snap.name), "%s", SESSION);
	snap.buf = (uintptr_t)buf;
	snap.buf_len = len;
	EXPECT_EQ(0, ioctl(fd, KETW_IOC_SNAPSHOT, &snap));
	EXPECT_GE(KB * 1024, snap.len);
}

static void set_field(struct ketw_meta_page *m, const struct field *f,
		      uint32_t v)
{
	char *p = (char *)m + f->off;

	if (f->wide)
		__atomic_store_n((uint64_t *)p, (uint64_t)v, __ATOMIC_RELEASE);
	else
		__atomic_store_n((uint32_t *)p, v, __ATOMIC_RELEASE);
}

/*
 * STOP found the session stopped: only UNTIL_FULL may do that by itself,
 * when the hostile value or the events filled it; its auto-stop work runs
 * when this CPU lets it, which may be after the START that found the
 * session still running.
 */
static void until_full_stopped_itself(struct __test_metadata *_metadata,
				      int fd, uint32_t policy,
				      const char *field, const char *value)
{
	struct ketw_session_status st;
	int err = errno;

	ASSERT_EQ(KETW_POLICY_UNTIL_FULL, policy)
		TH_LOG("%s = %s: STOP: %s", field, value, strerror(err));
	ASSERT_EQ(EALREADY, err)
		TH_LOG("%s = %s: STOP: %s", field, value, strerror(err));
	ASSERT_EQ(0, session_status(fd, SESSION, &st));
	ASSERT_EQ(1, st.auto_stopped)
		TH_LOG("%s = %s: stopped, but not by itself", field, value);
}

TEST_F_TIMEOUT(meta, hostile_values_in_every_field, 600)
{
	const uint32_t size = KB * 1024;
	int is_reader_word, samples;
	unsigned char *buf;
	size_t fi;
	uint64_t resyncs;
	int h;

	buf = malloc(size);
	ASSERT_NE(NULL, buf);
	fcntl(self->fd, F_SETFL, O_NONBLOCK);
	for (fi = 0; fi < sizeof(fields) / sizeof(fields[0]); fi++) {
		const struct field *f = &fields[fi];

		is_reader_word = variant->policy == KETW_POLICY_LOOP ?
				 !strcmp(f->name, "oldest") :
				 !strcmp(f->name, "consumed");
		for (h = 0; h < NR_HOSTILE; h++) {
			watch(20);
			if (ketw_ref(self->fd, KETW_IOC_START, SESSION))
				ASSERT_EQ(EBUSY, errno);
			/* Something to read, and in LOOP a wrap now and then. */
			ASSERT_EQ(0, sample_emit(h == BEHIND ? 150 : 20));
			resyncs = self->meta->resyncs;
			set_field(self->meta, f,
				  hostile_value(h, self->meta->commit, size));
			/* Writers meet the value, then readers. */
			ASSERT_EQ(0, sample_emit(5));
			samples = 0;
			poke_everything(_metadata, self->fd, buf, size, &samples);
			if (is_reader_word && (h == AHEAD || h == MISALIGNED ||
					       h == BEHIND))
				EXPECT_LT(resyncs, self->meta->resyncs)
					TH_LOG("%s = %s: no resync", f->name,
					       hostile_names[h]);
			/* Resynchronised: new events arrive whole. */
			if (ketw_ref(self->fd, KETW_IOC_START, SESSION))
				ASSERT_EQ(EBUSY, errno);	/* running */
			ASSERT_EQ(0, sample_emit(10));
			if (ketw_ref(self->fd, KETW_IOC_STOP, SESSION))
				until_full_stopped_itself(_metadata, self->fd,
							  variant->policy,
							  f->name,
							  hostile_names[h]);
			samples = 0;
			for (;;) {
				ssize_t n = read(self->fd, buf, size);

				if (n <= 0) {
					EXPECT_EQ(0, n) TH_LOG("%s = %s: %s",
						f->name, hostile_names[h],
						strerror(errno));
					break;
				}
				EXPECT_TRUE(well_formed(buf, n, &samples))
					TH_LOG("%s = %s: torn record",
					       f->name, hostile_names[h]);
			}
			EXPECT_LE(10, samples) TH_LOG("%s = %s: %d events after the resync",
						      f->name, hostile_names[h], samples);
			alarm(0);
		}
	}
	free(buf);
}

struct scribbler {
	uint32_t *word;
	int stop;
	uint32_t seed;
};

static void *scribble_fn(void *arg)
{
	struct scribbler *s = arg;

	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
		s->seed = s->seed * 1103515245u + 12345u;
		__atomic_store_n(s->word, s->seed, __ATOMIC_RELAXED);
	}
	return NULL;
}

/*
 * A thread keeps scribbling on the reader's word while this one reads
 * and writers write: read() returns every time, and a reader can be
 * killed.
 */
TEST_F_TIMEOUT(meta, scribbler_while_reading, 120)
{
	struct scribbler sc = { .seed = 1 };
	unsigned char *buf = malloc(KB * 1024);
	uint64_t t0;
	pthread_t t;
	pid_t child;
	int status;

	ASSERT_NE(NULL, buf);
	sc.word = variant->policy == KETW_POLICY_LOOP ? &self->meta->oldest :
							&self->meta->consumed;
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	fcntl(self->fd, F_SETFL, O_NONBLOCK);
	ASSERT_EQ(0, pthread_create(&t, NULL, scribble_fn, &sc));
	watch(60);
	t0 = mono_ns();
	while (mono_ns() - t0 < 2000000000ull) {
		ASSERT_EQ(0, sample_emit(50));
		if (read(self->fd, buf, KB * 1024) < 0)
			ASSERT_EQ(EAGAIN, errno);
	}
	/* A blocking reader in a child, killed while the scribbling goes on. */
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		int fl = fcntl(self->fd, F_GETFL);

		fcntl(self->fd, F_SETFL, fl & ~O_NONBLOCK);
		for (;;)
			if (read(self->fd, buf, KB * 1024) < 0)
				_exit(1);
	}
	usleep(300000);
	ASSERT_EQ(0, kill(child, SIGKILL));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	__atomic_store_n(&sc.stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	alarm(0);
	free(buf);
}

TEST_HARNESS_MAIN
