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
	default:			return "unknown";
	}
}

/* ---- byte swapping (only of what this reader knows) ---------------- */

static void ketw_swap_session(struct ketw_file_session *s)
{
	s->buffer_kb = bswap_32(s->buffer_kb);
	s->policy = bswap_32(s->policy);
	s->max_data_size = bswap_32(s->max_data_size);
	s->clock = bswap_32(s->clock);
	s->level = bswap_32(s->level);
	s->state = bswap_32(s->state);
	s->match_any = bswap_64(s->match_any);
	s->match_all = bswap_64(s->match_all);
	s->creation_time = bswap_64(s->creation_time);
	s->clock_resolution = bswap_32(s->clock_resolution);
	s->nr_cpus = bswap_32(s->nr_cpus);
}

static void ketw_swap_header(struct ketw_file_header *h)
{
	h->magic = bswap_32(h->magic);
	h->version_major = bswap_16(h->version_major);
	h->version_minor = bswap_16(h->version_minor);
	h->header_size = bswap_32(h->header_size);
	h->record_header_size = bswap_32(h->record_header_size);
	h->nr_cpus = bswap_32(h->nr_cpus);
	h->clock = bswap_32(h->clock);
	h->creation_time = bswap_64(h->creation_time);
	h->flags = bswap_32(h->flags);
	h->reserved = bswap_32(h->reserved);
	h->clock_ref = bswap_64(h->clock_ref);
	h->realtime_ref = bswap_64(h->realtime_ref);
	ketw_swap_session(&h->session);
}

static void ketw_swap_cpu_stats(struct ketw_file_cpu_stats *e)
{
	e->cpu = bswap_32(e->cpu);
	e->flags = bswap_32(e->flags);
	e->written = bswap_64(e->written);
	e->lost_full = bswap_64(e->lost_full);
	e->overwritten = bswap_64(e->overwritten);
	e->lost_busy = bswap_64(e->lost_busy);
	e->lost_nested = bswap_64(e->lost_nested);
	e->truncated = bswap_64(e->truncated);
	e->read = bswap_64(e->read);
	e->sequence = bswap_64(e->sequence);
	e->produced = bswap_64(e->produced);
	e->consumed = bswap_64(e->consumed);
}

/* The fields after size/type/level/version/flags, in place. */
static void ketw_swap_record_rest(struct ketw_event_header *h)
{
	h->event_id = bswap_32(h->event_id);
	h->cpu = bswap_32(h->cpu);
	h->thread_id = bswap_32(h->thread_id);
	h->process_id = bswap_32(h->process_id);
	h->sequence = bswap_64(h->sequence);
	h->timestamp = bswap_64(h->timestamp);
	h->keyword = bswap_64(h->keyword);
}

static void ketw_swap_filter(struct ketw_filter *f)
{
	unsigned int i;

	f->level = bswap_32(f->level);
	f->enabled = bswap_32(f->enabled);
	f->match_any = bswap_64(f->match_any);
	f->match_all = bswap_64(f->match_all);
	for (i = 0; i < KETW_EVENT_SET_BITS / 64; i++)
		f->filtered.bits[i] = bswap_64(f->filtered.bits[i]);
}

/* The payloads that came with providers: FILTER and the rundown. */
static void ketw_swap_sys_provider_payload(uint32_t id, unsigned char *data,
					   size_t len)
{
	struct ketw_sys_filter flt;
	struct ketw_sys_provider prov;
	struct ketw_event_info ev;
	struct ketw_sys_task task;
	unsigned int i;

	switch (id) {
	case KETW_SYS_FILTER:
		if (len < sizeof(flt))
			return;
		memcpy(&flt, data, sizeof(flt));
		ketw_swap_filter(&flt.old_filter);
		ketw_swap_filter(&flt.new_filter);
		memcpy(data, &flt, sizeof(flt));
		break;
	case KETW_SYS_PROVIDER:
		if (len < sizeof(prov))
			return;
		memcpy(&prov, data, sizeof(prov));
		prov.nr_events = bswap_32(prov.nr_events);
		prov.flags = bswap_32(prov.flags);
		memcpy(data, &prov, sizeof(prov));
		break;
	case KETW_SYS_EVENT_DESC:
		if (len < sizeof(ev))
			return;
		memcpy(&ev, data, sizeof(ev));
		ev.id = bswap_32(ev.id);
		ev.version = bswap_16(ev.version);
		ev.keyword = bswap_64(ev.keyword);
		ev.nr_fields = bswap_32(ev.nr_fields);
		ev.flags = bswap_32(ev.flags);
		for (i = 0; i < KETW_MAX_FIELDS; i++) {
			ev.fields[i].type = bswap_16(ev.fields[i].type);
			ev.fields[i].offset = bswap_16(ev.fields[i].offset);
			ev.fields[i].size = bswap_16(ev.fields[i].size);
			ev.fields[i].reserved = bswap_16(ev.fields[i].reserved);
		}
		memcpy(data, &ev, sizeof(ev));
		break;
	case KETW_SYS_TASK:
		if (len < sizeof(task))
			return;
		memcpy(&task, data, sizeof(task));
		task.process_id = bswap_32(task.process_id);
		task.thread_id = bswap_32(task.thread_id);
		memcpy(data, &task, sizeof(task));
		break;
	}
}

