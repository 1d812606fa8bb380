/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ketw buffer core: one session's set of per-CPU circular buffers.
 *
 * Writers reserve, fill and commit records on their own CPU with no lock
 * and with interrupts enabled; writers that interrupt each other on one CPU
 * nest like a stack. A single reader per buffer consumes committed records.
 * See Documentation/ketw-ring-buffer.rst for the algorithm.
 */
#ifndef _KETW_RING_H
#define _KETW_RING_H

#include <linux/types.h>
#include <linux/mm_types.h>
#include <linux/poll.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <asm/unaligned.h>
#include <uapi/linux/ketw.h>

struct ketw_ring;
struct ketw_event_descriptor;

/**
 * struct ketw_ring_config - how a ring behaves
 * @size:      per-CPU data area in bytes (a power of two, at least
 *             PAGE_SIZE).
 * @policy:    KETW_POLICY_*: LOOP overwrites, the others drop when full.
 * @clock:     KETW_CLOCK_*: the timestamp source.
 * @watermark: bytes pending at which waiting pollers are woken.
 * @on_full:   UNTIL_FULL: called (from irq_work, interrupts off) after an
 *             event was lost for lack of room.
 * @arg:       passed to @on_full.
 */
struct ketw_ring_config {
	u32 size;
	u32 policy;
	u32 clock;
	u32 watermark;
	void (*on_full)(void *arg);
	void *arg;
};

/*
 * The one-session write path in one page: ketw_ring_write() first,
 * page-aligned, then __ketw_write() (provider.c, linked after ring.c),
 * 3.5 KiB together (scripts/tests/hot-text-test.sh checks that they fit).
 * Natively that is one iTLB entry; under QEMU's TCG, where make bench
 * runs, a call or return between two pages is not chained and costs a
 * block lookup, 10-20 % of a guest write (Documentation/ketw-testing.rst,
 * "Code layout").
 */
#define KETW_HOT_TEXT		__section(".text.ketw_hot")

/* ketw_ring_write() flag: UNTIL_FULL may use its system reserve. */
#define KETW_RING_USE_RESERVE	BIT(16)

/* Why an event was refused before it reached the ring. */
enum ketw_ring_loss {
	KETW_LOSS_NESTED,	/* the caller's recursion guard */
};

/* Readers waiting, for ketw_ring_wait(). */
#define KETW_WAIT_ANY		1	/* woken by any record */
#define KETW_WAIT_WATERMARK	2	/* woken at the watermark */

/*
 * ketw_ring_copy(): copy a payload into its record (8-aligned). Event
 * payloads are short: a loop of 8-byte moves costs less than memcpy()'s
 * string instruction there (whose start-up dominates short copies, and
 * which an emulator runs a byte at a time); long payloads take memcpy().
 */
#define KETW_RING_COPY_WORDS_MAX	512

static __always_inline void ketw_ring_copy(void *dst, const void *src, u32 len)
{
	u64 *d = dst, last;
	const u8 *s = src;

	if (len > KETW_RING_COPY_WORDS_MAX) {
		memcpy(dst, src, len);
		return;
	}
	if (len >= 8) {
		/*
		 * Whole words, then the last 8 bytes once more: a part word
		 * at the end costs one store over bytes already written,
		 * not a tail of branches.
		 */
		last = get_unaligned((const u64 *)(s + len - 8));
		for (; len >= 32; len -= 32, s += 32, d += 4) {
			d[0] = get_unaligned((const u64 *)s);
			d[1] = get_unaligned((const u64 *)(s + 8));
			d[2] = get_unaligned((const u64 *)(s + 16));
			d[3] = get_unaligned((const u64 *)(s + 24));
		}
		for (; len >= 8; len -= 8, s += 8)
			*d++ = get_unaligned((const u64 *)s);
		put_unaligned(last, (u64 *)((u8 *)d + len - 8));
		return;
	}
	if (len & 4) {
		put_unaligned(get_unaligned((const u32 *)s), (u32 *)d);
		d = (void *)d + 4;
		s += 4;
	}
	if (len & 2) {
		put_unaligned(get_unaligned((const u16 *)s), (u16 *)d);
		d = (void *)d + 2;
		s += 2;
	}
	if (len & 1)
		*(u8 *)d = *s;
}

/* A ring's clock: KETW_CLOCK_*, 0 meaning the default, below this. */
#define KETW_RING_CLOCKS	4

/**
 * struct ketw_ring_words - a record header's words that do not depend on
 * the ring: every session's record of an event shares them
 * @word0:   word 0 (type, level, version); size and flags left 0.
 * @word1:   word 1 (event id, cpu).
 * @word2:   word 2 (thread and process ids).
 * @keyword: the event's keyword (word 5).
 * @id0:     the provider's GUID, first half (word 6) ...
 * @id1:     ... and second half (word 7).
 */
struct ketw_ring_words {
	u64 word0;
	u64 word1;
	u64 word2;
	u64 keyword;
	u64 id0;
	u64 id1;
};

/**
 * struct ketw_ring_event - what every ring's record of one event shares
 * @guid:    its provider's GUID (KETW_GUID_SIZE bytes).
 * @desc:    its descriptor.
 * @clocks:  a bit per clock read so far (BIT(KETW_CLOCK_*)),
 *           KETW_RING_EVENT_BUILT once the words below are, and
 *           KETW_RING_EVENT_MANY if it may go to more than
 *           KETW_RING_SCAN_RINGS rings.
 * @ts:      the event's time on each clock read so far.
 * @w:       the header's words that every record of it shares.
 *
 * On the writer's stack, from ketw_ring_event_init(). The first
 * ketw_ring_store() reads its ring's clock, then builds the words (after
 * the clock: the read then overlaps with the work that follows it); the
 * others copy the words and read a clock only if no ring before read
 * that one.
 */
