// SPDX-License-Identifier: GPL-2.0
/*
 * Tests: decoding with the rundown: the registry, payloads field by
 * field, record lines with names, and 'ketw report' of a hand-built
 * trace with PROVIDER and EVENT_DESC records (golden output), written in
 * either byte order.
 */
#include <byteswap.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include "test.h"

#define ARGS_REPORT(p) ((const char *const[]){ "report", p, NULL })

static const uint8_t other_guid[KETW_GUID_SIZE] = {
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00,
};

static void field(struct ketw_field_info *f, const char *name,
		  unsigned int type, unsigned int off, unsigned int size)
{
	memset(f, 0, sizeof(*f));
	strcpy(f->name, name);
	f->type = type;
	f->offset = off;
	f->size = size;
}

/* ketw-sample's tick, as the module declares it. */
static void tick_info(struct ketw_event_info *ev)
{
	memset(ev, 0, sizeof(*ev));
	memcpy(ev->provider_guid, test_guid, KETW_GUID_SIZE);
	ev->id = 1;
	ev->type = 10;
	ev->level = KETW_LEVEL_INFO;
	ev->version = 2;
	ev->keyword = 0x1;
	strcpy(ev->name, "tick");
	field(&ev->fields[0], "index", KETW_FIELD_U32, 0, 4);
	field(&ev->fields[1], "magic", KETW_FIELD_HEX32, 4, 4);
	field(&ev->fields[2], "value", KETW_FIELD_U64, 8, 8);
	field(&ev->fields[3], "tail", KETW_FIELD_BINARY, 16, 0);
	ev->nr_fields = 4;
}

/* An event with a field of every type (id 3, version 1). */
static void all_info(struct ketw_event_info *ev)
{
	memset(ev, 0, sizeof(*ev));
	memcpy(ev->provider_guid, test_guid, KETW_GUID_SIZE);
	ev->id = 3;
	ev->type = 11;
	ev->level = KETW_LEVEL_VERBOSE;
	ev->version = 1;
	ev->keyword = 0x8;
	strcpy(ev->name, "all");
	field(&ev->fields[0], "u8", KETW_FIELD_U8, 0, 1);
	field(&ev->fields[1], "u16", KETW_FIELD_U16, 2, 2);
	field(&ev->fields[2], "s8", KETW_FIELD_S8, 4, 1);
	field(&ev->fields[3], "s16", KETW_FIELD_S16, 6, 2);
	field(&ev->fields[4], "s32", KETW_FIELD_S32, 8, 4);
	field(&ev->fields[5], "u32", KETW_FIELD_U32, 12, 0);	/* size 0: its width */
	field(&ev->fields[6], "s64", KETW_FIELD_S64, 16, 8);
	field(&ev->fields[7], "h64", KETW_FIELD_HEX64, 24, 8);
	field(&ev->fields[8], "id", KETW_FIELD_GUID, 32, 16);
	field(&ev->fields[9], "str", KETW_FIELD_STRING, 48, 8);
	field(&ev->fields[10], "bin", KETW_FIELD_BINARY, 56, 4);
	field(&ev->fields[11], "odd", KETW_FIELD_U32, 60, 2);	/* bad size */
	field(&ev->fields[12], "new", 99, 56, 2);		/* unknown type */
	field(&ev->fields[13], "late", KETW_FIELD_U64, 200, 8);	/* past the end */
	field(&ev->fields[14], "rest", KETW_FIELD_STRING, 62, 0);
	ev->nr_fields = 15;
}

/* The payload of "all" (66 bytes), integers in big-endian if @be. */
static size_t all_payload(unsigned char *p, bool be)
{
	uint16_t u16 = 65535, s16 = (uint16_t)-300;
	uint32_t s32 = (uint32_t)-70000, u32 = 4000000000u;
	uint64_t s64 = (uint64_t)-1, h64 = 0xdeadbeef00c0ffeeull;

	if (be) {
		u16 = bswap_16(u16);
		s16 = bswap_16(s16);
		s32 = bswap_32(s32);
		u32 = bswap_32(u32);
		h64 = bswap_64(h64);
	}
	memset(p, 0, 66);
	p[0] = 200;
	memcpy(p + 2, &u16, 2);
	p[4] = (uint8_t)-5;
	memcpy(p + 6, &s16, 2);
	memcpy(p + 8, &s32, 4);
	memcpy(p + 12, &u32, 4);
	memcpy(p + 16, &s64, 8);
	memcpy(p + 24, &h64, 8);
	memcpy(p + 32, test_guid, KETW_GUID_SIZE);
	memcpy(p + 48, "a\"\\\n\x01zzz", 8);	/* no NUL: its size ends it */
	memcpy(p + 56, "\xde\xad\xbe\xef", 4);
	memcpy(p + 60, "\x01\x02", 2);
	memcpy(p + 62, "ok\0x", 4);
	return 66;
}

