// SPDX-License-Identifier: GPL-2.0
/*
 * ketw buffer core: lockless per-CPU circular buffers.
 *
 * Terms (Documentation/ketw-ring-buffer.rst draws them):
 *   position  - a byte count since the buffer was created, kept in 32 bits
 *               and compared modulo 2^32; offset = position & mask.
 *   reserve   - the producer position, a "lost" flag and the per-CPU
 *               sequence number, packed in one word that writers advance
 *               with cmpxchg.
 *   commit    - every record below it is complete; the reader stops there.
 *   consumed  - UNTIL_FULL, FLUSH: the reader's position (in the meta
 *               page) and the writers' tail: they never overwrite unread
 *               bytes.
 *   oldest    - LOOP: the first record writers have not released (kernel
 *               memory, rb_cpu.oldest); writers move it forward over
 *               records before writing over them.
 *   claim     - LOOP: the reader's position, the meta page's oldest. The
 *               reader moves it over a record it has copied; writers move
 *               it over the records they release. Both with cmpxchg:
 *               whoever moves it over a record owns that record, so each
 *               is counted once, as read or as overwritten.
 *
 * The meta page is mapped writable: the kernel never reads back a value
 * from it but consumed and the claim, and validates both (see
 * rb_reader_pos() and Documentation/ketw-lifetimes.rst).
 *
 * Writers on one CPU nest like a stack (task < softirq < hardirq < NMI): a
 * writer that interrupts another finishes before the interrupted one goes
 * on. Only the outermost writer moves commit, and only to a reserve value
 * it has seen with no writer in between, so commit never covers a record
 * that is still being written.
 */
#include <linux/bits.h>
#include <linux/cache.h>
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/prefetch.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <asm/local.h>
#include <asm/unaligned.h>
#include <ketw.h>

#include "clock.h"
#include "ring.h"

/*
 * The reserve word: sequence number (high half), producer position (low
 * half, 8-aligned) and in bit 0 the "lost" flag: events were lost since
 * the last record stored; with it, in bits 1-2, the nesting depth of the
 * writer that set it, whose note (lost_ts[], lost_seq[]) the OVERFLOW and
 * RESUME records take. Claiming space, a number and the flag in one
 * cmpxchg means that whatever interrupts a writer gets all three strictly
 * after, or strictly before, it.
 */
#define RB_SEQ_SHIFT	32
#define RB_LOST		1UL
#define RB_DEPTH_SHIFT	1
#define RB_DEPTH_MASK	(3UL << RB_DEPTH_SHIFT)
#define RB_DEPTH(w)	(((w) & RB_DEPTH_MASK) >> RB_DEPTH_SHIFT)
#define RB_NR_DEPTHS	4	/* task, softirq, hardirq, NMI */
#define RB_POS(w)	((u32)(w) & ~(u32)(RB_LOST | RB_DEPTH_MASK))

#define RB_SYS_SPAN(payload) \
	KETW_RECORD_SPAN(KETW_EVENT_HEADER_SIZE + sizeof(payload))
#define RB_OVF_SPAN	RB_SYS_SPAN(struct ketw_sys_overflow)
#define RB_RES_SPAN	RB_SYS_SPAN(struct ketw_sys_resume)

static_assert(sizeof(long) == 8, "ketw packs two 32-bit counters in a local_t");
static_assert(sizeof(struct ketw_event_header) == KETW_EVENT_HEADER_SIZE);
static_assert(RB_OVF_SPAN + RB_RES_SPAN + 2 * KETW_EVENT_HEADER_SIZE <=
	      KETW_SYSTEM_RESERVE);

/* The kernel's view of struct ketw_meta_page: counters as local_t. */
struct rb_meta {
	u32 version;
	u32 meta_size;
	u32 cpu;
	u32 policy;
	u64 data_offset;
	u32 data_size;
	u32 watermark;
	u32 commit;
	u32 oldest;
	u32 reserved0[2];
	local_t written;
	local_t lost_full;
	local_t lost_busy;
	local_t lost_nested;
	local_t overwritten;
	local_t truncated;
	u64 resyncs;
	u64 reserved1[3];
	u32 consumed;
	u32 reserved2;
	u64 read;
};

static_assert(offsetof(struct rb_meta, commit) ==
	      offsetof(struct ketw_meta_page, commit));
static_assert(offsetof(struct rb_meta, oldest) ==
	      offsetof(struct ketw_meta_page, oldest));
static_assert(offsetof(struct rb_meta, written) ==
	      offsetof(struct ketw_meta_page, written));
static_assert(offsetof(struct rb_meta, truncated) ==
	      offsetof(struct ketw_meta_page, truncated));
static_assert(offsetof(struct rb_meta, resyncs) ==
	      offsetof(struct ketw_meta_page, resyncs));
static_assert(offsetof(struct rb_meta, consumed) ==
	      offsetof(struct ketw_meta_page, consumed));
static_assert(offsetof(struct rb_meta, read) ==
	      offsetof(struct ketw_meta_page, read));
static_assert(sizeof(struct rb_meta) == sizeof(struct ketw_meta_page));
static_assert(sizeof(local_t) == sizeof(__u64));

struct rb_cpu {
	local_t reserve;
	local_t committing;	/* writers between reserve and commit */
	u32 commit;		/* the commit position; meta->commit a copy */
	u32 mask;
	/*
	 * LOOP: the first record writers have not released (low half) and
	 * the records before it (high half, modulo 2^32), in one word that
	 * writers move with cmpxchg_local(); rb_oldest() is the position.
	 */
	u64 oldest;
	/*
	 * LOOP: the scan, a record boundary at or after oldest that writers
	 * walk forward a record or two at a time, and the records before it,
	 * packed as oldest is; see rb_loop_scan().
	 */
	u64 scan;
	u64 seq_hint;		/* a recent full sequence number */
	u64 last_ts;		/* the latest timestamp handed out */
	/* Per nesting depth: the first event lost since the last record ... */
	u64 lost_ts[RB_NR_DEPTHS];
	u64 lost_seq[RB_NR_DEPTHS];	/* ... and its sequence number */
	void *data;
	struct rb_meta *meta;
	struct ketw_ring *ring;
	struct irq_work wake_work;
	atomic_t data_maps;	/* mappings of the data area: one consumer */
	struct page *meta_page;
	struct page **pages;
	unsigned int nr_pages;
};

struct ketw_ring {
	struct ketw_ring_config cfg;
	struct rb_cpu __percpu *cpus;
	wait_queue_head_t wait;
	unsigned int waiters;	/* KETW_WAIT_* of sleeping readers */
	atomic_t readers;	/* read() calls under way */
	atomic_t full;		/* RB_FULL_*: on_full is called once */
};

/* ring->full: UNTIL_FULL calls on_full once per start. */
#define RB_FULL_ARMED	0
#define RB_FULL_HIT	1	/* irq_work queued to call on_full */
#define RB_FULL_CALLED	2

/* A reservation in progress: where the record goes, its cpu, number and time. */
struct ketw_ring_resv {
	void *rec;
	u32 cpu;
	u64 sequence;
	u64 timestamp;
};

static __always_inline bool rb_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

/* A position and the number of records before it, in one word. */
static __always_inline u64 rb_mark(u32 pos, u32 records)
{
	return (u64)records << 32 | pos;
}

/* The position of the writers' oldest record (LOOP). */
static __always_inline u32 rb_oldest(struct rb_cpu *cb)
{
	return (u32)READ_ONCE(cb->oldest);
}

static __always_inline u64 rb_clock(u32 clock)
{
	switch (clock) {
	case KETW_CLOCK_BOOT:
		return ktime_get_boot_fast_ns();
	case KETW_CLOCK_LOCAL:
		return local_clock();
	default:
		return ketw_clock_mono();
	}
}

/*
 * Note @ts as handed out, unless a later one is: last_ts only grows. A
 * writer stores its time after its cmpxchg, and one nested in between
 * may have stored a later time already (found by tools/native's nest).
 * Only writers of this CPU race here.
 */
static __always_inline void rb_note_ts(struct rb_cpu *cb, u64 ts)
{
	u64 last = READ_ONCE(cb->last_ts), prev;

	while (last < ts) {
		prev = cmpxchg_local(&cb->last_ts, last, ts);
		if (prev == last)
			break;
		last = prev;
	}
}

/* A timestamp no earlier than any handed out on this CPU. */
static __always_inline u64 rb_now(struct ketw_ring *ring, struct rb_cpu *cb)
{
	u64 ts = rb_clock(ring->cfg.clock);
	u64 last = READ_ONCE(cb->last_ts);

	return ts < last ? last : ts;
}

/*
 * Widen a 32-bit sequence number with a full one seen recently on this
 * CPU. The hint is at most a few nested writers stale, far less than 2^31.
 */
static __always_inline u64 rb_widen_seq(u64 hint, u32 seq32)
{
	return hint + (s64)(s32)(seq32 - (u32)hint);
}

static __always_inline unsigned long rb_word(u32 seq32, u32 pos)
{
	return ((unsigned long)seq32 << RB_SEQ_SHIFT) | pos;
}

/*
 * The reader's word in the meta page: the claim in LOOP, consumed
 * otherwise. User space may write it: see rb_reader_pos().
 */
static __always_inline u32 *rb_reader_word(struct ketw_ring *ring,
					   struct rb_cpu *cb)
{
	return ring->cfg.policy == KETW_POLICY_LOOP ? &cb->meta->oldest :
						      &cb->meta->consumed;
}

/*
 * The reader's position, validated, and the commit position, loaded in
 * that order: a reader never passes a commit it has seen, so the later
 * commit is never behind a true position. *@raw gets the word as loaded;
 * if it cannot be right (not 8-aligned, ahead of commit, more than a
 * buffer behind it, or in LOOP behind the writers' oldest), the position
 * returned is one the kernel knows to be a record boundary with nothing
 * unread lost before it: the writers' oldest in LOOP, the commit
 * position otherwise.
 */