struct ketw_ring_event {
	const u8 *guid;
	const struct ketw_event_descriptor *desc;
	u32 clocks;
	u64 ts[KETW_RING_CLOCKS];
	struct ketw_ring_words w;
};

#define KETW_RING_EVENT_BUILT	BIT(31)
#define KETW_RING_EVENT_MANY	BIT(30)

/*
 * An event for more rings than this leaves out LOOP's per-write scan in
 * each (the headers a lap behind, one more page touched per ring and
 * write), and its rings release a page at a time, walking it then
 * (Documentation/ketw-ring-buffer.rst, "Many sessions").
 */
#define KETW_RING_SCAN_RINGS	4

/**
 * ketw_ring_event_init() - prepare an event for the rings that take it
 * @ev:   the event.
 * @guid: its provider's GUID (KETW_GUID_SIZE bytes), kept until the last
 *        ketw_ring_store() of @ev.
 * @desc: its descriptor, the same.
 * @rings: how many rings it may go to, at most.
 *
 * Preemption must be disabled until the last ketw_ring_store() of @ev
 * (the CPU goes in its header).
 */
static inline void ketw_ring_event_init(struct ketw_ring_event *ev,
					const u8 *guid,
					const struct ketw_event_descriptor *desc,
					unsigned int rings)
{
	ev->guid = guid;
	ev->desc = desc;
	ev->clocks = rings > KETW_RING_SCAN_RINGS ? KETW_RING_EVENT_MANY : 0;
}

/* setup */
struct ketw_ring *ketw_ring_alloc(const struct ketw_ring_config *cfg);
void ketw_ring_quiesce(struct ketw_ring *ring);
void ketw_ring_rearm(struct ketw_ring *ring);
void ketw_ring_free(struct ketw_ring *ring);

/* write: preemption must be disabled */
bool ketw_ring_store(struct ketw_ring *ring, struct ketw_ring_event *ev,
		     const void *data, u32 len, u32 flags);
bool ketw_ring_store_ext(struct ketw_ring *ring, struct ketw_ring_event *ev,
			 const void *ext, u32 ext_len,
			 const void *data, u32 len, u32 flags, u64 *seq);
/* At the hot page's start (KETW_HOT_TEXT): the definition inherits it. */
KETW_HOT_TEXT __aligned(PAGE_SIZE)
bool ketw_ring_write(struct ketw_ring *ring, const u8 *guid,
		     const struct ketw_event_descriptor *desc,
		     const void *data, u32 len, u32 flags);
void ketw_ring_lose(struct ketw_ring *ring, enum ketw_ring_loss why);
void ketw_ring_report_lost(struct ketw_ring *ring, u16 ctx);

/* read: one reader at a time per ring (the caller serialises) */
ssize_t ketw_ring_read_cpu(struct ketw_ring *ring, int cpu,
			   char __user *buf, size_t len);
int ketw_ring_snapshot_cpu(struct ketw_ring *ring, int cpu,
			   char __user *buf, size_t len,
			   u64 *copied, u64 *dropped);
int ketw_ring_snapshot_cpu_kernel(struct ketw_ring *ring, int cpu,
				  void *buf, size_t len,
				  u64 *copied, u64 *dropped);
ssize_t ketw_ring_peek_cpu(struct ketw_ring *ring, int cpu, void *buf,
			   size_t len, u32 *pos);
bool ketw_ring_consume_cpu(struct ketw_ring *ring, int cpu, u32 pos, u32 span);
bool ketw_ring_empty(struct ketw_ring *ring);
bool ketw_ring_cpu_empty(struct ketw_ring *ring, int cpu);
bool ketw_ring_above_watermark(struct ketw_ring *ring);
bool ketw_ring_consumed_all(struct ketw_ring *ring, const u32 *commits);
void ketw_ring_commits(struct ketw_ring *ring, u32 *commits);
int ketw_ring_wait(struct ketw_ring *ring, unsigned int how, long timeout);
int ketw_ring_wait_cpu(struct ketw_ring *ring, int cpu, long timeout);
void ketw_ring_poll_wait(struct ketw_ring *ring, struct file *file,
			 struct poll_table_struct *pt);
void ketw_ring_poll_wait_any(struct ketw_ring *ring, struct file *file,
			     struct poll_table_struct *pt);
void ketw_ring_arm_wakeup(struct ketw_ring *ring, unsigned int how);
void ketw_ring_wait_add(struct ketw_ring *ring,
			struct wait_queue_entry *wq_entry);
void ketw_ring_wait_del(struct ketw_ring *ring,
			struct wait_queue_entry *wq_entry);
void ketw_ring_wake(struct ketw_ring *ring);
int ketw_ring_mmap(struct ketw_ring *ring, struct vm_area_struct *vma);
void ketw_ring_vma_open(struct ketw_ring *ring, struct vm_area_struct *vma);
void ketw_ring_vma_close(struct ketw_ring *ring, struct vm_area_struct *vma);
int ketw_ring_read_begin(struct ketw_ring *ring);
void ketw_ring_read_end(struct ketw_ring *ring);

/* control */
void ketw_ring_stats_cpu(struct ketw_ring *ring, int cpu,
			 struct ketw_cpu_stats *st);
bool ketw_ring_full(struct ketw_ring *ring, u32 max_span);
bool ketw_ring_full_called(struct ketw_ring *ring);

#endif /* _KETW_RING_H */
