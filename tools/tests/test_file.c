// SPDX-License-Identifier: GPL-2.0
/*
 * Tests: the .ketw file writer and reader: round trip, the other byte
 * order, truncated and corrupt files, extensions, merge order.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "test.h"

/* 8-aligned scratch space for records. */
static _Alignas(8) unsigned char BUF[8192];

/* Records of one CPU for the sample file: returns their bytes. */
static size_t sample_cpu0(unsigned char *p)
{
	struct ketw_sys_start st = {
		.level = 5, .match_any = 0xf0, .match_all = 0x10,
	};
	struct ketw_sys_stop sp = { .auto_stop = 1 };
	struct ketw_sys_overflow ovf = { .first_lost_timestamp = 2500 };
	struct ketw_sys_resume res = { .lost = 3 };
	struct ketw_event_header *pad;
	size_t off = 0;

	off += test_record(p + off, 0, 0, 1000, KETW_RECORD_SYSTEM,
			   KETW_SYS_START, &st, sizeof(st));
	off += test_record(p + off, 0, 1, 2000, 0, 1, NULL, 24);
	/* read() never returns padding, but a file may hold it. */
	pad = (void *)(p + off);
	memset(pad, 0x5a, 24);
	pad->size = 24;
	pad->flags = KETW_RECORD_PADDING;
	off += 24;
	/* seq 2..4 lost: OVERFLOW and RESUME before the next record */
	off += test_record(p + off, 0, 5, 3000, KETW_RECORD_SYSTEM,
			   KETW_SYS_OVERFLOW, &ovf, sizeof(ovf));
	off += test_record(p + off, 0, 6, 3000, KETW_RECORD_SYSTEM,
			   KETW_SYS_RESUME, &res, sizeof(res));
	off += test_record(p + off, 0, 7, 3000, KETW_RECORD_TRUNCATED, 1,
			   NULL, 3);
	off += test_record(p + off, 0, 8, 9000, KETW_RECORD_SYSTEM,
			   KETW_SYS_STOP, &sp, sizeof(sp));
	return off;
}

static size_t sample_cpu1(unsigned char *p)
{
	struct ketw_sys_error error = { .error = -ETIMEDOUT };
	size_t off = 0;

	off += test_record(p + off, 1, 0, 1500, 0, 2, "hello", 5);
	off += test_record(p + off, 1, 1, 2000, 0, 2, NULL, 100);
	off += test_record(p + off, 1, 2, 2500, KETW_RECORD_SYSTEM,
			   KETW_SYS_ERROR, &error, sizeof(error));
	return off;
}

static void sample_stats(struct ketw_cpu_stats *st, unsigned int n)
{
	unsigned int i;

	memset(st, 0, n * sizeof(*st));
	for (i = 0; i < n; i++) {
		st[i].cpu = i;
		st[i].written = 10 + i;
		st[i].lost_full = 20 + i;
		st[i].overwritten = 30 + i;
		st[i].lost_busy = 40 + i;
		st[i].lost_nested = 50 + i;
		st[i].truncated = 60 + i;
		st[i].read = 70 + i;
		st[i].sequence = 80 + i;
		st[i].produced = 90 + i;
		st[i].consumed = 100 + i;
	}
}

/* A file with 3 CPUs: records on 0 and 1, stats for all, no stats for 2. */
static int write_sample(const char *path)
{
	struct ketw_output_info info;
	struct ketw_cpu_stats st[3];
	bool valid[3] = { true, true, false };
	struct ketw_output *out;
	size_t n;
	int err;

	test_info(&info, 3);
	sample_stats(st, 3);
	err = ketw_output_create(path, &info, &out);
	if (err)
		return err;
	n = sample_cpu0(BUF);
	err = ketw_output_add_records(out, 0, BUF, n);
	n = sample_cpu1(BUF);
	if (!err)
		err = ketw_output_add_records(out, 1, BUF, n);
	if (!err)
		err = ketw_output_add_stats(out, st, valid, 3);
	if (err) {
		ketw_output_abort(out, path);
		return err;
	}
	return ketw_output_close(out);
}

static void *sample_image(size_t *len)
{
	const char *path = test_path("sample.ketw");

	if (write_sample(path))
		return NULL;
	return test_slurp(path, len);
}

