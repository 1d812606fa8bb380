// SPDX-License-Identifier: GPL-2.0
/*
 * Tests: stream frames (lib/frame.c, lib/crc32c.c): the checksum, the
 * worked example of Documentation/ketw-stream.rst byte for byte, round
 * trips fed in pieces of every size, and what the decoder makes of
 * damage: flipped bits, dropped, duplicated and truncated frames,
 * oversize frames, aborts, junk, a cut input and a restarted stream.
 */
#include <errno.h>
#include <stdlib.h>

#include "test.h"

/* A deterministic generator for the tests' data (xorshift64*). */
static uint64_t frame_rng = 88172645463325252ull;

static uint32_t frame_rand(void)
{
	frame_rng ^= frame_rng >> 12;
	frame_rng ^= frame_rng << 25;
	frame_rng ^= frame_rng >> 27;
	return (uint32_t)((frame_rng * 2685821657736338717ull) >> 32);
}

/* Bytes rich in flags and escapes: every third one is 0x7e or 0x7d. */
static void frame_fill(unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		uint32_t r = frame_rand();

		p[i] = r % 3 ? (unsigned char)(r >> 8) :
		       r & 0x100 ? KETW_FRAME_FLAG : KETW_FRAME_ESC;
	}
}

static unsigned char dec_buf[KETW_FRAME_BUF_SIZE];

/*
 * Feed @len bytes to @dec in pieces of @piece bytes (0: random sizes),
 * collecting the frames' sequence numbers into @seqs (up to @max).
 * Returns how many frames came out.
 */
static unsigned int frame_feed(struct ketw_frame_decoder *dec,
			       const unsigned char *in, size_t len,
			       size_t piece, uint32_t *seqs, unsigned int max)
{
	struct ketw_frame f;
	unsigned int n = 0;
	size_t off = 0, chunk, used;
	int got;

	while (off < len) {
		chunk = piece ? piece : 1 + frame_rand() % 4000;
		if (chunk > len - off)
			chunk = len - off;
		while (chunk) {
			used = ketw_frame_decode(dec, in + off, chunk, &f, &got);
			off += used;
			chunk -= used;
			if (got && n < max)
				seqs[n] = f.seq;
			n += got;
		}
	}
	return n;
}

TEST(frame_crc32c)
{
	static unsigned char data[4096 + 16];
	uint32_t whole, parts;
	size_t i, len, start;

	CHECK_EQ(ketw_crc32c(0, "123456789", 9), 0xe3069283u);
	CHECK_EQ(ketw_crc32c_portable(0, "123456789", 9), 0xe3069283u);
	CHECK_EQ(ketw_crc32c(0, "", 0), 0);
	frame_fill(data, sizeof(data));
	/* Every alignment and many lengths: the CPU's way and the tables. */
	for (i = 0; i < 300; i++) {
		start = i % 16;
		len = i < 64 ? i : frame_rand() % 4096;
		whole = ketw_crc32c(0, data + start, len);
		CHECK_EQ(whole, ketw_crc32c_portable(0, data + start, len));
		/* In two calls: the same. */
		parts = ketw_crc32c(0, data + start, len / 3);
		parts = ketw_crc32c(parts, data + start + len / 3,
				    len - len / 3);
		CHECK_EQ(whole, parts);
	}
}

