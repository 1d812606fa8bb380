// SPDX-License-Identifier: GPL-2.0
/*
 * Tests: the mmap consumer (ketw_mmap_*) over a meta page and data area
 * in ordinary memory, filled by the writer of fake/fake_ring.h. A test
 * plays a concurrent writer from inside the consumer's callback: it runs
 * between the reader's claim of one record and its copy of the next.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "test.h"
#include "fake/fake_ring.h"

struct fring {
	struct ketw_meta_page *meta;	/* a page of its own */
	unsigned char *data;
	struct fake_wcpu w;
	uint64_t ts;
	struct ketw_mmap m;
};

static void fr_init(struct fring *f, unsigned int policy, uint32_t size,
		    uint32_t start)
{
	memset(f, 0, sizeof(*f));
	f->meta = aligned_alloc(4096, 4096);
	f->data = aligned_alloc(4096, size);
	memset(f->meta, 0, 4096);
	memset(f->data, 0xee, size);
	fake_ring_init(f->meta, 1, policy, size, 0);
	/* Positions are byte counts modulo 2^32: start anywhere. */
	f->meta->commit = f->meta->oldest = f->meta->consumed = start;
	f->ts = 1000;
}

static void fr_free(struct fring *f)
{
	ketw_mmap_unmap(&f->m);
	free(f->meta);
	free(f->data);
}

/* Log event @id with @len payload bytes of value id & 0xff. */
static bool fr_log(struct fring *f, uint32_t id, uint32_t len)
{
	struct ketw_event_header h = {
		.type = 10, .level = 4, .event_id = id, .keyword = 1,
	};
	unsigned char payload[512];

	memset(payload, id & 0xff, len);
	memcpy(h.provider_guid, test_guid, KETW_GUID_SIZE);
	return fake_ring_write(f->meta, f->data, &f->w, &h, payload, len,
			       false, f->ts++);
}

/* What the callback saw. */
struct seen {
	uint32_t ids[4096];
	uint64_t seqs[4096];
	unsigned int n;
	unsigned int in_place;		/* records handed out in the data area */
	unsigned int bad_payload;
	unsigned int sys;
	int stop_after;			/* return 1 after this many (0: never) */
	/* a writer that strikes after the callback of record @strike_at */
	unsigned int strike_at;
	void (*strike)(struct fring *f);
	struct fring *f;
	uint32_t min_consumed_gap;	/* FLUSH: record offset - published */
	unsigned int publishes;		/* consumed moved during the drain */
	uint32_t last_consumed;
};

static int seen_fn(const struct ketw_record *rec, void *ctx)
{
	struct seen *s = ctx;
	const unsigned char *p = (const void *)rec->hdr;
	struct fring *f = s->f;
	size_t i;

	if (s->n < 4096) {
		s->ids[s->n] = rec->hdr->event_id;
		s->seqs[s->n] = rec->hdr->sequence;
	}
	s->n++;
	if (rec->hdr->flags & KETW_RECORD_SYSTEM)
		s->sys++;
	else
		for (i = 0; i < rec->data_len; i++)
			s->bad_payload += rec->data[i] !=
					  (rec->hdr->event_id & 0xff);
	if (f && p >= f->data && p < f->data + f->meta->data_size) {
		s->in_place++;
		/* A record in place is ours until we give it back. */
		if (f->meta->policy != KETW_POLICY_LOOP) {
			uint32_t pub = f->meta->consumed;
			uint32_t mask = f->meta->data_size - 1;
			uint32_t rel = ((uint32_t)(p - f->data) - pub) & mask;

			if (pub != s->last_consumed)
				s->publishes++;
			s->last_consumed = pub;
			if (rel >= (uint32_t)(f->meta->commit - pub))
				s->bad_payload += 1000;	/* given back early */
		}
	}
	/* The mapped CPU: 1 for the rings here, 0 for the mapped file. */
	if (rec->cpu != (f ? 1u : 0u) ||
	    rec->span != KETW_RECORD_SPAN(rec->hdr->size))
		s->bad_payload += 1000;
	if (s->strike && s->n == s->strike_at)
		s->strike(f);
	return s->stop_after && (int)s->n >= s->stop_after;
}

