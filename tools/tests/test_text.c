// SPDX-License-Identifier: GPL-2.0
/*
 * Tests: text helpers (GUIDs, names, record lines, hex dump) and parsing.
 */
#include <errno.h>
#include <stdlib.h>

#include "test.h"

/* 8-aligned scratch space for records. */
static _Alignas(8) unsigned char BUF[1024];

TEST(guid_format)
{
	static const uint8_t zero[16], ff[16] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	static const uint8_t seq[16] = {
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
		0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
	};
	char buf[KETW_GUID_STR_LEN];

	CHECK_STR(ketw_guid_format(test_guid, buf),
		  "6b657477-7361-6d70-6c65-000000000001");
	CHECK_STR(ketw_guid_format(zero, buf),
		  "00000000-0000-0000-0000-000000000000");
	CHECK_STR(ketw_guid_format(ff, buf),
		  "ffffffff-ffff-ffff-ffff-ffffffffffff");
	/* Textual byte order: no field is swapped. */
	CHECK_STR(ketw_guid_format(seq, buf),
		  "01234567-89ab-cdef-fedc-ba9876543210");
	CHECK_EQ(strlen(buf), KETW_GUID_STR_LEN - 1);
}

TEST(names)
{
	CHECK_STR(ketw_type_name(KETW_TYPE_INFO), "INFO");
	CHECK_STR(ketw_type_name(KETW_TYPE_START), "START");
	CHECK_STR(ketw_type_name(KETW_TYPE_DC_END), "DC_END");
	CHECK_STR(ketw_type_name(KETW_TYPE_CHECKPOINT), "CHECKPOINT");
	CHECK(ketw_type_name(9) == NULL);
	CHECK(ketw_type_name(10) == NULL);
	CHECK(ketw_type_name(255) == NULL);
	CHECK(ketw_level_name(0) == NULL);
	CHECK_STR(ketw_level_name(KETW_LEVEL_CRITICAL), "CRITICAL");
	CHECK_STR(ketw_level_name(KETW_LEVEL_ERROR), "ERROR");
	CHECK_STR(ketw_level_name(KETW_LEVEL_WARNING), "WARNING");
	CHECK_STR(ketw_level_name(KETW_LEVEL_INFO), "INFO");
	CHECK_STR(ketw_level_name(KETW_LEVEL_VERBOSE), "VERBOSE");
	CHECK(ketw_level_name(6) == NULL);
	CHECK(ketw_sys_event_name(0) == NULL);
	CHECK_STR(ketw_sys_event_name(KETW_SYS_START), "START");
	CHECK_STR(ketw_sys_event_name(KETW_SYS_OVERFLOW), "OVERFLOW");
	CHECK_STR(ketw_sys_event_name(KETW_SYS_ERROR), "ERROR");
	CHECK_STR(ketw_sys_event_name(KETW_SYS_TRIGGER), "TRIGGER");
	CHECK(ketw_sys_event_name(10) == NULL);
	CHECK_STR(ketw_trigger_action_name(KETW_TRIGGER_SNAPSHOT), "snapshot");
	CHECK(ketw_trigger_action_name(0) == NULL);
	CHECK(ketw_trigger_action_name(4) == NULL);
	{
		unsigned int a = 0;

		CHECK_EQ(ketw_parse_trigger_action("stop", &a), 0);
		CHECK_EQ(a, KETW_TRIGGER_STOP);
		CHECK_EQ(ketw_parse_trigger_action("halt", &a), -EINVAL);
	}
	CHECK_STR(ketw_policy_name(KETW_POLICY_UNTIL_FULL), "until-full");
	CHECK(ketw_policy_name(0) == NULL);
	CHECK_STR(ketw_clock_name(KETW_CLOCK_LOCAL), "local");
	CHECK_STR(ketw_state_name(KETW_STATE_SUSPENDED), "suspended");
	CHECK(ketw_state_name(99) == NULL);
}

