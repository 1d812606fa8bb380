// SPDX-License-Identifier: GPL-2.0
/*
 * ketw buffer core: lockless per-CPU circular buffers.
 *
 * Terms (Documentation/ketw-ring-buffer.rst draws them):
 *   position  - a byte count since the buffer was created, kept in 32 bits
 *               and compared modulo 2^32; offset = position & mask.
 *   reserve   - the producer position plus the per-CPU sequence number,
 *               packed in one word that writers advance with cmpxchg.
 *   commit    - every record below it is complete; the reader stops there.
 *   consumed  - the reader's position. Outside LOOP it is the writers'
 *               tail: they never write over bytes the reader has not read.
 *   oldest    - LOOP only: the first record still intact. Writers move it
 *               forward over whole records before writing over them.
 *
 * Writers on one CPU nest like a stack (task < softirq < hardirq < NMI): a
 * writer that interrupts another finishes before the interrupted one goes
 * on. Only the outermost writer moves commit, and only to a reserve value
 * it has seen with no writer in between, so commit never covers a record
 * that is still being written.
 */
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <asm/local.h>

#include "ring.h"

/*
 * The reserve word: sequence number (high half) and producer position (low
 * half). Claiming space and a number in one cmpxchg means that whatever
 * interrupts a writer gets both strictly after, or strictly before, it.
 */
#define RB_SEQ_SHIFT	32
#define RB_SEQ_ONE	BIT(RB_SEQ_SHIFT)

static_assert(sizeof(long) == 8, "ketw packs two 32-bit counters in a local_t");
static_assert(sizeof(struct ketw_event_header) == KETW_EVENT_HEADER_SIZE);

struct rb_cpu {
	/* Writer side: touched by every event on this CPU. */
	local_t reserve;
	local_t committing;	/* writers between reserve and commit */
	u32 commit;
	u32 mask;
	local_t oldest;		/* LOOP: first intact record (low 32 bits) */
	u64 seq_hint;		/* a recent full sequence number */
	u64 last_ts;		/* the latest timestamp handed out */
	void *data;
	struct ketw_ring *ring;

	local_t written;
	local_t lost_full;
	local_t lost_busy;
	local_t lost_nested;
	local_t overwritten;
	local_t truncated;

	/* Reader side, on its own cache line. */
	u32 consumed ____cacheline_aligned_in_smp;
	u64 read;

	struct irq_work wake_work;
	struct page **pages;
	unsigned int nr_pages;
};

struct ketw_ring {
	struct ketw_ring_config cfg;
	struct rb_cpu __percpu *cpus;
	wait_queue_head_t wait;
	bool waiters;
};

static __always_inline bool rb_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

static __always_inline u64 rb_clock(u32 clock)
{
	switch (clock) {
	case KETW_CLOCK_BOOT:
		return ktime_get_boot_fast_ns();
	case KETW_CLOCK_LOCAL:
		return local_clock();
	default:
		return ktime_get_mono_fast_ns();
	}
}

/*
 * Widen a 32-bit sequence number with a full one seen recently on this
 * CPU. The hint is at most a few nested writers stale, far less than 2^31.
 */
static __always_inline u64 rb_widen_seq(u64 hint, u32 seq32)
{
	return hint + (s64)(s32)(seq32 - (u32)hint);
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
		 * them; pairs with smp_load_acquire() in the reader.
		 */
		smp_wmb();
		WRITE_ONCE(cb->commit, (u32)r);
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
	if (READ_ONCE(ring->waiters))
		irq_work_queue(&cb->wake_work);
}

/*
 * LOOP: move oldest over whole records until [end - size, end) is free.
 * Every record below end - size is committed (the caller checked that
 * end - commit <= size), so its header is valid to read.
 */