TEST(registry_lookup)
{
	struct ketw_registry *reg = ketw_registry_new();
	struct ketw_sys_provider p = { .nr_events = 2 };
	struct ketw_event_info ev, ev2;
	const struct ketw_event_info *got;
	unsigned int i;

	ASSERT(reg != NULL);
	CHECK(ketw_registry_provider_name(reg, test_guid) == NULL);
	CHECK(ketw_registry_provider_name(NULL, test_guid) == NULL);
	CHECK(ketw_registry_event(NULL, test_guid, 1, 2) == NULL);
	memcpy(p.provider_guid, test_guid, KETW_GUID_SIZE);
	strcpy(p.name, "old-name");
	CHECK_EQ(ketw_registry_add_provider(reg, &p), 0);
	strcpy(p.name, "ketw-sample");
	CHECK_EQ(ketw_registry_add_provider(reg, &p), 0);	/* replaces */
	memcpy(p.provider_guid, other_guid, KETW_GUID_SIZE);
	memset(p.name, 'n', sizeof(p.name));		/* no NUL */
	CHECK_EQ(ketw_registry_add_provider(reg, &p), 0);
	CHECK_EQ(ketw_registry_nr_providers(reg), 2);
	CHECK_STR(ketw_registry_provider_name(reg, test_guid), "ketw-sample");
	CHECK_EQ(strlen(ketw_registry_provider_name(reg, other_guid)),
		 KETW_NAME_MAX - 1);
	CHECK(ketw_registry_provider_name(reg,
			(const uint8_t[KETW_GUID_SIZE]){ 0x6b }) == NULL);
	/* A user provider with the kernel one's GUID: its own entry. */
	{
		struct ketw_event_header h = { .flags = KETW_RECORD_USER };

		memcpy(p.provider_guid, test_guid, KETW_GUID_SIZE);
		strcpy(p.name, KETW_USER_PREFIX "ketw-sample");
		p.flags = KETW_PROVIDER_USER;
		CHECK_EQ(ketw_registry_add_provider(reg, &p), 0);
		p.flags = 0;
		CHECK_EQ(ketw_registry_nr_providers(reg), 3);
		memcpy(h.provider_guid, test_guid, KETW_GUID_SIZE);
		CHECK_STR(ketw_registry_record_provider(reg, &h),
			  "user.ketw-sample");
		h.flags = 0;
		CHECK_STR(ketw_registry_record_provider(reg, &h), "ketw-sample");
		CHECK_STR(ketw_registry_provider_name(reg, test_guid),
			  "ketw-sample");
	}

	/* Events of several ids and versions, added out of order. */
	for (i = 0; i < 20; i++) {
		tick_info(&ev);
		ev.id = (i * 7) % 20;
		ev.version = i % 3;
		snprintf(ev.name, sizeof(ev.name), "e%u.%u", ev.id, ev.version);
		CHECK_EQ(ketw_registry_add_event(reg, &ev), 0);
	}
	CHECK_EQ(ketw_registry_nr_events(reg), 20);
	for (i = 0; i < 20; i++) {
		char want[32];

		got = ketw_registry_event(reg, test_guid, (i * 7) % 20, i % 3);
		snprintf(want, sizeof(want), "e%u.%u", (i * 7) % 20, i % 3);
		if (!CHECK(got != NULL))
			break;
		CHECK_STR(got->name, want);
	}
	/* Exactly that version, that provider. */
	CHECK(ketw_registry_event(reg, test_guid, 0, 1) == NULL);
	CHECK(ketw_registry_event(reg, other_guid, 0, 0) == NULL);
	CHECK(ketw_registry_event(reg, test_guid, 21, 0) == NULL);
	/* A later descriptor replaces; names and field counts are bounded. */
	tick_info(&ev2);
	ev2.id = 7;
	ev2.version = 1;
	memset(ev2.name, 'x', sizeof(ev2.name));
	memset(ev2.fields[0].name, 'f', sizeof(ev2.fields[0].name));
	ev2.nr_fields = 1000;
	CHECK_EQ(ketw_registry_add_event(reg, &ev2), 0);
	CHECK_EQ(ketw_registry_nr_events(reg), 20);
	got = ketw_registry_event(reg, test_guid, 7, 1);
	ASSERT(got != NULL);
	CHECK_EQ(strlen(got->name), KETW_NAME_MAX - 1);
	CHECK_EQ(strlen(got->fields[0].name), KETW_FIELD_NAME_MAX - 1);
	CHECK_EQ(got->nr_fields, KETW_MAX_FIELDS);
	ketw_registry_free(reg);
	ketw_registry_free(NULL);
}

/*
 * A user provider with a kernel provider's GUID: its descriptors (flags
 * KETW_PROVIDER_USER) decode its own records only, never the kernel's.
 */
TEST(registry_user_descriptors_apart)
{
	struct ketw_registry *reg = ketw_registry_new();
	struct ketw_event_header h = { .event_id = 1, .version = 2 };
	struct ketw_event_info ev;
	const struct ketw_event_info *got;

	ASSERT(reg != NULL);
	memcpy(h.provider_guid, test_guid, KETW_GUID_SIZE);
	tick_info(&ev);			/* id 1, version 2 */
	ev.flags = KETW_PROVIDER_USER;
	strcpy(ev.name, "forged");
	CHECK_EQ(ketw_registry_add_event(reg, &ev), 0);
	/* Only the user's: a kernel record finds nothing. */
	CHECK(ketw_registry_record_event(reg, &h) == NULL);
	h.flags = KETW_RECORD_USER;
	got = ketw_registry_record_event(reg, &h);
	CHECK(got != NULL && !strcmp(got->name, "forged"));
	/* The kernel's too: each namespace its own, whatever came last. */
	tick_info(&ev);
	CHECK_EQ(ketw_registry_add_event(reg, &ev), 0);
	ev.flags = KETW_PROVIDER_USER;
	strcpy(ev.name, "forged-again");
	CHECK_EQ(ketw_registry_add_event(reg, &ev), 0);
	CHECK_EQ(ketw_registry_nr_events(reg), 2);
	h.flags = 0;
	got = ketw_registry_record_event(reg, &h);
	CHECK(got != NULL && !strcmp(got->name, "tick"));
	got = ketw_registry_event(reg, test_guid, 1, 2);
	CHECK(got != NULL && !strcmp(got->name, "tick"));
	h.flags = KETW_RECORD_USER;
	got = ketw_registry_record_event(reg, &h);
	CHECK(got != NULL && !strcmp(got->name, "forged-again"));
	CHECK_EQ(got->flags, KETW_PROVIDER_USER);
	ketw_registry_free(reg);

	/* An older trace: a user record decodes by a descriptor without flags. */
	reg = ketw_registry_new();
	ASSERT(reg != NULL);
	tick_info(&ev);
	CHECK_EQ(ketw_registry_add_event(reg, &ev), 0);
	got = ketw_registry_record_event(reg, &h);
	CHECK(got != NULL && !strcmp(got->name, "tick"));
	ketw_registry_free(reg);
}

TEST(registry_from_records)
{
	static _Alignas(8) unsigned char buf[2048];
	struct ketw_registry *reg = ketw_registry_new();
	struct ketw_sys_provider p = { .nr_events = 1 };
	struct ketw_record_iter it;
	struct ketw_record r;
	struct ketw_event_info ev;
	size_t n = 0;

	ASSERT(reg != NULL);
	memcpy(p.provider_guid, test_guid, KETW_GUID_SIZE);
	strcpy(p.name, "ketw-sample");
	tick_info(&ev);
	n += test_record(buf + n, 0, 0, 1, KETW_RECORD_SYSTEM,
			 KETW_SYS_PROVIDER, &p, sizeof(p));
	n += test_record(buf + n, 0, 1, 2, KETW_RECORD_SYSTEM,
			 KETW_SYS_EVENT_DESC, &ev, sizeof(ev));
	n += test_record(buf + n, 0, 2, 3, KETW_RECORD_SYSTEM,
			 KETW_SYS_EVENT_DESC, &ev, sizeof(ev) - 1);
	n += test_record(buf + n, 0, 3, 4, 0, KETW_SYS_PROVIDER, &p, sizeof(p));
	n += test_record(buf + n, 0, 4, 5, KETW_RECORD_SYSTEM, KETW_SYS_START,
			 NULL, 24);
	ketw_record_iter_init(&it, buf, n);
	ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);
	CHECK(ketw_record_is_rundown(&r));
	CHECK_EQ(ketw_registry_add_record(reg, &r), 1);
	ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);
	CHECK_EQ(ketw_registry_add_record(reg, &r), 1);
	ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);	/* too short */
	CHECK(ketw_record_is_rundown(&r));
	CHECK_EQ(ketw_registry_add_record(reg, &r), 0);
	ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);	/* not a system event */
	CHECK(!ketw_record_is_rundown(&r));
	CHECK_EQ(ketw_registry_add_record(reg, &r), 0);
	ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);	/* START */
	CHECK(!ketw_record_is_rundown(&r));
	CHECK_EQ(ketw_registry_add_record(reg, &r), 0);
	CHECK_EQ(ketw_registry_nr_providers(reg), 1);
	CHECK_EQ(ketw_registry_nr_events(reg), 1);
	CHECK(ketw_registry_event(reg, test_guid, 1, 2) != NULL);
	ketw_registry_free(reg);
}