static u32 rb_reader_pos(struct ketw_ring *ring, struct rb_cpu *cb,
			 u32 *commit, u32 *raw)
{
	bool loop = ring->cfg.policy == KETW_POLICY_LOOP;
	u32 t = 0, c, p;

	/*
	 * Acquire: each load before the next. The claim never falls behind
	 * the writers' oldest (they move the claim first), nor gets ahead
	 * of commit.
	 */
	if (loop)	/* Acquire: before the claim (writers move it first). */
		t = (u32)smp_load_acquire(&cb->oldest);
	/* Acquire: before commit, which a reader never passes. */
	c = smp_load_acquire(rb_reader_word(ring, cb));
	/* Pairs with smp_wmb() before the commit store in rb_end(). */
	p = smp_load_acquire(&cb->commit);
	*commit = p;
	*raw = c;
	if ((c & (KETW_RECORD_ALIGN - 1)) || rb_before(p, c) ||
	    (loop ? rb_before(c, t) : p - c > cb->mask + 1))
		return loop ? t : p;
	return c;
}

/*
 * A reader found its word bad (@raw) and goes on from @pos: put @pos in
 * the word (in LOOP unless it changed meanwhile: then the next claim
 * fails and the reader looks again), and count the resynchronisation.
 */
static noinline void rb_resync(struct ketw_ring *ring, struct rb_cpu *cb,
			       int cpu, u32 raw, u32 pos)
{
	if (ring->cfg.policy == KETW_POLICY_LOOP)
		cmpxchg(&cb->meta->oldest, raw, pos);
	else	/* Pairs with smp_load_acquire() of consumed in rb_no_room(). */
		smp_store_release(&cb->meta->consumed, pos);
	WRITE_ONCE(cb->meta->resyncs, READ_ONCE(cb->meta->resyncs) + 1);
	pr_warn_ratelimited("ketw: cpu%d: reader position %u in the meta page is not valid, going on from %u\n",
			    cpu, raw, pos);
}

/* Wake readers if some wait, for any record or for the watermark. */
static __always_inline void rb_wakeup(struct ketw_ring *ring,
				      struct rb_cpu *cb, u32 commit)
{
	unsigned int w = READ_ONCE(ring->waiters);

	/* The raw reader word: a bad one costs this ring a wakeup. */
	if (unlikely(w) &&
	    ((w & KETW_WAIT_ANY) ||
	     commit - READ_ONCE(*rb_reader_word(ring, cb)) >=
	     ring->cfg.watermark))
		irq_work_queue(&cb->wake_work);
}

/* Publish what is complete; called by every writer that incremented committing. */
static __always_inline void rb_end(struct ketw_ring *ring, struct rb_cpu *cb)
{
	unsigned long r;

	if (local_read(&cb->committing) != 1) {
		/* We interrupted a writer: it publishes our record too. */
		local_dec(&cb->committing);
		return;
	}
	for (;;) {
		r = local_read(&cb->reserve);
		/*
		 * Every record below r is complete: writers that reserved
		 * before we read r ran inside us and have finished. Order
		 * their bytes before the position that lets the reader at
		 * them; pairs with smp_load_acquire() of commit in
		 * rb_reader_pos() and ketw_ring_commits().
		 */
		smp_wmb();
		WRITE_ONCE(cb->commit, RB_POS(r));
		WRITE_ONCE(cb->meta->commit, RB_POS(r));
		barrier();
		local_dec(&cb->committing);
		barrier();
		/*
		 * A writer that came in after we read r but before the
		 * decrement saw committing > 1 and left its record to us.
		 */
		if (likely(local_read(&cb->reserve) == r))
			break;
		local_inc(&cb->committing);
	}
	rb_wakeup(ring, cb, RB_POS(r));
}

/*
 * Header words 0-2 as struct ketw_event_header lays them out (size, type,
 * level, version, flags; event id, cpu; thread and process ids), built in
 * registers and stored a word at a time.
 */
static_assert(offsetof(struct ketw_event_descriptor, id) == 0 &&
	      offsetof(struct ketw_event_descriptor, type) == 4 &&
	      offsetof(struct ketw_event_descriptor, level) == 5 &&
	      offsetof(struct ketw_event_descriptor, version) == 6 &&
	      offsetof(struct ketw_event_header, type) == 2 &&
	      offsetof(struct ketw_event_header, version) == 4 &&
	      offsetof(struct ketw_event_header, flags) == 6 &&
	      offsetof(struct ketw_event_header, cpu) == 12 &&
	      offsetof(struct ketw_event_header, process_id) == 20 &&
	      offsetof(struct ketw_event_header, sequence) == 24 &&
	      offsetof(struct ketw_event_header, provider_guid) == 48);

/* Two 32-bit fields, @first at the lower address. */
static __always_inline u64 rb_pair(u32 first, u32 second)
{
#ifdef __LITTLE_ENDIAN
	return first | (u64)second << 32;
#else
	return (u64)first << 32 | second;
#endif
}

/* Word 0's size and flags, which are each record's. */
static __always_inline u64 rb_word0_record(u32 size, u16 flags)
{
#ifdef __LITTLE_ENDIAN
	return size | (u64)flags << 48;
#else
	return (u64)size << 48 | flags;
#endif
}

/* The words of an event's header that every ring's record shares. */
static __always_inline struct ketw_ring_words
rb_words(const u8 *guid, const struct ketw_event_descriptor *d)
{
	struct ketw_ring_words w __uninitialized;

#ifdef __LITTLE_ENDIAN
	/*
	 * The descriptor's first word holds id, type, level and version as
	 * the header's words 0 and 1 want them: one load for both.
	 */
	u64 dw = *(const u64 *)d;

	w.word0 = (dw >> 16) & GENMASK_ULL(47, 16);
	w.word1 = (u32)dw | (u64)smp_processor_id() << 32;
#else
	w.word0 = (u64)d->type << 40 | (u64)d->level << 32 |
		  (u64)d->version << 16;
	w.word1 = rb_pair(d->id, smp_processor_id());
#endif
	w.word2 = in_task() ? rb_pair(task_pid_nr(current),
				      task_tgid_nr(current)) : 0;
	w.keyword = d->keyword;
	w.id0 = get_unaligned((const u64 *)guid);
	w.id1 = get_unaligned((const u64 *)(guid + 8));
	return w;
}

/*
 * Fill in a record and publish it; the reservation is the caller's. The
 * header goes a word at a time: the words every session's record of the
 * event shares (@ev's, or built here from @guid and @desc), then this
 * record's.
 */
static __always_inline void rb_fill_commit(struct ketw_ring *ring,
					   struct rb_cpu *cb, void *rec,
					   u64 seq, u64 ts,
					   const struct ketw_ring_event *ev,
					   const u8 *guid,
					   const struct ketw_event_descriptor *desc,
					   const void *ext, u32 ext_len,
					   const void *data, u32 len, u32 flags)
{
	u32 size = KETW_EVENT_HEADER_SIZE + ext_len + len;
	struct ketw_ring_words hw;
	u64 *w = rec;

	/*
	 * One ring: the words built here, after the reservation, from the
	 * descriptor straight into the record (built before it, they
	 * would be kept on the stack across it). Several: @ev's copy.
	 */
	hw = ev ? ev->w : rb_words(guid, desc);

	/*
	 * Zero the alignment tail (the reader copies whole spans) with one
	 * store of the span's last word, before the header and payload that
	 * may cover part of it.
	 */
	*(u64 *)((u8 *)rec + KETW_RECORD_SPAN(size) - sizeof(u64)) = 0;
	w[0] = hw.word0 | rb_word0_record(size, (u16)flags);
	w[1] = hw.word1;
	w[2] = hw.word2;
	w[3] = seq;
	w[4] = ts;
	w[5] = hw.keyword;
	w[6] = hw.id0;
	w[7] = hw.id1;
	if (unlikely(ext_len))
		ketw_ring_copy(w + 8, ext, ext_len);
	ketw_ring_copy((u8 *)(w + 8) + ext_len, data, len);

	local_inc(&cb->meta->written);
	if (unlikely(flags & KETW_RECORD_TRUNCATED))
		local_inc(&cb->meta->truncated);
	rb_end(ring, cb);
}

/*
 * How far ahead of its need a LOOP writer releases records, so that the
 * next writers find room without a cmpxchg on the shared claim word
 * (ftrace overwrites a page at a time for the same reason).
 */
#define RB_RELEASE_AHEAD	PAGE_SIZE

/*
 * How often a writer's cmpxchg on the claim word may fail without the
 * reader having moved it forward, before the writer gives up on it.
 */
#define RB_CLAIM_TRIES		4

/* Is @w a claim a reader could have made, with writers at @t? */
static __always_inline bool rb_claim_ok(struct rb_cpu *cb, u32 w, u32 t)
{
	/*
	 * Commit after the claim: a nested writer may have committed more
	 * since our caller looked, and the reader claimed it; taking that
	 * claim for a bad one would move it back.
	 */
	smp_rmb();
	return !(w & (KETW_RECORD_ALIGN - 1)) && !rb_before(w, t) &&
	       !rb_before(READ_ONCE(cb->commit), w);
}

/* Records (not padding) from @from to @to, as the caller walked them. */
static u32 rb_loop_count(struct rb_cpu *cb, u32 from, u32 to)
{
	struct ketw_event_header *h;
	u32 pos, span, n = 0;

	for (pos = from; rb_before(pos, to); pos += span) {
		h = cb->data + (pos & cb->mask);
		span = KETW_RECORD_SPAN(READ_ONCE(h->size));
		if (unlikely(span < KETW_RECORD_ALIGN))
			break;	/* a nested writer's: our caller retries */
		n += !(READ_ONCE(h->flags) & KETW_RECORD_PADDING);
	}
	return n;
}

