// SPDX-License-Identifier: GPL-2.0
/*
 * ketw clocks: the copy of the timekeeper's CLOCK_MONOTONIC read-out base
 * that ketw_clock_mono() computes from (see clock.h).
 */
#include <linux/clocksource.h>
#include <linux/export.h>
#include <linux/notifier.h>
#include <linux/pvclock_gtod.h>
#include <linux/spinlock.h>
#include <linux/suspend.h>
#include <linux/timekeeper_internal.h>

#include <ketw.h>

#include "clock.h"

struct ketw_clock ketw_clock_mono_data = {
	.seq = SEQCNT_LATCH_ZERO(ketw_clock_mono_data.seq),
};

/*
 * Serialises the two writers of the copies: the timekeeper's notifier
 * (which runs under the timekeeper's lock) and the PM notifier.
 */
static DEFINE_RAW_SPINLOCK(ketw_clock_lock);

/*
 * Between suspend's prepare and resume's end the copies stay invalid: the
 * timekeeper stops the fast timekeeper across suspend (its time stands
 * still), but the TSC may run on or be reset, which the copies would turn
 * into times far from CLOCK_MONOTONIC; ktime_get_mono_fast_ns() is right
 * there. Under ketw_clock_lock.
 */
static bool ketw_clock_sleeping;

static void ketw_clock_fill(struct ketw_clock_base *b,
			    const struct tk_read_base *tkr)
{
	bool tsc = false;

#ifdef CONFIG_X86
	tsc = tkr && tkr->clock->vdso_clock_mode == VDSO_CLOCKMODE_TSC &&
	      tkr->mask == CLOCKSOURCE_MASK(64);
#endif
	if (!tsc) {
		b->mult = 0;
		return;
	}
	b->mult = tkr->mult;
	b->shift = tkr->shift;
	b->cycle_last = tkr->cycle_last;
	b->xtime_nsec = tkr->xtime_nsec;
	b->base_ns = ktime_to_ns(tkr->base);
}

/*
 * Rewrite both copies from @tkr, or mark them invalid if it is NULL. Each
 * copy is rewritten while readers are steered to the other one.
 */
static void ketw_clock_set(const struct tk_read_base *tkr)
{
	struct ketw_clock *c = &ketw_clock_mono_data;

	lockdep_assert_held(&ketw_clock_lock);
	if (ketw_clock_sleeping)
		tkr = NULL;
	raw_write_seqcount_latch(&c->seq);
	ketw_clock_fill(&c->base[0], tkr);
	raw_write_seqcount_latch(&c->seq);
	ketw_clock_fill(&c->base[1], tkr);
}

/*
 * Called by timekeeping_update() with the timekeeper locked and
 * interrupts off, after every change of the timekeeper.
 */
static int ketw_clock_update(struct notifier_block *nb, unsigned long was_set,
			     void *priv)
{
	const struct timekeeper *tk = priv;

	raw_spin_lock(&ketw_clock_lock);
	ketw_clock_set(&tk->tkr_mono);
	raw_spin_unlock(&ketw_clock_lock);
	return NOTIFY_OK;
}

static struct notifier_block ketw_clock_nb = {
	.notifier_call = ketw_clock_update,
};

/* Suspend and hibernation: see ketw_clock_sleeping. */
static int ketw_clock_pm(struct notifier_block *nb, unsigned long action,
			 void *data)
{
	unsigned long flags;

	switch (action) {
	case PM_SUSPEND_PREPARE:
	case PM_HIBERNATION_PREPARE:
	case PM_RESTORE_PREPARE:
		raw_spin_lock_irqsave(&ketw_clock_lock, flags);
		ketw_clock_sleeping = true;
		ketw_clock_set(NULL);
		raw_spin_unlock_irqrestore(&ketw_clock_lock, flags);
		break;
	case PM_POST_SUSPEND:
	case PM_POST_HIBERNATION:
	case PM_POST_RESTORE:
		/* The next timekeeper update (a tick) fills the copies again. */
		raw_spin_lock_irqsave(&ketw_clock_lock, flags);
		ketw_clock_sleeping = false;
		raw_spin_unlock_irqrestore(&ketw_clock_lock, flags);
		break;
	}
	return NOTIFY_OK;
}

static struct notifier_block ketw_clock_pm_nb = {
	.notifier_call = ketw_clock_pm,
};

/*
 * Registering the timekeeper notifier calls it at once: from then on the
 * copies follow the timekeeper. Until then (and while the clocksource is
 * not the TSC) both have a zero mult and ketw_clock_mono() uses
 * ktime_get_mono_fast_ns().
 */
int ketw_clock_init(void)
{
	int err;

	err = register_pm_notifier(&ketw_clock_pm_nb);
	if (err)
		return err;
	err = pvclock_gtod_register_notifier(&ketw_clock_nb);
	if (err)
		unregister_pm_notifier(&ketw_clock_pm_nb);
	return err;
}

/* After this, no update runs or will run. */
void ketw_clock_exit(void)
{
	pvclock_gtod_unregister_notifier(&ketw_clock_nb);
	unregister_pm_notifier(&ketw_clock_pm_nb);
}

/**
 * ketw_clock_uses_tsc() - does MONO come from the TSC now?
 *
 * /sys/module/ketw/mono_clock (sysfs.c) reads "tsc" while ketw computes
 * MONO from the TSC, "timekeeper" while it asks ktime_get_mono_fast_ns().
 *
 * Return: true while the copies are valid.
 */
bool ketw_clock_uses_tsc(void)
{
	struct ketw_clock *c = &ketw_clock_mono_data;
	unsigned int seq;
	bool tsc;

	do {
		seq = raw_read_seqcount_latch(&c->seq);
		tsc = c->base[seq & 1].mult != 0;
	} while (read_seqcount_latch_retry(&c->seq, seq));
	return tsc;
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
