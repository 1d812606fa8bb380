// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: writing a .ketw trace file (format in ketw_file.h), as the
 * records come: each CPU's records gather in a buffer of their own
 * (growing up to KETW_OUTPUT_CPU_BUFFER bytes) that goes out as one
 * CPU_RECORDS section when it is full or at ketw_output_flush(). A
 * section is written whole, its length first, and never patched later:
 * at any moment the file is a header and complete sections, plus at most
 * a section being written, and a reader (KETW_INPUT_PARTIAL) reads what
 * the writer flushed, whether it later finishes or dies.
 *
 * The same writer serves a collector (ketw listen): a header it received
 * (ketw_output_create_header()), perhaps in the other byte order, which
 * the writer's own structures then follow; a bound on the memory all
 * CPUs' buffers take (ketw_output_set_limit()); and rotation
 * (ketw_output_rotate()): the file ends and the next begins with the
 * same header (its clock reference) and the rundown records seen so far, so
 * that each file can be read, and decoded, alone.
 */
#include <byteswap.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* The first buffer a CPU gets; it doubles up to KETW_OUTPUT_CPU_BUFFER. */
#define KETW_OUTPUT_MIN_BUFFER	4096

/* Records of one CPU not written yet. */
struct ketw_output_cpu {
	unsigned char *buf;
	size_t len;
	size_t cap;
};

struct ketw_output {
	FILE *f;
	uint64_t off;		/* bytes written so far */
	uint64_t section_off;	/* of the open section's header, or 0 */
	int err;		/* the first error, sticky */
	unsigned int nr_cpus;
	struct ketw_output_cpu *cpus;
	uint64_t sections;	/* complete sections written */
	struct ketw_file_header hdr;	/* host order: for the next file */
	bool swapped;		/* the file is in the other byte order */
	size_t limit;		/* bytes all CPUs' buffers may take; 0: none */
	size_t held;		/* bytes they take now */
	/* Rundown records seen (ketw_output_keep_rundown()). */
	unsigned char *rundown;
	size_t rundown_len;
	size_t rundown_cap;
	size_t rundown_max;
	uint64_t rundown_left_out;
};

static void ketw_strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	memset(dst + n, 0, size - n);
}

void ketw_output_info_from_attr(struct ketw_output_info *info,
				const struct ketw_session_attr *attr)
{
	struct ketw_file_session *s = &info->session;

	memset(s, 0, sizeof(*s));
	ketw_strlcpy(s->name, attr->name, sizeof(s->name));
	s->buffer_kb = attr->buffer_kb;
	s->policy = attr->policy;
	s->max_data_size = attr->max_data_size;
	s->clock = attr->clock;
	s->level = attr->level;
	s->state = attr->state;
	s->match_any = attr->match_any;
	s->match_all = attr->match_all;
	s->creation_time = attr->creation_time;
	s->clock_resolution = attr->clock_resolution;
	s->nr_cpus = attr->nr_cpus;
	info->nr_cpus = attr->nr_cpus;
	info->clock = attr->clock;
}

static uint64_t ketw_realtime_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int ketw_output_raw(struct ketw_output *out, const void *buf,
			   size_t len)
{
	if (out->err)
		return out->err;
	errno = 0;
	if (len && fwrite(buf, 1, len, out->f) != len) {
		out->err = errno ? -errno : -EIO;
		return out->err;
	}
	out->off += len;
	return 0;
}

static int ketw_output_pad(struct ketw_output *out)
{
	static const unsigned char zero[KETW_FILE_ALIGN];
	size_t pad = -out->off & (KETW_FILE_ALIGN - 1);

	return ketw_output_raw(out, zero, pad);
}

/* The writer's own integers, in the file's order. */
static uint32_t ketw_out32(const struct ketw_output *out, uint32_t v)
{
	return out->swapped ? bswap_32(v) : v;
}

static uint64_t ketw_out64(const struct ketw_output *out, uint64_t v)
{
	return out->swapped ? bswap_64(v) : v;
}