/*
 * System event payloads are part of the ABI (not provider data): swap
 * those this reader knows.
 */
static void ketw_swap_sys_payload(struct ketw_event_header *h, size_t hdr_size)
{
	unsigned char *data = (unsigned char *)h + hdr_size;
	size_t len = h->size - hdr_size;
	struct ketw_sys_start start;
	struct ketw_sys_stop stop;
	struct ketw_sys_overflow ovf;
	struct ketw_sys_resume res;
	struct ketw_sys_error error;
	struct ketw_sys_module mod;
	struct ketw_sys_trigger trig;
	uint32_t w;
	size_t i;

	switch (h->event_id) {
	case KETW_SYS_MODULE:
		if (len < sizeof(mod))
			return;
		memcpy(&mod, data, sizeof(mod));
		mod.base = bswap_64(mod.base);
		mod.size = bswap_64(mod.size);
		memcpy(data, &mod, sizeof(mod));
		break;
	case KETW_SYS_START:
		if (len < sizeof(start))
			return;
		memcpy(&start, data, sizeof(start));
		start.level = bswap_32(start.level);
		start.reserved = bswap_32(start.reserved);
		start.match_any = bswap_64(start.match_any);
		start.match_all = bswap_64(start.match_all);
		memcpy(data, &start, sizeof(start));
		break;
	case KETW_SYS_STOP:
		if (len < sizeof(stop))
			return;
		memcpy(&stop, data, sizeof(stop));
		stop.auto_stop = bswap_32(stop.auto_stop);
		stop.reserved = bswap_32(stop.reserved);
		memcpy(data, &stop, sizeof(stop));
		break;
	case KETW_SYS_OVERFLOW:
		if (len < sizeof(ovf))
			return;
		memcpy(&ovf, data, sizeof(ovf));
		ovf.first_lost_timestamp = bswap_64(ovf.first_lost_timestamp);
		memcpy(data, &ovf, sizeof(ovf));
		break;
	case KETW_SYS_RESUME:
		if (len < sizeof(res))
			return;
		memcpy(&res, data, sizeof(res));
		res.lost = bswap_64(res.lost);
		memcpy(data, &res, sizeof(res));
		break;
	case KETW_SYS_ERROR:
		if (len < sizeof(error))
			return;
		memcpy(&error, data, sizeof(error));
		error.error = (int32_t)bswap_32((uint32_t)error.error);
		error.reserved = bswap_32(error.reserved);
		memcpy(data, &error, sizeof(error));
		break;
	case KETW_SYS_TRIGGER:
		if (len < sizeof(trig))
			return;
		memcpy(&trig, data, sizeof(trig));
		trig.trigger_id = bswap_32(trig.trigger_id);
		trig.event_id = bswap_32(trig.event_id);
		trig.sequence = bswap_64(trig.sequence);
		trig.cpu = bswap_32(trig.cpu);
		trig.fired = bswap_32(trig.fired);
		trig.suppressed = bswap_32(trig.suppressed);
		trig.action = bswap_32(trig.action);
		memcpy(data, &trig, sizeof(trig));
		break;
	default:
		/* A process filter's FILTER: __u32s only. */
		if (h->event_id == KETW_SYS_FILTER &&
		    h->version == KETW_SYS_FILTER_PIDS) {
			for (i = 0; i + 4 <= len; i += 4) {
				memcpy(&w, data + i, 4);
				w = bswap_32(w);
				memcpy(data + i, &w, 4);
			}
			break;
		}
		ketw_swap_sys_provider_payload(h->event_id, data, len);
		break;
	}
}

/*
 * Swap the record headers of a records body in place. Stops at the first
 * record that does not fit; the check that follows reports it.
 */
