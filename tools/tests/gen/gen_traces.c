// SPDX-License-Identifier: GPL-2.0
/*
 * The viewers' fixtures, written by libketw's writer (make -C tools
 * gen-traces; scripts/tests/viewers-test.sh runs it):
 *
 *   ketw-gen-traces DIR            DIR/fields.ketw, fields-swapped.ketw,
 *                                  other.ketw
 *   ketw-gen-traces --big N FILE   N events for the plot's binning
 *
 * fields.ketw: 2 CPUs; a rundown (two providers, a user one, layouts with
 * every field type, tasks, a module); events of every field type, with
 * negative, extreme and cut values; START/END (types 1 and 2) pairs of
 * one event nested on threads, one START and one END unmatched; an event
 * without a layout; extended data items of every type; losses on both
 * CPUs (OVERFLOW/RESUME pairs and one bare sequence gap) and counters
 * that agree; FILTER, TRIGGER, ERROR, FLUSH_START/STOP, STOP. Its clock
 * reference puts mono 1 s at 2023-11-14 22:13:20 UTC.
 * fields-swapped.ketw: the same from a machine of the other byte order
 * (provider payloads as they were logged). other.ketw: another session,
 * one CPU, its events between those of fields.ketw, for merging.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"

#define NS		1000000000ull
#define CLOCK_REF	(1 * NS)
#define REALTIME_REF	(1700000000ull * NS)

static const uint8_t sample_guid[KETW_GUID_SIZE] = {
	0x6b, 0x65, 0x74, 0x77, 0x73, 0x61, 0x6d, 0x70,
	0x6c, 0x65, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
};
static const uint8_t app_guid[KETW_GUID_SIZE] = {
	0x75, 0x73, 0x65, 0x72, 0x70, 0x72, 0x6f, 0x76,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
};
static const uint8_t third_guid[KETW_GUID_SIZE] = {
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00,
};

static void die(const char *what, int err)
{
	fprintf(stderr, "ketw-gen-traces: %s: %s\n", what,
		strerror(err < 0 ? -err : err));
	exit(1);
}

/* ---- records, gathered per CPU ----------------------------------------- */

struct cpu_buf {
	unsigned char *p;
	size_t len, cap;
	uint64_t seq;		/* the next sequence number */
	uint64_t lost;		/* events lost so far */
};

static struct cpu_buf cpus[2];

static unsigned char *room(struct cpu_buf *c, size_t n)
{
	if (c->len + n > c->cap) {
		c->cap = (c->len + n) * 2;
		c->p = realloc(c->p, c->cap);
		if (!c->p)
			die("realloc", ENOMEM);
	}
	return c->p + c->len;
}

struct rec {
	unsigned int cpu;
	uint64_t ts;
	uint16_t flags;
	uint8_t type, level;
	uint16_t version;
	uint32_t id;
	uint32_t pid, tid;
	uint64_t keyword;
	const uint8_t *guid;		/* NULL: system */
	const void *items;		/* an items area, or NULL */
	size_t items_len;
	const void *payload;
	size_t len;
};

/* Append @r to its CPU with the next sequence number. */
static void put(const struct rec *r)
{
	struct cpu_buf *c = &cpus[r->cpu];
	struct ketw_event_header h = {
		.size = (uint16_t)(KETW_EVENT_HEADER_SIZE + r->items_len + r->len),
		.type = r->type, .level = r->level, .version = r->version,
		.flags = r->flags | (r->items ? KETW_RECORD_EXT : 0) |
			 (r->guid ? 0 : KETW_RECORD_SYSTEM),
		.event_id = r->id, .cpu = r->cpu, .thread_id = r->tid,
		.process_id = r->pid, .sequence = c->seq++,
		.timestamp = r->ts, .keyword = r->keyword,
	};
	size_t span = KETW_RECORD_SPAN(h.size);
	unsigned char *p = room(c, span);

	if (r->guid)
		memcpy(h.provider_guid, r->guid, KETW_GUID_SIZE);
	memset(p, 0, span);
	memcpy(p, &h, sizeof(h));
	if (r->items)
		memcpy(p + sizeof(h), r->items, r->items_len);
	if (r->len)
		memcpy(p + sizeof(h) + r->items_len, r->payload, r->len);
	c->len += span;
}