TEST(mmap_init_checks_meta)
{
	struct fring f;
	struct ketw_mmap m;

	fr_init(&f, KETW_POLICY_FLUSH, 4096, 0);
	CHECK_EQ(ketw_mmap_init(&m, f.meta, f.data, 0), -EPROTO); /* cpu */
	ASSERT_EQ(ketw_mmap_init(&m, f.meta, f.data, 1), 0);
	CHECK(m.copy == NULL);
	CHECK_EQ(m.size, 4096);
	CHECK_EQ(m.policy, KETW_POLICY_FLUSH);
	ketw_mmap_unmap(&m);
	CHECK(m.meta == NULL);
	ketw_mmap_unmap(&m);		/* twice is harmless */

	f.meta->version = 2;
	CHECK_EQ(ketw_mmap_init(&m, f.meta, f.data, 1), -EPROTO);
	f.meta->version = KETW_META_VERSION;
	f.meta->meta_size = 64;
	CHECK_EQ(ketw_mmap_init(&m, f.meta, f.data, 1), -EPROTO);
	f.meta->meta_size = sizeof(struct ketw_meta_page) + 64; /* newer */
	CHECK_EQ(ketw_mmap_init(&m, f.meta, f.data, 1), 0);
	ketw_mmap_unmap(&m);
	f.meta->data_size = 6144;
	CHECK_EQ(ketw_mmap_init(&m, f.meta, f.data, 1), -EPROTO);
	f.meta->data_size = 2048;
	CHECK_EQ(ketw_mmap_init(&m, f.meta, f.data, 1), -EPROTO);
	f.meta->data_size = 512u << 20;
	CHECK_EQ(ketw_mmap_init(&m, f.meta, f.data, 1), -EPROTO);
	f.meta->data_size = 4096;
	f.meta->policy = 0;
	CHECK_EQ(ketw_mmap_init(&m, f.meta, f.data, 1), -EPROTO);
	f.meta->policy = 4;
	CHECK_EQ(ketw_mmap_init(&m, f.meta, f.data, 1), -EPROTO);
	f.meta->policy = KETW_POLICY_LOOP;
	ASSERT_EQ(ketw_mmap_init(&m, f.meta, f.data, 1), 0);
	CHECK(m.copy != NULL);		/* LOOP copies before it claims */
	ketw_mmap_unmap(&m);
	CHECK_EQ(ketw_mmap_consume(&m, seen_fn, NULL), -EINVAL);
	fr_free(&f);
}

/* FLUSH and UNTIL_FULL: records handed out in place, consumed given back. */
TEST(mmap_flush_in_place)
{
	static struct seen s;
	struct fring f;
	unsigned int i;
	uint32_t commit;

	fr_init(&f, KETW_POLICY_FLUSH, 4096, 0);
	for (i = 0; i < 20; i++)
		ASSERT(fr_log(&f, i, 40));	/* 104-byte spans */
	ASSERT_EQ(ketw_mmap_init(&f.m, f.meta, f.data, 1), 0);
	commit = f.meta->commit;
	CHECK_EQ(ketw_mmap_pending(&f.m), 20 * 104);
	s.f = &f;
	ASSERT_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), 0);
	CHECK_EQ(s.n, 20);
	CHECK_EQ(s.in_place, 20);
	CHECK_EQ(s.bad_payload, 0);
	for (i = 0; i < 20 && i < s.n; i++) {
		CHECK_EQ(s.ids[i], i);
		CHECK_EQ(s.seqs[i], i);
	}
	CHECK_EQ(f.meta->consumed, commit);
	CHECK_EQ(f.m.records, 20);
	CHECK_EQ(f.m.bytes, 20 * 104);
	CHECK_EQ(ketw_mmap_pending(&f.m), 0);
	CHECK(ketw_mmap_done(&f.m));
	/* Nothing left: nothing more. */
	s.n = 0;
	CHECK_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), 0);
	CHECK_EQ(s.n, 0);
	/* The writer got its room back: it fills the area again. */
	for (i = 0; i < 30; i++)
		ASSERT(fr_log(&f, 100 + i, 40));
	CHECK_EQ(f.meta->lost_full, 0);
	ASSERT_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), 0);
	CHECK_EQ(s.n, 30);
	CHECK_EQ(f.m.padding, 1);	/* the wrap at 4096 - 20 * 104 - ... */
	CHECK_EQ(s.bad_payload, 0);
	for (i = 0; i < 30 && i < s.n; i++)
		CHECK_EQ(s.ids[i], 100 + i);
	fr_free(&f);
}

