// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: stream frames (ketw_stream.h, Documentation/ketw-stream.rst).
 *
 * The encoder writes seq, type, data and the CRC-32C of those, byte
 * stuffed, then a flag. The decoder is a three-state machine over the
 * bytes it is fed: HUNT (discarding up to a flag: the start of the input,
 * and after an oversize frame), DATA and ESC (the byte after 0x7d). A
 * flag ends the frame in the buffer, which is then checked: length,
 * checksum, sequence. Runs of ordinary bytes are found eight at a time
 * and copied whole, in both directions.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

enum { KETW_DEC_HUNT, KETW_DEC_DATA, KETW_DEC_ESC };

const char *ketw_frame_type_name(unsigned int type)
{
	switch (type) {
	case KETW_FRAME_PREAMBLE:	return "PREAMBLE";
	case KETW_FRAME_RECORD:		return "RECORD";
	case KETW_FRAME_STATUS:		return "STATUS";
	case KETW_FRAME_END:		return "END";
	default:			return NULL;
	}
}

static void ketw_put_le32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static uint32_t ketw_get_le32(const unsigned char *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/*
 * Could any of these 8 bytes be a flag or an escape? 0x7c..0x7f are the
 * bytes whose value | 3 is 0x7f: a zero byte in (x | 3s) ^ 0x7fs. May
 * say yes for 0x7c and 0x7f (the caller then looks byte by byte), never
 * no for 0x7d or 0x7e.
 */
static bool ketw_maybe_special(const unsigned char *p)
{
	const uint64_t ones = 0x0101010101010101ull;
	const uint64_t highs = 0x8080808080808080ull;
	uint64_t x;

	memcpy(&x, p, sizeof(x));
	x = (x | 0x0303030303030303ull) ^ 0x7f7f7f7f7f7f7f7full;
	return ((x - ones) & ~x & highs) != 0;
}

static bool ketw_special(unsigned char c)
{
	return c == KETW_FRAME_FLAG || c == KETW_FRAME_ESC;
}

/* Stuff @len bytes of @in at @o; returns the end. */
static unsigned char *ketw_stuff(unsigned char *o, const unsigned char *in,
				 size_t len)
{
	const unsigned char *end = in + len;

	while (in < end) {
		if (end - in >= 8 && !ketw_maybe_special(in)) {
			memcpy(o, in, 8);
			o += 8;
			in += 8;
			continue;
		}
		if (ketw_special(*in)) {
			*o++ = KETW_FRAME_ESC;
			*o++ = *in++ ^ KETW_FRAME_XOR;
		} else {
			*o++ = *in++;
		}
	}
	return o;
}

void ketw_frame_encoder_init(struct ketw_frame_encoder *enc,
			     uint32_t first_seq)
{
	memset(enc, 0, sizeof(*enc));
	enc->seq = first_seq;
}

void ketw_frame_encoder_restart(struct ketw_frame_encoder *enc)
{
	enc->open = false;
}

ssize_t ketw_frame_encode(struct ketw_frame_encoder *enc, unsigned int type,
			  const void *data, size_t len, void *out, size_t size)
{
	unsigned char head[5], tail[4], *o = out;
	uint32_t crc;

	if (len > KETW_FRAME_MAX_DATA || type > 0xff)
		return -EMSGSIZE;
	if (size < KETW_FRAME_WIRE_MAX(len))
		return -ENOSPC;
	ketw_put_le32(head, enc->seq);
	head[4] = type;
	crc = ketw_crc32c(0, head, sizeof(head));
	crc = ketw_crc32c(crc, data, len);
	ketw_put_le32(tail, crc);

	if (!enc->open)
		*o++ = KETW_FRAME_FLAG;
	o = ketw_stuff(o, head, sizeof(head));
	o = ketw_stuff(o, data, len);
	o = ketw_stuff(o, tail, sizeof(tail));
	*o++ = KETW_FRAME_FLAG;

	enc->open = true;
	enc->seq++;
	enc->frames++;
	enc->bytes += o - (unsigned char *)out;
	return o - (unsigned char *)out;
}

void ketw_frame_decoder_init(struct ketw_frame_decoder *dec, void *buf,
			     size_t cap)
{
	memset(dec, 0, sizeof(*dec));
	dec->buf = buf;
	dec->cap = cap;
	dec->state = KETW_DEC_HUNT;
}

/* The frame in the buffer failed: its bytes were for nothing. */
static void ketw_frame_drop(struct ketw_frame_decoder *dec, uint64_t *count)
{
	(*count)++;
	dec->st.skipped += dec->wire;
	dec->len = 0;
	dec->wire = 0;
}

/*
 * A flag ended the frame in the buffer: 1 and @f filled if it is good
 * and in sequence, else 0 (counted).
 */
static int ketw_frame_check(struct ketw_frame_decoder *dec,
			    struct ketw_frame *f)
{
	size_t len = dec->len;
	uint32_t seq, crc;
	int32_t d;

	if (!len && !dec->wire)
		return 0;	/* two flags: an empty frame, or a fill */
	if (len < KETW_FRAME_OVERHEAD) {
		ketw_frame_drop(dec, &dec->st.bad_checksum);
		return 0;
	}
	crc = ketw_crc32c(0, dec->buf, len - 4);
	if (crc != ketw_get_le32(dec->buf + len - 4)) {
		ketw_frame_drop(dec, &dec->st.bad_checksum);
		return 0;
	}
	seq = ketw_get_le32(dec->buf);
	f->seq = seq;
	f->type = dec->buf[4];
	f->data = dec->buf + 5;
	f->len = len - KETW_FRAME_OVERHEAD;
	f->gap = 0;
	dec->len = 0;
	dec->wire = 0;
	if (dec->have_seq) {
		d = (int32_t)(seq - dec->next_seq);
		if (d < 0 && f->type != KETW_FRAME_PREAMBLE) {
			dec->st.duplicates++;
			return 0;
		}
		if (d < 0)
			dec->st.restarts++;
		else
			f->gap = (uint32_t)d;
	}
	dec->st.seq_gaps += f->gap;
	dec->have_seq = true;
	dec->next_seq = seq + 1;
	dec->st.frames++;
	return 1;
}

size_t ketw_frame_decode(struct ketw_frame_decoder *dec, const void *in,
			 size_t len, struct ketw_frame *f, int *got)
{
	const unsigned char *p = in, *end = p + len, *run;
	size_t n;

	*got = 0;
	while (p < end) {
		unsigned char c = *p;

		if (dec->state == KETW_DEC_HUNT) {
			run = memchr(p, KETW_FRAME_FLAG, end - p);
			n = run ? (size_t)(run - p) : (size_t)(end - p);
			dec->st.skipped += n;
			p += n;
			if (!run)
				break;
			p++;	/* the flag */
			dec->state = KETW_DEC_DATA;
			dec->len = 0;
			dec->wire = 0;
			continue;
		}
		if (dec->state == KETW_DEC_ESC) {
			p++;
			dec->wire++;
			if (c == KETW_FRAME_FLAG) {	/* an abort */
				dec->wire--;	/* the flag opens the next */
				ketw_frame_drop(dec, &dec->st.bad_checksum);
				dec->state = KETW_DEC_DATA;
				continue;
			}
			dec->state = KETW_DEC_DATA;
			c ^= KETW_FRAME_XOR;
			goto store;
		}
		/* DATA: a run of ordinary bytes at once. */
		for (run = p; end - run >= 8 && !ketw_maybe_special(run);)
			run += 8;
		while (run < end && !ketw_special(*run))
			run++;
		n = run - p;
		if (n) {
			if (n > dec->cap - dec->len)
				goto oversize;
			memcpy(dec->buf + dec->len, p, n);
			dec->len += n;
			dec->wire += n;
			p = run;
			continue;
		}
		p++;
		if (c == KETW_FRAME_FLAG) {
			if (ketw_frame_check(dec, f)) {
				*got = 1;
				break;
			}
			continue;
		}
		/* The escape. */
		dec->wire++;
		dec->state = KETW_DEC_ESC;
		continue;
store:
		if (dec->len == dec->cap)
			goto oversize;
		dec->buf[dec->len++] = c;
		continue;
oversize:
		/* Longer than any frame: hunt for the next flag. */
		ketw_frame_drop(dec, &dec->st.oversize);
		dec->state = KETW_DEC_HUNT;
	}
	n = p - (const unsigned char *)in;
	dec->st.bytes += n;
	return n;
}

void ketw_frame_decoder_eof(struct ketw_frame_decoder *dec)
{
	if (dec->state != KETW_DEC_HUNT && (dec->len || dec->wire))
		ketw_frame_drop(dec, &dec->st.partial);
	dec->state = KETW_DEC_HUNT;
}