static int ketw_output_section_header(struct ketw_output *out, uint32_t type,
				      uint32_t flags, uint64_t length)
{
	struct ketw_file_section s = {
		.type = ketw_out32(out, type),
		.flags = ketw_out32(out, flags),
		.length = ketw_out64(out, length),
	};

	return ketw_output_raw(out, &s, sizeof(s));
}

static uint64_t ketw_clock_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int ketw_clock_ref_now(unsigned int clock, uint64_t *clock_ref,
		       uint64_t *realtime_ref)
{
	uint64_t r0, r1, best = UINT64_MAX, c;
	clockid_t id;
	int i;

	*clock_ref = *realtime_ref = 0;
	switch (clock ? clock : KETW_CLOCK_DEFAULT) {
	case KETW_CLOCK_MONO:
		id = CLOCK_MONOTONIC;
		break;
	case KETW_CLOCK_BOOT:
		id = CLOCK_BOOTTIME;
		break;
	default:
		return -EINVAL;
	}
	/*
	 * The trace clock between two readings of CLOCK_REALTIME, taken
	 * against their midpoint; the closest pair of a few tries.
	 */
	for (i = 0; i < 5; i++) {
		r0 = ketw_clock_ns(CLOCK_REALTIME);
		c = ketw_clock_ns(id);
		r1 = ketw_clock_ns(CLOCK_REALTIME);
		if (!r0 || !c || r1 < r0 || r1 - r0 >= best)
			continue;
		best = r1 - r0;
		*clock_ref = c;
		*realtime_ref = r0 + (r1 - r0) / 2;
	}
	return *clock_ref ? 0 : -EINVAL;
}

static void ketw_output_fill_header(struct ketw_file_header *h,
				    const struct ketw_output_info *info,
				    uint64_t clock_ref, uint64_t realtime_ref)
{
	struct utsname u;
	bool have_uname = uname(&u) == 0;

	memset(h, 0, sizeof(*h));
	h->magic = KETW_FILE_MAGIC;
	h->version_major = KETW_FILE_VERSION_MAJOR;
	h->version_minor = KETW_FILE_VERSION_MINOR;
	h->header_size = sizeof(*h);
	h->record_header_size = KETW_EVENT_HEADER_SIZE;
	h->flags = KETW_FILE_F_RECORD_CTX;
	h->nr_cpus = info->nr_cpus;
	h->clock = info->clock;
	h->creation_time = info->creation_time;
	if (!h->creation_time)
		h->creation_time = ketw_realtime_ns();
	h->session = info->session;
	h->session.name[KETW_NAME_MAX - 1] = '\0';
	ketw_strlcpy(h->hostname, info->hostname[0] || !have_uname ?
		     info->hostname : u.nodename, sizeof(h->hostname));
	ketw_strlcpy(h->release, info->release[0] || !have_uname ?
		     info->release : u.release, sizeof(h->release));
	ketw_strlcpy(h->machine, info->machine[0] || !have_uname ?
		     info->machine : u.machine, sizeof(h->machine));
	h->clock_ref = clock_ref;
	h->realtime_ref = realtime_ref;
}

void ketw_output_header_init(struct ketw_file_header *h,
			     const struct ketw_output_info *info)
{
	uint64_t clock_ref, realtime_ref;

	if (ketw_clock_ref_now(info->clock, &clock_ref, &realtime_ref))
		clock_ref = realtime_ref = 0;
	ketw_output_fill_header(h, info, clock_ref, realtime_ref);
}

/*
 * Open @path, or take @fd (which it then owns) when @path is NULL, and
 * write out->hdr (in the file's order).
 */
