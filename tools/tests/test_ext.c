// SPDX-License-Identifier: GPL-2.0
/*
 * Tests: extended data items (KETW_RECORD_EXT): parsed by the iterators,
 * unknown types skipped, malformed areas refused, kept through a file of
 * either byte order, and the words of -p and --items.
 */
#include <errno.h>
#include <stdlib.h>

#include "ketw_file.h"
#include "test.h"

static _Alignas(8) unsigned char BUF[4096];

/* Append an item at @p + *@off; returns where its data goes. */
static unsigned char *put_item(unsigned char *p, size_t *off, uint16_t type,
			       uint16_t size)
{
	struct ketw_ext_item it = { .type = type, .size = size };
	unsigned char *d = p + *off + sizeof(it);

	memcpy(p + *off, &it, sizeof(it));
	memset(d, 0, KETW_EXT_ITEM_SPAN((size_t)size) - sizeof(it));
	*off += KETW_EXT_ITEM_SPAN((size_t)size);
	return d;
}

static const uint8_t ACT[16] = { 0xa1, 0xa2, 3, 4, 5, 6, 7, 8,
				 9, 10, 11, 12, 13, 14, 15, 16 };
static const uint8_t REL[16] = { 0xb1, 0xb2, 3, 4, 5, 6, 7, 8,
				 9, 10, 11, 12, 13, 14, 15, 17 };

/*
 * A record with every known item, an unknown one (type 77, 5 bytes) and
 * a 5-byte payload 0..4; returns its span. *@area_size gets the area's.
 */
static size_t ext_record(unsigned char *buf, size_t *area_size)
{
	struct ketw_ext_cpu_time t = { 111, 222, 333 };
	struct ketw_ext_pid_ns ns = { 1, 1, 4026532000ull };
	struct ketw_ext_activity a;
	struct ketw_ext_header eh = { 0 };
	unsigned char *area = buf + KETW_EVENT_HEADER_SIZE, *d;
	uint64_t stack[3] = { 0xffffffffc0001000ull, 0xffffffffc0002000ull,
			      0xffffffff81000000ull };
	uint64_t pa = 0xffffffffc0001234ull;
	size_t off = sizeof(eh), span, i;
	struct ketw_event_header *h;

	span = test_record(buf, 0, 1, 100, KETW_RECORD_EXT, 7, NULL, 0);
	(void)span;
	d = put_item(area, &off, KETW_EXT_KSTACK, sizeof(stack));
	memcpy(d, stack, sizeof(stack));
	d = put_item(area, &off, KETW_EXT_CPU_TIME, sizeof(t));
	memcpy(d, &t, sizeof(t));
	d = put_item(area, &off, KETW_EXT_PROG_ADDR, 8);
	memcpy(d, &pa, 8);
	d = put_item(area, &off, KETW_EXT_PID_NS, sizeof(ns));
	memcpy(d, &ns, sizeof(ns));
	memcpy(a.activity, ACT, 16);
	memcpy(a.related, REL, 16);
	d = put_item(area, &off, KETW_EXT_ACTIVITY, sizeof(a));
	memcpy(d, &a, sizeof(a));
	d = put_item(area, &off, 77, 5);
	memset(d, 0xee, 5);
	eh.size = (uint16_t)off;
	eh.count = 6;
	memcpy(area, &eh, sizeof(eh));
	for (i = 0; i < 5; i++)
		area[off + i] = (unsigned char)i;
	h = (void *)buf;
	h->size = (uint16_t)(KETW_EVENT_HEADER_SIZE + off + 5);
	memset(area + off + 5, 0, KETW_RECORD_SPAN(h->size) - h->size);
	*area_size = off;
	return KETW_RECORD_SPAN(h->size);
}

