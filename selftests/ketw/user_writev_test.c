// SPDX-License-Identifier: GPL-2.0
/*
 * KETW_IOC_USER_WRITEV, the lean user-provider write: the payload its
 * iovecs hold arrives byte for byte however they split it, short
 * (gathered on the stack) or long (a per-CPU buffer, pages faulted in);
 * bad requests get their errno and store nothing; writers racing a
 * close, a re-registration or a first registration of their file do no
 * harm; the user's rates hold; and libketw's ketw_write() and
 * ketw_writev() go through it.
 */
#include "ketw_test.h"
#include <grp.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include "ketw_provider.h"
#include "kselftest_harness.h"

#define SESSION	"uwritev_test"
#define PROV	"uwv"
#define PARAM(n)	"/sys/module/ketw/parameters/" n

static const uint8_t uwv_guid[KETW_GUID_SIZE] = {
	0x75, 0x77, 0x76, 0x2d, 0x74, 0x65, 0x73, 0x74,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01 };

/* Register @name, with a GUID of its own (a GUID is one name's). */
static int uregister(int fd, const char *name)
{
	struct ketw_user_provider up;

	memset(&up, 0, sizeof(up));
	up.size = sizeof(up);
	memcpy(up.guid, uwv_guid, KETW_GUID_SIZE);
	up.guid[15] = (uint8_t)(strlen(name) ^ name[strlen(name) - 1]);
	snprintf(up.name, sizeof(up.name), "%s", name);
	return ioctl(fd, KETW_IOC_USER_REGISTER, &up) ? -errno : 0;
}