static __always_inline void rb_loop_release(struct rb_cpu *cb, u32 end)
{
	u32 limit = end - (cb->mask + 1);
	struct ketw_event_header *h;
	u32 t, span;
	u16 flags;

	for (;;) {
		t = (u32)local_read(&cb->oldest);
		if (!rb_before(t, limit))
			break;
		h = cb->data + (t & cb->mask);
		span = KETW_RECORD_SPAN(READ_ONCE(h->size));
		flags = READ_ONCE(h->flags);
		/*
		 * A nested writer may move oldest and overwrite this header
		 * between our reads; then the cmpxchg fails and we read the
		 * header at the new oldest. A bad size could only come from
		 * such a race, so it is never acted on.
		 */
		if (unlikely(span < KETW_RECORD_ALIGN))
			span = KETW_RECORD_ALIGN;
		if (local_cmpxchg(&cb->oldest, t, t + span) == t &&
		    !(flags & KETW_RECORD_PADDING))
			local_inc(&cb->overwritten);
	}
	/*
	 * The reader checks oldest after copying a record: it must see
	 * oldest moved before it can see any byte we are about to write
	 * over the released records. Pairs with smp_rmb() in rb_read().
	 */
	smp_wmb();
}

/**
 * ketw_ring_reserve() - claim space for a record on this CPU
 * @ring: the ring.
 * @span: bytes to claim: KETW_RECORD_SPAN() of the record's size, at most
 *        half the ring's per-CPU size.
 * @resv: filled with where to write and the record's cpu, sequence number
 *        and timestamp.
 *
 * Preemption must be disabled until ketw_ring_commit(). On failure the
 * event is counted lost and consumes a sequence number, so the reader
 * sees the gap; there is nothing to commit.
 *
 * Return: true if the space is claimed.
 */
bool ketw_ring_reserve(struct ketw_ring *ring, u32 span,
		       struct ketw_ring_resv *resv)
{
	struct rb_cpu *cb = this_cpu_ptr(ring->cpus);
	u32 size = cb->mask + 1;
	unsigned long old, new;
	u32 pos, start, end, seq32;
	local_t *lost = NULL;
	u64 ts, last;

	local_inc(&cb->committing);
	do {
		old = local_read(&cb->reserve);
		pos = (u32)old;
		seq32 = old >> RB_SEQ_SHIFT;
		/*
		 * Read the clock inside the loop: a writer that interrupts
		 * us before the cmpxchg makes it fail, so timestamps follow
		 * buffer order.
		 */
		ts = rb_clock(ring->cfg.clock);
		last = READ_ONCE(cb->last_ts);
		if (unlikely(ts < last))
			ts = last;
		start = pos;
		if ((pos & cb->mask) + span > size)
			start = pos + size - (pos & cb->mask);
		end = start + span;
		lost = NULL;
		if (ring->cfg.policy == KETW_POLICY_LOOP) {
			/* Never write over a record that is not complete. */
			if (end - READ_ONCE(cb->commit) > size)
				lost = &cb->lost_busy;
		} else {
			/*
			 * Acquire pairs with the reader's release of consumed:
			 * it has finished with those bytes before we reuse them.
			 */
			u32 tail = smp_load_acquire(&cb->consumed);

			if (end - tail > size)
				lost = &cb->lost_full;
		}
		new = ((unsigned long)(u32)(seq32 + 1) << RB_SEQ_SHIFT) |
		      (lost ? pos : end);
	} while (local_cmpxchg(&cb->reserve, old, new) != old);

	if (unlikely(lost)) {
		local_inc(lost);
		rb_end(ring, cb);
		return false;
	}

	if (ring->cfg.policy == KETW_POLICY_LOOP)
		rb_loop_release(cb, end);
	if (unlikely(start != pos)) {
		/* The record does not fit before the wrap: pad to it. */
		struct ketw_event_header *pad = cb->data + (pos & cb->mask);

		pad->size = start - pos;
		pad->flags = KETW_RECORD_PADDING;
	}

	resv->sequence = rb_widen_seq(READ_ONCE(cb->seq_hint), seq32);
	WRITE_ONCE(cb->seq_hint, resv->sequence);
	WRITE_ONCE(cb->last_ts, ts);
	resv->timestamp = ts;
	resv->cpu = smp_processor_id();
	resv->rec = cb->data + (start & cb->mask);
	return true;
}

