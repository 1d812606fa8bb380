// SPDX-License-Identifier: GPL-2.0
/*
 * ketw_oot - a ketw provider outside ketw's tree (see ketw_oot.h).
 *
 * It uses nothing of ketw's but <ketw.h>, as "make install" stages it,
 * and links against ketw's exports through KBUILD_EXTRA_SYMBOLS: the
 * walk-through in Documentation/ketw-providers.rst builds this file.
 * On every online CPU it logs from task context (a work item), softirq
 * (a timer) and hardirq (a hard hrtimer), and counts what it logged so
 * that a test can hold the sessions' accounting against it.
 */
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <ketw.h>

#include "ketw_oot.h"

#define OOT_MAX_MS	60000

static const struct ketw_field oot_fields[] = {
	KETW_FIELD(struct ketw_oot_ev, cpu, KETW_FIELD_U32),
	KETW_FIELD(struct ketw_oot_ev, ctx, KETW_FIELD_U32),
	KETW_FIELD(struct ketw_oot_ev, counter, KETW_FIELD_U64),
};

#define OOT_EVENT(ctx_id, ev_name) {					\
	.id = ctx_id, .name = ev_name, .type = KETW_TYPE_INFO,		\
	.level = KETW_LEVEL_INFO, .keyword = 0x1, .version = 1,		\
	.fields = oot_fields, .nr_fields = ARRAY_SIZE(oot_fields) }

static const struct ketw_event_descriptor oot_events[KETW_OOT_NR_CTX] = {
	OOT_EVENT(KETW_OOT_CTX_WORK, "work"),
	OOT_EVENT(KETW_OOT_CTX_SOFTIRQ, "softirq"),
	OOT_EVENT(KETW_OOT_CTX_HARDIRQ, "hardirq"),
};

static KETW_PROVIDER_EVENTS(oot_provider, KETW_OOT_NAME, oot_events,
			    KETW_OOT_GUID_BYTES);

struct oot_cpu {
	u64 emitted[KETW_OOT_NR_CTX];	/* each written by its context only */
	struct delayed_work work;
	struct timer_list timer;
	struct hrtimer hrtimer;
	unsigned int cpu;
	bool running;
	bool timers_started;		/* by the first run of the work */
};

static DEFINE_PER_CPU(struct oot_cpu, oot_cpus);
static struct workqueue_struct *oot_wq;
/* Serialises runs, the reading of their counts and module exit. */
static DEFINE_MUTEX(oot_mutex);
static bool oot_exiting;

static unsigned int period_us = 1000;
module_param(period_us, uint, 0644);
MODULE_PARM_DESC(period_us, "hrtimer period in microseconds (100..100000)");

static unsigned int burst = 4;
module_param(burst, uint, 0644);
MODULE_PARM_DESC(burst, "events the work item logs each time it runs (1..64)");

static void oot_emit(struct oot_cpu *oc, u32 ctx)
{
	struct ketw_oot_ev ev = {
		.cpu = smp_processor_id(),
		.ctx = ctx,
		.counter = oc->emitted[ctx],
	};

	ketw_write(&oot_provider, &oot_events[ctx], &ev, sizeof(ev));
	oc->emitted[ctx]++;
}

static ktime_t oot_period(void)
{
	return ns_to_ktime((u64)READ_ONCE(period_us) * NSEC_PER_USEC);
}

/* Hardirq context: a hard hrtimer pinned to its CPU. */
static enum hrtimer_restart oot_hrtimer_fn(struct hrtimer *t)
{
	struct oot_cpu *oc = container_of(t, struct oot_cpu, hrtimer);

	if (!READ_ONCE(oc->running))
		return HRTIMER_NORESTART;
	oot_emit(oc, KETW_OOT_CTX_HARDIRQ);
	hrtimer_forward_now(t, oot_period());
	return HRTIMER_RESTART;
}

/* Softirq context: a timer pinned to its CPU, every jiffy. */
static void oot_timer_fn(struct timer_list *t)
{
	struct oot_cpu *oc = from_timer(oc, t, timer);

	if (!READ_ONCE(oc->running))
		return;
	oot_emit(oc, KETW_OOT_CTX_SOFTIRQ);
	mod_timer(&oc->timer, jiffies + 1);
}

/*
 * Task context: a work item of a per-CPU workqueue, queued on its CPU
 * again each jiffy. Its first run starts the CPU's timers, which stay on
 * the CPU that starts them.
 */
