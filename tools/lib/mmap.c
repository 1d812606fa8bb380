// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: draining a session through its mapped per-CPU buffers.
 *
 * The consumer works on a struct ketw_meta_page and a data area wherever
 * they are: mapped from /dev/ketw by ketw_mmap_map(), or ordinary memory
 * given to ketw_mmap_init() (the unit tests play the writer there).
 *
 * Memory ordering, paired with the kernel (module/ring.c):
 *   commit    loaded with acquire: the records below it are complete.
 *   consumed  stored with release: we are done reading the records below
 *             it before a writer may reuse their bytes.
 *   oldest    (LOOP) loaded with acquire, claimed with a sequentially
 *             consistent compare-and-swap: our copy of the record is read
 *             before the claim, and a writer's release of it comes before
 *             its first byte over the record. A header that looks torn is
 *             followed by an acquire fence and a new load of oldest: if
 *             oldest did not move, no writer touched the record and the
 *             header really is bad.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

/* The largest span a record can have: size is a __u16. */
#define KETW_MMAP_COPY_SIZE	KETW_RECORD_SPAN(0xffffu)
/* Same bounds as the kernel's session attributes. */
#define KETW_MMAP_MIN_SIZE	(KETW_BUFFER_KB_MIN * 1024u)
#define KETW_MMAP_MAX_SIZE	(KETW_BUFFER_KB_MAX * 1024u)

static inline bool pos_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static inline bool ketw_mmap_loop(const struct ketw_mmap *m)
{
	return m->policy == KETW_POLICY_LOOP;
}

/* The reader's position: oldest in LOOP, consumed otherwise. */
static inline uint32_t *ketw_mmap_tail_ptr(const struct ketw_mmap *m)
{
	return ketw_mmap_loop(m) ? &m->meta->oldest : &m->meta->consumed;
}

static inline uint32_t ketw_mmap_tail(const struct ketw_mmap *m)
{
	return __atomic_load_n(ketw_mmap_tail_ptr(m), __ATOMIC_ACQUIRE);
}

static inline uint32_t ketw_mmap_commit(const struct ketw_mmap *m)
{
	return __atomic_load_n(&m->meta->commit, __ATOMIC_ACQUIRE);
}

/* Check what the consumer relies on in a meta page. */
static int ketw_mmap_check_meta(const struct ketw_meta_page *meta,
				unsigned int cpu)
{
	uint32_t size = meta->data_size;

	if (meta->version != KETW_META_VERSION ||
	    meta->meta_size < sizeof(struct ketw_meta_page) ||
	    meta->cpu != cpu ||
	    meta->policy < KETW_POLICY_LOOP ||
	    meta->policy > KETW_POLICY_FLUSH ||
	    size < KETW_MMAP_MIN_SIZE || size > KETW_MMAP_MAX_SIZE ||
	    (size & (size - 1)))
		return -EPROTO;
	return 0;
}

int ketw_mmap_init(struct ketw_mmap *m, struct ketw_meta_page *meta,
		   const void *data, unsigned int cpu)
{
	int err;

	memset(m, 0, sizeof(*m));
	err = ketw_mmap_check_meta(meta, cpu);
	if (err)
		return err;
	m->meta = meta;
	m->data = data;
	m->size = meta->data_size;
	m->cpu = cpu;
	m->policy = meta->policy;
	if (ketw_mmap_loop(m)) {
		m->copy = malloc(KETW_MMAP_COPY_SIZE);
		if (!m->copy) {
			memset(m, 0, sizeof(*m));
			return -ENOMEM;
		}
	}
	return 0;
}

