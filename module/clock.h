/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ketw clocks: CLOCK_MONOTONIC read inline from the TSC.
 *
 * ktime_get_mono_fast_ns() is NMI-safe but reaches the clocksource through
 * an indirect call, which costs more than the rest of a record. When the
 * timekeeper runs on the TSC, ketw keeps its own copy of the timekeeper's
 * CLOCK_MONOTONIC read-out base (updated on every timekeeping update
 * through the pvclock_gtod notifier, as KVM and the vDSO do) and computes
 * the same nanoseconds from rdtsc and that base, inline. Two copies behind
 * a latch sequence count keep it NMI-safe, as in the fast timekeeper.
 * Any other clocksource falls back to ktime_get_mono_fast_ns().
 */
#ifndef _KETW_CLOCK_H
#define _KETW_CLOCK_H

#include <linux/seqlock.h>
#include <linux/timekeeping.h>
#include <linux/types.h>
#ifdef CONFIG_X86
#include <asm/msr.h>
#endif

/*
 * One copy of the CLOCK_MONOTONIC read-out base (struct tk_read_base),
 * for a 64-bit TSC: no mask to apply.
 */
struct ketw_clock_base {
	u64 cycle_last;
	u64 xtime_nsec;		/* shifted nanoseconds at cycle_last */
	u64 base_ns;		/* CLOCK_MONOTONIC at the last update */
	u32 mult;		/* 0: not the TSC, ask the timekeeper */
	u32 shift;
};

struct ketw_clock {
	seqcount_latch_t seq;
	struct ketw_clock_base base[2];
};

extern struct ketw_clock ketw_clock_mono_data;

int ketw_clock_init(void);
void ketw_clock_exit(void);
bool ketw_clock_uses_tsc(void);

/**
 * ketw_clock_mono() - CLOCK_MONOTONIC in nanoseconds, from any context
 *
 * The value ktime_get_mono_fast_ns() returns, computed inline when the
 * timekeeper runs on the TSC. NMI-safe.
 */
static __always_inline u64 ketw_clock_mono(void)
{
#ifdef CONFIG_X86
	struct ketw_clock *c = &ketw_clock_mono_data;
	struct ketw_clock_base b;
	unsigned int seq;
	u64 ns, delta;

	do {
		seq = raw_read_seqcount_latch(&c->seq);
		/*
		 * The latch's read side races with ketw_clock_set() by
		 * design: a copy rewritten meanwhile fails the retry below,
		 * so the race is intended (data_race(), for KCSAN).
		 */
		b = data_race(c->base[seq & 1]);
		if (unlikely(!b.mult))
			return ktime_get_mono_fast_ns();
		delta = rdtsc_ordered() - b.cycle_last;
		ns = b.base_ns + ((delta * b.mult + b.xtime_nsec) >> b.shift);
	} while (unlikely(read_seqcount_latch_retry(&c->seq, seq)));
	return ns;
#else
	return ktime_get_mono_fast_ns();
#endif
}

#endif /* _KETW_CLOCK_H */
