// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: receiving a live stream (ketw_stream.h) into a trace file.
 *
 * A PREAMBLE is checked and describes the stream (ketw_stream_preamble_parse());
 * a receiver (struct ketw_stream_rx) then writes that stream's frames
 * through the incremental trace file writer (output.c): RECORD frames
 * as records of their CPU, the last STATUS's counters as the file's
 * CPU_STATS, and what it saw of the stream (and the clock's drift) as a
 * STREAM section; the PREAMBLE's file header, with its clock
 * reference, is the file's. The stream's frames may come over several
 * connections, one after the other (a sender that reconnected); the
 * caller hands each connection's decoder counters in
 * (ketw_stream_rx_add_link()) and the receiver adds them up.
 *
 * Nothing a sender says is trusted: every size is checked against the
 * frame, CPUs against the header, and the memory a receiver takes is
 * bounded (the writer's limit, the counters of at most nr_cpus CPUs).
 */
#include <byteswap.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct ketw_stream_rx {
	struct ketw_output *out;
	struct ketw_stream_desc desc;
	struct ketw_file_stream fs;	/* host order */
	uint32_t connection;		/* the last PREAMBLE's */
	bool have_seq;
	uint32_t next_seq;		/* after the last frame taken */
	struct ketw_file_cpu_stats *stats;	/* the last STATUS's, or NULL */
};

__attribute__((format(printf, 3, 4)))
static int ketw_stream_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

static void ketw_swap_hello(struct ketw_stream_hello *h)
{
	h->magic = bswap_32(h->magic);
	h->version_major = bswap_16(h->version_major);
	h->version_minor = bswap_16(h->version_minor);
	h->size = bswap_32(h->size);
	h->connection = bswap_32(h->connection);
	h->stream_id = bswap_64(h->stream_id);
}

int ketw_stream_preamble_parse(const struct ketw_frame *f,
			       struct ketw_stream_desc *d, char *err,
			       size_t errlen)
{
	struct ketw_file_header *h = &d->hdr;
	uint32_t hsize;
	int ret;

	memset(d, 0, sizeof(*d));
	if (f->type != KETW_FRAME_PREAMBLE)
		return ketw_stream_fail(err, errlen, "not a PREAMBLE frame");
	if (f->len < sizeof(d->hello))
		return ketw_stream_fail(err, errlen,
			"PREAMBLE of %zu bytes, too short", f->len);
	/* The file header, as a file's: what the file will say. */
	ret = ketw_file_header_parse(f->data, f->len - sizeof(d->hello), h,
				     &d->swapped, err, errlen);
	if (ret)
		return ret;
	hsize = h->header_size;
	memcpy(&d->hello, f->data + hsize, sizeof(d->hello));
	if (d->swapped)
		ketw_swap_hello(&d->hello);
	if (d->hello.magic != KETW_STREAM_MAGIC)
		return ketw_stream_fail(err, errlen,
			"PREAMBLE: bad stream magic 0x%08x", d->hello.magic);
	if (d->hello.version_major != KETW_STREAM_VERSION_MAJOR) {
		ketw_stream_fail(err, errlen,
			"stream format %u.%u is not supported (this receiver knows %u.x)",
			d->hello.version_major, d->hello.version_minor,
			KETW_STREAM_VERSION_MAJOR);
		return -EPROTONOSUPPORT;
	}
	if (d->hello.size < sizeof(d->hello) ||
	    d->hello.size > f->len - hsize)
		return ketw_stream_fail(err, errlen,
			"PREAMBLE: hello of %u bytes in %zu", d->hello.size,
			f->len - hsize);
	return 0;
}

int ketw_stream_rx_create(const char *path, const struct ketw_stream_desc *d,
			  size_t mem_limit, struct ketw_stream_rx **rxp)
{
	struct ketw_file_header h = d->hdr;
	struct ketw_stream_rx *rx;
	int err;

	rx = calloc(1, sizeof(*rx));
	if (!rx)
		return -ENOMEM;
	rx->desc = *d;
	rx->fs.stream_id = d->hello.stream_id;
	rx->connection = d->hello.connection;
	/* The file holds sections of this format: say so. */
	if (h.version_minor < KETW_FILE_VERSION_MINOR)
		h.version_minor = KETW_FILE_VERSION_MINOR;
	err = ketw_output_create_header(path, &h, d->swapped, &rx->out);
	if (!err && mem_limit)
		err = ketw_output_set_limit(rx->out, mem_limit);
	if (err) {
		if (rx->out)
			ketw_output_abort(rx->out, path);
		free(rx);
		return err;
	}
	ketw_output_keep_rundown(rx->out, KETW_STREAM_RUNDOWN_MAX);
	*rxp = rx;
	return 0;
}

/* A RECORD frame: one record of the stream's order, checked. */
static int ketw_stream_rx_record(struct ketw_stream_rx *rx,
				 const struct ketw_frame *f)
{
	struct ketw_event_header h;
	unsigned int size, flags, cpu;
	int err;

	if (f->len < rx->desc.hdr.record_header_size ||
	    f->len % KETW_RECORD_ALIGN || f->len > KETW_RECORD_SPAN(0xffffu))
		goto bad;
	memcpy(&h, f->data, sizeof(h));
	size = rx->desc.swapped ? bswap_16(h.size) : h.size;
	flags = rx->desc.swapped ? bswap_16(h.flags) : h.flags;
	cpu = rx->desc.swapped ? bswap_32(h.cpu) : h.cpu;
	if (size < rx->desc.hdr.record_header_size ||
	    KETW_RECORD_SPAN(size) != f->len ||
	    (flags & KETW_RECORD_PADDING) || cpu >= rx->desc.hdr.nr_cpus)
		goto bad;
	err = ketw_output_add_record(rx->out, cpu, f->data, f->len);
	if (err)
		return err;
	rx->fs.records++;
	return 0;
bad:
	rx->fs.malformed++;
	return -EBADMSG;
}

static int ketw_stream_rx_status(struct ketw_stream_rx *rx,
				 const struct ketw_frame *f)
{
	struct ketw_stream_status s;
	struct ketw_file_cpu_stats e;
	unsigned int nr_cpus = rx->desc.hdr.nr_cpus;
	uint32_t i;
	size_t n;

	if (f->len < sizeof(s))
		goto bad;
	memcpy(&s, f->data, sizeof(s));
	if (rx->desc.swapped) {
		s.size = bswap_32(s.size);
		s.flags = bswap_32(s.flags);
		s.realtime_offset = (int64_t)bswap_64((uint64_t)s.realtime_offset);
		s.offset_at = bswap_64(s.offset_at);
		s.records = bswap_64(s.records);
		s.dropped_frames = bswap_64(s.dropped_frames);
		s.dropped_records = bswap_64(s.dropped_records);
		s.first_cpu = bswap_32(s.first_cpu);
		s.nr_entries = bswap_32(s.nr_entries);
		s.entry_size = bswap_32(s.entry_size);
	}
	if (s.size < sizeof(s) || s.size > f->len || s.entry_size < 8 ||
	    s.entry_size % 8 || s.nr_entries > (f->len - s.size) / s.entry_size ||
	    s.first_cpu > nr_cpus || s.nr_entries > nr_cpus - s.first_cpu)
		goto bad;
	/* The clocks now, against the header's reference: their drift. */
	if (s.flags & KETW_STREAM_F_OFFSET) {
		rx->fs.flags |= KETW_FILE_STREAM_OFFSET;
		rx->fs.realtime_offset = s.realtime_offset;
		rx->fs.offset_at = s.offset_at;
	}
	rx->fs.sent_records = s.records;
	rx->fs.dropped_frames = s.dropped_frames;
	rx->fs.dropped_records = s.dropped_records;
	if (s.nr_entries && !rx->stats) {
		rx->stats = calloc(nr_cpus, sizeof(*rx->stats));
		if (!rx->stats)
			return -ENOMEM;
		for (i = 0; i < nr_cpus; i++)
			rx->stats[i].cpu = i;
	}
	n = s.entry_size < sizeof(e) ? s.entry_size : sizeof(e);
	for (i = 0; i < s.nr_entries; i++) {
		memset(&e, 0, sizeof(e));
		memcpy(&e, f->data + s.size + (size_t)i * s.entry_size, n);
		if (rx->desc.swapped)
			ketw_swap_file_cpu_stats(&e);
		e.cpu = s.first_cpu + i;	/* where it was sent for */
		rx->stats[e.cpu] = e;
	}
	return 0;
bad:
	rx->fs.malformed++;
	return -EBADMSG;
}

static int ketw_stream_rx_end(struct ketw_stream_rx *rx,
			      const struct ketw_frame *f)
{
	struct ketw_stream_end e;

	if (f->len < sizeof(e)) {
		rx->fs.malformed++;
		return -EBADMSG;
	}
	memcpy(&e, f->data, sizeof(e));
	if (rx->desc.swapped) {
		e.records = bswap_64(e.records);
		e.dropped_frames = bswap_64(e.dropped_frames);
		e.dropped_records = bswap_64(e.dropped_records);
	}
	rx->fs.sent_records = e.records;
	rx->fs.dropped_frames = e.dropped_frames;
	rx->fs.dropped_records = e.dropped_records;
	rx->fs.end_seq = f->seq;
	rx->fs.flags |= KETW_FILE_STREAM_COMPLETE;
	return 0;
}

/* A PREAMBLE of this stream: another connection, or a repeat. */
static int ketw_stream_rx_preamble(struct ketw_stream_rx *rx,
				   const struct ketw_frame *f)
{
	struct ketw_stream_desc d;
	int32_t gap;

	if (ketw_stream_preamble_parse(f, &d, NULL, 0) ||
	    d.hello.stream_id != rx->fs.stream_id || d.swapped != rx->desc.swapped ||
	    d.hdr.nr_cpus != rx->desc.hdr.nr_cpus) {
		rx->fs.malformed++;
		return -EBADMSG;
	}
	if (d.hello.connection != rx->connection) {
		rx->connection = d.hello.connection;
		rx->fs.connections++;
		/* What the last connection lost at its end. */
		if (rx->have_seq) {
			gap = (int32_t)(f->seq - rx->next_seq);
			if (gap > 0)
				rx->fs.seq_gaps += (uint32_t)gap;
		}
	}
	return 0;
}

int ketw_stream_rx_frame(struct ketw_stream_rx *rx, const struct ketw_frame *f)
{
	int err;

	if (!rx->fs.connections) {
		/* The PREAMBLE that made us: a connection, its frame. */
		rx->fs.connections = 1;
		if (f->type == KETW_FRAME_PREAMBLE) {
			rx->have_seq = true;
			rx->next_seq = f->seq + 1;
			return 0;
		}
	}
	switch (f->type) {
	case KETW_FRAME_PREAMBLE:
		err = ketw_stream_rx_preamble(rx, f);
		break;
	case KETW_FRAME_RECORD:
		err = ketw_stream_rx_record(rx, f);
		break;
	case KETW_FRAME_STATUS:
		err = ketw_stream_rx_status(rx, f);
		break;
	case KETW_FRAME_END:
		err = ketw_stream_rx_end(rx, f);
		break;
	default:
		rx->fs.unknown++;
		err = 0;
		break;
	}
	if (err != -EBADMSG && err < 0)
		return err;
	rx->have_seq = true;
	rx->next_seq = f->seq + 1;
	return err;
}

void ketw_stream_rx_add_link(struct ketw_stream_rx *rx,
			     const struct ketw_frame_stats *st)
{
	rx->fs.bytes += st->bytes;
	rx->fs.frames += st->frames;
	rx->fs.bad_checksum += st->bad_checksum;
	rx->fs.seq_gaps += st->seq_gaps;
	rx->fs.duplicates += st->duplicates;
	rx->fs.oversize += st->oversize;
	rx->fs.partial += st->partial;
	rx->fs.skipped += st->skipped;
}

bool ketw_stream_rx_complete(const struct ketw_stream_rx *rx)
{
	return rx->fs.flags & KETW_FILE_STREAM_COMPLETE;
}

const struct ketw_file_stream *ketw_stream_rx_counters(const struct ketw_stream_rx *rx)
{
	return &rx->fs;
}

const struct ketw_stream_desc *ketw_stream_rx_desc(const struct ketw_stream_rx *rx)
{
	return &rx->desc;
}

size_t ketw_stream_rx_memory(const struct ketw_stream_rx *rx)
{
	return sizeof(*rx) + ketw_output_memory(rx->out) +
	       (rx->stats ? rx->desc.hdr.nr_cpus * sizeof(*rx->stats) : 0);
}

uint64_t ketw_stream_rx_size(const struct ketw_stream_rx *rx)
{
	return ketw_output_size(rx->out);
}

int ketw_stream_rx_flush(struct ketw_stream_rx *rx)
{
	return ketw_output_flush(rx->out);
}

/* What a file ends with: the last counters, the stream's. */
static int ketw_stream_rx_trailer(struct ketw_stream_rx *rx)
{
	int err = ketw_stream_rx_flush(rx);

	if (!err && rx->stats)
		err = ketw_output_add_file_stats(rx->out, rx->stats,
						 rx->desc.hdr.nr_cpus);
	if (!err)
		err = ketw_output_add_stream(rx->out, &rx->fs);
	return err;
}

int ketw_stream_rx_rotate(struct ketw_stream_rx *rx, const char *path)
{
	int err = ketw_stream_rx_trailer(rx);

	return err ? err : ketw_output_rotate(rx->out, path);
}

int ketw_stream_rx_close(struct ketw_stream_rx *rx)
{
	int err = ketw_stream_rx_trailer(rx), err2;

	err2 = ketw_output_close(rx->out);
	free(rx->stats);
	free(rx);
	return err ? err : err2;
}