static void sys(unsigned int cpu, uint64_t ts, uint32_t id, uint8_t type,
		const void *payload, size_t len)
{
	struct rec r = {
		.cpu = cpu, .ts = ts, .id = id, .type = type,
		.payload = payload, .len = len,
	};

	put(&r);
}

/* @n events lost on @cpu before the next record, then (@pair) OVERFLOW and RESUME. */
static void lose(unsigned int cpu, uint64_t first_ts, uint64_t ts,
		 unsigned int n, bool pair)
{
	struct ketw_sys_overflow o = { .first_lost_timestamp = first_ts };
	struct ketw_sys_resume r = { .lost = n };

	cpus[cpu].seq += n;
	cpus[cpu].lost += n;
	if (!pair)
		return;
	sys(cpu, ts, KETW_SYS_OVERFLOW, KETW_TYPE_INFO, &o, sizeof(o));
	sys(cpu, ts, KETW_SYS_RESUME, KETW_TYPE_INFO, &r, sizeof(r));
}

/* ---- the rundown ----------------------------------------------------------- */

static void provider(uint64_t ts, const uint8_t *guid, const char *name,
		     uint32_t nr, uint32_t flags)
{
	struct ketw_sys_provider p = { .nr_events = nr, .flags = flags };

	memcpy(p.provider_guid, guid, KETW_GUID_SIZE);
	snprintf(p.name, sizeof(p.name), "%s", name);
	sys(0, ts, KETW_SYS_PROVIDER, KETW_TYPE_DC_START, &p, sizeof(p));
}

struct fdesc {
	const char *name;
	uint16_t type, offset, size;
};

static void event_desc(uint64_t ts, const uint8_t *guid, uint32_t id,
		       const char *name, uint8_t type, uint8_t level,
		       uint16_t version, uint64_t kw, uint32_t flags,
		       const struct fdesc *f, unsigned int nr)
{
	struct ketw_event_info e = {
		.id = id, .type = type, .level = level, .version = version,
		.keyword = kw, .nr_fields = nr, .flags = flags,
	};
	unsigned int i;

	memcpy(e.provider_guid, guid, KETW_GUID_SIZE);
	snprintf(e.name, sizeof(e.name), "%s", name);
	for (i = 0; i < nr; i++) {
		snprintf(e.fields[i].name, sizeof(e.fields[i].name), "%s",
			 f[i].name);
		e.fields[i].type = f[i].type;
		e.fields[i].offset = f[i].offset;
		e.fields[i].size = f[i].size;
	}
	sys(0, ts, KETW_SYS_EVENT_DESC, KETW_TYPE_DC_START, &e, sizeof(e));
}

static void task(uint64_t ts, uint32_t pid, uint32_t tid, const char *comm)
{
	struct ketw_sys_task t = { .process_id = pid, .thread_id = tid };

	snprintf(t.comm, sizeof(t.comm), "%s", comm);
	sys(0, ts, KETW_SYS_TASK, KETW_TYPE_DC_START, &t, sizeof(t));
}

/* "all": every field type. */
struct all {
	uint8_t u8;
	int8_t s8;
	uint16_t u16;
	int16_t s16;
	uint8_t pad0[2];
	uint32_t u32;
	int32_t s32;
	uint64_t u64;
	int64_t s64;
	uint32_t h32;
	uint8_t pad1[4];
	uint64_t h64;
	uint8_t id[16];
	char str[16];
	uint8_t bin[4];
	uint16_t odd;		/* a U32 field of size 2: shown as bytes */
	uint8_t pad2[2];
	/* then "tail": BINARY to the payload's end, and "text": STRING */
};

#define F(n, t, m) { n, t, offsetof(struct all, m), sizeof(((struct all *)0)->m) }