TEST(file_round_trip)
{
	const char *path = test_path("rt.ketw");
	const struct ketw_file_header *h;
	const struct ketw_file_cpu_stats *s;
	struct ketw_input *in;
	struct ketw_record r;
	char err[256] = "";
	uint64_t want_ts[] = { 1000, 1500, 2000, 2000, 2500, 3000, 3000, 3000,
			       9000 };
	unsigned int want_cpu[] = { 0, 1, 0, 1, 1, 0, 0, 0, 0 };
	char text[128];
	unsigned int i = 0;

	ASSERT_EQ(write_sample(path), 0);
	ASSERT_EQ(ketw_input_open(path, &in, err, sizeof(err)), 0);
	h = ketw_input_header(in);
	CHECK_EQ(h->magic, KETW_FILE_MAGIC);
	CHECK_EQ(h->version_major, KETW_FILE_VERSION_MAJOR);
	CHECK_EQ(h->version_minor, KETW_FILE_VERSION_MINOR);
	CHECK_EQ(h->header_size, sizeof(*h));
	CHECK_EQ(h->record_header_size, KETW_EVENT_HEADER_SIZE);
	CHECK_EQ(h->nr_cpus, 3);
	CHECK_EQ(h->clock, KETW_CLOCK_BOOT);
	CHECK_EQ(h->creation_time, 1700000001000000000ull);
	CHECK_STR(h->session.name, "unit");
	CHECK_EQ(h->session.buffer_kb, 64);
	CHECK_EQ(h->session.policy, KETW_POLICY_UNTIL_FULL);
	CHECK_EQ(h->session.max_data_size, 256);
	CHECK_EQ(h->session.level, KETW_LEVEL_VERBOSE);
	CHECK_EQ(h->session.state, KETW_STATE_SUSPENDED);
	CHECK_EQ(h->session.match_any, 0xf0);
	CHECK_EQ(h->session.match_all, 0x10);
	CHECK_EQ(h->session.creation_time, 1700000000123456789ull);
	CHECK_STR(h->hostname, "testhost");
	CHECK_STR(h->release, "6.1.0-test");
	CHECK_STR(h->machine, "x86_64");
	CHECK(!ketw_input_swapped(in));
	CHECK_EQ(ketw_input_nr_cpus(in), 3);

	CHECK_EQ(ketw_input_cpu_records(in, 0), 6);
	CHECK_EQ(ketw_input_cpu_records(in, 1), 3);
	CHECK_EQ(ketw_input_cpu_records(in, 2), 0);
	CHECK_EQ(ketw_input_cpu_records(in, 3), 0);
	CHECK_EQ(ketw_input_cpu_gaps(in, 0), 3);
	CHECK_EQ(ketw_input_cpu_gaps(in, 1), 0);
	s = ketw_input_cpu_stats(in, 1);
	ASSERT(s != NULL);
	CHECK_EQ(s->flags, KETW_FILE_STATS_VALID);
	CHECK_EQ(s->written, 11);
	CHECK_EQ(s->lost_full, 21);
	CHECK_EQ(s->overwritten, 31);
	CHECK_EQ(s->lost_busy, 41);
	CHECK_EQ(s->lost_nested, 51);
	CHECK_EQ(s->truncated, 61);
	CHECK_EQ(s->read, 71);
	CHECK_EQ(s->sequence, 81);
	CHECK_EQ(s->produced, 91);
	CHECK_EQ(s->consumed, 101);
	s = ketw_input_cpu_stats(in, 2);
	ASSERT(s != NULL);
	CHECK_EQ(s->flags, 0);
	CHECK_EQ(s->written, 0);
	CHECK_EQ(ketw_input_skipped_sections(in), 0);

	while (ketw_input_next(in, &r) > 0) {
		if (!CHECK(i < 9))
			break;
		CHECK_EQ(r.hdr->timestamp, want_ts[i]);
		CHECK_EQ(r.cpu, want_cpu[i]);
		CHECK_EQ(r.hdr->cpu, want_cpu[i]);
		CHECK_EQ(r.data_len, r.hdr->size - KETW_EVENT_HEADER_SIZE);
		CHECK(!memcmp(r.hdr->provider_guid, test_guid, 16));
		if (i == 1)
			CHECK(r.data_len == 5 && !memcmp(r.data, "hello", 5));
		if (i == 7) {
			CHECK_EQ(r.hdr->flags, KETW_RECORD_TRUNCATED);
			CHECK(r.data_len == 3 && r.data[2] == 2);
		}
		if (i == 5) {
			CHECK_EQ(r.hdr->event_id, KETW_SYS_OVERFLOW);
			CHECK_EQ(r.hdr->sequence, 5);
			CHECK(ketw_sys_payload_format(&r, text, sizeof(text)) > 0);
			CHECK_STR(text, "first lost event at ts=0.000002500");
		}
		i++;
	}
	CHECK_EQ(i, 9);
	/* Again from the start. */
	ketw_input_rewind(in);
	ASSERT_EQ(ketw_input_next(in, &r), 1);
	CHECK_EQ(r.hdr->timestamp, 1000);
	ketw_input_close(in);
}

TEST(file_header_defaults_from_uname)
{
	const char *path = test_path("uname.ketw");
	struct ketw_output_info info;
	struct ketw_output *out;
	struct ketw_input *in;
	struct utsname u;

	test_info(&info, 1);
	info.hostname[0] = info.release[0] = info.machine[0] = '\0';
	info.creation_time = 0;
	ASSERT_EQ(ketw_output_create(path, &info, &out), 0);
	ASSERT_EQ(ketw_output_close(out), 0);
	ASSERT_EQ(ketw_input_open(path, &in, NULL, 0), 0);
	ASSERT_EQ(uname(&u), 0);
	CHECK_STR(ketw_input_header(in)->hostname, u.nodename);
	CHECK_STR(ketw_input_header(in)->release, u.release);
	CHECK_STR(ketw_input_header(in)->machine, u.machine);
	CHECK(ketw_input_header(in)->creation_time > 1600000000ull * 1000000000ull);
	/* An empty trace: no records, nothing to merge. */
	{
		struct ketw_record r;

		CHECK_EQ(ketw_input_next(in, &r), 0);
	}
	ketw_input_close(in);
}

TEST(file_writer_errors)
{
	struct ketw_output_info info;
	struct ketw_output *out;

	test_info(&info, 2);
	CHECK_EQ(ketw_output_create("/nonexistent-dir/x.ketw", &info, &out),
		 -ENOENT);
	info.nr_cpus = 0;
	CHECK_EQ(ketw_output_create(test_path("w.ketw"), &info, &out), -EINVAL);
	info.nr_cpus = 2;
	ASSERT_EQ(ketw_output_create(test_path("w.ketw"), &info, &out), 0);
	CHECK_EQ(ketw_output_write(out, "x", 1), -EINVAL);	/* no section */
	CHECK_EQ(ketw_output_section_end(out), -EINVAL);
	CHECK_EQ(ketw_output_section_begin(out, 0, 0), -EINVAL);
	CHECK_EQ(ketw_output_section_begin(out, 77, 0), 0);
	CHECK_EQ(ketw_output_section_begin(out, 78, 0), -EINVAL); /* nested */
	/* Closing with a section open fails, and frees everything. */
	CHECK(ketw_output_close(out) < 0);
}

