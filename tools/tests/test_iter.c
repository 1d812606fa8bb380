// SPDX-License-Identifier: GPL-2.0
/*
 * Tests: the record iterator and the read() drain.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"

/* 8-aligned scratch space for records. */
static _Alignas(8) unsigned char BUF[4096];

TEST(iter_valid)
{
	struct ketw_record_iter it;
	struct ketw_record r;
	size_t off = 0, s0, s1, s2;

	s0 = test_record(BUF + off, 0, 1, 100, 0, 1, NULL, 0);
	off += s0;
	s1 = test_record(BUF + off, 1, 2, 200, 0, 2, NULL, 5);
	off += s1;
	s2 = test_record(BUF + off, 2, 3, 300, 0, 3, NULL, 24);
	off += s2;
	CHECK_EQ(s0, 64);
	CHECK_EQ(s1, 72);
	CHECK_EQ(s2, 88);

	ketw_record_iter_init(&it, BUF, off);
	ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);
	CHECK(r.hdr == (void *)BUF);
	CHECK_EQ(r.data_len, 0);
	CHECK_EQ(r.span, 64);
	CHECK_EQ(r.cpu, 0);
	CHECK_EQ(r.hdr->event_id, 1);
	ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);
	CHECK_EQ(r.data_len, 5);
	CHECK_EQ(r.span, 72);
	CHECK_EQ(r.cpu, 1);
	CHECK(r.data == BUF + 64 + 64);
	CHECK_EQ(r.data[4], 4);
	ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);
	CHECK_EQ(r.data_len, 24);
	CHECK_EQ(r.hdr->sequence, 3);
	CHECK_EQ(r.hdr->timestamp, 300);
	CHECK_EQ(ketw_record_iter_next(&it, &r), 0);
	CHECK_EQ(ketw_record_iter_next(&it, &r), 0);	/* stays at the end */
}

TEST(iter_empty)
{
	struct ketw_record_iter it;
	struct ketw_record r;

	ketw_record_iter_init(&it, BUF, 0);
	CHECK_EQ(ketw_record_iter_next(&it, &r), 0);
}

TEST(iter_truncated)
{
	struct ketw_record_iter it;
	struct ketw_record r;
	size_t off = 0, cut;

	off += test_record(BUF + off, 0, 1, 100, 0, 1, NULL, 8);
	off += test_record(BUF + off, 0, 2, 200, 0, 1, NULL, 40);

	/* Every cut inside the second record: the first, then an error. */
	for (cut = 72 + 1; cut < off; cut++) {
		ketw_record_iter_init(&it, BUF, cut);
		CHECK_EQ(ketw_record_iter_next(&it, &r), 1);
		CHECK_EQ(ketw_record_iter_next(&it, &r), -EBADMSG);
		CHECK_EQ(it.off, 72);	/* stays at the bad record */
	}
	/* Less than a header's first word. */
	ketw_record_iter_init(&it, BUF, 4);
	CHECK_EQ(ketw_record_iter_next(&it, &r), -EBADMSG);
}

TEST(iter_zero_size)
{
	struct ketw_record_iter it;
	struct ketw_record r;

	test_record(BUF, 0, 1, 100, 0, 1, NULL, 0);
	((struct ketw_event_header *)BUF)->size = 0;
	ketw_record_iter_init(&it, BUF, 128);
	CHECK_EQ(ketw_record_iter_next(&it, &r), -EBADMSG);

	/* A zero-size padding record must not loop forever either. */
	((struct ketw_event_header *)BUF)->flags = KETW_RECORD_PADDING;
	ketw_record_iter_init(&it, BUF, 128);
	CHECK_EQ(ketw_record_iter_next(&it, &r), -EBADMSG);
}

TEST(iter_short_or_oversize)
{
	struct ketw_record_iter it;
	struct ketw_record r;
	struct ketw_event_header *h = (void *)BUF;

	test_record(BUF, 0, 1, 100, 0, 1, NULL, 64);	/* 128 bytes */

	h->size = 200;			/* runs past the buffer */
	ketw_record_iter_init(&it, BUF, 128);
	CHECK_EQ(ketw_record_iter_next(&it, &r), -EBADMSG);

	h->size = 0xffff;
	ketw_record_iter_init(&it, BUF, 128);
	CHECK_EQ(ketw_record_iter_next(&it, &r), -EBADMSG);

	h->size = 32;			/* smaller than a record header */
	ketw_record_iter_init(&it, BUF, 128);
	CHECK_EQ(ketw_record_iter_next(&it, &r), -EBADMSG);

	h->size = 128;			/* exactly fits */
	ketw_record_iter_init(&it, BUF, 128);
	CHECK_EQ(ketw_record_iter_next(&it, &r), 1);
	CHECK_EQ(r.data_len, 64);
	CHECK_EQ(ketw_record_iter_next(&it, &r), 0);
}

