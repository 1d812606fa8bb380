// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the seed corpora of the fuzzers (make -C tools/fuzz corpus):
 *
 *   corpus/file_reader/      small .ketw files from libketw's writer: system
 *                            events, a rundown, statistics, an unknown
 *                            section, an empty trace, and one of the other
 *                            byte order
 *   corpus/template_parse/   template files: each construct, a whole file
 *   corpus/template_eval/    template text, a NUL, a payload
 *   corpus/frame_decoder/    a piece size, then stream frames: clean, with
 *                            junk, stuffed bytes, damage and a cut
 *
 *   gen_corpus DIR
 */
#include <byteswap.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "libketw.h"

static const char *dir;
static const uint8_t guid[KETW_GUID_SIZE] = {
	0x6b, 0x65, 0x74, 0x77, 0x73, 0x61, 0x6d, 0x70,
	0x6c, 0x65, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
};

static void die(const char *what, int err)
{
	fprintf(stderr, "gen_corpus: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static const char *path_of(const char *sub, const char *name)
{
	static char p[1024];

	snprintf(p, sizeof(p), "%s/%s", dir, sub);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%s/%s", dir, sub, name);
	return p;
}

static void spit(const char *sub, const char *name, const void *a,
		 size_t alen, const void *b, size_t blen)
{
	const char *p = path_of(sub, name);
	FILE *f = fopen(p, "w");

	if (!f || fwrite(a, 1, alen, f) != alen ||
	    (blen && fwrite(b, 1, blen, f) != blen) || fclose(f))
		die(p, errno);
}

/* ---- .ketw files ---- */

static _Alignas(8) unsigned char recs[2][8192];
static size_t nrecs[2];

static void record(unsigned int cpu, uint64_t seq, uint64_t ts,
		   uint16_t flags, uint32_t id, const void *payload,
		   size_t len)
{
	struct ketw_event_header h = {
		.size = (uint16_t)(KETW_EVENT_HEADER_SIZE + len),
		.type = 10, .level = KETW_LEVEL_INFO, .version = 1,
		.flags = flags, .event_id = id, .cpu = cpu,
		.thread_id = 100 + cpu, .process_id = 100, .sequence = seq,
		.timestamp = ts, .keyword = 1,
	};
	unsigned char *p = recs[cpu] + nrecs[cpu];
	size_t span = KETW_RECORD_SPAN(h.size);

	if (!(flags & KETW_RECORD_SYSTEM))
		memcpy(h.provider_guid, guid, KETW_GUID_SIZE);
	memset(p, 0, span);
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), payload, len);
	nrecs[cpu] += span;
}

static size_t item(unsigned char *p, size_t off, uint16_t type,
		   const void *d, uint16_t size)
{
	struct ketw_ext_item it = { .type = type, .size = size };

	memcpy(p + off, &it, sizeof(it));
	memcpy(p + off + sizeof(it), d, size);
	return off + KETW_EXT_ITEM_SPAN((size_t)size);
}

/* An items area (every type, one unknown) followed by @len bytes. */
static size_t items_area(unsigned char *p, const void *payload, size_t len)
{
	static const uint64_t stack[2] = { 0xffffffffc0000010ull,
					   0xffffffff81000020ull };
	static const uint64_t ustack[1] = { 0x401000 };
	static const struct ketw_ext_cpu_time t = { 4000000, 8000000, 12345 };
	static const uint64_t pa = 0xffffffffc0000010ull;
	static const struct ketw_ext_pid_ns ns = { 1, 1, 4026532001ull };
	static const struct ketw_ext_activity a = {
		.activity = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
			      15, 16 },
	};
	struct ketw_ext_header eh = { .count = 7 };
	size_t off = sizeof(eh);

	memset(p, 0, 1024);
	off = item(p, off, KETW_EXT_KSTACK, stack, sizeof(stack));
	off = item(p, off, KETW_EXT_USTACK, ustack, sizeof(ustack));
	off = item(p, off, KETW_EXT_CPU_TIME, &t, sizeof(t));
	off = item(p, off, KETW_EXT_PROG_ADDR, &pa, sizeof(pa));
	off = item(p, off, KETW_EXT_PID_NS, &ns, sizeof(ns));
	off = item(p, off, KETW_EXT_ACTIVITY, &a, sizeof(a));
	off = item(p, off, 40, "abc", 3);
	eh.size = (uint16_t)off;
	memcpy(p, &eh, sizeof(eh));
	memcpy(p + off, payload, len);
	return off + len;
}