TEST(file_byte_swapped)
{
	struct ketw_input *a, *b;
	struct ketw_record ra, rb;
	unsigned char *img;
	size_t len;
	unsigned int cpu, n = 0;
	char err[256] = "";

	img = sample_image(&len);
	ASSERT(img != NULL);
	ASSERT_EQ(ketw_input_open_mem(img, len, &a, err, sizeof(err)), 0);
	test_swap_file(img, len);
	/* Really swapped: the magic reads backwards. */
	CHECK(!memcmp(img, "KETW", 4) || !memcmp(img, "WTEK", 4));
	CHECK(*(uint32_t *)img != KETW_FILE_MAGIC);
	if (!CHECK_EQ(ketw_input_open_mem(img, len, &b, err, sizeof(err)), 0)) {
		printf("    %s\n", err);
		ketw_input_close(a);
		free(img);
		return;
	}
	/* Also through a file on disk (the mmap path). */
	ASSERT_EQ(test_spit(test_path("swapped.ketw"), img, len), 0);
	free(img);

	CHECK(!ketw_input_swapped(a));
	CHECK(ketw_input_swapped(b));
	CHECK(!memcmp(ketw_input_header(a), ketw_input_header(b),
		      sizeof(struct ketw_file_header)));
	for (cpu = 0; cpu < 3; cpu++) {
		const struct ketw_file_cpu_stats *sa = ketw_input_cpu_stats(a, cpu);
		const struct ketw_file_cpu_stats *sb = ketw_input_cpu_stats(b, cpu);

		CHECK(sa && sb && !memcmp(sa, sb, sizeof(*sa)));
		CHECK_EQ(ketw_input_cpu_records(a, cpu),
			 ketw_input_cpu_records(b, cpu));
		CHECK_EQ(ketw_input_cpu_gaps(a, cpu), ketw_input_cpu_gaps(b, cpu));
	}
	CHECK_EQ(ketw_input_cpu_stats(b, 1)->written, 11);
	while (ketw_input_next(a, &ra) > 0) {
		if (!CHECK_EQ(ketw_input_next(b, &rb), 1))
			break;
		CHECK_EQ(ra.cpu, rb.cpu);
		CHECK_EQ(ra.data_len, rb.data_len);
		/* Headers (and the system payloads) in host order again. */
		CHECK(!memcmp(ra.hdr, rb.hdr, KETW_EVENT_HEADER_SIZE));
		CHECK(!memcmp(ra.data, rb.data, ra.data_len));
		n++;
	}
	CHECK_EQ(ketw_input_next(b, &rb), 0);
	CHECK_EQ(n, 9);
	ketw_input_close(a);
	ketw_input_close(b);

	ASSERT_EQ(ketw_input_open(test_path("swapped.ketw"), &b, err,
				  sizeof(err)), 0);
	CHECK(ketw_input_swapped(b));
	CHECK_EQ(ketw_input_header(b)->nr_cpus, 3);
	CHECK_EQ(ketw_input_cpu_records(b, 0), 6);
	CHECK_EQ(ketw_input_cpu_gaps(b, 0), 3);
	ASSERT_EQ(ketw_input_next(b, &rb), 1);
	{
		struct ketw_sys_start st;

		CHECK_EQ(rb.hdr->event_id, KETW_SYS_START);
		ASSERT_EQ(rb.data_len, sizeof(st));
		memcpy(&st, rb.data, sizeof(st));
		CHECK_EQ(st.level, 5);
		CHECK_EQ(st.match_any, 0xf0);
	}
	/* The other system payloads, decoded after the swap. */
	{
		char text[128];
		unsigned int seen = 0;

		while (ketw_input_next(b, &rb) > 0) {
			if (!(rb.hdr->flags & KETW_RECORD_SYSTEM))
				continue;
			ketw_sys_payload_format(&rb, text, sizeof(text));
			switch (rb.hdr->event_id) {
			case KETW_SYS_OVERFLOW:
				seen += CHECK_STR(text, "first lost event at ts=0.000002500");
				break;
			case KETW_SYS_RESUME:
				seen += CHECK_STR(text, "3 events lost on this cpu");
				break;
			case KETW_SYS_ERROR:
				seen += CHECK_STR(text, "error -110 ETIMEDOUT (Connection timed out)");
				break;
			case KETW_SYS_STOP:
				seen += CHECK_STR(text, "stopped by the full policy");
				break;
			}
		}
		CHECK_EQ(seen, 4);
	}
	ketw_input_close(b);
}

/* FILTER and the rundown records, written on one side, read on the other. */
TEST(file_byte_swapped_provider_payloads)
{
	static _Alignas(8) unsigned char recs[4096];
	const char *path = test_path("rundown.ketw");
	struct ketw_sys_filter flt = { 0 };
	struct ketw_sys_provider prov = { .nr_events = 2, .flags = 1 };
	struct ketw_event_info ev = {
		.id = 7, .type = 10, .level = 4, .version = 3,
		.keyword = 0x8000000000000001ull, .name = "rx", .nr_fields = 2,
		.fields = {
			{ .name = "len", .type = KETW_FIELD_U32, .offset = 0,
			  .size = 4 },
			{ .name = "data", .type = KETW_FIELD_BINARY, .offset = 4 },
		},
	};
	struct ketw_sys_task task = { .process_id = 100, .thread_id = 101,
				      .comm = "kworker/0:1" };
	static const char *const want[] = {
		"provider 6b657477-7361-6d70-6c65-000000000001: off -> level=4 match_any=0x3 match_all=0x0 filtered=2",
		"provider ketw-sample 6b657477-7361-6d70-6c65-000000000001, 2 events, user space",
		"event 7 rx of 6b657477-7361-6d70-6c65-000000000001: type=10 level=4 ver=3 kw=0x8000000000000001 fields len:u32@0/4 data:binary@4",
		"task pid=100 tid=101 comm=kworker/0:1",
	};
	struct ketw_output_info info;
	struct ketw_output *out;
	struct ketw_input *in[2];
	struct ketw_record rec;
	unsigned char *img;
	char text[1024], err[256];
	size_t n = 0, len;
	unsigned int k, i;

	memcpy(flt.provider_guid, test_guid, KETW_GUID_SIZE);
	flt.new_filter.enabled = 1;
	flt.new_filter.level = 4;
	flt.new_filter.match_any = 3;
	flt.new_filter.filtered.bits[0] = 0x5;
	memcpy(prov.provider_guid, test_guid, KETW_GUID_SIZE);
	strcpy(prov.name, "ketw-sample");
	memcpy(ev.provider_guid, test_guid, KETW_GUID_SIZE);
	n += test_record(recs + n, 0, 0, 10, KETW_RECORD_SYSTEM,
			 KETW_SYS_FILTER, &flt, sizeof(flt));
	n += test_record(recs + n, 0, 1, 11, KETW_RECORD_SYSTEM,
			 KETW_SYS_PROVIDER, &prov, sizeof(prov));
	n += test_record(recs + n, 0, 2, 12, KETW_RECORD_SYSTEM,
			 KETW_SYS_EVENT_DESC, &ev, sizeof(ev));
	n += test_record(recs + n, 0, 3, 13, KETW_RECORD_SYSTEM,
			 KETW_SYS_TASK, &task, sizeof(task));
	ASSERT(n <= sizeof(recs));
	test_info(&info, 1);
	ASSERT_EQ(ketw_output_create(path, &info, &out), 0);
	ASSERT_EQ(ketw_output_add_records(out, 0, recs, n), 0);
	ASSERT_EQ(ketw_output_close(out), 0);
	img = test_slurp(path, &len);
	ASSERT(img != NULL);
	ASSERT_EQ(ketw_input_open_mem(img, len, &in[0], err, sizeof(err)), 0);
	test_swap_file(img, len);
	k = ketw_input_open_mem(img, len, &in[1], err, sizeof(err));
	free(img);
	if (!CHECK_EQ(k, 0)) {
		printf("    %s\n", err);
		ketw_input_close(in[0]);
		return;
	}
	CHECK(ketw_input_swapped(in[1]));
	for (k = 0; k < 2; k++) {
		for (i = 0; ketw_input_next(in[k], &rec) > 0; i++) {
			if (!CHECK(i < 4))
				break;
			CHECK(ketw_sys_payload_format(&rec, text,
						      sizeof(text)) > 0);
			CHECK_STR(text, want[i]);
		}
		CHECK_EQ(i, 4);
		ketw_input_close(in[k]);
	}
}

