// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: byte swapping of what the file format defines (ketw_file.h),
 * for the reader of a file of the other byte order and for the writer of
 * one (a collector writing a stream from such a machine): headers,
 * sections' own structures, record headers, extended data items (ext.c)
 * and the payloads of the system events this library knows. Provider
 * payloads are never swapped.
 */
#include <byteswap.h>
#include <string.h>

#include "internal.h"

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

void ketw_swap_file_header(struct ketw_file_header *h)
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

void ketw_swap_file_cpu_stats(struct ketw_file_cpu_stats *e)
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
void ketw_swap_records(unsigned char *p, size_t len, size_t hdr_size)
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

void ketw_swap_file_stream(struct ketw_file_stream *s)
{
	__u64 *v = &s->bytes;
	size_t i, n = (sizeof(*s) - offsetof(struct ketw_file_stream, bytes)) /
		      sizeof(*v);

	s->stream_id = bswap_64(s->stream_id);
	s->connections = bswap_32(s->connections);
	s->flags = bswap_32(s->flags);
	for (i = 0; i < n; i++)
		v[i] = bswap_64(v[i]);
}