static void check_ext_record(const struct ketw_record *r, size_t area)
{
	struct ketw_ext_cpu_time t;
	struct ketw_ext_pid_ns ns;
	struct ketw_ext_activity a;
	struct ketw_ext_iter it;
	struct ketw_ext_view v;
	unsigned int types[8], n = 0;
	uint64_t addrs[8];

	/* data/data_len: the payload alone. */
	CHECK_EQ(r->data_len, 5);
	CHECK(r->data == (const unsigned char *)r->hdr +
			 KETW_EVENT_HEADER_SIZE + area);
	CHECK_EQ(r->data[4], 4);
	ASSERT_EQ(ketw_record_items(r, &it), 1);
	while (n < 8 && ketw_ext_next(&it, &v) > 0)
		types[n++] = v.type;
	ASSERT_EQ(n, 6);
	CHECK_EQ(types[0], KETW_EXT_KSTACK);
	CHECK_EQ(types[4], KETW_EXT_ACTIVITY);
	CHECK_EQ(types[5], 77);		/* unknown: there, with its size */
	CHECK_EQ(v.size, 5);
	CHECK_EQ(((const unsigned char *)v.data)[4], 0xee);
	CHECK_EQ(ketw_ext_next(&it, &v), 0);

	CHECK_EQ(ketw_record_addrs(r, KETW_EXT_KSTACK, addrs, 8), 3);
	CHECK_EQ(addrs[0], 0xffffffffc0001000ull);
	CHECK_EQ(addrs[2], 0xffffffff81000000ull);
	CHECK_EQ(ketw_record_addrs(r, KETW_EXT_KSTACK, addrs, 2), 2);
	CHECK_EQ(ketw_record_addrs(r, KETW_EXT_PROG_ADDR, addrs, 8), 1);
	CHECK_EQ(addrs[0], 0xffffffffc0001234ull);
	CHECK_EQ(ketw_record_addrs(r, KETW_EXT_USTACK, addrs, 8), 0);
	ASSERT_EQ(ketw_record_cpu_time(r, &t), 0);
	CHECK_EQ(t.kernel_ns, 111);
	CHECK_EQ(t.user_ns, 222);
	CHECK_EQ(t.runtime_ns, 333);
	ASSERT_EQ(ketw_record_pid_ns(r, &ns), 0);
	CHECK_EQ(ns.vpid, 1);
	CHECK_EQ(ns.pid_ns_inum, 4026532000ull);
	ASSERT_EQ(ketw_record_activity(r, &a), 0);
	CHECK(!memcmp(a.activity, ACT, 16));
	CHECK(!memcmp(a.related, REL, 16));
}

TEST(ext_items_parsed)
{
	struct ketw_record_iter it;
	struct ketw_record r;
	size_t area, span, off;

	span = ext_record(BUF, &area);
	off = span + test_record(BUF + span, 0, 2, 200, 0, 8, NULL, 3);
	ketw_record_iter_init(&it, BUF, off);
	ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);
	CHECK_EQ(r.span, span);
	check_ext_record(&r, area);
	/* A record without the flag has no items: its payload is all. */
	ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);
	CHECK_EQ(r.data_len, 3);
	{
		struct ketw_ext_iter x;
		struct ketw_ext_cpu_time t;

		CHECK_EQ(ketw_record_items(&r, &x), 0);
		CHECK(ketw_record_item(&r, KETW_EXT_KSTACK, NULL) == NULL);
		CHECK_EQ(ketw_record_cpu_time(&r, &t), -ENOENT);
	}
	CHECK_EQ(ketw_record_iter_next(&it, &r), 0);
}