/* A registered /dev/ketw_user file, or -errno. */
static int uopen(const char *name)
{
	int fd = open(KETW_USER_DEVICE, O_RDWR | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = uregister(fd, name);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

static int uwritev(int fd, uint32_t id, uint8_t level, const struct iovec *iov,
		   uint32_t iovcnt, uint32_t flags)
{
	struct ketw_user_writev w;
	int ret;

	memset(&w, 0, sizeof(w));
	w.id = id;
	w.type = KETW_TYPE_INFO;
	w.level = level;
	w.version = 2;
	w.keyword = 0x4;
	w.iov = (uintptr_t)iov;
	w.iovcnt = iovcnt;
	w.flags = flags;
	ret = ioctl(fd, KETW_IOC_USER_WRITEV, &w);
	return ret < 0 ? -errno : ret;
}

/* One iovec. */
static int uwrite1(int fd, uint32_t id, const void *data, size_t len)
{
	struct iovec v = { .iov_base = (void *)data, .iov_len = len };

	return uwritev(fd, id, KETW_LEVEL_INFO, &v, 1, 0);
}

/*
 * A session taking user.@name, 4 MiB per CPU, whole payloads; UNTIL_FULL
 * (every event a write says it stored is there), or LOOP with @loop.
 */
static int start_session_policy(int fd, const char *name, bool loop)
{
	struct ketw_session_attr a;
	char prov[KETW_NAME_MAX];
	int err;

	ketw_cleanup(SESSION);
	ketw_attr_init(&a, SESSION);
	a.buffer_kb = 4096;
	a.max_data_size = KETW_MAX_DATA_SIZE;
	a.policy = loop ? KETW_POLICY_LOOP : KETW_POLICY_UNTIL_FULL;
	if (ioctl(fd, KETW_IOC_CREATE, &a))
		return -errno;
	snprintf(prov, sizeof(prov), KETW_USER_PREFIX "%s", name);
	err = ketw_enable(fd, SESSION, prov, NULL, 0, 0, 0, NULL, 0, 0);
	if (err)
		return err;
	return ketw_ref(fd, KETW_IOC_START, SESSION) ? -errno : 0;
}

static int start_session(int fd, const char *name)
{
	return start_session_policy(fd, name, false);
}

/* The payload byte at offset @k of case @id. */
static uint8_t pat(uint32_t id, size_t k)
{
	return (uint8_t)(k * 13 + id * 7 + 1);
}

/* How case @id splits its payload: the lengths of its pieces. */
struct split {
	size_t len;		/* the payload */
	unsigned int n;		/* pieces */
	size_t piece[48];	/* the last one takes the rest */
	size_t skew;		/* the source starts this far into a page */
};

static const struct split splits[] = {
	{ 0, 0, { 0 }, 0 },
	{ 0, 3, { 0, 0, 0 }, 0 },
	{ 1, 1, { 1 }, 0 },
	{ 7, 2, { 3, 4 }, 1 },
	{ 64, 1, { 64 }, 0 },
	{ 64, 3, { 13, 0, 51 }, 5 },
	{ 255, 4, { 1, 2, 250, 2 }, 3 },
	{ 256, 2, { 129, 127 }, 7 },		/* the stack's most */
	{ 257, 2, { 128, 129 }, 0 },		/* the per-CPU buffer */
	{ 256, 8, { 32, 32, 32, 32, 32, 32, 32, 32 }, 1 },
	{ 256, 9, { 32, 32, 32, 32, 32, 32, 32, 31, 1 }, 1 },	/* 9 iovecs */
	{ 511, 3, { 100, 311, 100 }, 4095 },	/* across a page */
	{ 1000, 40, { 25 }, 9 },		/* 40 pieces of 25 */
	{ 4097, 2, { 4095, 2 }, 3 },
	{ 20000, 5, { 1, 9999, 0, 9999, 1 }, 11 },
	{ KETW_MAX_DATA_SIZE, 1, { KETW_MAX_DATA_SIZE }, 0 },
	{ KETW_MAX_DATA_SIZE, 3, { 1, KETW_MAX_DATA_SIZE - 2, 1 }, 2 },
};

#define NR_SPLITS	(sizeof(splits) / sizeof(splits[0]))

/* Fill @iov for case @id from @src; returns the number of iovecs. */
static unsigned int build(uint32_t id, uint8_t *src, struct iovec *iov)
{
	const struct split *s = &splits[id];
	size_t k, off = 0, n;
	unsigned int i, cnt = s->n;

	for (k = 0; k < s->len; k++)
		src[s->skew + k] = pat(id, k);
	if (s->n == 40) {			/* equal pieces */
		for (i = 0; i < cnt; i++, off += s->piece[0]) {
			iov[i].iov_base = src + s->skew + off;
			iov[i].iov_len = s->piece[0];
		}
		return cnt;
	}
	for (i = 0; i < cnt; i++, off += n) {
		n = i + 1 == cnt ? s->len - off : s->piece[i];
		iov[i].iov_base = src + s->skew + off;
		iov[i].iov_len = n;
	}
	return cnt;
}

FIXTURE(uwv) {
	int fd;		/* /dev/ketw */
	int ufd;	/* /dev/ketw_user, "uwv" registered */
	struct drained d;
};

FIXTURE_SETUP(uwv)
{
	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV);
	memset(&self->d, 0, sizeof(self->d));
	self->fd = ketw_open();
	ASSERT_LE(0, self->fd);
	self->ufd = uopen(PROV);
	ASSERT_LE(0, self->ufd);
}

FIXTURE_TEARDOWN(uwv)
{
	ketw_ref(self->fd, KETW_IOC_DESTROY, SESSION);
	close(self->ufd);
	close(self->fd);
	free(self->d.buf);
}

/* The user records of the stopped session, counted; their ids in @ids. */
static int user_records(struct __test_metadata *_metadata, int fd,
			struct drained *d)
{
	const struct ketw_event_header *h;
	size_t off = 0;
	int bad = 0, n = 0;

	if (ketw_ref(fd, KETW_IOC_STOP, SESSION) || drain(fd, d))
		return -1;
	while ((h = next_record(d, &off, &bad)))
		n += !!(h->flags & KETW_RECORD_USER);
	EXPECT_EQ(0, bad);
	return n;
}

/*
 * Every split of every length stores exactly its payload: the bytes of
 * its iovecs one after the other, nothing cut, nothing more.
 */
TEST_F_TIMEOUT(uwv, payload_exactly, 120)
{
	static uint8_t src[KETW_MAX_DATA_SIZE + 8192];
	const struct ketw_event_header *h;
	int seen[NR_SPLITS] = { 0 }, bad = 0;
	struct iovec iov[48];
	const uint8_t *p;
	size_t off = 0, k, len;
	unsigned int cnt;
	uint32_t id;

	ASSERT_EQ(0, start_session(self->fd, PROV));
	for (id = 0; id < NR_SPLITS; id++) {
		cnt = build(id, src, iov);
		ASSERT_EQ(1, uwritev(self->ufd, id, KETW_LEVEL_INFO, iov, cnt, 0))
			TH_LOG("case %u", id);
	}
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, drain(self->fd, &self->d));
	while ((h = next_record(&self->d, &off, &bad))) {
		if (!(h->flags & KETW_RECORD_USER))
			continue;
		id = h->event_id;
		ASSERT_GT(NR_SPLITS, id);
		ASSERT_EQ(0, memcmp(h->provider_guid, uwv_guid, KETW_GUID_SIZE - 1));
		EXPECT_EQ(2, h->version);
		EXPECT_EQ(0x4, h->keyword);
		EXPECT_EQ((uint32_t)getpid(), h->process_id);
		EXPECT_EQ((uint32_t)gettid(), h->thread_id);
		EXPECT_EQ(0, h->flags & KETW_RECORD_TRUNCATED);
		/*
		 * Logged from a task with preemption on, short or long:
		 * the kernel's own preemption off (a long payload's per-CPU
		 * buffer included) is not the caller's.
		 */
		EXPECT_EQ(0, h->flags & KETW_RECORD_PREEMPT_MASK)
			TH_LOG("case %u (%zu B): preemption depth %u", id,
			       splits[id].len,
			       (h->flags & KETW_RECORD_PREEMPT_MASK) >>
			       KETW_RECORD_PREEMPT_SHIFT);
		len = h->size - KETW_EVENT_HEADER_SIZE;
		ASSERT_EQ(splits[id].len, len) TH_LOG("case %u", id);
		p = (const uint8_t *)(h + 1);
		for (k = 0; k < len; k++)
			ASSERT_EQ(pat(id, k), p[k]) TH_LOG("case %u byte %zu", id, k);
		seen[id]++;
	}
	ASSERT_EQ(0, bad);
	for (id = 0; id < NR_SPLITS; id++)
		EXPECT_EQ(1, seen[id]) TH_LOG("case %u", id);
}