static const struct fdesc all_fields[] = {
	F("u8", KETW_FIELD_U8, u8),
	F("s8", KETW_FIELD_S8, s8),
	F("u16", KETW_FIELD_U16, u16),
	F("s16", KETW_FIELD_S16, s16),
	F("u32", KETW_FIELD_U32, u32),
	F("s32", KETW_FIELD_S32, s32),
	F("u64", KETW_FIELD_U64, u64),
	F("s64", KETW_FIELD_S64, s64),
	F("h32", KETW_FIELD_HEX32, h32),
	F("h64", KETW_FIELD_HEX64, h64),
	F("id", KETW_FIELD_GUID, id),
	F("str", KETW_FIELD_STRING, str),
	F("bin", KETW_FIELD_BINARY, bin),
	{ "odd", KETW_FIELD_U32, offsetof(struct all, odd), 2 },
	{ "tail", KETW_FIELD_BINARY, sizeof(struct all), 0 },
};

#undef F

struct tick {
	uint32_t index;
	uint32_t magic;
	uint64_t value;
};

static const struct fdesc tick_fields[] = {
	{ "index", KETW_FIELD_U32, 0, 4 },
	{ "magic", KETW_FIELD_HEX32, 4, 4 },
	{ "value", KETW_FIELD_U64, 8, 8 },
	{ "tail", KETW_FIELD_BINARY, 16, 0 },
};

static const struct fdesc request_fields[] = {
	{ "req", KETW_FIELD_U32, 0, 4 },
	{ "what", KETW_FIELD_STRING, 4, 0 },
};

static const struct fdesc text_fields[] = {
	{ "text", KETW_FIELD_STRING, 0, 0 },
};

static void rundown(uint64_t ts)
{
	struct ketw_sys_start st = {
		.level = KETW_LEVEL_VERBOSE, .match_any = 0xff,
	};
	struct ketw_sys_module m = {
		.name = "vmlinux", .base = 0xffffffff81000000ull,
		.size = 0x2000000,
	};

	sys(0, ts, KETW_SYS_START, KETW_TYPE_INFO, &st, sizeof(st));
	provider(ts + 1, sample_guid, "ketw-sample", 4, 0);
	provider(ts + 2, app_guid, "gen-app", 1, KETW_PROVIDER_USER);
	provider(ts + 3, third_guid, "third", 1, 0);
	event_desc(ts + 4, sample_guid, 1, "tick", KETW_TYPE_INFO,
		   KETW_LEVEL_INFO, 2, 0x1, 0, tick_fields, 4);
	event_desc(ts + 5, sample_guid, 3, "all", 11, KETW_LEVEL_VERBOSE, 1,
		   0x8, 0, all_fields,
		   sizeof(all_fields) / sizeof(all_fields[0]));
	event_desc(ts + 6, sample_guid, 10, "request", KETW_TYPE_START,
		   KETW_LEVEL_INFO, 1, 0x2, 0, request_fields, 2);
	event_desc(ts + 7, app_guid, 4, "text", KETW_TYPE_INFO,
		   KETW_LEVEL_WARNING, 0, 0, KETW_PROVIDER_USER, text_fields,
		   1);
	event_desc(ts + 8, third_guid, 1, "ping", KETW_TYPE_INFO,
		   KETW_LEVEL_INFO, 2, 0x1, 0, tick_fields, 1);
	task(ts + 9, 1, 1, "init");
	task(ts + 10, 100, 100, "server");
	task(ts + 11, 100, 101, "worker");
	task(ts + 12, 200, 200, "client");
	sys(0, ts + 13, KETW_SYS_MODULE, KETW_TYPE_DC_START, &m, sizeof(m));
}

/* ---- provider events ------------------------------------------------------- */

static void ev(unsigned int cpu, uint64_t ts, const uint8_t *guid, uint32_t id,
	       uint8_t type, uint16_t version, uint32_t pid, uint32_t tid,
	       const void *payload, size_t len)
{
	struct rec r = {
		.cpu = cpu, .ts = ts, .guid = guid, .id = id, .type = type,
		.level = KETW_LEVEL_INFO, .version = version, .pid = pid,
		.tid = tid, .keyword = 0x1, .payload = payload, .len = len,
	};

	put(&r);
}