/*
 * Release the records in [@t, @to) (whole, committed, walked by the
 * caller, @n of them not padding) to writers: the claim word moves past
 * them unless the reader claimed them all, and those the reader had not
 * claimed count as overwritten. While the reader moves the claim forward,
 * we follow it (that ends at @to at the latest). A claim word that cannot
 * be right (user space may write it: misaligned, behind @t, ahead of
 * commit) is replaced; one that keeps changing otherwise, a scribbler's,
 * is given up on after RB_CLAIM_TRIES: its reader may then copy records
 * while we write over them, and only its own data suffers.
 */
static void rb_loop_claim(struct rb_cpu *cb, u32 t, u32 to, u32 n)
{
	unsigned int tries = 0;
	u32 w, prev, from, lost;

	/*
	 * Acquire: a reader that moved the claim copied the records before
	 * its cmpxchg; our writes over them come after this.
	 */
	w = smp_load_acquire(&cb->meta->oldest);
	for (;;) {
		from = rb_claim_ok(cb, w, t) ? w : t;
		if (!rb_before(from, to))
			return;		/* the reader took them all */
		/* Only a reader inside the range costs a walk. */
		lost = from == t ? n : rb_loop_count(cb, from, to);
		/*
		 * A full cmpxchg: the reader on another CPU races for the
		 * same records. Success orders our writes over them after it.
		 */
		prev = cmpxchg(&cb->meta->oldest, w, to);
		if (prev == w)
			break;
		/* The reader claimed more: follow it. Anything else, count. */
		if (!(from == w && rb_before(w, prev) &&
		      rb_claim_ok(cb, prev, t)) &&
		    ++tries >= RB_CLAIM_TRIES)
			break;
		w = prev;
	}
	local_add(lost, &cb->meta->overwritten);
}

/*
 * Walk the records from the boundary in @*mark (rb_mark(): a position and
 * the records before it) while before @stop and @commit, at most @max of
 * them, moving @*mark over them; true if each header read was of a
 * record still in place (none released meanwhile). Every
 * record from the writers' oldest to commit was written by a writer of
 * this CPU into a data area user space cannot write, so its header is
 * valid to read, unless a nested writer releases and overwrites it while
 * we walk: it moves oldest first, which we check after the reads (same
 * CPU: that writer has finished, and a compiler barrier is all the
 * ordering it takes).
 */
static __always_inline bool rb_loop_walk(struct rb_cpu *cb, u64 *mark,
					 u32 stop, u32 commit, u32 max)
{
	struct ketw_event_header *h;
	u32 lim = rb_before(stop, commit) ? stop : commit;
	u64 m = *mark;
	u32 span, i;

	/* One word for both: the position's carry out is masked off. */
	for (i = 0; i < max && rb_before((u32)m, lim); i++) {
		h = cb->data + ((u32)m & cb->mask);
		span = KETW_RECORD_SPAN(READ_ONCE(h->size));
		/* Only a nested writer's overwrite gives a bad size. */
		if (unlikely(span < KETW_RECORD_ALIGN))
			return false;
		m = rb_mark((u32)m + span, (m >> 32) +
			    !(READ_ONCE(h->flags) & KETW_RECORD_PADDING));
	}
	barrier();
	if (unlikely(rb_before((u32)*mark, rb_oldest(cb))))
		return false;
	*mark = m;
	return true;
}

/*
 * LOOP: the scan, walked a little by every write so that releasing is
 * not a walk of its own. A writer releases records a page at a time
 * (RB_RELEASE_AHEAD), and walking a page of headers, each one's address
 * the sum of the sizes before it, is a chain of dependent loads that
 * nothing else overlaps; a record or two walked by each write overlaps
 * with that write's own work instead, as the lock-based ring's one step
 * per write does. The scan word holds a boundary and the records before
 * it, so that any copy of it a writer stored, however stale, is true:
 * one behind oldest is of no use and is started again from oldest; one
 * at or after oldest, and within a lap of it, gives the records between
 * by a subtraction. Writers store it without an atomic: one that nested
 * in between loses the other's steps, nothing else.
 */
#define RB_SCAN_STEPS	2

static __always_inline u64 rb_loop_scan_from(struct rb_cpu *cb, u64 o)
{
	u64 s = READ_ONCE(cb->scan);
	u32 size = cb->mask + 1;

	if (rb_before((u32)s, (u32)o) || (u32)s - (u32)o > size)
		return o;
	return s;
}

static __always_inline void rb_loop_scan(struct rb_cpu *cb, u32 end)
{
	u64 s = rb_loop_scan_from(cb, READ_ONCE(cb->oldest));

	if (rb_loop_walk(cb, &s, end - cb->mask - 1 + RB_RELEASE_AHEAD,
			 READ_ONCE(cb->commit), RB_SCAN_STEPS))
		WRITE_ONCE(cb->scan, s);
}

/*
 * Writes without the scan (KETW_RING_EVENT_MANY) walk a page of headers
 * when they release: ask for its lines a page ahead, so that the walk
 * finds them in the cache, not one miss after another.
 */
static void rb_loop_prefetch(struct rb_cpu *cb, u32 from)
{
	u32 off;

	for (off = 0; off < RB_RELEASE_AHEAD; off += L1_CACHE_BYTES)
		prefetch(cb->data + ((from + off) & cb->mask));
}

/*
 * LOOP: move the writers' oldest over whole records until [end - size,
 * end) is free, and up to RB_RELEASE_AHEAD further while the records are
 * committed: from the scan if it is ahead, walking the rest. If a writer
 * nested in and released meanwhile, oldest moved: start again. @scan:
 * the writes scan; if not, bring the next page's headers in.
 */
static noinline void rb_loop_release_slow(struct rb_cpu *cb, u32 end,
					  bool scan)
{
	u32 size = cb->mask + 1, limit = end - size;
	u32 t, to, n, ahead, commit;
	u64 o, s;

	for (;;) {
		o = READ_ONCE(cb->oldest);
		t = (u32)o;
		if (!rb_before(t, limit))
			break;
		/*
		 * Never past commit: records beyond may be being written.
		 * commit is at least limit (the caller checked that end -
		 * commit <= size), and oldest at most a lap behind it, so
		 * walking to ahead, within a lap of t, covers limit.
		 */
		ahead = limit + RB_RELEASE_AHEAD;
		commit = READ_ONCE(cb->commit);
		if (rb_before(commit, ahead))
			ahead = commit;
		s = rb_loop_scan_from(cb, o);
		if (rb_before(commit, (u32)s))
			s = o;
		if (rb_before((u32)s, limit) &&
		    !rb_loop_walk(cb, &s, ahead, commit, size))
			continue;
		barrier();
		if (READ_ONCE(cb->oldest) != o)
			continue;
		to = (u32)s;
		/* The records in [t, to). */
		n = (u32)(s >> 32) - (u32)(o >> 32);
		rb_loop_claim(cb, t, to, n);
		/*
		 * Only writers of this CPU move oldest. If one nested in
		 * since we read it, it claimed from the same t (records we
		 * counted it found claimed, or the reverse), so start again.
		 */
		if (cmpxchg_local(&cb->oldest, o, rb_mark(to, (o >> 32) + n)) ==
		    o) {
			/*
			 * The new oldest before our bytes over the records:
			 * a snapshot that read them reads it too (pairs with
			 * smp_rmb() in rb_snapshot()). The claim's cmpxchg
			 * orders nothing when the reader had taken them all.
			 */
			smp_wmb();
			if (!scan)
				rb_loop_prefetch(cb, to);
			break;
		}
	}
}

/*
 * Most writes find room already released: a load and a compare, and a
 * step of the scan, unless @scan is false (an event for many rings:
 * KETW_RING_EVENT_MANY).
 */
static __always_inline void rb_loop_release(struct rb_cpu *cb, u32 end,
					    bool scan)
{
	if (unlikely(rb_before(rb_oldest(cb), end - (cb->mask + 1))))
		rb_loop_release_slow(cb, end, scan);
	if (scan)
		rb_loop_scan(cb, end);
}

/* @ctx: the KETW_RECORD_* context bits of the writer that logs it. */
static void rb_fill_system(void *rec, u32 size, u32 id, u32 cpu,
			   u64 seq, u64 ts, u16 ctx)
{
	struct ketw_event_header *h = rec;

	memset(h, 0, KETW_RECORD_SPAN(size));
	h->size = size;
	h->flags = KETW_RECORD_SYSTEM | ctx;
	h->event_id = id;
	h->cpu = cpu;
	if (in_task()) {
		h->thread_id = task_pid_nr(current);
		h->process_id = task_tgid_nr(current);
	}
	h->sequence = seq;
	h->timestamp = ts;
}

/*
 * The OVERFLOW and RESUME records that go in front of the first record
 * stored after a loss, numbered @seq and @seq + 1, with that record's
 * context bits @ctx; returns where that record goes.
 */
static noinline void *rb_fill_lost(struct rb_cpu *cb, void *rec, u32 cpu,
				   u64 seq, u64 ts, u64 first_ts, u64 first_seq,
				   u16 ctx)
{
	struct ketw_sys_overflow *ovf = rec + KETW_EVENT_HEADER_SIZE;
	struct ketw_sys_resume *res;

	rb_fill_system(rec, KETW_EVENT_HEADER_SIZE + sizeof(*ovf),
		       KETW_SYS_OVERFLOW, cpu, seq, ts, ctx);
	ovf->first_lost_timestamp = first_ts;
	rec += RB_OVF_SPAN;
	res = rec + KETW_EVENT_HEADER_SIZE;
	rb_fill_system(rec, KETW_EVENT_HEADER_SIZE + sizeof(*res),
		       KETW_SYS_RESUME, cpu, seq + 1, ts, ctx);
	res->lost = seq - first_seq;
	local_add(2, &cb->meta->written);
	return rec + RB_RES_SPAN;
}