/* Documentation/ketw-stream.rst, "A worked example": keep them equal. */
TEST(frame_worked_example)
{
	static const unsigned char want[] = {
		0x7e,				/* the opening flag */
		0x7d, 0x5d, 0x00, 0x00, 0x00,	/* seq 0x7d, stuffed */
		0x04,				/* END */
		0x7d, 0x5e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0xcd, 0x1f, 0x4f, 0x42,		/* CRC-32C 0x424f1fcd */
		0x7e,				/* the closing flag */
	};
	static const unsigned char unstuffed[] = {
		0x7d, 0x00, 0x00, 0x00, 0x04,
		0x7e, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
	};
	struct ketw_stream_end end = { .records = 126 };
	struct ketw_frame_encoder enc;
	struct ketw_frame_decoder dec;
	unsigned char out[KETW_FRAME_WIRE_MAX(sizeof(end))];
	struct ketw_frame f;
	ssize_t n;
	int got;

	if (*(const unsigned char *)&(uint32_t){ 1 } != 1)
		SKIP("the example is a little-endian writer's");
	CHECK_EQ(ketw_crc32c(0, unstuffed, sizeof(unstuffed)), 0x424f1fcdu);
	ketw_frame_encoder_init(&enc, 0x7d);
	n = ketw_frame_encode(&enc, KETW_FRAME_END, &end, sizeof(end), out,
			      sizeof(out));
	ASSERT_EQ(n, sizeof(want));
	CHECK(!memcmp(out, want, sizeof(want)));
	CHECK_EQ(enc.seq, 0x7e);
	CHECK_EQ(enc.frames, 1);
	CHECK_EQ(enc.bytes, sizeof(want));

	ketw_frame_decoder_init(&dec, dec_buf, sizeof(dec_buf));
	CHECK_EQ(ketw_frame_decode(&dec, want, sizeof(want), &f, &got),
		 sizeof(want));
	ASSERT_EQ(got, 1);
	CHECK_EQ(f.seq, 0x7d);
	CHECK_EQ(f.type, KETW_FRAME_END);
	ASSERT_EQ(f.len, sizeof(end));
	CHECK(!memcmp(f.data, &end, sizeof(end)));
	CHECK_STR(ketw_frame_type_name(f.type), "END");
	CHECK_EQ(dec.st.skipped, 0);
}

#define NR_FRAMES	200

/* Encode NR_FRAMES frames of random sizes into a malloc()ed stream. */
static unsigned char *frame_stream(size_t *len, size_t *ends, size_t max_data)
{
	static unsigned char data[KETW_FRAME_MAX_DATA];
	size_t cap = NR_FRAMES * KETW_FRAME_WIRE_MAX(max_data), off = 0, dlen;
	struct ketw_frame_encoder enc;
	unsigned char *s = malloc(cap);
	unsigned int i;
	ssize_t n;

	if (!s)
		return NULL;
	ketw_frame_encoder_init(&enc, 0);
	for (i = 0; i < NR_FRAMES; i++) {
		dlen = i == 0 ? 0 : i == 1 ? max_data :
		       frame_rand() % (max_data + 1);
		frame_fill(data, dlen);
		n = ketw_frame_encode(&enc, KETW_FRAME_RECORD, data, dlen,
				      s + off, cap - off);
		if (n < 0) {
			free(s);
			return NULL;
		}
		off += n;
		ends[i] = off;	/* each frame ends with its flag */
	}
	*len = off;
	return s;
}

TEST(frame_round_trip_any_pieces)
{
	static const size_t pieces[] = { 1, 2, 3, 7, 8, 9, 64, 4096, 0 };
	static unsigned char data[KETW_FRAME_MAX_DATA];
	struct ketw_frame_encoder enc;
	struct ketw_frame_decoder dec;
	struct ketw_frame f;
	unsigned char *wire;
	uint32_t seqs[NR_FRAMES];
	size_t ends[NR_FRAMES], len, i, dlen, used;
	int got;

	wire = frame_stream(&len, ends, 3000);
	ASSERT(wire);
	for (i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
		ketw_frame_decoder_init(&dec, dec_buf, sizeof(dec_buf));
		CHECK_EQ(frame_feed(&dec, wire, len, pieces[i], seqs,
				    NR_FRAMES), NR_FRAMES);
		CHECK_EQ(dec.st.frames, NR_FRAMES);
		CHECK_EQ(dec.st.bytes, len);
		CHECK_EQ(dec.st.bad_checksum + dec.st.seq_gaps +
			 dec.st.duplicates + dec.st.oversize +
			 dec.st.skipped, 0);
		CHECK_EQ(seqs[NR_FRAMES - 1], NR_FRAMES - 1);
	}
	free(wire);

	/* The largest frame, data compared. */
	ketw_frame_encoder_init(&enc, 5);
	frame_fill(data, sizeof(data));
	wire = malloc(KETW_FRAME_WIRE_MAX(sizeof(data)));
	ASSERT(wire);
	len = ketw_frame_encode(&enc, 77, data, sizeof(data), wire,
				KETW_FRAME_WIRE_MAX(sizeof(data)));
	ketw_frame_decoder_init(&dec, dec_buf, sizeof(dec_buf));
	used = ketw_frame_decode(&dec, wire, len, &f, &got);
	CHECK_EQ(used, len);
	ASSERT_EQ(got, 1);
	CHECK_EQ(f.type, 77);
	CHECK(!ketw_frame_type_name(77));
	dlen = f.len;
	ASSERT_EQ(dlen, sizeof(data));
	CHECK(!memcmp(f.data, data, sizeof(data)));
	free(wire);
}