static void all_event(unsigned int cpu, uint64_t ts, int k, size_t cut)
{
	unsigned char buf[sizeof(struct all) + 8];
	struct all a;

	memset(&a, 0, sizeof(a));
	a.u8 = (uint8_t)(200 + k);
	a.s8 = (int8_t)(-5 - k);
	a.u16 = (uint16_t)(65535 - k);
	a.s16 = (int16_t)(-300 * (k + 1));
	a.u32 = 4000000000u + (uint32_t)k;
	a.s32 = -70000 * (k + 1);
	a.u64 = 18446744073709551615ull - (uint64_t)k;
	a.s64 = k ? -9223372036854775807ll - 1 : -1;
	a.h32 = 0xdeadbeefu;
	a.h64 = 0xdeadbeef00c0ffeeull + (uint64_t)k;
	memcpy(a.id, sample_guid, 16);
	a.id[15] = (uint8_t)k;
	snprintf(a.str, sizeof(a.str), "s%d \"q\" \\", k);
	memcpy(a.bin, "\xde\xad\xbe\xef", 4);
	a.odd = 0x0201;
	memcpy(buf, &a, sizeof(a));
	memcpy(buf + sizeof(a), "\x01\x02\x03", 3);
	struct rec r = {
		.cpu = cpu, .ts = ts, .guid = sample_guid, .id = 3, .type = 11,
		.level = KETW_LEVEL_VERBOSE, .version = 1, .pid = 100,
		.tid = 101, .keyword = 0x8, .payload = buf,
		.len = cut ? cut : sizeof(a) + 3,
		.flags = cut ? KETW_RECORD_TRUNCATED : 0,
	};

	put(&r);
}

static void tick(unsigned int cpu, uint64_t ts, uint32_t index,
		 const void *items, size_t items_len)
{
	unsigned char buf[sizeof(struct tick) + 3];
	struct tick t = { .index = index, .magic = 0x6b657477,
			  .value = 10ull * index };
	struct rec r = {
		.cpu = cpu, .ts = ts, .guid = sample_guid, .id = 1,
		.type = KETW_TYPE_INFO, .level = KETW_LEVEL_INFO, .version = 2,
		.pid = 100, .tid = 100, .keyword = 0x1, .items = items,
		.items_len = items_len, .payload = buf,
		.len = sizeof(t) + index % 4,
	};

	memcpy(buf, &t, sizeof(t));
	memcpy(buf + sizeof(t), "\x03\x04\x05", 3);
	put(&r);
}

/* A "request" START (1) or END (2) of @req on @tid. */
static void request(unsigned int cpu, uint64_t ts, uint8_t type,
		    uint32_t pid, uint32_t tid, uint32_t req, const char *what)
{
	unsigned char buf[64];
	size_t n = strlen(what) + 1;

	memcpy(buf, &req, 4);
	memcpy(buf + 4, what, n);
	ev(cpu, ts, sample_guid, 10, type, 1, pid, tid, buf, 4 + n);
}