/*
 * Count an event lost and set the lost flag. The first loser of an
 * episode (flag clear) notes its time and number for the OVERFLOW record
 * before its cmpxchg, in the note of its own nesting depth, and puts its
 * depth in the word with the flag: only the writer whose cmpxchg sets the
 * flag has the earliest number. A note per depth, because writers nested
 * in ours may store a record and open an episode of their own between our
 * note and our cmpxchg, which then fails: were there one note, ours
 * (stale now) would overwrite theirs. Contexts nest strictly, so no other
 * writer at our depth runs until we are done.
 */
static void rb_lose(struct ketw_ring *ring, struct rb_cpu *cb,
		    local_t *counter, unsigned long old)
{
	unsigned long d, flag, new;

	/* The caller counts itself in committing: depth 0 is the outermost. */
	d = min_t(unsigned long, local_read(&cb->committing) - 1,
		  RB_NR_DEPTHS - 1);
	for (;;) {
		if (!(old & RB_LOST)) {
			WRITE_ONCE(cb->lost_ts[d], rb_now(ring, cb));
			WRITE_ONCE(cb->lost_seq[d],
				   rb_widen_seq(READ_ONCE(cb->seq_hint),
						old >> RB_SEQ_SHIFT));
			flag = RB_LOST | d << RB_DEPTH_SHIFT;
		} else {
			flag = old & (RB_LOST | RB_DEPTH_MASK);
		}
		new = rb_word((old >> RB_SEQ_SHIFT) + 1, RB_POS(old)) | flag;
		if (local_cmpxchg(&cb->reserve, old, new) == old)
			break;
		old = local_read(&cb->reserve);
	}
	/* Keep the hint near: a reader may be gone for 2^31 losses. */
	WRITE_ONCE(cb->seq_hint, rb_widen_seq(READ_ONCE(cb->seq_hint),
					      old >> RB_SEQ_SHIFT));
	local_inc(counter);
}

/*
 * Is there no room for a record ending at @end in @cb's data area of
 * @size bytes? Returns the counter its loss goes to, or NULL if it fits.
 * LOOP never writes over a record that is not complete (end - commit);
 * the others never over unread bytes (end - consumed), keeping
 * KETW_SYSTEM_RESERVE back in UNTIL_FULL unless @system.
 */
static __always_inline local_t *
rb_no_room(struct ketw_ring *ring, struct rb_cpu *cb, u32 size, u32 end,
	   bool system)
{
	u32 tail;

	if (ring->cfg.policy == KETW_POLICY_LOOP)
		return end - READ_ONCE(cb->commit) > size ?
		       &cb->meta->lost_busy : NULL;
	if (ring->cfg.policy == KETW_POLICY_UNTIL_FULL && !system)
		size -= KETW_SYSTEM_RESERVE;
	/*
	 * Acquire pairs with the reader's release of consumed (in
	 * ketw_ring_read_cpu(), ketw_ring_peek_cpu(), ketw_ring_consume_cpu()
	 * and rb_resync()): it has finished with those bytes before we reuse
	 * them.
	 */
	tail = smp_load_acquire(&cb->meta->consumed);
	return end - tail > size ? &cb->meta->lost_full : NULL;
}

/*
 * The reservation, for any case; the caller has incremented committing
 * (and on failure it is decremented here). A zero @span reserves only the
 * OVERFLOW and RESUME pair, if events were lost, and fails if none were.
 * @ctx: the context bits for that pair.
 */
static bool rb_reserve(struct ketw_ring *ring, struct rb_cpu *cb, u32 span,
		       bool system, u16 ctx, u64 ts0,
		       struct ketw_ring_resv *resv)
{
	u32 size = cb->mask + 1;
	u32 pos, start, end, need, seq32, nrec;
	unsigned long old, new;
	u64 ts, seq, first_ts = 0, first_seq = 0;
	local_t *lost;
	void *rec;

	do {
		old = local_read(&cb->reserve);
		pos = RB_POS(old);
		seq32 = old >> RB_SEQ_SHIFT;
		/*
		 * Read the clock inside the loop: a writer that interrupts
		 * us before the cmpxchg makes it fail, so timestamps follow
		 * buffer order. The first time round, @ts0 if not 0: read
		 * before the reserve word, as the fast path's (the same time
		 * as the event's records in the other sessions), unless
		 * events were lost since: the OVERFLOW record is no earlier
		 * than the first of them.
		 */
		if (ts0 && !(old & RB_LOST)) {
			ts = max(ts0, READ_ONCE(cb->last_ts));
			ts0 = 0;
		} else {
			ts = rb_now(ring, cb);
		}
		need = span;
		nrec = span ? 1 : 0;
		if (unlikely(old & RB_LOST)) {
			/* Stable until the flag clears, which fails our cmpxchg. */
			first_ts = READ_ONCE(cb->lost_ts[RB_DEPTH(old)]);
			first_seq = READ_ONCE(cb->lost_seq[RB_DEPTH(old)]);
			need += RB_OVF_SPAN + RB_RES_SPAN;
			nrec += 2;
		} else if (!span) {
			rb_end(ring, cb);
			return false;
		}
		start = pos;
		if ((pos & cb->mask) + need > size)
			start = pos + size - (pos & cb->mask);
		end = start + need;
		lost = rb_no_room(ring, cb, size, end, system);
		if (unlikely(lost)) {
			if (!span) {
				/* Only reporting: no room is no new loss. */
				rb_end(ring, cb);
				return false;
			}
			rb_lose(ring, cb, lost, old);
			/*
			 * One notification per start: a writer that loses
			 * events in a loop must not raise an interrupt for
			 * each of them until the session stops.
			 */
			if (ring->cfg.policy == KETW_POLICY_UNTIL_FULL &&
			    atomic_read(&ring->full) == RB_FULL_ARMED &&
			    atomic_cmpxchg(&ring->full, RB_FULL_ARMED,
					   RB_FULL_HIT) == RB_FULL_ARMED)
				irq_work_queue(&cb->wake_work);
			rb_end(ring, cb);
			return false;
		}
		new = rb_word(seq32 + nrec, end);
	} while (local_cmpxchg(&cb->reserve, old, new) != old);

	seq = rb_widen_seq(READ_ONCE(cb->seq_hint), seq32);
	WRITE_ONCE(cb->seq_hint, seq + nrec - 1);
	rb_note_ts(cb, ts);

	if (ring->cfg.policy == KETW_POLICY_LOOP)
		rb_loop_release(cb, end, true);
	if (unlikely(start != pos)) {
		/* The records do not fit before the wrap: pad to it. */
		struct ketw_event_header *pad = cb->data + (pos & cb->mask);

		pad->size = start - pos;
		pad->flags = KETW_RECORD_PADDING;
	}

	rec = cb->data + (start & cb->mask);
	resv->cpu = smp_processor_id();
	if (unlikely(old & RB_LOST)) {
		rec = rb_fill_lost(cb, rec, resv->cpu, seq, ts, first_ts,
				   first_seq, ctx);
		seq += 2;
	}
	resv->sequence = seq;
	resv->timestamp = ts;
	resv->rec = rec;
	return true;
}

/*
 * Every case the fast path leaves out: events lost before (OVERFLOW and
 * RESUME go first), a record that does not fit before the wrap, no room,
 * UNTIL_FULL's reserve, a nested writer that got in first. @ts: the time
 * the fast path read before the reserve word, tried first.
 */
static noinline bool rb_write_slow(struct ketw_ring *ring, struct rb_cpu *cb,
				   const struct ketw_ring_event *ev,
				   const u8 *guid,
				   const struct ketw_event_descriptor *desc,
				   const void *ext, u32 ext_len,
				   const void *data, u32 len, u32 flags,
				   u64 ts, u64 *seqp)
{
	struct ketw_ring_resv r;

	if (!rb_reserve(ring, cb,
			KETW_RECORD_SPAN(KETW_EVENT_HEADER_SIZE + ext_len + len),
			flags & KETW_RING_USE_RESERVE,
			flags & KETW_RECORD_CONTEXT_BITS, ts, &r))
		return false;
	if (seqp)
		*seqp = r.sequence;
	rb_fill_commit(ring, cb, r.rec, r.sequence, r.timestamp, ev, guid, desc,
		       ext, ext_len, data, len, flags);
	return true;
}

/*
 * The event's time on @ring's clock: read once per clock for all the
 * rings that take the event, by the first that needs it.
 */
static __always_inline u64 rb_event_time(struct ketw_ring *ring,
					 struct ketw_ring_event *ev)
{
	u32 c = ring->cfg.clock & (KETW_RING_CLOCKS - 1);

	if (likely(ev->clocks & BIT(c)))
		return ev->ts[c];
	ev->ts[c] = rb_clock(ring->cfg.clock);
	ev->clocks |= BIT(c);
	return ev->ts[c];
}

/*
 * ketw_ring_store() and ketw_ring_store_ext() with @ev, ketw_ring_write()
 * with @guid and @desc instead; with @seqp, the record's sequence number
 * there.
 */
