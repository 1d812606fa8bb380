// SPDX-License-Identifier: GPL-2.0
/*
 * ketw_stress - log from task, softirq and hardirq context on every CPU
 * at once, so that writers nest and CPUs race (see ketw_stress.h).
 */
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <ketw.h>
#ifdef CONFIG_X86_LOCAL_APIC
#include <asm/apic.h>
#include <asm/nmi.h>
#endif

#include "ketw_stress.h"

#define STRESS_MAX_MS	60000

static KETW_PROVIDER(stress_provider, KETW_STRESS_NAME, KETW_STRESS_GUID_BYTES);

static const struct ketw_event_descriptor stress_desc[KETW_STRESS_NR_CTX] = {
	{ .id = KETW_STRESS_CTX_THREAD, .level = 4, .keyword = 1, .name = "thread" },
	{ .id = KETW_STRESS_CTX_SOFTIRQ, .level = 4, .keyword = 1, .name = "softirq" },
	{ .id = KETW_STRESS_CTX_HARDIRQ, .level = 4, .keyword = 1, .name = "hardirq" },
	{ .id = KETW_STRESS_CTX_NMI, .level = 4, .keyword = 1, .name = "nmi" },
};

struct stress_cpu {
	u64 emitted[KETW_STRESS_NR_CTX];	/* each written by its context only */
	struct hrtimer soft;
	struct hrtimer hard;
	struct task_struct *thread;
	bool running;
};

static DEFINE_PER_CPU(struct stress_cpu, stress_cpus);
/* Serialises runs. */
static DEFINE_MUTEX(stress_mutex);
/*
 * Under emulation (QEMU TCG) an interrupt can take milliseconds: much
 * faster timers, or an NMI per tick, leave a CPU in interrupts forever,
 * and a static-key patch (which waits for an IPI on every CPU) never
 * finishes.
 */
static unsigned int period_us = 1000;
module_param(period_us, uint, 0644);
MODULE_PARM_DESC(period_us, "hrtimer period in microseconds (20..100000)");

static void stress_emit(struct stress_cpu *sc, u32 ctx)
{
	struct {
		struct ketw_stress_ev ev;
		u8 fill[KETW_STRESS_FILL_MOD];
	} p;
	u64 n = sc->emitted[ctx];
	u32 k, len = n % KETW_STRESS_FILL_MOD;

	p.ev.cpu = smp_processor_id();
	p.ev.ctx = ctx;
	p.ev.counter = n;
	for (k = 0; k < len; k++)
		p.fill[k] = (n * 7 + ctx + k) & 0xff;
	ketw_write(&stress_provider, &stress_desc[ctx], &p, sizeof(p.ev) + len);
	sc->emitted[ctx] = n + 1;
}

static enum hrtimer_restart stress_timer(struct hrtimer *t, u32 ctx)
{
	struct stress_cpu *sc = this_cpu_ptr(&stress_cpus);