TEST(frame_encoder_errors)
{
	static unsigned char out[KETW_FRAME_WIRE_MAX(KETW_FRAME_MAX_DATA + 1)];
	struct ketw_frame_encoder enc;

	ketw_frame_encoder_init(&enc, 0);
	CHECK_EQ(ketw_frame_encode(&enc, 2, out, KETW_FRAME_MAX_DATA + 1,
				   out, sizeof(out)), -EMSGSIZE);
	CHECK_EQ(ketw_frame_encode(&enc, 256, out, 1, out, sizeof(out)),
		 -EMSGSIZE);
	CHECK_EQ(ketw_frame_encode(&enc, 2, out, 10, out,
				   KETW_FRAME_WIRE_MAX(10) - 1), -ENOSPC);
	CHECK_EQ(enc.seq, 0);
	CHECK_EQ(enc.frames, 0);
	/* Only the first frame opens with a flag, until a restart. */
	CHECK(ketw_frame_encode(&enc, 2, "a", 1, out, sizeof(out)) >= 12);
	CHECK_EQ(out[0], KETW_FRAME_FLAG);
	CHECK_EQ(out[1], 0);		/* seq 0 */
	CHECK(ketw_frame_encode(&enc, 2, "a", 1, out, sizeof(out)) >= 11);
	CHECK_EQ(out[0], 1);		/* seq 1, no flag before it */
	ketw_frame_encoder_restart(&enc);
	CHECK(ketw_frame_encode(&enc, 2, "a", 1, out, sizeof(out)) >= 12);
	CHECK_EQ(out[0], KETW_FRAME_FLAG);
	CHECK_EQ(out[1], 2);
	CHECK_EQ(enc.seq, 3);
}

/*
 * Damage frame @k of a clean stream in one of several ways and check the
 * decoder loses that frame only, and counts it as it should.
 */
enum frame_damage { FLIP, DROP, DUP, TRUNC, ABORT };