static void info_init(struct ketw_output_info *info, unsigned int nr_cpus)
{
	memset(info, 0, sizeof(*info));
	strcpy(info->session.name, "fuzz");
	info->session.buffer_kb = 64;
	info->session.policy = KETW_POLICY_LOOP;
	info->session.max_data_size = 512;
	info->session.clock = KETW_CLOCK_MONO;
	info->session.nr_cpus = nr_cpus;
	info->nr_cpus = nr_cpus;
	info->clock = KETW_CLOCK_MONO;
	info->creation_time = 1;
	strcpy(info->hostname, "h");
	strcpy(info->release, "r");
	strcpy(info->machine, "m");
}

static void write_trace(const char *name, unsigned int nr_cpus, bool stats,
			bool unknown)
{
	struct ketw_cpu_stats st[2] = { { 0 } };
	struct ketw_output_info info;
	struct ketw_output *o;
	const char *p = path_of("file_reader", name);
	unsigned int cpu;
	int err;

	info_init(&info, nr_cpus);
	err = ketw_output_create(p, &info, &o);
	if (err)
		die(p, err);
	for (cpu = 0; cpu < nr_cpus; cpu++)
		if (nrecs[cpu]) {
			err = ketw_output_add_records(o, cpu, recs[cpu],
						      nrecs[cpu]);
			if (err)
				die(p, err);
		}
	if (unknown) {
		err = ketw_output_section_begin(o, 99, 0);
		if (!err)
			err = ketw_output_write(o, "unknown", 7);
		if (!err)
			err = ketw_output_section_end(o);
		if (err)
			die(p, err);
	}
	if (stats) {
		for (cpu = 0; cpu < nr_cpus; cpu++) {
			st[cpu].cpu = cpu;
			st[cpu].written = 10 + cpu;
			st[cpu].lost_full = 1;
			st[cpu].sequence = 12;
		}
		err = ketw_output_add_stats(o, st, NULL, nr_cpus);
		if (err)
			die(p, err);
	}
	err = ketw_output_close(o);
	if (err)
		die(p, err);
	memset(nrecs, 0, sizeof(nrecs));
}

/*
 * The same file as the other byte order would write it: every field the
 * format defines swapped (payloads of system events too), provider
 * payloads as they are.
 */
static void swap_sys_payload(uint32_t id, unsigned char *d, size_t len)
{
	uint32_t v32;
	uint64_t v64;
	size_t i;

	switch (id) {
	case KETW_SYS_START:	/* u32 u32 u64 u64 */
	case KETW_SYS_STOP:
	case KETW_SYS_ERROR:
		for (i = 0; i + 4 <= len && i < 8; i += 4) {
			memcpy(&v32, d + i, 4);
			v32 = bswap_32(v32);
			memcpy(d + i, &v32, 4);
		}
		for (i = 8; i + 8 <= len && i < 24; i += 8) {
			memcpy(&v64, d + i, 8);
			v64 = bswap_64(v64);
			memcpy(d + i, &v64, 8);
		}
		break;
	case KETW_SYS_OVERFLOW:
	case KETW_SYS_RESUME:
		if (len >= 8) {
			memcpy(&v64, d, 8);
			v64 = bswap_64(v64);
			memcpy(d, &v64, 8);
		}
		break;
	}
}