static int ketw_output_open(struct ketw_output *out, const char *path, int fd)
{
	struct ketw_file_header h = out->hdr;
	int err;

	out->f = path ? fopen(path, "wbe") : fdopen(fd, "wb");
	if (!out->f) {
		err = -errno;
		if (!path)
			close(fd);
		return err;
	}
	out->off = 0;
	out->section_off = 0;
	out->sections = 0;
	out->err = 0;
	if (out->swapped)
		ketw_swap_file_header(&h);
	err = ketw_output_raw(out, &h, sizeof(h));
	if (!err && fflush(out->f))
		err = -errno;
	if (err) {
		fclose(out->f);
		out->f = NULL;
	}
	return err;
}

/* The writer on @path or @fd (see ketw_output_open()) with header @hdr. */
static int ketw_output_new(const char *path, int fd,
			   const struct ketw_file_header *hdr, bool swapped,
			   struct ketw_output **outp)
{
	struct ketw_output *out;
	int err;

	if (hdr->nr_cpus == 0 || hdr->nr_cpus > KETW_FILE_MAX_CPUS)
		err = -EINVAL;
	else if (!(out = calloc(1, sizeof(*out))))
		err = -ENOMEM;
	else if (!(out->cpus = calloc(hdr->nr_cpus, sizeof(*out->cpus)))) {
		free(out);
		err = -ENOMEM;
	} else
		err = 0;
	if (err) {
		if (!path)
			close(fd);
		return err;
	}
	out->nr_cpus = hdr->nr_cpus;
	/* Only what this writer knows: its own header, whatever came. */
	out->hdr = *hdr;
	out->hdr.header_size = sizeof(out->hdr);
	out->swapped = swapped;
	err = ketw_output_open(out, path, fd);
	if (err) {
		free(out->cpus);
		free(out);
		return err;
	}
	*outp = out;
	return 0;
}

int ketw_output_create_header(const char *path,
			      const struct ketw_file_header *hdr,
			      bool swapped, struct ketw_output **outp)
{
	return ketw_output_new(path, -1, hdr, swapped, outp);
}

int ketw_output_create_ref(const char *path,
			   const struct ketw_output_info *info,
			   uint64_t clock_ref, uint64_t realtime_ref,
			   struct ketw_output **outp)
{
	struct ketw_file_header h;

	ketw_output_fill_header(&h, info, clock_ref, realtime_ref);
	return ketw_output_new(path, -1, &h, false, outp);
}

int ketw_output_create(const char *path, const struct ketw_output_info *info,
		       struct ketw_output **outp)
{
	struct ketw_file_header h;

	ketw_output_header_init(&h, info);
	return ketw_output_new(path, -1, &h, false, outp);
}

int ketw_output_create_fd(int fd, const struct ketw_output_info *info,
			  struct ketw_output **outp)
{
	struct ketw_file_header h;

	ketw_output_header_init(&h, info);
	return ketw_output_new(NULL, fd, &h, false, outp);
}

static void ketw_output_free(struct ketw_output *out)
{
	unsigned int cpu;

	for (cpu = 0; cpu < out->nr_cpus; cpu++)
		free(out->cpus[cpu].buf);
	free(out->cpus);
	free(out->rundown);
	free(out);
}

/* A whole section: its header with the length, then @a and @b, padded. */
static int ketw_output_section(struct ketw_output *out, uint32_t type,
			       const void *a, size_t alen,
			       const void *b, size_t blen)
{
	int err;

	if (out->err)
		return out->err;
	if (out->section_off)
		return -EINVAL;		/* inside ketw_output_section_begin() */
	err = ketw_output_section_header(out, type, 0, (uint64_t)alen + blen);
	if (!err)
		err = ketw_output_raw(out, a, alen);
	if (!err)
		err = ketw_output_raw(out, b, blen);
	if (!err)
		err = ketw_output_pad(out);
	if (!err)
		out->sections++;
	return err;
}

/* @cpu's gathered records as a section. */
static int ketw_output_cpu_flush(struct ketw_output *out, unsigned int cpu)
{
	struct ketw_file_cpu_records r = { .cpu = ketw_out32(out, cpu) };
	struct ketw_output_cpu *c = &out->cpus[cpu];
	int err;

	if (!c->len)
		return out->err;
	err = ketw_output_section(out, KETW_SECTION_CPU_RECORDS, &r, sizeof(r),
				  c->buf, c->len);
	c->len = 0;
	return err;
}