TEST(payload_format_types)
{
	struct ketw_event_info ev;
	unsigned char p[80];
	char buf[1024];
	size_t len;
	int n;

	all_info(&ev);
	len = all_payload(p, false);
	n = ketw_payload_format(&ev, p, len, false, buf, sizeof(buf));
	CHECK_STR(buf, "u8=200 u16=65535 s8=-5 s16=-300 s32=-70000 u32=4000000000 s64=-1 h64=0xdeadbeef00c0ffee id=6b657477-7361-6d70-6c65-000000000001 str=\"a\\\"\\\\\\n\\x01zzz\" bin={de ad be ef} odd={01 02} new=(type 99){de ad} late=<missing> rest=\"ok\"");
	CHECK_EQ(n, strlen(buf));
	/* The same bytes from a machine of the other byte order. */
	len = all_payload(p, true);
	ketw_payload_format(&ev, p, len, true, buf, sizeof(buf));
	CHECK_CONTAINS(buf, "u8=200 u16=65535 s8=-5 s16=-300 s32=-70000 u32=4000000000 s64=-1 h64=0xdeadbeef00c0ffee id=6b657477-7361-6d70-6c65-000000000001 ");
	/* snprintf semantics. */
	CHECK_EQ(ketw_payload_format(&ev, p, len, true, buf, 10), n);
	CHECK_STR(buf, "u8=200 u1");
	CHECK_EQ(ketw_payload_format(&ev, p, len, true, NULL, 0), n);
}

TEST(payload_format_short_and_long)
{
	struct ketw_event_info ev;
	unsigned char p[200];
	char buf[1024];
	unsigned int i;

	tick_info(&ev);
	for (i = 0; i < sizeof(p); i++)
		p[i] = i;
	/* A cut payload: what is there, then <missing>. */
	ketw_payload_format(&ev, p, 10, false, buf, sizeof(buf));
	CHECK_STR(buf, "index=50462976 magic=0x7060504 value=<missing> tail=<missing>");
	ketw_payload_format(&ev, p, 16, false, buf, sizeof(buf));
	CHECK_CONTAINS(buf, " value=1084818905618843912 tail={}");
	/* Long binary: 32 bytes, then how many more. */
	ketw_payload_format(&ev, p, 16 + 40, false, buf, sizeof(buf));
	CHECK_CONTAINS(buf, " tail={10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f 20 21 22 23 24 25 26 27 28 29 2a 2b 2c 2d 2e 2f ...+8}");
	/* A fixed-size binary field the payload cuts. */
	ev.fields[3].size = 4;
	ketw_payload_format(&ev, p, 18, false, buf, sizeof(buf));
	CHECK_CONTAINS(buf, " tail={10 11 <cut>}");
	/* A string without a NUL up to the payload's end. */
	ev.fields[3].type = KETW_FIELD_STRING;
	ev.fields[3].size = 0;
	memcpy(p + 16, "abc", 3);
	ketw_payload_format(&ev, p, 19, false, buf, sizeof(buf));
	CHECK_CONTAINS(buf, " tail=\"abc\"");
	/* No fields: nothing. */
	ev.nr_fields = 0;
	CHECK_EQ(ketw_payload_format(&ev, p, 19, false, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
	/* A count past the array is bounded. */
	ev.nr_fields = 5000;
	CHECK(ketw_payload_format(&ev, p, 19, false, buf, sizeof(buf)) > 0);
}

/* ---- a trace with a rundown, and its report ------------------------- */

struct hdr_spec {
	unsigned int cpu;
	uint64_t seq, ts;
	uint16_t flags;
	uint32_t id;
	uint8_t type, level;
	uint16_t version;
	uint64_t keyword;
	const uint8_t *guid;		/* NULL: all zero */
};

static size_t put(unsigned char *buf, const struct hdr_spec *s,
		  const void *payload, size_t len)
{
	struct ketw_event_header h = {
		.size = KETW_EVENT_HEADER_SIZE + len,
		.type = s->type, .level = s->level, .version = s->version,
		.flags = s->flags, .event_id = s->id, .cpu = s->cpu,
		.thread_id = s->guid ? 77 : 0, .process_id = s->guid ? 77 : 0,
		.sequence = s->seq, .timestamp = s->ts, .keyword = s->keyword,
	};
	size_t span = KETW_RECORD_SPAN(h.size);

	if (s->guid)
		memcpy(h.provider_guid, s->guid, KETW_GUID_SIZE);
	memset(buf, 0, span);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), payload, len);
	return span;
}

#define SYS(c, q, t, i, ty)	{ .cpu = c, .seq = q, .ts = t, \
				  .flags = KETW_RECORD_SYSTEM, .id = i, \
				  .type = ty }
#define EV(c, q, t, i, lv, v, kw, g) \
				{ .cpu = c, .seq = q, .ts = t, .id = i, \
				  .type = 10, .level = lv, .version = v, \
				  .keyword = kw, .guid = g }

/* A tick payload: index, magic, value, @tail bytes. */
static size_t tick_payload(unsigned char *p, uint32_t index, unsigned int tail,
			   bool be)
{
	uint32_t magic = 0x6b657477, idx = index;
	uint64_t value = index * 3 + 1;
	unsigned int k;

	if (be) {
		magic = bswap_32(magic);
		idx = bswap_32(idx);
		value = bswap_64(value);
	}
	memcpy(p, &idx, 4);
	memcpy(p + 4, &magic, 4);
	memcpy(p + 8, &value, 8);
	for (k = 0; k < tail; k++)
		p[16 + k] = index + k;
	return 16 + tail;
}

/*
 * Write the trace: START, the rundown (two providers, three layouts, a
 * task), events decoded, not decoded (no layout, another version,
 * another provider), a cut one, FILTER, STOP. @be: provider payloads as
 * a big-endian writer wrote them (the caller swaps the rest).
 */
