// SPDX-License-Identifier: GPL-2.0
/*
 * ketw lifetimes (Documentation/ketw-lifetimes.rst): a /dev/ketw file
 * shared by threads, re-attached, closed or used to destroy its session
 * while another thread sleeps in read() or poll(). Each race runs in a
 * loop long enough to hit its window under TCG on two vCPUs; before the
 * fixes, the first two oopsed in ketw_ring_read_cpu() and the third left
 * refcount_t warnings and sessions that could never be destroyed.
 */
#include "ketw_test.h"
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "kselftest_harness.h"

#define S_R	"life_r"
#define S_O	"life_o"

/* Create (not attached to @fd: a helper fd attaches and is closed). */
static int make_session(const char *name, uint32_t policy, int start)
{
	struct ketw_session_attr a;
	int fd = ketw_open(), err = 0;

	if (fd < 0)
		return -errno;
	ketw_attr_init(&a, name);
	a.buffer_kb = 8;
	a.policy = policy;
	if (ioctl(fd, KETW_IOC_CREATE, &a))
		err = -errno;
	if (!err && start && ketw_ref(fd, KETW_IOC_START, name))
		err = -errno;
	close(fd);
	return err;
}

struct reader {
	int fd;
	ssize_t ret;
	int err;
	int done;
	unsigned char buf[1 << 16];
};

static void *reader_fn(void *arg)
{
	struct reader *r = arg;

	r->ret = read(r->fd, r->buf, sizeof(r->buf));
	r->err = r->ret < 0 ? errno : 0;
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Wait up to @ms for the reader thread to finish; 1 if it did. */
static int reader_wait(struct reader *r, int ms)
{
	while (ms-- > 0) {
		if (__atomic_load_n(&r->done, __ATOMIC_ACQUIRE))
			return 1;
		usleep(1000);
	}
	return __atomic_load_n(&r->done, __ATOMIC_ACQUIRE);
}

/* How many system records @id are in @buf; -1 if a record is bad. */
static int system_count(const unsigned char *buf, size_t len, uint32_t id)
{
	struct drained d = { .buf = (unsigned char *)buf, .len = len };
	const struct ketw_event_header *h;
	size_t off = 0;
	int bad = 0, n = 0;

	while ((h = next_record(&d, &off, &bad)))
		n += is_system(h, id);
	return bad ? -1 : n;
}

/*
 * Defect 1: a thread sleeps in read() on a started session while another
 * thread destroys that session through the same file. The reader returns
 * 0 (its file is detached: end of file) and later reads say EINVAL.
 */
TEST(read_while_own_file_destroys)
{
	static const uint32_t policies[] = {
		KETW_POLICY_LOOP, KETW_POLICY_UNTIL_FULL, KETW_POLICY_FLUSH,
	};
	struct reader r;
	pthread_t t;
	int i;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);

	for (i = 0; i < 60; i++) {
		ketw_cleanup(S_R);
		ASSERT_EQ(0, make_session(S_R, policies[i % 3], 1));
		memset(&r, 0, sizeof(r));
		r.fd = ketw_open();
		ASSERT_LE(0, r.fd);
		ASSERT_EQ(0, ketw_ref(r.fd, KETW_IOC_ATTACH, S_R));
		ASSERT_EQ(0, pthread_create(&t, NULL, reader_fn, &r));
		/* Let it drain START and sleep (it re-checks every 100 ms). */
		usleep(20000 + (i % 5) * 30000);
		ASSERT_EQ(0, ketw_ref(r.fd, KETW_IOC_DESTROY, S_R))
			TH_LOG("round %d: destroy: %s", i, strerror(errno));
		ASSERT_EQ(1, reader_wait(&r, 3000))
			TH_LOG("round %d: the reader did not return", i);
		pthread_join(t, NULL);
		EXPECT_LE(0, r.ret) TH_LOG("round %d: %s", i, strerror(r.err));
		/* Detached now: no session to read. */
		EXPECT_EQ(-1, read(r.fd, r.buf, sizeof(r.buf)));
		EXPECT_EQ(EINVAL, errno);
		close(r.fd);
	}
}