TEST(flags_format)
{
	char buf[64];

	CHECK_STR(ketw_flags_format(0, buf, sizeof(buf)), "0");
	CHECK_STR(ketw_flags_format(KETW_RECORD_TRUNCATED, buf, sizeof(buf)),
		  "TRUNCATED");
	CHECK_STR(ketw_flags_format(KETW_RECORD_SYSTEM | KETW_RECORD_USER,
				    buf, sizeof(buf)), "SYSTEM|USER");
	CHECK_STR(ketw_flags_format(KETW_RECORD_TRUNCATED | 0x200, buf,
				    sizeof(buf)), "TRUNCATED|0x200");
	CHECK_STR(ketw_flags_format(KETW_RECORD_USER | KETW_RECORD_EXT, buf,
				    sizeof(buf)), "USER|EXT");
	CHECK_STR(ketw_flags_format(0x800, buf, sizeof(buf)), "0x800");
	/* The context bits are ketw_context_format()'s. */
	CHECK_STR(ketw_flags_format(0xf0f0 | KETW_RECORD_USER, buf,
				    sizeof(buf)), "USER");
	CHECK_STR(ketw_flags_format(KETW_RECORD_PREEMPT_MASK, buf,
				    sizeof(buf)), "0");
	/* A short buffer is cut, never overrun. */
	memset(buf, 'x', sizeof(buf));
	ketw_flags_format(0xf, buf, 8);
	CHECK(strlen(buf) < 8);
	CHECK_EQ(buf[9], 'x');
}

TEST(context_format)
{
	static const struct {
		unsigned int flags;
		const char *want;
	} c[] = {
		{ 0, "...." },
		{ KETW_RECORD_IRQS_OFF, "d..." },
		{ KETW_RECORD_NEED_RESCHED, ".N.." },
		{ KETW_CTX_SOFTIRQ << KETW_RECORD_CTX_SHIFT, "..s." },
		{ KETW_CTX_HARDIRQ << KETW_RECORD_CTX_SHIFT |
		  KETW_RECORD_IRQS_OFF | 1 << KETW_RECORD_PREEMPT_SHIFT, "d.h1" },
		{ KETW_CTX_NMI << KETW_RECORD_CTX_SHIFT | KETW_RECORD_IRQS_OFF |
		  KETW_RECORD_NEED_RESCHED | KETW_RECORD_PREEMPT_MASK, "dNzf" },
		{ 10 << KETW_RECORD_PREEMPT_SHIFT | KETW_RECORD_SYSTEM |
		  KETW_RECORD_TRUNCATED | KETW_RECORD_USER, "...a" },
	};
	char buf[KETW_CONTEXT_STR_LEN];
	unsigned int i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		CHECK_STR(ketw_context_format(c[i].flags, buf, sizeof(buf)),
			  c[i].want);
	/* Too short: empty, never overrun. */
	memset(buf, 'x', sizeof(buf));
	CHECK_STR(ketw_context_format(0, buf, 4), "");
	CHECK_EQ(buf[1], 'x');
	CHECK_EQ(KETW_RECORD_CTX(0xffff), KETW_CTX_NMI);
	CHECK_EQ(KETW_RECORD_PREEMPT_DEPTH(0xffff), 15);
	CHECK_STR(ketw_context_name(KETW_CTX_TASK), "task");
	CHECK_STR(ketw_context_name(KETW_CTX_SOFTIRQ), "softirq");
	CHECK_STR(ketw_context_name(KETW_CTX_HARDIRQ), "hardirq");
	CHECK_STR(ketw_context_name(KETW_CTX_NMI), "nmi");
	CHECK(ketw_context_name(4) == NULL);
}