/* Each corruption of the items area: the iterator refuses the record. */
TEST(ext_malformed_refused)
{
	struct ketw_record_iter it;
	struct ketw_record r;
	struct ketw_ext_header *eh;
	struct ketw_ext_item *first;
	size_t area, span;
	unsigned int k;

	for (k = 0; k < 9; k++) {
		span = ext_record(BUF, &area);
		eh = (void *)(BUF + KETW_EVENT_HEADER_SIZE);
		first = (void *)(eh + 1);
		switch (k) {
		case 0:		/* beyond the record */
			eh->size = (uint16_t)(area + 16);
			break;
		case 1:		/* not a multiple of 8 */
			eh->size = (uint16_t)(area - 4);
			break;
		case 2:		/* one item more than there are */
			eh->count = 7;
			break;
		case 3:		/* one fewer: bytes left over */
			eh->count = 5;
			break;
		case 4:		/* smaller than its own header */
			eh->size = 4;
			break;
		case 5:		/* an item beyond the area */
			first->size = 0xfff0;
			break;
		case 6:		/* odd item size: padding moves it past */
			first->size += 3;
			break;
		case 7:		/* the flag on a record with no room for it */
			((struct ketw_event_header *)BUF)->size =
				KETW_EVENT_HEADER_SIZE + 4;
			span = 72;
			break;
		case 8:		/* far beyond, with a huge count */
			eh->size = 0xfff8;
			eh->count = 0xffff;
			break;
		}
		ketw_record_iter_init(&it, BUF, span);
		if (!CHECK_EQ(ketw_record_iter_next(&it, &r), -EBADMSG))
			printf("    corruption %u accepted\n", k);
	}
	/* A made-up record handed to the accessor is checked too. */
	span = ext_record(BUF, &area);
	eh = (void *)(BUF + KETW_EVENT_HEADER_SIZE);
	r.hdr = (void *)BUF;
	r.data = BUF + KETW_EVENT_HEADER_SIZE + area;
	r.data_len = 5;
	eh->count = 9;
	{
		struct ketw_ext_iter x;

		CHECK_EQ(ketw_record_items(&r, &x), -EBADMSG);
		CHECK(ketw_record_item(&r, KETW_EXT_KSTACK, NULL) == NULL);
	}
}

/* A file of format 1.0 (before items) still reads. */
TEST(ext_old_minor_reads)
{
	const char *path = test_path("old.ketw");
	struct ketw_output_info info;
	struct ketw_output *out;
	struct ketw_input *in;
	struct ketw_record r;
	struct ketw_file_header *h;
	unsigned char *img;
	size_t len, span;
	char err[256] = "";

	span = test_record(BUF, 0, 1, 100, 0, 3, NULL, 12);
	test_info(&info, 1);
	ASSERT_EQ(ketw_output_create(path, &info, &out), 0);
	ASSERT_EQ(ketw_output_add_records(out, 0, BUF, span), 0);
	ASSERT_EQ(ketw_output_close(out), 0);
	img = test_slurp(path, &len);
	ASSERT(img != NULL);
	h = (void *)img;
	CHECK_EQ(h->version_minor, KETW_FILE_VERSION_MINOR);
	h->version_minor = 0;
	if (CHECK_EQ(ketw_input_open_mem(img, len, &in, err, sizeof(err)), 0)) {
		CHECK_EQ(ketw_input_header(in)->version_minor, 0);
		if (CHECK_EQ(ketw_input_next(in, &r), 1)) {
			struct ketw_ext_iter x;

			CHECK_EQ(r.data_len, 12);
			CHECK_EQ(ketw_record_items(&r, &x), 0);
		}
		ketw_input_close(in);
	}
	free(img);
}