static void frame_damaged(enum frame_damage how, unsigned int k)
{
	size_t ends[NR_FRAMES], len, start, flen, olen = 0, i;
	unsigned char *wire, *out;
	struct ketw_frame_decoder dec;
	uint32_t seqs[NR_FRAMES];
	unsigned int n, bit;

	wire = frame_stream(&len, ends, 500);
	ASSERT(wire);
	out = malloc(2 * len + 16);
	ASSERT(out);
	/* Frame k: from after the previous flag to its own flag. */
	start = k ? ends[k - 1] : 1;
	flen = ends[k] - start;	/* its flag included */
	memcpy(out, wire, start);
	olen = start;
	switch (how) {
	case FLIP:
		memcpy(out + olen, wire + start, flen);
		/* A bit of a byte that is neither flag nor escape, nor becomes one. */
		for (;;) {
			i = frame_rand() % (flen - 1);
			bit = frame_rand() % 8;
			if (out[olen + i] != KETW_FRAME_FLAG &&
			    out[olen + i] != KETW_FRAME_ESC &&
			    (out[olen + i] ^ (1u << bit)) != KETW_FRAME_FLAG &&
			    (out[olen + i] ^ (1u << bit)) != KETW_FRAME_ESC)
				break;
		}
		out[olen + i] ^= 1u << bit;
		olen += flen;
		break;
	case DROP:
		break;
	case DUP:
		memcpy(out + olen, wire + start, flen);
		olen += flen;
		memcpy(out + olen, wire + start, flen);
		olen += flen;
		break;
	case TRUNC:
		i = 1 + frame_rand() % (flen - 2);
		memcpy(out + olen, wire + start, i);
		olen += i;
		/* Never end on an escape (that is ABORT), never empty. */
		if (out[olen - 1] == KETW_FRAME_ESC)
			out[olen - 1] = 0;
		out[olen++] = KETW_FRAME_FLAG;
		break;
	case ABORT:
		memcpy(out + olen, wire + start, flen / 2);
		olen += flen / 2;
		if (out[olen - 1] == KETW_FRAME_ESC)
			olen--;
		out[olen++] = KETW_FRAME_ESC;
		out[olen++] = KETW_FRAME_FLAG;
		break;
	}
	memcpy(out + olen, wire + ends[k], len - ends[k]);
	olen += len - ends[k];

	ketw_frame_decoder_init(&dec, dec_buf, sizeof(dec_buf));
	n = frame_feed(&dec, out, olen, 0, seqs, NR_FRAMES);
	CHECK_EQ(n, how == DUP ? NR_FRAMES : NR_FRAMES - 1);
	/* The first frame a decoder sees sets the sequence: no gap before it. */
	CHECK_EQ(dec.st.seq_gaps, how == DUP || k == 0 ? 0 : 1);
	CHECK_EQ(dec.st.duplicates, how == DUP ? 1 : 0);
	CHECK_EQ(dec.st.bad_checksum, how == FLIP || how == TRUNC ||
				      how == ABORT ? 1 : 0);
	CHECK_EQ(dec.st.oversize + dec.st.partial, 0);
	/* Skipped: the damaged frame's bytes, nothing else. */
	if (how == FLIP)
		CHECK_EQ(dec.st.skipped, flen - 1);
	if (how == DROP || how == DUP)
		CHECK_EQ(dec.st.skipped, 0);
	if (how != DUP)
		for (i = 0; i < n; i++)
			CHECK_EQ(seqs[i], i < k ? i : i + 1);
	free(wire);
	free(out);
}

TEST(frame_damage_loses_only_that_frame)
{
	static const unsigned int ks[] = { 0, 1, 57, NR_FRAMES - 2 };
	unsigned int i, how;

	for (how = FLIP; how <= ABORT; how++)
		for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
			frame_damaged(how, ks[i]);
}

TEST(frame_every_bit_flip_is_caught)
{
	unsigned char wire[KETW_FRAME_WIRE_MAX(40)], bad[sizeof(wire)];
	struct ketw_frame_encoder enc;
	struct ketw_frame_decoder dec;
	uint32_t seqs[4];
	unsigned char data[40];
	size_t len, i;
	unsigned int bit, n, good = 0;

	frame_fill(data, sizeof(data));
	ketw_frame_encoder_init(&enc, 9);
	len = ketw_frame_encode(&enc, 2, data, sizeof(data), wire,
				sizeof(wire));
	/* Every single bit of every byte but the flags: never a good frame. */
	for (i = 1; i + 1 < len; i++)
		for (bit = 0; bit < 8; bit++) {
			memcpy(bad, wire, len);
			bad[i] ^= 1u << bit;
			ketw_frame_decoder_init(&dec, dec_buf, sizeof(dec_buf));
			n = frame_feed(&dec, bad, len, len, seqs, 4);
			good += n;
			CHECK(dec.st.bad_checksum + dec.st.partial >= 1 ||
			      dec.st.skipped > 0);
		}
	CHECK_EQ(good, 0);
}

