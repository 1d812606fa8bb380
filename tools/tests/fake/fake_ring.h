/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A writer for one ketw per-CPU buffer (struct ketw_meta_page and its
 * data area) in ordinary memory, laid out as module/ring.c lays it out:
 * records never wrap (a padding record fills the end of the area), LOOP
 * moves oldest over whole records before overwriting them and counts them
 * overwritten, UNTIL_FULL and FLUSH count events lost_full when there is
 * no room beyond consumed (UNTIL_FULL keeps KETW_SYSTEM_RESERVE for system
 * events), and the first record stored after losses has an OVERFLOW and
 * a RESUME record in front of it. Single-threaded: no nested writers.
 *
 * Shared by the fake /dev/ketw (ketw_fake.c) and the mmap unit tests.
 */
#ifndef _KETW_FAKE_RING_H
#define _KETW_FAKE_RING_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <linux/ketw.h>

/* The writer's private state of one CPU (the kernel's struct rb_cpu). */
struct fake_wcpu {
	uint64_t seq;		/* the next sequence number */
	uint32_t lost;		/* events were lost since the last record */
	uint32_t reserved;
	uint64_t lost_ts;	/* first lost event: its time ... */
	uint64_t lost_seq;	/* ... and sequence number */
};

#define FAKE_SYS_SPAN	KETW_RECORD_SPAN(KETW_EVENT_HEADER_SIZE + 8)

static inline bool fake_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

/* Prepare a meta page for a data area of @size bytes (a power of two). */
static inline void fake_ring_init(struct ketw_meta_page *m, unsigned int cpu,
				  unsigned int policy, uint32_t size,
				  uint32_t watermark_pct)
{
	memset(m, 0, sizeof(*m));
	m->version = KETW_META_VERSION;
	m->meta_size = sizeof(*m);
	m->cpu = cpu;
	m->policy = policy;
	m->data_offset = KETW_MMAP_CPU(cpu) + 4096;
	m->data_size = size;
	m->watermark = (uint64_t)size * (watermark_pct ? watermark_pct : 50) / 100;
	if (m->watermark < KETW_RECORD_ALIGN)
		m->watermark = KETW_RECORD_ALIGN;
}

/* The reader's position: oldest in LOOP, consumed otherwise. */
static inline uint32_t fake_ring_tail(const struct ketw_meta_page *m)
{
	return m->policy == KETW_POLICY_LOOP ? m->oldest : m->consumed;
}

/* LOOP: release whole records until [end - size, end) is free. */
static inline void fake_ring_release(struct ketw_meta_page *m,
				     const unsigned char *data, uint32_t end)
{
	uint32_t limit = end - m->data_size, mask = m->data_size - 1;
	const struct ketw_event_header *h;

	while (fake_before(m->oldest, limit)) {
		h = (const void *)(data + (m->oldest & mask));
		if (!(h->flags & KETW_RECORD_PADDING))
			m->overwritten++;
		m->oldest += KETW_RECORD_SPAN((uint32_t)h->size);
	}
}

static inline unsigned char *fake_ring_put(unsigned char *p,
					   const struct ketw_event_header *h,
					   const void *payload, uint32_t len)
{
	uint32_t span = KETW_RECORD_SPAN(h->size);

	memset(p, 0, span);
	memcpy(p, h, sizeof(*h));
	if (len)
		memcpy(p + sizeof(*h), payload, len);
	return p + span;
}

static inline void fake_sys_header(struct ketw_event_header *h, uint32_t id,
				   unsigned int cpu, uint64_t seq, uint64_t ts,
				   uint32_t len)
{
	memset(h, 0, sizeof(*h));
	h->size = KETW_EVENT_HEADER_SIZE + len;
	h->flags = KETW_RECORD_SYSTEM;
	h->event_id = id;
	h->cpu = cpu;
	h->sequence = seq;
	h->timestamp = ts;
}

/*
 * Store a record like @tmpl (its size, sequence and cpu are filled in)
 * with @len payload bytes at time @ts; a zero @tmpl only reports losses
 * (OVERFLOW and RESUME, if any were lost). @system: a system event, which
 * UNTIL_FULL lets use the reserve. Returns true if stored.
 */
static inline bool fake_ring_write(struct ketw_meta_page *m,
				   unsigned char *data, struct fake_wcpu *w,
				   const struct ketw_event_header *tmpl,
				   const void *payload, uint32_t len,
				   bool system, uint64_t ts)
{
	uint32_t size = m->data_size, mask = size - 1, room = size;
	uint32_t span = tmpl ? KETW_RECORD_SPAN(KETW_EVENT_HEADER_SIZE + len) : 0;
	uint32_t pos = m->commit, start, end, need = span;
	struct ketw_event_header h;
	unsigned char *p;

	if (w->lost)
		need += 2 * FAKE_SYS_SPAN;
	else if (!tmpl)
		return false;
	if (m->policy == KETW_POLICY_UNTIL_FULL && !system)
		room -= KETW_SYSTEM_RESERVE;
	start = pos;
	if ((pos & mask) + need > size)
		start = pos + size - (pos & mask);
	end = start + need;
	if (m->policy != KETW_POLICY_LOOP && end - m->consumed > room) {
		if (!tmpl)
			return false;
		if (!w->lost) {
			w->lost_ts = ts;
			w->lost_seq = w->seq;
		}
		w->lost = 1;
		w->seq++;
		m->lost_full++;
		return false;
	}
	if (m->policy == KETW_POLICY_LOOP)
		fake_ring_release(m, data, end);
	if (start != pos) {
		struct ketw_event_header *pad = (void *)(data + (pos & mask));

		/* Only size and flags mean anything: poison the rest. */
		memset(pad, 0xa5, start - pos);
		pad->size = start - pos;
		pad->flags = KETW_RECORD_PADDING;
	}
	p = data + (start & mask);
	if (w->lost) {
		uint64_t lost = w->seq - w->lost_seq;

		fake_sys_header(&h, KETW_SYS_OVERFLOW, m->cpu, w->seq++, ts, 8);
		p = fake_ring_put(p, &h, &w->lost_ts, 8);
		fake_sys_header(&h, KETW_SYS_RESUME, m->cpu, w->seq++, ts, 8);
		p = fake_ring_put(p, &h, &lost, 8);
		m->written += 2;
		w->lost = 0;
	}
	if (tmpl) {
		h = *tmpl;
		h.size = KETW_EVENT_HEADER_SIZE + len;
		h.cpu = m->cpu;
		h.sequence = w->seq++;
		h.timestamp = ts;
		fake_ring_put(p, &h, payload, len);
		m->written++;
	}
	__atomic_store_n(&m->commit, end, __ATOMIC_RELEASE);
	return true;
}

#endif /* _KETW_FAKE_RING_H */