/* Through a file: kept as written, in either byte order. */
TEST(ext_file_both_orders)
{
	const char *path = test_path("ext.ketw");
	struct ketw_output_info info;
	struct ketw_output *out;
	struct ketw_input *in;
	struct ketw_record r;
	unsigned char *img;
	size_t area, span, len;
	char err[256] = "";
	int pass;

	span = ext_record(BUF, &area);
	test_info(&info, 1);
	ASSERT_EQ(ketw_output_create(path, &info, &out), 0);
	ASSERT_EQ(ketw_output_add_records(out, 0, BUF, span), 0);
	ASSERT_EQ(ketw_output_close(out), 0);
	img = test_slurp(path, &len);
	ASSERT(img != NULL);
	for (pass = 0; pass < 2; pass++) {
		if (pass)
			test_swap_file(img, len);
		if (!CHECK_EQ(ketw_input_open_mem(img, len, &in, err,
						  sizeof(err)), 0)) {
			printf("    %s\n", err);
			break;
		}
		CHECK_EQ(ketw_input_swapped(in), pass);
		if (CHECK_EQ(ketw_input_next(in, &r), 1)) {
			CHECK_EQ(r.hdr->flags, KETW_RECORD_EXT);
			check_ext_record(&r, area);
		}
		CHECK_EQ(ketw_input_next(in, &r), 0);
		ketw_input_close(in);
	}
	free(img);
}

TEST(ext_words)
{
	struct ketw_enable_spec sp;
	uint32_t m;
	char buf[128], err[256];

	CHECK_EQ(ketw_ext_items_parse("stack,cputime", &m), 0);
	CHECK_EQ(m, KETW_EXT_BIT(KETW_EXT_KSTACK) |
		    KETW_EXT_BIT(KETW_EXT_CPU_TIME));
	CHECK_EQ(ketw_ext_items_parse("stack,ustack,cputime,progaddr,pidns,activity",
				      &m), 0);
	CHECK_EQ(m, KETW_EXT_ALL);
	CHECK_EQ(ketw_ext_items_parse("none", &m), 0);
	CHECK_EQ(m, 0);
	CHECK_EQ(ketw_ext_items_parse("stack,", &m), -EINVAL);
	CHECK_EQ(ketw_ext_items_parse("stacks", &m), -EINVAL);
	CHECK_EQ(ketw_ext_items_parse("", &m), -EINVAL);
	CHECK_STR(ketw_ext_items_format(KETW_EXT_BIT(KETW_EXT_PID_NS) |
					KETW_EXT_BIT(KETW_EXT_KSTACK), buf,
					sizeof(buf)), "stack,pidns");
	CHECK_STR(ketw_ext_items_format(0, buf, sizeof(buf)), "none");
	CHECK_STR(ketw_ext_type_name(KETW_EXT_ACTIVITY), "activity");
	CHECK(ketw_ext_type_name(77) == NULL);

	CHECK_EQ(ketw_parse_enable_items("ketw-sample:info:0x1:stack,progaddr",
					 &sp, &m, err, sizeof(err)), 0);
	CHECK_STR(sp.provider.name, "ketw-sample");
	CHECK_EQ(sp.filter.level, KETW_LEVEL_INFO);
	CHECK_EQ(sp.filter.match_any, 1);
	CHECK_EQ(m, KETW_EXT_BIT(KETW_EXT_KSTACK) |
		    KETW_EXT_BIT(KETW_EXT_PROG_ADDR));
	CHECK_EQ(ketw_parse_enable_items("p:cputime", &sp, &m, err,
					 sizeof(err)), 0);
	CHECK(!sp.has_level);
	CHECK_EQ(m, KETW_EXT_BIT(KETW_EXT_CPU_TIME));
	CHECK_EQ(ketw_parse_enable_items("p:3", &sp, &m, err, sizeof(err)), 0);
	CHECK_EQ(m, 0);
	CHECK_EQ(sp.filter.level, 3);
	/* Items take the last field only; a bad word is no item. */
	CHECK_EQ(ketw_parse_enable_items("p:stack:3", &sp, &m, err,
					 sizeof(err)), -EINVAL);
	CHECK_EQ(ketw_parse_enable_items("p:3:stak", &sp, &m, err,
					 sizeof(err)), -EINVAL);
	/* ketw_parse_enable() takes none. */
	CHECK_EQ(ketw_parse_enable("p:3:stack", &sp, err, sizeof(err)),
		 -EINVAL);
	CHECK_CONTAINS(err, "not taken here");
}