int ketw_mmap_map(int fd, unsigned int cpu, struct ketw_mmap *m)
{
	long page = sysconf(_SC_PAGESIZE);
	struct ketw_meta_page *meta;
	uint64_t doff;
	void *data;
	int err;

	memset(m, 0, sizeof(*m));
	if (page <= 0 || (size_t)page < sizeof(*meta))
		return -EPROTO;
	if (sizeof(off_t) < sizeof(uint64_t) && cpu)
		return -EOVERFLOW;	/* KETW_MMAP_CPU() needs 64-bit offsets */
	meta = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    (off_t)KETW_MMAP_CPU(cpu));
	if (meta == MAP_FAILED)
		return -errno;
	/* The data area must lie in this CPU's part of the offsets. */
	doff = meta->data_offset;
	err = ketw_mmap_check_meta(meta, cpu);
	if (!err && (doff >> KETW_MMAP_CPU_SHIFT != cpu ||
		     doff % page || doff == KETW_MMAP_CPU(cpu)))
		err = -EPROTO;
	if (err) {
		munmap(meta, page);
		return err;
	}
	data = mmap(NULL, meta->data_size, PROT_READ, MAP_SHARED, fd,
		    (off_t)doff);
	if (data == MAP_FAILED) {
		err = -errno;
		munmap(meta, page);
		return err;
	}
	err = ketw_mmap_init(m, meta, data, cpu);
	if (err) {
		munmap(data, meta->data_size);
		munmap(meta, page);
		return err;
	}
	m->meta_len = page;
	m->data_len = m->size;
	return 0;
}

void ketw_mmap_unmap(struct ketw_mmap *m)
{
	if (m->data_len)
		munmap((void *)m->data, m->data_len);
	if (m->meta_len)
		munmap(m->meta, m->meta_len);
	free(m->copy);
	memset(m, 0, sizeof(*m));
}

uint32_t ketw_mmap_pending(const struct ketw_mmap *m)
{
	uint32_t p = ketw_mmap_commit(m);
	uint32_t c = ketw_mmap_tail(m);

	return pos_before(c, p) ? p - c : 0;
}

uint32_t ketw_mmap_mark(struct ketw_mmap *m)
{
	uint32_t c;

	m->limit = ketw_mmap_commit(m);
	m->limited = true;
	c = ketw_mmap_tail(m);
	return pos_before(c, m->limit) ? m->limit - c : 0;
}

bool ketw_mmap_done(const struct ketw_mmap *m)
{
	uint32_t end = m->limited ? m->limit : ketw_mmap_commit(m);

	return !pos_before(ketw_mmap_tail(m), end);
}

/* Where consumed records go: a callback, or a byte buffer. */
struct ketw_mmap_sink {
	ketw_record_fn fn;
	void *ctx;
	unsigned char *buf;
	size_t len;
	size_t used;
};

/* The first 8 bytes of a header: size and flags, read once each. */
static inline void ketw_mmap_peek(const unsigned char *h, uint16_t *size,
				  uint16_t *flags)
{
	const struct ketw_event_header *e = (const void *)h;

	*size = __atomic_load_n(&e->size, __ATOMIC_RELAXED);
	*flags = __atomic_load_n(&e->flags, __ATOMIC_RELAXED);
}

/*
 * The core of both consumers. Reads from the tail to @p: the commit
 * position when called, or the mark if that is earlier. UNTIL_FULL and
 * FLUSH give bytes back as they go, a quarter of the area at a time, so
 * that a FLUSH writer gets room before a long drain ends.
 */