static void oot_work_fn(struct work_struct *w)
{
	struct oot_cpu *oc = container_of(to_delayed_work(w), struct oot_cpu,
					  work);
	unsigned int i;

	if (!READ_ONCE(oc->running))
		return;
	if (!oc->timers_started) {
		oc->timers_started = true;
		hrtimer_start(&oc->hrtimer, oot_period(),
			      HRTIMER_MODE_REL_PINNED_HARD);
		mod_timer(&oc->timer, jiffies + 1);
	}
	/* Bound to its CPU; this only makes smp_processor_id() legal. */
	preempt_disable();
	for (i = 0; i < burst; i++)
		oot_emit(oc, KETW_OOT_CTX_WORK);
	preempt_enable();
	queue_delayed_work_on(oc->cpu, oot_wq, &oc->work, 1);
}

static void oot_run(unsigned int ms)
{
	struct oot_cpu *oc;
	int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		oc = per_cpu_ptr(&oot_cpus, cpu);
		memset(oc->emitted, 0, sizeof(oc->emitted));
		oc->cpu = cpu;
		oc->timers_started = false;
		WRITE_ONCE(oc->running, true);
		queue_delayed_work_on(cpu, oot_wq, &oc->work, 0);
	}
	msleep(ms);
	for_each_online_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(&oot_cpus, cpu)->running, false);
	/* The work first: it is what starts the timers. */
	for_each_online_cpu(cpu) {
		oc = per_cpu_ptr(&oot_cpus, cpu);
		cancel_delayed_work_sync(&oc->work);
		timer_delete_sync(&oc->timer);
		hrtimer_cancel(&oc->hrtimer);
	}
	cpus_read_unlock();
}

static int oot_run_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;
	int err;

	err = kstrtouint(val, 0, &ms);
	if (err)
		return err;
	if (!ms || ms > OOT_MAX_MS || period_us < 100 || period_us > 100000 ||
	    !burst || burst > 64)
		return -EINVAL;
	mutex_lock(&oot_mutex);
	if (oot_exiting)
		err = -ENODEV;
	else
		oot_run(ms);
	mutex_unlock(&oot_mutex);
	return err;
}

static const struct kernel_param_ops oot_run_ops = {
	.set = oot_run_set,
};
module_param_cb(run_ms, &oot_run_ops, NULL, 0200);
MODULE_PARM_DESC(run_ms, "write N: log from every context on every CPU for N ms");

/*
 * A report is read-only, but the kernel calls a parameter's setter at
 * load without checking that there is one: refuse, naming it.
 */
static int oot_read_only(const char *val, const struct kernel_param *kp)
{
	pr_err("ketw_oot: parameter %s is read-only\n", kp->name);
	return -EPERM;
}

static int oot_emitted_get(char *buf, const struct kernel_param *kp)
{
	int cpu, n = 0;

	mutex_lock(&oot_mutex);
	for_each_online_cpu(cpu) {
		struct oot_cpu *oc = per_cpu_ptr(&oot_cpus, cpu);

		n += sysfs_emit_at(buf, n, "%d %llu %llu %llu\n", cpu,
				   oc->emitted[KETW_OOT_CTX_WORK],
				   oc->emitted[KETW_OOT_CTX_SOFTIRQ],
				   oc->emitted[KETW_OOT_CTX_HARDIRQ]);
	}
	mutex_unlock(&oot_mutex);
	return n;
}

static const struct kernel_param_ops oot_emitted_ops = {
	.set = oot_read_only,
	.get = oot_emitted_get,
};
module_param_cb(emitted, &oot_emitted_ops, NULL, 0444);
MODULE_PARM_DESC(emitted, "per CPU: cpu work softirq hardirq counts of the last run");

static int __init oot_init(void)
{
	int cpu, err;

	for_each_possible_cpu(cpu) {
		struct oot_cpu *oc = per_cpu_ptr(&oot_cpus, cpu);

		INIT_DELAYED_WORK(&oc->work, oot_work_fn);
		timer_setup(&oc->timer, oot_timer_fn, TIMER_PINNED);
		hrtimer_init(&oc->hrtimer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		oc->hrtimer.function = oot_hrtimer_fn;
	}
	/* Per-CPU (bound): a work item queued on a CPU runs there. */
	oot_wq = alloc_workqueue("ketw_oot", 0, 0);
	if (!oot_wq)
		return -ENOMEM;
	err = ketw_provider_register(&oot_provider);
	if (err)
		destroy_workqueue(oot_wq);
	return err;
}

/*
 * The parameters stay in sysfs until after this returns, and writing one
 * holds no reference on the module: wait for a run in progress, and
 * refuse later ones.
 */
static void __exit oot_exit(void)
{
	mutex_lock(&oot_mutex);
	oot_exiting = true;
	mutex_unlock(&oot_mutex);
	ketw_provider_unregister(&oot_provider);
	destroy_workqueue(oot_wq);
}

module_init(oot_init);
module_exit(oot_exit);

MODULE_DESCRIPTION("ketw out-of-tree sample provider: work, softirq and hardirq on every CPU");
MODULE_AUTHOR("The ketw developers");
MODULE_LICENSE("GPL");