/* ---- truncated and corrupt files ---------------------------------------- */

TEST(file_truncated_every_length)
{
	struct ketw_input *in;
	unsigned char *img;
	char err[256];
	size_t len, cut;

	img = sample_image(&len);
	ASSERT(img != NULL);
	ASSERT(len > 600);
	for (cut = 0; cut < len; cut++) {
		err[0] = '\0';
		in = NULL;
		if (!CHECK_EQ(ketw_input_open_mem(img, cut, &in, err,
						  sizeof(err)), -EBADMSG)) {
			printf("    at %zu bytes\n", cut);
			ketw_input_close(in);
			break;
		}
		CHECK(err[0] != '\0');
	}
	ASSERT_EQ(ketw_input_open_mem(img, 300, &in, err, sizeof(err)),
		  -EBADMSG);
	CHECK_CONTAINS(err, "truncated");
	/* Cut in the middle of a section. */
	ASSERT_EQ(ketw_input_open_mem(img, len - 100, &in, err, sizeof(err)),
		  -EBADMSG);
	CHECK_CONTAINS(err, "truncated");
	/* Cut at a section boundary: the end section is missing. */
	ASSERT_EQ(ketw_input_open_mem(img, len - 16, &in, err, sizeof(err)),
		  -EBADMSG);
	CHECK_CONTAINS(err, "end section is missing");

	/* On disk, including an empty file. */
	ASSERT_EQ(test_spit(test_path("cut.ketw"), img, len / 2), 0);
	CHECK_EQ(ketw_input_open(test_path("cut.ketw"), &in, err, sizeof(err)),
		 -EBADMSG);
	CHECK_CONTAINS(err, "truncated");
	ASSERT_EQ(test_spit(test_path("empty.ketw"), img, 0), 0);
	CHECK_EQ(ketw_input_open(test_path("empty.ketw"), &in, err,
				 sizeof(err)), -EBADMSG);
	CHECK_CONTAINS(err, "empty");
	CHECK_EQ(ketw_input_open(test_path("none.ketw"), &in, err,
				 sizeof(err)), -ENOENT);
	free(img);
}

/* ---- the incremental writer and files cut short ------------------------ */

/* test_write_stream()'s file (several sections per CPU), in memory. */
static void *stream_image(size_t *len)
{
	const char *path = test_path("stream.ketw");

	if (test_write_stream(path))
		return NULL;
	return test_slurp(path, len);
}

/* Where each section of @img ends (before padding), and records in it. */
struct sect {
	uint64_t end;
	uint64_t records;
	uint32_t type;
};

static unsigned int walk_sections(const unsigned char *img, size_t len,
				  struct sect *v, unsigned int max)
{
	struct ketw_file_section s;
	struct ketw_record_iter it;
	struct ketw_record rec;
	uint64_t off = sizeof(struct ketw_file_header);
	unsigned int n = 0;

	while (off + sizeof(s) <= len && n < max) {
		memcpy(&s, img + off, sizeof(s));
		v[n].type = s.type;
		v[n].end = off + sizeof(s) + s.length;
		v[n].records = 0;
		if (s.type == KETW_SECTION_CPU_RECORDS) {
			ketw_record_iter_init(&it, img + off + sizeof(s) + 8,
					      s.length - 8);
			while (ketw_record_iter_next(&it, &rec) > 0)
				v[n].records++;
		}
		off = (v[n].end + 7) & ~7ull;
		n++;
	}
	return n;
}

TEST(file_writer_streams_sections)
{
	struct ketw_input *in;
	struct ketw_record rec;
	struct sect v[32];
	unsigned char *img;
	uint64_t last[2] = { 0, 0 }, n = 0;
	unsigned int nr, i, per_cpu[2] = { 0, 0 };
	char err[256];
	size_t len;

	img = stream_image(&len);
	ASSERT(img != NULL);
	nr = walk_sections(img, len, v, 32);
	/* 4 rounds x 2 cpus, the counters, END. */
	CHECK_EQ(nr, 10);
	for (i = 0; i + 2 < nr; i++) {
		CHECK_EQ(v[i].type, KETW_SECTION_CPU_RECORDS);
		per_cpu[i & 1]++;
	}
	CHECK_EQ(per_cpu[0], 4);
	CHECK_EQ(v[nr - 2].type, KETW_SECTION_CPU_STATS);
	CHECK_EQ(v[nr - 1].type, KETW_SECTION_END);
	ASSERT_EQ(ketw_input_open_mem(img, len, &in, err, sizeof(err)), 0);
	CHECK_EQ(ketw_input_truncated(in), 0);
	CHECK_EQ(ketw_input_nr_sections(in), 10);
	CHECK_EQ(ketw_input_nr_records(in), 3 + 4 + 5 + 6);
	while (ketw_input_next(in, &rec) > 0) {
		/* Each CPU's records in sequence order, across sections. */
		CHECK_EQ(rec.hdr->sequence, last[rec.cpu]);
		last[rec.cpu]++;
		n++;
	}
	CHECK_EQ(n, 18);
	CHECK_EQ(ketw_input_cpu_gaps(in, 0) + ketw_input_cpu_gaps(in, 1), 0);
	ketw_input_close(in);
	free(img);
}

