// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: the extended data items of a record (KETW_RECORD_EXT, struct
 * ketw_ext_header): where the payload starts after them, checking them,
 * walking them, and byte-swapping those of a file from the other
 * endianness.
 */
#include <byteswap.h>
#include <errno.h>
#include <string.h>

#include "internal.h"

/*
 * Is the items area at @p, with @avail bytes after the record header,
 * well formed? Its size a multiple of 8 within @avail, and exactly
 * @count items in it, each within it. Returns its size, or -EBADMSG.
 * @swap: the area's fields are in the other byte order.
 */
static long ketw_ext_area_check(const unsigned char *p, size_t avail,
				bool swap)
{
	struct ketw_ext_header eh;
	struct ketw_ext_item it;
	size_t off, span;
	unsigned int i;

	if (avail < sizeof(eh))
		return -EBADMSG;
	memcpy(&eh, p, sizeof(eh));
	if (swap) {
		eh.size = bswap_16(eh.size);
		eh.count = bswap_16(eh.count);
	}
	if (eh.size < sizeof(eh) || eh.size % 8 || eh.size > avail)
		return -EBADMSG;
	off = sizeof(eh);
	for (i = 0; i < eh.count; i++) {
		if (eh.size - off < sizeof(it))
			return -EBADMSG;
		memcpy(&it, p + off, sizeof(it));
		if (swap)
			it.size = bswap_16(it.size);
		span = KETW_EXT_ITEM_SPAN((size_t)it.size);
		if (span > eh.size - off)
			return -EBADMSG;
		off += span;
	}
	return off == eh.size ? (long)eh.size : -EBADMSG;
}

int ketw_record_set_payload(struct ketw_record *rec, size_t hdr_size)
{
	const unsigned char *p = (const unsigned char *)rec->hdr + hdr_size;
	size_t avail = rec->hdr->size - hdr_size;
	long ext = 0;

	if (rec->hdr->flags & KETW_RECORD_EXT) {
		ext = ketw_ext_area_check(p, avail, false);
		if (ext < 0)
			return -EBADMSG;
	}
	rec->data = p + ext;
	rec->data_len = avail - (size_t)ext;
	return 0;
}

/*
 * The items area sits between the record header and the payload: it
 * ends where the payload starts, and the record header is
 * KETW_EVENT_HEADER_SIZE bytes in every file this library writes.
 */
int ketw_record_items(const struct ketw_record *rec, struct ketw_ext_iter *it)
{
	const unsigned char *p = (const unsigned char *)rec->hdr +
				 KETW_EVENT_HEADER_SIZE;
	struct ketw_ext_header eh;
	long ext;

	memset(it, 0, sizeof(*it));
	if (!(rec->hdr->flags & KETW_RECORD_EXT))
		return 0;
	if (rec->data < p)
		return -EBADMSG;
	ext = ketw_ext_area_check(p, (size_t)(rec->data - p), false);
	if (ext < 0 || p + ext != rec->data)
		return -EBADMSG;
	memcpy(&eh, p, sizeof(eh));
	it->area = p;
	it->size = (size_t)ext;
	it->off = sizeof(eh);
	it->left = eh.count;
	return eh.count ? 1 : 0;
}

int ketw_ext_next(struct ketw_ext_iter *it, struct ketw_ext_view *v)
{
	struct ketw_ext_item item;
	size_t span;

	if (!it->left || !it->area)
		return 0;
	/* Checked by ketw_record_items(); an iterator made up is not. */
	if (it->off > it->size || it->size - it->off < sizeof(item))
		return -EBADMSG;
	memcpy(&item, it->area + it->off, sizeof(item));
	span = KETW_EXT_ITEM_SPAN((size_t)item.size);
	if (span > it->size - it->off)
		return -EBADMSG;
	v->type = item.type;
	v->size = item.size;
	v->data = it->area + it->off + sizeof(item);
	it->off += span;
	it->left--;
	return 1;
}