/* An items area of every type: returns its length. */
static size_t items_all(unsigned char *p, unsigned int k)
{
	uint64_t stack[3] = { 0xffffffff81001000ull + k, 0xffffffff81002000ull,
			      0xffffffff81003000ull };
	uint64_t ustack[2] = { 0x401000 + k, 0x402000 };
	struct ketw_ext_cpu_time t = { 4000000 + k, 8000000, 12345 + k };
	uint64_t pa = 0xffffffff81004000ull;
	struct ketw_ext_pid_ns ns = { 7, 8 + k, 4026531836ull };
	struct ketw_ext_activity a;
	struct ketw_ext_header eh = { .count = 6 };
	struct {
		unsigned int type;
		const void *d;
		size_t n;
	} it[] = {
		{ KETW_EXT_KSTACK, stack, sizeof(stack) },
		{ KETW_EXT_USTACK, ustack, sizeof(ustack) },
		{ KETW_EXT_CPU_TIME, &t, sizeof(t) },
		{ KETW_EXT_PROG_ADDR, &pa, sizeof(pa) },
		{ KETW_EXT_PID_NS, &ns, sizeof(ns) },
		{ KETW_EXT_ACTIVITY, &a, sizeof(a) },
	};
	size_t off = sizeof(eh), i;

	memset(&a, 0, sizeof(a));
	memcpy(a.activity, app_guid, 16);
	a.activity[15] = (uint8_t)(k + 1);
	memcpy(a.related, sample_guid, 16);
	memset(p, 0, 512);
	for (i = 0; i < sizeof(it) / sizeof(it[0]); i++) {
		struct ketw_ext_item x = { .type = (uint16_t)it[i].type,
					   .size = (uint16_t)it[i].n };

		memcpy(p + off, &x, sizeof(x));
		memcpy(p + off + sizeof(x), it[i].d, it[i].n);
		off += KETW_EXT_ITEM_SPAN(it[i].n);
	}
	eh.size = (uint16_t)off;
	memcpy(p, &eh, sizeof(eh));
	return off;
}

/* ---- files ---------------------------------------------------------------- */

static void info_init(struct ketw_output_info *info, const char *session,
		      unsigned int nr_cpus)
{
	memset(info, 0, sizeof(*info));
	snprintf(info->session.name, sizeof(info->session.name), "%s",
		 session);
	info->session.buffer_kb = 64;
	info->session.policy = KETW_POLICY_FLUSH;
	info->session.max_data_size = 512;
	info->session.clock = KETW_CLOCK_MONO;
	info->session.level = KETW_LEVEL_VERBOSE;
	info->session.state = KETW_STATE_SUSPENDED;
	info->session.creation_time = REALTIME_REF - NS;
	info->session.clock_resolution = 1;
	info->session.nr_cpus = nr_cpus;
	info->nr_cpus = nr_cpus;
	info->clock = KETW_CLOCK_MONO;
	info->creation_time = REALTIME_REF + 10 * NS;
	snprintf(info->hostname, sizeof(info->hostname), "genhost");
	snprintf(info->release, sizeof(info->release), "6.1.0-gen");
	snprintf(info->machine, sizeof(info->machine), "x86_64");
}

/* Write the gathered records of @nr CPUs, counters that agree, END. */
static void write_file(const char *path, const char *session,
		       unsigned int nr)
{
	struct ketw_cpu_stats st[2];
	struct ketw_output_info info;
	struct ketw_output *o;
	unsigned int cpu;
	int err;

	info_init(&info, session, nr);
	err = ketw_output_create_ref(path, &info, CLOCK_REF, REALTIME_REF, &o);
	if (err)
		die(path, err);
	memset(st, 0, sizeof(st));
	for (cpu = 0; cpu < nr; cpu++) {
		if (cpus[cpu].len) {
			err = ketw_output_add_records(o, cpu, cpus[cpu].p,
						      cpus[cpu].len);
			if (err)
				die(path, err);
		}
		st[cpu].cpu = cpu;
		st[cpu].sequence = cpus[cpu].seq;
		st[cpu].lost_full = cpus[cpu].lost;
		st[cpu].written = cpus[cpu].seq - cpus[cpu].lost;
		st[cpu].read = st[cpu].written;
		free(cpus[cpu].p);
		memset(&cpus[cpu], 0, sizeof(cpus[cpu]));
	}
	err = ketw_output_add_stats(o, st, NULL, nr);
	if (!err)
		err = ketw_output_close(o);
	if (err)
		die(path, err);
}