static int write_rundown_trace(const char *path, bool be)
{
	static _Alignas(8) unsigned char b0[8192], b1[1024];
	struct ketw_sys_start st = { .level = 0 };
	struct ketw_sys_provider prov = { .nr_events = 3 };
	struct ketw_sys_provider user = { .nr_events = 0,
					  .flags = KETW_PROVIDER_USER };
	struct ketw_sys_task task = { .process_id = 77, .thread_id = 77,
				      .comm = "sampler" };
	struct ketw_sys_filter flt;
	struct ketw_sys_stop stop = { 0 };
	struct ketw_event_info ev;
	struct ketw_output_info info;
	struct ketw_output *out;
	struct hdr_spec h;
	unsigned char p[128];
	size_t n0 = 0, n1 = 0, len;
	int err;

	memcpy(prov.provider_guid, test_guid, KETW_GUID_SIZE);
	strcpy(prov.name, "ketw-sample");
	memcpy(user.provider_guid, "userprov\0\0\0\0\0\0\0\2", KETW_GUID_SIZE);
	strcpy(user.name, "my-app");
	n0 += put(b0 + n0, &(struct hdr_spec)SYS(0, 0, 1000000000, KETW_SYS_START,
						 KETW_TYPE_INFO), &st, sizeof(st));
	n0 += put(b0 + n0, &(struct hdr_spec)SYS(0, 1, 1000000100, KETW_SYS_PROVIDER,
						 KETW_TYPE_DC_START), &prov, sizeof(prov));
	tick_info(&ev);
	n0 += put(b0 + n0, &(struct hdr_spec)SYS(0, 2, 1000000200, KETW_SYS_EVENT_DESC,
						 KETW_TYPE_DC_START), &ev, sizeof(ev));
	all_info(&ev);
	n0 += put(b0 + n0, &(struct hdr_spec)SYS(0, 3, 1000000300, KETW_SYS_EVENT_DESC,
						 KETW_TYPE_DC_START), &ev, sizeof(ev));
	/* A layout for a provider the rundown does not name. */
	tick_info(&ev);
	memcpy(ev.provider_guid, other_guid, KETW_GUID_SIZE);
	strcpy(ev.name, "ping");
	ev.nr_fields = 1;
	n0 += put(b0 + n0, &(struct hdr_spec)SYS(0, 4, 1000000400, KETW_SYS_EVENT_DESC,
						 KETW_TYPE_DC_START), &ev, sizeof(ev));
	n0 += put(b0 + n0, &(struct hdr_spec)SYS(0, 5, 1000000500, KETW_SYS_PROVIDER,
						 KETW_TYPE_DC_START), &user, sizeof(user));
	n0 += put(b0 + n0, &(struct hdr_spec)SYS(0, 6, 1000000600, KETW_SYS_TASK,
						 KETW_TYPE_DC_START), &task, sizeof(task));
	/* Events. */
	len = tick_payload(p, 3, 3, be);
	n0 += put(b0 + n0, &(struct hdr_spec)EV(0, 7, 1000001000, 1, 4, 2, 1,
						test_guid), p, len);
	/* From a softirq, then a hard interrupt (irqs off, depth 1). */
	len = tick_payload(p, 4, 0, be);
	h = (struct hdr_spec)EV(1, 0, 1000001500, 1, 4, 2, 1, test_guid);
	h.flags = KETW_CTX_SOFTIRQ << KETW_RECORD_CTX_SHIFT;
	n1 += put(b1 + n1, &h, p, len);
	len = all_payload(p, be);
	h = (struct hdr_spec)EV(0, 8, 1000002000, 3, 5, 1, 8, test_guid);
	h.flags = KETW_CTX_HARDIRQ << KETW_RECORD_CTX_SHIFT |
		  KETW_RECORD_IRQS_OFF | 1 << KETW_RECORD_PREEMPT_SHIFT;
	n0 += put(b0 + n0, &h, p, len);
	/* No layout for id 9; tick of version 1; another provider. */
	n0 += put(b0 + n0, &(struct hdr_spec)EV(0, 9, 1000003000, 9, 4, 1, 1,
						test_guid), "ninebytes", 9);
	len = tick_payload(p, 5, 0, be);
	n0 += put(b0 + n0, &(struct hdr_spec)EV(0, 10, 1000004000, 1, 4, 1, 1,
						test_guid), p, len);
	len = tick_payload(p, 6, 0, be);
	n0 += put(b0 + n0, &(struct hdr_spec)EV(0, 11, 1000005000, 1, 4, 2, 1,
						other_guid), p, len);
	/* A user-space event: named, no layout. */
	h = (struct hdr_spec)EV(0, 12, 1000006000, 4, 2, 0, 0,
				user.provider_guid);
	h.flags = KETW_RECORD_USER | KETW_RECORD_NEED_RESCHED;
	n0 += put(b0 + n0, &h, "hi", 2);
	/* Cut by max_data_size. */
	len = tick_payload(p, 7, 0, be);
	h = (struct hdr_spec)EV(0, 13, 1000007000, 1, 4, 2, 1, test_guid);
	/* From an NMI, cut by max_data_size. */
	h.flags = KETW_RECORD_TRUNCATED | KETW_RECORD_IRQS_OFF |
		  KETW_CTX_NMI << KETW_RECORD_CTX_SHIFT;
	n0 += put(b0 + n0, &h, p, 10);
	/* FILTER of ketw-sample, STOP. */
	memset(&flt, 0, sizeof(flt));
	memcpy(flt.provider_guid, test_guid, KETW_GUID_SIZE);
	flt.old_filter.enabled = 1;
	flt.new_filter.enabled = 1;
	flt.new_filter.level = 3;
	n0 += put(b0 + n0, &(struct hdr_spec)SYS(0, 14, 1000008000, KETW_SYS_FILTER,
						 KETW_TYPE_INFO), &flt, sizeof(flt));
	n0 += put(b0 + n0, &(struct hdr_spec)SYS(0, 15, 1000009000, KETW_SYS_STOP,
						 KETW_TYPE_INFO), &stop, sizeof(stop));
	if (n0 > sizeof(b0) || n1 > sizeof(b1))
		return -ENOSPC;
	test_info(&info, 2);
	err = ketw_output_create(path, &info, &out);
	if (err)
		return err;
	ketw_output_add_records(out, 0, b0, n0);
	ketw_output_add_records(out, 1, b1, n1);
	return ketw_output_close(out);
}