TEST(iter_skips_padding)
{
	struct ketw_record_iter it;
	struct ketw_record r;
	struct ketw_event_header *pad;
	size_t off = 0;

	off += test_record(BUF + off, 0, 1, 100, 0, 7, NULL, 3);
	/* A padding record needs only size and flags: 16 bytes here. */
	pad = (void *)(BUF + off);
	memset(pad, 0xee, 16);
	pad->size = 16;
	pad->flags = KETW_RECORD_PADDING;
	off += 16;
	off += test_record(BUF + off, 0, 2, 200, 0, 8, NULL, 0);
	/* A padding record at the very end. */
	pad = (void *)(BUF + off);
	memset(pad, 0, 8);
	pad->size = 8;
	pad->flags = KETW_RECORD_PADDING;
	off += 8;

	ketw_record_iter_init(&it, BUF, off);
	ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);
	CHECK_EQ(r.hdr->event_id, 7);
	ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);
	CHECK_EQ(r.hdr->event_id, 8);
	CHECK(r.hdr == (void *)(BUF + 72 + 16));
	CHECK_EQ(ketw_record_iter_next(&it, &r), 0);

	/* Padding longer than what is left. */
	pad->size = 64;
	ketw_record_iter_init(&it, BUF, off);
	CHECK_EQ(ketw_record_iter_next(&it, &r), 1);
	CHECK_EQ(ketw_record_iter_next(&it, &r), 1);
	CHECK_EQ(ketw_record_iter_next(&it, &r), -EBADMSG);
}

struct drain_ctx {
	unsigned int n;
	uint64_t seq[16];
	int stop_at;
};

static int drain_cb(const struct ketw_record *r, void *p)
{
	struct drain_ctx *c = p;

	if (c->n < 16)
		c->seq[c->n] = r->hdr->sequence;
	c->n++;
	return c->stop_at && (int)c->n == c->stop_at ? 42 : 0;
}

/* A pipe stands in for an attached /dev/ketw file (whole records). */
static int drain_pipe(int p[2], size_t *len)
{
	size_t off = 0;

	if (pipe(p))
		return -1;
	off += test_record(BUF + off, 0, 1, 10, 0, 1, NULL, 0);
	off += test_record(BUF + off, 1, 2, 20, 0, 1, NULL, 9);
	off += test_record(BUF + off, 0, 3, 30, 0, 1, NULL, 100);
	*len = off;
	return write(p[1], BUF, off) == (ssize_t)off ? 0 : -1;
}

TEST(drain_until_eagain_and_eof)
{
	struct drain_ctx c = { 0 };
	uint64_t bytes = 0;
	size_t len;
	int p[2];

	ASSERT_EQ(drain_pipe(p, &len), 0);
	ASSERT_EQ(fcntl(p[0], F_SETFL, O_NONBLOCK), 0);
	/* The writer stays open: the drain ends at EAGAIN. */
	CHECK_EQ(ketw_reader_drain(p[0], 0, drain_cb, &c, &bytes), 0);
	CHECK_EQ(c.n, 3);
	CHECK_EQ(bytes, len);
	CHECK_EQ(c.seq[0], 1);
	CHECK_EQ(c.seq[2], 3);
	/* Closed and empty: read() gives 0, the end of data. */
	close(p[1]);
	CHECK_EQ(ketw_reader_drain(p[0], 0, drain_cb, &c, &bytes), 0);
	CHECK_EQ(c.n, 3);
	CHECK_EQ(bytes, 0);
	CHECK_EQ(ketw_reader_read(p[0], BUF, 64), 0);
	close(p[0]);
}

TEST(drain_callback_stop_and_bad_data)
{
	struct drain_ctx c = { .stop_at = 2 };
	size_t len;
	int p[2];

	ASSERT_EQ(drain_pipe(p, &len), 0);
	close(p[1]);
	CHECK_EQ(ketw_reader_drain(p[0], 0, drain_cb, &c, NULL), 42);
	CHECK_EQ(c.n, 2);
	close(p[0]);

	/* Not whole records: a malformed read() result. */
	ASSERT_EQ(pipe(p), 0);
	memset(BUF, 0, 64);
	((struct ketw_event_header *)BUF)->size = 200;
	ASSERT_EQ(write(p[1], BUF, 40), 40);
	close(p[1]);
	c.n = 0;
	c.stop_at = 0;
	CHECK_EQ(ketw_reader_drain(p[0], 0, drain_cb, &c, NULL), -EBADMSG);
	CHECK_EQ(c.n, 0);
	close(p[0]);

	/* A bad fd. */
	CHECK_EQ(ketw_reader_drain(-1, 0, drain_cb, &c, NULL), -EBADF);
}
