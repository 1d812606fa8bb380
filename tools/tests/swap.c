// SPDX-License-Identifier: GPL-2.0
/*
 * A .ketw file as a machine of the other byte order would have written
 * it: the tests' own byte swapper, written from the layout in ketw_file.h
 * and uapi/linux/ketw.h (not using the library), for the unit tests and
 * for gen_traces (the viewers' fixtures). Every field the format defines
 * is swapped, system event payloads included; provider payloads are not.
 */
#include <stddef.h>
#include <string.h>

#include "test.h"

/*
 * The test's own byte swapper, written from the layout in ketw_file.h
 * (not using the library): a field list per structure.
 */
struct fld {
	size_t off, size;
};

#define FLD(type, m) { offsetof(type, m), sizeof(((type *)0)->m) }

static const struct fld hdr_f[] = {
	FLD(struct ketw_file_header, magic),
	FLD(struct ketw_file_header, version_major),
	FLD(struct ketw_file_header, version_minor),
	FLD(struct ketw_file_header, header_size),
	FLD(struct ketw_file_header, record_header_size),
	FLD(struct ketw_file_header, nr_cpus),
	FLD(struct ketw_file_header, clock),
	FLD(struct ketw_file_header, creation_time),
	FLD(struct ketw_file_header, flags),
	FLD(struct ketw_file_header, reserved),
	FLD(struct ketw_file_header, session.buffer_kb),
	FLD(struct ketw_file_header, session.policy),
	FLD(struct ketw_file_header, session.max_data_size),
	FLD(struct ketw_file_header, session.clock),
	FLD(struct ketw_file_header, session.level),
	FLD(struct ketw_file_header, session.state),
	FLD(struct ketw_file_header, session.match_any),
	FLD(struct ketw_file_header, session.match_all),
	FLD(struct ketw_file_header, session.creation_time),
	FLD(struct ketw_file_header, session.clock_resolution),
	FLD(struct ketw_file_header, session.nr_cpus),
	FLD(struct ketw_file_header, clock_ref),
	FLD(struct ketw_file_header, realtime_ref),
};

static const struct fld sec_f[] = {
	FLD(struct ketw_file_section, type),
	FLD(struct ketw_file_section, flags),
	FLD(struct ketw_file_section, length),
};

static const struct fld cpurec_f[] = {
	FLD(struct ketw_file_cpu_records, cpu),
	FLD(struct ketw_file_cpu_records, reserved),
};

static const struct fld stats_f[] = {
	FLD(struct ketw_file_stats, nr_entries),
	FLD(struct ketw_file_stats, entry_size),
};

static const struct fld cpustats_f[] = {
	FLD(struct ketw_file_cpu_stats, cpu),
	FLD(struct ketw_file_cpu_stats, flags),
	FLD(struct ketw_file_cpu_stats, written),
	FLD(struct ketw_file_cpu_stats, lost_full),
	FLD(struct ketw_file_cpu_stats, overwritten),
	FLD(struct ketw_file_cpu_stats, lost_busy),
	FLD(struct ketw_file_cpu_stats, lost_nested),
	FLD(struct ketw_file_cpu_stats, truncated),
	FLD(struct ketw_file_cpu_stats, read),
	FLD(struct ketw_file_cpu_stats, sequence),
	FLD(struct ketw_file_cpu_stats, produced),
	FLD(struct ketw_file_cpu_stats, consumed),
};

static const struct fld pad_f[] = {
	FLD(struct ketw_event_header, size),
	FLD(struct ketw_event_header, version),
	FLD(struct ketw_event_header, flags),
};

static const struct fld rec_f[] = {
	FLD(struct ketw_event_header, size),
	FLD(struct ketw_event_header, version),
	FLD(struct ketw_event_header, flags),
	FLD(struct ketw_event_header, event_id),
	FLD(struct ketw_event_header, cpu),
	FLD(struct ketw_event_header, thread_id),
	FLD(struct ketw_event_header, process_id),
	FLD(struct ketw_event_header, sequence),
	FLD(struct ketw_event_header, timestamp),
	FLD(struct ketw_event_header, keyword),
};

static const struct fld sys_start_f[] = {
	FLD(struct ketw_sys_start, level),
	FLD(struct ketw_sys_start, reserved),
	FLD(struct ketw_sys_start, match_any),
	FLD(struct ketw_sys_start, match_all),
};