static void fields_trace(const char *path)
{
	struct ketw_sys_filter flt = { .old_filter = { .enabled = 1 },
				       .new_filter = { .enabled = 1,
						       .level = 3,
						       .match_any = 0x6 } };
	struct ketw_sys_trigger trig = {
		.trigger_id = 1, .event_id = 3, .sequence = 9, .cpu = 0,
		.fired = 1, .action = KETW_TRIGGER_SNAPSHOT,
	};
	struct ketw_sys_error error = { .error = -ETIMEDOUT };
	struct ketw_sys_stop stop = { .auto_stop = KETW_STOP_EXPLICIT };
	unsigned char items[512];
	uint64_t t = CLOCK_REF;
	size_t n;
	int k;

	rundown(t);
	memcpy(flt.provider_guid, sample_guid, 16);
	memcpy(trig.provider_guid, sample_guid, 16);
	t += 1000;

	/* Every field type, both CPUs. */
	for (k = 0; k < 3; k++) {
		all_event(0, t + 100 * k, k, 0);
		all_event(1, t + 100 * k + 50, k + 3, 0);
	}
	all_event(0, t + 400, 7, 30);	/* cut: u64 on past the end */
	t += 1000;

	/* Ticks with items, and without. */
	for (k = 0; k < 4; k++) {
		n = items_all(items, (unsigned int)k);
		tick(k & 1, t + 100 * k, (uint32_t)k, k < 2 ? items : NULL,
		     k < 2 ? n : 0);
	}
	t += 1000;

	/* Requests: nested pairs on 101, one on 200, unmatched ones. */
	request(0, t, KETW_TYPE_START, 100, 101, 1, "outer");
	request(0, t + 100, KETW_TYPE_START, 100, 101, 2, "inner");
	request(1, t + 150, KETW_TYPE_START, 200, 200, 3, "call");
	request(0, t + 300, KETW_TYPE_END, 100, 101, 2, "inner");
	request(1, t + 450, KETW_TYPE_END, 200, 200, 3, "call");
	request(0, t + 600, KETW_TYPE_END, 100, 101, 1, "outer");
	request(1, t + 700, KETW_TYPE_END, 200, 200, 9, "no start");
	request(0, t + 800, KETW_TYPE_START, 100, 100, 4, "no end");
	t += 1000;

	/* No layout; a user provider; a third provider. */
	ev(0, t, sample_guid, 9, 10, 1, 100, 100, "ninebytes", 9);
	{
		struct rec r = {
			.cpu = 1, .ts = t + 10, .guid = app_guid, .id = 4,
			.type = KETW_TYPE_INFO, .level = KETW_LEVEL_WARNING,
			.pid = 200, .tid = 200, .flags = KETW_RECORD_USER,
			.payload = "from user space", .len = 16,
		};

		put(&r);
	}
	{
		uint32_t idx = 6;

		ev(1, t + 20, third_guid, 1, 10, 2, 200, 200, &idx, 4);
	}
	t += 1000;

	/* Losses: pairs on both CPUs, a bare gap on CPU 0. */
	tick(0, t, 10, NULL, 0);
	lose(0, t + 100, t + 500, 5, true);
	tick(0, t + 500, 11, NULL, 0);
	tick(0, t + 600, 12, NULL, 0);
	tick(1, t + 50, 20, NULL, 0);
	lose(1, t + 150, t + 700, 7, true);
	tick(1, t + 700, 21, NULL, 0);
	lose(1, t + 750, t + 900, 3, true);
	tick(1, t + 900, 22, NULL, 0);
	tick(1, t + 950, 23, NULL, 0);
	lose(0, 0, 0, 2, false);
	tick(0, t + 980, 13, NULL, 0);
	t += 1000;

	sys(0, t, KETW_SYS_FILTER, KETW_TYPE_INFO, &flt, sizeof(flt));
	sys(0, t + 10, KETW_SYS_TRIGGER, KETW_TYPE_INFO, &trig, sizeof(trig));
	sys(1, t + 20, KETW_SYS_ERROR, KETW_TYPE_INFO, &error, sizeof(error));
	sys(0, t + 30, KETW_SYS_FLUSH_START, KETW_TYPE_INFO, NULL, 0);
	sys(0, t + 40, KETW_SYS_FLUSH_STOP, KETW_TYPE_INFO, NULL, 0);
	sys(0, t + 100, KETW_SYS_STOP, KETW_TYPE_INFO, &stop, sizeof(stop));
	write_file(path, "fields", 2);
}