static const char golden_records[] =
"  cpu=0 ctx=.... ts=1.000000000 pid=0 tid=0 seq=0 provider=ketw type=INFO level=0 ver=0 id=START kw=0x0 len=24 flags=SYSTEM\n"
"    START: filter: level=0 match_any=0x0 match_all=0x0\n"
"  cpu=0 ts=1.000000100 seq=1 PROVIDER ketw-sample 6b657477-7361-6d70-6c65-000000000001 events=3\n"
"  cpu=0 ts=1.000000200 seq=2 EVENT_DESC ketw-sample id=1 tick ver=2 fields=4\n"
"  cpu=0 ts=1.000000300 seq=3 EVENT_DESC ketw-sample id=3 all ver=1 fields=15\n"
"  cpu=0 ts=1.000000400 seq=4 EVENT_DESC 11223344-5566-7788-99aa-bbccddeeff00 id=1 ping ver=2 fields=1\n"
"  cpu=0 ts=1.000000500 seq=5 PROVIDER my-app 75736572-7072-6f76-0000-000000000002 events=0 USER\n"
"  cpu=0 ts=1.000000600 seq=6 TASK pid=77 tid=77 comm=sampler\n"
"  cpu=0 ctx=.... ts=1.000001000 pid=77 tid=77 seq=7 provider=ketw-sample type=10 level=INFO ver=2 id=1 event=tick kw=0x1 len=19\n"
"    index=3 magic=0x6b657477 value=10 tail={03 04 05}\n"
"  cpu=1 ctx=..s. ts=1.000001500 pid=77 tid=77 seq=0 provider=ketw-sample type=10 level=INFO ver=2 id=1 event=tick kw=0x1 len=16\n"
"    index=4 magic=0x6b657477 value=13 tail={}\n"
"  cpu=0 ctx=d.h1 ts=1.000002000 pid=77 tid=77 seq=8 provider=ketw-sample type=10 level=VERBOSE ver=1 id=3 event=all kw=0x8 len=66\n"
"    u8=200 u16=65535 s8=-5 s16=-300 s32=-70000 u32=4000000000 s64=-1 h64=0xdeadbeef00c0ffee id=6b657477-7361-6d70-6c65-000000000001 str=\"a\\\"\\\\\\n\\x01zzz\" bin={de ad be ef} odd={01 02} new=(type 99){de ad} late=<missing> rest=\"ok\"\n"
"  cpu=0 ctx=.... ts=1.000003000 pid=77 tid=77 seq=9 provider=ketw-sample type=10 level=INFO ver=1 id=9 kw=0x1 len=9\n"
"    0000  6e 69 6e 65 62 79 74 65  73                       |ninebytes|\n"
"  cpu=0 ctx=.... ts=1.000004000 pid=77 tid=77 seq=10 provider=ketw-sample type=10 level=INFO ver=1 id=1 kw=0x1 len=16\n"
"    0000  05 00 00 00 77 74 65 6b  10 00 00 00 00 00 00 00  |....wtek........|\n"
"  cpu=0 ctx=.... ts=1.000005000 pid=77 tid=77 seq=11 guid=11223344-5566-7788-99aa-bbccddeeff00 type=10 level=INFO ver=2 id=1 event=ping kw=0x1 len=16\n"
"    index=6\n"
"  cpu=0 ctx=.N.. ts=1.000006000 pid=77 tid=77 seq=12 provider=my-app type=10 level=ERROR ver=0 id=4 kw=0x0 len=2 flags=USER\n"
"    0000  68 69                                             |hi|\n"
"  cpu=0 ctx=d.z. ts=1.000007000 pid=77 tid=77 seq=13 provider=ketw-sample type=10 level=INFO ver=2 id=1 event=tick kw=0x1 len=10 flags=TRUNCATED\n"
"    index=7 magic=0x6b657477 value=<missing> tail=<missing>\n"
"  cpu=0 ctx=.... ts=1.000008000 pid=0 tid=0 seq=14 provider=ketw type=INFO level=0 ver=0 id=FILTER kw=0x0 len=320 flags=SYSTEM\n"
"    FILTER: provider ketw-sample: level=0 match_any=0x0 match_all=0x0 filtered=0 -> level=3 match_any=0x0 match_all=0x0 filtered=0\n"
"  cpu=0 ctx=.... ts=1.000009000 pid=0 tid=0 seq=15 provider=ketw type=INFO level=0 ver=0 id=STOP kw=0x0 len=8 flags=SYSTEM\n"
"    STOP: explicit stop\n";

/* The records part of a report (after the summary's blank line). */
static const char *records_part(const char *out)
{
	const char *p = out ? strstr(out, "\n\n  cpu=") : NULL;

	return p ? p + 2 : "";
}

TEST(cli_report_decodes_by_rundown)
{
	const char *path = test_path("rundown-native.ketw");
	const char *spath = test_path("rundown-swapped.ketw");
	char *o = NULL, *e = NULL, *o2 = NULL;
	unsigned char *img;
	size_t len;

	ASSERT_EQ(write_rundown_trace(path, false), 0);
	ASSERT_EQ(test_run_ketw(NULL, ARGS_REPORT(path), &o, &e), 0);
	CHECK_CONTAINS(o, "rundown:  2 providers, 3 event layouts, 1 tasks (payloads decoded by their layouts)\n");
	if (!CHECK_STR(records_part(o), golden_records))
		printf("--- got:\n%s--- want:\n%s", records_part(o),
		       golden_records);
	CHECK_STR(e, "");
	free(e);
	e = NULL;

	/* Written on a machine of the other byte order: the same report. */
	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
		ASSERT_EQ(write_rundown_trace(spath, true), 0);
		img = test_slurp(spath, &len);
		ASSERT(img != NULL);
		test_swap_file(img, len);
		ASSERT_EQ(test_spit(spath, img, len), 0);
		free(img);
		ASSERT_EQ(test_run_ketw(NULL, ARGS_REPORT(spath), &o2, &e), 0);
		CHECK_CONTAINS(o2, "written with the other byte order");
		/*
		 * Decoded fields read the same; a hex dump shows the bytes
		 * as the big-endian writer stored them.
		 */
		{
			static const char le[] = "0000  05 00 00 00 77 74 65 6b  10 00 00 00 00 00 00 00  |....wtek........|";
			static const char be[] = "0000  00 00 00 05 6b 65 74 77  00 00 00 00 00 00 00 10  |....ketw........|";
			char *want = strdup(golden_records), *at;

			ASSERT(want != NULL);
			at = strstr(want, le);
			ASSERT(at != NULL);
			memcpy(at, be, strlen(be));
			CHECK_STR(records_part(o2), want);
			free(want);
		}
		free(o2);
		free(e);
	}
	free(o);
}

