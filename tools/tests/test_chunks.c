// SPDX-License-Identifier: GPL-2.0
/*
 * Tests: what the trace file writer does for a collector and for
 * rotation (lib/output.c) and what the reader makes of it (lib/input.c):
 * STREAM and RUNDOWN sections, a writer in the other byte order,
 * a bound on its memory whatever the number of CPUs, and files cut into
 * chunks, each readable and decodable alone, with every record in
 * exactly one of them.
 */
#include <errno.h>
#include <stdlib.h>

#include "test.h"

static _Alignas(8) unsigned char REC[8192];

/* The header's clock reference as one offset (-1: none). */
static int64_t clock_off(const struct ketw_input *in)
{
	const struct ketw_file_header *h = ketw_input_header(in);

	return h->realtime_ref ? (int64_t)(h->realtime_ref - h->clock_ref) : -1;
}

static size_t rundown_provider(void *buf, unsigned int cpu, uint64_t seq)
{
	struct ketw_sys_provider p = { .nr_events = 2 };

	memcpy(p.provider_guid, test_guid, KETW_GUID_SIZE);
	strcpy(p.name, "chunky");
	return test_record(buf, cpu, seq, 5, KETW_RECORD_SYSTEM,
			   KETW_SYS_PROVIDER, &p, sizeof(p));
}

static size_t rundown_event(void *buf, unsigned int cpu, uint64_t seq)
{
	struct ketw_event_info ev = { .id = 7, .version = 2, .nr_fields = 1 };

	memcpy(ev.provider_guid, test_guid, KETW_GUID_SIZE);
	strcpy(ev.name, "tock");
	strcpy(ev.fields[0].name, "n");
	ev.fields[0].type = KETW_FIELD_U32;
	ev.fields[0].size = 4;
	return test_record(buf, cpu, seq, 6, KETW_RECORD_SYSTEM,
			   KETW_SYS_EVENT_DESC, &ev, sizeof(ev));
}

static int count_copy(const struct ketw_record *rec, void *ctx)
{
	unsigned int *n = ctx;

	CHECK(ketw_record_is_rundown(rec));
	(*n)++;
	return 0;
}

/* Two files, one swapped field by field, are the same (creation times aside). */
static void chunks_compare_swapped(const char *native, const char *swapped)
{
	unsigned char *ia, *ib;
	size_t la, lb, at = offsetof(struct ketw_file_header, creation_time);

	ia = test_slurp(native, &la);
	ib = test_slurp(swapped, &lb);
	if (CHECK(ia && ib) && CHECK_EQ(la, lb)) {
		memcpy(ib + at, ia + at, 8);
		test_swap_file(ia, la);
		memcpy(ib + at, ia + at, 8);
		CHECK(!memcmp(ia, ib, la));
	}
	free(ia);
	free(ib);
}

/*
 * The same files from a writer in the other byte order (a collector's,
 * for a machine of that order) are the native ones swapped field by
 * field (test_swap_file), and read the same.
 */