/* A CPU's buffer that fills goes out as a section of its own. */
TEST(file_writer_flat_memory)
{
	const char *path = test_path("big.ketw");
	_Alignas(8) unsigned char rec[4096 + 64];
	struct ketw_output_info info;
	struct ketw_output *out;
	struct ketw_input *in;
	uint64_t i, nr = 4 * KETW_OUTPUT_CPU_BUFFER / sizeof(rec) + 3;
	size_t span = 0;
	char err[256];

	test_info(&info, 1);
	ASSERT_EQ(ketw_output_create(path, &info, &out), 0);
	for (i = 0; i < nr; i++) {
		span = test_record(rec, 0, i, 10 + i, 0, 1, NULL, 4096);
		ASSERT_EQ(ketw_output_add_record(out, 0, rec, span), 0);
	}
	/* Whole sections went out while records came, not one at the end. */
	CHECK(ketw_output_sections(out) >= 4);
	CHECK(ketw_output_size(out) >= 4 * (uint64_t)KETW_OUTPUT_CPU_BUFFER -
				       4 * span);
	CHECK_EQ(ketw_output_add_record(out, 1, rec, span), -EINVAL);
	CHECK_EQ(ketw_output_add_record(out, 0, rec, 12), -EINVAL);
	ASSERT_EQ(ketw_output_close(out), 0);
	ASSERT_EQ(ketw_input_open(path, &in, err, sizeof(err)), 0);
	CHECK_EQ(ketw_input_nr_records(in), nr);
	CHECK_EQ(ketw_input_cpu_gaps(in, 0), 0);
	ketw_input_close(in);
}

/*
 * KETW_INPUT_PARTIAL: a file cut at every byte reads up to its last
 * complete section (the records of the sections before the cut, in
 * order) and says where it was cut; cut inside the header, it is a
 * clear error. Never a crash (ASan in make memcheck and the fuzzer).
 */
TEST(file_partial_every_length)
{
	struct ketw_input *in;
	struct ketw_record rec;
	struct sect v[32];
	unsigned char *img;
	uint64_t want_recs, want_secs, got, last[2];
	unsigned int nr, i;
	bool complete;
	char err[256];
	size_t len, cut;
	int ret;

	img = stream_image(&len);
	ASSERT(img != NULL);
	nr = walk_sections(img, len, v, 32);
	ASSERT_EQ(nr, 10);
	for (cut = 0; cut <= len; cut++) {
		err[0] = '\0';
		in = NULL;
		ret = ketw_input_open_mem_flags(img, cut, KETW_INPUT_PARTIAL,
						&in, err, sizeof(err));
		if (cut < sizeof(struct ketw_file_header)) {
			if (!CHECK_EQ(ret, -EBADMSG) ||
			    !CHECK(strstr(err, "truncated") ||
				   strstr(err, "not a ketw trace file"))) {
				printf("    at %zu bytes: %s\n", cut, err);
				ketw_input_close(in);
				break;
			}
			continue;
		}
		if (!CHECK_EQ(ret, 0)) {
			printf("    at %zu bytes: %s\n", cut, err);
			break;
		}
		want_recs = want_secs = 0;
		complete = false;
		for (i = 0; i < nr && v[i].end <= cut; i++) {
			want_recs += v[i].records;
			want_secs++;
			complete = v[i].type == KETW_SECTION_END;
		}
		CHECK_EQ(ketw_input_truncated(in), complete ? 0 : cut);
		CHECK_EQ(ketw_input_nr_sections(in), want_secs);
		CHECK_EQ(ketw_input_nr_records(in), want_recs);
		CHECK_EQ(ketw_input_read_bytes(in),
			 want_secs ? v[want_secs - 1].end :
				     sizeof(struct ketw_file_header));
		got = 0;
		last[0] = last[1] = 0;
		while (ketw_input_next(in, &rec) > 0) {
			CHECK_EQ(rec.hdr->sequence, last[rec.cpu]);
			last[rec.cpu]++;
			got++;
		}
		CHECK_EQ(got, want_recs);
		/* The counters only when their section came whole. */
		CHECK_EQ(ketw_input_cpu_stats(in, 0) != NULL,
			 want_secs >= nr - 1);
		ketw_input_close(in);
	}
	/* The strict reader still refuses what is cut. */
	CHECK_EQ(ketw_input_open_mem(img, len - 1, &in, err, sizeof(err)),
		 -EBADMSG);
	CHECK_EQ(ketw_input_open_mem_flags(img, len, 0x2, &in, err,
					   sizeof(err)), -EINVAL);
	/* From a file on disk, as report opens it. */
	ASSERT_EQ(test_spit(test_path("cut.ketw"), img, v[3].end + 5), 0);
	ASSERT_EQ(ketw_input_open_flags(test_path("cut.ketw"),
					KETW_INPUT_PARTIAL, &in, err,
					sizeof(err)), 0);
	CHECK_EQ(ketw_input_truncated(in), v[3].end + 5);
	CHECK_EQ(ketw_input_nr_sections(in), 4);
	ketw_input_close(in);
	free(img);
}

/* Offsets in the sample image. */
#define HDR		sizeof(struct ketw_file_header)
#define SEC0		HDR				/* cpu 0 records */
#define SEC0_BODY	(SEC0 + 16)
#define SEC0_REC0	(SEC0_BODY + 8)

