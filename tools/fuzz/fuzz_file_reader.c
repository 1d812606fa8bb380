// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the .ketw file reader (lib/input.c) over arbitrary
 * bytes, strict and then (if that refuses them) KETW_INPUT_PARTIAL, then everything report does with what it accepted: the header,
 * the per-CPU counters, every record merged across CPUs, its line, its
 * system payload, its hex dump, and its template (a fixed set).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "libketw.h"
#include "template.h"

static const char templates[] =
	"provider sample\n"
	"1 L=KERN \"one\" U4 \" \" A0 SWITCH U1, 1 { X2 }, \\* { $0002 }\n"
	"2 \"two\" LOOP U1 { D2 \" \" } BITFLAGS U2, 1 \"a\" \"b\", & 6 2 \"c\"\n"
	"provider 6b657477-7361-6d70-6c65-000000000001\n"
	"1 L=INT \"g\" {{ $x = $D1 / ($D2 | 1) }} $x%X X0\n";

static FILE *sink;
static struct ketw_templates *tset;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Walk a record's items: each must lie inside the record, before its payload. */
static uint64_t fuzz_items(const struct ketw_record *rec)
{
	const unsigned char *start = (const unsigned char *)rec->hdr;
	struct ketw_ext_activity a;
	struct ketw_ext_cpu_time t;
	struct ketw_ext_iter it;
	struct ketw_ext_view v;
	uint64_t addrs[64], sum = 0;

	if (ketw_record_items(rec, &it) <= 0)
		return 0;
	while (ketw_ext_next(&it, &v) > 0) {
		const unsigned char *d = v.data;

		if (d < start + KETW_EVENT_HEADER_SIZE ||
		    d + v.size > rec->data)
			abort();
		if (v.size)
			sum += d[0] + d[v.size - 1];
	}
	sum += ketw_record_addrs(rec, KETW_EXT_KSTACK, addrs, 64);
	if (!ketw_record_cpu_time(rec, &t))
		sum += t.runtime_ns;
	if (!ketw_record_activity(rec, &a))
		sum += a.activity[0];
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ketw_template_buf buf;
	const struct ketw_file_header *h;
	const struct ketw_file_cpu_stats *st;
	struct ketw_input *in;
	struct ketw_record rec;
	char err[256], line[1024], sys[2048];
	unsigned int cpu, n, pass;
	uint64_t sum = 0;

	if (!sink) {
		sink = fopen("/dev/null", "w");
		if (!sink ||
		    ketw_templates_parse(templates, sizeof(templates) - 1,
					 "fuzz", &tset, err, sizeof(err))) {
			fprintf(stderr, "fuzz_file_reader: setup: %s\n", err);
			abort();
		}
	}
	/* Strict, then as report opens it: up to the last whole section. */
	if (ketw_input_open_mem(data, size, &in, err, sizeof(err))) {
		if (ketw_input_open_mem_flags(data, size, KETW_INPUT_PARTIAL,
					      &in, err, sizeof(err)))
			return 0;
		if (!ketw_input_truncated(in) ||
		    ketw_input_read_bytes(in) > size)
			abort();
	} else if (ketw_input_truncated(in)) {
		abort();
	}
	sum += ketw_input_nr_sections(in) + ketw_input_nr_records(in);
	h = ketw_input_header(in);
	n = ketw_input_nr_cpus(in);
	if (n != h->nr_cpus)
		abort();
	for (cpu = 0; cpu < n && cpu < 4096; cpu++) {
		sum += ketw_input_cpu_records(in, cpu);
		sum += ketw_input_cpu_gaps(in, cpu);
		st = ketw_input_cpu_stats(in, cpu);
		if (st)
			sum += st->written + st->lost_full;
	}
	ketw_templates_bind_input(tset, in);
	for (pass = 0; pass < 2; pass++) {
		while (ketw_input_next(in, &rec) > 0) {
			if (rec.cpu >= n || rec.data_len > 0xffff)
				abort();
			ketw_record_format(&rec, line, sizeof(line));
			ketw_sys_payload_format(&rec, sys, sizeof(sys));
			ketw_hexdump(sink, "  ", rec.data, rec.data_len);
			sum += fuzz_items(&rec);
			ketw_template_print(tset, &rec, ketw_input_swapped(in),
					    "  ", &buf, sink);
			if (pass)
				break;	/* the second pass: rewind works */
		}
		ketw_input_rewind(in);
	}
	fprintf(sink, "%llu\n", (unsigned long long)sum);
	ketw_input_close(in);
	return 0;
}