static const struct fld sys_stop_f[] = {
	FLD(struct ketw_sys_stop, auto_stop),
	FLD(struct ketw_sys_stop, reserved),
};

static const struct fld sys_overflow_f[] = {
	FLD(struct ketw_sys_overflow, first_lost_timestamp),
};

static const struct fld sys_resume_f[] = {
	FLD(struct ketw_sys_resume, lost),
};

static const struct fld sys_error_f[] = {
	FLD(struct ketw_sys_error, error),
	FLD(struct ketw_sys_error, reserved),
};

static const struct fld sys_provider_f[] = {
	FLD(struct ketw_sys_provider, nr_events),
	FLD(struct ketw_sys_provider, flags),
};

static const struct fld sys_task_f[] = {
	FLD(struct ketw_sys_task, process_id),
	FLD(struct ketw_sys_task, thread_id),
};

static const struct fld sys_trigger_f[] = {
	FLD(struct ketw_sys_trigger, trigger_id),
	FLD(struct ketw_sys_trigger, event_id),
	FLD(struct ketw_sys_trigger, sequence),
	FLD(struct ketw_sys_trigger, cpu),
	FLD(struct ketw_sys_trigger, fired),
	FLD(struct ketw_sys_trigger, suppressed),
	FLD(struct ketw_sys_trigger, action),
};

static const struct fld sys_module_f[] = {
	FLD(struct ketw_sys_module, base),
	FLD(struct ketw_sys_module, size),
};

static const struct fld event_info_f[] = {
	FLD(struct ketw_event_info, id),
	FLD(struct ketw_event_info, version),
	FLD(struct ketw_event_info, keyword),
	FLD(struct ketw_event_info, nr_fields),
	FLD(struct ketw_event_info, flags),
};

static const struct fld field_info_f[] = {
	FLD(struct ketw_field_info, type),
	FLD(struct ketw_field_info, offset),
	FLD(struct ketw_field_info, size),
	FLD(struct ketw_field_info, reserved),
};

static const struct fld filter_f[] = {
	FLD(struct ketw_filter, level),
	FLD(struct ketw_filter, enabled),
	FLD(struct ketw_filter, match_any),
	FLD(struct ketw_filter, match_all),
};

#define SWAP(base, f) swap_fields(base, f, sizeof(f) / sizeof(f[0]))

static void swap_fields(void *base, const struct fld *f, size_t n)
{
	unsigned char *p, t;
	size_t i, j;

	for (i = 0; i < n; i++) {
		p = (unsigned char *)base + f[i].off;
		for (j = 0; j < f[i].size / 2; j++) {
			t = p[j];
			p[j] = p[f[i].size - 1 - j];
			p[f[i].size - 1 - j] = t;
		}
	}
}

static void swap_u64s(void *base, size_t n)
{
	static const struct fld u64_f[] = { { 0, 8 } };
	size_t i;

	for (i = 0; i < n; i++)
		SWAP((unsigned char *)base + 8 * i, u64_f);
}

static void swap_u32s(void *base, size_t n)
{
	static const struct fld u32_f[] = { { 0, 4 } };
	size_t i;

	for (i = 0; i < n; i++)
		SWAP((unsigned char *)base + 4 * i, u32_f);
}

static void swap_u16s(void *base, size_t n)
{
	static const struct fld u16_f[] = { { 0, 2 } };
	size_t i;

	for (i = 0; i < n; i++)
		SWAP((unsigned char *)base + 2 * i, u16_f);
}

/* FILTER and the rundown's payloads. */
static void swap_sys_provider_payload(uint32_t id, unsigned char *p)
{
	unsigned int i;

	switch (id) {
	case KETW_SYS_FILTER:
		for (i = 0; i < 2; i++) {
			unsigned char *f = p + (i ?
				offsetof(struct ketw_sys_filter, new_filter) :
				offsetof(struct ketw_sys_filter, old_filter));

			SWAP(f, filter_f);
			swap_u64s(f + offsetof(struct ketw_filter, filtered),
				  KETW_EVENT_SET_BITS / 64);
		}
		break;
	case KETW_SYS_PROVIDER:
		SWAP(p, sys_provider_f);
		break;
	case KETW_SYS_EVENT_DESC:
		SWAP(p, event_info_f);
		for (i = 0; i < KETW_MAX_FIELDS; i++)
			SWAP(p + offsetof(struct ketw_event_info, fields) +
			     i * sizeof(struct ketw_field_info), field_info_f);
		break;
	case KETW_SYS_TASK:
		SWAP(p, sys_task_f);
		break;
	}
}