/*
 * A long payload in pages nobody touched yet, or dropped since: the
 * per-CPU gathering cannot fault, so the kernel reads them in and
 * gathers again; the record holds their content.
 */
TEST_F(uwv, long_payload_from_absent_pages)
{
	const size_t len = 3 * 4096 + 100;
	struct iovec iov[2];
	uint8_t *m;
	int n, i;

	ASSERT_EQ(0, start_session(self->fd, PROV));
	for (i = 0; i < 2; i++) {
		m = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, m);
		if (i) {	/* written, then dropped: zero again */
			memset(m, 0xaa, 4 * 4096);
			ASSERT_EQ(0, madvise(m, 4 * 4096, MADV_DONTNEED));
		}
		iov[0].iov_base = m + 1;
		iov[0].iov_len = 5000;
		iov[1].iov_base = m + 1 + 5000;
		iov[1].iov_len = len - 5000;
		EXPECT_EQ(1, uwritev(self->ufd, 100 + i, KETW_LEVEL_INFO, iov,
				     2, 0));
		munmap(m, 4 * 4096);
	}
	n = user_records(_metadata, self->fd, &self->d);
	EXPECT_EQ(2, n);
	{
		const struct ketw_event_header *h;
		size_t off = 0, k;
		int bad = 0;

		while ((h = next_record(&self->d, &off, &bad))) {
			if (!(h->flags & KETW_RECORD_USER))
				continue;
			ASSERT_EQ(len, h->size - KETW_EVENT_HEADER_SIZE);
			for (k = 0; k < len; k++)
				ASSERT_EQ(0, ((const uint8_t *)(h + 1))[k]);
		}
	}
}

