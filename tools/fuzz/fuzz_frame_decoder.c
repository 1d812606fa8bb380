// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the stream frame decoder (lib/frame.c) over arbitrary
 * bytes, fed in pieces whose sizes the input's first byte chooses. Every
 * frame it delivers must lie in its buffer and survive a round trip
 * through the encoder; the counters must add up. The frames then go to
 * a stream receiver (lib/stream.c) as ketw listen hands them, writing
 * to /dev/null: the PREAMBLE's checks, records, STATUS and END.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libketw.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned char buf[KETW_FRAME_BUF_SIZE], buf2[KETW_FRAME_BUF_SIZE];
static unsigned char wire[KETW_FRAME_WIRE_MAX(KETW_FRAME_MAX_DATA)];

/* Re-encode @f and decode it again: the same frame. */
static void fuzz_round_trip(const struct ketw_frame *f)
{
	struct ketw_frame_encoder enc;
	struct ketw_frame_decoder dec;
	struct ketw_frame g;
	ssize_t n;
	size_t used;
	int got;

	ketw_frame_encoder_init(&enc, f->seq);
	n = ketw_frame_encode(&enc, f->type, f->data, f->len, wire,
			      sizeof(wire));
	if (n < 0)
		abort();
	ketw_frame_decoder_init(&dec, buf2, sizeof(buf2));
	used = ketw_frame_decode(&dec, wire, (size_t)n, &g, &got);
	if (!got || used != (size_t)n || g.seq != f->seq ||
	    g.type != f->type || g.len != f->len ||
	    memcmp(g.data, f->data, f->len))
		abort();
}

/* What ketw listen does with a frame: a receiver from a PREAMBLE on. */
static void fuzz_receive(struct ketw_stream_rx **rx,
			 const struct ketw_frame *f)
{
	struct ketw_stream_desc d;
	char err[128];
	int ret;

	if (!*rx) {
		if (ketw_stream_preamble_parse(f, &d, err, sizeof(err)))
			return;
		if (d.hdr.nr_cpus > 8192)
			return;		/* ketw listen's bound: LISTEN_MAX_CPUS */
		if (ketw_stream_rx_create("/dev/null", &d,
					  KETW_OUTPUT_LIMIT_MIN, rx))
			abort();
	}
	ret = ketw_stream_rx_frame(*rx, f);
	if (ret && ret != -EBADMSG)
		abort();
	if (ketw_stream_rx_memory(*rx) > (8u << 20))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ketw_stream_rx *rx = NULL;
	struct ketw_frame_decoder dec;
	struct ketw_frame f;
	size_t piece, off = 0, chunk, used, cap;
	uint64_t frames = 0;
	int got;

	if (size < 1)
		return 0;
	/* 0: all at once; else pieces of 1..255 bytes. */
	piece = data[0];
	/* A small buffer sometimes, to reach the oversize path. */
	cap = data[0] & 0x80 ? 64 : sizeof(buf);
	data++;
	size--;
	ketw_frame_decoder_init(&dec, buf, cap);
	while (off < size) {
		chunk = piece ? piece : size - off;
		if (chunk > size - off)
			chunk = size - off;
		while (chunk) {
			used = ketw_frame_decode(&dec, data + off, chunk, &f,
						 &got);
			if (used > chunk || (!got && used != chunk))
				abort();
			off += used;
			chunk -= used;
			if (!got)
				continue;
			frames++;
			if (f.data < buf || f.data + f.len > buf + cap ||
			    f.len > KETW_FRAME_MAX_DATA)
				abort();
			fuzz_round_trip(&f);
			fuzz_receive(&rx, &f);
		}
	}
	ketw_frame_decoder_eof(&dec);
	if (rx) {
		ketw_stream_rx_add_link(rx, &dec.st);
		if (ketw_stream_rx_close(rx))
			abort();
	}
	if (dec.st.frames != frames || dec.st.bytes != size ||
	    dec.st.skipped > size)
		abort();
	return 0;
}