struct emitter {
	int stop;
};

static void *emit_fn(void *arg)
{
	struct emitter *e = arg;

	while (!__atomic_load_n(&e->stop, __ATOMIC_ACQUIRE))
		if (sample_emit(50))
			usleep(1000);
	return NULL;
}

/* Read until end of file or an error; the count of reads in done. */
static void *busy_reader_fn(void *arg)
{
	struct reader *r = arg;

	do {
		r->ret = read(r->fd, r->buf, sizeof(r->buf));
	} while (r->ret > 0);
	r->err = r->ret < 0 ? errno : 0;
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Defect 1 as reported: the reader is busy copying records (a provider
 * logs all the time) when its own file destroys the session. It ends
 * with 0 (end of file) or EINVAL (the file has no session any more).
 */
TEST(busy_read_while_own_file_destroys)
{
	struct emitter e = { 0 };
	pthread_t t, te;
	struct reader r;
	int i;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);

	ASSERT_EQ(0, pthread_create(&te, NULL, emit_fn, &e));
	for (i = 0; i < 60; i++) {
		ketw_cleanup(S_R);
		ASSERT_EQ(0, make_session(S_R, i & 1 ? KETW_POLICY_LOOP :
					  KETW_POLICY_FLUSH, 1));
		memset(&r, 0, sizeof(r));
		r.fd = ketw_open();
		ASSERT_LE(0, r.fd);
		ASSERT_EQ(0, ketw_ref(r.fd, KETW_IOC_ATTACH, S_R));
		ASSERT_EQ(0, ketw_enable(r.fd, S_R, KETW_SAMPLE_NAME, NULL, 0,
					 0, 0, NULL, 0, 0));
		ASSERT_EQ(0, pthread_create(&t, NULL, busy_reader_fn, &r));
		usleep(5000 + (i % 7) * 7000);
		ASSERT_EQ(0, ketw_ref(r.fd, KETW_IOC_DESTROY, S_R))
			TH_LOG("round %d: destroy: %s", i, strerror(errno));
		ASSERT_EQ(1, reader_wait(&r, 3000))
			TH_LOG("round %d: the reader did not return", i);
		pthread_join(t, NULL);
		EXPECT_TRUE(r.ret == 0 || r.err == EINVAL)
			TH_LOG("round %d: %zd %s", i, r.ret, strerror(r.err));
		close(r.fd);
	}
	__atomic_store_n(&e.stop, 1, __ATOMIC_RELEASE);
	pthread_join(te, NULL);
}

/*
 * Defect 2: the reader sleeps on file A attached to R; another thread
 * attaches A to O; a third file destroys R. The reader goes on with O
 * (documented: a sleeper follows its file) and returns O's records: O's
 * START, and not R's STOP, which the destroy logged.
 */
TEST(read_follows_reattach_while_old_destroyed)
{
	struct reader r;
	pthread_t t;
	int i, ctl;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);

	ctl = ketw_open();
	ASSERT_LE(0, ctl);
	for (i = 0; i < 40; i++) {
		ketw_cleanup(S_R);
		ketw_cleanup(S_O);
		ASSERT_EQ(0, make_session(S_R, KETW_POLICY_FLUSH, 1));
		ASSERT_EQ(0, make_session(S_O, KETW_POLICY_FLUSH, 1));
		memset(&r, 0, sizeof(r));
		r.fd = ketw_open();
		ASSERT_LE(0, r.fd);
		ASSERT_EQ(0, ketw_ref(r.fd, KETW_IOC_ATTACH, S_R));
		/* R's START record would wake the reader: take it first. */
		ASSERT_LT(0, read(r.fd, r.buf, sizeof(r.buf)));
		ASSERT_EQ(0, pthread_create(&t, NULL, reader_fn, &r));
		usleep(20000 + (i % 4) * 40000);
		ASSERT_EQ(0, ketw_ref(r.fd, KETW_IOC_ATTACH, S_O));
		ASSERT_EQ(0, ketw_ref(ctl, KETW_IOC_DESTROY, S_R))
			TH_LOG("round %d: R still attached: %s", i, strerror(errno));
		ASSERT_EQ(1, reader_wait(&r, 3000))
			TH_LOG("round %d: the reader did not return", i);
		pthread_join(t, NULL);
		ASSERT_LT(0, r.ret) TH_LOG("round %d: %s", i, strerror(r.err));
		/* O's START woke it; R's STOP (R's last record) is not there. */
		EXPECT_EQ(1, system_count(r.buf, r.ret, KETW_SYS_START));
		EXPECT_EQ(0, system_count(r.buf, r.ret, KETW_SYS_STOP));
		close(r.fd);
		ASSERT_EQ(0, ketw_ref(ctl, KETW_IOC_DESTROY, S_O));
	}
	close(ctl);
}