static void write_swapped(const char *from, const char *name)
{
	struct ketw_file_header h;
	struct ketw_file_section s;
	struct ketw_event_header *r;
	unsigned char *buf;
	size_t len, off, roff, end, span;
	uint32_t v32;
	FILE *f;

	f = fopen(path_of("file_reader", from), "r");
	if (!f)
		die(from, errno);
	buf = malloc(1 << 20);
	len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	memcpy(&h, buf, sizeof(h));
	for (off = 0; off < 6 * 4; off += 4) {	/* magic .. clock */
		if (off == 4) {		/* two u16 */
			uint16_t v[2];

			memcpy(v, buf + 4, 4);
			v[0] = bswap_16(v[0]);
			v[1] = bswap_16(v[1]);
			memcpy(buf + 4, v, 4);
			continue;
		}
		memcpy(&v32, buf + off, 4);
		v32 = bswap_32(v32);
		memcpy(buf + off, &v32, 4);
	}
	{
		struct ketw_file_header *x = (void *)buf;

		x->creation_time = bswap_64(x->creation_time);
		x->session.buffer_kb = bswap_32(x->session.buffer_kb);
		x->session.policy = bswap_32(x->session.policy);
		x->session.max_data_size = bswap_32(x->session.max_data_size);
		x->session.clock = bswap_32(x->session.clock);
		x->session.level = bswap_32(x->session.level);
		x->session.state = bswap_32(x->session.state);
		x->session.match_any = bswap_64(x->session.match_any);
		x->session.match_all = bswap_64(x->session.match_all);
		x->session.creation_time = bswap_64(x->session.creation_time);
		x->session.clock_resolution =
			bswap_32(x->session.clock_resolution);
		x->session.nr_cpus = bswap_32(x->session.nr_cpus);
	}
	for (off = h.header_size; off + sizeof(s) <= len;) {
		memcpy(&s, buf + off, sizeof(s));
		end = off + sizeof(s) + s.length;
		if (s.type == KETW_SECTION_CPU_RECORDS) {
			memcpy(&v32, buf + off + sizeof(s), 4);
			v32 = bswap_32(v32);
			memcpy(buf + off + sizeof(s), &v32, 4);
			for (roff = off + sizeof(s) + 8; roff < end; roff += span) {
				r = (void *)(buf + roff);
				span = KETW_RECORD_SPAN(r->size);
				if (r->flags & KETW_RECORD_SYSTEM)
					swap_sys_payload(r->event_id,
							 buf + roff + sizeof(*r),
							 r->size - sizeof(*r));
				r->size = bswap_16(r->size);
				r->version = bswap_16(r->version);
				r->flags = bswap_16(r->flags);
				r->event_id = bswap_32(r->event_id);
				r->cpu = bswap_32(r->cpu);
				r->thread_id = bswap_32(r->thread_id);
				r->process_id = bswap_32(r->process_id);
				r->sequence = bswap_64(r->sequence);
				r->timestamp = bswap_64(r->timestamp);
				r->keyword = bswap_64(r->keyword);
			}
		} else if (s.type == KETW_SECTION_CPU_STATS) {
			struct ketw_file_stats fs;
			size_t e, k;

			memcpy(&fs, buf + off + sizeof(s), sizeof(fs));
			for (e = 0; e < fs.nr_entries; e++) {
				unsigned char *p = buf + off + sizeof(s) +
						   sizeof(fs) + e * fs.entry_size;

				for (k = 0; k < 8; k += 4) {
					memcpy(&v32, p + k, 4);
					v32 = bswap_32(v32);
					memcpy(p + k, &v32, 4);
				}
				for (k = 8; k < fs.entry_size; k += 8) {
					uint64_t v64;

					memcpy(&v64, p + k, 8);
					v64 = bswap_64(v64);
					memcpy(p + k, &v64, 8);
				}
			}
			fs.nr_entries = bswap_32(fs.nr_entries);
			fs.entry_size = bswap_32(fs.entry_size);
			memcpy(buf + off + sizeof(s), &fs, sizeof(fs));
		}
		s.type = bswap_32(s.type);
		s.flags = bswap_32(s.flags);
		s.length = bswap_64(s.length);
		memcpy(buf + off, &s, sizeof(s));
		off = (end + 7) & ~(size_t)7;
	}
	spit("file_reader", name, buf, len, NULL, 0);
	free(buf);
}