TEST(record_format_line)
{
	struct ketw_record_iter it;
	struct ketw_record r;
	struct ketw_sys_stop sp = { .auto_stop = 0 };
	char line[512];
	int n;

	test_record(BUF, 1, 5, 12000345678ull, 0, 1, NULL, 24);
	((struct ketw_event_header *)BUF)->process_id = 123;
	((struct ketw_event_header *)BUF)->thread_id = 124;
	ketw_record_iter_init(&it, BUF, 128);
	ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);
	n = ketw_record_format(&r, line, sizeof(line));
	CHECK_STR(line, "cpu=1 ctx=.... ts=12.000345678 pid=123 tid=124 seq=5 guid=6b657477-7361-6d70-6c65-000000000001 type=10 level=INFO ver=2 id=1 kw=0x1 len=24");
	CHECK_EQ(n, strlen(line));
	CHECK_EQ(ketw_sys_payload_format(&r, line, sizeof(line)), 0);
	/* Not valid (an older file's record): no column, whatever the bits. */
	r.context = false;
	((struct ketw_event_header *)BUF)->flags = KETW_RECORD_IRQS_OFF;
	ketw_record_format(&r, line, sizeof(line));
	CHECK_STR(line, "cpu=1 ts=12.000345678 pid=123 tid=124 seq=5 guid=6b657477-7361-6d70-6c65-000000000001 type=10 level=INFO ver=2 id=1 kw=0x1 len=24");
	r.context = true;
	/* Softirq, interrupts on, depth 2: in the column, not in flags=. */
	((struct ketw_event_header *)BUF)->flags =
		KETW_CTX_SOFTIRQ << KETW_RECORD_CTX_SHIFT |
		2 << KETW_RECORD_PREEMPT_SHIFT;
	ketw_record_format(&r, line, sizeof(line));
	CHECK_STR(line, "cpu=1 ctx=..s2 ts=12.000345678 pid=123 tid=124 seq=5 guid=6b657477-7361-6d70-6c65-000000000001 type=10 level=INFO ver=2 id=1 kw=0x1 len=24");

	/* Named type, unknown level, flags, timestamp below a second. */
	((struct ketw_event_header *)BUF)->type = KETW_TYPE_END;
	((struct ketw_event_header *)BUF)->level = 9;
	((struct ketw_event_header *)BUF)->timestamp = 7;
	((struct ketw_event_header *)BUF)->flags = KETW_RECORD_TRUNCATED |
		KETW_CTX_NMI << KETW_RECORD_CTX_SHIFT | KETW_RECORD_IRQS_OFF;
	ketw_record_format(&r, line, sizeof(line));
	CHECK_CONTAINS(line, "cpu=1 ctx=d.z. ts=0.000000007 ");
	CHECK_CONTAINS(line, " type=END level=9 ");
	CHECK_CONTAINS(line, " len=24 flags=TRUNCATED");

	/* A system event: id by name, payload decoded. */
	memset(BUF, 0, 128);
	test_record(BUF, 0, 0, 1, KETW_RECORD_SYSTEM, KETW_SYS_STOP, &sp,
		    sizeof(sp));
	((struct ketw_event_header *)BUF)->type = KETW_TYPE_INFO;
	((struct ketw_event_header *)BUF)->level = 0;
	ketw_record_iter_init(&it, BUF, 128);
	ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);
	ketw_record_format(&r, line, sizeof(line));
	CHECK_CONTAINS(line, " type=INFO level=0 ver=2 id=STOP ");
	CHECK_CONTAINS(line, " len=8 flags=SYSTEM");
	CHECK(ketw_sys_payload_format(&r, line, sizeof(line)) > 0);
	CHECK_STR(line, "explicit stop");

	/* Truncated output: snprintf semantics. */
	n = ketw_record_format(&r, line, 10);
	CHECK(n > 10);
	CHECK_EQ(strlen(line), 9);
}

TEST(hexdump_format)
{
	char *text = NULL;
	size_t size = 0;
	unsigned char data[20];
	unsigned int i;
	FILE *f;

	for (i = 0; i < sizeof(data); i++)
		data[i] = 0x41 + i;
	data[1] = 0x00;
	data[2] = 0x7f;
	f = open_memstream(&text, &size);
	ASSERT(f != NULL);
	CHECK_EQ(ketw_hexdump(f, "    ", data, sizeof(data)), 0);
	CHECK_EQ(ketw_hexdump(f, "", data, 0), 0);	/* nothing at all */
	fclose(f);
	CHECK_STR(text,
		  "    0000  41 00 7f 44 45 46 47 48  49 4a 4b 4c 4d 4e 4f 50  |A..DEFGHIJKLMNOP|\n"
		  "    0010  51 52 53 54                                       |QRST|\n");
	free(text);
}

