// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: writing a .ketw trace file (format in ketw_file.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "libketw.h"

struct ketw_output {
	FILE *f;
	uint64_t off;		/* bytes written so far */
	uint64_t section_off;	/* of the open section's header, or 0 */
	int err;		/* the first error, sticky */
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

static void ketw_output_fill_header(struct ketw_file_header *h,
				    const struct ketw_output_info *info)
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
}

int ketw_output_create(const char *path, const struct ketw_output_info *info,
		       struct ketw_output **outp)
{
	struct ketw_file_header h;
	struct ketw_output *out;
	int err;

	if (info->nr_cpus == 0 || info->nr_cpus > KETW_FILE_MAX_CPUS)
		return -EINVAL;
	out = calloc(1, sizeof(*out));
	if (!out)
		return -ENOMEM;
	out->f = fopen(path, "wbe");
	if (!out->f) {
		err = -errno;
		free(out);
		return err;
	}
	ketw_output_fill_header(&h, info);
	err = ketw_output_raw(out, &h, sizeof(h));
	if (err) {
		fclose(out->f);
		free(out);
		return err;
	}
	*outp = out;
	return 0;
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
	return ketw_output_pad(out);
}

int ketw_output_add_records(struct ketw_output *out, unsigned int cpu,
			    const void *records, size_t len)
{
	struct ketw_file_cpu_records r = { .cpu = cpu };
	int err;

	err = ketw_output_section_begin(out, KETW_SECTION_CPU_RECORDS, 0);
	if (!err)
		err = ketw_output_write(out, &r, sizeof(r));
	if (!err)
		err = ketw_output_write(out, records, len);
	if (!err)
		err = ketw_output_section_end(out);
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
	struct ketw_file_cpu_stats e;
	unsigned int i;
	int err;

	err = ketw_output_section_begin(out, KETW_SECTION_CPU_STATS, 0);
	if (!err)
		err = ketw_output_write(out, &hdr, sizeof(hdr));
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
		err = ketw_output_write(out, &e, sizeof(e));
	}
	if (!err)
		err = ketw_output_section_end(out);
	return err;
}

int ketw_output_close(struct ketw_output *out)
{
	int err = out->err;

	if (!err && out->section_off)
		err = -EINVAL;		/* a section left open */
	if (!err) {
		err = ketw_output_section_begin(out, KETW_SECTION_END, 0);
		if (!err)
			err = ketw_output_section_end(out);
	}
	if (!err && fflush(out->f))
		err = -errno;
	if (fclose(out->f) && !err)
		err = -errno;
	free(out);
	return err;
}

void ketw_output_abort(struct ketw_output *out, const char *path)
{
	fclose(out->f);
	free(out);
	if (path)
		unlink(path);
}