static __always_inline bool rb_write(struct ketw_ring *ring,
				     struct ketw_ring_event *ev,
				     const u8 *guid,
				     const struct ketw_event_descriptor *desc,
				     const void *ext, u32 ext_len,
				     const void *data, u32 len, u32 flags,
				     u64 *seqp)
{
	struct rb_cpu *cb = this_cpu_ptr(ring->cpus);
	u32 span = KETW_RECORD_SPAN(KETW_EVENT_HEADER_SIZE + ext_len + len);
	u32 mask = cb->mask, pos, end, seq32;
	unsigned long old;
	u64 ts, seq, last;

	/*
	 * The clock first, while no ring state is live (or read before,
	 * for another ring: the same holds). A writer nesting between this
	 * read and the read of the reserve word stores a later time and
	 * records it in last_ts, which we read after the reserve word:
	 * taking the larger keeps times in buffer order. One nesting after
	 * the reserve word fails our cmpxchg.
	 */
	if (ev) {
		ts = rb_event_time(ring, ev);
		if (!(ev->clocks & KETW_RING_EVENT_BUILT)) {
			ev->w = rb_words(ev->guid, ev->desc);
			ev->clocks |= KETW_RING_EVENT_BUILT;
		}
	} else {
		ts = rb_clock(ring->cfg.clock);
	}
	local_inc(&cb->committing);
	old = local_read(&cb->reserve);
	last = READ_ONCE(cb->last_ts);
	if (unlikely(ts < last))
		ts = last;
	pos = old;
	end = pos + span;
	if (unlikely((old & RB_LOST) || (pos & mask) + span > mask + 1 ||
		     (flags & KETW_RING_USE_RESERVE)))
		goto slow;
	if (unlikely(rb_no_room(ring, cb, mask + 1, end, false)))
		goto slow;
	seq32 = old >> RB_SEQ_SHIFT;
	if (unlikely(local_cmpxchg(&cb->reserve, old,
				   rb_word(seq32 + 1, end)) != old))
		goto slow;

	seq = rb_widen_seq(READ_ONCE(cb->seq_hint), seq32);
	WRITE_ONCE(cb->seq_hint, seq);
	rb_note_ts(cb, ts);
	if (ring->cfg.policy == KETW_POLICY_LOOP)
		rb_loop_release(cb, end,
				!ev || !(ev->clocks & KETW_RING_EVENT_MANY));
	if (seqp)
		*seqp = seq;
	rb_fill_commit(ring, cb, cb->data + (pos & mask), seq, ts, ev, guid,
		       desc, ext, ext_len, data, len, flags);
	return true;
slow:
	return rb_write_slow(ring, cb, ev, guid, desc, ext, ext_len, data, len,
			     flags, ts, seqp);
}

/**
 * ketw_ring_store() - store one event on this CPU
 * @ring:  the ring.
 * @ev:    the event, from ketw_ring_event_init(): the header's shared
 *         words, and the times read so far (one read per clock serves
 *         every ring the event goes to).
 * @data:  the payload.
 * @len:   its length, already cut to what the session takes (the caller
 *         sets KETW_RECORD_TRUNCATED in @flags if it cut it); the record
 *         (header and payload) must be at most half the per-CPU size
 *         minus KETW_SYSTEM_RESERVE.
 * @flags: KETW_RECORD_* flags for the header (low 16 bits), the
 *         caller's context bits included (OVERFLOW and RESUME in front
 *         of the record take them too), and KETW_RING_USE_RESERVE:
 *         UNTIL_FULL lets the record use the room it keeps for system
 *         events.
 *
 * Reserves, fills and commits the record in one go. If events were lost
 * on this CPU since the last record, an OVERFLOW and a RESUME record go
 * in front of it, in the same reservation. On failure the event is
 * counted lost and takes a sequence number, so the reader sees the gap.
 * Preemption must be disabled, from ketw_ring_event_init() on.
 *
 * The fast path is rb_reserve() for the common case only: no loss
 * pending, room without a wrap, and no writer nesting in between; one
 * cmpxchg claims the space, the sequence number and the timestamp's
 * place in buffer order. Anything else goes to rb_write_slow().
 *
 * A record with items, or whose number the caller needs, goes through
 * ketw_ring_store_ext(): the same code, with three more arguments, which
 * no longer fit in registers, and their tests.
 *
 * Return: true if stored, false if counted lost.
 */
bool ketw_ring_store(struct ketw_ring *ring, struct ketw_ring_event *ev,
		     const void *data, u32 len, u32 flags)
{
	return rb_write(ring, ev, NULL, NULL, NULL, 0, data, len, flags,
			NULL);
}

/**
 * ketw_ring_store_ext() - ketw_ring_store(), with items and the number
 * @ring:  the ring.
 * @ev:    the event, as for ketw_ring_store().
 * @ext:   the extended data items area (struct ketw_ext_header first),
 *         stored between the header and the payload; the caller sets
 *         KETW_RECORD_EXT in @flags when there is one.
 * @ext_len: its length, a multiple of 8; 0 for none.
 * @data:  the payload.
 * @len:   its length, as for ketw_ring_store() (items included in the
 *         record's bound).
 * @flags: as for ketw_ring_store().
 * @seq:   NULL, or out, if stored: the record's sequence number on this
 *         CPU (for sessions with triggers, whose TRIGGER record names
 *         the event's record).
 *
 * Preemption must be disabled.
 *
 * Return: true if stored, false if counted lost.
 */
bool ketw_ring_store_ext(struct ketw_ring *ring, struct ketw_ring_event *ev,
			 const void *ext, u32 ext_len,
			 const void *data, u32 len, u32 flags, u64 *seq)
{
	return rb_write(ring, ev, NULL, NULL, ext, ext_len, data, len, flags,
			seq);
}

/**
 * ketw_ring_write() - store one event on this CPU, for one ring
 * @ring:  the ring.
 * @guid:  the provider's GUID (KETW_GUID_SIZE bytes).
 * @desc:  the event's descriptor: type, level, version, id, keyword.
 * @data:  the payload.
 * @len:   its length, as for ketw_ring_store().
 * @flags: as for ketw_ring_store().
 *
 * ketw_ring_store() for an event that goes to one ring: the header's
 * words go straight into the record, not through a struct
 * ketw_ring_event. Preemption must be disabled. Its declaration puts it
 * at the start of the hot page (KETW_HOT_TEXT, ring.h).
 *
 * Return: true if stored, false if counted lost.
 */
bool ketw_ring_write(struct ketw_ring *ring, const u8 *guid,
		     const struct ketw_event_descriptor *desc,
		     const void *data, u32 len, u32 flags)
{
	return rb_write(ring, NULL, guid, desc, NULL, 0, data, len, flags,
			NULL);
}

/**
 * ketw_ring_lose() - count an event refused before it reached the ring
 * @ring: the ring.
 * @why:  the reason.
 *
 * The event takes a sequence number and opens (or extends) an overflow
 * episode, like an event lost for lack of room. Preemption must be
 * disabled.
 */
void ketw_ring_lose(struct ketw_ring *ring, enum ketw_ring_loss why)
{
	struct rb_cpu *cb = this_cpu_ptr(ring->cpus);

	local_inc(&cb->committing);
	rb_lose(ring, cb, &cb->meta->lost_nested, local_read(&cb->reserve));
	rb_end(ring, cb);
}

/**
 * ketw_ring_report_lost() - log OVERFLOW and RESUME if this CPU lost events
 * @ring: the ring.
 * @ctx:  the caller's KETW_RECORD_* context bits, for the two records.
 *
 * For a session that stops: events lost after its last record would
 * otherwise be reported only by the next record. Call with preemption
 * disabled, on each CPU.
 */
void ketw_ring_report_lost(struct ketw_ring *ring, u16 ctx)
{
	struct rb_cpu *cb = this_cpu_ptr(ring->cpus);
	struct ketw_ring_resv r;

	local_inc(&cb->committing);
	if (rb_reserve(ring, cb, 0, true, ctx, 0, &r))
		rb_end(ring, cb);
}

/*
 * How many times a read of one CPU starts over from a new position
 * (a LOOP writer took the record under it, or the meta page's word was
 * bad) before it returns what it has: user space that keeps scribbling on
 * the word cannot keep the kernel here.
 */
#define RB_READ_RETRIES		64

/*
 * LOOP: the header at the claim @c makes no sense. If a writer released
 * the record and is writing over it, it moved the claim before its first
 * byte, and we look again from there; if the claim did not move, @c is
 * not a record at all (user space put it there): resynchronise.
 */
static void rb_loop_bad_header(struct ketw_ring *ring, struct rb_cpu *cb,
			       int cpu, u32 c)
{
	/*
	 * Our reads of the header before the claim; pairs with the claim's
	 * cmpxchg in rb_loop_claim().
	 */
	smp_rmb();
	if (READ_ONCE(cb->meta->oldest) == c)
		rb_resync(ring, cb, cpu, c, rb_oldest(cb));
}

/*
 * Is a header of @size bytes and @flags at @c a record that fits before
 * @p and the end of the area? An event record holds at least its header
 * (its size, not only its span: a reader word moved into a payload may
 * find 57-63 there).
 */
static __always_inline bool rb_span_ok(struct rb_cpu *cb, u32 c, u32 p,
				       u16 size, u16 flags)
{
	u32 span = KETW_RECORD_SPAN(size);

	/* Records never wrap: a span that would is a torn header. */
	return span >= KETW_RECORD_ALIGN && span <= p - c &&
	       (c & cb->mask) + span <= cb->mask + 1 &&
	       ((flags & KETW_RECORD_PADDING) ||
		size >= KETW_EVENT_HEADER_SIZE);
}

/*
 * Copies of records that, in LOOP (@loop), a writer may be overwriting at
 * the same time. The copy is checked afterwards (the claim of oldest, or
 * oldest read again), and dropped if a writer took the records: the race
 * is by design, and KCSAN is told so. Under the other policies writers
 * never touch what a reader has not released, and the copy stays checked.
 */
static unsigned long rb_copy_to_user(bool loop, void __user *to,
				     const void *from, unsigned long n)
{
	if (loop)	/* racy by design, see above */
		return data_race(copy_to_user(to, from, n));
	return copy_to_user(to, from, n);
}

static void rb_copy_out(bool loop, void *to, const void *from, size_t n)
{
	if (loop)	/* racy by design, see above */
		data_race(memcpy(to, from, n));
	else
		memcpy(to, from, n);
}

/**
 * ketw_ring_read_cpu() - copy whole committed records of one CPU to user
 * @ring: the ring.
 * @cpu:  the CPU.
 * @buf:  user buffer.
 * @len:  its size.
 *
 * Consumes what it copies. In LOOP, a record is the reader's only if it
 * moves the claim over it after copying it; if a writer moved the claim
 * first, the writer counted the record overwritten and the copy is
 * dropped. A reader word that user space spoiled is replaced (see
 * rb_reader_pos()); the work is bounded by @len and RB_READ_RETRIES.
 *
 * Return: bytes copied; -EMSGSIZE if the next record does not fit in @len
 * and nothing was copied; -EFAULT if @buf is bad and nothing was copied.
 */