TEST(parse_numbers)
{
	uint64_t v = 0;

	CHECK_EQ(ketw_parse_u64("0", 10, &v), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(ketw_parse_u64("4096", UINT64_MAX, &v), 0);
	CHECK_EQ(v, 4096);
	CHECK_EQ(ketw_parse_u64("0x10", UINT64_MAX, &v), 0);
	CHECK_EQ(v, 16);
	CHECK_EQ(ketw_parse_u64("0XfF", UINT64_MAX, &v), 0);
	CHECK_EQ(v, 255);
	CHECK_EQ(ketw_parse_u64("010", UINT64_MAX, &v), 0);	/* not octal */
	CHECK_EQ(v, 10);
	CHECK_EQ(ketw_parse_u64("18446744073709551615", UINT64_MAX, &v), 0);
	CHECK_EQ(v, UINT64_MAX);
	CHECK_EQ(ketw_parse_u64("0xffffffffffffffff", UINT64_MAX, &v), 0);
	CHECK_EQ(v, UINT64_MAX);

	v = 77;
	CHECK_EQ(ketw_parse_u64("18446744073709551616", UINT64_MAX, &v),
		 -ERANGE);
	CHECK_EQ(ketw_parse_u64("0x10000000000000000", UINT64_MAX, &v),
		 -ERANGE);
	CHECK_EQ(ketw_parse_u64("11", 10, &v), -ERANGE);
	CHECK_EQ(ketw_parse_u64("", 10, &v), -EINVAL);
	CHECK_EQ(ketw_parse_u64(NULL, 10, &v), -EINVAL);
	CHECK_EQ(ketw_parse_u64("12x", UINT64_MAX, &v), -EINVAL);
	CHECK_EQ(ketw_parse_u64("-1", UINT64_MAX, &v), -EINVAL);
	CHECK_EQ(ketw_parse_u64("+1", UINT64_MAX, &v), -EINVAL);
	CHECK_EQ(ketw_parse_u64(" 1", UINT64_MAX, &v), -EINVAL);
	CHECK_EQ(ketw_parse_u64("1 ", UINT64_MAX, &v), -EINVAL);
	CHECK_EQ(ketw_parse_u64("0x", UINT64_MAX, &v), -EINVAL);
	CHECK_EQ(ketw_parse_u64("0x-1", UINT64_MAX, &v), -EINVAL);
	CHECK_EQ(ketw_parse_u64("0x 1", UINT64_MAX, &v), -EINVAL);
	CHECK_EQ(ketw_parse_u64("1e3", UINT64_MAX, &v), -EINVAL);
	CHECK_EQ(v, 77);	/* untouched on error */
}

TEST(parse_names)
{
	unsigned int v;

	CHECK(!ketw_parse_level("info", &v) && v == KETW_LEVEL_INFO);
	CHECK(!ketw_parse_level("VERBOSE", &v) && v == KETW_LEVEL_VERBOSE);
	CHECK(!ketw_parse_level("critical", &v) && v == KETW_LEVEL_CRITICAL);
	CHECK(!ketw_parse_level("all", &v) && v == KETW_LEVEL_ALL);
	CHECK(!ketw_parse_level("3", &v) && v == KETW_LEVEL_WARNING);
	CHECK(!ketw_parse_level("0", &v) && v == 0);
	CHECK_EQ(ketw_parse_level("6", &v), -ERANGE);
	CHECK_EQ(ketw_parse_level("loud", &v), -EINVAL);
	CHECK_EQ(ketw_parse_level("", &v), -EINVAL);

	CHECK(!ketw_parse_policy("loop", &v) && v == KETW_POLICY_LOOP);
	CHECK(!ketw_parse_policy("until-full", &v) &&
	      v == KETW_POLICY_UNTIL_FULL);
	CHECK(!ketw_parse_policy("flush", &v) && v == KETW_POLICY_FLUSH);
	CHECK_EQ(ketw_parse_policy("sometimes", &v), -EINVAL);
	CHECK_EQ(ketw_parse_policy("1", &v), -EINVAL);

	CHECK(!ketw_parse_clock("mono", &v) && v == KETW_CLOCK_MONO);
	CHECK(!ketw_parse_clock("boot", &v) && v == KETW_CLOCK_BOOT);
	CHECK(!ketw_parse_clock("local", &v) && v == KETW_CLOCK_LOCAL);
	CHECK_EQ(ketw_parse_clock("tai", &v), -EINVAL);
}

TEST(session_names)
{
	char long_name[40];

	CHECK(ketw_session_name_valid("ketw"));
	CHECK(ketw_session_name_valid("a.b-c_D9"));
	CHECK(!ketw_session_name_valid(""));
	CHECK(!ketw_session_name_valid("a b"));
	CHECK(!ketw_session_name_valid("a/b"));
	memset(long_name, 'a', sizeof(long_name));
	long_name[31] = '\0';
	CHECK(ketw_session_name_valid(long_name));
	long_name[31] = 'a';
	long_name[32] = '\0';
	CHECK(!ketw_session_name_valid(long_name));
}

TEST(session_attr_init)
{
	struct ketw_session_attr a;

	memset(&a, 0xff, sizeof(a));
	ketw_session_attr_init(&a, "demo");
	CHECK_EQ(a.size, sizeof(a));
	CHECK(a.size >= KETW_SESSION_ATTR_SIZE_VER0);
	CHECK_STR(a.name, "demo");
	CHECK_EQ(a.buffer_kb, 0);
	CHECK_EQ(a.match_all, 0);
	CHECK_EQ(a.flags, 0);
	/* Control calls on something that is not /dev/ketw fail cleanly. */
	CHECK_EQ(ketw_device_open("/nonexistent/ketw", 0), -ENOENT);
	CHECK_EQ(ketw_session_start(-1, "demo"), -EBADF);
	CHECK_EQ(ketw_session_start(-1, "bad name"), -EINVAL);
}

TEST(sys_payload_format_short_and_names)
{
	struct ketw_record_iter it;
	struct ketw_record r;
	struct ketw_sys_task task = { .process_id = 1, .thread_id = 2 };
	char line[256];

	CHECK_STR(ketw_sys_event_name(KETW_SYS_PROVIDER), "PROVIDER");
	CHECK_STR(ketw_sys_event_name(KETW_SYS_EVENT_DESC), "EVENT_DESC");
	CHECK_STR(ketw_sys_event_name(KETW_SYS_TASK), "TASK");
	CHECK(ketw_sys_event_name(10) == NULL);
	CHECK_STR(ketw_field_type_name(KETW_FIELD_GUID), "guid");
	CHECK(ketw_field_type_name(99) == NULL);
	CHECK_STR(ketw_errno_name(-ETIMEDOUT), "ETIMEDOUT");
	CHECK_STR(ketw_errno_name(EAGAIN), "EAGAIN");
	CHECK_STR(ketw_errno_name(-512), "ERESTARTSYS");
	CHECK(ketw_errno_name(0) == NULL);
	CHECK(ketw_errno_name(-4000) == NULL);

	/* A comm that fills its field: no NUL, no overrun. */
	memset(task.comm, 'x', sizeof(task.comm));
	test_record(BUF, 0, 0, 1, KETW_RECORD_SYSTEM, KETW_SYS_TASK, &task,
		    sizeof(task));
	ketw_record_iter_init(&it, BUF, 128);
	ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);
	CHECK(ketw_sys_payload_format(&r, line, sizeof(line)) > 0);
	CHECK_STR(line, "task pid=1 tid=2 comm=xxxxxxxxxxxxxxxx");
	/* Too short to decode: nothing. */
	test_record(BUF, 0, 0, 1, KETW_RECORD_SYSTEM, KETW_SYS_TASK, &task, 20);
	ketw_record_iter_init(&it, BUF, 128);
	ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);
	CHECK_EQ(ketw_sys_payload_format(&r, line, sizeof(line)), 0);
	/* An ERROR that is not an errno. */
	{
		struct ketw_sys_error e = { .error = 5 };

		test_record(BUF, 0, 0, 1, KETW_RECORD_SYSTEM, KETW_SYS_ERROR,
			    &e, sizeof(e));
		ketw_record_iter_init(&it, BUF, 128);
		ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);
		ketw_sys_payload_format(&r, line, sizeof(line));
		CHECK_STR(line, "error 5 (not an errno)");
		e.error = -3999;
		test_record(BUF, 0, 0, 1, KETW_RECORD_SYSTEM, KETW_SYS_ERROR,
			    &e, sizeof(e));
		ketw_sys_payload_format(&r, line, sizeof(line));
		CHECK_STR(line, "error -3999 (unknown errno)");
	}
	/* A TRIGGER, and STOP by a trigger. */
	{
		struct ketw_sys_trigger tr = {
			.trigger_id = 3, .event_id = 7, .sequence = 41,
			.cpu = 1, .fired = 2, .suppressed = 9,
			.action = KETW_TRIGGER_STOP,
			.provider_guid = { 0x6b, 0x65, [15] = 1 },
		};
		struct ketw_sys_stop st = { .auto_stop = KETW_STOP_TRIGGER };

		test_record(BUF, 0, 0, 1, KETW_RECORD_SYSTEM, KETW_SYS_TRIGGER,
			    &tr, sizeof(tr));
		ketw_record_iter_init(&it, BUF, 128);
		ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);
		ketw_sys_payload_format(&r, line, sizeof(line));
		CHECK_STR(line, "trigger 3 fired (2 times, 9 suppressed before) by 6b650000-0000-0000-0000-000000000001 event 7, cpu 1 seq 41: stop");
		test_record(BUF, 0, 0, 1, KETW_RECORD_SYSTEM, KETW_SYS_TRIGGER,
			    &tr, sizeof(tr) - 1);
		ketw_record_iter_init(&it, BUF, 128);
		ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);
		CHECK_EQ(ketw_sys_payload_format(&r, line, sizeof(line)), 0);
		test_record(BUF, 0, 0, 1, KETW_RECORD_SYSTEM, KETW_SYS_STOP,
			    &st, sizeof(st));
		ketw_record_iter_init(&it, BUF, 128);
		ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);
		ketw_sys_payload_format(&r, line, sizeof(line));
		CHECK_STR(line, "stopped by a trigger");
	}
	/* Cut short: snprintf semantics. */
	test_record(BUF, 0, 0, 1, KETW_RECORD_SYSTEM, KETW_SYS_TASK, &task,
		    sizeof(task));
	ketw_record_iter_init(&it, BUF, 128);
	ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);
	CHECK(ketw_sys_payload_format(&r, line, 10) > 10);
	CHECK_EQ(strlen(line), 9);
}