TEST(cli_report_rundown_options)
{
	const char *path = test_path("rundown-opts.ketw");
	char *o = NULL, *e = NULL;
	const char *r;

	ASSERT_EQ(write_rundown_trace(path, false), 0);
	/* -R: no rundown lines, still names and layouts. */
	ASSERT_EQ(test_run_ketw(NULL, (const char *const[]){ "report", "-R",
				path, NULL }, &o, &e), 0);
	r = records_part(o);
	CHECK(!strstr(r, "PROVIDER"));
	CHECK(!strstr(r, "EVENT_DESC"));
	CHECK(!strstr(r, "TASK"));
	CHECK_CONTAINS(r, "event=tick kw=0x1 len=19\n    index=3 magic=0x6b657477 value=10 tail={03 04 05}\n");
	free(o);
	free(e);
	/* -N: no payloads, system events still decoded. */
	ASSERT_EQ(test_run_ketw(NULL, (const char *const[]){ "report", "-N",
				path, NULL }, &o, &e), 0);
	r = records_part(o);
	CHECK(!strstr(r, "index="));
	CHECK(!strstr(r, "0000  "));
	CHECK_CONTAINS(r, "  cpu=0 ts=1.000000100 seq=1 PROVIDER ketw-sample");
	CHECK_CONTAINS(r, "    STOP: explicit stop\n");
	free(o);
	free(e);
	/* -X: raw, as before: GUIDs, hex, rundown records in full. */
	ASSERT_EQ(test_run_ketw(NULL, (const char *const[]){ "report", "-X",
				path, NULL }, &o, &e), 0);
	r = records_part(o);
	CHECK(!strstr(r, "provider="));
	CHECK(!strstr(r, "index="));
	CHECK_CONTAINS(r, "  cpu=0 ctx=.... ts=1.000001000 pid=77 tid=77 seq=7 guid=6b657477-7361-6d70-6c65-000000000001 type=10 level=INFO ver=2 id=1 kw=0x1 len=19\n"
			  "    0000  03 00 00 00 77 74 65 6b  0a 00 00 00 00 00 00 00  |....wtek........|\n");
	CHECK_CONTAINS(r, "id=PROVIDER kw=0x0 len=56 flags=SYSTEM\n"
			  "    PROVIDER: provider ketw-sample 6b657477-7361-6d70-6c65-000000000001, 3 events\n"
			  "    0000  ");
	free(o);
	free(e);
	/* A file without a rundown says so, and stays in hex. */
	ASSERT_EQ(test_run_ketw(NULL, (const char *const[]){ "report", "-H",
				path, NULL }, &o, &e), 0);
	CHECK_CONTAINS(o, "rundown:  2 providers");
	free(o);
	free(e);
}

/*
 * The blocks of golden_records (a record line and its indented lines)
 * whose record line starts with "  cpu=C [ctx=....] ts=T" for one of
 * @keys ("C T").
 */
static char *golden_pick(const char *const *keys)
{
	size_t len = strlen(golden_records);
	char *out = calloc(1, len + 1), want[64];
	const char *p = golden_records, *end;
	bool keep = false;
	unsigned int i;

	if (!out)
		return NULL;
	while (*p) {
		end = strchr(p, '\n');
		end = end ? end + 1 : p + strlen(p);
		if (!strncmp(p, "  cpu=", 6)) {
			keep = false;
			for (i = 0; keys[i]; i++) {
				char cpu[8], ts[32];

				if (sscanf(keys[i], "%7s %31s", cpu, ts) != 2)
					continue;
				/* "  cpu=C ctx=.... ts=T ", or no ctx=. */
				snprintf(want, sizeof(want), "  cpu=%s ", cpu);
				if (strncmp(p, want, strlen(want)))
					continue;
				snprintf(want, sizeof(want), " ts=%s ", ts);
				if (strstr(p, want) && strstr(p, want) < end)
					keep = true;
			}
		}
		if (keep)
			strncat(out, p, (size_t)(end - p));
		p = end;
	}
	return out;
}

#define SYSTEM_KEYS "0 1.000000000", "0 1.000000100", "0 1.000000200", \
	"0 1.000000300", "0 1.000000400", "0 1.000000500", "0 1.000000600", \
	"0 1.000008000", "0 1.000009000"

static void check_filter(const char *path, const char *const *argv,
			 const char *const *keys)
{
	const char *args[16];
	char *o = NULL, *e = NULL, *want;
	unsigned int n = 0;

	args[n++] = "report";
	for (; *argv && n < 14; argv++)
		args[n++] = *argv;
	args[n++] = path;
	args[n] = NULL;
	want = golden_pick(keys);
	ASSERT(want != NULL);
	ASSERT_EQ(test_run_ketw(NULL, args, &o, &e), 0);
	if (!CHECK_STR(records_part(o), want))
		printf("--- %s %s: got:\n%s--- want:\n%s", args[1],
		       args[2], records_part(o), want);
	CHECK_STR(e, "");
	free(want);
	free(o);
	free(e);
}

#define FARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

TEST(cli_report_filters)
{
	const char *path = test_path("rundown-filters.ketw");

	ASSERT_EQ(write_rundown_trace(path, false), 0);
	check_filter(path, FARGS("--provider", "ketw-sample"),
		     FARGS(SYSTEM_KEYS, "0 1.000001000", "1 1.000001500",
			   "0 1.000002000", "0 1.000003000", "0 1.000004000",
			   "0 1.000007000"));
	/* By GUID, repeatable, a name and a GUID. */
	check_filter(path, FARGS("--provider",
				 "11223344-5566-7788-99aa-bbccddeeff00",
				 "--provider", "my-app"),
		     FARGS(SYSTEM_KEYS, "0 1.000005000", "0 1.000006000"));
	check_filter(path, FARGS("--provider",
				 "6b657477-7361-6d70-6c65-000000000001",
				 "--no-system"),
		     FARGS("0 1.000001000", "1 1.000001500", "0 1.000002000",
			   "0 1.000003000", "0 1.000004000", "0 1.000007000"));
	/* --level: the highest level kept. */
	check_filter(path, FARGS("--level", "error"),
		     FARGS(SYSTEM_KEYS, "0 1.000006000"));
	check_filter(path, FARGS("--level", "4", "--no-system"),
		     FARGS("0 1.000001000", "1 1.000001500", "0 1.000003000",
			   "0 1.000004000", "0 1.000005000", "0 1.000006000",
			   "0 1.000007000"));
	/* --cpu applies to every record. */
	check_filter(path, FARGS("--cpu", "1"), FARGS("1 1.000001500"));
	check_filter(path, FARGS("--cpu", "1", "--cpu", "0", "--no-system"),
		     FARGS("0 1.000001000", "1 1.000001500", "0 1.000002000",
			   "0 1.000003000", "0 1.000004000", "0 1.000005000",
			   "0 1.000006000", "0 1.000007000"));
	check_filter(path, FARGS("--pid", "78"), FARGS(SYSTEM_KEYS));
	check_filter(path, FARGS("--pid", "77", "--cpu", "0", "--no-system"),
		     FARGS("0 1.000001000", "0 1.000002000", "0 1.000003000",
			   "0 1.000004000", "0 1.000005000", "0 1.000006000",
			   "0 1.000007000"));
	/* --from and --to, inclusive, in the trace clock: every record. */
	check_filter(path, FARGS("--from", "1.000002", "--to", "1.000005"),
		     FARGS("0 1.000002000", "0 1.000003000", "0 1.000004000",
			   "0 1.000005000"));
	check_filter(path, FARGS("--from", "1.000008"),
		     FARGS("0 1.000008000", "0 1.000009000"));
	check_filter(path, FARGS("--to", "1", "--cpu", "0"),
		     FARGS("0 1.000000000"));
}

