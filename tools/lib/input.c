// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: reading a .ketw trace file (format in ketw_file.h).
 *
 * The whole file is checked when it is opened: every section header,
 * every record header and every statistics entry, byte-swapped in a
 * private copy if the file comes from a machine of the other endianness.
 * After that, iterating cannot go out of bounds.
 */
#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* A run of records of one CPU: one KETW_SECTION_CPU_RECORDS body. */
struct ketw_cursor {
	struct ketw_record_iter it;
	struct ketw_record cur;		/* valid while the cursor is in the heap */
	unsigned int cpu;
	unsigned int index;		/* section order: the last tie-break */
};

struct ketw_input {
	unsigned char *buf;
	size_t len;
	bool mapped;
	bool swapped;
	struct ketw_file_header hdr;

	struct ketw_cursor *cursors;
	unsigned int nr_cursors;
	struct ketw_cursor **heap;
	unsigned int heap_len;

	uint64_t *cpu_records;
	uint64_t *cpu_gaps;
	uint64_t *cpu_last_seq;		/* last sequence seen + 1, 0 = none */
	struct ketw_file_cpu_stats *stats;
	bool *have_stats;
	unsigned int skipped;

	/* RUNDOWN sections: copies of rundown records, not among the records. */
	struct ketw_record_iter *copies;
	unsigned int nr_copies;
	bool have_stream;		/* the last STREAM section */
	struct ketw_file_stream stream;

	unsigned int flags;		/* KETW_INPUT_* */
	uint64_t truncated;		/* 0, or the length of a cut file */
	uint64_t read_bytes;		/* where the last section read ends */
	uint64_t sections;		/* complete sections read */
	uint64_t records;
};

/* Errors while opening: a message and a negative errno. */
struct ketw_input_err {
	char *buf;
	size_t len;
};

__attribute__((format(printf, 3, 4)))
static int ketw_input_fail(struct ketw_input_err *e, int err,
			   const char *fmt, ...)
{
	va_list ap;

	if (e->buf && e->len) {
		va_start(ap, fmt);
		vsnprintf(e->buf, e->len, fmt, ap);
		va_end(ap);
	}
	return err;
}

static const char *ketw_section_name(uint32_t type)
{
	switch (type) {
	case KETW_SECTION_END:		return "end";
	case KETW_SECTION_CPU_RECORDS:	return "cpu records";
	case KETW_SECTION_CPU_STATS:	return "cpu stats";
	case KETW_SECTION_STREAM:	return "stream";
	case KETW_SECTION_RUNDOWN:	return "rundown";
	default:			return "unknown";
	}
}

/* ---- sections ------------------------------------------------------ */

static int ketw_input_records(struct ketw_input *in, unsigned char *body,
			      uint64_t len, uint64_t at, unsigned int index,
			      struct ketw_input_err *e)
{
	struct ketw_file_cpu_records *r = (void *)body;
	struct ketw_cursor *c;
	struct ketw_record rec;
	unsigned int cpu;
	uint64_t seq, *last;
	int ret;

	if (len < sizeof(*r))
		return ketw_input_fail(e, -EBADMSG,
			"corrupt: cpu records section at offset %llu is too short (%llu bytes)",
			(unsigned long long)at, (unsigned long long)len);
	cpu = in->swapped ? bswap_32(r->cpu) : r->cpu;
	if (cpu >= in->hdr.nr_cpus)
		return ketw_input_fail(e, -EBADMSG,
			"corrupt: cpu records section at offset %llu is for cpu %u, the file has %u cpus",
			(unsigned long long)at, cpu, in->hdr.nr_cpus);
	body += sizeof(*r);
	len -= sizeof(*r);
	if (in->swapped)
		ketw_swap_records(body, len, in->hdr.record_header_size);

	c = &in->cursors[in->nr_cursors];
	ketw_record_iter_init(&c->it, body, len);
	c->it.hdr_size = in->hdr.record_header_size;
	c->cpu = cpu;
	c->index = index;
	last = &in->cpu_last_seq[cpu];
	while ((ret = ketw_record_iter_next(&c->it, &rec)) > 0) {
		in->cpu_records[cpu]++;
		in->records++;
		seq = rec.hdr->sequence;
		if (*last && seq > *last)
			in->cpu_gaps[cpu] += seq - *last;
		if (!*last || seq >= *last)
			*last = seq + 1;
	}
	if (ret < 0) {
		size_t rem = len - c->it.off;
		unsigned int size = 0;

		if (rem >= KETW_RECORD_ALIGN)
			size = ((const struct ketw_event_header *)
				(body + c->it.off))->size;
		return ketw_input_fail(e, -EBADMSG,
			"corrupt: record at offset %llu (cpu %u) is malformed or cut short (size %u, %zu bytes left in its section)",
			(unsigned long long)(at + sizeof(struct ketw_file_section) +
					     sizeof(*r) + c->it.off),
			cpu, size, rem);
	}
	in->nr_cursors++;
	return 0;
}