/* A drain of a big area gives space back before it ends. */
TEST(mmap_flush_gives_back_while_draining)
{
	static struct seen s;
	struct fring f;
	unsigned int i;

	fr_init(&f, KETW_POLICY_FLUSH, 64 * 1024, 0);
	for (i = 0; fr_log(&f, i, 200); i++)
		;
	ASSERT(i > 200);
	ASSERT_EQ(ketw_mmap_init(&f.m, f.meta, f.data, 1), 0);
	s.f = &f;
	ASSERT_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), 0);
	CHECK_EQ(s.n, i);
	CHECK_EQ(s.bad_payload, 0);
	/* A quarter of 64 KiB at a time: three times before the end. */
	CHECK_EQ(s.publishes, 3);
	CHECK_EQ(f.meta->consumed, f.meta->commit);
	fr_free(&f);
}

/*
 * UNTIL_FULL: a callback that stops; the record it got is consumed. Then
 * losses, OVERFLOW and RESUME, padding at the wrap, positions across 2^32.
 */
TEST(mmap_until_full_stop_losses_wrap)
{
	/* 120-byte spans; UNTIL_FULL keeps the system reserve free. */
	const unsigned int fit = (4096 - KETW_SYSTEM_RESERVE) / 120;
	static struct seen s;
	struct fring f;
	unsigned int i, stored = 0, lost = 0;

	fr_init(&f, KETW_POLICY_UNTIL_FULL, 4096, 0xfffff000u);
	for (i = 0; i < 60; i++) {
		if (fr_log(&f, i, 56))
			stored++;
		else
			lost++;
	}
	CHECK_EQ(stored, fit);
	CHECK_EQ(lost, 60 - fit);
	ASSERT_EQ(ketw_mmap_init(&f.m, f.meta, f.data, 1), 0);
	s.f = &f;
	s.stop_after = 10;
	CHECK_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), 1);
	CHECK_EQ(s.n, 10);
	CHECK_EQ(f.meta->consumed, 0xfffff000u + 10 * 120);
	s.stop_after = 0;
	ASSERT_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), 0);
	CHECK_EQ(s.n, fit);
	/* Room again: OVERFLOW and RESUME come first, then the wrap. */
	for (i = 100; i < 120; i++)
		ASSERT(fr_log(&f, i, 56));
	ASSERT_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), 0);
	CHECK_EQ(s.n, fit + 2 + 20);
	CHECK_EQ(s.sys, 2);
	CHECK_EQ(s.ids[fit], KETW_SYS_OVERFLOW);
	CHECK_EQ(s.ids[fit + 1], KETW_SYS_RESUME);
	CHECK_EQ(s.ids[fit + 2], 100);
	CHECK_EQ(s.seqs[fit], 60);
	CHECK_EQ(s.seqs[fit + 2], 62);
	CHECK_EQ(f.m.padding, 1);
	CHECK_EQ(s.bad_payload, 0);
	/* The positions went over 2^32. */
	CHECK(f.meta->consumed < 0x1000);
	CHECK_EQ(f.meta->consumed, f.meta->commit);
	fr_free(&f);
}

/* LOOP: records copied and claimed; overwritten ones are the writer's. */
TEST(mmap_loop_claim)
{
	static struct seen s;
	struct fring f;
	unsigned int i;

	fr_init(&f, KETW_POLICY_LOOP, 4096, 0);
	for (i = 0; i < 200; i++)
		ASSERT(fr_log(&f, i, 40 + i % 3 * 8));
	ASSERT(f.meta->overwritten > 100);
	ASSERT_EQ(ketw_mmap_init(&f.m, f.meta, f.data, 1), 0);
	s.f = &f;
	ASSERT_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), 0);
	CHECK_EQ(s.in_place, 0);	/* copies, never the area itself */
	CHECK_EQ(s.bad_payload, 0);
	CHECK_EQ(f.m.dropped, 0);
	CHECK_EQ(f.m.torn, 0);
	CHECK_EQ(f.meta->oldest, f.meta->commit);
	/* The newest records, in order; every record counted once. */
	CHECK_EQ(s.n + f.meta->overwritten, 200);
	for (i = 0; i < s.n; i++)
		CHECK_EQ(s.ids[i], 200 - s.n + i);
	CHECK_EQ(f.meta->consumed, 0);	/* unused in LOOP */
	fr_free(&f);
}