TEST(chunks_writer_in_other_byte_order)
{
	static const char *const paths[2][2] = {
		{ "native.0", "native.1" }, { "swapped.0", "swapped.1" },
	};
	struct ketw_file_stream fs = {
		.stream_id = 0x1122334455667788ull, .connections = 3,
		.flags = KETW_FILE_STREAM_COMPLETE, .frames = 9,
		.end_seq = 42, .dropped_records = 5,
	};
	struct ketw_file_cpu_stats st[2] = {
		{ .cpu = 0, .flags = KETW_FILE_STATS_VALID, .written = 4 },
		{ .cpu = 1, .flags = KETW_FILE_STATS_VALID, .sequence = 9 },
	};
	const struct ketw_file_stream *got;
	struct ketw_output_info info;
	struct ketw_file_header h;
	struct ketw_output *o;
	struct ketw_input *in;
	size_t span[4], i, off, all;
	unsigned int copies = 0, w;
	char err[256];

	test_info(&info, 2);
	ketw_output_header_init(&h, &info);
	h.clock_ref = 77;
	h.realtime_ref = 77 - 123456789;
	span[0] = rundown_provider(REC, 0, 0);
	span[1] = rundown_event(REC + span[0], 0, 1);
	span[2] = test_record(REC + span[0] + span[1], 1, 0, 10, 0, 7,
			      "\x01\x00\x00\x00", 4);
	span[3] = test_record(REC + span[0] + span[1] + span[2], 0, 2, 11,
			      0, 7, NULL, 4);
	all = span[0] + span[1] + span[2] + span[3];
	for (w = 0; w < 2; w++) {
		ASSERT_EQ(ketw_output_create_header(test_path(paths[w][0]), &h,
						    w == 1, &o), 0);
		ketw_output_keep_rundown(o, 1 << 20);
		/* The records as a machine of the other order sends them. */
		if (w)
			test_swap_records(REC, all);
		for (i = 0, off = 0; i < 4; off += span[i], i++)
			ASSERT_EQ(ketw_output_add_record(o, i == 2, REC + off,
							 span[i]), 0);
		ASSERT_EQ(ketw_output_add_file_stats(o, st, 2), 0);
		/* A second chunk: the header's clock and the rundown in copy. */
		ASSERT_EQ(ketw_output_rotate(o, test_path(paths[w][1])), 0);
		ASSERT_EQ(ketw_output_add_stream(o, &fs), 0);
		ASSERT_EQ(ketw_output_close(o), 0);
		if (w)
			test_swap_records(REC, all);
	}
	for (i = 0; i < 2; i++)
		chunks_compare_swapped(test_path(paths[0][i]),
				       test_path(paths[1][i]));

	ASSERT_EQ(ketw_input_open(test_path("swapped.0"), &in, err,
				  sizeof(err)), 0);
	CHECK(ketw_input_swapped(in));
	CHECK_EQ(clock_off(in), -123456789);
	CHECK_EQ(ketw_input_nr_records(in), 4);
	CHECK_EQ(ketw_input_cpu_stats(in, 1)->sequence, 9);
	CHECK(ketw_input_stream(in) == NULL);
	ketw_input_close(in);

	ASSERT_EQ(ketw_input_open(test_path("swapped.1"), &in, err,
				  sizeof(err)), 0);
	CHECK(ketw_input_swapped(in));
	CHECK_EQ(clock_off(in), -123456789);
	CHECK_EQ(ketw_input_nr_records(in), 0);
	CHECK_EQ(ketw_input_rundown_copies(in, count_copy, &copies), 0);
	CHECK_EQ(copies, 2);
	got = ketw_input_stream(in);
	if (CHECK(got != NULL)) {
		CHECK_EQ(got->stream_id, fs.stream_id);
		CHECK_EQ(got->connections, 3);
		CHECK_EQ(got->flags, KETW_FILE_STREAM_COMPLETE);
		CHECK_EQ(got->end_seq, 42);
		CHECK_EQ(got->dropped_records, 5);
	}
	ketw_input_close(in);
}

/*
 * A sender may claim 65536 CPUs and log on all of them: the writer's
 * memory stays within its bound, and every record is in the file, each
 * CPU's in order.
 */
TEST(chunks_writer_memory_bound)
{
	const char *path = test_path("many.ketw");
	struct ketw_output_info info;
	struct ketw_output *out;
	struct ketw_input *in;
	struct ketw_record rec;
	size_t span, most = 0;
	unsigned int i, cpu, nr = 3000;
	uint64_t seen = 0;
	char err[256];

	test_info(&info, KETW_FILE_MAX_CPUS);
	ASSERT_EQ(ketw_output_create(path, &info, &out), 0);
	CHECK_EQ(ketw_output_set_limit(out, 4096), -EINVAL);
	ASSERT_EQ(ketw_output_set_limit(out, KETW_OUTPUT_LIMIT_MIN), 0);
	for (i = 0; i < nr; i++) {
		cpu = (i * 7919) % KETW_FILE_MAX_CPUS;
		span = test_record(REC, cpu, i, i, 0, 1, NULL, 32 + i % 500);
		ASSERT_EQ(ketw_output_add_record(out, cpu, REC, span), 0);
		if (ketw_output_memory(out) > most)
			most = ketw_output_memory(out);
	}
	CHECK(most <= KETW_OUTPUT_LIMIT_MIN);
	CHECK(most >= KETW_OUTPUT_LIMIT_MIN / 2);
	/* A big record in a bounded writer. */
	span = test_record(REC, 5, nr, nr, 0, 1, NULL, 8000);
	ASSERT_EQ(ketw_output_add_record(out, 5, REC, span), 0);
	CHECK(ketw_output_memory(out) <= KETW_OUTPUT_LIMIT_MIN);
	ASSERT_EQ(ketw_output_close(out), 0);
	ASSERT_EQ(ketw_input_open(path, &in, err, sizeof(err)), 0);
	CHECK_EQ(ketw_input_nr_records(in), nr + 1);
	while (ketw_input_next(in, &rec) > 0) {
		CHECK_EQ(rec.hdr->timestamp, seen);
		seen++;
	}
	CHECK_EQ(seen, nr + 1);
	ketw_input_close(in);
}

static int add_to_registry(const struct ketw_record *rec, void *reg)
{
	return ketw_registry_add_record(reg, rec) < 0;
}

