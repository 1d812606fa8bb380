// SPDX-License-Identifier: GPL-2.0
/*
 * ketw clocks: the copy of the timekeeper's CLOCK_MONOTONIC read-out base
 * that ketw_clock_mono() computes from (see clock.h).
 */
#include <linux/clocksource.h>
#include <linux/export.h>
#include <linux/notifier.h>
#include <linux/pvclock_gtod.h>
#include <linux/timekeeper_internal.h>

#include <ketw.h>

#include "clock.h"

struct ketw_clock ketw_clock_mono_data = {
	.seq = SEQCNT_LATCH_ZERO(ketw_clock_mono_data.seq),
};

static void ketw_clock_fill(struct ketw_clock_base *b,
			    const struct tk_read_base *tkr)
{
	bool tsc = false;

#ifdef CONFIG_X86
	tsc = tkr->clock->vdso_clock_mode == VDSO_CLOCKMODE_TSC &&
	      tkr->mask == CLOCKSOURCE_MASK(64);
#endif
	b->mult = tsc ? tkr->mult : 0;
	b->shift = tkr->shift;
	b->cycle_last = tkr->cycle_last;
	b->xtime_nsec = tkr->xtime_nsec;
	b->base_ns = ktime_to_ns(tkr->base);
}

/*
 * Called by timekeeping_update() with the timekeeper locked, interrupts
 * off, after every change of the timekeeper: one writer at a time. Each
 * copy is rewritten while readers are steered to the other one.
 */
static int ketw_clock_update(struct notifier_block *nb, unsigned long was_set,
			     void *priv)
{
	const struct timekeeper *tk = priv;
	struct ketw_clock *c = &ketw_clock_mono_data;

	raw_write_seqcount_latch(&c->seq);
	ketw_clock_fill(&c->base[0], &tk->tkr_mono);
	raw_write_seqcount_latch(&c->seq);
	ketw_clock_fill(&c->base[1], &tk->tkr_mono);
	return NOTIFY_OK;
}

static struct notifier_block ketw_clock_nb = {
	.notifier_call = ketw_clock_update,
};

/*
 * Until the first update (the next tick) both copies have a zero mult,
 * and ketw_clock_mono() uses ktime_get_mono_fast_ns().
 */
int ketw_clock_init(void)
{
	return pvclock_gtod_register_notifier(&ketw_clock_nb);
}

/* After this, no update runs or will run. */
void ketw_clock_exit(void)
{
	pvclock_gtod_unregister_notifier(&ketw_clock_nb);
}

/**
 * ketw_clock_mono_ns() - the time ketw stamps records with (clock MONO)
 *
 * CLOCK_MONOTONIC in nanoseconds, as in the timestamp of a record of a
 * session with the default clock: for providers that put times (a
 * deadline, a start) in a payload to compare with record times.
 * Context: any, NMI included.
 *
 * Return: nanoseconds of CLOCK_MONOTONIC.
 */
u64 ketw_clock_mono_ns(void)
{
	return ketw_clock_mono();
}
EXPORT_SYMBOL_GPL(ketw_clock_mono_ns);