	if (!READ_ONCE(sc->running))
		return HRTIMER_NORESTART;
	stress_emit(sc, ctx);
	hrtimer_forward_now(t, ns_to_ktime(period_us * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static enum hrtimer_restart stress_soft_fn(struct hrtimer *t)
{
	return stress_timer(t, KETW_STRESS_CTX_SOFTIRQ);
}

#ifdef CONFIG_X86_LOCAL_APIC
/* NMIs this module sent to a CPU and its handler has not taken yet. */
static DEFINE_PER_CPU(atomic_t, stress_nmi_pending);
static bool stress_nmi_registered;

static int stress_nmi(unsigned int type, struct pt_regs *regs)
{
	struct stress_cpu *sc = this_cpu_ptr(&stress_cpus);

	if (!atomic_add_unless(this_cpu_ptr(&stress_nmi_pending), -1, 0))
		return NMI_DONE;	/* not ours */
	if (READ_ONCE(sc->running))
		stress_emit(sc, KETW_STRESS_CTX_NMI);
	return NMI_HANDLED;
}

/* From the hard timer: NMI the next CPU, likely in the middle of a write. */
static void stress_send_nmi(void)
{
	int cpu = cpumask_next_wrap(smp_processor_id(), cpu_online_mask,
				    smp_processor_id(), false);

	if (!stress_nmi_registered)
		return;
	if (cpu >= nr_cpu_ids)
		cpu = smp_processor_id();
	/* At most one in flight per CPU: NMIs cannot be throttled. */
	if (atomic_cmpxchg(per_cpu_ptr(&stress_nmi_pending, cpu), 0, 1))
		return;
	apic->send_IPI(cpu, NMI_VECTOR);
}

/* After a run: let the NMIs in flight arrive while the handler is there. */
static void stress_nmi_drain(void)
{
	int cpu, tries;

	for (tries = 0; tries < 100; tries++) {
		for_each_online_cpu(cpu)
			if (atomic_read(per_cpu_ptr(&stress_nmi_pending, cpu)))
				break;
		if (cpu >= nr_cpu_ids)
			return;
		usleep_range(1000, 2000);
	}
}

static void stress_nmi_init(void)
{
	stress_nmi_registered = !register_nmi_handler(NMI_LOCAL, stress_nmi,
						      0, "ketw_stress");
}

static void stress_nmi_exit(void)
{
	if (stress_nmi_registered)
		unregister_nmi_handler(NMI_LOCAL, "ketw_stress");
}
#else
static void stress_send_nmi(void) { }
static void stress_nmi_drain(void) { }
static void stress_nmi_init(void) { }
static void stress_nmi_exit(void) { }
#endif

static enum hrtimer_restart stress_hard_fn(struct hrtimer *t)
{
	if (READ_ONCE(this_cpu_ptr(&stress_cpus)->running))
		stress_send_nmi();
	return stress_timer(t, KETW_STRESS_CTX_HARDIRQ);
}

/* Bound to its CPU: start the timers there, then log until stopped. */
static int stress_thread(void *arg)
{
	struct stress_cpu *sc = arg;
	unsigned long i = 0;

	WRITE_ONCE(sc->running, true);
	hrtimer_start(&sc->soft, ns_to_ktime(period_us * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_SOFT);
	hrtimer_start(&sc->hard, ns_to_ktime((period_us / 2 + 1) * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	while (!kthread_should_stop()) {
		/* The timers touch only their own counters. */
		preempt_disable();
		stress_emit(sc, KETW_STRESS_CTX_THREAD);
		preempt_enable();
		if (!(++i & 63))
			cond_resched();
	}
	WRITE_ONCE(sc->running, false);
	hrtimer_cancel(&sc->soft);
	hrtimer_cancel(&sc->hard);
	return 0;
}

static int stress_run(unsigned int ms)
{
	struct stress_cpu *sc;
	int cpu, err = 0;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		sc = per_cpu_ptr(&stress_cpus, cpu);
		memset(sc->emitted, 0, sizeof(sc->emitted));
		hrtimer_init(&sc->soft, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_SOFT);
		sc->soft.function = stress_soft_fn;
		hrtimer_init(&sc->hard, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		sc->hard.function = stress_hard_fn;
		sc->thread = kthread_create_on_cpu(stress_thread, sc, cpu,
						   "ketw_stress/%u");
		if (IS_ERR(sc->thread)) {
			err = PTR_ERR(sc->thread);
			sc->thread = NULL;
		}
	}
	for_each_online_cpu(cpu) {
		sc = per_cpu_ptr(&stress_cpus, cpu);
		if (sc->thread && !err)
			wake_up_process(sc->thread);
	}
	if (!err)
		msleep(ms);
	for_each_online_cpu(cpu) {
		sc = per_cpu_ptr(&stress_cpus, cpu);
		if (sc->thread)
			kthread_stop(sc->thread);
		sc->thread = NULL;
	}
	stress_nmi_drain();
	cpus_read_unlock();
	return err;
}

static int stress_run_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;
	int err;

	err = kstrtouint(val, 0, &ms);
	if (err)
		return err;
	if (!ms || ms > STRESS_MAX_MS || period_us < 20 || period_us > 100000)
		return -EINVAL;
	mutex_lock(&stress_mutex);
	err = stress_run(ms);
	mutex_unlock(&stress_mutex);
	return err;
}

static const struct kernel_param_ops stress_run_ops = {
	.set = stress_run_set,
};
module_param_cb(run_ms, &stress_run_ops, NULL, 0200);
MODULE_PARM_DESC(run_ms, "write N: log from every context on every CPU for N ms");

/*
 * A report is read-only, but the kernel calls a parameter's setter at
 * load without checking that there is one: refuse, naming it.
 */
static int stress_read_only(const char *val, const struct kernel_param *kp)
{
	pr_err("ketw_stress: parameter %s is read-only\n", kp->name);
	return -EPERM;
}

static int stress_emitted_get(char *buf, const struct kernel_param *kp)
{
	int cpu, n = 0;

	mutex_lock(&stress_mutex);
	for_each_online_cpu(cpu) {
		struct stress_cpu *sc = per_cpu_ptr(&stress_cpus, cpu);

		n += sysfs_emit_at(buf, n, "%d %llu %llu %llu %llu\n", cpu,
				   sc->emitted[0], sc->emitted[1], sc->emitted[2],
				   sc->emitted[3]);
	}
	mutex_unlock(&stress_mutex);
	return n;
}

static const struct kernel_param_ops stress_emitted_ops = {
	.set = stress_read_only,
	.get = stress_emitted_get,
};
module_param_cb(emitted, &stress_emitted_ops, NULL, 0444);
MODULE_PARM_DESC(emitted, "per CPU: cpu thread softirq hardirq nmi counts of the last run");

static int __init stress_init(void)
{
	int err = ketw_provider_register(&stress_provider);

	if (!err)
		stress_nmi_init();
	return err;
}

static void __exit stress_exit(void)
{
	stress_nmi_exit();
	ketw_provider_unregister(&stress_provider);
}

module_init(stress_init);
module_exit(stress_exit);

MODULE_DESCRIPTION("ketw stress provider: every context on every CPU");
MODULE_AUTHOR("The ketw developers");
MODULE_LICENSE("GPL");