/* Every CPU's gathered records as sections, in CPU order. */
static int ketw_output_cpus_flush(struct ketw_output *out)
{
	unsigned int cpu;
	int err = out->err;

	for (cpu = 0; !err && cpu < out->nr_cpus; cpu++)
		err = ketw_output_cpu_flush(out, cpu);
	return err;
}

/* Write and free every CPU's buffer: the memory bound was reached. */
static int ketw_output_cpus_release(struct ketw_output *out)
{
	unsigned int cpu;
	int err = ketw_output_cpus_flush(out);

	for (cpu = 0; cpu < out->nr_cpus; cpu++) {
		free(out->cpus[cpu].buf);
		out->cpus[cpu].buf = NULL;
		out->cpus[cpu].cap = 0;
	}
	out->held = 0;
	return err;
}

/* Room for @span more bytes in @c's buffer, within the bounds. */
static int ketw_output_cpu_room(struct ketw_output *out, unsigned int cpu,
				size_t span)
{
	struct ketw_output_cpu *c = &out->cpus[cpu];
	size_t cap;
	void *buf;
	int err;

	if (c->cap - c->len >= span)
		return 0;
	if (c->cap == KETW_OUTPUT_CPU_BUFFER) {
		err = ketw_output_cpu_flush(out, cpu);	/* full: out it goes */
		return err;
	}
	for (cap = c->cap ? c->cap : KETW_OUTPUT_MIN_BUFFER;
	     cap - c->len < span; cap *= 2)
		;
	if (cap > KETW_OUTPUT_CPU_BUFFER) {
		err = ketw_output_cpu_flush(out, cpu);
		if (err)
			return err;
		cap = KETW_OUTPUT_CPU_BUFFER;
	}
	if (out->limit && out->held + (cap - c->cap) > out->limit) {
		err = ketw_output_cpus_release(out);
		if (err)
			return err;
		for (cap = KETW_OUTPUT_MIN_BUFFER; cap < span; cap *= 2)
			;
	}
	buf = realloc(c->buf, cap);
	if (!buf)
		return -ENOMEM;
	out->held += cap - c->cap;
	c->buf = buf;
	c->cap = cap;
	return 0;
}

/* The record's flags and event id, in host order. */
static bool ketw_output_is_rundown(const struct ketw_output *out,
				   const void *rec)
{
	struct ketw_event_header h;
	struct ketw_record r = { .hdr = &h };

	memcpy(&h, rec, sizeof(h));
	if (out->swapped) {
		h.flags = bswap_16(h.flags);
		h.event_id = bswap_32(h.event_id);
	}
	return ketw_record_is_rundown(&r);
}

static void ketw_output_rundown_add(struct ketw_output *out, const void *rec,
				    size_t span)
{
	size_t cap;
	void *buf;

	if (!out->rundown_max || !ketw_output_is_rundown(out, rec))
		return;
	if (out->rundown_max - out->rundown_len < span) {
		out->rundown_left_out++;
		return;
	}
	if (out->rundown_cap - out->rundown_len < span) {
		for (cap = out->rundown_cap ? out->rundown_cap : 4096;
		     cap - out->rundown_len < span; cap *= 2)
			;
		if (cap > out->rundown_max)
			cap = out->rundown_max;
		buf = realloc(out->rundown, cap);
		if (!buf) {
			out->rundown_left_out++;
			return;
		}
		out->rundown = buf;
		out->rundown_cap = cap;
	}
	memcpy(out->rundown + out->rundown_len, rec, span);
	out->rundown_len += span;
}

