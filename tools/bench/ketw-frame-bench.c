// SPDX-License-Identifier: GPL-2.0
/*
 * ketw-frame-bench: what the live stream's framing costs on this
 * machine (Documentation/ketw-stream.rst), for "make bench" (on the
 * host: no module needed).
 *
 * For records of a few sizes (a 64-byte header and a payload of 16, 200
 * and 2000 bytes, one byte in three of it a flag or an escape in the
 * "worst" row), it times:
 *   encode+decode  each record encoded into a frame (CRC-32C, stuffing),
 *                  then the whole stream fed to a decoder in 64 KiB reads
 *                  (its checks, unstuffing, the CRC again);
 *   file           the same records written by the trace file writer
 *                  (libketw's ketw_output_add_record(), sections, to
 *                  /dev/null): what ketw record does with them.
 * It prints frames/s and MB/s (of record bytes) for both, and the
 * framing's overhead: its time against the file's, and its bytes on the
 * wire against the records'. The fastest of REPS runs counts.
 *
 *   ketw-frame-bench [-n RECORDS] [-r REPS]    (200000, 5)
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libketw.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* A record of @len payload bytes, @special of them in three 0x7e/0x7d. */
static size_t make_record(unsigned char *p, size_t len, bool special,
			  uint64_t seq)
{
	struct ketw_event_header h = {
		.size = (uint16_t)(KETW_EVENT_HEADER_SIZE + len),
		.type = 10, .level = KETW_LEVEL_INFO, .version = 1,
		.event_id = 1, .thread_id = 100, .process_id = 100,
		.sequence = seq, .timestamp = 1000 + seq * 17, .keyword = 1,
	};
	size_t span = KETW_RECORD_SPAN(h.size), i;

	memset(p, 0, span);
	memcpy(p, &h, sizeof(h));
	for (i = 0; i < len; i++)
		p[sizeof(h) + i] = special && i % 3 == 0 ?
				   (i & 1 ? 0x7e : 0x7d) : (unsigned char)(i * 7);
	return span;
}

struct row {
	const char *name;
	size_t payload;
	bool special;
};

int main(int argc, char **argv)
{
	static const struct row rows[] = {
		{ "small", 16, false }, { "medium", 200, false },
		{ "large", 2000, false }, { "worst", 200, true },
	};
	static unsigned char rec[4096], dbuf[KETW_FRAME_BUF_SIZE];
	unsigned long nrec = 200000, reps = 5, r, i;
	struct ketw_frame_encoder enc;
	struct ketw_frame_decoder dec;
	struct ketw_output_info info;
	struct ketw_output *out;
	struct ketw_frame f;
	unsigned char *wire;
	uint64_t t0, best_fr, best_file, wire_len, raw, got;
	size_t span, cap, off, used, k;
	ssize_t n;
	int c, g;

	while ((c = getopt(argc, argv, "n:r:")) != -1) {
		if (c == 'n')
			nrec = strtoul(optarg, NULL, 0);
		else if (c == 'r')
			reps = strtoul(optarg, NULL, 0);
		else
			return 2;
	}
	if (!nrec || !reps)
		return 2;
	printf("%-7s %7s %13s %10s %13s %10s %8s %8s\n", "records", "bytes",
	       "frames/s", "MB/s", "file rec/s", "MB/s", "time", "bytes");
	for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		span = make_record(rec, rows[k].payload, rows[k].special, 0);
		cap = nrec * KETW_FRAME_WIRE_MAX(span) + 16;
		wire = malloc(cap);
		if (!wire) {
			perror("malloc");
			return 1;
		}
		best_fr = best_file = UINT64_MAX;
		wire_len = 0;
		got = 0;
		for (r = 0; r < reps; r++) {
			/* Encode every record, then decode the stream. */
			t0 = now_ns();
			ketw_frame_encoder_init(&enc, 0);
			for (off = 0, i = 0; i < nrec; i++) {
				((struct ketw_event_header *)rec)->sequence = i;
				n = ketw_frame_encode(&enc, KETW_FRAME_RECORD,
						      rec, span, wire + off,
						      cap - off);
				if (n < 0)
					return 1;
				off += n;
			}
			ketw_frame_decoder_init(&dec, dbuf, sizeof(dbuf));
			for (got = 0, i = 0; i < off; i += used) {
				size_t piece = off - i < 65536 ? off - i : 65536;

				used = ketw_frame_decode(&dec, wire + i, piece,
							 &f, &g);
				got += g;
			}
			t0 = now_ns() - t0;
			if (t0 < best_fr)
				best_fr = t0;
			wire_len = off;

			/* The same records through the file writer. */
			memset(&info, 0, sizeof(info));
			info.nr_cpus = 1;
			info.clock = KETW_CLOCK_MONO;
			if (ketw_output_create("/dev/null", &info, &out))
				return 1;
			t0 = now_ns();
			for (i = 0; i < nrec; i++) {
				((struct ketw_event_header *)rec)->sequence = i;
				if (ketw_output_add_record(out, 0, rec, span))
					return 1;
			}
			ketw_output_flush(out);
			t0 = now_ns() - t0;
			ketw_output_close(out);
			if (t0 < best_file)
				best_file = t0;
		}
		if (got != nrec || dec.st.bad_checksum) {
			fprintf(stderr, "frame-bench: decoded %llu of %lu\n",
				(unsigned long long)got, nrec);
			return 1;
		}
		raw = (uint64_t)nrec * span;
		printf("%-7s %7zu %13.0f %10.1f %13.0f %10.1f %7.2fx %7.3fx\n",
		       rows[k].name, span, nrec * 1e9 / best_fr,
		       raw * 1e3 / best_fr, nrec * 1e9 / best_file,
		       raw * 1e3 / best_file, (double)best_fr / best_file,
		       (double)wire_len / raw);
		free(wire);
	}
	printf("frames/s, MB/s: encode+decode of RECORD frames (CRC-32C, %s); file: the\n"
	       "trace file writer, to /dev/null; time: framing's against the file's;\n"
	       "bytes: on the wire against the records' (flags, escapes, seq, type, CRC)\n",
	       ketw_crc32c(0, "123456789", 9) == ketw_crc32c_portable(0, "123456789", 9) ?
	       "this CPU" : "?");
	return 0;
}