ssize_t ketw_ring_read_cpu(struct ketw_ring *ring, int cpu,
			   char __user *buf, size_t len)
{
	struct rb_cpu *cb = per_cpu_ptr(ring->cpus, cpu);
	bool loop = ring->cfg.policy == KETW_POLICY_LOOP;
	unsigned int retries = RB_READ_RETRIES;
	struct ketw_event_header *h;
	u32 c, p, raw, span;
	ssize_t ret = 0;
	size_t copied = 0;
	u16 size, flags;

	c = rb_reader_pos(ring, cb, &p, &raw);
	if (unlikely(c != raw))
		rb_resync(ring, cb, cpu, raw, c);
	while (c != p) {
		h = cb->data + (c & cb->mask);
		size = READ_ONCE(h->size);
		span = KETW_RECORD_SPAN(size);
		flags = READ_ONCE(h->flags);
		if (!rb_span_ok(cb, c, p, size, flags)) {
			if (!loop)
				goto corrupt;
			rb_loop_bad_header(ring, cb, cpu, c);
			goto next_loop;
		}
		if (!(flags & KETW_RECORD_PADDING)) {
			if (copied + span > len) {
				if (!copied)
					ret = -EMSGSIZE;
				break;
			}
			if (rb_copy_to_user(loop, buf + copied, h, span)) {
				if (!copied)
					ret = -EFAULT;
				break;
			}
		}
		if (loop) {
			/* Claim it; fully ordered after the copy. */
			if (cmpxchg(&cb->meta->oldest, c, c + span) != c)
				goto next_loop;
		}
		c += span;
		if (!(flags & KETW_RECORD_PADDING)) {
			copied += span;
			cb->meta->read++;
		}
		continue;
next_loop:
		/* A writer took the record: its copy, if any, is dropped. */
		if (!retries--)
			break;
		c = rb_reader_pos(ring, cb, &p, &raw);
		if (unlikely(c != raw))
			rb_resync(ring, cb, cpu, raw, c);
	}
	if (!loop) {
		/*
		 * Release: our reads of the records are done before a writer
		 * may reuse their space. Pairs with smp_load_acquire() in
		 * rb_no_room().
		 */
		smp_store_release(&cb->meta->consumed, c);
	}
	return copied ? copied : ret;

corrupt:
	/* consumed was in range but not on a record: resynchronise. */
	rb_resync(ring, cb, cpu, c, p);
	return copied ? copied : ret;
}

/**
 * ketw_ring_peek_cpu() - copy the next record of one CPU without consuming it
 * @ring: the ring.
 * @cpu:  the CPU.
 * @buf:  kernel buffer.
 * @len:  its size.
 * @pos:  out: the record's position, for ketw_ring_consume_cpu().
 *
 * Padding before the record is consumed on the way. The copy is the
 * caller's only once ketw_ring_consume_cpu() succeeds: until then a LOOP
 * writer may release the record and write over it, even while it is
 * copied. One reader at a time, as for ketw_ring_read_cpu(), and as
 * bounded.
 *
 * Return: the record's span, the bytes copied; 0 if the CPU has no
 * committed record (or the reader should come back); -EMSGSIZE if the
 * record does not fit in @len.
 */
ssize_t ketw_ring_peek_cpu(struct ketw_ring *ring, int cpu, void *buf,
			   size_t len, u32 *pos)
{
	struct rb_cpu *cb = per_cpu_ptr(ring->cpus, cpu);
	bool loop = ring->cfg.policy == KETW_POLICY_LOOP;
	unsigned int retries = RB_READ_RETRIES;
	struct ketw_event_header *h;
	u32 c, p, raw, span;
	u16 size, flags;

	c = rb_reader_pos(ring, cb, &p, &raw);
	if (unlikely(c != raw))
		rb_resync(ring, cb, cpu, raw, c);
	while (c != p) {
		h = cb->data + (c & cb->mask);
		size = READ_ONCE(h->size);
		span = KETW_RECORD_SPAN(size);
		flags = READ_ONCE(h->flags);
		if (!rb_span_ok(cb, c, p, size, flags)) {
			if (loop) {
				rb_loop_bad_header(ring, cb, cpu, c);
				goto next_loop;
			}
			rb_resync(ring, cb, cpu, c, p);
			return 0;
		}
		if (!(flags & KETW_RECORD_PADDING)) {
			if (span > len)
				return -EMSGSIZE;
			rb_copy_out(loop, buf, h, span);
			*pos = c;
			return span;
		}
		/* Nobody wants padding: consume it now. */
		if (loop) {
			if (cmpxchg(&cb->meta->oldest, c, c + span) != c)
				goto next_loop;
		} else {
			/* Pairs with smp_load_acquire() in rb_no_room(). */
			smp_store_release(&cb->meta->consumed, c + span);
		}
		c += span;
		continue;
next_loop:
		if (!retries--)
			break;
		c = rb_reader_pos(ring, cb, &p, &raw);
		if (unlikely(c != raw))
			rb_resync(ring, cb, cpu, raw, c);
	}
	return 0;
}

/**
 * ketw_ring_consume_cpu() - consume the record ketw_ring_peek_cpu() copied
 * @ring: the ring.
 * @cpu:  the CPU.
 * @pos:  the position the peek returned.
 * @span: the span it returned.
 *
 * As ketw_ring_read_cpu() does after its copy: in LOOP, the record is the
 * reader's only if it moves oldest over it; if a writer moved oldest
 * first, the writer counted the record overwritten and the copy is void.
 *
 * Return: true if the record is consumed and the copy is whole; false if
 * the record is gone (overwritten, or taken by another consumer): drop
 * the copy and peek again.
 */
bool ketw_ring_consume_cpu(struct ketw_ring *ring, int cpu, u32 pos, u32 span)
{
	struct rb_cpu *cb = per_cpu_ptr(ring->cpus, cpu);

	/* The reader's words are only compared and swapped here. */
	if (ring->cfg.policy == KETW_POLICY_LOOP) {
		/* Claim it; fully ordered after the copy. */
		if (cmpxchg(&cb->meta->oldest, pos, pos + span) != pos)
			return false;
	} else {
		if (READ_ONCE(cb->meta->consumed) != pos)
			return false;
		/*
		 * Release: our copy is done before a writer may reuse the
		 * space. Pairs with smp_load_acquire() in rb_no_room().
		 */
		smp_store_release(&cb->meta->consumed, pos + span);
	}
	cb->meta->read++;
	return true;
}

/*
 * The snapshot: into @kbuf (kernel) or, if it is NULL, into @ubuf (user),
 * at least the per-CPU size long.
 */
static int rb_snapshot(struct ketw_ring *ring, int cpu, void *kbuf,
		       char __user *ubuf, size_t len, u64 *copied,
		       u64 *dropped)
{
	struct rb_cpu *cb = per_cpu_ptr(ring->cpus, cpu);
	bool loop = ring->cfg.policy == KETW_POLICY_LOOP;
	u32 size = cb->mask + 1, from, to, first, n, o2;

	if (len < size)
		return -ENOBUFS;
	/* A bad reader word gives the writers' oldest or commit instead. */
	from = rb_reader_pos(ring, cb, &to, &o2);
	n = to - from;
	first = min(n, size - (from & cb->mask));
	if (kbuf) {
		rb_copy_out(loop, kbuf, cb->data + (from & cb->mask), first);
		rb_copy_out(loop, kbuf + first, cb->data, n - first);
	} else if (rb_copy_to_user(loop, ubuf, cb->data + (from & cb->mask),
				   first) ||
		   rb_copy_to_user(loop, ubuf + first, cb->data, n - first)) {
		return -EFAULT;
	}
	*dropped = 0;
	*copied = n;
	if (loop) {
		/*
		 * Our reads of the records before the load of oldest: what
		 * writers released meanwhile they may have written over.
		 * Pairs with smp_wmb() after their move of oldest in
		 * rb_loop_release_slow().
		 */
		smp_rmb();
		o2 = rb_oldest(cb);
		if (rb_before(from, o2)) {
			/* Released while we copied: shift the whole rest down. */
			u32 skip = rb_before(to, o2) ? n : o2 - from;
			char *tmp;

			*dropped = skip;
			*copied = n - skip;
			if (!*copied)
				return 0;
			if (kbuf) {
				memmove(kbuf, kbuf + skip, *copied);
				return 0;
			}
			tmp = kvmalloc(*copied, GFP_KERNEL);
			if (!tmp)
				return -ENOMEM;
			if (copy_from_user(tmp, ubuf + skip, *copied) ||
			    copy_to_user(ubuf, tmp, *copied)) {
				kvfree(tmp);
				return -EFAULT;
			}
			kvfree(tmp);
		}
	}
	return 0;
}

/**
 * ketw_ring_snapshot_cpu() - copy one CPU's records without consuming them
 * @ring:   the ring.
 * @cpu:    the CPU.
 * @buf:    user buffer, at least the per-CPU size.
 * @len:    its size.
 * @copied: out: bytes of whole records (padding included) at @buf.
 * @dropped: out: bytes left out of the front of the copy because writers
 *          (or a reader) released them while it was made.
 *
 * Copies from the oldest record (LOOP) or the reader's position to the
 * commit position, then drops whatever writers released meanwhile, so
 * that every record left in the copy is whole. Writers keep running.
 *
 * Return: 0; -ENOBUFS if @len is below the per-CPU size; -EFAULT; -ENOMEM.
 */
int ketw_ring_snapshot_cpu(struct ketw_ring *ring, int cpu,
			   char __user *buf, size_t len,
			   u64 *copied, u64 *dropped)
{
	return rb_snapshot(ring, cpu, NULL, buf, len, copied, dropped);
}