static void ketw_swap_records(unsigned char *p, size_t len, size_t hdr_size)
{
	struct ketw_event_header *h;
	size_t off = 0, span;

	while (len - off >= KETW_RECORD_ALIGN) {
		h = (void *)(p + off);
		h->size = bswap_16(h->size);
		h->version = bswap_16(h->version);
		h->flags = bswap_16(h->flags);
		span = KETW_RECORD_SPAN((size_t)h->size);
		if (span < KETW_RECORD_ALIGN || span > len - off)
			return;
		if (!(h->flags & KETW_RECORD_PADDING)) {
			if (h->size < hdr_size)
				return;
			ketw_swap_record_rest(h);
			if (h->flags & KETW_RECORD_EXT)
				ketw_ext_swap((unsigned char *)h + hdr_size,
					      h->size - hdr_size);
			else if (h->flags & KETW_RECORD_SYSTEM)
				ketw_swap_sys_payload(h, hdr_size);
		}
		off += span;
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
			ketw_swap_cpu_stats(&st);
		if (st.cpu >= in->hdr.nr_cpus)
			return ketw_input_fail(e, -EBADMSG,
				"corrupt: cpu stats entry for cpu %u, the file has %u cpus",
				st.cpu, in->hdr.nr_cpus);
		in->stats[st.cpu] = st;
		in->have_stats[st.cpu] = true;
	}
	return 0;
}

static int ketw_input_header_check(struct ketw_input *in,
				   struct ketw_input_err *e)
{
	struct ketw_file_header *h = &in->hdr;
	uint32_t magic;
	size_t n;

	if (in->len < sizeof(magic))
		return ketw_input_fail(e, -EBADMSG,
			"not a ketw trace file (%zu bytes)", in->len);
	memcpy(&magic, in->buf, sizeof(magic));
	if (magic == bswap_32(KETW_FILE_MAGIC) &&
	    magic != KETW_FILE_MAGIC)
		in->swapped = true;
	else if (magic != KETW_FILE_MAGIC)
		return ketw_input_fail(e, -EBADMSG,
			"not a ketw trace file (magic 0x%08x)", magic);
	if (in->len < KETW_FILE_HEADER_SIZE_V1)
		return ketw_input_fail(e, -EBADMSG,
			"truncated: %zu bytes, shorter than the file header",
			in->len);

	/* Fields a shorter (older) header lacks stay 0. */
	memset(h, 0, sizeof(*h));
	memcpy(h, in->buf, KETW_FILE_HEADER_SIZE_V1);
	if (in->swapped)
		ketw_swap_header(h);
	if (h->version_major != KETW_FILE_VERSION_MAJOR)
		return ketw_input_fail(e, -EPROTONOSUPPORT,
			"format version %u.%u is not supported (this reader knows %u.x)",
			h->version_major, h->version_minor,
			KETW_FILE_VERSION_MAJOR);
	if (h->header_size >= KETW_FILE_HEADER_SIZE_V1 &&
	    !(h->header_size % KETW_FILE_ALIGN) && h->header_size > in->len)
		return ketw_input_fail(e, -EBADMSG,
			"truncated: %zu bytes, shorter than the file header (%u)",
			in->len, h->header_size);
	if (h->header_size < KETW_FILE_HEADER_SIZE_V1 ||
	    h->header_size % KETW_FILE_ALIGN || h->header_size > in->len)
		return ketw_input_fail(e, -EBADMSG,
			"corrupt: header size %u (file of %zu bytes)",
			h->header_size, in->len);
	n = h->header_size < sizeof(*h) ? h->header_size : sizeof(*h);
	if (n > KETW_FILE_HEADER_SIZE_V1) {
		memcpy(h, in->buf, n);
		if (in->swapped)
			ketw_swap_header(h);
	}
	if (h->record_header_size < KETW_EVENT_HEADER_SIZE ||
	    h->record_header_size % KETW_RECORD_ALIGN ||
	    h->record_header_size > KETW_RECORD_SPAN(0xffffu))
		return ketw_input_fail(e, -EBADMSG,
			"corrupt: record header size %u",
			h->record_header_size);
	if (!h->nr_cpus || h->nr_cpus > KETW_FILE_MAX_CPUS)
		return ketw_input_fail(e, -EBADMSG,
			"corrupt: %u cpus", h->nr_cpus);
	h->session.name[sizeof(h->session.name) - 1] = '\0';
	h->hostname[sizeof(h->hostname) - 1] = '\0';
	h->release[sizeof(h->release) - 1] = '\0';
	h->machine[sizeof(h->machine) - 1] = '\0';
	return 0;
}

/* Allocate what the sections need: at most one cursor per section. */
static int ketw_input_alloc(struct ketw_input *in, size_t max_sections)
{
	unsigned int n = in->hdr.nr_cpus;

	in->cursors = calloc(max_sections ? max_sections : 1,
			     sizeof(*in->cursors));
	in->heap = calloc(max_sections ? max_sections : 1, sizeof(*in->heap));
	in->cpu_records = calloc(n, sizeof(*in->cpu_records));
	in->cpu_gaps = calloc(n, sizeof(*in->cpu_gaps));
	in->cpu_last_seq = calloc(n, sizeof(*in->cpu_last_seq));
	in->stats = calloc(n, sizeof(*in->stats));
	in->have_stats = calloc(n, sizeof(*in->have_stats));
	if (!in->cursors || !in->heap || !in->cpu_records || !in->cpu_gaps ||
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