static int ketw_input_stats(struct ketw_input *in, const unsigned char *body,
			    uint64_t len, uint64_t at,
			    struct ketw_input_err *e)
{
	struct ketw_file_stats s;
	struct ketw_file_cpu_stats st;
	size_t n;
	uint32_t i;

	if (len < sizeof(s))
		return ketw_input_fail(e, -EBADMSG,
			"corrupt: cpu stats section at offset %llu is too short",
			(unsigned long long)at);
	memcpy(&s, body, sizeof(s));
	if (in->swapped) {
		s.nr_entries = bswap_32(s.nr_entries);
		s.entry_size = bswap_32(s.entry_size);
	}
	body += sizeof(s);
	len -= sizeof(s);
	if (s.entry_size < 8 || s.entry_size % 8 ||
	    s.nr_entries > len / s.entry_size)
		return ketw_input_fail(e, -EBADMSG,
			"corrupt: cpu stats section at offset %llu: %u entries of %u bytes do not fit in %llu bytes",
			(unsigned long long)at, s.nr_entries, s.entry_size,
			(unsigned long long)len);
	n = s.entry_size < sizeof(st) ? s.entry_size : sizeof(st);
	for (i = 0; i < s.nr_entries; i++, body += s.entry_size) {
		memset(&st, 0, sizeof(st));
		memcpy(&st, body, n);
		if (in->swapped)
			ketw_swap_file_cpu_stats(&st);
		if (st.cpu >= in->hdr.nr_cpus)
			return ketw_input_fail(e, -EBADMSG,
				"corrupt: cpu stats entry for cpu %u, the file has %u cpus",
				st.cpu, in->hdr.nr_cpus);
		in->stats[st.cpu] = st;
		in->have_stats[st.cpu] = true;
	}
	return 0;
}

/* A RUNDOWN section: records of any CPU of the file, checked like any. */
static int ketw_input_parse_rundown(struct ketw_input *in, unsigned char *body,
			      uint64_t len, uint64_t at,
			      struct ketw_input_err *e)
{
	struct ketw_record_iter *it = &in->copies[in->nr_copies];
	struct ketw_record rec;
	int ret;

	if (in->swapped)
		ketw_swap_records(body, len, in->hdr.record_header_size);
	ketw_record_iter_init(it, body, len);
	it->hdr_size = in->hdr.record_header_size;
	while ((ret = ketw_record_iter_next(it, &rec)) > 0)
		if (rec.hdr->cpu >= in->hdr.nr_cpus)
			return ketw_input_fail(e, -EBADMSG,
				"corrupt: rundown section at offset %llu holds a record of cpu %u, the file has %u cpus",
				(unsigned long long)at, rec.hdr->cpu,
				in->hdr.nr_cpus);
	if (ret < 0)
		return ketw_input_fail(e, -EBADMSG,
			"corrupt: rundown section at offset %llu: record at %zu is malformed or cut short",
			(unsigned long long)at, it->off);
	it->off = 0;
	in->nr_copies++;
	return 0;
}

/* Fields a shorter (older) body lacks stay 0. */
static int ketw_input_parse_stream(struct ketw_input *in, const unsigned char *body,
			     uint64_t len, uint64_t at,
			     struct ketw_input_err *e)
{
	if (len < offsetof(struct ketw_file_stream, bytes))
		return ketw_input_fail(e, -EBADMSG,
			"corrupt: stream section at offset %llu is too short",
			(unsigned long long)at);
	memset(&in->stream, 0, sizeof(in->stream));
	memcpy(&in->stream, body,
	       len < sizeof(in->stream) ? len : sizeof(in->stream));
	if (in->swapped)
		ketw_swap_file_stream(&in->stream);
	in->have_stream = true;
	return 0;
}