TEST(cli_report_filter_usage_errors)
{
	static const char *const bad[][3] = {
		{ "--level", "loud", "--level: 'loud' is not a level" },
		{ "--cpu", "x", "--cpu: 'x' is not a cpu number" },
		{ "--pid", "-1", "--pid: '-1' is not a process id" },
		{ "--from", "1.", "--from: '1.' is not SECONDS[.FRACTION]" },
		{ "--to", "1.0000000001", "--to: '1.0000000001' is not" },
		{ "--from", ".5", "is not SECONDS[.FRACTION]" },
		{ "--provider", "", "--provider: '' is not a provider" },
		{ "--provider", "00000000-0000-0000-0000-000000000000",
		  "is not a provider name or GUID" },
	};
	char *o = NULL, *e = NULL;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(test_run_ketw(NULL, FARGS("report", bad[i][0],
						   bad[i][1], "x.ketw"),
				       &o, &e), 2);
		CHECK_CONTAINS(e, bad[i][2]);
		free(o);
		free(e);
	}
}

/* ---- a small JSON validator: one value, RFC 8259 ---- */

static const char *json_value(const char *p, int depth);

static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static const char *json_str(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!isxdigit((unsigned char)p[i]))
						return NULL;
				p += 4;
			} else if (!strchr("\"\\/bfnrt", *p) || !*p) {
				return NULL;
			}
		}
		p++;
	}
	return p + 1;
}

static const char *json_num(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (isdigit((unsigned char)*p))
			p++;
	else
		return NULL;
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return p;
}