/* Walk a chunk: its records' (cpu, seq) into @seen; returns how many. */
static unsigned int chunk_records(const char *path, uint8_t seen[2][400],
				  unsigned int *copies, bool *decodes)
{
	struct ketw_registry *reg = ketw_registry_new();
	struct ketw_input *in;
	struct ketw_record rec;
	unsigned int n = 0;
	char err[256];

	if (!CHECK(reg))
		return 0;
	/* Strict: every chunk is complete, with its END. */
	if (!CHECK_EQ(ketw_input_open(path, &in, err, sizeof(err)), 0)) {
		printf("    %s: %s\n", path, err);
		ketw_registry_free(reg);
		return 0;
	}
	CHECK_EQ(clock_off(in), 1000);
	*copies = 0;
	ketw_input_rundown_copies(in, count_copy, copies);
	CHECK_EQ(ketw_input_rundown_copies(in, add_to_registry, reg), 0);
	while (ketw_input_next(in, &rec) > 0) {
		ketw_registry_add_record(reg, &rec);
		CHECK(rec.hdr->sequence < 400);
		seen[rec.cpu][rec.hdr->sequence]++;
		n++;
	}
	/* Decodes alone: the provider's name and the event's layout. */
	*decodes = ketw_registry_nr_providers(reg) == 1 &&
		   ketw_registry_event(reg, test_guid, 7, 2) != NULL;
	CHECK_EQ(ketw_input_cpu_gaps(in, 0) + ketw_input_cpu_gaps(in, 1), 0);
	ketw_input_close(in);
	ketw_registry_free(reg);
	return n;
}

/*
 * Rotation: 2 CPUs, records gathered and flushed at odd moments, a new
 * chunk every 37 records. Every chunk reads alone (strictly: END and
 * all), decodes alone (the rundown in copy), and together they hold
 * every record exactly once, nothing at the seams lost or doubled.
 */
TEST(chunks_rotation_seams)
{
	static uint8_t seen[2][400];
	struct ketw_output_info info;
	struct ketw_output *out;
	char path[64];
	uint64_t seq[2] = { 0, 0 };
	unsigned int i, cpu, chunks = 1, total = 0, copies = 0, nr = 700;
	size_t span;
	bool decodes = false;

	test_info(&info, 2);
	ASSERT_EQ(ketw_output_create_ref(test_path("rot.0"), &info, 1, 1001,
					 &out), 0);
	ketw_output_keep_rundown(out, 1 << 16);
	span = rundown_provider(REC, 0, seq[0]++);
	ASSERT_EQ(ketw_output_add_record(out, 0, REC, span), 0);
	span = rundown_event(REC, 0, seq[0]++);
	ASSERT_EQ(ketw_output_add_record(out, 0, REC, span), 0);
	for (i = 0; i < nr; i++) {
		cpu = (i / 3) & 1;
		span = test_record(REC, cpu, seq[cpu], 100 + i, 0, 7,
				   "\x01\x02\x03\x04", 4);
		seq[cpu]++;
		ASSERT_EQ(ketw_output_add_record(out, cpu, REC, span), 0);
		if (i % 11 == 5)
			ASSERT_EQ(ketw_output_flush(out), 0);
		if (i % 37 == 36) {
			snprintf(path, sizeof(path), "rot.%u", chunks++);
			ASSERT_EQ(ketw_output_rotate(out, test_path(path)), 0);
		}
	}
	CHECK_EQ(ketw_output_rundown_left_out(out), 0);
	ASSERT_EQ(ketw_output_close(out), 0);
	for (i = 0; i < chunks; i++) {
		snprintf(path, sizeof(path), "rot.%u", i);
		total += chunk_records(test_path(path), seen, &copies,
				       &decodes);
		CHECK_EQ(copies, i ? 2 : 0);
		CHECK(decodes);
	}
	CHECK_EQ(total, nr + 2);
	for (cpu = 0; cpu < 2; cpu++)
		for (i = 0; i < seq[cpu]; i++)
			CHECK_EQ(seen[cpu][i], 1);
}

/* Rundown copies are bounded; what does not fit is counted. */
TEST(chunks_rundown_bound)
{
	struct ketw_output_info info;
	struct ketw_output *out;
	unsigned int i;
	size_t span;

	test_info(&info, 1);
	ASSERT_EQ(ketw_output_create(test_path("rb.0"), &info, &out), 0);
	ketw_output_keep_rundown(out, 2000);
	for (i = 0; i < 10; i++) {
		span = rundown_event(REC, 0, i);
		ASSERT_EQ(ketw_output_add_record(out, 0, REC, span), 0);
	}
	/* 648 bytes each: three fit in 2000. */
	CHECK_EQ(ketw_output_rundown_left_out(out), 7);
	CHECK(ketw_output_memory(out) <= 2000 + KETW_OUTPUT_CPU_BUFFER);
	ASSERT_EQ(ketw_output_rotate(out, test_path("rb.1")), 0);
	ASSERT_EQ(ketw_output_close(out), 0);
}