int ketw_file_header_parse(const void *buf, size_t len,
			   struct ketw_file_header *h, bool *swapped,
			   char *err, size_t errlen)
{
	struct ketw_input_err e = { .buf = err, .len = errlen };
	uint32_t magic;
	size_t n;

	*swapped = false;
	if (len < sizeof(magic))
		return ketw_input_fail(&e, -EBADMSG,
			"not a ketw trace file (%zu bytes)", len);
	memcpy(&magic, buf, sizeof(magic));
	if (magic == bswap_32(KETW_FILE_MAGIC) &&
	    magic != KETW_FILE_MAGIC)
		*swapped = true;
	else if (magic != KETW_FILE_MAGIC)
		return ketw_input_fail(&e, -EBADMSG,
			"not a ketw trace file (magic 0x%08x)", magic);
	if (len < KETW_FILE_HEADER_SIZE_V1)
		return ketw_input_fail(&e, -EBADMSG,
			"truncated: %zu bytes, shorter than the file header",
			len);

	/* Fields a shorter (older) header lacks stay 0. */
	memset(h, 0, sizeof(*h));
	memcpy(h, buf, KETW_FILE_HEADER_SIZE_V1);
	if (*swapped)
		ketw_swap_file_header(h);
	if (h->version_major != KETW_FILE_VERSION_MAJOR)
		return ketw_input_fail(&e, -EPROTONOSUPPORT,
			"format version %u.%u is not supported (this reader knows %u.x)",
			h->version_major, h->version_minor,
			KETW_FILE_VERSION_MAJOR);
	if (h->header_size >= KETW_FILE_HEADER_SIZE_V1 &&
	    !(h->header_size % KETW_FILE_ALIGN) && h->header_size > len)
		return ketw_input_fail(&e, -EBADMSG,
			"truncated: %zu bytes, shorter than the file header (%u)",
			len, h->header_size);
	if (h->header_size < KETW_FILE_HEADER_SIZE_V1 ||
	    h->header_size % KETW_FILE_ALIGN || h->header_size > len)
		return ketw_input_fail(&e, -EBADMSG,
			"corrupt: header size %u (%zu bytes)",
			h->header_size, len);
	n = h->header_size < sizeof(*h) ? h->header_size : sizeof(*h);
	if (n > KETW_FILE_HEADER_SIZE_V1) {
		memcpy(h, buf, n);
		if (*swapped)
			ketw_swap_file_header(h);
	}
	if (h->record_header_size < KETW_EVENT_HEADER_SIZE ||
	    h->record_header_size % KETW_RECORD_ALIGN ||
	    h->record_header_size > KETW_RECORD_SPAN(0xffffu))
		return ketw_input_fail(&e, -EBADMSG,
			"corrupt: record header size %u",
			h->record_header_size);
	if (!h->nr_cpus || h->nr_cpus > KETW_FILE_MAX_CPUS)
		return ketw_input_fail(&e, -EBADMSG,
			"corrupt: %u cpus", h->nr_cpus);
	h->session.name[sizeof(h->session.name) - 1] = '\0';
	h->hostname[sizeof(h->hostname) - 1] = '\0';
	h->release[sizeof(h->release) - 1] = '\0';
	h->machine[sizeof(h->machine) - 1] = '\0';
	return 0;
}

static int ketw_input_header_check(struct ketw_input *in,
				   struct ketw_input_err *e)
{
	return ketw_file_header_parse(in->buf, in->len, &in->hdr,
				      &in->swapped, e->buf, e->len);
}

/* Allocate what the sections need: at most one cursor per section. */
static int ketw_input_alloc(struct ketw_input *in, size_t max_sections)
{
	unsigned int n = in->hdr.nr_cpus;

	in->cursors = calloc(max_sections ? max_sections : 1,
			     sizeof(*in->cursors));
	in->copies = calloc(max_sections ? max_sections : 1,
			    sizeof(*in->copies));
	in->heap = calloc(max_sections ? max_sections : 1, sizeof(*in->heap));
	in->cpu_records = calloc(n, sizeof(*in->cpu_records));
	in->cpu_gaps = calloc(n, sizeof(*in->cpu_gaps));
	in->cpu_last_seq = calloc(n, sizeof(*in->cpu_last_seq));
	in->stats = calloc(n, sizeof(*in->stats));
	in->have_stats = calloc(n, sizeof(*in->have_stats));
	if (!in->cursors || !in->copies || !in->heap || !in->cpu_records ||
	    !in->cpu_gaps ||
	    !in->cpu_last_seq || !in->stats || !in->have_stats)
		return -ENOMEM;
	return 0;
}

