// SPDX-License-Identifier: GPL-2.0
/*
 * ketw mmap drain: the per-CPU meta page and read-only data area, a
 * reader that consumes without system calls, and the mappings refused.
 */
#include "ketw_test.h"
#include "kselftest_harness.h"

#define SESSION "mmap_test"

FIXTURE(map) {
	int fd;
	int ncpus;
	struct ketw_session_attr attr;
};

FIXTURE_SETUP(map)
{
	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);

	ketw_cleanup(SESSION);
	self->fd = ketw_open();
	ASSERT_LE(0, self->fd);
	ketw_attr_init(&self->attr, SESSION);
	self->ncpus = sysconf(_SC_NPROCESSORS_CONF);
	ASSERT_EQ(0, pin_cpu(0));
}

FIXTURE_TEARDOWN(map)
{
	ketw_ref(self->fd, KETW_IOC_DESTROY, SESSION);
	close(self->fd);
}

struct seen {
	uint32_t next_index;
	uint64_t next_seq;
	int samples;
	int bad;
};

static void check_sample(const struct ketw_event_header *h, void *arg)
{
	struct seen *s = arg;
	const struct ketw_sample_tick *t = (const void *)(h + 1);

	if (s->samples || h->sequence)
		s->bad |= h->sequence != s->next_seq;
	s->next_seq = h->sequence + 1;
	if (!is_sample(h))
		return;
	s->bad |= t->magic != KETW_SAMPLE_MAGIC || t->index != s->next_index ||
		  t->value != (uint64_t)t->index * 3 + 1 || h->cpu != 0;
	s->next_index = t->index + 1;
	s->samples++;
}

/* The kernel describes each CPU's area in its meta page. */
TEST_F(map, meta_page_layout)
{
	struct mcpu m = { 0 };
	int cpu;

	self->attr.buffer_kb = 16;
	self->attr.policy = KETW_POLICY_FLUSH;
	self->attr.watermark = 75;
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &self->attr));
	for (cpu = 0; cpu < self->ncpus; cpu++) {
		ASSERT_EQ(0, mcpu_map(self->fd, cpu, &m));
		EXPECT_EQ(KETW_META_VERSION, m.meta->version);
		EXPECT_EQ(sizeof(struct ketw_meta_page), m.meta->meta_size);
		EXPECT_EQ((uint32_t)cpu, m.meta->cpu);
		EXPECT_EQ(KETW_POLICY_FLUSH, m.meta->policy);
		EXPECT_EQ(16384, m.meta->data_size);
		EXPECT_EQ(KETW_MMAP_CPU(cpu) + 4096, m.meta->data_offset);
		EXPECT_EQ(16384 * 3 / 4, m.meta->watermark);
		EXPECT_EQ(0, m.meta->commit);
		EXPECT_EQ(0, m.meta->consumed);
		mcpu_unmap(&m);
	}
}

/* Records read in place, in order, and consumed: read() finds nothing. */
TEST_F(map, drain_in_place)
{
	struct seen s = { 0 };
	struct mcpu m = { 0 };
	uint64_t torn = 0;
	char buf[4096];
	long n;

	self->attr.buffer_kb = 256;
	self->attr.policy = KETW_POLICY_LOOP;
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	ASSERT_EQ(0, mcpu_map(self->fd, 0, &m));
	ASSERT_EQ(0, sample_emit(1000));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	n = mcpu_consume(&m, check_sample, &s, &torn);
	EXPECT_EQ(0, s.bad);
	EXPECT_EQ(1000, s.samples);
	EXPECT_EQ(1002, n);			/* START and STOP */
	EXPECT_EQ(0, torn);
	/* LOOP (the default): the reader's position is oldest. */
	EXPECT_EQ(m.meta->commit, m.meta->oldest);
	EXPECT_EQ(1002, m.meta->written);
	EXPECT_EQ(0, m.meta->read);		/* not through read() */
	EXPECT_EQ(0, m.meta->lost_full + m.meta->lost_busy +
		     m.meta->overwritten);
	/* One consumer at a time: no read() while a data area is mapped. */
	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EBUSY, errno);
	mcpu_unmap(&m);
	/* What the mapping consumed is gone for read() too. */
	EXPECT_EQ(0, read(self->fd, buf, sizeof(buf)));
}