static const char *json_value(const char *p, int depth)
{
	bool obj;

	if (depth > 32)
		return NULL;
	p = json_ws(p);
	if (*p == '"')
		return json_str(p);
	if (*p == '{' || *p == '[') {
		obj = *p++ == '{';
		p = json_ws(p);
		if (*p == (obj ? '}' : ']'))
			return p + 1;
		for (;;) {
			if (obj) {
				p = json_str(json_ws(p));
				if (!p)
					return NULL;
				p = json_ws(p);
				if (*p++ != ':')
					return NULL;
			}
			p = json_value(p, depth + 1);
			if (!p)
				return NULL;
			p = json_ws(p);
			if (*p == ',') {
				p++;
				continue;
			}
			return *p == (obj ? '}' : ']') ? p + 1 : NULL;
		}
	}
	if (!strncmp(p, "true", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	if (!strncmp(p, "null", 4))
		return p + 4;
	return json_num(p);
}

/* Every line one JSON object; returns the number of lines, -1 if bad. */
static int json_lines_check(const char *s, bool verbose)
{
	char line[8192];
	const char *nl, *end;
	int n = 0;

	while (*s) {
		nl = strchr(s, '\n');
		if (!nl || (size_t)(nl - s) >= sizeof(line))
			return -1;
		memcpy(line, s, (size_t)(nl - s));
		line[nl - s] = '\0';
		end = line[0] == '{' ? json_value(line, 0) : NULL;
		if (!end || *end) {
			if (verbose)
				printf("    bad JSON line: %s\n", line);
			return -1;
		}
		n++;
		s = nl + 1;
	}
	return n;
}

TEST(json_validator_self_test)
{
	CHECK_EQ(json_lines_check("{\"a\":[1,-2.5e3,true,null,{\"b\":\"\\u00e9\\n\"}]}\n", false), 1);
	CHECK_EQ(json_lines_check("{\"a\":\"\x01\"}\n", false), -1);
	CHECK_EQ(json_lines_check("{\"a\":01}\n", false), -1);
	CHECK_EQ(json_lines_check("{\"a\":\"\\x41\"}\n", false), -1);
	CHECK_EQ(json_lines_check("{\"a\":1,}\n", false), -1);
	CHECK_EQ(json_lines_check("{\"a\" 1}\n", false), -1);
}

static const char golden_json[] =
"{\"cpu\":0,\"ts\":\"1.000001000\",\"timestamp\":1000001000,\"pid\":77,\"tid\":77,\"seq\":7,\"guid\":\"6b657477-7361-6d70-6c65-000000000001\",\"provider\":\"ketw-sample\",\"type\":10,\"level\":4,\"level_name\":\"INFO\",\"version\":2,\"id\":1,\"event\":\"tick\",\"keyword\":1,\"flags\":0,\"system\":false,\"truncated\":false,\"context\":\"task\",\"irqs_off\":false,\"need_resched\":false,\"preempt\":0,\"len\":19,\"fields\":{\"index\":3,\"magic\":\"0x6b657477\",\"value\":10,\"tail\":\"030405\"}}\n"
"{\"cpu\":0,\"ts\":\"1.000002000\",\"timestamp\":1000002000,\"pid\":77,\"tid\":77,\"seq\":8,\"guid\":\"6b657477-7361-6d70-6c65-000000000001\",\"provider\":\"ketw-sample\",\"type\":10,\"level\":5,\"level_name\":\"VERBOSE\",\"version\":1,\"id\":3,\"event\":\"all\",\"keyword\":8,\"flags\":4192,\"system\":false,\"truncated\":false,\"context\":\"hardirq\",\"irqs_off\":true,\"need_resched\":false,\"preempt\":1,\"len\":66,\"fields\":{\"u8\":200,\"u16\":65535,\"s8\":-5,\"s16\":-300,\"s32\":-70000,\"u32\":4000000000,\"s64\":-1,\"h64\":\"0xdeadbeef00c0ffee\",\"id\":\"6b657477-7361-6d70-6c65-000000000001\",\"str\":\"a\\\"\\\\\\u000a\\u0001zzz\",\"bin\":\"deadbeef\",\"odd\":\"0102\",\"new\":\"dead\",\"late\":null,\"rest\":\"ok\"}}\n"
"{\"cpu\":0,\"ts\":\"1.000003000\",\"timestamp\":1000003000,\"pid\":77,\"tid\":77,\"seq\":9,\"guid\":\"6b657477-7361-6d70-6c65-000000000001\",\"provider\":\"ketw-sample\",\"type\":10,\"level\":4,\"level_name\":\"INFO\",\"version\":1,\"id\":9,\"keyword\":1,\"flags\":0,\"system\":false,\"truncated\":false,\"context\":\"task\",\"irqs_off\":false,\"need_resched\":false,\"preempt\":0,\"len\":9,\"payload\":\"6e696e656279746573\"}\n";

TEST(cli_report_json)
{
	const char *path = test_path("rundown-json.ketw");
	const char *spath = test_path("rundown-json-swapped.ketw");
	char *o = NULL, *e = NULL, *o2 = NULL;
	unsigned char *img;
	size_t len;

	ASSERT_EQ(write_rundown_trace(path, false), 0);
	/* Every record, the rundown too: valid JSON Lines, no summary. */
	ASSERT_EQ(test_run_ketw(NULL, FARGS("report", "--json", path), &o, &e),
		  0);
	CHECK_EQ(json_lines_check(o, true), 17);
	CHECK_CONTAINS(o, "\"event\":\"PROVIDER\"");
	CHECK_CONTAINS(o, "\"provider\":\"my-app\"");
	CHECK_CONTAINS(o, ",\"guid\":\"11223344-5566-7788-99aa-bbccddeeff00\",\"type\":10,");
	CHECK_CONTAINS(o, "\"truncated\":true,\"context\":\"nmi\",\"irqs_off\":true,\"need_resched\":false,\"preempt\":0,\"len\":10,\"fields\":{\"index\":7,\"magic\":\"0x6b657477\",\"value\":null,\"tail\":null}}\n");
	CHECK_CONTAINS(o, "\"event\":\"STOP\",\"keyword\":0,\"flags\":1,\"system\":true,\"truncated\":false,\"context\":\"task\",\"irqs_off\":false,\"need_resched\":false,\"preempt\":0,\"len\":8,\"payload\":\"");
	CHECK_CONTAINS(o, "\"flags\":136,\"system\":false,\"truncated\":false,\"context\":\"task\",\"irqs_off\":false,\"need_resched\":true,\"preempt\":0,\"len\":2,");
	CHECK_STR(e, "");
	free(o);
	free(e);
	/* Exact lines, with filters; -R leaves the rundown out. */
	ASSERT_EQ(test_run_ketw(NULL, FARGS("report", "--json", "-R",
					    "--cpu", "0", "--from", "1.000001",
					    "--to", "1.000003", path), &o, &e), 0);
	CHECK_STR(o, golden_json);
	free(o);
	free(e);
	/* The other byte order: the same decoded fields. */
	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
		ASSERT_EQ(write_rundown_trace(spath, true), 0);
		img = test_slurp(spath, &len);
		ASSERT(img != NULL);
		test_swap_file(img, len);
		ASSERT_EQ(test_spit(spath, img, len), 0);
		free(img);
		ASSERT_EQ(test_run_ketw(NULL, FARGS("report", "--json", "-R",
						    "--cpu", "0", "--from",
						    "1.000001", "--to",
						    "1.000002", spath),
					&o2, &e), 0);
		{
			char *want = strndup(golden_json,
					     strstr(golden_json, "\n{\"cpu\":0,\"ts\":\"1.000003000") + 1 - golden_json);

			ASSERT(want != NULL);
			CHECK_STR(o2, want);
			free(want);
		}
		free(o2);
		free(e);
	}
}

/*
 * A file of format 1.0 (tests/golden/v1.0.ketw, written by the tool of
 * before the context bits: write_rundown_trace() as it was then) reads
 * exactly as that tool read it: no ctx= column, no "context" in JSON,
 * rather than claiming every record came from a task.
 */
TEST(old_format_1_0_reads_as_before)
{
	static const char *const modes[][2] = {
		{ NULL, "v1.0.report" },
		{ "-X", "v1.0.report-X" },
		{ "--json", "v1.0.json" },
	};
	char trace[512], golden[512], *o = NULL, *e = NULL, *want, *at;
	const struct ketw_file_header *h;
	struct ketw_input *in;
	struct ketw_record rec;
	unsigned char *img;
	size_t len, n;
	unsigned int i;

	snprintf(trace, sizeof(trace), "%s", test_golden_path("v1.0.ketw"));
	img = test_slurp(trace, &len);
	ASSERT(img != NULL);
	ASSERT_EQ(ketw_input_open_mem(img, len, &in, NULL, 0), 0);
	h = ketw_input_header(in);
	CHECK_EQ(h->version_major, 1);
	CHECK_EQ(h->version_minor, 0);
	CHECK_EQ(h->flags, 0);
	n = 0;
	while (ketw_input_next(in, &rec) > 0) {
		CHECK(!rec.context);
		n++;
	}
	CHECK_EQ(n, 17);
	ketw_input_close(in);
	free(img);

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		snprintf(golden, sizeof(golden), "%s",
			 test_golden_path(modes[i][1]));
		want = (char *)test_slurp(golden, &len);
		ASSERT(want != NULL);
		/* The report names the file: @PATH@ in the golden text. */
		at = strstr(want, "@PATH@");
		if (at) {
			char *w = malloc(len + strlen(trace) + 1);

			ASSERT(w != NULL);
			sprintf(w, "%.*s%s%s", (int)(at - want), want, trace,
				at + strlen("@PATH@"));
			free(want);
			want = w;
		}
		ASSERT_EQ(test_run_ketw(NULL, modes[i][0] ?
				FARGS("report", modes[i][0], trace) :
				FARGS("report", trace), &o, &e), 0);
		if (!CHECK_STR(o, want))
			printf("--- %s: got:\n%s", modes[i][1], o);
		CHECK(!strstr(o, "ctx="));
		CHECK(!strstr(o, "\"context\""));
		CHECK_STR(e, "");
		free(want);
		free(o);
		free(e);
	}
}

/* The same trace written today: format 1.3, the context bits valid. */
TEST(new_format_says_context_valid)
{
	const char *path = test_path("rundown-ctx.ketw");
	const struct ketw_file_header *h;
	struct ketw_input *in;
	struct ketw_record rec;
	unsigned char *img;
	unsigned int nmi = 0;
	size_t len;

	ASSERT_EQ(write_rundown_trace(path, false), 0);
	img = test_slurp(path, &len);
	ASSERT(img != NULL);
	ASSERT_EQ(ketw_input_open_mem(img, len, &in, NULL, 0), 0);
	h = ketw_input_header(in);
	CHECK_EQ(h->version_minor, KETW_FILE_VERSION_MINOR);
	CHECK_EQ(KETW_FILE_VERSION_MINOR, 3);
	CHECK_EQ(h->flags, KETW_FILE_F_RECORD_CTX);
	while (ketw_input_next(in, &rec) > 0) {
		CHECK(rec.context);
		nmi += KETW_RECORD_CTX(rec.hdr->flags) == KETW_CTX_NMI;
	}
	CHECK_EQ(nmi, 1);
	ketw_input_close(in);
	free(img);
}