/* A process filter's FILTER (version 1): before and after, in words. */
TEST(sys_payload_format_filter_pids)
{
	struct {
		struct ketw_sys_filter_pids h;
		uint32_t pids[3];
	} p = {
		.h = { .new_flags = KETW_PIDS_ACTIVE | KETW_PIDS_INHERIT,
		       .new_count = 5, .nr = 3 },
		.pids = { 101, 102, 4000 },
	};
	struct ketw_record_iter it;
	struct ketw_record r;
	char line[256];

	test_record(BUF, 0, 0, 1, KETW_RECORD_SYSTEM, KETW_SYS_FILTER, &p,
		    sizeof(p));
	((struct ketw_event_header *)BUF)->version = KETW_SYS_FILTER_PIDS;
	ketw_record_iter_init(&it, BUF, sizeof(BUF));
	ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);
	CHECK(ketw_sys_payload_format(&r, line, sizeof(line)) > 0);
	CHECK_STR(line, "pids: all -> 101 102 4000 +2 inherit");

	p.h.old_flags = KETW_PIDS_ACTIVE;
	p.h.old_count = 2;
	p.h.new_flags = 0;
	p.h.new_count = 0;
	p.h.nr = 0;
	test_record(BUF, 0, 0, 1, KETW_RECORD_SYSTEM, KETW_SYS_FILTER, &p,
		    sizeof(p.h));
	((struct ketw_event_header *)BUF)->version = KETW_SYS_FILTER_PIDS;
	ketw_record_iter_init(&it, BUF, sizeof(BUF));
	ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);
	ketw_sys_payload_format(&r, line, sizeof(line));
	CHECK_STR(line, "pids: 2 -> all");

	/* nr past the payload: only what is there. */
	p.h.new_flags = KETW_PIDS_ACTIVE;
	p.h.new_count = 3;
	p.h.nr = 200;
	test_record(BUF, 0, 0, 1, KETW_RECORD_SYSTEM, KETW_SYS_FILTER, &p,
		    sizeof(p.h) + 4);
	((struct ketw_event_header *)BUF)->version = KETW_SYS_FILTER_PIDS;
	ketw_record_iter_init(&it, BUF, sizeof(BUF));
	ASSERT_EQ(ketw_record_iter_next(&it, &r), 1);
	ketw_sys_payload_format(&r, line, sizeof(line));
	CHECK_STR(line, "pids: 2 -> 101 +2");
}