static int ketw_mmap_run(struct ketw_mmap *m, struct ketw_mmap_sink *s)
{
	const bool loop = ketw_mmap_loop(m);
	uint32_t *tail = ketw_mmap_tail_ptr(m);
	const uint32_t mask = m->size - 1;
	uint32_t commit, p, c, published, off, span, exp;
	const unsigned char *h;
	struct ketw_record rec;
	uint16_t size, flags;
	void *dst;
	int ret = 0;

	commit = ketw_mmap_commit(m);
	p = commit;
	if (m->limited && pos_before(m->limit, p))
		p = m->limit;
	c = __atomic_load_n(tail, __ATOMIC_ACQUIRE);
	if (c % KETW_RECORD_ALIGN)
		return -EBADMSG;
	if (loop) {
		/* Loaded after commit, oldest may have passed it. */
		if (!pos_before(c, p))
			return 0;	/* caught up, or overwritten up to p */
		/* Writers keep oldest within a buffer of commit. */
		if (commit - c > m->size)
			return -EBADMSG;
	} else {
		/* consumed is ours; anything else is another reader's doing. */
		if (pos_before(commit, c) || commit - c > m->size)
			return -EBADMSG;
		if (!pos_before(c, p))
			return 0;
	}
	published = c;

	while (pos_before(c, p)) {
		off = c & mask;
		h = m->data + off;
		ketw_mmap_peek(h, &size, &flags);
		span = KETW_RECORD_SPAN((uint32_t)size);
		/* Records never wrap: a span past the end is a torn header. */
		if (span < KETW_RECORD_ALIGN || span > p - c ||
		    span > m->size - off ||
		    (!(flags & KETW_RECORD_PADDING) &&
		     size < KETW_EVENT_HEADER_SIZE)) {
			uint32_t c2;

			if (!loop) {
				ret = -EBADMSG;
				break;
			}
			/* Our reads of the header before the new load. */
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			c2 = __atomic_load_n(tail, __ATOMIC_ACQUIRE);
			if (c2 == c) {
				ret = -EBADMSG;	/* nobody is writing there */
				break;
			}
			m->torn++;
			c = c2;
			continue;
		}
		if (flags & KETW_RECORD_PADDING) {
			if (loop) {
				exp = c;
				if (!__atomic_compare_exchange_n(tail, &exp,
						c + span, false,
						__ATOMIC_SEQ_CST,
						__ATOMIC_ACQUIRE)) {
					c = exp;
					continue;
				}
			}
			c += span;
			m->padding++;
			continue;
		}
		if (s->buf && s->len - s->used < span) {
			if (!s->used)
				ret = -EMSGSIZE;
			break;
		}
		if (loop) {
			dst = s->buf ? s->buf + s->used : m->copy;
			memcpy(dst, h, span);
			exp = c;
			if (!__atomic_compare_exchange_n(tail, &exp, c + span,
							 false,
							 __ATOMIC_SEQ_CST,
							 __ATOMIC_ACQUIRE)) {
				/* A writer released it first: the copy is void. */
				m->dropped++;
				c = exp;
				continue;
			}
			h = dst;
		} else if (s->buf) {
			memcpy(s->buf + s->used, h, span);
			h = s->buf + s->used;
		}
		c += span;
		m->records++;
		m->bytes += span;
		if (s->buf) {
			s->used += span;
		} else {
			rec.hdr = (const void *)h;
			if (ketw_record_set_payload(&rec,
						    KETW_EVENT_HEADER_SIZE)) {
				ret = -EBADMSG;
				break;
			}
			rec.span = span;
			rec.cpu = m->cpu;
			ret = s->fn(&rec, s->ctx);
			if (ret)
				break;
		}
		if (!loop && c - published >= m->size / 4) {
			__atomic_store_n(tail, c, __ATOMIC_RELEASE);
			published = c;
		}
	}
	if (!loop && c != published)
		__atomic_store_n(tail, c, __ATOMIC_RELEASE);
	return ret;
}

int ketw_mmap_consume(struct ketw_mmap *m, ketw_record_fn fn, void *ctx)
{
	struct ketw_mmap_sink s = { .fn = fn, .ctx = ctx };

	if (!m->meta || !fn)
		return -EINVAL;
	return ketw_mmap_run(m, &s);
}

ssize_t ketw_mmap_read(struct ketw_mmap *m, void *buf, size_t len)
{
	struct ketw_mmap_sink s = { .buf = buf, .len = len };
	int ret;

	if (!m->meta || !buf)
		return -EINVAL;
	ret = ketw_mmap_run(m, &s);
	return s.used ? (ssize_t)s.used : ret;
}