struct attacher {
	int fd;
	int rounds;
	const char *a, *b;
	int errors;
};

static void *attach_fn(void *arg)
{
	struct attacher *at = arg;
	int i;

	for (i = 0; i < at->rounds; i++)
		if (ketw_ref(at->fd, KETW_IOC_ATTACH, i & 1 ? at->a : at->b))
			at->errors++;
	return NULL;
}

/*
 * Defect 3: two threads ATTACH one file in a loop, alternating two
 * sessions. Every call succeeds, and afterwards both sessions can be
 * destroyed (each attachment counted once).
 */
TEST(concurrent_attach_one_file)
{
	struct attacher at[2];
	pthread_t t[2];
	int fd, ctl, i;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);

	ketw_cleanup(S_R);
	ketw_cleanup(S_O);
	ASSERT_EQ(0, make_session(S_R, KETW_POLICY_LOOP, 1));
	ASSERT_EQ(0, make_session(S_O, KETW_POLICY_LOOP, 0));
	fd = ketw_open();
	ctl = ketw_open();
	ASSERT_LE(0, fd);
	ASSERT_LE(0, ctl);
	for (i = 0; i < 2; i++) {
		at[i] = (struct attacher){ .fd = fd, .rounds = 20000,
					   .a = i ? S_R : S_O,
					   .b = i ? S_O : S_R };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, attach_fn, &at[i]));
	}
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(0, at[i].errors);
	}
	/* The file holds exactly one of them. */
	i = !ketw_ref(ctl, KETW_IOC_DESTROY, S_R);
	i += !ketw_ref(ctl, KETW_IOC_DESTROY, S_O);
	EXPECT_EQ(1, i);
	EXPECT_EQ(EBUSY, errno);
	close(fd);
	/* Now nothing holds the other one. */
	i = !ketw_ref(ctl, KETW_IOC_DESTROY, S_R);
	i += !ketw_ref(ctl, KETW_IOC_DESTROY, S_O);
	EXPECT_EQ(1, i);
	close(ctl);
}

/*
 * epoll on a file whose session goes away: the file's entry is on the
 * file's own wait queue, so attaching elsewhere and destroying the old
 * session leaves epoll with nothing that points into freed memory, and
 * events of the new session still wake it.
 */