/* The writer releases the next record (moves oldest), bytes intact. */
static void strike_release_one(struct fring *f)
{
	const struct ketw_event_header *h = (const void *)
		(f->data + (f->meta->oldest & (f->meta->data_size - 1)));

	f->meta->oldest += KETW_RECORD_SPAN((uint32_t)h->size);
	f->meta->overwritten++;
}

/* The writer releases two records and writes over the first's header. */
static void strike_tear(struct fring *f)
{
	struct ketw_event_header *h = (void *)
		(f->data + (f->meta->oldest & (f->meta->data_size - 1)));

	strike_release_one(f);
	strike_release_one(f);
	h->size = 0xfff0;		/* a span past the commit position */
}

/* Torn so that the span would run past the end of the area. */
static void strike_tear_past_end(struct fring *f)
{
	struct ketw_event_header *h = (void *)
		(f->data + (f->meta->oldest & (f->meta->data_size - 1)));

	strike_release_one(f);
	h->size = 200;
}

/* Torn into a header too short for a record. */
static void strike_tear_short(struct fring *f)
{
	struct ketw_event_header *h = (void *)
		(f->data + (f->meta->oldest & (f->meta->data_size - 1)));

	strike_release_one(f);
	h->size = 3;
}

TEST(mmap_loop_claim_fails)
{
	static struct seen s;
	struct fring f;
	unsigned int i;

	fr_init(&f, KETW_POLICY_LOOP, 4096, 0);
	for (i = 0; i < 20; i++)
		ASSERT(fr_log(&f, i, 40));
	ASSERT_EQ(ketw_mmap_init(&f.m, f.meta, f.data, 1), 0);
	s.f = &f;
	s.strike = strike_release_one;
	s.strike_at = 5;
	ASSERT_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), 0);
	/* Record 5 was copied, its claim failed: the copy is void. */
	CHECK_EQ(s.n, 19);
	CHECK_EQ(f.m.dropped, 1);
	CHECK_EQ(f.m.torn, 0);
	for (i = 0; i < s.n; i++)
		CHECK_EQ(s.ids[i], i < 5 ? i : i + 1);
	CHECK_EQ(s.n + f.meta->overwritten, 20);
	CHECK_EQ(f.meta->oldest, f.meta->commit);
	fr_free(&f);
}

TEST(mmap_loop_torn_header)
{
	static struct seen s;
	struct fring f;
	unsigned int i;

	fr_init(&f, KETW_POLICY_LOOP, 4096, 0x7ffffff0u);
	for (i = 0; i < 20; i++)
		ASSERT(fr_log(&f, i, 40));
	ASSERT_EQ(ketw_mmap_init(&f.m, f.meta, f.data, 1), 0);
	s.f = &f;
	s.strike = strike_tear;
	s.strike_at = 3;
	ASSERT_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), 0);
	CHECK_EQ(s.n, 18);
	CHECK_EQ(f.m.torn, 1);
	CHECK_EQ(f.m.dropped, 0);
	for (i = 0; i < s.n; i++)
		CHECK_EQ(s.ids[i], i < 3 ? i : i + 2);
	CHECK_EQ(f.meta->oldest, f.meta->commit);

	/* Torn at the end of the area: a span past it, within commit. */
	fr_free(&f);
	memset(&s, 0, sizeof(s));
	fr_init(&f, KETW_POLICY_LOOP, 4096, 4096 - 104 * 2);
	for (i = 0; i < 4; i++)
		ASSERT(fr_log(&f, i, 40));	/* 2 before the wrap, 2 after */
	ASSERT_EQ(ketw_mmap_init(&f.m, f.meta, f.data, 1), 0);
	s.f = &f;
	s.strike = strike_tear_past_end;
	s.strike_at = 1;
	ASSERT_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), 0);
	CHECK_EQ(s.n, 3);
	CHECK_EQ(s.ids[1], 2);
	CHECK_EQ(f.m.torn, 1);
	CHECK_EQ(f.meta->oldest, f.meta->commit);
	fr_free(&f);

	/* Torn into a size below a header. */
	memset(&s, 0, sizeof(s));
	fr_init(&f, KETW_POLICY_LOOP, 4096, 0);
	for (i = 0; i < 4; i++)
		ASSERT(fr_log(&f, i, 40));
	ASSERT_EQ(ketw_mmap_init(&f.m, f.meta, f.data, 1), 0);
	s.f = &f;
	s.strike = strike_tear_short;
	s.strike_at = 2;
	ASSERT_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), 0);
	CHECK_EQ(s.n, 3);
	CHECK_EQ(f.m.torn, 1);
	fr_free(&f);
}