static void traces(void)
{
	struct ketw_sys_start start = { .level = 5, .match_any = 0xf };
	struct ketw_sys_stop stop = { .auto_stop = 1 };
	struct ketw_sys_overflow ovf = { .first_lost_timestamp = 250 };
	struct ketw_sys_resume res = { .lost = 2 };
	struct ketw_sys_error error = { .error = -ETIMEDOUT };
	struct ketw_sys_provider prov = { .nr_events = 2 };
	struct ketw_sys_task task = { .process_id = 100, .thread_id = 101 };
	struct ketw_event_info ev = { .id = 1, .type = 10, .level = 4,
				      .version = 1, .nr_fields = 2 };
	static struct ketw_sys_filter flt;
	static const unsigned char p1[] = {
		7, 0, 0, 0, 'a', 'b', 0, 1, 0x34, 0x12,
	};
	static const unsigned char p2[] = { 2, 0xfe, 0xff, 1, 0, 5, 0 };
	struct ketw_sys_module mod = {
		.name = "ketw_sample", .base = 0xffffffffc0000000ull,
		.size = 0x4000,
	};
	static _Alignas(8) unsigned char area[1024];
	size_t n;

	/* basic: system events on two CPUs, a gap, stats */
	record(0, 0, 100, KETW_RECORD_SYSTEM, KETW_SYS_START, &start,
	       sizeof(start));
	record(0, 1, 200, 0, 1, p1, sizeof(p1));
	record(0, 4, 300, KETW_RECORD_SYSTEM, KETW_SYS_OVERFLOW, &ovf,
	       sizeof(ovf));
	record(0, 5, 300, KETW_RECORD_SYSTEM, KETW_SYS_RESUME, &res,
	       sizeof(res));
	record(0, 6, 300, KETW_RECORD_TRUNCATED, 2, p2, 3);
	record(0, 7, 900, KETW_RECORD_SYSTEM, KETW_SYS_STOP, &stop,
	       sizeof(stop));
	record(1, 0, 150, 0, 2, p2, sizeof(p2));
	record(1, 1, 250, KETW_RECORD_SYSTEM, KETW_SYS_ERROR, &error,
	       sizeof(error));
	write_trace("basic.ketw", 2, true, false);
	write_swapped("basic.ketw", "basic_swapped.ketw");

	/* the rundown: the registry and tasks, then events it names */
	memcpy(prov.provider_guid, guid, KETW_GUID_SIZE);
	strcpy(prov.name, "sample");
	memcpy(ev.provider_guid, guid, KETW_GUID_SIZE);
	strcpy(ev.name, "one");
	strcpy(ev.fields[0].name, "n");
	ev.fields[0].type = KETW_FIELD_U32;
	ev.fields[0].size = 4;
	strcpy(ev.fields[1].name, "s");
	ev.fields[1].type = KETW_FIELD_STRING;
	ev.fields[1].offset = 4;
	strcpy(task.comm, "init");
	memcpy(flt.provider_guid, guid, KETW_GUID_SIZE);
	flt.new_filter.enabled = 1;
	flt.new_filter.level = 4;
	record(0, 0, 10, KETW_RECORD_SYSTEM, KETW_SYS_PROVIDER, &prov,
	       sizeof(prov));
	record(0, 1, 11, KETW_RECORD_SYSTEM, KETW_SYS_EVENT_DESC, &ev,
	       sizeof(ev));
	record(0, 2, 12, KETW_RECORD_SYSTEM, KETW_SYS_TASK, &task,
	       sizeof(task));
	record(0, 3, 13, KETW_RECORD_SYSTEM, KETW_SYS_FILTER, &flt,
	       sizeof(flt));
	record(0, 4, 20, 0, 1, p1, sizeof(p1));
	record(0, 5, 30, 0, 2, p2, sizeof(p2));
	write_trace("rundown.ketw", 1, false, true);

	write_trace("empty.ketw", 1, false, false);

	/* extended data items: every known type, an unknown one, a module */
	record(0, 0, 10, KETW_RECORD_SYSTEM, KETW_SYS_PROVIDER, &prov,
	       sizeof(prov));
	record(0, 1, 11, KETW_RECORD_SYSTEM, KETW_SYS_EVENT_DESC, &ev,
	       sizeof(ev));
	record(0, 2, 12, KETW_RECORD_SYSTEM, KETW_SYS_MODULE, &mod,
	       sizeof(mod));
	n = items_area(area, p1, sizeof(p1));
	record(0, 3, 20, KETW_RECORD_EXT, 1, area, n);
	record(0, 4, 30, 0, 2, p2, sizeof(p2));
	write_trace("items.ketw", 1, false, false);
}