TEST(epoll_across_reattach_and_destroy)
{
	struct epoll_event ev = { .events = EPOLLIN }, got;
	unsigned char buf[4096];
	int fd, ctl, ep, i;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);

	ctl = ketw_open();
	ASSERT_LE(0, ctl);
	for (i = 0; i < 30; i++) {
		ketw_cleanup(S_R);
		ketw_cleanup(S_O);
		ASSERT_EQ(0, make_session(S_R, KETW_POLICY_FLUSH, 1));
		ASSERT_EQ(0, make_session(S_O, KETW_POLICY_FLUSH, 0));
		ASSERT_EQ(0, ketw_enable(ctl, S_O, KETW_SAMPLE_NAME, NULL, 0,
					 0, 0, NULL, 0, 0));
		fd = ketw_open();
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_ATTACH, S_R));
		ASSERT_EQ(0, fcntl(fd, F_SETFL, O_NONBLOCK));
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		ep = epoll_create1(0);
		ASSERT_LE(0, ep);
		ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
		ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_ATTACH, S_O));
		ASSERT_EQ(0, ketw_ref(ctl, KETW_IOC_DESTROY, S_R));
		/* Something that frees and reuses memory, then wake it. */
		ASSERT_EQ(0, make_session(S_R, KETW_POLICY_LOOP, 1));
		ASSERT_EQ(0, ketw_ref(ctl, KETW_IOC_START, S_O));
		/* Stop at once: readable below the watermark too. */
		ASSERT_EQ(0, sample_emit(2));
		ASSERT_EQ(0, ketw_ref(ctl, KETW_IOC_STOP, S_O));
		EXPECT_EQ(1, epoll_wait(ep, &got, 1, 2000));
		EXPECT_TRUE(got.events & EPOLLIN);
		EXPECT_LT(0, read(fd, buf, sizeof(buf)));
		close(ep);
		close(fd);
		ASSERT_EQ(0, ketw_ref(ctl, KETW_IOC_DESTROY, S_O));
		ASSERT_EQ(0, ketw_ref(ctl, KETW_IOC_DESTROY, S_R));
	}
	close(ctl);
}

/*
 * A mapping keeps the buffers of a destroyed session; the last munmap()
 * frees them (the release then runs under mmap_lock and must not wait
 * for ketw_mutex: an UNTIL_FULL session that stopped itself is the case
 * lockdep flagged, with a list ioctl copying to a page that faults).
 */
struct lister {
	int fd;
	int stop;
	int errors;
};

static void *list_fn(void *arg)
{
	struct lister *l = arg;
	struct ketw_list req;
	void *page;

	while (!__atomic_load_n(&l->stop, __ATOMIC_ACQUIRE)) {
		/* A fresh page every time: the copy faults it in. */
		page = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (page == MAP_FAILED) {
			l->errors++;
			break;
		}
		memset(&req, 0, sizeof(req));
		req.size = sizeof(req);
		req.entries = (uintptr_t)page;
		req.capacity = (1 << 16) / sizeof(struct ketw_provider_info);
		if (ioctl(l->fd, KETW_IOC_PROVIDERS, &req))
			l->errors++;
		munmap(page, 1 << 16);
	}
	return NULL;
}

TEST(mapping_outlives_destroy_and_frees_on_munmap)
{
	struct lister l = { .fd = -1 };
	struct ketw_session_attr a;
	struct ketw_meta_page *meta;
	pthread_t t;
	int fd, i;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);

	l.fd = ketw_open();
	ASSERT_LE(0, l.fd);
	ASSERT_EQ(0, pthread_create(&t, NULL, list_fn, &l));
	for (i = 0; i < 40; i++) {
		ketw_cleanup(S_R);
		fd = ketw_open();
		ASSERT_LE(0, fd);
		ketw_attr_init(&a, S_R);
		a.buffer_kb = 8;
		a.policy = i & 1 ? KETW_POLICY_UNTIL_FULL : KETW_POLICY_LOOP;
		ASSERT_EQ(0, session_start(fd, &a));
		ASSERT_EQ(0, ketw_enable(fd, S_R, KETW_SAMPLE_NAME, NULL, 0,
					 0, 0, NULL, 0, 0));
		meta = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			    KETW_MMAP_CPU(0));
		ASSERT_NE(MAP_FAILED, meta);
		/* UNTIL_FULL: fill it, so that it stops itself. */
		ASSERT_EQ(0, sample_emit(400));
		ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_DESTROY, S_R));
		/* The name is free at once; the pages are still there. */
		EXPECT_EQ(KETW_META_VERSION, meta->version);
		EXPECT_EQ(-1, ketw_ref(fd, KETW_IOC_START, S_R));
		EXPECT_EQ(ENOENT, errno);
		close(fd);
		EXPECT_EQ(0, meta->cpu);
		/* The last reference: the session goes in here. */
		EXPECT_EQ(0, munmap(meta, 4096));
	}
	__atomic_store_n(&l.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	EXPECT_EQ(0, l.errors);
	close(l.fd);
}