/* A bad header nobody is writing over is an error, not a spin. */
TEST(mmap_loop_corrupt_header)
{
	static struct seen s;
	struct ketw_event_header *h;
	struct fring f;
	unsigned int i;

	fr_init(&f, KETW_POLICY_LOOP, 4096, 0);
	for (i = 0; i < 10; i++)
		ASSERT(fr_log(&f, i, 40));
	h = (void *)(f.data + 4 * 104);
	h->size = 0;
	ASSERT_EQ(ketw_mmap_init(&f.m, f.meta, f.data, 1), 0);
	s.f = &f;
	CHECK_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), -EBADMSG);
	CHECK_EQ(s.n, 4);
	CHECK_EQ(f.meta->oldest, 4 * 104);	/* the four are claimed */
	CHECK_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), -EBADMSG);
	CHECK_EQ(s.n, 4);
	fr_free(&f);
}

/* Outside LOOP nobody writes over unconsumed records: bad is bad. */
TEST(mmap_bad_headers)
{
	static const struct {
		uint16_t size;
		uint16_t flags;
	} bad[] = {
		{ 0, 0 },			/* span 0 */
		{ 0, KETW_RECORD_PADDING },	/* padding of no length */
		{ 40, 0 },			/* shorter than a header */
		{ 0xfff8, 0 },			/* past the commit position */
		{ 0xfff8, KETW_RECORD_PADDING },
	};
	unsigned int i, k;

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		static struct seen s;
		struct ketw_event_header *h;
		unsigned char buf[4096];
		struct fring f;

		memset(&s, 0, sizeof(s));
		fr_init(&f, k & 1 ? KETW_POLICY_UNTIL_FULL : KETW_POLICY_FLUSH,
			4096, 0);
		for (i = 0; i < 10; i++)
			ASSERT(fr_log(&f, i, 40));
		h = (void *)(f.data + 6 * 104);
		h->size = bad[k].size;
		h->flags = bad[k].flags;
		ASSERT_EQ(ketw_mmap_init(&f.m, f.meta, f.data, 1), 0);
		s.f = &f;
		CHECK_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), -EBADMSG);
		CHECK_EQ(s.n, 6);
		/* What was read before it is given back. */
		CHECK_EQ(f.meta->consumed, 6 * 104);
		/* read(): the good records, then the error. */
		f.meta->consumed = 0;
		CHECK_EQ(ketw_mmap_read(&f.m, buf, sizeof(buf)), 6 * 104);
		CHECK_EQ(ketw_mmap_read(&f.m, buf, sizeof(buf)), -EBADMSG);
		fr_free(&f);
	}
}

/* A record running past the end of the area (records never wrap). */
TEST(mmap_record_past_end)
{
	static struct seen s;
	struct ketw_event_header *h;
	struct fring f;
	unsigned int i;

	fr_init(&f, KETW_POLICY_FLUSH, 4096, 4096 - 3 * 104);
	for (i = 0; i < 6; i++)
		ASSERT(fr_log(&f, i, 40));	/* 3 before the wrap, 3 after */
	h = (void *)(f.data + 4096 - 104);
	h->size += 8;			/* 8 bytes into the next lap */
	ASSERT_EQ(ketw_mmap_init(&f.m, f.meta, f.data, 1), 0);
	s.f = &f;
	CHECK_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), -EBADMSG);
	CHECK_EQ(s.n, 2);
	fr_free(&f);
}