static int open_patched(const unsigned char *img, size_t len, size_t at,
			const void *val, size_t n, char *err, size_t errlen)
{
	unsigned char *copy = malloc(len);
	struct ketw_input *in;
	int ret;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, img, len);
	memcpy(copy + at, val, n);
	err[0] = '\0';
	ret = ketw_input_open_mem(copy, len, &in, err, errlen);
	free(copy);
	if (!ret)
		ketw_input_close(in);
	return ret;
}

TEST(file_corrupt_fields)
{
	unsigned char *img;
	char err[256];
	size_t len;
	uint32_t u32;
	uint16_t u16;
	uint64_t u64;

	img = sample_image(&len);
	ASSERT(img != NULL);

	CHECK_EQ(open_patched(img, len, 0, "XXXX", 4, err, sizeof(err)),
		 -EBADMSG);
	CHECK_CONTAINS(err, "not a ketw trace file");

	u16 = 2;
	CHECK_EQ(open_patched(img, len, offsetof(struct ketw_file_header,
						 version_major),
			      &u16, 2, err, sizeof(err)), -EPROTONOSUPPORT);
	CHECK_CONTAINS(err, "version 2.");
	CHECK_CONTAINS(err, "is not supported");

	u32 = 12;
	CHECK_EQ(open_patched(img, len, offsetof(struct ketw_file_header,
						 header_size),
			      &u32, 4, err, sizeof(err)), -EBADMSG);
	u32 = 0xfffffff8;
	CHECK_EQ(open_patched(img, len, offsetof(struct ketw_file_header,
						 header_size),
			      &u32, 4, err, sizeof(err)), -EBADMSG);
	u32 = 0;
	CHECK_EQ(open_patched(img, len, offsetof(struct ketw_file_header,
						 nr_cpus),
			      &u32, 4, err, sizeof(err)), -EBADMSG);
	CHECK_CONTAINS(err, "0 cpus");
	u32 = 1;	/* the records of cpu 1 no longer fit */
	CHECK_EQ(open_patched(img, len, offsetof(struct ketw_file_header,
						 nr_cpus),
			      &u32, 4, err, sizeof(err)), -EBADMSG);
	CHECK_CONTAINS(err, "cpu 1");
	u32 = 32;
	CHECK_EQ(open_patched(img, len, offsetof(struct ketw_file_header,
						 record_header_size),
			      &u32, 4, err, sizeof(err)), -EBADMSG);

	/* Section headers. */
	u32 = 0;
	CHECK_EQ(open_patched(img, len, SEC0, &u32, 4, err, sizeof(err)),
		 -EBADMSG);
	CHECK_CONTAINS(err, "type 0");
	u64 = UINT64_MAX;
	CHECK_EQ(open_patched(img, len, SEC0 + 8, &u64, 8, err, sizeof(err)),
		 -EBADMSG);
	CHECK_CONTAINS(err, "truncated");
	u64 = 4;	/* shorter than its cpu field + records */
	CHECK_EQ(open_patched(img, len, SEC0 + 8, &u64, 8, err, sizeof(err)),
		 -EBADMSG);
	u32 = 7;
	CHECK_EQ(open_patched(img, len, SEC0_BODY, &u32, 4, err, sizeof(err)),
		 -EBADMSG);
	CHECK_CONTAINS(err, "cpu 7");

	/* Records. */
	u16 = 0;
	CHECK_EQ(open_patched(img, len, SEC0_REC0, &u16, 2, err, sizeof(err)),
		 -EBADMSG);
	CHECK_CONTAINS(err, "corrupt: record at offset");
	u16 = 40;
	CHECK_EQ(open_patched(img, len, SEC0_REC0, &u16, 2, err, sizeof(err)),
		 -EBADMSG);
	u16 = 0xffff;
	CHECK_EQ(open_patched(img, len, SEC0_REC0, &u16, 2, err, sizeof(err)),
		 -EBADMSG);
	free(img);
}

/* Flip every byte to a few values: errors are fine, crashes are not. */
TEST(file_corrupt_every_byte)
{
	static const unsigned char vals[] = { 0x00, 0xff, 0x80, 0x07 };
	struct ketw_input *in;
	struct ketw_record r;
	unsigned char *img, *copy;
	char line[512];
	size_t len, i, v;
	unsigned int ok = 0, bad = 0;

	img = sample_image(&len);
	ASSERT(img != NULL);
	copy = malloc(len);
	ASSERT(copy != NULL);
	for (i = 0; i < len; i++) {
		for (v = 0; v < sizeof(vals); v++) {
			memcpy(copy, img, len);
			copy[i] = vals[v];
			if (ketw_input_open_mem(copy, len, &in, NULL, 0)) {
				bad++;
				continue;
			}
			ok++;
			while (ketw_input_next(in, &r) > 0)
				ketw_record_format(&r, line, sizeof(line));
			ketw_input_close(in);
		}
	}
	/* Payload bytes may change freely; headers may not. */
	CHECK(ok > 0);
	CHECK(bad > 0);
	free(copy);
	free(img);
}

/* ---- extensions ---------------------------------------------------------- */

TEST(file_unknown_sections)
{
	const char *path = test_path("ext.ketw");
	struct ketw_output_info info;
	struct ketw_output *out;
	struct ketw_input *in;
	struct ketw_record r;
	char err[256];
	size_t n;

	test_info(&info, 2);
	ASSERT_EQ(ketw_output_create(path, &info, &out), 0);
	/* An optional section of a later version, with an odd length. */
	ASSERT_EQ(ketw_output_section_begin(out, 1000, 0), 0);
	ASSERT_EQ(ketw_output_write(out, "future", 6), 0);
	ASSERT_EQ(ketw_output_section_end(out), 0);
	n = sample_cpu1(BUF);
	ASSERT_EQ(ketw_output_add_records(out, 1, BUF, n), 0);
	ASSERT_EQ(ketw_output_close(out), 0);

	ASSERT_EQ(ketw_input_open(path, &in, err, sizeof(err)), 0);
	CHECK_EQ(ketw_input_skipped_sections(in), 1);
	CHECK_EQ(ketw_input_cpu_records(in, 1), 3);
	CHECK(ketw_input_cpu_stats(in, 0) == NULL);
	CHECK_EQ(ketw_input_next(in, &r), 1);
	ketw_input_close(in);

	/* The same section marked required: refused. */
	ASSERT_EQ(ketw_output_create(path, &info, &out), 0);
	ASSERT_EQ(ketw_output_section_begin(out, 1000,
					    KETW_SECTION_F_REQUIRED), 0);
	ASSERT_EQ(ketw_output_section_end(out), 0);
	ASSERT_EQ(ketw_output_close(out), 0);
	CHECK_EQ(ketw_input_open(path, &in, err, sizeof(err)),
		 -EPROTONOSUPPORT);
	CHECK_CONTAINS(err, "required");
}