const void *ketw_record_item(const struct ketw_record *rec, unsigned int type,
			     size_t *size)
{
	struct ketw_ext_iter it;
	struct ketw_ext_view v;

	if (ketw_record_items(rec, &it) <= 0)
		return NULL;
	while (ketw_ext_next(&it, &v) > 0) {
		if (v.type != type)
			continue;
		if (size)
			*size = v.size;
		return v.data;
	}
	return NULL;
}

int ketw_record_cpu_time(const struct ketw_record *rec,
			 struct ketw_ext_cpu_time *t)
{
	size_t n;
	const void *p = ketw_record_item(rec, KETW_EXT_CPU_TIME, &n);

	if (!p || n < sizeof(*t))
		return -ENOENT;
	memcpy(t, p, sizeof(*t));
	return 0;
}

int ketw_record_pid_ns(const struct ketw_record *rec,
		       struct ketw_ext_pid_ns *ns)
{
	size_t n;
	const void *p = ketw_record_item(rec, KETW_EXT_PID_NS, &n);

	if (!p || n < sizeof(*ns))
		return -ENOENT;
	memcpy(ns, p, sizeof(*ns));
	return 0;
}

int ketw_record_activity(const struct ketw_record *rec,
			 struct ketw_ext_activity *a)
{
	size_t n;
	const void *p = ketw_record_item(rec, KETW_EXT_ACTIVITY, &n);

	if (!p || n < sizeof(*a))
		return -ENOENT;
	memcpy(a, p, sizeof(*a));
	return 0;
}

unsigned int ketw_record_addrs(const struct ketw_record *rec,
			       unsigned int type, uint64_t *addrs,
			       unsigned int max)
{
	size_t n, i;
	const unsigned char *p = ketw_record_item(rec, type, &n);

	if (!p)
		return 0;
	n /= 8;
	for (i = 0; i < n && i < max; i++)
		memcpy(&addrs[i], p + 8 * i, 8);
	return (unsigned int)i;
}

/* Swap the known items' words in place: they are the kernel's, not provider data. */
static void ketw_ext_swap_item(unsigned char *d, unsigned int type,
			       size_t size)
{
	size_t i;

	switch (type) {
	case KETW_EXT_KSTACK:
	case KETW_EXT_USTACK:
	case KETW_EXT_CPU_TIME:
	case KETW_EXT_PROG_ADDR:
		for (i = 0; i + 8 <= size; i += 8) {
			uint64_t v;

			memcpy(&v, d + i, 8);
			v = bswap_64(v);
			memcpy(d + i, &v, 8);
		}
		break;
	case KETW_EXT_PID_NS:
		if (size >= sizeof(struct ketw_ext_pid_ns)) {
			struct ketw_ext_pid_ns ns;

			memcpy(&ns, d, sizeof(ns));
			ns.vpid = bswap_32(ns.vpid);
			ns.vtid = bswap_32(ns.vtid);
			ns.pid_ns_inum = bswap_64(ns.pid_ns_inum);
			memcpy(d, &ns, sizeof(ns));
		}
		break;
	}
}

int ketw_ext_swap(unsigned char *p, size_t avail)
{
	struct ketw_ext_header eh;
	struct ketw_ext_item it;
	size_t off;
	unsigned int i;

	if (ketw_ext_area_check(p, avail, true) < 0)
		return -EBADMSG;
	memcpy(&eh, p, sizeof(eh));
	eh.size = bswap_16(eh.size);
	eh.count = bswap_16(eh.count);
	eh.reserved = bswap_32(eh.reserved);
	memcpy(p, &eh, sizeof(eh));
	for (i = 0, off = sizeof(eh); i < eh.count; i++) {
		memcpy(&it, p + off, sizeof(it));
		it.type = bswap_16(it.type);
		it.size = bswap_16(it.size);
		it.reserved = bswap_32(it.reserved);
		memcpy(p + off, &it, sizeof(it));
		ketw_ext_swap_item(p + off + sizeof(it), it.type, it.size);
		off += KETW_EXT_ITEM_SPAN((size_t)it.size);
	}
	return 0;
}
