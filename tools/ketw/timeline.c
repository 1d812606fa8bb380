// SPDX-License-Identifier: GPL-2.0
/*
 * A trace file as a timeline (timeline.h): records in time order, START
 * and END pairs as spans, losses as ranges. The open STARTs wait on a
 * stack per provider, event id and thread, in a hash table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"

bool cli_tl_is_start(const struct ketw_record *rec)
{
	return !(rec->hdr->flags & KETW_RECORD_SYSTEM) &&
	       rec->hdr->type == KETW_TYPE_START;
}

bool cli_tl_is_end(const struct ketw_record *rec)
{
	return !(rec->hdr->flags & KETW_RECORD_SYSTEM) &&
	       rec->hdr->type == KETW_TYPE_END;
}

uint64_t cli_tl_nice_step(uint64_t min)
{
	uint64_t p = 1;

	for (;;) {
		if (p >= min)
			return p;
		if (2 * p >= min)
			return 2 * p;
		if (5 * p >= min)
			return 5 * p;
		if (p > UINT64_MAX / 100)
			return p * 10;
		p *= 10;
	}
}

/* The open STARTs of one provider, event id and thread. */
struct tl_stack {
	uint32_t pid, tid, id;
	bool user;
	uint8_t guid[KETW_GUID_SIZE];
	struct ketw_record *recs;
	unsigned int nr, cap;
	bool used;
};

struct tl_state {
	struct tl_stack *stacks;	/* open hash */
	unsigned int size, used;
	unsigned int nr_cpus;
	uint64_t *last_seq;		/* per CPU: last sequence + 1, 0: none */
	uint64_t *last_ts;
};

static uint32_t tl_hash(uint32_t pid, uint32_t tid, uint32_t id, bool user,
			const uint8_t *guid)
{
	uint32_t h = 2166136261u, w[4] = { pid, tid, id, user };
	unsigned int i;

	for (i = 0; i < 16; i++)
		h = (h ^ ((w[i / 4] >> (8 * (i % 4))) & 0xff)) * 16777619u;
	for (i = 0; i < KETW_GUID_SIZE; i++)
		h = (h ^ guid[i]) * 16777619u;
	return h;
}

static struct tl_stack *tl_slot(struct tl_stack *tab, unsigned int size,
				const struct ketw_event_header *h, bool user)
{
	unsigned int i = tl_hash(h->process_id, h->thread_id, h->event_id,
				 user, h->provider_guid) & (size - 1);

	for (;; i = (i + 1) & (size - 1)) {
		struct tl_stack *s = &tab[i];

		if (!s->used || (s->pid == h->process_id &&
				 s->tid == h->thread_id &&
				 s->id == h->event_id && s->user == user &&
				 !memcmp(s->guid, h->provider_guid,
					 KETW_GUID_SIZE)))
			return s;
	}
}

static int tl_grow(struct tl_state *st)
{
	unsigned int size = st->size ? 2 * st->size : 64, i;
	struct tl_stack *tab = calloc(size, sizeof(*tab)), *s, *d;

	if (!tab)
		return -ENOMEM;
	for (i = 0; i < st->size; i++) {
		struct ketw_event_header h;

		s = &st->stacks[i];
		if (!s->used)
			continue;
		h.process_id = s->pid;
		h.thread_id = s->tid;
		h.event_id = s->id;
		memcpy(h.provider_guid, s->guid, KETW_GUID_SIZE);
		d = tl_slot(tab, size, &h, s->user);
		*d = *s;
	}
	free(st->stacks);
	st->stacks = tab;
	st->size = size;
	return 0;
}

/* The stack of @rec's key; NULL: none yet and @create false, or no memory. */
static struct tl_stack *tl_stack(struct tl_state *st,
				 const struct ketw_record *rec, bool create)
{
	bool user = rec->hdr->flags & KETW_RECORD_USER;
	struct tl_stack *s;

	if (4 * (st->used + 1) > 3 * st->size) {
		if (!create && !st->size)
			return NULL;
		if (create && tl_grow(st))
			return NULL;
	}
	s = tl_slot(st->stacks, st->size, rec->hdr, user);
	if (s->used || !create)
		return s->used ? s : NULL;
	s->used = true;
	s->pid = rec->hdr->process_id;
	s->tid = rec->hdr->thread_id;
	s->id = rec->hdr->event_id;
	s->user = user;
	memcpy(s->guid, rec->hdr->provider_guid, KETW_GUID_SIZE);
	st->used++;
	return s;
}

static int tl_push(struct tl_stack *s, const struct ketw_record *rec)
{
	if (s->nr == s->cap) {
		unsigned int cap = s->cap ? 2 * s->cap : 4;
		void *p = realloc(s->recs, cap * sizeof(*s->recs));

		if (!p)
			return -ENOMEM;
		s->recs = p;
		s->cap = cap;
	}
	s->recs[s->nr++] = *rec;
	return 0;
}