TEST(file_longer_header_and_stats_entries)
{
	struct ketw_file_header *h;
	const struct ketw_file_cpu_stats *s;
	struct ketw_input *in;
	unsigned char *img, *big;
	char err[256];
	size_t len;

	/* A later minor version with 16 more header bytes. */
	img = sample_image(&len);
	ASSERT(img != NULL);
	big = malloc(len + 16);
	ASSERT(big != NULL);
	memcpy(big, img, HDR);
	memset(big + HDR, 0xab, 16);
	memcpy(big + HDR + 16, img + HDR, len - HDR);
	h = (void *)big;
	h->header_size += 16;
	h->version_minor = 3;
	if (!CHECK_EQ(ketw_input_open_mem(big, len + 16, &in, err,
					  sizeof(err)), 0))
		printf("    %s\n", err);
	else {
		CHECK_EQ(ketw_input_header(in)->version_minor, 3);
		CHECK_EQ(ketw_input_cpu_records(in, 0), 6);
		ketw_input_close(in);
	}
	free(big);
	free(img);

	/* Stats entries longer (a later version) and shorter than ours. */
	{
		const char *path = test_path("stats.ketw");
		struct ketw_output_info info;
		struct ketw_output *out;
		struct ketw_file_stats sh = { .nr_entries = 2, .entry_size = 96 };
		struct ketw_file_stats sh2 = { .nr_entries = 1, .entry_size = 24 };
		struct {
			struct ketw_file_cpu_stats known;
			uint64_t unknown;	/* a field we do not know */
		} e;

		_Static_assert(sizeof(e) == 96, "entry");
		test_info(&info, 2);
		ASSERT_EQ(ketw_output_create(path, &info, &out), 0);
		ASSERT_EQ(ketw_output_section_begin(out, KETW_SECTION_CPU_STATS,
						    0), 0);
		ASSERT_EQ(ketw_output_write(out, &sh, sizeof(sh)), 0);
		memset(&e, 0, sizeof(e));
		e.known.cpu = 0;
		e.known.flags = KETW_FILE_STATS_VALID;
		e.known.written = 5;
		e.unknown = 0xdead;
		ASSERT_EQ(ketw_output_write(out, &e, 96), 0);
		e.known.cpu = 1;
		e.known.written = 6;
		ASSERT_EQ(ketw_output_write(out, &e, 96), 0);
		ASSERT_EQ(ketw_output_section_end(out), 0);
		/* A second section overrides cpu 1 with a short entry. */
		ASSERT_EQ(ketw_output_section_begin(out, KETW_SECTION_CPU_STATS,
						    0), 0);
		ASSERT_EQ(ketw_output_write(out, &sh2, sizeof(sh2)), 0);
		e.known.written = 7;
		e.known.lost_full = 8;
		e.known.overwritten = 9;	/* beyond the 24 bytes written */
		ASSERT_EQ(ketw_output_write(out, &e, 24), 0);
		ASSERT_EQ(ketw_output_section_end(out), 0);
		ASSERT_EQ(ketw_output_close(out), 0);

		if (!CHECK_EQ(ketw_input_open(path, &in, err, sizeof(err)), 0)) {
			printf("    %s\n", err);
			return;
		}
		s = ketw_input_cpu_stats(in, 0);
		CHECK(s && s->written == 5 && s->consumed == 0);
		s = ketw_input_cpu_stats(in, 1);
		CHECK(s && s->written == 7 && s->lost_full == 8 &&
		      s->overwritten == 0);
		ketw_input_close(in);
	}
}

/* ---- merge order ------------------------------------------------------- */

TEST(file_merge_order)
{
	const char *path = test_path("merge.ketw");
	struct ketw_output_info info;
	struct ketw_output *out;
	struct ketw_input *in;
	struct ketw_record r;
	size_t n;
	/* Expected: by timestamp, then cpu, then sequence. */
	static const struct { uint64_t ts; unsigned int cpu; uint64_t seq; } want[] = {
		{ 5, 2, 0 }, { 10, 0, 0 }, { 20, 1, 0 },
		{ 30, 0, 1 }, { 30, 0, 2 }, { 30, 1, 1 }, { 30, 2, 1 },
		{ 40, 1, 2 }, { 50, 0, 3 }, { 50, 0, 4 }, { 60, 0, 5 },
	};
	unsigned int i = 0;

	test_info(&info, 3);
	ASSERT_EQ(ketw_output_create(path, &info, &out), 0);
	/* CPU 2 first: section order must not matter. */
	n = 0;
	n += test_record(BUF + n, 2, 0, 5, 0, 1, NULL, 0);
	n += test_record(BUF + n, 2, 1, 30, 0, 1, NULL, 0);
	ASSERT_EQ(ketw_output_add_records(out, 2, BUF, n), 0);
	n = 0;
	n += test_record(BUF + n, 1, 0, 20, 0, 1, NULL, 1);
	n += test_record(BUF + n, 1, 1, 30, 0, 1, NULL, 2);
	n += test_record(BUF + n, 1, 2, 40, 0, 1, NULL, 3);
	ASSERT_EQ(ketw_output_add_records(out, 1, BUF, n), 0);
	/* CPU 0 in two sections (chunks), with equal timestamps. */
	n = 0;
	n += test_record(BUF + n, 0, 0, 10, 0, 1, NULL, 0);
	n += test_record(BUF + n, 0, 1, 30, 0, 1, NULL, 0);
	n += test_record(BUF + n, 0, 2, 30, 0, 1, NULL, 0);
	ASSERT_EQ(ketw_output_add_records(out, 0, BUF, n), 0);
	n = 0;
	n += test_record(BUF + n, 0, 3, 50, 0, 1, NULL, 0);
	n += test_record(BUF + n, 0, 4, 50, 0, 1, NULL, 0);
	n += test_record(BUF + n, 0, 5, 60, 0, 1, NULL, 0);
	ASSERT_EQ(ketw_output_add_records(out, 0, BUF, n), 0);
	ASSERT_EQ(ketw_output_close(out), 0);

	ASSERT_EQ(ketw_input_open(path, &in, NULL, 0), 0);
	CHECK_EQ(ketw_input_cpu_records(in, 0), 6);
	CHECK_EQ(ketw_input_cpu_gaps(in, 0), 0);
	while (ketw_input_next(in, &r) > 0) {
		if (!CHECK(i < sizeof(want) / sizeof(want[0])))
			break;
		CHECK_EQ(r.hdr->timestamp, want[i].ts);
		CHECK_EQ(r.cpu, want[i].cpu);
		CHECK_EQ(r.hdr->sequence, want[i].seq);
		i++;
	}
	CHECK_EQ(i, sizeof(want) / sizeof(want[0]));
	ketw_input_close(in);
}