TEST(mmap_bad_positions)
{
	static struct seen s;
	struct fring f;
	unsigned int i;

	fr_init(&f, KETW_POLICY_FLUSH, 4096, 0);
	for (i = 0; i < 10; i++)
		ASSERT(fr_log(&f, i, 40));
	ASSERT_EQ(ketw_mmap_init(&f.m, f.meta, f.data, 1), 0);
	s.f = &f;
	f.meta->consumed = f.meta->commit + 8;		/* ahead of commit */
	CHECK_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), -EBADMSG);
	f.meta->consumed = f.meta->commit - 4096 - 8;	/* a lap behind */
	CHECK_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), -EBADMSG);
	f.meta->consumed = 4;				/* not a record */
	CHECK_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), -EBADMSG);
	CHECK_EQ(s.n, 0);
	fr_free(&f);

	fr_init(&f, KETW_POLICY_LOOP, 4096, 0);
	for (i = 0; i < 10; i++)
		ASSERT(fr_log(&f, i, 40));
	ASSERT_EQ(ketw_mmap_init(&f.m, f.meta, f.data, 1), 0);
	s.f = &f;
	f.meta->oldest = f.meta->commit - 4096 - 8;
	CHECK_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), -EBADMSG);
	/* Past commit: writers overwrote it all meanwhile; nothing to do. */
	f.meta->oldest = f.meta->commit + 104;
	CHECK_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), 0);
	CHECK_EQ(s.n, 0);
	fr_free(&f);
}

/* Into a byte buffer, as read() returns records. */
TEST(mmap_read_into_buffer)
{
	static unsigned char buf[8192], want[8192];
	struct ketw_record_iter it;
	struct ketw_record rec;
	unsigned int i, policy, n;
	struct fring f;
	size_t wlen = 0;
	ssize_t got;

	for (policy = KETW_POLICY_LOOP; policy <= KETW_POLICY_FLUSH; policy++) {
		fr_init(&f, policy, 4096, 4096 - 2 * 104);
		wlen = 0;
		for (i = 0; i < 30; i++) {
			ASSERT(fr_log(&f, i, 40 + i % 4 * 8));
			if (policy != KETW_POLICY_LOOP && i == 20)
				break;	/* fits in UNTIL_FULL's room */
		}
		ASSERT_EQ(ketw_mmap_init(&f.m, f.meta, f.data, 1), 0);
		/* Too small for the first record. */
		CHECK_EQ(ketw_mmap_read(&f.m, buf, 64), -EMSGSIZE);
		/* Whole records only, the rest stays. */
		got = ketw_mmap_read(&f.m, buf, 300);
		CHECK(got > 0 && got <= 300);
		memcpy(want, buf, got);
		wlen = got;
		while ((got = ketw_mmap_read(&f.m, buf, sizeof(buf))) > 0) {
			memcpy(want + wlen, buf, got);
			wlen += got;
		}
		CHECK_EQ(got, 0);
		CHECK_EQ(ketw_mmap_pending(&f.m), 0);
		/* Valid records, no padding, sequence numbers in a row. */
		ketw_record_iter_init(&it, want, wlen);
		for (n = 0; ketw_record_iter_next(&it, &rec) > 0; n++) {
			CHECK(!(rec.hdr->flags & KETW_RECORD_PADDING));
			if (n)
				CHECK_EQ(rec.hdr->sequence,
					 ((const struct ketw_event_header *)
					  (want))->sequence + n);
		}
		CHECK_EQ(it.off, wlen);
		CHECK_EQ(n, f.m.records);
		CHECK_EQ(f.m.padding, 1);
		if (policy == KETW_POLICY_LOOP)
			CHECK_EQ(n + f.meta->overwritten, 30);
		else
			CHECK_EQ(n, 21);
		fr_free(&f);
	}
}

/* The mark: what was pending when the drain began, and no more. */
TEST(mmap_mark)
{
	static struct seen s;
	struct fring f;
	unsigned int i;

	fr_init(&f, KETW_POLICY_FLUSH, 4096, 0);
	for (i = 0; i < 10; i++)
		ASSERT(fr_log(&f, i, 40));
	ASSERT_EQ(ketw_mmap_init(&f.m, f.meta, f.data, 1), 0);
	CHECK_EQ(ketw_mmap_mark(&f.m), 10 * 104);
	CHECK(!ketw_mmap_done(&f.m));
	for (i = 10; i < 15; i++)
		ASSERT(fr_log(&f, i, 40));
	s.f = &f;
	ASSERT_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), 0);
	CHECK_EQ(s.n, 10);
	CHECK(ketw_mmap_done(&f.m));
	CHECK_EQ(ketw_mmap_pending(&f.m), 5 * 104);
	ASSERT_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), 0);
	CHECK_EQ(s.n, 10);
	f.m.limited = false;
	ASSERT_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), 0);
	CHECK_EQ(s.n, 15);
	fr_free(&f);

	/* LOOP: writers overwrite past the mark; that is done too. */
	memset(&s, 0, sizeof(s));
	fr_init(&f, KETW_POLICY_LOOP, 4096, 0);
	for (i = 0; i < 10; i++)
		ASSERT(fr_log(&f, i, 40));
	ASSERT_EQ(ketw_mmap_init(&f.m, f.meta, f.data, 1), 0);
	ketw_mmap_mark(&f.m);
	for (i = 10; i < 60; i++)
		ASSERT(fr_log(&f, i, 40));
	CHECK(ketw_mmap_done(&f.m));
	s.f = &f;
	ASSERT_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), 0);
	CHECK_EQ(s.n, 0);
	CHECK_EQ(ketw_mmap_mark(&f.m), f.meta->commit - f.meta->oldest);
	ASSERT_EQ(ketw_mmap_consume(&f.m, seen_fn, &s), 0);
	CHECK_EQ(s.n + f.meta->overwritten, 60);
	fr_free(&f);
}