int ketw_output_add_record(struct ketw_output *out, unsigned int cpu,
			   const void *rec, size_t span)
{
	struct ketw_output_cpu *c;
	int err;

	if (out->err)
		return out->err;
	if (cpu >= out->nr_cpus || span > KETW_OUTPUT_CPU_BUFFER ||
	    span < KETW_RECORD_ALIGN || span % KETW_RECORD_ALIGN)
		return -EINVAL;
	err = ketw_output_cpu_room(out, cpu, span);
	if (err)
		return err;
	if (span >= KETW_EVENT_HEADER_SIZE)
		ketw_output_rundown_add(out, rec, span);
	c = &out->cpus[cpu];
	memcpy(c->buf + c->len, rec, span);
	c->len += span;
	return 0;
}

int ketw_output_flush(struct ketw_output *out)
{
	int err = ketw_output_cpus_flush(out);

	if (!err && !out->section_off && fflush(out->f))
		err = out->err = errno ? -errno : -EIO;
	return err;
}

uint64_t ketw_output_sections(const struct ketw_output *out)
{
	return out->sections;
}

uint64_t ketw_output_size(const struct ketw_output *out)
{
	return out->off;
}

size_t ketw_output_memory(const struct ketw_output *out)
{
	return out->held + out->rundown_cap;
}

int ketw_output_set_limit(struct ketw_output *out, size_t bytes)
{
	if (bytes && bytes < KETW_OUTPUT_LIMIT_MIN)
		return -EINVAL;
	out->limit = bytes;
	if (bytes && out->held > bytes)
		return ketw_output_cpus_release(out);
	return 0;
}

int ketw_output_section_begin(struct ketw_output *out, uint32_t type,
			      uint32_t flags)
{
	if (out->err)
		return out->err;
	if (out->section_off || !type)
		return -EINVAL;
	out->section_off = out->off;
	return ketw_output_section_header(out, type, flags, 0);
}

int ketw_output_write(struct ketw_output *out, const void *buf, size_t len)
{
	if (!out->section_off)
		return -EINVAL;
	return ketw_output_raw(out, buf, len);
}

int ketw_output_section_end(struct ketw_output *out)
{
	uint64_t len, start = out->section_off;
	off_t len_at;
	int err;

	if (out->err)
		return out->err;
	if (!start)
		return -EINVAL;
	len = ketw_out64(out, out->off - start -
				 sizeof(struct ketw_file_section));
	len_at = start + offsetof(struct ketw_file_section, length);
	errno = 0;
	if (fseeko(out->f, len_at, SEEK_SET) ||
	    fwrite(&len, sizeof(len), 1, out->f) != 1 ||
	    fseeko(out->f, out->off, SEEK_SET)) {
		out->err = errno ? -errno : -EIO;
		return out->err;
	}
	out->section_off = 0;
	err = ketw_output_pad(out);
	if (!err)
		out->sections++;
	return err;
}

int ketw_output_add_records(struct ketw_output *out, unsigned int cpu,
			    const void *records, size_t len)
{
	struct ketw_file_cpu_records r = { .cpu = ketw_out32(out, cpu) };
	int err;

	if (cpu >= out->nr_cpus)
		return -EINVAL;
	/* After what this CPU has gathered: sections in sequence order. */
	err = ketw_output_cpu_flush(out, cpu);
	if (!err)
		err = ketw_output_section(out, KETW_SECTION_CPU_RECORDS,
					  &r, sizeof(r), records, len);
	return err;
}

int ketw_output_add_file_stats(struct ketw_output *out,
			       const struct ketw_file_cpu_stats *st,
			       unsigned int nr)
{
	struct ketw_file_stats hdr = {
		.nr_entries = ketw_out32(out, nr),
		.entry_size = ketw_out32(out, sizeof(*st)),
	};
	struct ketw_file_cpu_stats e;
	unsigned int i;
	int err;

	if (out->section_off)
		return -EINVAL;
	/* The records gathered so far come before the counters. */
	err = ketw_output_flush(out);
	if (!err)
		err = ketw_output_section_header(out, KETW_SECTION_CPU_STATS, 0,
						 sizeof(hdr) +
						 (uint64_t)nr * sizeof(e));
	if (!err)
		err = ketw_output_raw(out, &hdr, sizeof(hdr));
	for (i = 0; !err && i < nr; i++) {
		e = st[i];
		if (out->swapped)
			ketw_swap_file_cpu_stats(&e);
		err = ketw_output_raw(out, &e, sizeof(e));
	}
	if (!err)
		err = ketw_output_pad(out);
	if (!err)
		out->sections++;
	return err;
}

