/* SPDX-License-Identifier: GPL-2.0 */
/* Native shim: the latch sequence count's read side (module/clock.h). */
#ifndef _NATIVE_LINUX_SEQLOCK_H
#define _NATIVE_LINUX_SEQLOCK_H

#include <native/atomic.h>

typedef struct {
	unsigned int sequence;
} seqcount_t;

typedef struct {
	seqcount_t seqcount;
} seqcount_latch_t;

/* As Linux 6.1: a dependent load follows, so READ_ONCE is enough. */
static __always_inline unsigned int
raw_read_seqcount_latch(const seqcount_latch_t *s)
{
	return READ_ONCE(s->seqcount.sequence);
}

static __always_inline int
read_seqcount_latch_retry(const seqcount_latch_t *s, unsigned int start)
{
	smp_rmb();
	return unlikely(READ_ONCE(s->seqcount.sequence) != start);
}

#endif