/* A FLUSH writer reuses space only once the mmap reader gave it back. */
TEST_F(map, reader_position_frees_space)
{
	struct seen s = { 0 };
	struct mcpu m = { 0 };
	uint64_t torn = 0;
	int i;

	self->attr.buffer_kb = 4;
	self->attr.policy = KETW_POLICY_FLUSH;
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	ASSERT_EQ(0, mcpu_map(self->fd, 0, &m));
	for (i = 0; i < 50; i++) {
		s.next_index = 0;
		ASSERT_EQ(0, sample_emit(20));	/* ~2 KiB each time */
		mcpu_consume(&m, check_sample, &s, &torn);
	}
	EXPECT_EQ(0, s.bad);
	EXPECT_EQ(1000, s.samples);
	EXPECT_EQ(0, m.meta->lost_full);
	/* Without a reader the same traffic overflows. */
	ASSERT_EQ(0, sample_emit(200));
	EXPECT_LT(0, m.meta->lost_full);
	mcpu_unmap(&m);
}

TEST_F(map, bad_mappings_refused)
{
	int fd2 = ketw_open();
	void *p, *data;

	ASSERT_LE(0, fd2);
	/* Not attached to a session. */
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd2, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	close(fd2);

	self->attr.buffer_kb = 8;
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &self->attr));
#define EXPECT_MAP_FAILS(err, len, prot, flags, off) do {		\
		p = mmap(NULL, len, prot, flags, self->fd, off);	\
		EXPECT_EQ(MAP_FAILED, p) TH_LOG("mapped " #off);	\
		if (p != MAP_FAILED)					\
			munmap(p, len);					\
		EXPECT_EQ(err, errno);					\
	} while (0)
	/* No such CPU. */
	EXPECT_MAP_FAILS(EINVAL, 4096, PROT_READ, MAP_SHARED,
			 KETW_MMAP_CPU(self->attr.nr_cpus));
	EXPECT_MAP_FAILS(EINVAL, 4096, PROT_READ, MAP_SHARED,
			 KETW_MMAP_CPU(4095));
	/* Meta page: one page, shared. */
	EXPECT_MAP_FAILS(EINVAL, 8192, PROT_READ, MAP_SHARED, 0);
	EXPECT_MAP_FAILS(EINVAL, 4096, PROT_READ, MAP_PRIVATE, 0);
	/* Data: its exact size, its offset, read-only. */
	EXPECT_MAP_FAILS(EINVAL, 4096, PROT_READ, MAP_SHARED, 4096);
	EXPECT_MAP_FAILS(EINVAL, 16384, PROT_READ, MAP_SHARED, 4096);
	EXPECT_MAP_FAILS(EINVAL, 8192, PROT_READ, MAP_SHARED, 8192);
	EXPECT_MAP_FAILS(EPERM, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, 4096);
	/* Nor can a read-only data mapping become writable. */
	data = mmap(NULL, 8192, PROT_READ, MAP_SHARED, self->fd, 4096);
	ASSERT_NE(MAP_FAILED, data);
	EXPECT_EQ(-1, mprotect(data, 8192, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	/* One consumer per data area, even through another file. */
	EXPECT_MAP_FAILS(EBUSY, 8192, PROT_READ, MAP_SHARED, 4096);
	fd2 = ketw_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ketw_ref(fd2, KETW_IOC_ATTACH, SESSION));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd2, 4096));
	EXPECT_EQ(EBUSY, errno);
	close(fd2);
	/* Unmapping frees it for the next consumer. */
	ASSERT_EQ(0, munmap(data, 8192));
	data = mmap(NULL, 8192, PROT_READ, MAP_SHARED, self->fd, 4096);
	ASSERT_NE(MAP_FAILED, data);
	munmap(data, 8192);
#undef EXPECT_MAP_FAILS
}

/* A mapping keeps its session: it cannot be destroyed under it. */
TEST_F(map, mapping_holds_session)
{
	struct mcpu m = { 0 };
	int fd2;

	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	ASSERT_EQ(0, mcpu_map(self->fd, 0, &m));
	close(self->fd);
	self->fd = ketw_open();
	ASSERT_LE(0, self->fd);
	fd2 = self->fd;
	EXPECT_EQ(-1, ketw_ref(fd2, KETW_IOC_DESTROY, SESSION));
	EXPECT_EQ(EBUSY, errno);
	ASSERT_EQ(0, sample_emit(5));
	EXPECT_LE(5, m.meta->written);
	mcpu_unmap(&m);
	EXPECT_EQ(0, ketw_ref(fd2, KETW_IOC_DESTROY, SESSION));
}

TEST_HARNESS_MAIN