void ketw_file_cpu_stats_set(struct ketw_file_cpu_stats *e,
			     const struct ketw_cpu_stats *st, bool valid)
{
	memset(e, 0, sizeof(*e));
	e->cpu = st->cpu;
	if (!valid)
		return;
	e->flags = KETW_FILE_STATS_VALID;
	e->written = st->written;
	e->lost_full = st->lost_full;
	e->overwritten = st->overwritten;
	e->lost_busy = st->lost_busy;
	e->lost_nested = st->lost_nested;
	e->truncated = st->truncated;
	e->read = st->read;
	e->sequence = st->sequence;
	e->produced = st->produced;
	e->consumed = st->consumed;
}

int ketw_output_add_stats(struct ketw_output *out,
			  const struct ketw_cpu_stats *st, const bool *valid,
			  unsigned int nr)
{
	struct ketw_file_cpu_stats *e;
	unsigned int i;
	int err;

	e = calloc(nr ? nr : 1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		ketw_file_cpu_stats_set(&e[i], &st[i], !valid || valid[i]);
	err = ketw_output_add_file_stats(out, e, nr);
	free(e);
	return err;
}

int ketw_output_add_stream(struct ketw_output *out,
			   const struct ketw_file_stream *s)
{
	struct ketw_file_stream w = *s;

	if (out->swapped)
		ketw_swap_file_stream(&w);
	return ketw_output_section(out, KETW_SECTION_STREAM, &w, sizeof(w),
				   NULL, 0);
}

void ketw_output_keep_rundown(struct ketw_output *out, size_t max_bytes)
{
	out->rundown_max = max_bytes;
}

uint64_t ketw_output_rundown_left_out(const struct ketw_output *out)
{
	return out->rundown_left_out;
}

/* The gathered records and the END section; the file stays open. */
static int ketw_output_end(struct ketw_output *out)
{
	int err = out->err;

	if (!err && out->section_off)
		err = -EINVAL;		/* a section left open */
	if (!err)
		err = ketw_output_flush(out);
	if (!err)
		err = ketw_output_section(out, KETW_SECTION_END, NULL, 0,
					  NULL, 0);
	if (!err && fflush(out->f))
		err = -errno;
	return err;
}

int ketw_output_rotate(struct ketw_output *out, const char *path)
{
	int err = ketw_output_end(out);

	if (fclose(out->f) && !err)
		err = -errno;
	out->f = NULL;
	if (err) {
		out->err = err;
		return err;
	}
	/* The next file: written now, with what decodes it. */
	out->hdr.creation_time = ketw_realtime_ns();
	err = ketw_output_open(out, path, -1);
	if (err) {
		out->err = err;
		return err;
	}
	if (out->rundown_len)
		err = ketw_output_section(out, KETW_SECTION_RUNDOWN,
					  out->rundown, out->rundown_len,
					  NULL, 0);
	if (!err && fflush(out->f))
		err = out->err = -errno;
	return err;
}

int ketw_output_close(struct ketw_output *out)
{
	int err = out->f ? ketw_output_end(out) : out->err ? out->err : -EIO;

	if (out->f && fclose(out->f) && !err)
		err = -errno;
	ketw_output_free(out);
	return err;
}

void ketw_output_abort(struct ketw_output *out, const char *path)
{
	if (out->f)
		fclose(out->f);
	ketw_output_free(out);
	if (path)
		unlink(path);
}