/**
 * ketw_ring_snapshot_cpu_kernel() - ketw_ring_snapshot_cpu() into kernel memory
 * @ring:    the ring.
 * @cpu:     the CPU.
 * @buf:     kernel buffer, at least the per-CPU size.
 * @len:     its size.
 * @copied:  out: bytes of whole records (padding included) at @buf.
 * @dropped: out: bytes left out of the front of the copy.
 *
 * Return: 0; -ENOBUFS if @len is below the per-CPU size.
 */
int ketw_ring_snapshot_cpu_kernel(struct ketw_ring *ring, int cpu,
				  void *buf, size_t len,
				  u64 *copied, u64 *dropped)
{
	return rb_snapshot(ring, cpu, buf, NULL, len, copied, dropped);
}

/**
 * ketw_ring_empty() - is there nothing left to read on any CPU?
 * @ring: the ring.
 *
 * Return: true if every CPU's reader has caught up with its commit.
 */
bool ketw_ring_empty(struct ketw_ring *ring)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (!ketw_ring_cpu_empty(ring, cpu))
			return false;
	return true;
}

/**
 * ketw_ring_cpu_empty() - is there nothing left to read on one CPU?
 * @ring: the ring.
 * @cpu:  the CPU.
 *
 * Return: true if the CPU's reader has caught up with its commit.
 */
bool ketw_ring_cpu_empty(struct ketw_ring *ring, int cpu)
{
	struct rb_cpu *cb = per_cpu_ptr(ring->cpus, cpu);
	u32 p, raw;

	return rb_reader_pos(ring, cb, &p, &raw) == p;
}

/**
 * ketw_ring_above_watermark() - has any CPU the watermark's worth pending?
 * @ring: the ring.
 *
 * Return: true if so.
 */
bool ketw_ring_above_watermark(struct ketw_ring *ring)
{
	int cpu;

	u32 c, p, raw;

	for_each_possible_cpu(cpu) {
		c = rb_reader_pos(ring, per_cpu_ptr(ring->cpus, cpu), &p, &raw);
		if (p - c >= ring->cfg.watermark)
			return true;
	}
	return false;
}

/**
 * ketw_ring_commits() - note every CPU's commit position
 * @ring:    the ring.
 * @commits: out: nr_cpu_ids positions.
 */
void ketw_ring_commits(struct ketw_ring *ring, u32 *commits)
{
	int cpu;

	struct rb_cpu *cb;

	for_each_possible_cpu(cpu) {
		cb = per_cpu_ptr(ring->cpus, cpu);
		/* Pairs with smp_wmb() before the commit store in rb_end(). */
		commits[cpu] = smp_load_acquire(&cb->commit);
	}
}

/**
 * ketw_ring_consumed_all() - have readers consumed up to noted positions?
 * @ring:    the ring.
 * @commits: positions from ketw_ring_commits().
 *
 * Return: true if every CPU's reader is at or past its position (LOOP:
 * or the records were overwritten).
 */
bool ketw_ring_consumed_all(struct ketw_ring *ring, const u32 *commits)
{
	int cpu;

	u32 p, raw;

	for_each_possible_cpu(cpu)
		if (rb_before(rb_reader_pos(ring, per_cpu_ptr(ring->cpus, cpu),
					    &p, &raw), commits[cpu]))
			return false;
	return true;
}

/* Sleep until @cpu (any CPU if negative) has a record, a timeout or a signal. */
static int rb_wait(struct ketw_ring *ring, int cpu, unsigned int how,
		   long timeout)
{
	DEFINE_WAIT(wait);

	prepare_to_wait(&ring->wait, &wait, TASK_INTERRUPTIBLE);
	ketw_ring_arm_wakeup(ring, how);
	if ((cpu < 0 ? ketw_ring_empty(ring) : ketw_ring_cpu_empty(ring, cpu)) &&
	    !signal_pending(current))
		schedule_timeout(timeout);
	finish_wait(&ring->wait, &wait);
	return signal_pending(current) ? -ERESTARTSYS : 0;
}

/**
 * ketw_ring_wait() - sleep until data may be there, a timeout or a signal
 * @ring:    the ring.
 * @how:     KETW_WAIT_ANY or KETW_WAIT_WATERMARK.
 * @timeout: in jiffies.
 *
 * Writers wake readers through irq_work only while ring->waiters is set;
 * they do not order that check against their commit (it would cost a
 * full barrier per event), so a wakeup can be missed and the timeout
 * bounds how late the reader then is.
 *
 * Return: -ERESTARTSYS on a signal, else 0.
 */
int ketw_ring_wait(struct ketw_ring *ring, unsigned int how, long timeout)
{
	return rb_wait(ring, -1, how, timeout);
}

/**
 * ketw_ring_wait_cpu() - ketw_ring_wait() for a record on one CPU
 * @ring:    the ring.
 * @cpu:     the CPU.
 * @timeout: in jiffies.
 *
 * Records on other CPUs may wake the caller too.
 *
 * Return: -ERESTARTSYS on a signal, else 0.
 */
int ketw_ring_wait_cpu(struct ketw_ring *ring, int cpu, long timeout)
{
	return rb_wait(ring, cpu, KETW_WAIT_ANY, timeout);
}

/**
 * ketw_ring_arm_wakeup() - have writers wake the ring's waiters
 * @ring: the ring.
 * @how:  KETW_WAIT_ANY or KETW_WAIT_WATERMARK.
 *
 * For a reader about to check for records and sleep on a wait queue that
 * the ring wakes (its own, or one of ketw_ring_wait_add()): call it after
 * the reader is on the queue and before the check.
 */
void ketw_ring_arm_wakeup(struct ketw_ring *ring, unsigned int how)
{
	WRITE_ONCE(ring->waiters, READ_ONCE(ring->waiters) | how);
	smp_mb(); /* waiters before the caller's check; the waker clears it */
}

/**
 * ketw_ring_wait_add() - add an entry to the ring's wait queue
 * @ring:     the ring.
 * @wq_entry: the entry; its function runs at each wakeup, in irq_work
 *            (interrupts off) or in the caller of ketw_ring_wake().
 *
 * The entry must be removed with ketw_ring_wait_del() before the ring is
 * freed.
 */
void ketw_ring_wait_add(struct ketw_ring *ring,
			struct wait_queue_entry *wq_entry)
{
	add_wait_queue(&ring->wait, wq_entry);
}

/**
 * ketw_ring_wait_del() - remove an entry ketw_ring_wait_add() added
 * @ring:     the ring.
 * @wq_entry: the entry.
 */
void ketw_ring_wait_del(struct ketw_ring *ring,
			struct wait_queue_entry *wq_entry)
{
	remove_wait_queue(&ring->wait, wq_entry);
}

static void rb_poll_wait(struct ketw_ring *ring, struct file *file,
			 struct poll_table_struct *pt, unsigned int how)
{
	poll_wait(file, &ring->wait, pt);
	ketw_ring_arm_wakeup(ring, how);
}

/**
 * ketw_ring_poll_wait() - poll_wait() on the ring, woken at the watermark
 * @ring: the ring.
 * @file: the polled file.
 * @pt:   the poll table.
 */
void ketw_ring_poll_wait(struct ketw_ring *ring, struct file *file,
			 struct poll_table_struct *pt)
{
	rb_poll_wait(ring, file, pt, KETW_WAIT_WATERMARK);
}

/**
 * ketw_ring_poll_wait_any() - poll_wait() on the ring, woken by any record
 * @ring: the ring.
 * @file: the polled file.
 * @pt:   the poll table.
 */
void ketw_ring_poll_wait_any(struct ketw_ring *ring, struct file *file,
			     struct poll_table_struct *pt)
{
	rb_poll_wait(ring, file, pt, KETW_WAIT_ANY);
}

/**
 * ketw_ring_wake() - wake the ring's readers (session stopped, ...)
 * @ring: the ring.
 */
void ketw_ring_wake(struct ketw_ring *ring)
{
	wake_up_interruptible_all(&ring->wait);
}

static void rb_wake_fn(struct irq_work *work)
{
	struct rb_cpu *cb = container_of(work, struct rb_cpu, wake_work);
	struct ketw_ring *ring = cb->ring;

	if (atomic_cmpxchg(&ring->full, RB_FULL_HIT, RB_FULL_CALLED) ==
	    RB_FULL_HIT && ring->cfg.on_full)
		ring->cfg.on_full(ring->cfg.arg);
	/*
	 * The sleepers re-arm waiters when they wait again; clearing it
	 * here keeps writers from queueing irq_work per event meanwhile.
	 */
	WRITE_ONCE(ring->waiters, 0);
	wake_up_interruptible_all(&ring->wait);
}

/**
 * ketw_ring_stats_cpu() - fill the counters of one CPU
 * @ring: the ring.
 * @cpu:  the CPU.
 * @st:   out: the counter fields of struct ketw_cpu_stats.
 */
void ketw_ring_stats_cpu(struct ketw_ring *ring, int cpu,
			 struct ketw_cpu_stats *st)
{
	struct rb_cpu *cb = per_cpu_ptr(ring->cpus, cpu);
	struct rb_meta *m = cb->meta;
	unsigned long r = local_read(&cb->reserve);
	u32 produced, raw;

	st->written = local_read(&m->written);
	st->lost_full = local_read(&m->lost_full);
	st->overwritten = local_read(&m->overwritten);
	st->lost_busy = local_read(&m->lost_busy);
	st->lost_nested = local_read(&m->lost_nested);
	st->truncated = local_read(&m->truncated);
	st->read = READ_ONCE(m->read);
	st->sequence = rb_widen_seq(READ_ONCE(cb->seq_hint),
				    r >> RB_SEQ_SHIFT);
	st->consumed = rb_reader_pos(ring, cb, &produced, &raw);
	st->produced = produced;
}

