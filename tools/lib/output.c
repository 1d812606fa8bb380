// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: writing a .ketw trace file (format in ketw_file.h), as the
 * records come: each CPU's records gather in a buffer of their own
 * (KETW_OUTPUT_CPU_BUFFER bytes at most) that goes out as one
 * CPU_RECORDS section when it is full or at ketw_output_flush(). A
 * section is written whole, its length first, and never patched later:
 * at any moment the file is a header and complete sections, plus at most
 * a section being written, and a reader (KETW_INPUT_PARTIAL) reads what
 * the writer flushed, whether it later finishes or dies.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "libketw.h"

/* Records of one CPU not written yet. */
struct ketw_output_cpu {
	unsigned char *buf;	/* KETW_OUTPUT_CPU_BUFFER bytes, or NULL */
	size_t len;
};

struct ketw_output {
	FILE *f;
	uint64_t off;		/* bytes written so far */
	uint64_t section_off;	/* of the open section's header, or 0 */
	int err;		/* the first error, sticky */
	unsigned int nr_cpus;
	struct ketw_output_cpu *cpus;
	uint64_t sections;	/* complete sections written */
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
	struct timespec ts;
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
	if (!h->creation_time && !clock_gettime(CLOCK_REALTIME, &ts))
		h->creation_time = (uint64_t)ts.tv_sec * 1000000000ull +
				   ts.tv_nsec;
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

/*
 * The writer on @path, or on @fd (which it then owns) when @path is NULL,
 * with the header's clock reference @clock_ref, @realtime_ref.
 */
static int ketw_output_open_ref(const char *path, int fd,
				const struct ketw_output_info *info,
				uint64_t clock_ref, uint64_t realtime_ref,
				struct ketw_output **outp)
{
	struct ketw_file_header h;
	struct ketw_output *out;
	int err;

	if (info->nr_cpus == 0 || info->nr_cpus > KETW_FILE_MAX_CPUS)
		err = -EINVAL;
	else if (!(out = calloc(1, sizeof(*out))))
		err = -ENOMEM;
	else if (!(out->cpus = calloc(info->nr_cpus, sizeof(*out->cpus)))) {
		free(out);
		err = -ENOMEM;
	} else
		err = 0;
	if (err) {
		if (!path)
			close(fd);
		return err;
	}
	out->nr_cpus = info->nr_cpus;
	out->f = path ? fopen(path, "wbe") : fdopen(fd, "wb");
	if (!out->f) {
		err = -errno;
		if (!path)
			close(fd);
		free(out->cpus);
		free(out);
		return err;
	}
	ketw_output_fill_header(&h, info, clock_ref, realtime_ref);
	err = ketw_output_raw(out, &h, sizeof(h));
	if (!err && fflush(out->f))
		err = -errno;
	if (err) {
		fclose(out->f);
		free(out->cpus);
		free(out);
		return err;
	}
	*outp = out;
	return 0;
}

/* The same with the clock reference read now. */
static int ketw_output_open(const char *path, int fd,
			    const struct ketw_output_info *info,
			    struct ketw_output **outp)
{
	uint64_t clock_ref, realtime_ref;