/* A loss before @rec (the first record of its CPU after a gap)? */
static int tl_loss(struct tl_state *st, const struct ketw_record *rec,
		   cli_tl_fn fn, void *ctx)
{
	unsigned int cpu = rec->cpu;
	uint64_t seq = rec->hdr->sequence, ts = rec->hdr->timestamp;
	struct cli_tl_item it = { .kind = CLI_TL_LOSS, .cpu = cpu };
	struct ketw_sys_overflow o;
	bool had = cpu < st->nr_cpus && st->last_seq[cpu];
	int ret = 0;

	if (cpu >= st->nr_cpus)
		return 0;
	if (had && seq > st->last_seq[cpu]) {
		it.lost = seq - st->last_seq[cpu];
		it.from = st->last_ts[cpu];
		it.to = ts;
		if ((rec->hdr->flags & KETW_RECORD_SYSTEM) &&
		    rec->hdr->event_id == KETW_SYS_OVERFLOW &&
		    rec->data_len >= sizeof(o)) {
			memcpy(&o, rec->data, sizeof(o));
			if (o.first_lost_timestamp >= it.from &&
			    o.first_lost_timestamp <= ts)
				it.from = o.first_lost_timestamp;
		}
		ret = fn(&it, ctx);
	}
	if (!had || seq >= st->last_seq[cpu])
		st->last_seq[cpu] = seq + 1;
	st->last_ts[cpu] = ts;
	return ret;
}

static int tl_rec_cmp(const void *a, const void *b)
{
	const struct ketw_record *x = a, *y = b;

	if (x->hdr->timestamp != y->hdr->timestamp)
		return x->hdr->timestamp < y->hdr->timestamp ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->hdr->sequence < y->hdr->sequence ? -1 :
	       x->hdr->sequence > y->hdr->sequence;
}

/* The STARTs no END closed, in time order. */
static int tl_unclosed(struct tl_state *st, cli_tl_fn fn, void *ctx)
{
	struct cli_tl_item it = { .kind = CLI_TL_EVENT, .unmatched = true };
	struct ketw_record *all;
	size_t n = 0, i;
	unsigned int k;
	int ret = 0;

	for (k = 0; k < st->size; k++)
		n += st->stacks[k].nr;
	if (!n)
		return 0;
	all = malloc(n * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (n = 0, k = 0; k < st->size; k++)
		for (i = 0; i < st->stacks[k].nr; i++)
			all[n++] = st->stacks[k].recs[i];
	qsort(all, n, sizeof(*all), tl_rec_cmp);
	for (i = 0; i < n && !ret; i++) {
		it.rec = &all[i];
		it.cpu = all[i].cpu;
		ret = fn(&it, ctx);
	}
	free(all);
	return ret;
}

int cli_timeline_walk(struct ketw_input *in, cli_tl_fn fn, void *ctx)
{
	struct tl_state st = { .nr_cpus = ketw_input_nr_cpus(in) };
	struct ketw_record rec, start;
	struct tl_stack *s;
	unsigned int k;
	int ret = 0;

	st.last_seq = calloc(st.nr_cpus, sizeof(*st.last_seq));
	st.last_ts = calloc(st.nr_cpus, sizeof(*st.last_ts));
	if (!st.last_seq || !st.last_ts) {
		ret = -ENOMEM;
		goto out;
	}
	ketw_input_rewind(in);
	while (!ret && ketw_input_next(in, &rec) > 0) {
		struct cli_tl_item it = {
			.kind = CLI_TL_EVENT, .rec = &rec, .cpu = rec.cpu,
			.from = rec.hdr->timestamp, .to = rec.hdr->timestamp,
		};

		ret = tl_loss(&st, &rec, fn, ctx);
		if (ret)
			break;
		if (cli_tl_is_start(&rec)) {
			s = tl_stack(&st, &rec, true);
			ret = s ? tl_push(s, &rec) : -ENOMEM;
			continue;
		}
		if (cli_tl_is_end(&rec)) {
			s = tl_stack(&st, &rec, false);
			if (s && s->nr) {
				start = s->recs[--s->nr];
				it.kind = CLI_TL_SPAN;
				it.rec = &start;
				it.end = &rec;
				it.cpu = start.cpu;
				it.from = start.hdr->timestamp;
			} else {
				it.unmatched = true;
			}
		}
		ret = fn(&it, ctx);
	}
	if (!ret)
		ret = tl_unclosed(&st, fn, ctx);
out:
	for (k = 0; k < st.size; k++)
		free(st.stacks[k].recs);
	free(st.stacks);
	free(st.last_seq);
	free(st.last_ts);
	ketw_input_rewind(in);
	return ret;
}