/**
 * ketw_ring_commit() - finish the record reserved last on this CPU
 * @ring:      the ring.
 * @truncated: the record's payload was cut; counted in the statistics.
 */
void ketw_ring_commit(struct ketw_ring *ring, bool truncated)
{
	struct rb_cpu *cb = this_cpu_ptr(ring->cpus);

	local_inc(&cb->written);
	if (truncated)
		local_inc(&cb->truncated);
	rb_end(ring, cb);
}

/**
 * ketw_ring_lose() - count an event that was refused before reserving
 * @ring: the ring.
 * @why:  the reason (KETW_LOSS_NESTED for the caller's recursion guard).
 *
 * The event still consumes a sequence number. Preemption must be disabled.
 */
void ketw_ring_lose(struct ketw_ring *ring, enum ketw_ring_loss why)
{
	struct rb_cpu *cb = this_cpu_ptr(ring->cpus);
	unsigned long old;

	/* local_add() cannot take a 64-bit immediate on x86: use cmpxchg. */
	do {
		old = local_read(&cb->reserve);
	} while (local_cmpxchg(&cb->reserve, old, old + RB_SEQ_ONE) != old);
	switch (why) {
	case KETW_LOSS_FULL:
		local_inc(&cb->lost_full);
		break;
	case KETW_LOSS_BUSY:
		local_inc(&cb->lost_busy);
		break;
	case KETW_LOSS_NESTED:
		local_inc(&cb->lost_nested);
		break;
	}
}

/* Has the record at @pos been released by a LOOP writer? */
static bool rb_overwritten(struct rb_cpu *cb, u32 pos, u32 *oldest)
{
	*oldest = (u32)local_read(&cb->oldest);
	return rb_before(pos, *oldest);
}

/**
 * ketw_ring_read_cpu() - copy whole committed records of one CPU to user
 * @ring: the ring.
 * @cpu:  the CPU.
 * @buf:  user buffer.
 * @len:  its size.
 *
 * Consumes what it copies. In LOOP, records a writer overwrote before or
 * while they were copied are skipped (the writer counted them).
 *
 * Return: bytes copied; -EMSGSIZE if the next record does not fit in @len
 * and nothing was copied; -EFAULT if @buf is bad and nothing was copied.
 */
ssize_t ketw_ring_read_cpu(struct ketw_ring *ring, int cpu,
			   char __user *buf, size_t len)
{
	struct rb_cpu *cb = per_cpu_ptr(ring->cpus, cpu);
	bool loop = ring->cfg.policy == KETW_POLICY_LOOP;
	struct ketw_event_header *h;
	u32 c = cb->consumed, p, span, oldest;
	ssize_t ret = 0;
	size_t copied = 0;
	u16 size, flags;

	/* Pairs with smp_wmb() before the commit store in rb_end(). */
	p = smp_load_acquire(&cb->commit);
	while (c != p) {
		if (loop && rb_overwritten(cb, c, &oldest)) {
			c = oldest;
			continue;
		}
		h = cb->data + (c & cb->mask);
		size = READ_ONCE(h->size);
		flags = READ_ONCE(h->flags);
		span = KETW_RECORD_SPAN(size);
		if (loop) {
			/* Pairs with smp_wmb() in rb_loop_release(). */
			smp_rmb();
			if (rb_overwritten(cb, c, &oldest)) {
				c = oldest;
				continue;
			}
		}
		if (flags & KETW_RECORD_PADDING) {
			if (span < KETW_RECORD_ALIGN || span > p - c)
				goto corrupt;
			c += span;
			continue;
		}
		if (span < KETW_EVENT_HEADER_SIZE || span > p - c)
			goto corrupt;
		if (copied + span > len) {
			if (!copied)
				ret = -EMSGSIZE;
			break;
		}
		if (copy_to_user(buf + copied, h, span)) {
			if (!copied)
				ret = -EFAULT;
			break;
		}
		if (loop) {
			/* Overwritten while we copied it: take nothing. */
			smp_rmb();
			if (rb_overwritten(cb, c, &oldest)) {
				c = oldest;
				continue;
			}
		}
		copied += span;
		c += span;
		cb->read++;
	}
out:
	/*
	 * Release: our reads of the records are done before a writer may
	 * reuse their space. Pairs with smp_load_acquire() in reserve.
	 */
	smp_store_release(&cb->consumed, c);
	return copied ? copied : ret;

corrupt:
	/* Cannot happen unless memory was corrupted: resynchronise at p. */
	pr_err_ratelimited("ketw: cpu%d: bad record at %u, skipping to %u\n",
			   cpu, c, p);
	c = p;
	goto out;
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

	for_each_possible_cpu(cpu) {
		struct rb_cpu *cb = per_cpu_ptr(ring->cpus, cpu);

		if (READ_ONCE(cb->consumed) != READ_ONCE(cb->commit))
			return false;
	}
	return true;
}