/* ---- templates ---- */

static const char prov_line[] = "provider sample\n";

/* One per construct (after the provider line), and a payload for each. */
static const struct {
	const char *text;
	const char *payload;
	size_t len;
} seeds[] = {
	{ "1 \"open\" \"fd=\" D4 \" path=\" A0\n", "\x03\0\0\0/tmp\0", 9 },
	{ "1 L=KERN \"ints\" U1 U2 U4 U8 D1 D2 D4 D8 X1 X2 X4 X8 Q1 Q2 Q4 Q8\n",
	  "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10", 16 },
	{ "1 L=SVC \"hex\" X3 \" \" X0\n", "\x01\x02\x03\x04", 4 },
	{ "1 L=INT \"fl\" F4 \" \" F8\n", "\0\0\xc0\x3f\0\0\0\0\0\0\xf8\x3f", 12 },
	{ "1 L=APPL \"str\" A4 \"|\" A0\n", "ab\0cde", 6 },
	{ "1 \"bits\" B0.4 \" \" B1.2 \" \" $V\n", "\xa5\x0f", 2 },
	{ "1 \"moves\" G1.4 B0.4 O0.4 X1 R2 X1 W1 U1 G3 A0\n", "\x12\x34\x56\x78", 4 },
	{ "1 \"words\" $D1%X \" \" $D2 \" \" $D3%U $D4%Q $D5%D\n",
	  "\x01\x02\0\0\0\0\0\0\xff\xff\xff\xff\xff\xff\xff\xff\x01", 17 },
	{ "1 \"expr\" {{ $x = (2 + 3) * -4 / 3 }} $x {{ $y = U2 & 0xf | 0x10 }} $y%X\n",
	  "\x34\x12", 2 },
	{ "1 \"sw\" SWITCH U1, 1 { \"one\" }, 2 { \"two\" }, \\* { \"other \" $V }\n",
	  "\x02", 1 },
	{ "1 \"loop\" LOOP U1 { U2 \" \" } \"end\"\n", "\x03\x01\0\x02\0\x03\0", 7 },
	{ "1 \"bf\" BITFLAGS U4, 0x1 \"A\" \"a\", 0x2 \"B\", & 0x0c 0x04 \"MODE1\"\n",
	  "\x15\0\0\0", 4 },
	{ "1 \"call\" U1 $0102 U1\n0x102 \"sub\" \"[\" U1 \"]\" {{ $x = 1 }}\n",
	  "\x01\x02\x03", 3 },
	{ "1 \"self\" $0001\n", "", 0 },
	{ "1 \"big\" LOOP 65536 { LOOP 65536 { } }\n", "", 0 },
	{ "1 \"multi\"\n\tSWITCH (U1 & 3),\n\t\t0 { \"a\\n\" },\n\t\t* { $POS $LEN $ID $VER }\n",
	  "\x07\x08", 2 },
	{ "1 \"esc\" \"\\t\\\"\\\\\\x41\" # comment\n", "", 0 },
};