/* ketw_mmap_map() on a file laid out like the device (cpu 0). */
TEST(mmap_map_file)
{
	const char *path = test_path("mapped.ring");
	static unsigned char img[4096 + 8192];
	struct ketw_meta_page *meta = (void *)img;
	struct ketw_mmap m;
	static struct seen s;
	struct fake_wcpu w = { 0 };
	struct ketw_event_header h = { .event_id = 7 };
	unsigned char payload[40];
	int fd;

	fake_ring_init(meta, 0, KETW_POLICY_FLUSH, 8192, 0);
	memset(payload, 7, sizeof(payload));
	ASSERT(fake_ring_write(meta, img + 4096, &w, &h, payload, 40, false, 1));
	ASSERT(fake_ring_write(meta, img + 4096, &w, &h, payload, 40, false, 2));
	ASSERT_EQ(test_spit(path, img, sizeof(img)), 0);
	fd = open(path, O_RDWR);
	ASSERT(fd >= 0);
	ASSERT_EQ(ketw_mmap_map(fd, 0, &m), 0);
	CHECK_EQ(m.meta_len, (size_t)sysconf(_SC_PAGESIZE));
	CHECK_EQ(m.data_len, 8192);
	ASSERT_EQ(ketw_mmap_consume(&m, seen_fn, &s), 0);
	CHECK_EQ(s.n, 2);
	CHECK_EQ(s.bad_payload, 0);
	ketw_mmap_unmap(&m);
	close(fd);
	/* consumed went to the file through the shared mapping */
	{
		size_t len;
		unsigned char *back = test_slurp(path, &len);

		ASSERT(back != NULL);
		CHECK_EQ(((struct ketw_meta_page *)back)->consumed, 208);
		free(back);
	}

	/* A meta page for another CPU, a data area elsewhere, a bad version. */
	meta->cpu = 1;
	ASSERT_EQ(test_spit(path, img, sizeof(img)), 0);
	fd = open(path, O_RDWR);
	ASSERT(fd >= 0);
	CHECK_EQ(ketw_mmap_map(fd, 0, &m), -EPROTO);
	close(fd);
	meta->cpu = 0;
	meta->data_offset = KETW_MMAP_CPU(1) + 4096;
	ASSERT_EQ(test_spit(path, img, sizeof(img)), 0);
	fd = open(path, O_RDWR);
	ASSERT(fd >= 0);
	CHECK_EQ(ketw_mmap_map(fd, 0, &m), -EPROTO);
	close(fd);
	meta->data_offset = 4096;
	meta->version = 0;
	ASSERT_EQ(test_spit(path, img, sizeof(img)), 0);
	fd = open(path, O_RDWR);
	ASSERT(fd >= 0);
	CHECK_EQ(ketw_mmap_map(fd, 0, &m), -EPROTO);
	close(fd);
	/* Read-only: the meta page cannot be mapped writable. */
	fd = open(path, O_RDONLY);
	ASSERT(fd >= 0);
	CHECK_EQ(ketw_mmap_map(fd, 0, &m), -EACCES);
	close(fd);
	/* Not mappable at all. */
	fd = open("/dev/null", O_RDWR);
	ASSERT(fd >= 0);
	CHECK_EQ(ketw_mmap_map(fd, 0, &m), -ENODEV);
	close(fd);
}