/*
 * close() of the file by one thread while another sleeps in read() on
 * it: the sleeper keeps the file, and returns when the session stops.
 */
TEST(close_while_another_thread_reads)
{
	struct reader r;
	pthread_t t;
	int ctl, i;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);

	ctl = ketw_open();
	ASSERT_LE(0, ctl);
	for (i = 0; i < 20; i++) {
		ketw_cleanup(S_R);
		ASSERT_EQ(0, make_session(S_R, KETW_POLICY_FLUSH, 1));
		memset(&r, 0, sizeof(r));
		r.fd = ketw_open();
		ASSERT_LE(0, r.fd);
		ASSERT_EQ(0, ketw_ref(r.fd, KETW_IOC_ATTACH, S_R));
		ASSERT_LT(0, read(r.fd, r.buf, sizeof(r.buf)));	/* START */
		ASSERT_EQ(0, pthread_create(&t, NULL, reader_fn, &r));
		usleep(20000 + (i % 3) * 50000);
		close(r.fd);
		/* Still attached (the sleeper holds the file): EBUSY. */
		EXPECT_EQ(-1, ketw_ref(ctl, KETW_IOC_DESTROY, S_R));
		EXPECT_EQ(EBUSY, errno);
		ASSERT_EQ(0, ketw_ref(ctl, KETW_IOC_STOP, S_R));
		ASSERT_EQ(1, reader_wait(&r, 3000))
			TH_LOG("round %d: the reader did not return", i);
		pthread_join(t, NULL);
		/* The STOP record, then end of file on the next call. */
		EXPECT_LT(0, r.ret);
		ASSERT_EQ(0, ketw_ref(ctl, KETW_IOC_DESTROY, S_R));
	}
	close(ctl);
}

/* ---- KETW_SESSION_OWNED: the session goes with the file that made it ---- */

/* 1 if session @name exists, 0 if not, -errno on another error. */
static int session_exists(const char *name)
{
	struct ketw_session_attr a;
	int fd = ketw_open(), ret = 1;

	if (fd < 0)
		return -errno;
	ketw_attr_init(&a, name);
	if (ioctl(fd, KETW_IOC_GET_ATTR, &a))
		ret = errno == ENOENT ? 0 : -errno;
	close(fd);
	return ret;
}