static void templates(void)
{
	char name[64], *text;
	size_t i, n;

	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		n = strlen(prov_line) + strlen(seeds[i].text);
		text = malloc(n + 1);
		snprintf(text, n + 1, "%s%s", prov_line, seeds[i].text);
		snprintf(name, sizeof(name), "construct%02zu.tmpl", i);
		spit("template_parse", name, text, n, NULL, 0);
		snprintf(name, sizeof(name), "construct%02zu.bin", i);
		/* text, NUL, payload */
		spit("template_eval", name, text, n + 1, seeds[i].payload,
		     seeds[i].len);
		free(text);
	}
	/* payloads alone, for the fixed set */
	spit("template_eval", "fixed0.bin", "\x01\x02\x03\x04\x05\x06\x07\x08", 8,
	     NULL, 0);
	spit("template_eval", "fixed1.bin",
	     "\x03\x11\x00\x22\x00\x33\x00\x02\x05\x00\x01\x00\x00\x00\xff", 15,
	     NULL, 0);
	/* errors */
	spit("template_parse", "error0.tmpl", "1 \"x\"", 5, NULL, 0);
	spit("template_parse", "error1.tmpl",
	     "provider x\n1 \"x\" SWITCH U1, 1 { \"a\"\n2 \"y\"", 38, NULL, 0);
	spit("template_parse", "guid.tmpl",
	     "provider 6b657477-7361-6d70-6c65-000000000001\n1 \"g\" U4\n", 56,
	     NULL, 0);
}

/* ---- stream frames ---- */

static unsigned char fwire[1 << 16];
static size_t fwire_len;

static void frame(struct ketw_frame_encoder *enc, unsigned int type,
		  const void *data, size_t len)
{
	ssize_t n = ketw_frame_encode(enc, type, data, len, fwire + fwire_len,
				      sizeof(fwire) - fwire_len);

	if (n < 0)
		die("frame", (int)n);
	fwire_len += n;
}

static void frames(void)
{
	static const unsigned char stuffed[] = { 0x7e, 0x7d, 0x7e, 0x00, 0x7d };
	struct ketw_stream_end end = { .records = 126 };
	struct ketw_frame_encoder enc;
	unsigned char piece;

	/* Pieces of 0 (all at once), 1 and 7 bytes. */
	for (piece = 0; piece < 8; piece += piece ? 6 : 1) {
		char name[32];

		fwire_len = 0;
		ketw_frame_encoder_init(&enc, 0x7d);
		fwire[fwire_len++] = piece;
		memcpy(fwire + fwire_len, "junk", 4);
		fwire_len += 4;
		frame(&enc, KETW_FRAME_PREAMBLE, recs[0], 304);
		frame(&enc, KETW_FRAME_RECORD, recs[0], 64);
		frame(&enc, KETW_FRAME_RECORD, stuffed, sizeof(stuffed));
		frame(&enc, KETW_FRAME_STATUS, recs[1], 200);
		frame(&enc, KETW_FRAME_END, &end, sizeof(end));
		snprintf(name, sizeof(name), "clean%u.bin", piece);
		spit("frame_decoder", name, fwire, fwire_len, NULL, 0);
	}

	/* Damage: a flipped bit, an abort, a duplicate, then a cut frame. */
	fwire_len = 0;
	fwire[fwire_len++] = 3;
	ketw_frame_encoder_init(&enc, 0);
	frame(&enc, KETW_FRAME_RECORD, stuffed, sizeof(stuffed));
	fwire[fwire_len - 3] ^= 0x10;
	frame(&enc, KETW_FRAME_RECORD, recs[1], 100);
	fwire[fwire_len++] = 0x7d;
	fwire[fwire_len++] = 0x7e;
	ketw_frame_encoder_init(&enc, 1);
	frame(&enc, KETW_FRAME_RECORD, recs[1], 100);
	frame(&enc, KETW_FRAME_RECORD, recs[1], 40);
	fwire_len -= 10;
	spit("frame_decoder", "damaged.bin", fwire, fwire_len, NULL, 0);

	/* The oversize path: a small buffer (0x80), a frame too long for it. */
	fwire_len = 0;
	fwire[fwire_len++] = 0x80;
	ketw_frame_encoder_init(&enc, 0);
	frame(&enc, KETW_FRAME_RECORD, recs[0], 128);
	frame(&enc, KETW_FRAME_RECORD, recs[0], 16);
	spit("frame_decoder", "oversize.bin", fwire, fwire_len, NULL, 0);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_corpus DIR\n");
		return 2;
	}
	dir = argv[1];
	mkdir(dir, 0755);
	traces();
	templates();
	frames();
	return 0;
}