	if (ketw_clock_ref_now(info->clock, &clock_ref, &realtime_ref))
		clock_ref = realtime_ref = 0;
	return ketw_output_open_ref(path, fd, info, clock_ref, realtime_ref,
				    outp);
}

int ketw_output_create_ref(const char *path,
			   const struct ketw_output_info *info,
			   uint64_t clock_ref, uint64_t realtime_ref,
			   struct ketw_output **outp)
{
	return ketw_output_open_ref(path, -1, info, clock_ref, realtime_ref,
				    outp);
}

int ketw_output_create(const char *path, const struct ketw_output_info *info,
		       struct ketw_output **out)
{
	return ketw_output_open(path, -1, info, out);
}

int ketw_output_create_fd(int fd, const struct ketw_output_info *info,
			  struct ketw_output **out)
{
	return ketw_output_open(NULL, fd, info, out);
}

static void ketw_output_free(struct ketw_output *out)
{
	unsigned int cpu;

	for (cpu = 0; cpu < out->nr_cpus; cpu++)
		free(out->cpus[cpu].buf);
	free(out->cpus);
	free(out);
}

/* A whole section: its header with the length, then @a and @b, padded. */
static int ketw_output_section(struct ketw_output *out, uint32_t type,
			       const void *a, size_t alen,
			       const void *b, size_t blen)
{
	struct ketw_file_section s = {
		.type = type,
		.length = (uint64_t)alen + blen,
	};
	int err;

	if (out->err)
		return out->err;
	if (out->section_off)
		return -EINVAL;		/* inside ketw_output_section_begin() */
	err = ketw_output_raw(out, &s, sizeof(s));
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
	struct ketw_file_cpu_records r = { .cpu = cpu };
	struct ketw_output_cpu *c = &out->cpus[cpu];
	int err;

	if (!c->len)
		return out->err;
	err = ketw_output_section(out, KETW_SECTION_CPU_RECORDS, &r, sizeof(r),
				  c->buf, c->len);
	c->len = 0;
	return err;
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
	c = &out->cpus[cpu];
	if (!c->buf) {
		c->buf = malloc(KETW_OUTPUT_CPU_BUFFER);
		if (!c->buf)
			return -ENOMEM;
	}
	if (KETW_OUTPUT_CPU_BUFFER - c->len < span) {
		err = ketw_output_cpu_flush(out, cpu);
		if (err)
			return err;
	}
	memcpy(c->buf + c->len, rec, span);
	c->len += span;
	return 0;
}

int ketw_output_flush(struct ketw_output *out)
{
	unsigned int cpu;
	int err = out->err;

	for (cpu = 0; !err && cpu < out->nr_cpus; cpu++)
		err = ketw_output_cpu_flush(out, cpu);
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

int ketw_output_section_begin(struct ketw_output *out, uint32_t type,
			      uint32_t flags)
{
	struct ketw_file_section s = { .type = type, .flags = flags };

	if (out->err)
		return out->err;
	if (out->section_off || !type)
		return -EINVAL;
	out->section_off = out->off;
	return ketw_output_raw(out, &s, sizeof(s));
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
	len = out->off - start - sizeof(struct ketw_file_section);
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
	struct ketw_file_cpu_records r = { .cpu = cpu };
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

int ketw_output_add_stats(struct ketw_output *out,
			  const struct ketw_cpu_stats *st, const bool *valid,
			  unsigned int nr)
{
	struct ketw_file_stats hdr = {
		.nr_entries = nr,
		.entry_size = sizeof(struct ketw_file_cpu_stats),
	};
	struct ketw_file_section s = {
		.type = KETW_SECTION_CPU_STATS,
		.length = sizeof(hdr) + (uint64_t)nr * hdr.entry_size,
	};
	struct ketw_file_cpu_stats e;
	unsigned int i;
	int err;

	if (out->section_off)
		return -EINVAL;
	/* The records gathered so far come before the counters. */
	err = ketw_output_flush(out);
	if (!err)
		err = ketw_output_raw(out, &s, sizeof(s));
	if (!err)
		err = ketw_output_raw(out, &hdr, sizeof(hdr));
	for (i = 0; !err && i < nr; i++) {
		memset(&e, 0, sizeof(e));
		e.cpu = st[i].cpu;
		if (!valid || valid[i]) {
			e.flags = KETW_FILE_STATS_VALID;
			e.written = st[i].written;
			e.lost_full = st[i].lost_full;
			e.overwritten = st[i].overwritten;
			e.lost_busy = st[i].lost_busy;
			e.lost_nested = st[i].lost_nested;
			e.truncated = st[i].truncated;
			e.read = st[i].read;
			e.sequence = st[i].sequence;
			e.produced = st[i].produced;
			e.consumed = st[i].consumed;
		}
		err = ketw_output_raw(out, &e, sizeof(e));
	}
	if (!err)
		err = ketw_output_pad(out);
	if (!err)
		out->sections++;
	return err;
}

int ketw_output_close(struct ketw_output *out)
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
	if (fclose(out->f) && !err)
		err = -errno;
	ketw_output_free(out);
	return err;
}

void ketw_output_abort(struct ketw_output *out, const char *path)
{
	fclose(out->f);
	ketw_output_free(out);
	if (path)
		unlink(path);
}