/* Swap a record's items area (native before) in place, field by field. */
static void swap_ext_area(unsigned char *p)
{
	struct ketw_ext_header eh;
	struct ketw_ext_item it;
	unsigned int i;
	size_t off = sizeof(eh);

	memcpy(&eh, p, sizeof(eh));
	for (i = 0; i < eh.count; i++) {
		unsigned char *d = p + off + sizeof(it);

		memcpy(&it, p + off, sizeof(it));
		if (it.type == KETW_EXT_PID_NS && it.size >= 16) {
			swap_u32s(d, 2);
			swap_u64s(d + 8, 1);
		} else if (it.type != KETW_EXT_ACTIVITY &&
			   it.type <= KETW_EXT_MAX_TYPE) {
			swap_u64s(d, it.size / 8);
		}
		swap_u16s(p + off, 2);
		swap_u32s(p + off + 4, 1);
		off += KETW_EXT_ITEM_SPAN((size_t)it.size);
	}
	swap_u16s(p, 2);
	swap_u32s(p + 4, 1);
}

/* Swap a run of native records in place, field by field. */
void test_swap_records(unsigned char *body, size_t end)
{
	size_t roff;

	for (roff = 0; roff < end;) {
		struct ketw_event_header *r = (void *)(body + roff);
		size_t span = KETW_RECORD_SPAN(r->size);
		uint16_t flags = r->flags;
		uint32_t id = r->event_id;

		if (flags & KETW_RECORD_PADDING) {
			SWAP(r, pad_f);
		} else {
			SWAP(r, rec_f);
			if (flags & KETW_RECORD_EXT)
				swap_ext_area((void *)(r + 1));
			if (!(flags & KETW_RECORD_SYSTEM))
				id = 0;
			if (id == KETW_SYS_START)
				SWAP(r + 1, sys_start_f);
			if (id == KETW_SYS_STOP)
				SWAP(r + 1, sys_stop_f);
			if (id == KETW_SYS_OVERFLOW)
				SWAP(r + 1, sys_overflow_f);
			if (id == KETW_SYS_RESUME)
				SWAP(r + 1, sys_resume_f);
			if (id == KETW_SYS_ERROR)
				SWAP(r + 1, sys_error_f);
			if (id == KETW_SYS_TRIGGER)
				SWAP(r + 1, sys_trigger_f);
			if (id == KETW_SYS_MODULE)
				SWAP(r + 1, sys_module_f);
			swap_sys_provider_payload(id, (unsigned char *)(r + 1));
		}
		roff += span;
	}
}

/* Swap a native file in place, field by field. */
void test_swap_file(unsigned char *buf, size_t len)
{
	struct ketw_file_header *h = (void *)buf;
	size_t off = h->header_size;

	SWAP(h, hdr_f);
	while (off + sizeof(struct ketw_file_section) <= len) {
		struct ketw_file_section *s = (void *)(buf + off);
		unsigned char *body = buf + off + sizeof(*s);
		uint32_t type = s->type;
		uint64_t length = s->length;

		SWAP(s, sec_f);
		if (type == KETW_SECTION_CPU_RECORDS) {
			SWAP(body, cpurec_f);
			test_swap_records(body + sizeof(struct ketw_file_cpu_records),
					  length - sizeof(struct ketw_file_cpu_records));
		} else if (type == KETW_SECTION_RUNDOWN) {
			test_swap_records(body, length);
		} else if (type == KETW_SECTION_CPU_STATS) {
			struct ketw_file_stats *st = (void *)body;
			uint32_t i, nr = st->nr_entries, esz = st->entry_size;

			SWAP(st, stats_f);
			for (i = 0; i < nr; i++)
				SWAP(body + sizeof(*st) + i * esz, cpustats_f);
		} else if (type == KETW_SECTION_STREAM) {
			/* stream_id, connections and flags, then u64 counters. */
			swap_u64s(body, 1);
			swap_u32s(body + 8, 2);
			swap_u64s(body + 16, (length - 16) / 8);
		}
		off += sizeof(*s) + ((length + 7) & ~7ull);
	}
}