/*
 * Bad requests: the precise errno, and nothing stored. Without a session
 * nothing is read at all (0).
 */
TEST_F(uwv, errors)
{
	static uint8_t big[KETW_MAX_DATA_SIZE + 1];
	struct ketw_user_writev w;
	struct iovec iov[3];
	int fd2, ok = 0, ret;
	uint8_t *guard;

	memset(&w, 0, sizeof(w));

	/* No registration on the file. */
	fd2 = open(KETW_USER_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-ENODEV, uwrite1(fd2, 1, "x", 1));
	close(fd2);
	/* No session: 0, whatever the request holds. */
	EXPECT_EQ(0, uwrite1(self->ufd, 1, (void *)8, 8));
	EXPECT_EQ(0, ioctl(self->ufd, KETW_IOC_USER_WRITEV, (void *)8));

	ASSERT_EQ(0, start_session(self->fd, PROV));
	ok += uwrite1(self->ufd, 1, "ok", 2) == 1;
	/* The request itself unreadable. */
	EXPECT_EQ(-1, ioctl(self->ufd, KETW_IOC_USER_WRITEV, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	/* Its fields. */
	iov[0].iov_base = "x";
	iov[0].iov_len = 1;
	EXPECT_EQ(-EINVAL, uwritev(self->ufd, 1, KETW_LEVEL_VERBOSE + 1, iov, 1, 0));
	EXPECT_EQ(-EINVAL, uwritev(self->ufd, 1, KETW_LEVEL_INFO, iov, 1, 1u << 5));
	EXPECT_EQ(-EINVAL, uwritev(self->ufd, 1, KETW_LEVEL_INFO, iov,
				   KETW_USER_IOV_MAX + 1, 0));
	/* Too long: one iovec, two that add up, one of SIZE_MAX. */
	EXPECT_EQ(-EINVAL, uwrite1(self->ufd, 1, big, sizeof(big)));
	iov[0].iov_base = big;
	iov[0].iov_len = KETW_MAX_DATA_SIZE;
	iov[1].iov_base = big;
	iov[1].iov_len = 1;
	EXPECT_EQ(-EINVAL, uwritev(self->ufd, 1, KETW_LEVEL_INFO, iov, 2, 0));
	iov[1].iov_len = SIZE_MAX;
	EXPECT_EQ(-EINVAL, uwritev(self->ufd, 1, KETW_LEVEL_INFO, iov, 2, 0));
	/* The iovecs unreadable. */
	EXPECT_EQ(-EFAULT, uwritev(self->ufd, 1, KETW_LEVEL_INFO, NULL, 1, 0));
	EXPECT_EQ(-EFAULT, uwritev(self->ufd, 1, KETW_LEVEL_INFO, NULL, 20, 0));
	/* The payload: short and long, first piece and a later one. */
	EXPECT_EQ(-EFAULT, uwrite1(self->ufd, 1, (void *)8, 8));
	EXPECT_EQ(-EFAULT, uwrite1(self->ufd, 1, (void *)8, 5000));
	iov[0].iov_base = "abc";
	iov[0].iov_len = 3;
	iov[1].iov_base = (void *)16;
	iov[1].iov_len = 3;
	EXPECT_EQ(-EFAULT, uwritev(self->ufd, 1, KETW_LEVEL_INFO, iov, 2, 0));
	iov[1].iov_len = 3000;
	EXPECT_EQ(-EFAULT, uwritev(self->ufd, 1, KETW_LEVEL_INFO, iov, 2, 0));
	/* A payload that runs into an inaccessible page. */
	guard = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, guard);
	ASSERT_EQ(0, mprotect(guard + 4096, 4096, PROT_NONE));
	EXPECT_EQ(-EFAULT, uwrite1(self->ufd, 1, guard + 4096 - 10, 20));
	EXPECT_EQ(-EFAULT, uwrite1(self->ufd, 1, guard + 4096 - 2000, 3000));
	ret = uwrite1(self->ufd, 1, guard + 4096 - 10, 10);	/* just fits */
	EXPECT_EQ(1, ret);
	ok += ret == 1;
	munmap(guard, 2 * 4096);
	/* A kernel address is not the caller's. */
	EXPECT_EQ(-EFAULT, uwrite1(self->ufd, 1, (void *)0xffffffff81000000ul, 8));

	/* Only the two good writes were stored. */
	EXPECT_EQ(2, ok);
	EXPECT_EQ(ok, user_records(_metadata, self->fd, &self->d));
	/* With the session stopped, nothing is read again. */
	w.iov = 8;
	w.iovcnt = 1;
	EXPECT_EQ(0, ioctl(self->ufd, KETW_IOC_USER_WRITEV, &w));
}

/* USER_WRITE, the old request, still works beside it. */
TEST_F(uwv, old_request_too)
{
	struct ketw_user_event ue;

	ASSERT_EQ(0, start_session(self->fd, PROV));
	memset(&ue, 0, sizeof(ue));
	ue.size = sizeof(ue);
	ue.id = 1;
	ue.level = KETW_LEVEL_INFO;
	ue.data = (uintptr_t)"old";
	ue.len = 3;
	EXPECT_EQ(1, ioctl(self->ufd, KETW_IOC_USER_WRITE, &ue));
	ue.size = KETW_USER_EVENT_SIZE_VER0;
	EXPECT_EQ(1, ioctl(self->ufd, KETW_IOC_USER_WRITE, &ue));
	EXPECT_EQ(1, uwrite1(self->ufd, 2, "new", 3));
	EXPECT_EQ(3, user_records(_metadata, self->fd, &self->d));
}

/* libketw: ketw_write() and ketw_writev() through the new request. */
static KETW_PROVIDER(lib_prov, "uwv-lib",
		     { 0x75, 0x77, 0x76, 0x2d, 0x6c, 0x69, 0x62, 0x00,
		       0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02 });

TEST_F(uwv, libketw_writev)
{
	static const struct ketw_event_descriptor ev = {
		.id = 7, .level = KETW_LEVEL_INFO, .name = "ev",
	};
	const struct ketw_event_header *h;
	struct iovec iov[3] = {
		{ .iov_base = "head:", .iov_len = 5 },
		{ .iov_base = "", .iov_len = 0 },
		{ .iov_base = "tail", .iov_len = 4 },
	};
	size_t off = 0;
	int bad = 0, n = 0;

	ASSERT_EQ(0, ketw_provider_register(&lib_prov));
	ASSERT_EQ(0, start_session(self->fd, "uwv-lib"));
	EXPECT_EQ(1, ketw_writev(&lib_prov, &ev, iov, 3));
	EXPECT_EQ(1, ketw_write(&lib_prov, &ev, "head:tail", 9));
	EXPECT_EQ(-EINVAL, ketw_writev(&lib_prov, &ev, iov, KETW_USER_IOV_MAX + 1));
	EXPECT_EQ(-EINVAL, ketw_writev(&lib_prov, &ev, iov, -1));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, drain(self->fd, &self->d));
	while ((h = next_record(&self->d, &off, &bad))) {
		if (!(h->flags & KETW_RECORD_USER))
			continue;
		ASSERT_EQ(9, h->size - KETW_EVENT_HEADER_SIZE);
		EXPECT_EQ(0, memcmp(h + 1, "head:tail", 9));
		n++;
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(2, n);
	ketw_provider_unregister(&lib_prov);
}

/*
 * The race: writers on one file descriptor number while another thread
 * closes it and opens a new file there, registered or not yet (a first
 * registration published while they read it), and tries to register
 * again on a registered one (EBUSY). The registration a writer sees is
 * the file's until its system call ends; nothing may oops, leak or
 * report (KASAN, in the debug kernel's run).
 */
#define RACE_WRITERS	3
#define RACE_SECONDS	6

struct race {
	int fdnum;			/* the number the writers use */
	volatile int stop;
	long writes, stored, errs[4];	/* EBADF, ENODEV, other */
	pthread_mutex_t lock;
};

static void *race_writer(void *arg)
{
	static uint8_t payload[3000];
	struct race *r = arg;
	long writes = 0, stored = 0, ebadf = 0, enodev = 0, other = 0;
	struct iovec iov[2] = {
		{ .iov_base = payload, .iov_len = 40 },
		{ .iov_base = payload + 40, .iov_len = 0 },
	};
	int ret;

	while (!r->stop) {
		/* Short and long in turn: both bounce buffers. */
		iov[1].iov_len = writes & 1 ? 2000 : 24;
		ret = uwritev(r->fdnum, 3, KETW_LEVEL_INFO, iov, 2, 0);
		writes++;
		if (ret >= 0)
			stored += ret;
		else if (ret == -EBADF)
			ebadf++;
		else if (ret == -ENODEV)
			enodev++;
		else if (ret != -ENOTTY)	/* another file was there */
			other++;
	}
	pthread_mutex_lock(&r->lock);
	r->writes += writes;
	r->stored += stored;
	r->errs[0] += ebadf;
	r->errs[1] += enodev;
	r->errs[2] += other;
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

TEST_F_TIMEOUT(uwv, race_close_and_register, 120)
{
	struct race r = { .lock = PTHREAD_MUTEX_INITIALIZER };
	pthread_t th[RACE_WRITERS];
	struct ketw_provider_info pi[32];
	struct ketw_list l;
	uint64_t t0;
	long rounds = 0, busy = 0;
	int i, fd, reg_fd;

	/* LOOP: the writers fill any buffer many times over. */
	ASSERT_EQ(0, start_session_policy(self->fd, PROV, true));
	r.fdnum = uopen(PROV);
	ASSERT_LE(0, r.fdnum);
	for (i = 0; i < RACE_WRITERS; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, race_writer, &r));
	t0 = mono_ns();
	while (mono_ns() - t0 < RACE_SECONDS * 1000000000ull) {
		switch (rounds++ % 3) {
		case 0:	/* close, then a registered file takes the number */
			close(r.fdnum);
			reg_fd = uopen(PROV);
			ASSERT_LE(0, reg_fd);
			if (reg_fd != r.fdnum) {
				ASSERT_EQ(r.fdnum, dup2(reg_fd, r.fdnum));
				close(reg_fd);
			}
			break;
		case 1:	/* an unregistered file, registered under them */
			fd = open(KETW_USER_DEVICE, O_RDWR | O_CLOEXEC);
			ASSERT_LE(0, fd);
			ASSERT_EQ(r.fdnum, dup2(fd, r.fdnum));
			close(fd);
			usleep(200);
			ASSERT_EQ(0, uregister(r.fdnum, PROV));
			break;
		default: /* a second registration on the file */
			busy += uregister(r.fdnum, PROV) == -EBUSY;
			break;
		}
		usleep(500);
	}
	r.stop = 1;
	for (i = 0; i < RACE_WRITERS; i++)
		ASSERT_EQ(0, pthread_join(th[i], NULL));
	close(r.fdnum);
	TH_LOG("%ld rounds, %ld writes, %ld stored, EBADF %ld, ENODEV %ld",
	       rounds, r.writes, r.stored, r.errs[0], r.errs[1]);
	EXPECT_EQ(0, r.errs[2]);
	EXPECT_EQ(rounds / 3, busy);
	EXPECT_LT(0, r.stored);
	i = user_records(_metadata, self->fd, &self->d);
	EXPECT_LT(0, i);
	EXPECT_GE(r.stored, i);		/* the rest overwritten */
	/* Only the fixture's registration is left: one provider, listed once. */
	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.capacity = 32;
	l.entries = (uintptr_t)pi;
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_PROVIDERS, &l));
	for (i = 0, fd = 0; i < (int)l.count && i < 32; i++)
		fd += !strcmp(pi[i].name, KETW_USER_PREFIX PROV);
	EXPECT_EQ(1, fd);
}

