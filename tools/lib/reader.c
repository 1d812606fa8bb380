// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: walking records in a buffer, draining a session with read().
 *
 * read() on a file attached to a session returns whole records only
 * (never a part of one), from any of the session's CPUs, each with its
 * cpu field set. A buffer too small for the next record gives EINVAL,
 * an empty session EAGAIN (O_NONBLOCK) and a stopped, empty session 0.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

/* Larger than any record (size is a __u16): see KETW_MAX_DATA_SIZE. */
#define KETW_READ_BUF_SIZE	(1024 * 1024)

/* The smallest thing we can look at: size, type, level, version, flags. */
#define KETW_RECORD_MIN_PEEK	KETW_RECORD_ALIGN

void ketw_record_iter_init(struct ketw_record_iter *it, const void *buf,
			   size_t len)
{
	it->buf = buf;
	it->len = len;
	it->off = 0;
	it->hdr_size = KETW_EVENT_HEADER_SIZE;
}

int ketw_record_iter_next(struct ketw_record_iter *it, struct ketw_record *rec)
{
	const struct ketw_event_header *h;
	size_t rem, span;

	for (;;) {
		if (it->off > it->len)
			return -EBADMSG;
		rem = it->len - it->off;
		if (!rem)
			return 0;
		if (rem < KETW_RECORD_MIN_PEEK)
			return -EBADMSG;
		h = (const void *)(it->buf + it->off);
		span = KETW_RECORD_SPAN((size_t)h->size);
		if (h->flags & KETW_RECORD_PADDING) {
			if (span < KETW_RECORD_ALIGN || span > rem)
				return -EBADMSG;
			it->off += span;
			continue;
		}
		if (h->size < it->hdr_size || span > rem)
			return -EBADMSG;
		rec->hdr = h;
		if (ketw_record_set_payload(rec, it->hdr_size))
			return -EBADMSG;
		rec->span = span;
		rec->cpu = h->cpu;
		/* A kernel buffer's: ketw_input_next() says for a file's. */
		rec->context = true;
		it->off += span;
		return 1;
	}
}

ssize_t ketw_reader_read(int fd, void *buf, size_t len)
{
	ssize_t n;

	do {
		n = read(fd, buf, len);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

int ketw_reader_drain(int fd, size_t max_bytes, ketw_record_fn fn, void *ctx,
		      uint64_t *bytes)
{
	struct ketw_record_iter it;
	struct ketw_record rec;
	uint64_t total = 0;
	void *buf;
	ssize_t n;
	int ret = 0;

	buf = malloc(KETW_READ_BUF_SIZE);	/* aligned for any record */
	if (!buf)
		return -ENOMEM;
	while (!max_bytes || total < max_bytes) {
		n = ketw_reader_read(fd, buf, KETW_READ_BUF_SIZE);
		if (n == 0 || n == -EAGAIN)
			break;
		if (n < 0) {
			ret = n;
			break;
		}
		total += n;
		ketw_record_iter_init(&it, buf, n);
		while ((ret = ketw_record_iter_next(&it, &rec)) > 0) {
			ret = fn(&rec, ctx);
			if (ret)
				goto out;
		}
		if (ret < 0)
			break;
	}
out:
	free(buf);
	if (bytes)
		*bytes = total;
	return ret;
}