/**
 * ketw_ring_wait() - sleep until data may be there, a timeout or a signal
 * @ring:    the ring.
 * @timeout: in jiffies.
 *
 * Writers wake the reader through irq_work only while ring->waiters is
 * set; they do not order that check against their commit (it would cost a
 * full barrier per event), so a wakeup can be missed and the timeout
 * bounds how late the reader then is.
 *
 * Return: -ERESTARTSYS on a signal, else 0.
 */
int ketw_ring_wait(struct ketw_ring *ring, long timeout)
{
	long ret;

	WRITE_ONCE(ring->waiters, true);
	smp_mb(); /* waiters before the emptiness check; a stop's wakeup */
	ret = wait_event_interruptible_timeout(ring->wait,
					       !ketw_ring_empty(ring), timeout);
	WRITE_ONCE(ring->waiters, false);
	return ret < 0 ? ret : 0;
}

/**
 * ketw_ring_wake() - wake the ring's readers (session stopped, ...)
 * @ring: the ring.
 */
void ketw_ring_wake(struct ketw_ring *ring)
{
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
	unsigned long r = local_read(&cb->reserve);

	st->written = local_read(&cb->written);
	st->lost_full = local_read(&cb->lost_full);
	st->overwritten = local_read(&cb->overwritten);
	st->lost_busy = local_read(&cb->lost_busy);
	st->lost_nested = local_read(&cb->lost_nested);
	st->truncated = local_read(&cb->truncated);
	st->read = READ_ONCE(cb->read);
	st->sequence = rb_widen_seq(READ_ONCE(cb->seq_hint),
				    r >> RB_SEQ_SHIFT);
	st->produced = READ_ONCE(cb->commit);
	st->consumed = READ_ONCE(cb->consumed);
}

u32 ketw_ring_size(const struct ketw_ring *ring)
{
	return ring->cfg.size;
}

static void rb_wake_fn(struct irq_work *work)
{
	struct rb_cpu *cb = container_of(work, struct rb_cpu, wake_work);

	wake_up_interruptible_all(&cb->ring->wait);
}

static void rb_cpu_free(struct rb_cpu *cb)
{
	unsigned int i;

	irq_work_sync(&cb->wake_work);
	if (cb->data)
		vunmap(cb->data);
	for (i = 0; i < cb->nr_pages; i++)
		__free_page(cb->pages[i]);
	kvfree(cb->pages);
}

static int rb_cpu_init(struct ketw_ring *ring, struct rb_cpu *cb, int cpu)
{
	unsigned int n = ring->cfg.size >> PAGE_SHIFT;
	gfp_t gfp = GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN |
		    __GFP_RETRY_MAYFAIL;

	cb->ring = ring;
	cb->mask = ring->cfg.size - 1;
	init_irq_work(&cb->wake_work, rb_wake_fn);
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
 * @cfg: size (a power of two, at least PAGE_SIZE), policy and clock.
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
 * ketw_ring_free() - free a ring no writer can reach any more
 * @ring: the ring, or NULL.
 */
void ketw_ring_free(struct ketw_ring *ring)
{
	int cpu;

	if (!ring)
		return;
	for_each_possible_cpu(cpu)
		rb_cpu_free(per_cpu_ptr(ring->cpus, cpu));
	free_percpu(ring->cpus);
	kfree(ring);
}