/*
 * The user's rates hold on the new request: a group member (uid 1000)
 * with user_max_events 20 stores its bucket's worth and a little
 * refill, the rest EAGAIN; long payloads are charged their bytes.
 */
static int rate_child(uint32_t len, int tries)
{
	static uint8_t payload[2000];
	gid_t g = 1000;
	int fd, i, ret, stored = 0, again = 0;

	if (setgroups(1, &g) || setgid(1000) || setuid(1000))
		return 100;
	fd = uopen("uwv-rate");
	if (fd < 0)
		return 101;
	/* Wait for the parent's session to take us. */
	for (i = 0; i < 500 && uwrite1(fd, 1, payload, 0) == 0; i++)
		usleep(10000);
	if (i == 500)
		return 102;
	stored = 1;
	for (i = 0; i < tries; i++) {
		ret = uwrite1(fd, 1, payload, len);
		if (ret == 1)
			stored++;
		else if (ret == -EAGAIN)
			again++;
		else
			return 103;
	}
	return again ? (stored > 90 ? 90 : stored) : 104;
}

static void rate_case(struct __test_metadata *_metadata, int fd,
		      struct drained *d, const char *ev, const char *by,
		      uint32_t len, int lo, int hi)
{
	char saved[3][32] = { "", "", "" };
	const char *names[3] = { PARAM("user_gid"), PARAM("user_max_events"),
				 PARAM("user_max_bytes") };
	int status, stored, i;
	uint64_t t0;
	pid_t pid;
	FILE *f;

	for (i = 0; i < 3; i++) {
		f = fopen(names[i], "r");
		ASSERT_NE(NULL, f);
		ASSERT_NE(NULL, fgets(saved[i], sizeof(saved[i]), f));
		fclose(f);
	}
	ASSERT_EQ(0, write_str(names[0], "1000"));
	ASSERT_EQ(0, write_str(names[1], ev));
	ASSERT_EQ(0, write_str(names[2], by));
	ketw_ref(fd, KETW_IOC_DESTROY, SESSION);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(rate_child(len, 300));
	t0 = mono_ns();
	while (start_session(fd, "uwv-rate") && mono_ns() - t0 < 5000000000ull) {
		ketw_ref(fd, KETW_IOC_DESTROY, SESSION);
		usleep(5000);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	for (i = 0; i < 3; i++)
		write_str(names[i], saved[i]);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_GE(90, WEXITSTATUS(status)) TH_LOG("child step %d", WEXITSTATUS(status));
	stored = user_records(_metadata, fd, d);
	EXPECT_EQ(WEXITSTATUS(status), stored);
	EXPECT_LE(lo, stored);
	EXPECT_GE(hi, stored);
}

TEST_F_TIMEOUT(uwv, events_per_second, 90)
{
	/* 20 in the bucket; 300 tries take well under a second here. */
	rate_case(_metadata, self->fd, &self->d, "20", "100000000", 8, 20, 60);
}

TEST_F_TIMEOUT(uwv, bytes_per_second, 90)
{
	/* 4000 bytes: 2 of 1500 (the per-CPU buffer's path) and refill. */
	rate_case(_metadata, self->fd, &self->d, "100000", "4000", 1500, 3, 12);
}

TEST_HARNESS_MAIN