TEST(frame_junk_oversize_and_cut)
{
	unsigned char small[64], wire[4 * KETW_FRAME_WIRE_MAX(200)];
	unsigned char data[200];
	struct ketw_frame_encoder enc;
	struct ketw_frame_decoder dec;
	uint32_t seqs[8];
	size_t len = 0;
	unsigned int n;

	/* Junk first: skipped up to the first flag. */
	memcpy(wire, "junk!", 5);
	len = 5;
	frame_fill(data, sizeof(data));
	ketw_frame_encoder_init(&enc, 0);
	len += ketw_frame_encode(&enc, 2, data, 10, wire + len,
				 sizeof(wire) - len);
	len += ketw_frame_encode(&enc, 2, data, sizeof(data), wire + len,
				 sizeof(wire) - len);
	len += ketw_frame_encode(&enc, 2, data, 20, wire + len,
				 sizeof(wire) - len);
	/* And half a frame the input ends in. */
	wire[len++] = 0x11;
	wire[len++] = 0x22;

	/* A buffer too small for the 200-byte frame: oversize, then in step. */
	ketw_frame_decoder_init(&dec, small, sizeof(small));
	n = frame_feed(&dec, wire, len, 3, seqs, 8);
	CHECK_EQ(n, 2);
	CHECK_EQ(seqs[0], 0);
	CHECK_EQ(seqs[1], 2);
	CHECK_EQ(dec.st.oversize, 1);
	CHECK_EQ(dec.st.seq_gaps, 1);
	CHECK_EQ(dec.st.bad_checksum, 0);
	CHECK_EQ(dec.st.partial, 0);
	ketw_frame_decoder_eof(&dec);
	CHECK_EQ(dec.st.partial, 1);
	ketw_frame_decoder_eof(&dec);
	CHECK_EQ(dec.st.partial, 1);
	/* Junk 5, the oversize frame's bytes, the 2 cut bytes. */
	CHECK(dec.st.skipped > 5 + 200 + 2);
	CHECK_EQ(dec.st.bytes, len);

	/* A decoder fed nothing but junk finds nothing and counts it. */
	ketw_frame_decoder_init(&dec, small, sizeof(small));
	n = frame_feed(&dec, (const unsigned char *)"no flag here", 12, 0,
		       seqs, 8);
	CHECK_EQ(n, 0);
	CHECK_EQ(dec.st.skipped, 12);
	/* A lone flag pair is a fill, not an error. */
	n = frame_feed(&dec, (const unsigned char *)"\x7e\x7e\x7e", 3, 0,
		       seqs, 8);
	CHECK_EQ(n, 0);
	CHECK_EQ(dec.st.bad_checksum, 0);
	/* A runt, shorter than a checksum, is a bad frame. */
	n = frame_feed(&dec, (const unsigned char *)"abc\x7e", 4, 0, seqs, 8);
	CHECK_EQ(n, 0);
	CHECK_EQ(dec.st.bad_checksum, 1);
}

TEST(frame_sequence_wraps_and_restarts)
{
	unsigned char wire[8 * KETW_FRAME_WIRE_MAX(4)];
	struct ketw_frame_encoder enc;
	struct ketw_frame_decoder dec;
	uint32_t seqs[8];
	size_t len = 0;
	unsigned int n;

	/* 0xfffffffe, 0xffffffff, 0, 1: no gap at the wrap. */
	ketw_frame_encoder_init(&enc, 0xfffffffeu);
	for (n = 0; n < 4; n++)
		len += ketw_frame_encode(&enc, 2, "abcd", 4, wire + len,
					 sizeof(wire) - len);
	/* A new stream from 0: its PREAMBLE restarts the sequence... */
	ketw_frame_encoder_init(&enc, 0);
	len += ketw_frame_encode(&enc, KETW_FRAME_PREAMBLE, "p", 1,
				 wire + len, sizeof(wire) - len);
	len += ketw_frame_encode(&enc, 2, "abcd", 4, wire + len,
				 sizeof(wire) - len);
	/* ...and a RECORD behind the sequence is a duplicate. */
	ketw_frame_encoder_init(&enc, 0);
	len += ketw_frame_encode(&enc, 2, "abcd", 4, wire + len,
				 sizeof(wire) - len);

	ketw_frame_decoder_init(&dec, dec_buf, sizeof(dec_buf));
	n = frame_feed(&dec, wire, len, 0, seqs, 8);
	CHECK_EQ(n, 6);
	CHECK_EQ(seqs[1], 0xffffffffu);
	CHECK_EQ(seqs[2], 0);
	CHECK_EQ(seqs[4], 0);
	CHECK_EQ(seqs[5], 1);
	CHECK_EQ(dec.st.seq_gaps, 0);
	CHECK_EQ(dec.st.restarts, 1);
	CHECK_EQ(dec.st.duplicates, 1);
}