/* A new file owning a new running session @name; -1 on failure. */
static int make_owned(const char *name, uint32_t policy)
{
	struct ketw_session_attr a;
	int fd = ketw_open();

	if (fd < 0)
		return -1;
	ketw_attr_init(&a, name);
	a.flags |= KETW_SESSION_OWNED;
	a.buffer_kb = 8;
	a.policy = policy;
	if (session_start(fd, &a)) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

TEST(owned_session_goes_with_its_file)
{
	struct ketw_session_attr a;
	int fd, fd2, ctl;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV);

	ketw_cleanup(S_R);
	ketw_cleanup(S_O);
	fd = make_owned(S_R, KETW_POLICY_LOOP);
	ASSERT_LE(0, fd);
	ketw_attr_init(&a, S_R);
	ASSERT_EQ(0, ioctl(fd, KETW_IOC_GET_ATTR, &a));
	EXPECT_EQ(KETW_SESSION_OWNED, a.flags & KETW_SESSION_OWNED);
	/* One owned session per file. */
	ketw_attr_init(&a, S_O);
	a.flags |= KETW_SESSION_OWNED;
	EXPECT_EQ(-1, ioctl(fd, KETW_IOC_CREATE, &a));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(0, session_exists(S_O));
	/* The owner is attached: another file may not destroy it. */
	ctl = ketw_open();
	ASSERT_LE(0, ctl);
	EXPECT_EQ(-1, ketw_ref(ctl, KETW_IOC_DESTROY, S_R));
	EXPECT_EQ(EBUSY, errno);
	/* Last close: stopped and gone, the name free at once. */
	close(fd);
	EXPECT_EQ(0, session_exists(S_R));
	fd = make_owned(S_R, KETW_POLICY_FLUSH);
	ASSERT_LE(0, fd);
	/* Destroyed by its owner first: the file may own another. */
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_DESTROY, S_R));
	ketw_attr_init(&a, S_O);
	a.flags |= KETW_SESSION_OWNED;
	ASSERT_EQ(0, ioctl(fd, KETW_IOC_CREATE, &a));
	/* Re-attached elsewhere, the file still owns it. */
	ASSERT_EQ(0, make_session(S_R, KETW_POLICY_LOOP, 0));
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_ATTACH, S_R));
	fd2 = dup(fd);
	ASSERT_LE(0, fd2);
	close(fd);
	EXPECT_EQ(1, session_exists(S_O));	/* the dup keeps the file */
	close(fd2);
	EXPECT_EQ(0, session_exists(S_O));
	/* Not owned: left as it was. */
	EXPECT_EQ(1, session_exists(S_R));
	EXPECT_EQ(0, ketw_ref(ctl, KETW_IOC_DESTROY, S_R));
	/* Without the flag a session outlives its creator, as before. */
	ASSERT_EQ(0, make_session(S_R, KETW_POLICY_LOOP, 1));
	EXPECT_EQ(1, session_exists(S_R));
	EXPECT_EQ(0, ketw_ref(ctl, KETW_IOC_DESTROY, S_R));
	close(ctl);
}

/* A forked child shares the file: the session goes when both have closed. */
TEST(owned_session_shared_by_fork)
{
	int fd, st, pipefd[2];
	pid_t pid;
	char c;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV);

	ketw_cleanup(S_R);
	fd = make_owned(S_R, KETW_POLICY_LOOP);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(pipefd[1]);
		/* Hold the file until the parent says, then exit. */
		if (read(pipefd[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(pipefd[0]);
	close(fd);
	EXPECT_EQ(1, session_exists(S_R));
	ASSERT_EQ(1, write(pipefd[1], "x", 1));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, session_exists(S_R));
	close(pipefd[1]);
}

/*
 * The owner closes while another file is attached, reading (busy or
 * asleep) and mapping a meta page: the reader drains what is left and
 * gets end of file, the mapping stays valid until munmap, the session is
 * gone, and nothing oopses. In a loop, with the close at varying times.
 */
TEST(owned_session_goes_under_attached_reader)
{
	struct ketw_meta_page *meta;
	struct emitter e = { 0 };
	pthread_t t, te;
	struct reader r;
	int i, owner;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);

	ASSERT_EQ(0, pthread_create(&te, NULL, emit_fn, &e));
	for (i = 0; i < 60; i++) {
		ketw_cleanup(S_R);
		owner = make_owned(S_R, i % 3 == 0 ? KETW_POLICY_LOOP :
				   i % 3 == 1 ? KETW_POLICY_FLUSH :
						KETW_POLICY_UNTIL_FULL);
		ASSERT_LE(0, owner);
		if (i & 1)	/* else nothing enabled: the reader sleeps */
			ASSERT_EQ(0, ketw_enable(owner, S_R, KETW_SAMPLE_NAME,
						 NULL, 0, 0, 0, NULL, 0, 0));
		memset(&r, 0, sizeof(r));
		r.fd = ketw_open();
		ASSERT_LE(0, r.fd);
		ASSERT_EQ(0, ketw_ref(r.fd, KETW_IOC_ATTACH, S_R));
		meta = MAP_FAILED;
		if (i % 4 == 1)
			meta = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				    MAP_SHARED, r.fd, KETW_MMAP_CPU(0));
		ASSERT_EQ(0, pthread_create(&t, NULL, busy_reader_fn, &r));
		usleep(1000 + (i % 7) * 9000);
		close(owner);
		ASSERT_EQ(1, reader_wait(&r, 5000))
			TH_LOG("round %d: the reader did not return", i);
		pthread_join(t, NULL);
		EXPECT_EQ(0, r.ret)
			TH_LOG("round %d: %zd %s", i, r.ret, strerror(r.err));
		EXPECT_EQ(0, session_exists(S_R)) TH_LOG("round %d", i);
		/* Still attached to the destroyed session: end of file. */
		EXPECT_EQ(0, read(r.fd, r.buf, sizeof(r.buf)));
		if (meta != MAP_FAILED) {
			EXPECT_EQ(KETW_META_VERSION, meta->version);
			EXPECT_EQ(0, munmap(meta, 4096));
		}
		close(r.fd);
	}
	__atomic_store_n(&e.stop, 1, __ATOMIC_RELEASE);
	pthread_join(te, NULL);
}