/**
 * ketw_ring_full_called() - was on_full called since the last rearm?
 * @ring: the ring.
 *
 * For the work that on_full queues: once ketw_ring_rearm() has armed the
 * ring for a new run, that work belongs to a run that is over.
 *
 * Return: true if on_full was called and the ring not rearmed since.
 */
bool ketw_ring_full_called(struct ketw_ring *ring)
{
	return atomic_read(&ring->full) == RB_FULL_CALLED;
}

/**
 * ketw_ring_full() - POSIX full status
 * @ring:     the ring.
 * @max_span: the largest record the session stores.
 *
 * Return: LOOP: true once a record was overwritten; otherwise true while
 * some CPU has no room for the largest record.
 */
bool ketw_ring_full(struct ketw_ring *ring, u32 max_span)
{
	u32 room = ring->cfg.size;
	int cpu;

	if (ring->cfg.policy == KETW_POLICY_UNTIL_FULL)
		room -= KETW_SYSTEM_RESERVE;
	u32 c, p, raw;

	for_each_possible_cpu(cpu) {
		struct rb_cpu *cb = per_cpu_ptr(ring->cpus, cpu);

		if (ring->cfg.policy == KETW_POLICY_LOOP) {
			if (local_read(&cb->meta->overwritten))
				return true;
			continue;
		}
		c = rb_reader_pos(ring, cb, &p, &raw);
		if ((u64)(p - c) + max_span > room)
			return true;
	}
	return false;
}

/* The CPU and part (0: meta page) a mapping of a ring covers. */
static void rb_vma_where(struct vm_area_struct *vma, u64 *cpu, u64 *part)
{
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;

	*cpu = off >> KETW_MMAP_CPU_SHIFT;
	*part = off & (KETW_MMAP_CPU(1) - 1);
}

/**
 * ketw_ring_vma_open() - count a copy or part of a mapping
 * @ring: the ring.
 * @vma:  the new vma (a split of one ketw_ring_mmap() set up).
 */
void ketw_ring_vma_open(struct ketw_ring *ring, struct vm_area_struct *vma)
{
	u64 cpu, part;

	rb_vma_where(vma, &cpu, &part);
	if (part)
		atomic_inc(&per_cpu_ptr(ring->cpus, cpu)->data_maps);
}

/**
 * ketw_ring_vma_close() - a mapping goes away
 * @ring: the ring.
 * @vma:  the vma.
 */
void ketw_ring_vma_close(struct ketw_ring *ring, struct vm_area_struct *vma)
{
	u64 cpu, part;

	rb_vma_where(vma, &cpu, &part);
	if (part)
		atomic_dec(&per_cpu_ptr(ring->cpus, cpu)->data_maps);
}

static bool rb_mapped(struct ketw_ring *ring)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (atomic_read(&per_cpu_ptr(ring->cpus, cpu)->data_maps))
			return true;
	return false;
}

/**
 * ketw_ring_read_begin() - enter read(): no mmap consumer may be there
 * @ring: the ring.
 *
 * read() and mapping a data area exclude each other without a shared
 * lock (mmap runs under mmap_lock, and read() may fault while it reads):
 * each side announces itself, then looks for the other.
 *
 * Return: 0, to be paired with ketw_ring_read_end(); -EBUSY if a data
 * area is mapped.
 */
int ketw_ring_read_begin(struct ketw_ring *ring)
{
	atomic_inc(&ring->readers);
	smp_mb__after_atomic(); /* announce, then look; pairs with mmap */
	if (rb_mapped(ring)) {
		atomic_dec(&ring->readers);
		return -EBUSY;
	}
	return 0;
}

/**
 * ketw_ring_read_end() - leave read()
 * @ring: the ring.
 */
void ketw_ring_read_end(struct ketw_ring *ring)
{
	atomic_dec(&ring->readers);
}

/**
 * ketw_ring_mmap() - map one CPU's meta page or data area
 * @ring: the ring.
 * @vma:  the new mapping; vm_pgoff names the CPU and the part.
 *
 * The meta page is mapped shared and may be written (the reader's
 * consumed position); the data area is read-only.
 *
 * A data mapping that succeeds counts as one open of the area; later
 * copies and splits of the vma count through ketw_ring_vma_open(), and
 * each goes with ketw_ring_vma_close().
 *
 * Return: 0; -EINVAL for another offset, length, a private mapping or an
 * unknown CPU; -EPERM for a writable data mapping; -EBUSY if the data
 * area is mapped already or a read() is under way.
 */
int ketw_ring_mmap(struct ketw_ring *ring, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	struct rb_cpu *cb;
	unsigned int i;
	u64 cpu, part;
	int err;

	rb_vma_where(vma, &cpu, &part);
	if (cpu >= nr_cpu_ids || !cpu_possible(cpu) ||
	    !(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	cb = per_cpu_ptr(ring->cpus, cpu);
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY;
	if (part == 0) {
		if (len != PAGE_SIZE)
			return -EINVAL;
		return vm_insert_page(vma, vma->vm_start, cb->meta_page);
	}
	if (part != PAGE_SIZE || len != (unsigned long)cb->nr_pages << PAGE_SHIFT)
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	/*
	 * One consumer per buffer: claim the data area, then look for a
	 * read() under way (pairs with ketw_ring_read_begin()).
	 */
	if (atomic_inc_return(&cb->data_maps) > 1 ||
	    atomic_read(&ring->readers)) {
		err = -EBUSY;
		goto out_unclaim;
	}
	vma->vm_flags &= ~VM_MAYWRITE;
	for (i = 0; i < cb->nr_pages; i++) {
		err = vm_insert_page(vma, vma->vm_start + i * PAGE_SIZE,
				     cb->pages[i]);
		if (err)
			goto out_unclaim;
	}
	return 0;

out_unclaim:
	atomic_dec(&cb->data_maps);
	return err;
}

static void rb_cpu_free(struct rb_cpu *cb)
{
	unsigned int i;

	if (cb->data)
		vunmap(cb->data);
	for (i = 0; i < cb->nr_pages; i++)
		__free_page(cb->pages[i]);
	kvfree(cb->pages);
	if (cb->meta_page)
		__free_page(cb->meta_page);
}

static int rb_cpu_init(struct ketw_ring *ring, struct rb_cpu *cb, int cpu)
{
	unsigned int n = ring->cfg.size >> PAGE_SHIFT;
	gfp_t gfp = GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN |
		    __GFP_RETRY_MAYFAIL;
	struct rb_meta *m;

	cb->ring = ring;
	cb->mask = ring->cfg.size - 1;
	init_irq_work(&cb->wake_work, rb_wake_fn);
	cb->meta_page = alloc_pages_node(cpu_to_node(cpu), gfp, 0);
	if (!cb->meta_page)
		return -ENOMEM;
	m = page_address(cb->meta_page);
	cb->meta = m;
	m->version = KETW_META_VERSION;
	m->meta_size = sizeof(struct ketw_meta_page);
	m->cpu = cpu;
	m->policy = ring->cfg.policy;
	m->data_offset = KETW_MMAP_CPU(cpu) + PAGE_SIZE;
	m->data_size = ring->cfg.size;
	m->watermark = ring->cfg.watermark;

	cb->pages = kvcalloc(n, sizeof(*cb->pages), GFP_KERNEL | __GFP_NOWARN);
	if (!cb->pages)
		return -ENOMEM;
	for (; cb->nr_pages < n; cb->nr_pages++) {
		struct page *pg = alloc_pages_node(cpu_to_node(cpu), gfp, 0);

		if (!pg)
			return -ENOMEM;
		cb->pages[cb->nr_pages] = pg;
	}
	cb->data = vmap(cb->pages, n, VM_MAP, PAGE_KERNEL);
	return cb->data ? 0 : -ENOMEM;
}

/**
 * ketw_ring_alloc() - allocate a ring with one buffer per possible CPU
 * @cfg: size (a power of two, at least PAGE_SIZE), policy, clock, ...
 *
 * Return: the ring, or ERR_PTR(-ENOMEM).
 */
struct ketw_ring *ketw_ring_alloc(const struct ketw_ring_config *cfg)
{
	struct ketw_ring *ring;
	int cpu, err;

	if (WARN_ON_ONCE(!is_power_of_2(cfg->size) || cfg->size < PAGE_SIZE))
		return ERR_PTR(-EINVAL);
	ring = kzalloc(sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return ERR_PTR(-ENOMEM);
	ring->cfg = *cfg;
	init_waitqueue_head(&ring->wait);
	ring->cpus = alloc_percpu(struct rb_cpu);
	if (!ring->cpus) {
		kfree(ring);
		return ERR_PTR(-ENOMEM);
	}
	for_each_possible_cpu(cpu) {
		err = rb_cpu_init(ring, per_cpu_ptr(ring->cpus, cpu), cpu);
		if (err) {
			ketw_ring_free(ring);
			return ERR_PTR(err);
		}
	}
	return ring;
}

/**
 * ketw_ring_rearm() - let the ring notify a full buffer again
 * @ring: the ring, with no writer in it (a session about to start).
 */
void ketw_ring_rearm(struct ketw_ring *ring)
{
	ketw_ring_quiesce(ring);
	atomic_set(&ring->full, RB_FULL_ARMED);
}

/**
 * ketw_ring_quiesce() - wait for pending wakeups and full notifications
 * @ring: a ring no writer can reach any more.
 *
 * After it returns, @cfg.on_full is not running and will not be called.
 */
void ketw_ring_quiesce(struct ketw_ring *ring)
{
	int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(ring->cpus, cpu)->wake_work);
}

/**
 * ketw_ring_free() - free a ring no writer can reach any more
 * @ring: the ring, or NULL.
 */
void ketw_ring_free(struct ketw_ring *ring)
{
	int cpu;

	if (!ring)
		return;
	ketw_ring_quiesce(ring);
	for_each_possible_cpu(cpu)
		rb_cpu_free(per_cpu_ptr(ring->cpus, cpu));
	free_percpu(ring->cpus);
	kfree(ring);
}