/* Another session's file, one CPU, its events between those above. */
static void other_trace(const char *path)
{
	uint64_t t = CLOCK_REF + 25;
	int k;

	rundown(t);
	for (k = 0; k < 20; k++)
		tick(0, t + 1000 + 250 * k + 25, (uint32_t)(100 + k), NULL, 0);
	write_file(path, "other", 1);
}

static void swapped_copy(const char *from, const char *to)
{
	static unsigned char img[1 << 20];
	size_t len;
	FILE *f;

	f = fopen(from, "rb");
	if (!f)
		die(from, errno);
	len = fread(img, 1, sizeof(img), f);
	fclose(f);
	if (len == sizeof(img))
		die(from, EFBIG);
	test_swap_file(img, len);
	f = fopen(to, "wb");
	if (!f || fwrite(img, 1, len, f) != len || fclose(f))
		die(to, errno);
}

/*
 * @n events on 2 CPUs over about 10 s: three providers, request pairs,
 * 1000 events lost every 50000, on each CPU in turn; records go out a
 * CPU's 64 KiB at a time (flat memory).
 */
static void big_trace(const char *path, uint64_t n)
{
	struct ketw_output_info info;
	struct ketw_output *o;
	uint64_t i, t = CLOCK_REF + 1000, step;
	unsigned int cpu;
	int err;

	info_init(&info, "big", 2);
	err = ketw_output_create_ref(path, &info, CLOCK_REF, REALTIME_REF, &o);
	if (err)
		die(path, err);
	rundown(CLOCK_REF);
	step = n ? 10 * NS / n : 1;
	if (!step)
		step = 1;
	for (i = 0; i < n; i++, t += step) {
		cpu = (unsigned int)(i & 1);
		/* CPU 0's and CPU 1's turns: before an even, an odd record. */
		if (i % 50000 == 49998 + (i / 50000) % 2)
			lose(cpu, t - step / 2, t, 1000, true);
		switch (i % 5) {
		case 0:
			request(cpu, t, KETW_TYPE_START, 100, 101 + cpu,
				(uint32_t)i, "r");
			break;
		case 2:
			request(cpu, t, KETW_TYPE_END, 100, 101 + cpu,
				(uint32_t)(i - 2), "r");
			break;
		case 3: {
			uint32_t idx = (uint32_t)i;

			ev(cpu, t, third_guid, 1, 10, 2, 200, 200, &idx, 4);
			break;
		}
		default:
			tick(cpu, t, (uint32_t)i, NULL, 0);
		}
		/* Out as they come, a CPU's buffer at a time. */
		for (cpu = 0; cpu < 2; cpu++) {
			if (cpus[cpu].len < 65536 && i + 1 < n)
				continue;
			err = ketw_output_add_records(o, cpu, cpus[cpu].p,
						      cpus[cpu].len);
			if (err)
				die(path, err);
			cpus[cpu].len = 0;
		}
	}
	{
		struct ketw_cpu_stats st[2];

		memset(st, 0, sizeof(st));
		for (cpu = 0; cpu < 2; cpu++) {
			st[cpu].cpu = cpu;
			st[cpu].sequence = cpus[cpu].seq;
			st[cpu].lost_full = cpus[cpu].lost;
			st[cpu].written = cpus[cpu].seq - cpus[cpu].lost;
		}
		err = ketw_output_add_stats(o, st, NULL, 2);
	}
	if (!err)
		err = ketw_output_close(o);
	if (err)
		die(path, err);
}

int main(int argc, char **argv)
{
	char a[4096], b[4096];

	if (argc == 4 && !strcmp(argv[1], "--big")) {
		big_trace(argv[3], strtoull(argv[2], NULL, 0));
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: ketw-gen-traces DIR | --big N FILE\n");
		return 2;
	}
	snprintf(a, sizeof(a), "%s/fields.ketw", argv[1]);
	fields_trace(a);
	snprintf(b, sizeof(b), "%s/fields-swapped.ketw", argv[1]);
	swapped_copy(a, b);
	snprintf(a, sizeof(a), "%s/other.ketw", argv[1]);
	other_trace(a);
	return 0;
}