/* One CPU's records alone, in order, whatever the sections and merging. */
TEST(file_cpu_iter)
{
	const char *path = test_path("cpuiter.ketw");
	struct ketw_input_cpu_iter a, b;
	struct ketw_input *in;
	struct ketw_record r, m;
	uint64_t n[3] = { 0 };
	unsigned int cpu;
	char err[256] = "";

	ASSERT_EQ(write_sample(path), 0);
	ASSERT_EQ(ketw_input_open(path, &in, err, sizeof(err)), 0);
	for (cpu = 0; cpu < 3; cpu++) {
		ketw_input_cpu_iter_init(&a, in, cpu);
		ketw_input_rewind(in);
		while (ketw_input_cpu_iter_next(&a, &r) > 0) {
			/* The merged walk gives the same record next. */
			do {
				if (!CHECK_EQ(ketw_input_next(in, &m), 1))
					break;
			} while (m.cpu != cpu);
			CHECK(m.hdr == r.hdr);
			CHECK_EQ(r.cpu, cpu);
			CHECK_EQ(r.context, m.context);
			n[cpu]++;
		}
		CHECK_EQ(n[cpu], ketw_input_cpu_records(in, cpu));
		CHECK_EQ(ketw_input_cpu_iter_next(&a, &r), 0);
	}
	/* Two at once on one CPU, and again from the start. */
	ketw_input_cpu_iter_init(&a, in, 0);
	ketw_input_cpu_iter_init(&b, in, 0);
	CHECK_EQ(ketw_input_cpu_iter_next(&a, &r), 1);
	CHECK_EQ(ketw_input_cpu_iter_next(&a, &r), 1);
	CHECK_EQ(ketw_input_cpu_iter_next(&b, &m), 1);
	CHECK_EQ(m.hdr->sequence, 0);
	CHECK_EQ(r.hdr->sequence, 1);
	ketw_input_cpu_iter_init(&a, in, 7);	/* past nr_cpus: nothing */
	CHECK_EQ(ketw_input_cpu_iter_next(&a, &r), 0);
	ketw_input_close(in);
}

/* The clock reference: read with the file, given, kept the other byte order. */
TEST(file_clock_ref)
{
	const char *path = test_path("clockref.ketw");
	const struct ketw_file_header *h;
	struct ketw_output_info info;
	struct ketw_output *out;
	struct ketw_input *in;
	uint64_t c, rt;
	unsigned char *img;
	size_t len;
	char err[256] = "";

	/* Read now: the trace clock against the real time. */
	CHECK_EQ(ketw_clock_ref_now(KETW_CLOCK_MONO, &c, &rt), 0);
	CHECK(c > 0 && rt > 1500000000ull * 1000000000ull);
	CHECK_EQ(ketw_clock_ref_now(KETW_CLOCK_BOOT, &c, &rt), 0);
	CHECK_EQ(ketw_clock_ref_now(0, &c, &rt), 0);
	CHECK_EQ(ketw_clock_ref_now(KETW_CLOCK_LOCAL, &c, &rt), -EINVAL);
	CHECK_EQ(c, 0);

	test_info(&info, 1);
	info.clock = KETW_CLOCK_MONO;
	ASSERT_EQ(ketw_output_create(path, &info, &out), 0);
	ASSERT_EQ(ketw_output_close(out), 0);
	ASSERT_EQ(ketw_input_open(path, &in, err, sizeof(err)), 0);
	h = ketw_input_header(in);
	CHECK_EQ(h->header_size, KETW_FILE_HEADER_SIZE_V1_2);
	CHECK(h->clock_ref > 0 && h->realtime_ref > h->clock_ref);
	ketw_input_close(in);

	info.clock = KETW_CLOCK_LOCAL;		/* not readable: none */
	ASSERT_EQ(ketw_output_create(path, &info, &out), 0);
	ASSERT_EQ(ketw_output_close(out), 0);
	ASSERT_EQ(ketw_input_open(path, &in, err, sizeof(err)), 0);
	CHECK_EQ(ketw_input_header(in)->clock_ref, 0);
	CHECK_EQ(ketw_input_header(in)->realtime_ref, 0);
	ketw_input_close(in);

	ASSERT_EQ(ketw_output_create_ref(path, &info, 123456789ull,
					 1700000000000000000ull, &out), 0);
	ASSERT_EQ(ketw_output_close(out), 0);
	img = test_slurp(path, &len);
	ASSERT(img != NULL);
	test_swap_file(img, len);
	ASSERT_EQ(ketw_input_open_mem(img, len, &in, err, sizeof(err)), 0);
	CHECK(ketw_input_swapped(in));
	CHECK_EQ(ketw_input_header(in)->clock_ref, 123456789ull);
	CHECK_EQ(ketw_input_header(in)->realtime_ref, 1700000000000000000ull);
	ketw_input_close(in);
	free(img);
}