struct owner_racer {
	int stop;
	int errors;
};

/* ATTACH by name, read a little, DESTROY: against the owner's close. */
static void *owner_race_fn(void *arg)
{
	struct owner_racer *o = arg;
	unsigned char buf[4096];
	int fd = ketw_open();

	if (fd < 0) {
		o->errors++;
		return NULL;
	}
	while (!__atomic_load_n(&o->stop, __ATOMIC_ACQUIRE)) {
		if (ketw_ref(fd, KETW_IOC_ATTACH, S_R) == 0) {
			fcntl(fd, F_SETFL, O_NONBLOCK);
			if (read(fd, buf, sizeof(buf)) < 0 && errno != EAGAIN &&
			    errno != EINVAL)
				o->errors++;
			if (ketw_ref(fd, KETW_IOC_DESTROY, S_R) &&
			    errno != EBUSY && errno != ENOENT)
				o->errors++;
		} else if (errno != ENOENT) {
			o->errors++;
		}
	}
	close(fd);
	return NULL;
}

/* Owners come and go while another thread attaches to and destroys them. */
TEST(owned_session_close_races_attach_and_destroy)
{
	struct owner_racer o = { 0 };
	pthread_t t;
	int i, fd;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV);

	ketw_cleanup(S_R);
	ASSERT_EQ(0, pthread_create(&t, NULL, owner_race_fn, &o));
	for (i = 0; i < 300; i++) {
		fd = make_owned(S_R, KETW_POLICY_LOOP);
		/*
		 * ENOENT: the racer attached and destroyed it between its
		 * creation and the owner's attachment (CREATE says so).
		 */
		if (fd < 0) {
			EXPECT_TRUE(errno == ENOENT) TH_LOG("%s", strerror(errno));
			usleep(1000);
			continue;
		}
		if (i & 1)
			usleep(i % 5 * 500);
		close(fd);
	}
	__atomic_store_n(&o.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	EXPECT_EQ(0, o.errors);
	EXPECT_EQ(0, session_exists(S_R));
}

/* A signal ends a sleeping read() at once: every wait is interruptible. */
static void on_alarm(int sig)
{
	(void)sig;
}

TEST(sleeping_read_is_interruptible)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	unsigned char buf[4096];
	uint64_t t0;
	ssize_t n;
	int fd;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);

	ketw_cleanup(S_R);
	ASSERT_EQ(0, make_session(S_R, KETW_POLICY_FLUSH, 1));
	fd = ketw_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_ATTACH, S_R));
	ASSERT_LT(0, read(fd, buf, sizeof(buf)));		/* START */
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));	/* no SA_RESTART */
	alarm(1);
	t0 = mono_ns();
	n = read(fd, buf, sizeof(buf));
	EXPECT_EQ(-1, n);
	EXPECT_EQ(EINTR, errno);
	EXPECT_GT(3000000000ull, mono_ns() - t0);
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_DESTROY, S_R));
	close(fd);
}

TEST_HARNESS_MAIN