/*
 * The file ends before its END section, at @off. Refused, unless
 * KETW_INPUT_PARTIAL: then what came before is the file.
 */
__attribute__((format(printf, 3, 4)))
static int ketw_input_cut(struct ketw_input *in, struct ketw_input_err *e,
			  const char *fmt, ...)
{
	va_list ap;

	if (in->flags & KETW_INPUT_PARTIAL) {
		in->truncated = in->len;
		return 0;
	}
	if (e->buf && e->len) {
		va_start(ap, fmt);
		vsnprintf(e->buf, e->len, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

static int ketw_input_parse(struct ketw_input *in, struct ketw_input_err *e)
{
	struct ketw_file_section s;
	uint64_t off, next, avail;
	unsigned int index = 0;
	bool end = false;
	int err;

	err = ketw_input_header_check(in, e);
	if (err)
		return err;
	/* Each section takes at least 16 bytes. */
	err = ketw_input_alloc(in, (in->len - in->hdr.header_size) /
				   sizeof(struct ketw_file_section));
	if (err)
		return ketw_input_fail(e, err, "out of memory");

	in->read_bytes = in->hdr.header_size;
	for (off = in->hdr.header_size; off < in->len && !end; off = next) {
		avail = in->len - off;
		if (avail < sizeof(s)) {
			err = ketw_input_cut(in, e,
				"truncated: section header at offset %llu cut short",
				(unsigned long long)off);
			goto out;
		}
		memcpy(&s, in->buf + off, sizeof(s));
		if (in->swapped) {
			s.type = bswap_32(s.type);
			s.flags = bswap_32(s.flags);
			s.length = bswap_64(s.length);
		}
		avail -= sizeof(s);
		if (s.length > avail) {
			err = ketw_input_cut(in, e,
				"truncated: %s section at offset %llu needs %llu bytes, %llu are left",
				ketw_section_name(s.type),
				(unsigned long long)off,
				(unsigned long long)s.length,
				(unsigned long long)avail);
			goto out;
		}
		next = off + sizeof(s) + s.length;
		next += -next & (KETW_FILE_ALIGN - 1);

		switch (s.type) {
		case KETW_SECTION_END:
			end = true;
			break;
		case KETW_SECTION_CPU_RECORDS:
			err = ketw_input_records(in, in->buf + off + sizeof(s),
						 s.length, off, index, e);
			break;
		case KETW_SECTION_CPU_STATS:
			err = ketw_input_stats(in, in->buf + off + sizeof(s),
					       s.length, off, e);
			break;
		case KETW_SECTION_STREAM:
			err = ketw_input_parse_stream(in, in->buf + off +
						      sizeof(s), s.length,
						      off, e);
			break;
		case KETW_SECTION_RUNDOWN:
			err = ketw_input_parse_rundown(in, in->buf + off +
						       sizeof(s), s.length,
						       off, e);
			break;
		case 0:
			return ketw_input_fail(e, -EBADMSG,
				"corrupt: section of type 0 at offset %llu",
				(unsigned long long)off);
		default:
			if (s.flags & KETW_SECTION_F_REQUIRED)
				return ketw_input_fail(e, -EPROTONOSUPPORT,
					"section type %u at offset %llu is required but unknown to this reader (format %u.%u)",
					s.type, (unsigned long long)off,
					in->hdr.version_major,
					in->hdr.version_minor);
			in->skipped++;
			break;
		}
		if (err)
			return err;
		index++;
		in->sections++;
		in->read_bytes = off + sizeof(s) + s.length;
	}
	err = 0;
	if (!end)
		err = ketw_input_cut(in, e,
			"truncated: the end section is missing (file cut short, or its writer did not finish)");
out:
	if (!err)
		ketw_input_rewind(in);
	return err;
}

/* ---- opening ------------------------------------------------------- */

static int ketw_input_finish(struct ketw_input *in, struct ketw_input **out,
			     struct ketw_input_err *e)
{
	int err = ketw_input_parse(in, e);

	if (err) {
		ketw_input_close(in);
		return err;
	}
	*out = in;
	return 0;
}

int ketw_input_open_mem(const void *buf, size_t len, struct ketw_input **out,
			char *errbuf, size_t errlen)
{
	return ketw_input_open_mem_flags(buf, len, 0, out, errbuf, errlen);
}

int ketw_input_open_mem_flags(const void *buf, size_t len, unsigned int flags,
			      struct ketw_input **out, char *errbuf,
			      size_t errlen)
{
	struct ketw_input_err e = { errbuf, errlen };
	struct ketw_input *in;

	if (flags & ~KETW_INPUT_PARTIAL)
		return ketw_input_fail(&e, -EINVAL, "unknown flags %#x", flags);
	in = calloc(1, sizeof(*in));
	if (!in)
		return ketw_input_fail(&e, -ENOMEM, "out of memory");
	in->flags = flags;
	in->buf = malloc(len ? len : 1);
	if (!in->buf) {
		free(in);
		return ketw_input_fail(&e, -ENOMEM, "out of memory");
	}
	memcpy(in->buf, buf, len);
	in->len = len;
	return ketw_input_finish(in, out, &e);
}

int ketw_input_open(const char *path, struct ketw_input **out, char *errbuf,
		    size_t errlen)
{
	return ketw_input_open_flags(path, 0, out, errbuf, errlen);
}

int ketw_input_open_flags(const char *path, unsigned int flags,
			  struct ketw_input **out, char *errbuf, size_t errlen)
{
	struct ketw_input_err e = { errbuf, errlen };
	struct ketw_input *in;
	struct stat st;
	void *p;
	int fd, err;

	if (flags & ~KETW_INPUT_PARTIAL)
		return ketw_input_fail(&e, -EINVAL, "unknown flags %#x", flags);

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		return ketw_input_fail(&e, err, "%s", strerror(-err));
	}
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return ketw_input_fail(&e, err, "%s", strerror(-err));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return ketw_input_fail(&e, -EINVAL, "not a regular file");
	}
	if (st.st_size == 0) {
		close(fd);
		return ketw_input_fail(&e, -EBADMSG,
				       "not a ketw trace file (empty)");
	}
	if ((uint64_t)st.st_size > SIZE_MAX) {
		close(fd);
		return ketw_input_fail(&e, -EFBIG, "file too large");
	}
	/* Private and writable: byte swapping happens in our copy. */
	p = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	err = -errno;
	close(fd);
	if (p == MAP_FAILED)
		return ketw_input_fail(&e, err, "mmap: %s", strerror(-err));
	in = calloc(1, sizeof(*in));
	if (!in) {
		munmap(p, st.st_size);
		return ketw_input_fail(&e, -ENOMEM, "out of memory");
	}
	in->buf = p;
	in->len = st.st_size;
	in->mapped = true;
	in->flags = flags;
	return ketw_input_finish(in, out, &e);
}

void ketw_input_close(struct ketw_input *in)
{
	if (!in)
		return;
	if (in->mapped)
		munmap(in->buf, in->len);
	else
		free(in->buf);
	free(in->cursors);
	free(in->copies);
	free(in->heap);
	free(in->cpu_records);
	free(in->cpu_gaps);
	free(in->cpu_last_seq);
	free(in->stats);
	free(in->have_stats);
	free(in);
}

/* ---- accessors ----------------------------------------------------- */

const struct ketw_file_header *ketw_input_header(const struct ketw_input *in)
{
	return &in->hdr;
}

bool ketw_input_swapped(const struct ketw_input *in)
{
	return in->swapped;
}

unsigned int ketw_input_nr_cpus(const struct ketw_input *in)
{
	return in->hdr.nr_cpus;
}

uint64_t ketw_input_cpu_records(const struct ketw_input *in, unsigned int cpu)
{
	return cpu < in->hdr.nr_cpus ? in->cpu_records[cpu] : 0;
}

uint64_t ketw_input_cpu_gaps(const struct ketw_input *in, unsigned int cpu)
{
	return cpu < in->hdr.nr_cpus ? in->cpu_gaps[cpu] : 0;
}

const struct ketw_file_cpu_stats *
ketw_input_cpu_stats(const struct ketw_input *in, unsigned int cpu)
{
	if (cpu >= in->hdr.nr_cpus || !in->have_stats[cpu])
		return NULL;
	return &in->stats[cpu];
}

unsigned int ketw_input_skipped_sections(const struct ketw_input *in)
{
	return in->skipped;
}

const struct ketw_file_stream *ketw_input_stream(const struct ketw_input *in)
{
	return in->have_stream ? &in->stream : NULL;
}

int ketw_input_rundown_copies(const struct ketw_input *in, ketw_record_fn fn,
			      void *ctx)
{
	struct ketw_record_iter it;
	struct ketw_record rec;
	unsigned int i;
	int ret;

	for (i = 0; i < in->nr_copies; i++) {
		it = in->copies[i];
		while (ketw_record_iter_next(&it, &rec) > 0) {
			rec.cpu = rec.hdr->cpu;
			rec.context = in->hdr.flags & KETW_FILE_F_RECORD_CTX;
			ret = fn(&rec, ctx);
			if (ret)
				return ret;
		}
	}
	return 0;
}

uint64_t ketw_input_truncated(const struct ketw_input *in)
{
	return in->truncated;
}

uint64_t ketw_input_read_bytes(const struct ketw_input *in)
{
	return in->read_bytes;
}

uint64_t ketw_input_nr_sections(const struct ketw_input *in)
{
	return in->sections;
}

uint64_t ketw_input_nr_records(const struct ketw_input *in)
{
	return in->records;
}

/* ---- merging CPUs: a min-heap of cursors on their current record ---- */

static bool ketw_cursor_before(const struct ketw_cursor *a,
			       const struct ketw_cursor *b)
{
	const struct ketw_event_header *x = a->cur.hdr, *y = b->cur.hdr;

	if (x->timestamp != y->timestamp)
		return x->timestamp < y->timestamp;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu;
	if (x->sequence != y->sequence)
		return x->sequence < y->sequence;
	return a->index < b->index;
}

static void ketw_heap_down(struct ketw_input *in, unsigned int i)
{
	struct ketw_cursor **h = in->heap, *tmp;
	unsigned int l, m;

	for (;;) {
		l = 2 * i + 1;
		if (l >= in->heap_len)
			return;
		m = l;
		if (l + 1 < in->heap_len && ketw_cursor_before(h[l + 1], h[l]))
			m = l + 1;
		if (!ketw_cursor_before(h[m], h[i]))
			return;
		tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

/* Load the cursor's next record; false at its end. */
static bool ketw_cursor_advance(struct ketw_cursor *c)
{
	if (ketw_record_iter_next(&c->it, &c->cur) <= 0)
		return false;	/* checked at open: only the end */
	c->cur.cpu = c->cpu;
	return true;
}

void ketw_input_rewind(struct ketw_input *in)
{
	unsigned int i;

	in->heap_len = 0;
	for (i = 0; i < in->nr_cursors; i++) {
		struct ketw_cursor *c = &in->cursors[i];

		c->it.off = 0;
		if (ketw_cursor_advance(c))
			in->heap[in->heap_len++] = c;
	}
	for (i = in->heap_len / 2; i-- > 0;)
		ketw_heap_down(in, i);
}

int ketw_input_next(struct ketw_input *in, struct ketw_record *rec)
{
	struct ketw_cursor *c;

	if (!in->heap_len)
		return 0;
	c = in->heap[0];
	*rec = c->cur;
	rec->context = in->hdr.flags & KETW_FILE_F_RECORD_CTX;
	if (!ketw_cursor_advance(c))
		in->heap[0] = in->heap[--in->heap_len];
	ketw_heap_down(in, 0);
	return 1;
}

/* ---- one CPU's records --------------------------------------------- */

void ketw_input_cpu_iter_init(struct ketw_input_cpu_iter *it,
			      const struct ketw_input *in, unsigned int cpu)
{
	memset(it, 0, sizeof(*it));
	it->in = in;
	it->cpu = cpu;
	it->cursor = 0;
	ketw_record_iter_init(&it->it, NULL, 0);
	it->it.off = 0;
}

int ketw_input_cpu_iter_next(struct ketw_input_cpu_iter *it,
			     struct ketw_record *rec)
{
	const struct ketw_input *in = it->in;
	const struct ketw_cursor *c;

	for (;;) {
		/* Checked at open: a section's records end only at its end. */
		if (it->it.buf && ketw_record_iter_next(&it->it, rec) > 0) {
			rec->cpu = it->cpu;
			rec->context = in->hdr.flags & KETW_FILE_F_RECORD_CTX;
			return 1;
		}
		while (it->cursor < in->nr_cursors &&
		       in->cursors[it->cursor].cpu != it->cpu)
			it->cursor++;
		if (it->cursor >= in->nr_cursors)
			return 0;
		c = &in->cursors[it->cursor++];
		it->it = c->it;		/* its buffer, length and header size */
		it->it.off = 0;
	}
}
